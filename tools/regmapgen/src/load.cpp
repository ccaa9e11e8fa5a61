// Loader and validator of the register-map YAML (schema: rtl/regmap/nicsched.yaml header).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "nicsched/fileio/file.hpp"
#include "nicsched/fileio/yaml.hpp"
#include "nicsched/regmapgen/map.hpp"

namespace nicsched::regmapgen {

namespace {

std::string hex(std::uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << std::uppercase << v;
  return os.str();
}

SourceLoc loc_of(const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  if (m.line < 0) return {};
  return {m.line + 1, m.column + 1};
}

bool is_upper_snake(std::string_view s) {
  if (s.empty() || !std::isupper(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool is_upper_camel(std::string_view s) {
  if (s.empty() || !std::isupper(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
}

// Reads YAML nodes of one file, failing with the file, line and reason.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(SourceLoc loc, const std::string& reason) const {
    throw RegmapError(file_, loc.line, loc.column, reason);
  }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& reason) const { fail(loc_of(n), reason); }

  // `node` must be a mapping whose keys are all in `allowed` and include every `required`.
  void check_map(const YAML::Node& node, const std::string& what, const std::vector<std::string>& required,
                 const std::vector<std::string>& optional) const {
    if (!node.IsMap()) fail(node, what + " must be a mapping");
    std::set<std::string> seen;
    for (const auto& kv : node) {
      const std::string key = kv.first.Scalar();
      const bool known = std::find(required.begin(), required.end(), key) != required.end() ||
                         std::find(optional.begin(), optional.end(), key) != optional.end();
      if (!known) {
        std::string expected;
        for (const auto& k : required) expected += (expected.empty() ? "" : ", ") + k;
        for (const auto& k : optional) expected += (expected.empty() ? "" : ", ") + k;
        fail(kv.first, "unknown key '" + key + "' in " + what + " (expected one of: " + expected + ")");
      }
      if (!seen.insert(key).second) fail(kv.first, "duplicate key '" + key + "' in " + what);
    }
    for (const auto& k : required) {
      if (seen.count(k) == 0) fail(node, "missing key '" + k + "' in " + what);
    }
  }

  std::string str(const YAML::Node& node, const std::string& key, const std::string& what) const {
    const YAML::Node v = node[key];
    if (!v.IsScalar()) fail(v.IsDefined() ? v : node, "'" + key + "' of " + what + " must be a string");
    return v.Scalar();
  }

  std::uint64_t uint(const YAML::Node& v, const std::string& what) const {
    if (!v.IsScalar()) fail(v, what + " must be an unsigned integer");
    const std::string s = v.Scalar();
    const auto out = fileio::parse_unsigned(s);
    if (!out) fail(v, what + " must be an unsigned integer (decimal, 0x hex or 0b binary), got '" + s + "'");
    return *out;
  }

  std::uint32_t uint32(const YAML::Node& v, const std::string& what) const {
    const std::uint64_t x = uint(v, what);
    if (x > 0xFFFFFFFFu) fail(v, what + " " + hex(x) + " does not fit in 32 bits");
    return static_cast<std::uint32_t>(x);
  }

  bool boolean(const YAML::Node& node, const std::string& key, const std::string& what) const {
    const YAML::Node v = node[key];
    if (!v.IsDefined()) return false;
    const std::string s = v.IsScalar() ? v.Scalar() : "";
    if (s == "true") return true;
    if (s == "false") return false;
    fail(v, "'" + key + "' of " + what + " must be true or false");
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// A small integer expression over parameter names: + - * / and parentheses.
class ExprEval {
 public:
  using Lookup = std::function<std::optional<std::uint64_t>(const std::string&)>;
  ExprEval(std::string_view text, Lookup lookup) : text_(text), lookup_(std::move(lookup)) {}

  // Returns the value, or sets `error` and returns 0.
  std::uint64_t eval(std::string& error) {
    error_.clear();
    const std::uint64_t v = sum();
    skip_ws();
    if (error_.empty() && pos_ != text_.size()) error_ = "unexpected '" + std::string(text_.substr(pos_)) + "'";
    error = error_;
    return v;
  }

 private:
  void skip_ws() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  bool eat(char c) {
    skip_ws();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::uint64_t sum() {
    std::uint64_t v = product();
    for (;;) {
      if (eat('+')) {
        v += product();
      } else if (eat('-')) {
        const std::uint64_t r = product();
        if (r > v && error_.empty()) error_ = "negative result";
        v -= r;
      } else {
        return v;
      }
    }
  }
  std::uint64_t product() {
    std::uint64_t v = atom();
    for (;;) {
      if (eat('*')) {
        v *= atom();
      } else if (eat('/')) {
        const std::uint64_t r = atom();
        if (r == 0) {
          if (error_.empty()) error_ = "division by zero";
          return 0;
        }
        v /= r;
      } else {
        return v;
      }
    }
  }
  std::uint64_t atom() {
    skip_ws();
    if (eat('(')) {
      const std::uint64_t v = sum();
      if (!eat(')') && error_.empty()) error_ = "missing ')'";
      return v;
    }
    const std::size_t start = pos_;
    while (pos_ < text_.size() && std::isalnum(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    const std::string tok(text_.substr(start, pos_ - start));
    if (tok.empty()) {
      if (error_.empty()) error_ = "expected a number or a parameter name at column " + std::to_string(start + 1);
      return 0;
    }
    if (std::isdigit(static_cast<unsigned char>(tok[0]))) {
      std::uint64_t v = 0;
      const auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
      if ((ec != std::errc{} || ptr != tok.data() + tok.size()) && error_.empty()) error_ = "bad number '" + tok + "'";
      return v;
    }
    const auto v = lookup_(tok);
    if (!v) {
      if (error_.empty()) error_ = "'" + tok + "' is not a parameter with a default";
      return 0;
    }
    return *v;
  }

  std::string_view text_;
  Lookup lookup_;
  std::size_t pos_ = 0;
  std::string error_;
};

Access parse_access(const Reader& r, const YAML::Node& v, const std::string& what) {
  const std::string s = v.IsScalar() ? v.Scalar() : "";
  if (s == "rw") return Access::kRw;
  if (s == "ro") return Access::kRo;
  if (s == "wo") return Access::kWo;
  if (s == "w1c") return Access::kW1c;
  r.fail(v, "bad access kind '" + s + "' of " + what + " (expected rw, ro, wo or w1c)");
}

Field parse_field(const Reader& r, const YAML::Node& n, const Register& reg) {
  const std::string what0 = "field of register " + reg.name;
  r.check_map(n, what0, {"name", "lsb", "width", "access", "reset", "desc"}, {"const", "enum"});
  Field f;
  f.loc = loc_of(n);
  f.name = r.str(n, "name", what0);
  const std::string what = "field " + reg.name + "." + f.name;
  if (!is_upper_snake(f.name)) r.fail(n["name"], "name '" + f.name + "' of " + what0 + " must be UPPER_SNAKE");
  f.lsb = r.uint32(n["lsb"], "lsb of " + what);
  f.width = r.uint32(n["width"], "width of " + what);
  if (f.width == 0) r.fail(n["width"], "width of " + what + " must be at least 1");
  f.access = parse_access(r, n["access"], what);
  f.reset = r.uint(n["reset"], "reset of " + what);
  f.desc = r.str(n, "desc", what);
  f.is_const = r.boolean(n, "const", what);
  if (f.is_const && f.access != Access::kRo) r.fail(n["const"], "const: true is only allowed on ro fields (" + what + ")");
  if (static_cast<std::uint64_t>(f.lsb) + f.width > reg.width) {
    r.fail(n, what + " (bits [" + std::to_string(static_cast<std::uint64_t>(f.lsb) + f.width - 1) + ":" +
                  std::to_string(f.lsb) + "]) is wider than its " + std::to_string(reg.width) + "-bit register");
  }
  if (f.width < 64 && (f.reset >> f.width) != 0) {
    r.fail(n["reset"], "reset value " + hex(f.reset) + " of " + what + " does not fit in its " +
                           std::to_string(f.width) + " bits");
  }
  if (n["enum"].IsDefined()) {
    const YAML::Node e = n["enum"];
    if (!e.IsMap() || e.size() == 0) r.fail(e, "enum of " + what + " must be a non-empty mapping NAME: value");
    std::set<std::string> names;
    std::set<std::uint64_t> values;
    for (const auto& kv : e) {
      EnumValue ev;
      ev.name = kv.first.Scalar();
      ev.loc = loc_of(kv.first);
      if (!is_upper_snake(ev.name)) r.fail(kv.first, "enum name '" + ev.name + "' of " + what + " must be UPPER_SNAKE");
      if (!names.insert(ev.name).second) r.fail(kv.first, "duplicate enum name '" + ev.name + "' in " + what);
      ev.value = r.uint(kv.second, "enum value " + ev.name + " of " + what);
      if (f.width < 64 && (ev.value >> f.width) != 0) {
        r.fail(kv.second, "enum value " + ev.name + " = " + hex(ev.value) + " does not fit in the " +
                              std::to_string(f.width) + " bits of " + what);
      }
      if (!values.insert(ev.value).second) r.fail(kv.second, "enum value " + hex(ev.value) + " of " + what + " is used twice");
      f.enum_values.push_back(ev);
    }
  }
  return f;
}

Register parse_register(const Reader& r, const YAML::Node& n, const Block& blk) {
  const std::string what0 = "register of block " + blk.name;
  r.check_map(n, what0, {"name", "offset", "desc", "fields"}, {"width", "shadowed", "snapshot"});
  Register reg;
  reg.loc = loc_of(n);
  reg.name = r.str(n, "name", what0);
  const std::string what = "register " + reg.name;
  if (!is_upper_snake(reg.name)) r.fail(n["name"], "name '" + reg.name + "' of " + what0 + " must be UPPER_SNAKE");
  reg.offset = r.uint32(n["offset"], "offset of " + what);
  if (n["width"].IsDefined()) {
    reg.width = r.uint32(n["width"], "width of " + what);
    if (reg.width != 32 && reg.width != 64) r.fail(n["width"], "width of " + what + " must be 32 or 64");
  }
  if (reg.offset % reg.bytes() != 0) {
    r.fail(n["offset"], "offset " + hex(reg.offset) + " of " + std::to_string(reg.width) + "-bit " + what +
                            " is not a multiple of " + std::to_string(reg.bytes()));
  }
  reg.desc = r.str(n, "desc", what);
  reg.shadowed = r.boolean(n, "shadowed", what);
  if (n["snapshot"].IsDefined() && n["snapshot"].IsScalar() && n["snapshot"].Scalar() == "ram") {
    reg.snapshot = true;
    reg.snapshot_ram = true;
  } else if (n["snapshot"].IsDefined() &&
             !(n["snapshot"].IsScalar() && (n["snapshot"].Scalar() == "true" || n["snapshot"].Scalar() == "false"))) {
    r.fail(n["snapshot"], "'snapshot' of " + what + " must be true, false or ram");
  } else {
    reg.snapshot = r.boolean(n, "snapshot", what);
  }
  const YAML::Node fields = n["fields"];
  if (!fields.IsSequence() || fields.size() == 0) r.fail(fields, "fields of " + what + " must be a non-empty list");
  std::map<std::string, SourceLoc> names;
  for (const auto& fn : fields) {
    Field f = parse_field(r, fn, reg);
    if (!names.emplace(f.name, f.loc).second) {
      r.fail(fn["name"], "duplicate field name '" + f.name + "' in " + what + " (first at line " +
                             std::to_string(names[f.name].line) + ")");
    }
    reg.fields.push_back(std::move(f));
  }
  std::stable_sort(reg.fields.begin(), reg.fields.end(), [](const Field& a, const Field& b) { return a.lsb < b.lsb; });
  for (std::size_t i = 1; i < reg.fields.size(); ++i) {
    const Field& a = reg.fields[i - 1];
    const Field& b = reg.fields[i];
    if (b.lsb <= a.msb()) {
      r.fail(b.loc, "field " + b.name + " (bits [" + std::to_string(b.msb()) + ":" + std::to_string(b.lsb) +
                        "]) overlaps field " + a.name + " (bits [" + std::to_string(a.msb()) + ":" +
                        std::to_string(a.lsb) + "]) in " + what);
    }
  }
  if (reg.snapshot) {
    for (const Field& f : reg.fields) {
      if (f.access != Access::kRo) r.fail(f.loc, "snapshot " + what + " may hold only ro fields; " + f.name + " is " + std::string(to_string(f.access)));
    }
  }
  if (reg.shadowed) {
    bool any_rw = false;
    for (const Field& f : reg.fields) {
      if (f.access == Access::kWo || f.access == Access::kW1c) {
        r.fail(f.loc, "shadowed " + what + " may hold only rw and ro fields; " + f.name + " is " + std::string(to_string(f.access)));
      }
      any_rw = any_rw || f.access == Access::kRw;
    }
    if (!any_rw) r.fail(n["shadowed"], "shadowed " + what + " has no rw field to shadow");
  }
  if (reg.shadowed && reg.snapshot) r.fail(n["snapshot"], what + " cannot be both shadowed and snapshot");
  if (reg.snapshot_ram) {
    // The block outside the CSR holds the snapshot in a RAM addressed by the element index.
    if (!blk.array) r.fail(n["snapshot"], "snapshot: ram " + what + " must be in an array block; block " + blk.name + " is not an array");
    for (const Field& f : reg.fields) {
      if (f.is_const) r.fail(f.loc, "snapshot: ram " + what + " may not hold a const field; " + f.name + " is const");
    }
  }
  return reg;
}

Block parse_block(const Reader& r, const YAML::Node& n, const RegisterMap& map) {
  r.check_map(n, "block", {"name", "base", "desc", "registers"}, {"array"});
  Block blk;
  blk.loc = loc_of(n);
  blk.name = r.str(n, "name", "block");
  const std::string what = "block " + blk.name;
  if (!is_upper_snake(blk.name)) r.fail(n["name"], "block name '" + blk.name + "' must be UPPER_SNAKE");
  blk.base = r.uint32(n["base"], "base of " + what);
  if (blk.base % 4 != 0) r.fail(n["base"], "base " + hex(blk.base) + " of " + what + " is not a multiple of 4");
  blk.desc = r.str(n, "desc", what);
  if (n["array"].IsDefined()) {
    const YAML::Node a = n["array"];
    r.check_map(a, "array of " + what, {"count", "stride"}, {});
    ArraySpec spec;
    const YAML::Node c = a["count"];
    if (c.IsScalar() && !c.Scalar().empty() && std::isdigit(static_cast<unsigned char>(c.Scalar()[0]))) {
      spec.max_count = r.uint32(c, "count of " + what);
      if (spec.max_count == 0) r.fail(c, "count of " + what + " must be at least 1");
    } else {
      spec.count_param = c.IsScalar() ? c.Scalar() : "";
      const Param* p = map.find_param(spec.count_param);
      if (p == nullptr) r.fail(c, "count '" + spec.count_param + "' of " + what + " names no parameter in params");
      spec.max_count = static_cast<std::uint32_t>(p->max);
    }
    spec.stride = r.uint32(a["stride"], "stride of " + what);
    if (spec.stride < 4 || (spec.stride & (spec.stride - 1)) != 0) {
      r.fail(a["stride"], "stride " + hex(spec.stride) + " of " + what + " must be a power of two, at least 4");
    }
    blk.array = spec;
  }
  const YAML::Node regs = n["registers"];
  if (!regs.IsSequence() || regs.size() == 0) r.fail(regs, "registers of " + what + " must be a non-empty list");
  for (const auto& rn : regs) blk.registers.push_back(parse_register(r, rn, blk));
  std::stable_sort(blk.registers.begin(), blk.registers.end(),
            [](const Register& a, const Register& b) { return a.offset < b.offset; });
  for (std::size_t i = 1; i < blk.registers.size(); ++i) {
    const Register& a = blk.registers[i - 1];
    const Register& b = blk.registers[i];
    if (b.offset < a.offset + a.bytes()) {
      r.fail(b.loc, "register " + b.name + " at offset " + hex(b.offset) + " overlaps register " + a.name +
                        " (offset " + hex(a.offset) + ", " + std::to_string(a.bytes()) + " bytes) in " + what);
    }
  }
  if (blk.array) {
    for (const Register& reg : blk.registers) {
      if (reg.offset + reg.bytes() > blk.array->stride) {
        r.fail(n["array"]["stride"], "array stride " + hex(blk.array->stride) + " of " + what +
                                         " is too small for register " + reg.name + " (offset " + hex(reg.offset) +
                                         ", " + std::to_string(reg.bytes()) + " bytes)");
      }
    }
  }
  return blk;
}

FieldRef parse_ref(const Reader& r, const YAML::Node& root, const std::string& key) {
  const std::string s = r.str(root, key, "the map");
  const auto dot = s.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == s.size()) {
    r.fail(root[key], "'" + key + "' must be REG.FIELD, got '" + s + "'");
  }
  return {s.substr(0, dot), s.substr(dot + 1), loc_of(root[key])};
}

void check_trigger(const Reader& r, const RegisterMap& map, const FieldRef& ref, const std::string& key) {
  for (const Block& b : map.blocks) {
    for (const Register& reg : b.registers) {
      if (reg.name != ref.reg) continue;
      if (b.array) r.fail(ref.loc, key + " register " + ref.reg + " must not be in an array block");
      for (const Field& f : reg.fields) {
        if (f.name != ref.field) continue;
        if (f.access != Access::kWo || f.width != 1) {
          r.fail(ref.loc, key + " " + ref.reg + "." + ref.field + " must be a 1-bit wo field");
        }
        return;
      }
      r.fail(ref.loc, key + " names field " + ref.field + " which register " + ref.reg + " does not have");
    }
  }
  r.fail(ref.loc, key + " names register " + ref.reg + " which the map does not have");
}

void check_names(const Reader& r, const RegisterMap& map) {
  std::map<std::string, SourceLoc> blocks;
  std::map<std::string, SourceLoc> regs;
  std::map<std::string, std::string> ports;  // lower-case port stem -> REG.FIELD
  std::map<std::string, std::pair<const Field*, const Register*>> enums;  // enum type name -> first field
  for (const Block& b : map.blocks) {
    if (!blocks.emplace(b.name, b.loc).second) {
      r.fail(b.loc, "duplicate block name '" + b.name + "' (first at line " + std::to_string(blocks[b.name].line) + ")");
    }
    for (const Register& reg : b.registers) {
      if (!regs.emplace(reg.name, reg.loc).second) {
        r.fail(reg.loc, "duplicate register name '" + reg.name + "' (first at line " +
                            std::to_string(regs[reg.name].line) + ")");
      }
      for (const Field& f : reg.fields) {
        const std::string stem = to_lower(reg.name + "_" + f.name);
        const std::string full = reg.name + "." + f.name;
        if (auto [it, ok] = ports.emplace(stem, full); !ok) {
          r.fail(f.loc, "field " + full + " gives the same port/constant name '" + stem + "' as " + it->second);
        }
        if (f.enum_values.empty()) continue;
        const std::string type = to_camel(f.name);
        if (auto [it, ok] = enums.emplace(type, std::make_pair(&f, &reg)); !ok) {
          const Field& first = *it->second.first;
          bool same = first.enum_values.size() == f.enum_values.size();
          for (std::size_t i = 0; same && i < f.enum_values.size(); ++i) {
            same = first.enum_values[i].name == f.enum_values[i].name && first.enum_values[i].value == f.enum_values[i].value;
          }
          if (!same) {
            r.fail(f.loc, "enum of " + full + " differs from the enum of " + it->second.second->name + "." +
                              first.name + "; fields of the same name share the C++ enum class " + type +
                              ", so their enums must be equal (or rename one field)");
          }
        }
      }
    }
  }
}

void check_block_overlaps(const Reader& r, const RegisterMap& map) {
  std::vector<const Block*> sorted;
  for (const Block& b : map.blocks) sorted.push_back(&b);
  std::sort(sorted.begin(), sorted.end(), [](const Block* a, const Block* b) { return a->base < b->base; });
  const std::uint64_t space = std::uint64_t{1} << map.addr_width;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const Block& b = *sorted[i];
    const std::uint64_t end = std::uint64_t{b.base} + b.span();
    if (end > space) {
      r.fail(b.loc, "block " + b.name + " (" + hex(b.base) + ".." + hex(end - 1) + ", arrays at their max count) " +
                        "does not fit in the " + std::to_string(map.addr_width) + "-bit address space");
    }
    if (i > 0) {
      const Block& a = *sorted[i - 1];
      const std::uint64_t a_end = std::uint64_t{a.base} + a.span();
      if (b.base < a_end) {
        r.fail(b.loc, "block " + b.name + " (" + hex(b.base) + ".." + hex(end - 1) + ") overlaps block " + a.name +
                          " (" + hex(a.base) + ".." + hex(a_end - 1) + ", arrays counted at their max count)");
      }
    }
  }
}

}  // namespace

RegmapError::RegmapError(std::string file, int line, int column, std::string reason)
    : std::runtime_error(file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + reason),
      file_(std::move(file)),
      line_(line),
      column_(column),
      reason_(std::move(reason)) {}

std::string_view to_string(Access a) {
  switch (a) {
    case Access::kRw: return "rw";
    case Access::kRo: return "ro";
    case Access::kWo: return "wo";
    case Access::kW1c: return "w1c";
  }
  return "?";
}

bool Register::has_access(Access a) const {
  return std::any_of(fields.begin(), fields.end(), [a](const Field& f) { return f.access == a; });
}
bool Register::readable() const {
  return std::any_of(fields.begin(), fields.end(), [](const Field& f) { return f.readable(); });
}
bool Register::writable() const {
  return std::any_of(fields.begin(), fields.end(), [](const Field& f) { return f.writable(); });
}
std::uint64_t Register::reset_value() const {
  std::uint64_t v = 0;
  for (const Field& f : fields) {
    if (f.access != Access::kWo) v |= f.reset << f.lsb;
  }
  return v;
}
std::string Register::access_summary() const {
  std::string out;
  for (Access a : {Access::kRw, Access::kRo, Access::kWo, Access::kW1c}) {
    if (has_access(a)) out += (out.empty() ? "" : "/") + std::string(to_string(a));
  }
  return out;
}

std::uint32_t Block::span() const {
  if (array) return array->stride * array->max_count;
  std::uint32_t end = 0;
  for (const Register& r : registers) end = std::max(end, r.offset + r.bytes());
  return end;
}

const Param* RegisterMap::find_param(std::string_view n) const {
  for (const Param& p : params) {
    if (p.name == n) return &p;
  }
  return nullptr;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string to_upper_snake(std::string_view camel) {
  std::string out;
  for (std::size_t i = 0; i < camel.size(); ++i) {
    const auto c = static_cast<unsigned char>(camel[i]);
    if (i > 0 && std::isupper(c) && !std::isupper(static_cast<unsigned char>(camel[i - 1]))) out += '_';
    out += static_cast<char>(std::toupper(c));
  }
  return out;
}

std::string to_camel(std::string_view upper_snake) {
  std::string out;
  bool up = true;
  for (char c : upper_snake) {
    if (c == '_') {
      up = true;
      continue;
    }
    out += up ? c : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    up = false;
  }
  return out;
}

RegisterMap parse_map(const std::string& yaml_text, const std::string& file) {
  const Reader r(file);
  std::optional<fileio::YamlDoc> doc;
  try {
    doc.emplace(yaml_text, file);
  } catch (const fileio::YamlError& e) {
    throw RegmapError(file, static_cast<int>(e.line()), static_cast<int>(e.column()), e.field() + ": " + e.problem());
  }
  const YAML::Node& root = doc->root();
  RegisterMap map;
  map.source = file;
  r.check_map(root, "the map", {"name", "desc", "addr_width", "commit", "snapshot", "blocks"}, {"params"});
  map.name = r.str(root, "name", "the map");
  map.desc = r.str(root, "desc", "the map");
  map.addr_width = r.uint32(root["addr_width"], "addr_width");
  if (map.addr_width < 8 || map.addr_width > 32) r.fail(root["addr_width"], "addr_width must be 8..32");
  map.commit = parse_ref(r, root, "commit");
  map.snapshot = parse_ref(r, root, "snapshot");

  if (root["params"].IsDefined()) {
    const YAML::Node ps = root["params"];
    if (!ps.IsSequence()) r.fail(ps, "params must be a list");
    for (const auto& pn : ps) {
      if (pn.IsMap() && pn["expr"].IsDefined()) {
        r.check_map(pn, "param", {"name", "expr", "max", "desc"}, {});
      } else {
        r.check_map(pn, "param", {"name", "default", "max", "desc"}, {});
      }
      Param p;
      p.loc = loc_of(pn);
      p.name = r.str(pn, "name", "param");
      if (!is_upper_camel(p.name)) r.fail(pn["name"], "param name '" + p.name + "' must be UpperCamel (e.g. NumTenants)");
      if (map.find_param(p.name) != nullptr) r.fail(pn["name"], "duplicate param name '" + p.name + "'");
      p.max = r.uint32(pn["max"], "max of param " + p.name);
      if (p.max == 0) r.fail(pn["max"], "max of param " + p.name + " must be at least 1");
      p.desc = r.str(pn, "desc", "param " + p.name);
      if (pn["expr"].IsDefined()) {
        p.expr = r.str(pn, "expr", "param " + p.name);
        std::string err;
        auto at = [&map](bool use_max) {
          return [&map, use_max](const std::string& n) -> std::optional<std::uint64_t> {
            const Param* q = map.find_param(n);
            if (q == nullptr || !q->has_default) return std::nullopt;
            return use_max ? q->max : q->default_value;
          };
        };
        p.default_value = ExprEval(p.expr, at(false)).eval(err);
        if (err.empty()) {
          const std::uint64_t at_max = ExprEval(p.expr, at(true)).eval(err);
          if (err.empty() && at_max > p.max) {
            r.fail(pn["max"], "max " + std::to_string(p.max) + " of param " + p.name + " is smaller than its expr '" +
                                  p.expr + "' at the other params' maxima (" + std::to_string(at_max) + ")");
          }
        }
        if (!err.empty()) r.fail(pn["expr"], "bad expr '" + p.expr + "' of param " + p.name + ": " + err);
      } else {
        p.has_default = true;
        p.default_value = r.uint32(pn["default"], "default of param " + p.name);
        if (p.default_value == 0 || p.default_value > p.max) {
          r.fail(pn["default"], "default " + std::to_string(p.default_value) + " of param " + p.name + " must be 1.." +
                                    std::to_string(p.max));
        }
      }
      map.params.push_back(std::move(p));
    }
  }

  const YAML::Node blocks = root["blocks"];
  if (!blocks.IsSequence() || blocks.size() == 0) r.fail(blocks, "blocks must be a non-empty list");
  for (const auto& bn : blocks) map.blocks.push_back(parse_block(r, bn, map));

  check_names(r, map);
  check_block_overlaps(r, map);
  check_trigger(r, map, map.commit, "commit");
  check_trigger(r, map, map.snapshot, "snapshot");
  if (map.commit.reg == map.snapshot.reg && map.commit.field == map.snapshot.field) {
    r.fail(map.snapshot.loc, "commit and snapshot must be different fields");
  }
  return map;
}

RegisterMap load_map(const std::filesystem::path& path) {
  std::string text;
  try {
    text = fileio::read_text_file(path, "the register map");
  } catch (const fileio::FileError& e) {
    throw RegmapError(path.string(), 0, 0, e.problem());
  }
  return parse_map(text, path.string());
}

}  // namespace nicsched::regmapgen
