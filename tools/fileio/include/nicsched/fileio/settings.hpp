// Settings: a flat YAML mapping of settings read into, and written from, the members of a
// configuration struct (the PPO config, the NIC environment config). Each setting is listed
// once, with its key, its member and what its value must be, so the reader and the writer
// cannot drift apart.
//
//   const fileio::Settings<Cfg> kSettings("unknown PPO setting", {
//       fileio::setting("seed", &Cfg::seed, "an unsigned integer"), ...});
//   kSettings.read(doc, cfg);                   // YamlError naming file, line and key
//   const std::string text = kSettings.yaml(cfg);
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "nicsched/fileio/yaml.hpp"

namespace nicsched::fileio {

template <class T>
inline constexpr bool kIsList = false;
template <class T, class A>
inline constexpr bool kIsList<std::vector<T, A>> = true;

template <class Config>
struct Setting {
  std::string key;
  std::function<void(Config&, const YamlDoc&, const YAML::Node&)> read;
  std::function<void(YAML::Emitter&, const Config&)> write;
};

// The setting `key` held in `member`; `expected` says what its value must be ("a number").
// Lists are written in flow style ([64, 64]).
template <class Config, class T>
Setting<Config> setting(std::string key, T Config::*member, std::string expected) {
  return {key,
          [=](Config& c, const YamlDoc& doc, const YAML::Node& n) { c.*member = doc.as<T>(n, key, expected); },
          [=](YAML::Emitter& out, const Config& c) {
            out << YAML::Key << key << YAML::Value;
            if constexpr (kIsList<T>) out << YAML::Flow;
            out << c.*member;
          }};
}

template <class Config>
class Settings {
 public:
  // `unknown` is the problem a key that is not listed is refused with.
  Settings(std::string unknown, std::initializer_list<Setting<Config>> settings)
      : unknown_(std::move(unknown)), settings_(settings) {}

  // Reads the top-level mapping of `doc` (an empty document changes nothing) into `c`.
  void read(const YamlDoc& doc, Config& c) const {
    if (doc.empty()) return;
    doc.expect_map(doc.root(), "(top level)");
    for (const auto& kv : doc.root()) {
      const std::string key = doc.scalar(kv.first, "(key)");
      const Setting<Config>* s = find(key);
      if (s == nullptr) doc.fail(kv.first, key, unknown_);
      s->read(c, doc, kv.second);
    }
  }

  // Every setting of `c`, in the order listed, as a YAML mapping (one line each).
  [[nodiscard]] std::string yaml(const Config& c) const {
    YAML::Emitter out;
    out << YAML::BeginMap;
    for (const auto& s : settings_) s.write(out, c);
    out << YAML::EndMap;
    return std::string(out.c_str()) + "\n";
  }

 private:
  const Setting<Config>* find(const std::string& key) const {
    for (const auto& s : settings_) {
      if (s.key == key) return &s;
    }
    return nullptr;
  }

  std::string unknown_;
  std::vector<Setting<Config>> settings_;
};

}  // namespace nicsched::fileio
