// The one YAML reader (see yaml.hpp): parsing with a node budget, node-level readers and
// the scenario-style MapReader.
#include "nicsched/fileio/yaml.hpp"

#include <yaml-cpp/depthguard.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

namespace nicsched::fileio {
namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string list;
  for (const auto& a : items) list += (list.empty() ? "" : ", ") + a;
  return list;
}

// Walks the document as a reader would (an alias is visited once per reference) and refuses
// it once the walk passes max_nodes; iterative, so deep nesting cannot overflow the stack.
void check_node_budget(const YAML::Node& root, std::size_t max_nodes, const std::string& file) {
  std::vector<YAML::Node> pending{root};
  std::size_t visited = 0;
  while (!pending.empty()) {
    const YAML::Node n = pending.back();
    pending.pop_back();
    if (++visited > max_nodes) {
      throw YamlError(file, line_of(n), column_of(n), "(document)",
                      "the document has more than " + std::to_string(max_nodes) +
                          " nodes once its aliases are expanded (the limit for every YAML file)");
    }
    if (n.IsSequence()) {
      for (const auto& item : n) pending.push_back(item);
    } else if (n.IsMap()) {
      for (const auto& kv : n) {
        pending.push_back(kv.first);
        pending.push_back(kv.second);
      }
    }
  }
}

}  // namespace

YamlError::YamlError(std::string file, std::size_t line, std::size_t column, std::string field, std::string problem)
    : std::runtime_error(file + ":" + std::to_string(line) + ": " + field + ": " + problem),
      file_(std::move(file)),
      line_(line),
      column_(column),
      field_(std::move(field)),
      problem_(std::move(problem)) {}

std::size_t line_of(const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return m.line >= 0 ? static_cast<std::size_t>(m.line) + 1 : 0;
}

std::size_t column_of(const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return m.column >= 0 ? static_cast<std::size_t>(m.column) + 1 : 0;
}

std::string describe(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing";
  if (n.IsScalar()) return "'" + n.Scalar() + "'";
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "a mapping";
  return "nothing";
}

std::optional<std::uint64_t> parse_unsigned(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  } else if (text.size() > 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) {
    base = 2;
    text.remove_prefix(2);
  }
  std::uint64_t out = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out, base);
  if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size()) return std::nullopt;
  return out;
}

// ---------------------------------------------------------------- YamlDoc

YamlDoc::YamlDoc(std::string_view text, std::string file, std::size_t max_nodes) : file_(std::move(file)) {
  try {
    root_ = YAML::Load(std::string(text));
  } catch (const YAML::DeepRecursion& e) {  // its own message says "bad file"
    throw YamlError(file_, static_cast<std::size_t>(e.mark.line) + 1, static_cast<std::size_t>(e.mark.column) + 1,
                    "(document)",
                    "nested deeper than the YAML parser allows (about " + std::to_string(e.depth() / 4) + " levels)");
  } catch (const YAML::Exception& e) {
    const auto line = e.mark.line >= 0 ? static_cast<std::size_t>(e.mark.line) + 1 : 0;
    const auto column = e.mark.column >= 0 ? static_cast<std::size_t>(e.mark.column) + 1 : 0;
    throw YamlError(file_, line, column, "YAML syntax", e.msg);
  }
  check_node_budget(root_, max_nodes, file_);
}

YamlDoc YamlDoc::load(const std::filesystem::path& file, std::string_view role, std::uint64_t max_bytes,
                      std::size_t max_nodes) {
  return YamlDoc(read_text_file(file, role, max_bytes), file.string(), max_nodes);
}

void YamlDoc::fail(const YAML::Node& at, const std::string& field, const std::string& problem) const {
  throw YamlError(file_, line_of(at), column_of(at), field, problem);
}

void YamlDoc::expect_map(const YAML::Node& n, const std::string& field) const {
  if (!n.IsMap()) fail(n, field, "expected a mapping of keys, got " + describe(n));
}

void YamlDoc::expect_seq(const YAML::Node& n, const std::string& field) const {
  if (!n.IsSequence()) fail(n, field, "expected a list ('- ...' entries), got " + describe(n));
}

void YamlDoc::check_keys(const YAML::Node& n, const std::string& prefix, const std::vector<std::string>& allowed) const {
  std::set<std::string> seen;
  for (const auto& kv : n) {
    const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : describe(kv.first);
    if (!kv.first.IsScalar() || std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
      fail(kv.first, prefix + k, "unknown key (allowed: " + joined(allowed) + ")");
    }
    if (!seen.insert(k).second) fail(kv.first, prefix + k, "duplicate key");
  }
}

std::string YamlDoc::scalar(const YAML::Node& n, const std::string& field) const {
  if (!n.IsScalar()) fail(n, field, "expected a single value, got " + describe(n));
  return n.Scalar();
}

std::uint64_t YamlDoc::unsigned_int(const YAML::Node& n, const std::string& field) const {
  const std::string s = scalar(n, field);
  const auto v = parse_unsigned(s);
  if (!v) fail(n, field, "'" + s + "' is not a non-negative integer (decimal, 0x hex or 0b binary) of 64 bits");
  return *v;
}

double YamlDoc::number(const YAML::Node& n, const std::string& field) const {
  const std::string s = scalar(n, field);
  double v = 0;
  std::istringstream in(s);
  in >> v;
  if (!in || !in.eof() || !std::isfinite(v)) fail(n, field, "'" + s + "' is not a number");
  return v;
}

bool YamlDoc::boolean(const YAML::Node& n, const std::string& field) const {
  const std::string s = scalar(n, field);
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  fail(n, field, "'" + s + "' is not a boolean (allowed: true, false)");
}

// ---------------------------------------------------------------- MapReader

MapReader::MapReader(const YamlDoc& doc, const YAML::Node& node, std::string path)
    : doc_(doc), node_(node), path_(std::move(path)) {
  if (!node.IsMap()) fail(node, path_.empty() ? "(top level)" : path_, "expected a mapping, got " + describe(node));
  for (const auto& kv : node) {
    const auto key = kv.first.Scalar();
    if (!keys_.emplace(key, kv.first).second) fail(kv.first, full(key), "duplicate key");
  }
}

void MapReader::fail(const YAML::Node& at, const std::string& key, const std::string& what) const {
  doc_.fail(at, key, what);
}

void MapReader::fail_key(const std::string& key, const std::string& what) const {
  const YAML::Node v = node_[key];
  fail(v ? v : node_, full(key), what);
}

std::string MapReader::full(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

bool MapReader::has(const std::string& key) {
  used_.insert(key);
  return keys_.count(key) != 0;
}

YAML::Node MapReader::node(const std::string& key) {
  used_.insert(key);
  return node_[key];
}

std::string MapReader::str(const std::string& key, const std::optional<std::string>& def) {
  const YAML::Node v = node(key);
  if (!v) {
    if (def) return *def;
    fail(node_, full(key), "required key is missing (expected a string)");
  }
  if (!v.IsScalar()) fail(v, full(key), "expected a string, got " + describe(v));
  return v.Scalar();
}

double MapReader::num(const std::string& key, std::optional<double> def, double lo, double hi,
                      const std::string& what) {
  const YAML::Node v = node(key);
  if (!v) {
    if (def) return *def;
    fail(node_, full(key), "required key is missing (expected " + what + ")");
  }
  double x = 0;
  if (!v.IsScalar() || !YAML::convert<double>::decode(v, x) || !std::isfinite(x)) {
    fail(v, full(key), "expected " + what + ", got " + describe(v));
  }
  if (x < lo || x > hi) {
    std::ostringstream os;
    os << "expected " << what << " in [" << lo << ", " << hi << "], got " << v.Scalar();
    fail(v, full(key), os.str());
  }
  return x;
}

std::uint64_t MapReader::integer(const std::string& key, std::optional<std::uint64_t> def, std::uint64_t lo,
                                 std::uint64_t hi, const std::string& what) {
  const YAML::Node v = node(key);
  if (!v) {
    if (def) return *def;
    fail(node_, full(key), "required key is missing (expected " + what + ")");
  }
  long long x = 0;
  if (!v.IsScalar() || !YAML::convert<long long>::decode(v, x)) {
    fail(v, full(key), "expected " + what + " (an integer), got " + describe(v));
  }
  if (x < 0 || static_cast<std::uint64_t>(x) < lo || static_cast<std::uint64_t>(x) > hi) {
    fail(v, full(key),
         "expected " + what + " in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + v.Scalar());
  }
  return static_cast<std::uint64_t>(x);
}

bool MapReader::boolean(const std::string& key, bool def) {
  const YAML::Node v = node(key);
  if (!v) return def;
  bool b = false;
  if (!v.IsScalar() || !YAML::convert<bool>::decode(v, b)) {
    fail(v, full(key), "expected true or false, got " + describe(v));
  }
  return b;
}

std::string MapReader::choice(const std::string& key, const std::vector<std::string>& allowed,
                              const std::optional<std::string>& def) {
  const YAML::Node v = node(key);
  const std::string list = joined(allowed);
  if (!v) {
    if (def) return *def;
    fail(node_, full(key), "required key is missing (expected one of: " + list + ")");
  }
  if (!v.IsScalar() || std::find(allowed.begin(), allowed.end(), v.Scalar()) == allowed.end()) {
    fail(v, full(key), "expected one of: " + list + "; got " + describe(v));
  }
  return v.Scalar();
}

void MapReader::finish(const std::string& allowed_hint) const {
  for (const auto& [key, knode] : keys_) {
    if (used_.count(key) == 0) {
      fail(knode, full(key), "unknown key" + (allowed_hint.empty() ? std::string{} : " (allowed: " + allowed_hint + ")"));
    }
  }
}

}  // namespace nicsched::fileio
