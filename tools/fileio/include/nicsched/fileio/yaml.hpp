// The one YAML reader: every YAML file of the project (scenarios, policies, PPO and env
// configs, policy descriptions, the register map) is parsed and read through it, so that every
// error names the file, the line and the field, and no document is walked without bound.
//
//   const fileio::YamlDoc doc = fileio::YamlDoc::load(path, "the scenario file");
//   fileio::MapReader r(doc, doc.root(), "");
//   const std::string name = r.str("name");
//   const double scale = r.num("scale", 1000.0, 1.0, 1e6, "a time-scale factor");
//   r.finish("name, scale");                        // any other key is an error
//
// Loaders throw fileio::YamlError / fileio::FileError; a part with its own error type
// (ScenarioError, PolicyError, ...) translates them at its loader's entry point.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "nicsched/fileio/file.hpp"

namespace nicsched::fileio {

// The most nodes a document may have, counted as a reader walks it: yaml-cpp keeps an alias
// as a shared node, so a "billion laughs" document is small in memory but its walk (and its
// re-emission) visits every expansion. Documents over the budget are refused when loaded
// (walking 200,000 nodes takes under a second; the register map, the largest YAML file of
// the tree, has about 5,000). yaml-cpp itself refuses nesting deeper than about 500 levels.
inline constexpr std::size_t kMaxYamlNodes = 200'000;

// A YAML file that is not what its reader expects. what() reads "FILE:LINE: FIELD: problem";
// FIELD is the dotted path of the key ("tenants[2].rate"), "YAML syntax" for a syntax error and
// "(document)" for the document as a whole.
class YamlError : public std::runtime_error {
 public:
  YamlError(std::string file, std::size_t line, std::size_t column, std::string field, std::string problem);
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] std::size_t line() const { return line_; }      // 1-based; 0 when unknown
  [[nodiscard]] std::size_t column() const { return column_; }  // 1-based; 0 when unknown
  [[nodiscard]] const std::string& field() const { return field_; }
  [[nodiscard]] const std::string& problem() const { return problem_; }

 private:
  std::string file_;
  std::size_t line_;
  std::size_t column_;
  std::string field_;
  std::string problem_;
};

// 1-based line and column of a node (0 when it has none, e.g. a missing key).
std::size_t line_of(const YAML::Node& n);
std::size_t column_of(const YAML::Node& n);
// "'text'", "a list", "a mapping" or "nothing": what a node is, for "expected X, got Y".
std::string describe(const YAML::Node& n);
// An unsigned integer written in decimal, 0x hex or 0b binary; nullopt if it is not one or
// does not fit 64 bits.
std::optional<std::uint64_t> parse_unsigned(std::string_view text);

// One parsed YAML document and the file it came from; the node-level readers fail with a
// YamlError naming the file, the node's line and the field.
class YamlDoc {
 public:
  // Parses `text`; `file` names it in errors. Throws YamlError on a syntax error or when the
  // walk of the document (aliases expanded) exceeds `max_nodes`.
  YamlDoc(std::string_view text, std::string file, std::size_t max_nodes = kMaxYamlNodes);
  // Reads the file with read_text_file (regular files up to `max_bytes`, FileError otherwise)
  // and parses it. `role` names the file in errors ("the policy file").
  static YamlDoc load(const std::filesystem::path& file, std::string_view role,
                      std::uint64_t max_bytes = kMaxTextFileBytes, std::size_t max_nodes = kMaxYamlNodes);

  [[nodiscard]] const YAML::Node& root() const { return root_; }
  [[nodiscard]] const std::string& file() const { return file_; }
  // True for an empty document (or one holding only comments, or `~`).
  [[nodiscard]] bool empty() const { return !root_.IsDefined() || root_.IsNull(); }

  [[noreturn]] void fail(const YAML::Node& at, const std::string& field, const std::string& problem) const;

  void expect_map(const YAML::Node& n, const std::string& field) const;
  void expect_seq(const YAML::Node& n, const std::string& field) const;
  // Every key of the mapping `n` is in `allowed` and appears once; `prefix` is prepended to a
  // key to name it ("scheduler.").
  void check_keys(const YAML::Node& n, const std::string& prefix, const std::vector<std::string>& allowed) const;
  std::string scalar(const YAML::Node& n, const std::string& field) const;
  std::uint64_t unsigned_int(const YAML::Node& n, const std::string& field) const;
  double number(const YAML::Node& n, const std::string& field) const;
  bool boolean(const YAML::Node& n, const std::string& field) const;  // true/false, yes/no, on/off
  // A value of any type yaml-cpp converts (numbers, bools, lists of them); `expected` says
  // what was wanted ("an unsigned integer").
  template <typename T>
  T as(const YAML::Node& n, const std::string& field, const std::string& expected) const {
    T out{};
    bool ok = false;
    try {
      ok = n.IsDefined() && !n.IsNull() && YAML::convert<T>::decode(n, out);
    } catch (const YAML::Exception&) {  // an element of a list that does not convert
      ok = false;
    }
    if (!ok) fail(n, field, "expected " + expected + ", got " + describe(n));
    return out;
  }

 private:
  std::string file_;
  YAML::Node root_;
};

// Reads one YAML mapping of a document the way sim/src/scenario.cpp reads scenarios: typed
// getters with defaults and ranges, and finish() refusing any key no getter asked about.
class MapReader {
 public:
  // `path` is the dotted path of the mapping ("" for the top level, "tenants[2]").
  MapReader(const YamlDoc& doc, const YAML::Node& node, std::string path);

  [[noreturn]] void fail(const YAML::Node& at, const std::string& key, const std::string& what) const;
  [[noreturn]] void fail_key(const std::string& key, const std::string& what) const;
  [[nodiscard]] std::string full(const std::string& key) const;

  [[nodiscard]] bool has(const std::string& key);
  YAML::Node node(const std::string& key);
  std::string str(const std::string& key, const std::optional<std::string>& def = std::nullopt);
  double num(const std::string& key, std::optional<double> def, double lo, double hi, const std::string& what);
  std::uint64_t integer(const std::string& key, std::optional<std::uint64_t> def, std::uint64_t lo,
                        std::uint64_t hi, const std::string& what);
  bool boolean(const std::string& key, bool def);
  std::string choice(const std::string& key, const std::vector<std::string>& allowed,
                     const std::optional<std::string>& def);
  // Keys of the mapping this reader never asked about are errors.
  void finish(const std::string& allowed_hint = {}) const;

  [[nodiscard]] const YAML::Node& yaml() const { return node_; }
  [[nodiscard]] const YamlDoc& doc() const { return doc_; }

 private:
  const YamlDoc& doc_;
  YAML::Node node_;
  std::string path_;
  std::map<std::string, YAML::Node> keys_;
  std::set<std::string> used_;
};

}  // namespace nicsched::fileio
