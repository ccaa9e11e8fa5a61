// regmap.*: every kind of bad register map fails with the file, the line and the reason.
#include <catch2/catch.hpp>

#include "nicsched/regmapgen/map.hpp"
#include "tiny_map.hpp"

using namespace nicsched::regmapgen;
using namespace nicsched::test;

namespace {

// Parses `text`; requires a RegmapError at the line holding `at` whose reason holds `reason`.
void expect_error(const std::string& text, const std::string& at, const std::string& reason) {
  INFO("expected '" << reason << "' at the line of '" << at << "'");
  try {
    (void)parse_map(text, "bad.yaml");
    FAIL("the map was accepted");
  } catch (const RegmapError& e) {
    INFO("got: " << e.what());
    CHECK(e.file() == "bad.yaml");
    CHECK(e.line() == line_of(text, at));
    CHECK_THAT(e.reason(), Catch::Contains(reason));
    CHECK_THAT(std::string(e.what()), Catch::StartsWith("bad.yaml:" + std::to_string(e.line()) + ":"));
  }
}

const std::string kMode = "      - name: MODE\n        offset: 0x4\n";
const std::string kLimit = "{name: LIMIT, lsb: 8, width: 12, access: rw, reset: 0x123, desc: \"Limit\"}";
const std::string kPortArray = "array: {count: NumPorts, stride: 0x10}";
const std::string kOther =
    "  - name: OTHER\n    base: 0x130\n    desc: Other.\n    registers:\n"
    "      - {name: O_REG, offset: 0x0, desc: x, fields: [{name: V, lsb: 0, width: 8, access: rw, reset: 0, desc: v}]}\n";

}  // namespace

TEST_CASE("the tiny map is valid (the base of every bad case below)") { CHECK_NOTHROW(parse_map(kTinyMap, "tiny.yaml")); }

TEST_CASE("unknown key") {
  expect_error(replaced(kTinyMap, kMode, kMode + "        colour: red\n"), "colour", "unknown key 'colour'");
  expect_error(replaced(kTinyMap, "addr_width: 12", "addr_width: 12\nflavour: x"), "flavour", "unknown key 'flavour'");
}

TEST_CASE("missing key") {
  expect_error(replaced(kTinyMap, "        desc: Time.\n", ""), "- name: TIME", "missing key 'desc'");
  expect_error(replaced(kTinyMap, "commit: CMD.COMMIT\n", ""), "name: tiny", "missing key 'commit'");
}

TEST_CASE("duplicate key") {
  expect_error(replaced(kTinyMap, kMode, kMode + "        offset: 0x8\n"), "offset: 0x8\n        shadowed",
               "duplicate key 'offset'");
}

TEST_CASE("overlapping register offsets, 64-bit registers taking two words") {
  const std::string extra =
      "      - {name: EXTRA, offset: 0xC, desc: x, fields: [{name: V, lsb: 0, width: 8, access: rw, reset: 0, desc: v}]}\n";
  expect_error(replaced(kTinyMap, "      - name: LIMIT64\n", extra + "      - name: LIMIT64\n"), "name: EXTRA",
               "overlaps register TIME");
  expect_error(replaced(kTinyMap, "        offset: 0x8\n        width: 64", "        offset: 0x4\n        width: 64"),
               "offset: 0x4\n        width: 64", "is not a multiple of 8");
}

TEST_CASE("array block overlapping another block at its maximum count") {
  // PORT is 0x100..0x11F at its default count of 2 but 0x100..0x13F at its max of 4.
  expect_error(kTinyMap + kOther, "name: OTHER", "overlaps block PORT");
}

TEST_CASE("block beyond the address space") {
  expect_error(replaced(kTinyMap + kOther, "base: 0x130", "base: 0x1000"), "name: OTHER", "does not fit");
}

TEST_CASE("overlapping fields") {
  expect_error(replaced(kTinyMap, "          - {name: ON,",
                        "          - {name: X, lsb: 5, width: 2, access: rw, reset: 0, desc: x}\n          - {name: ON,"),
               "name: X", "overlaps field SPEED");
}

TEST_CASE("field wider than its register") {
  expect_error(replaced(kTinyMap, kLimit, replaced(kLimit, "lsb: 8", "lsb: 24")), "{name: LIMIT,",
               "wider than its 32-bit register");
  expect_error(replaced(kTinyMap, "lsb: 48, width: 4", "lsb: 62, width: 4"), "name: FLAGS",
               "wider than its 64-bit register");
}

TEST_CASE("reset value that does not fit its field") {
  expect_error(replaced(kTinyMap, kLimit, replaced(kLimit, "reset: 0x123", "reset: 0x1000")), "{name: LIMIT,",
               "reset value 0x1000 of field P_CFG.LIMIT does not fit in its 12 bits");
}

TEST_CASE("enum value that does not fit its field") {
  expect_error(replaced(kTinyMap, "FAST: 2", "FAST: 4"), "FAST: 4", "does not fit");
}

TEST_CASE("duplicate register, field and block names") {
  expect_error(replaced(kTinyMap, "- name: P_CFG", "- name: MODE"), "- name: MODE\n        offset: 0x4\n        desc",
               "duplicate register name 'MODE'");
  expect_error(replaced(kTinyMap, "{name: ON,", "{name: SPEED,"), "{name: SPEED, lsb: 0", "duplicate field name 'SPEED'");
  expect_error(replaced(kTinyMap + kOther, "name: OTHER\n    base: 0x130", "name: TOP\n    base: 0x800"),
               "name: TOP\n    base: 0x800", "duplicate block name 'TOP'");
}

TEST_CASE("array stride too small for its registers, or not a power of two") {
  expect_error(replaced(kTinyMap, kPortArray, "array: {count: NumPorts, stride: 0x8}"), "stride: 0x8",
               "too small for register P_STAT");
  expect_error(replaced(kTinyMap, kPortArray, "array: {count: NumPorts, stride: 0x18}"), "stride: 0x18",
               "power of two");
}

TEST_CASE("array count naming an unknown parameter") {
  expect_error(replaced(kTinyMap, kPortArray, "array: {count: NumPortz, stride: 0x10}"), "NumPortz",
               "count 'NumPortz' of block PORT names no parameter");
}

TEST_CASE("bad access kind") {
  expect_error(replaced(kTinyMap, kLimit, replaced(kLimit, "access: rw", "access: rx")), "{name: LIMIT,",
               "bad access kind 'rx'");
}

TEST_CASE("commit or snapshot naming a missing or unsuitable field") {
  expect_error(replaced(kTinyMap, "commit: CMD.COMMIT", "commit: CMD.GO"), "commit: CMD.GO",
               "register CMD does not have");
  expect_error(replaced(kTinyMap, "snapshot: CMD.SNAP", "snapshot: NOPE.SNAP"), "snapshot: NOPE",
               "names register NOPE");
  expect_error(replaced(kTinyMap, "commit: CMD.COMMIT", "commit: MODE.ON"), "commit: MODE.ON", "1-bit wo field");
}

TEST_CASE("snapshot and shadowed registers holding the wrong access kinds") {
  expect_error(replaced(kTinyMap, "{name: COUNT, lsb: 0, width: 64, access: ro", "{name: COUNT, lsb: 0, width: 64, access: rw"),
               "name: COUNT", "may hold only ro fields");
  expect_error(replaced(kTinyMap, "{name: ON, lsb: 0, width: 1, access: rw", "{name: ON, lsb: 0, width: 1, access: w1c"),
               "name: ON", "may hold only rw and ro fields");
}

TEST_CASE("snapshot: ram only in an array block, never on a const field, and snapshot takes true, false or ram") {
  // TIME is in the single block TOP: a RAM snapshot needs an element index.
  expect_error(replaced(kTinyMap, "        snapshot: true\n        desc: Time.", "        snapshot: ram\n        desc: Time."),
               "snapshot: ram", "snapshot: ram register TIME must be in an array block; block TOP is not an array");
  const std::string stat = "      - name: P_STAT\n        offset: 0x8\n";
  expect_error(replaced(kTinyMap, stat, stat + "        snapshot: yes\n"), "snapshot: yes",
               "'snapshot' of register P_STAT must be true, false or ram");
  expect_error(replaced(replaced(kTinyMap, stat, stat + "        snapshot: ram\n"),
                        "{name: DEPTH, lsb: 0, width: 16, access: ro, reset: 0,",
                        "{name: DEPTH, lsb: 0, width: 16, access: ro, const: true, reset: 0,"),
               "name: DEPTH", "may not hold a const field; DEPTH is const");
  // In an array block it is accepted, and the register says so.
  const RegisterMap m = parse_map(replaced(kTinyMap, stat, stat + "        snapshot: ram\n"), "ok.yaml");
  const Register& r = m.blocks.back().registers.back();
  CHECK(r.name == "P_STAT");
  CHECK(r.snapshot);
  CHECK(r.snapshot_ram);
}

TEST_CASE("bad parameters") {
  expect_error(replaced(kTinyMap, "default: 2, max: 4", "default: 5, max: 4"), "NumPorts, default", "must be 1..4");
  expect_error(replaced(kTinyMap, "max: 8, desc: \"Lanes\"", "max: 7, desc: \"Lanes\""), "NumLanes",
               "smaller than its expr");
  expect_error(replaced(kTinyMap, "\"NumPorts * 2\"", "\"NumPorts * Foo\""), "NumLanes", "'Foo' is not a parameter");
}

TEST_CASE("YAML syntax error") {
  // yaml-cpp reports an unclosed flow sequence where it notices: the next line.
  expect_error(replaced(kTinyMap, "desc: Mode.", "desc: [Mode."), "fields:\n          - {name: SPEED", "YAML syntax");
}
