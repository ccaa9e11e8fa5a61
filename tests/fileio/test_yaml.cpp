// fileio.*: the shared YAML reader names file, line and field in every error, and refuses
// documents whose alias expansion exceeds the node budget.
#include <catch2/catch.hpp>

#include <string>

#include "nicsched/fileio/yaml.hpp"

using nicsched::fileio::MapReader;
using nicsched::fileio::parse_unsigned;
using nicsched::fileio::YamlDoc;
using nicsched::fileio::YamlError;
using Catch::Contains;

namespace {

// The YamlError a reading function throws.
template <typename F>
YamlError error_of(F&& f) {
  try {
    f();
  } catch (const YamlError& e) {
    return e;
  }
  FAIL("no YamlError");
  throw std::logic_error("unreachable");
}

// "billion laughs": `levels` levels of ten aliases to the level below; a walk would visit
// 10^levels nodes while the document holds about 10 * levels.
std::string laughs(int levels) {
  std::string doc = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= levels; ++i) {
    const std::string prev = "*l" + std::to_string(i - 1);
    doc += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) doc += (k ? ", " : "") + prev;
    doc += "]\n";
  }
  return doc;
}

}  // namespace

TEST_CASE("a syntax error names the file and its line") {
  const auto e = error_of([] { YamlDoc("a: 1\nb: [1, 2\nc: 3\n", "s.yaml"); });
  CHECK(e.file() == "s.yaml");
  CHECK(e.line() >= 2);
  CHECK(e.field() == "YAML syntax");
  CHECK_THAT(e.what(), Contains("s.yaml:") && Contains("YAML syntax"));
}

TEST_CASE("alias expansion past the node budget is refused, below it accepted") {
  const auto e = error_of([] { YamlDoc(laughs(9), "laughs.yaml"); });
  CHECK(e.field() == "(document)");
  CHECK_THAT(e.what(), Contains("laughs.yaml:") && Contains("more than 200000 nodes"));
  // Four levels expand to ~11,000 nodes: fine under the default budget, refused under 5,000.
  CHECK_NOTHROW(YamlDoc(laughs(4), "small.yaml"));
  CHECK_THROWS_AS(YamlDoc(laughs(4), "small.yaml", 5000), YamlError);
}

TEST_CASE("a self-referencing alias cannot make a walk endless") {
  CHECK_THROWS_AS(YamlDoc("a: &a [1, *a]\n", "cycle.yaml"), YamlError);
}

TEST_CASE("nesting deeper than the parser allows is an error, not a crash") {
  const std::string deep = "a: " + std::string(100000, '[') + std::string(100000, ']') + "\n";
  const auto e = error_of([&] { YamlDoc(deep, "deep.yaml"); });
  CHECK(e.field() == "(document)");
  CHECK_THAT(e.what(), Contains("deep.yaml:1:") && Contains("nested deeper than"));
  const std::string fine = "a: " + std::string(100, '[') + std::string(100, ']') + "\n";
  CHECK_NOTHROW(YamlDoc(fine, "fine.yaml"));
}

TEST_CASE("an empty document is empty") {
  CHECK(YamlDoc("", "e.yaml").empty());
  CHECK(YamlDoc("# only a comment\n", "e.yaml").empty());
  CHECK_FALSE(YamlDoc("a: 1\n", "e.yaml").empty());
}

TEST_CASE("MapReader errors name file, line and the dotted field") {
  const YamlDoc doc("name: t\nnic:\n  tenants: 99\n  colour: red\nlist: [1]\n", "m.yaml");
  MapReader r(doc, doc.root(), "");
  CHECK(r.str("name") == "t");
  MapReader nic(doc, r.node("nic"), "nic");
  auto e = error_of([&] { (void)nic.integer("tenants", 8, 1, 64, "a tenant count"); });
  CHECK(e.line() == 3);
  CHECK(e.field() == "nic.tenants");
  CHECK_THAT(e.what(), Contains("m.yaml:3: nic.tenants: expected a tenant count in [1, 64], got 99"));
  e = error_of([&] { nic.finish("tenants"); });
  CHECK(e.line() == 4);
  CHECK(e.field() == "nic.colour");
  CHECK_THAT(e.problem(), Contains("unknown key (allowed: tenants)"));
  e = error_of([&] { (void)r.str("list"); });
  CHECK_THAT(e.what(), Contains("m.yaml:5: list: expected a string, got a list"));
  e = error_of([&] { (void)r.num("missing", std::nullopt, 0, 1, "a fraction"); });
  CHECK_THAT(e.what(), Contains("missing: required key is missing (expected a fraction)"));
}

TEST_CASE("duplicate keys are refused") {
  const YamlDoc doc("a: 1\nb: 2\na: 3\n", "d.yaml");
  auto e = error_of([&] { MapReader(doc, doc.root(), ""); });
  CHECK(e.line() == 3);
  CHECK_THAT(e.what(), Contains("d.yaml:3: a: duplicate key"));
  e = error_of([&] { doc.check_keys(doc.root(), "top.", {"a", "b"}); });
  CHECK_THAT(e.what(), Contains("top.a: duplicate key"));
}

TEST_CASE("node-level readers: integers, numbers, booleans, typed values") {
  const YamlDoc doc("u: 0x1F\nb: 0b101\nn: -3\nf: 2.5\nt: yes\nx: maybe\nl: [1, 2, z]\n", "v.yaml");
  const auto& root = doc.root();
  CHECK(doc.unsigned_int(root["u"], "u") == 31);
  CHECK(doc.unsigned_int(root["b"], "b") == 5);
  CHECK_THAT(error_of([&] { (void)doc.unsigned_int(root["n"], "n"); }).what(),
             Contains("v.yaml:3: n: '-3' is not a non-negative integer"));
  CHECK(doc.number(root["f"], "f") == 2.5);
  CHECK(doc.boolean(root["t"], "t"));
  CHECK_THAT(error_of([&] { (void)doc.boolean(root["x"], "x"); }).what(), Contains("'maybe' is not a boolean"));
  CHECK_THAT(error_of([&] { (void)doc.as<std::vector<unsigned>>(root["l"], "l", "a list of unsigned integers"); })
                 .what(),
             Contains("v.yaml:7: l: expected a list of unsigned integers, got a list"));
  CHECK(parse_unsigned("18446744073709551615") == 18446744073709551615ULL);
  CHECK_FALSE(parse_unsigned("18446744073709551616"));
  CHECK_FALSE(parse_unsigned("0x"));
  CHECK_FALSE(parse_unsigned("12abc"));
}
