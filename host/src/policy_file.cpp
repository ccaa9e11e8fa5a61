// Policy files: YAML -> Policy (with the line of every key), validation, Policy -> YAML.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "nicsched/fileio/file.hpp"
#include "nicsched/fileio/yaml.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/host/spelling.hpp"
#include "nicsched/regmap.hpp"

namespace nicsched::host {

namespace rm = nicsched::regmap;

namespace {

// Where a Policy field came from: the key as written in the file, and its line.
struct Origin {
  std::string key;
  int line = 0;
};
// Keyed by a Policy path: "arb_mode", "tenant/3/priority", "classifier/2/tenant", ...
using Origins = std::map<std::string, Origin>;

std::string tpath(std::uint32_t t, const char* field) { return fmt::format("tenant/{}/{}", t, field); }
std::string cpath(std::size_t i, const char* field) { return fmt::format("classifier/{}/{}", i, field); }
std::string spath(std::size_t source, const char* field) { return fmt::format("source/{}/{}", source, field); }

// ---------------------------------------------------------------- validation (one place)

class Validator {
 public:
  Validator(const Capabilities& caps, std::string file, const Origins* origins)
      : caps_(caps), file_(std::move(file)), origins_(origins) {}

  void run(const Policy& p) {
    if (p.tenants.size() != caps_.tenants) {
      fail("tenants", "tenants",
           fmt::format("the policy has {} tenants, the NIC has {}", p.tenants.size(), caps_.tenants));
    }
    const std::uint64_t buffer = caps_.buffer_kib ? std::uint64_t{caps_.buffer_kib} * 1024 : 0;
    const std::uint64_t qmax = buffer ? std::min<std::uint64_t>(buffer, rm::T_QLIMIT_BULK::BYTES.max())
                                      : rm::T_QLIMIT_BULK::BYTES.max();
    const std::string qwhy = buffer ? fmt::format(": the shared buffer holds {} KiB", caps_.buffer_kib) : "";
    for (std::uint32_t t = 0; t < p.tenants.size(); ++t) {
      const TenantPolicy& tp = p.tenants[t];
      const std::string who = fmt::format("tenant {}", t);
      range(tpath(t, "priority"), who + " priority", tp.priority, 0, caps_.prio_levels - 1,
            fmt::format(": the NIC has {} priority levels, 0 highest", caps_.prio_levels));
      range(tpath(t, "weight"), who + " weight", tp.weight, 1, rm::T_WEIGHT::QUANTUM.max(), " bytes per DWRR round");
      if (tp.rate_limited) {
        range(tpath(t, "rate"), who + " rate", tp.rate_bytes_per_kcycle, 1, rm::T_RATE::BYTES_PER_KCYCLE.max(),
              " bytes per 1024 cycles");
      } else {
        range(tpath(t, "rate"), who + " rate", tp.rate_bytes_per_kcycle, 0, rm::T_RATE::BYTES_PER_KCYCLE.max(),
              " bytes per 1024 cycles");
      }
      range(tpath(t, "burst"), who + " burst", tp.burst_bytes, 64, rm::T_BURST::BYTES.max(),
            " bytes: at least one minimum-size frame");
      range(tpath(t, "crypto_quota"), who + " crypto_quota", tp.crypto_quota, 0, caps_.crypto_slots,
            fmt::format(": the NIC has {} crypto slots", caps_.crypto_slots));
      range(tpath(t, "qlimit_control"), who + " queue_limit.control", tp.qlimit_control_bytes, 0, qmax, qwhy);
      range(tpath(t, "qlimit_bulk"), who + " queue_limit.bulk", tp.qlimit_bulk_bytes, 0, qmax, qwhy);
      range(tpath(t, "control_rate"), who + " control.rate", tp.ctrl_rate_bytes_per_kcycle, 0,
            rm::T_CTRL_RATE::BYTES_PER_KCYCLE.max(), " bytes per 1024 cycles");
      range(tpath(t, "control_burst"), who + " control.burst", tp.ctrl_burst_bytes, 64, rm::T_CTRL_BURST::BYTES.max(),
            " bytes: at least one minimum-size frame");
    }
    if (p.classifier) {
      if (p.classifier->size() > caps_.cls_entries) {
        fail("classifier", "classifier",
             fmt::format("{} entries, the NIC's table holds {}", p.classifier->size(), caps_.cls_entries));
      }
      for (std::size_t i = 0; i < p.classifier->size(); ++i) {
        const ClassifierEntry& e = (*p.classifier)[i];
        const std::string who = fmt::format("classifier entry {}", i);
        range(cpath(i, "vlan"), who + " vlan", e.vlan, 0, rm::CLS_VLAN::VALUE.max(), "");
        range(cpath(i, "vlan_mask"), who + " vlan_mask", e.vlan_mask, 0, rm::CLS_VLAN::MASK.max(), "");
        range(cpath(i, "dscp"), who + " dscp", e.dscp, 0, rm::CLS_DSCP_PROTO::DSCP.max(), "");
        range(cpath(i, "dscp_mask"), who + " dscp_mask", e.dscp_mask, 0, rm::CLS_DSCP_PROTO::DSCP_MASK.max(), "");
        range(cpath(i, "proto"), who + " proto", e.proto, 0, rm::CLS_DSCP_PROTO::PROTO.max(), "");
        range(cpath(i, "proto_mask"), who + " proto_mask", e.proto_mask, 0, rm::CLS_DSCP_PROTO::PROTO_MASK.max(), "");
        range(cpath(i, "port"), who + " port", e.port, 0, rm::CLS_PORT::VALUE.max(), "");
        range(cpath(i, "port_mask"), who + " port_mask", e.port_mask, 0, rm::CLS_PORT::MASK.max(), "");
        action(cpath(i, ""), who + " action", e.action);
      }
    }
    if (p.default_action) action("default_action/", "default_action", *p.default_action);
    if (p.tx_identity) tx_identity(*p.tx_identity);
  }

 private:
  void tx_identity(const TxIdentityConfig& id) {
    if (id.source_mode && caps_.sources == 0) {
      fail("tx_identity/mode", "tx_identity.mode",
           "source needs a NIC with TX sources (CAPS1.SOURCES is 0: it classifies TX frames by their headers "
           "alone; docs/trust.md)");
    }
    for (std::size_t s = 0; s < id.sources.size(); ++s) {
      if (!id.sources[s].bound) continue;
      const std::string who = fmt::format("tx_identity source {}", s);
      range(spath(s, "source"), who, s, 0, caps_.sources == 0 ? 0 : caps_.sources - 1,
            fmt::format(": the NIC has {} TX sources", caps_.sources));
      range(spath(s, "tenant"), who + " tenant", id.sources[s].tenant, 0, caps_.tenants - 1,
            fmt::format(": the NIC has {} tenants", caps_.tenants));
    }
  }

  void action(const std::string& prefix, const std::string& who, const ClassifierAction& a) {
    range(prefix + "tenant", who + " tenant", a.tenant, 0, caps_.tenants - 1,
          fmt::format(": the NIC has {} tenants", caps_.tenants));
    range(prefix + "class", who + " class", a.cls, 0, caps_.classes - 1, ": 0 control, 1 bulk");
    range(prefix + "crypto", who + " crypto", static_cast<std::uint32_t>(a.crypto_op), 0, 2,
          ": none, encrypt, decrypt");
  }

  void range(const std::string& path, const std::string& fallback, std::uint64_t v, std::uint64_t lo,
             std::uint64_t hi, const std::string& why) {
    if (v < lo || v > hi) {
      fail(path, fallback, fmt::format("{} is out of range (allowed: {}..{}{})", v, lo, hi, why));
    }
  }

  [[noreturn]] void fail(const std::string& path, const std::string& fallback, const std::string& problem) {
    if (origins_) {
      const auto it = origins_->find(path);
      if (it != origins_->end()) {
        throw PolicyError(fmt::format("{}:{}: {}: {}", file_, it->second.line, it->second.key, problem), file_,
                          it->second.line, it->second.key);
      }
    }
    throw PolicyError(fmt::format("{}: {}: {}", file_, fallback, problem), file_, 0, fallback);
  }

  const Capabilities& caps_;
  std::string file_;
  const Origins* origins_;
};

// ---------------------------------------------------------------- YAML -> Policy

// Reads the document through the shared YAML reader (fileio::YamlDoc); its errors are
// fileio::YamlErrors, turned into PolicyErrors by parse_policy.
class Parser {
 public:
  Parser(const fileio::YamlDoc& doc, const Capabilities& caps) : doc_(doc), caps_(caps) {}

  Policy parse(double& clock_mhz) {
    const YAML::Node& root = doc_.root();
    if (doc_.empty()) {
      throw PolicyError(
          fmt::format("{}:1: the file is empty; a policy is a YAML mapping (see docs/policy.md)", doc_.file()),
          doc_.file(), 1, "");
    }
    expect_map(root, "(top level)");
    for (const auto& kv : root) {
      if (kv.first.Scalar() != "crypto_engine") continue;
      fail(kv.first, "crypto_engine",
           "the crypto engine's speed (bytes per cycle, latency) is a property of the NIC, not a policy: it is set "
           "once at bring-up (nicsim: the scenario's nic.crypto_engine / nic.crypto_*; a card: its board shell) and "
           "`nicctl info` shows it; remove this section (docs/policy.md)");
    }
    check_keys(root, "",
               {"version", "clock_mhz", "scheduler", "defaults", "tenants", "classifier", "default_action", "tx_identity"});
    if (const auto v = root["version"]) {
      const std::uint64_t ver = uint_in(v, "version", 1, 1, ": the only policy format version is 1");
      (void)ver;
    }
    clock_mhz = kDefaultClockMhz;
    if (const auto c = root["clock_mhz"]) clock_mhz = number_in(c, "clock_mhz", 1, 10000);

    Policy p = default_policy(caps_);
    if (const auto s = root["scheduler"]) {
      expect_map(s, "scheduler");
      check_keys(s, "scheduler.", {"enable", "arb_mode", "control_level"});
      if (const auto e = s["enable"]) p.enable = boolean(e, "scheduler.enable");
      if (const auto c = s["control_level"]) p.control_level = boolean(c, "scheduler.control_level");
      if (const auto a = s["arb_mode"]) {
        p.arb_mode = enum_choice<ArbMode>(a, "scheduler.arb_mode");
        note("arb_mode", "scheduler.arb_mode", a);
      }
    }
    // defaults: applied to every tenant first; their origins are the defaults' lines.
    TenantPolicy defaults = p.tenants.empty() ? TenantPolicy{} : p.tenants.front();
    std::map<std::string, Origin> default_origins;
    if (const auto d = root["defaults"]) {
      expect_map(d, "defaults");
      check_keys(d, "defaults.", kTenantKeys);
      tenant_fields(d, "defaults.", defaults, default_origins, clock_mhz);
    }
    for (std::uint32_t t = 0; t < p.tenants.size(); ++t) {
      p.tenants[t] = defaults;
      for (const auto& [field, o] : default_origins) origins_[tpath(t, field.c_str())] = o;
    }
    if (const auto ts = root["tenants"]) {
      expect_seq(ts, "tenants");
      std::map<std::uint64_t, int> seen;
      for (std::size_t i = 0; i < ts.size(); ++i) {
        const YAML::Node n = ts[i];
        const std::string at = fmt::format("tenants[{}]", i);
        expect_map(n, at);
        check_keys(n, at + ".", with(kTenantKeys, {"id", "name"}));
        const YAML::Node idn = n["id"];
        if (!idn) fail(n, at + ".id", "missing: every tenants entry needs an id");
        const std::uint64_t id = uint_in(idn, at + ".id", 0, caps_.tenants - 1,
                                         fmt::format(": the NIC has {} tenants", caps_.tenants));
        if (const auto prev = seen.find(id); prev != seen.end()) {
          fail(idn, at + ".id", fmt::format("tenant {} is already configured at line {}", id, prev->second));
        }
        seen[id] = line(idn);
        if (const auto nm = n["name"]) scalar(nm, at + ".name");
        std::map<std::string, Origin> tenant_origins;
        tenant_fields(n, at + ".", p.tenants[id], tenant_origins, clock_mhz);
        for (const auto& [field, o] : tenant_origins) {
          origins_[tpath(static_cast<std::uint32_t>(id), field.c_str())] = o;
        }
      }
    }
    if (const auto cls = root["classifier"]) {
      if (cls.IsNull()) {
        p.classifier = std::vector<ClassifierEntry>{};
      } else {
        expect_seq(cls, "classifier");
        origins_["classifier"] = {"classifier", line(cls)};
        std::vector<ClassifierEntry> entries;
        for (std::size_t i = 0; i < cls.size(); ++i) entries.push_back(classifier_entry(cls[i], i));
        p.classifier = std::move(entries);
      }
    }
    if (const auto da = root["default_action"]) {
      p.default_action = action(da, "default_action", "default_action/");
    }
    if (const auto ti = root["tx_identity"]) {
      p.tx_identity = tx_identity(ti);
    } else {
      // A policy written before source binding: loaded as header-only, and said so.
      p.tx_identity = TxIdentityConfig{};
      spdlog::info("{}: no tx_identity: TX frames are classified by their headers alone (header-only mode, source "
                   "binding off; docs/trust.md)",
                   doc_.file());
    }
    // Every source of the NIC: those the file does not bind are unbound.
    if (p.tx_identity->sources.size() < caps_.sources) p.tx_identity->sources.resize(caps_.sources);
    return p;
  }

  [[nodiscard]] const Origins& origins() const { return origins_; }

 private:
  static inline const std::vector<std::string> kTenantKeys = {
      "enable", "priority", "weight", "rate", "rate_bytes_per_kcycle", "burst", "crypto_quota", "queue_limit",
      "control"};

  static std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  }

  void tenant_fields(const YAML::Node& n, const std::string& at, TenantPolicy& tp, std::map<std::string, Origin>& o,
                     double clock_mhz) {
    auto record = [&](const char* field, const std::string& key, const YAML::Node& v) {
      o[field] = {key, line(v)};
    };
    // m[name], when present, read by `read` into `dst` and recorded as `field`'s origin.
    auto take = [&](const YAML::Node& m, const std::string& prefix, const char* name, const char* field, auto& dst,
                    auto read) {
      if (const auto v = m[name]) {
        dst = (this->*read)(v, at + prefix + name);
        record(field, at + prefix + name, v);
      }
    };
    take(n, "", "enable", "enable", tp.enable, &Parser::boolean);
    take(n, "", "priority", "priority", tp.priority, &Parser::u32);
    take(n, "", "weight", "weight", tp.weight, &Parser::u32);
    // m's `rate` (with a unit: 25Gbps, 800 Mbit/s) or `rate_bytes_per_kcycle` (the register's
    // unit), not both, into dst, recorded as `field`'s origin. With `limited` (the tenant's
    // shaper) rate may also be off / none / false / unlimited: no limit, *limited false.
    auto rate_pair = [&](const YAML::Node& m, const std::string& prefix, const char* field, std::uint32_t& dst,
                         bool* limited) {
      const auto rate = m["rate"];
      const auto raw = m["rate_bytes_per_kcycle"];
      if (rate && raw) {
        fail(raw, at + prefix + "rate_bytes_per_kcycle", "give either rate or rate_bytes_per_kcycle, not both");
      }
      if (rate) {
        const std::string s = scalar(rate, at + prefix + "rate");
        std::string lower = s;
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
        if (limited && (lower == "off" || lower == "none" || lower == "false" || lower == "unlimited")) {
          *limited = false;
          dst = 0;
        } else {
          try {
            dst = parse_rate(s, clock_mhz);
          } catch (const HostError& e) {
            fail(rate, at + prefix + "rate", e.what());
          }
          if (limited) *limited = true;
        }
        record(field, at + prefix + "rate", rate);
      }
      if (raw) {
        dst = u32(raw, at + prefix + "rate_bytes_per_kcycle");
        if (limited) *limited = true;
        record(field, at + prefix + "rate_bytes_per_kcycle", raw);
      }
    };
    rate_pair(n, "", "rate", tp.rate_bytes_per_kcycle, &tp.rate_limited);
    take(n, "", "burst", "burst", tp.burst_bytes, &Parser::bytes);
    take(n, "", "crypto_quota", "crypto_quota", tp.crypto_quota, &Parser::u32);
    if (const auto q = n["queue_limit"]) {
      expect_map(q, at + "queue_limit");
      check_keys(q, at + "queue_limit.", {"control", "bulk"});
      take(q, "queue_limit.", "control", "qlimit_control", tp.qlimit_control_bytes, &Parser::bytes);
      take(q, "queue_limit.", "bulk", "qlimit_bulk", tp.qlimit_bulk_bytes, &Parser::bytes);
    }
    // control: {rate | rate_bytes_per_kcycle, burst}: the control bucket (scheduler.control_level).
    if (const auto c = n["control"]) {
      expect_map(c, at + "control");
      check_keys(c, at + "control.", {"rate", "rate_bytes_per_kcycle", "burst"});
      rate_pair(c, "control.", "control_rate", tp.ctrl_rate_bytes_per_kcycle, nullptr);
      take(c, "control.", "burst", "control_burst", tp.ctrl_burst_bytes, &Parser::bytes);
    }
  }

  ClassifierEntry classifier_entry(const YAML::Node& n, std::size_t i) {
    const std::string at = fmt::format("classifier[{}]", i);
    expect_map(n, at);
    check_keys(n, at + ".", {"match", "action"});
    ClassifierEntry e;
    if (const auto m = n["match"]) {
      expect_map(m, at + ".match");
      check_keys(m, at + ".match.", {"vlan", "vlan_mask", "dscp", "dscp_mask", "proto", "proto_mask", "port", "port_mask"});
      // A value without a mask matches exactly (mask = every bit of the field).
      auto field = [&](const char* name, std::uint32_t& value, std::uint32_t& mask, std::uint32_t full_mask) {
        const std::string mname = std::string(name) + "_mask";
        if (const auto v = m[name]) {
          value = std::string(name) == "proto" ? protocol(v, at + ".match.proto") : u32(v, at + ".match." + name);
          mask = full_mask;
          origins_[cpath(i, name)] = {at + ".match." + name, line(v)};
        }
        if (const auto v = m[mname]) {
          mask = u32(v, at + ".match." + mname);
          origins_[cpath(i, mname.c_str())] = {at + ".match." + mname, line(v)};
        }
      };
      field("vlan", e.vlan, e.vlan_mask, rm::CLS_VLAN::MASK.max());
      field("dscp", e.dscp, e.dscp_mask, rm::CLS_DSCP_PROTO::DSCP_MASK.max());
      field("proto", e.proto, e.proto_mask, rm::CLS_DSCP_PROTO::PROTO_MASK.max());
      field("port", e.port, e.port_mask, rm::CLS_PORT::MASK.max());
    }
    const auto a = n["action"];
    if (!a) fail(n, at + ".action", "missing: every classifier entry needs an action {tenant, class, crypto}");
    e.action = action(a, at + ".action", cpath(i, ""));
    return e;
  }

  // tx_identity: {mode: headers | source, sources: [{source, tenant, on_spoof: keep | drop}]}
  TxIdentityConfig tx_identity(const YAML::Node& n) {
    expect_map(n, "tx_identity");
    check_keys(n, "tx_identity.", {"mode", "sources"});
    TxIdentityConfig id;
    const auto m = n["mode"];
    if (!m) {
      fail(n, "tx_identity.mode",
           "missing: headers (TX frames classified by their headers alone) or source (each source bound to a tenant)");
    }
    id.source_mode = choice(m, "tx_identity.mode", {{"headers", 0}, {"source", 1}}) == 1;
    note("tx_identity/mode", "tx_identity.mode", m);
    if (const auto list = n["sources"]) {
      expect_seq(list, "tx_identity.sources");
      std::map<std::uint32_t, int> seen;
      for (std::size_t i = 0; i < list.size(); ++i) {
        const YAML::Node e = list[i];
        const std::string at = fmt::format("tx_identity.sources[{}]", i);
        expect_map(e, at);
        check_keys(e, at + ".", {"source", "tenant", "on_spoof"});
        const auto src = e["source"];
        if (!src) fail(e, at + ".source", "missing: every sources entry names its source (host queue, H2C channel, VF)");
        // A source number past any NIC's table is refused here; past this NIC's, by the validator.
        const auto s = static_cast<std::uint32_t>(
            uint_in(src, at + ".source", 0, rm::SRC_BIND::kMaxCount - 1, ": the register map's largest source table"));
        if (const auto prev = seen.find(s); prev != seen.end()) {
          fail(src, at + ".source", fmt::format("source {} is already bound at line {}", s, prev->second));
        }
        seen[s] = line(src);
        const auto t = e["tenant"];
        if (!t) fail(e, at + ".tenant", "missing: a bound source needs its tenant");
        SourceBinding b;
        b.bound = true;
        b.tenant = u32(t, at + ".tenant");
        if (const auto o = e["on_spoof"]) b.drop_spoofed = choice(o, at + ".on_spoof", {{"keep", 0}, {"drop", 1}}) == 1;
        if (id.sources.size() <= s) id.sources.resize(s + 1);
        id.sources[s] = b;
        note(spath(s, "source"), at + ".source", src);
        note(spath(s, "tenant"), at + ".tenant", t);
      }
    }
    return id;
  }

  ClassifierAction action(const YAML::Node& n, const std::string& at, const std::string& path_prefix) {
    expect_map(n, at);
    check_keys(n, at + ".", {"tenant", "class", "crypto"});
    ClassifierAction a;
    const auto t = n["tenant"];
    if (!t) fail(n, at + ".tenant", "missing: an action needs a tenant");
    a.tenant = u32(t, at + ".tenant");
    origins_[path_prefix + "tenant"] = {at + ".tenant", line(t)};
    if (const auto c = n["class"]) {
      a.cls = choice(c, at + ".class", {{"control", 0}, {"bulk", 1}, {"0", 0}, {"1", 1}});
      origins_[path_prefix + "class"] = {at + ".class", line(c)};
    }
    if (const auto c = n["crypto"]) {
      a.crypto_op = enum_choice<CryptoOp>(c, at + ".crypto");
      origins_[path_prefix + "crypto"] = {at + ".crypto", line(c)};
    }
    return a;
  }

  // ---- scalar readers; every failure names file, line and key (fileio::YamlDoc)

  [[noreturn]] void fail(const YAML::Node& n, const std::string& key, const std::string& problem) const {
    doc_.fail(n, key, problem);
  }
  static int line(const YAML::Node& n) { return static_cast<int>(fileio::line_of(n)); }

  void expect_map(const YAML::Node& n, const std::string& key) const { doc_.expect_map(n, key); }
  void expect_seq(const YAML::Node& n, const std::string& key) const { doc_.expect_seq(n, key); }
  void check_keys(const YAML::Node& n, const std::string& prefix, const std::vector<std::string>& allowed) const {
    doc_.check_keys(n, prefix, allowed);
  }
  std::string scalar(const YAML::Node& n, const std::string& key) const { return doc_.scalar(n, key); }
  bool boolean(const YAML::Node& n, const std::string& key) const { return doc_.boolean(n, key); }
  std::uint32_t u32(const YAML::Node& n, const std::string& key) const {
    const std::uint64_t v = doc_.unsigned_int(n, key);
    if (v > 0xFFFFFFFFULL) fail(n, key, fmt::format("{} does not fit 32 bits", v));
    return static_cast<std::uint32_t>(v);
  }
  std::uint64_t uint_in(const YAML::Node& n, const std::string& key, std::uint64_t lo, std::uint64_t hi,
                        const std::string& why) const {
    const std::uint64_t v = doc_.unsigned_int(n, key);
    if (v < lo || v > hi) fail(n, key, fmt::format("{} is out of range (allowed: {}..{}{})", v, lo, hi, why));
    return v;
  }
  double number_in(const YAML::Node& n, const std::string& key, double lo, double hi) const {
    const double v = doc_.number(n, key);
    if (v < lo || v > hi) fail(n, key, fmt::format("{} is out of range (allowed: {}..{})", n.Scalar(), lo, hi));
    return v;
  }
  std::uint32_t choice(const YAML::Node& n, const std::string& key,
                       const std::vector<std::pair<std::string, std::uint32_t>>& options) const {
    const std::string s = scalar(n, key);
    for (const auto& [name, v] : options) {
      if (s == name) return v;
    }
    std::string list;
    for (const auto& o : options) list += (list.empty() ? "" : ", ") + o.first;
    fail(n, key, fmt::format("'{}' is not one of: {}", s, list));
  }
  // An enumerated register field's value, by its spelling (nicsched/host/spelling.hpp).
  template <typename E>
  E enum_choice(const YAML::Node& n, const std::string& key) const {
    std::vector<std::pair<std::string, std::uint32_t>> options;
    for (const auto& e : enum_names(E{})) options.emplace_back(spelling(e.value), static_cast<std::uint32_t>(e.value));
    return static_cast<E>(choice(n, key, options));
  }
  std::uint32_t protocol(const YAML::Node& n, const std::string& key) const {
    const std::string s = scalar(n, key);
    if (s == "tcp") return 6;
    if (s == "udp") return 17;
    if (!s.empty() && std::isdigit(static_cast<unsigned char>(s[0]))) return u32(n, key);
    fail(n, key, fmt::format("'{}' is not tcp, udp or an IP protocol number", s));
  }
  std::uint32_t bytes(const YAML::Node& n, const std::string& key) const {
    const std::string s = scalar(n, key);
    std::uint64_t v = 0;
    try {
      v = parse_bytes(s);
    } catch (const HostError& e) {
      fail(n, key, e.what());
    }
    if (v > 0xFFFFFFFFULL) fail(n, key, fmt::format("{} bytes does not fit 32 bits", v));
    return static_cast<std::uint32_t>(v);
  }
  void note(const std::string& path, const std::string& key, const YAML::Node& n) { origins_[path] = {key, line(n)}; }

  const fileio::YamlDoc& doc_;
  const Capabilities& caps_;
  Origins origins_;
};

}  // namespace

// ---------------------------------------------------------------- public API

Policy default_policy(const Capabilities& caps) {
  Policy p;
  p.enable = rm::CTRL::ENABLE.get(rm::CTRL::kReset) != 0;
  p.arb_mode = ArbMode::kSpDwrr;
  p.control_level = rm::CTRL::CONTROL_LEVEL.get(rm::CTRL::kReset) != 0;
  TenantPolicy t;
  t.enable = rm::T_CTRL::ENABLE.get(rm::T_CTRL::kReset) != 0;
  t.priority = rm::T_CTRL::PRIORITY.get(rm::T_CTRL::kReset);
  t.crypto_quota = std::min(rm::T_CTRL::CRYPTO_QUOTA.get(rm::T_CTRL::kReset), caps.crypto_slots);
  t.rate_limited = rm::T_CTRL::RATE_EN.get(rm::T_CTRL::kReset) != 0;
  t.weight = rm::T_WEIGHT::QUANTUM.get(rm::T_WEIGHT::kReset);
  t.rate_bytes_per_kcycle = rm::T_RATE::BYTES_PER_KCYCLE.get(rm::T_RATE::kReset);
  t.burst_bytes = rm::T_BURST::BYTES.get(rm::T_BURST::kReset);
  t.qlimit_control_bytes = rm::T_QLIMIT_CTRL::BYTES.get(rm::T_QLIMIT_CTRL::kReset);
  t.qlimit_bulk_bytes = rm::T_QLIMIT_BULK::BYTES.get(rm::T_QLIMIT_BULK::kReset);
  t.ctrl_rate_bytes_per_kcycle = rm::T_CTRL_RATE::BYTES_PER_KCYCLE.get(rm::T_CTRL_RATE::kReset);
  t.ctrl_burst_bytes = rm::T_CTRL_BURST::BYTES.get(rm::T_CTRL_BURST::kReset);
  p.tenants.assign(caps.tenants, t);
  return p;
}

Policy parse_policy(std::string_view yaml, const std::string& source, const Capabilities& caps, double* clock_mhz_out) {
  double clock = kDefaultClockMhz;
  Policy p;
  Origins origins;
  try {
    const fileio::YamlDoc doc(yaml, source);
    Parser parser(doc, caps);
    p = parser.parse(clock);
    origins = parser.origins();
  } catch (const fileio::YamlError& e) {
    throw PolicyError(e.what(), e.file(), static_cast<int>(e.line()), e.field());
  }
  Validator(caps, source, &origins).run(p);
  if (clock_mhz_out) *clock_mhz_out = clock;
  return p;
}

std::string read_policy_file(const std::string& path) {
  try {
    return fileio::read_text_file(path, "the policy file");
  } catch (const fileio::FileError& e) {
    throw PolicyError(e.what(), path, 0, "");
  }
}

Policy load_policy(const std::string& path, const Capabilities& caps) {
  return parse_policy(read_policy_file(path), path, caps);
}

void validate_policy(const Policy& policy, const Capabilities& caps) { Validator(caps, "policy", nullptr).run(policy); }

std::uint32_t parse_rate(std::string_view text, double clock_mhz) {
  std::string s(text);
  s.erase(std::remove_if(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); }), s.end());
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    throw HostError(fmt::format("'{}' is not a rate (e.g. 25Gbps, 800 Mbit/s, off)", text));
  }
  std::string unit = s.substr(used);
  std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return std::tolower(c); });
  double scale = 0;
  if (unit == "gbps" || unit == "gbit/s") scale = 1e9;
  if (unit == "mbps" || unit == "mbit/s") scale = 1e6;
  if (scale == 0) {
    throw HostError(fmt::format("'{}': unit '{}' unknown (allowed: Gbps, Gbit/s, Mbps, Mbit/s; raw register units "
                                "via rate_bytes_per_kcycle)", text, s.substr(used)));
  }
  if (!(v > 0)) throw HostError(fmt::format("'{}': a rate limit must be positive (or 'off')", text));
  const double bytes_per_kcycle = v * scale / 8.0 / (clock_mhz * 1e6) * 1024.0;
  const double rounded = std::round(bytes_per_kcycle);
  const double max = rm::T_RATE::BYTES_PER_KCYCLE.max();
  if (rounded < 1) {
    throw HostError(fmt::format("'{}' is below the smallest rate at {} MHz ({:.3f} Mbit/s = 1 byte per 1024 cycles)",
                                text, clock_mhz, rate_to_gbps(1, clock_mhz) * 1e3));
  }
  if (rounded > max) {
    throw HostError(fmt::format("'{}' is above the largest rate at {} MHz ({:.1f} Gbit/s)", text, clock_mhz,
                                rate_to_gbps(static_cast<std::uint32_t>(max), clock_mhz)));
  }
  return static_cast<std::uint32_t>(rounded);
}

double rate_to_gbps(std::uint32_t bytes_per_kcycle, double clock_mhz) {
  return static_cast<double>(bytes_per_kcycle) / 1024.0 * clock_mhz * 1e6 * 8.0 / 1e9;
}

std::uint64_t parse_bytes(std::string_view text) {
  std::string s(text);
  s.erase(std::remove_if(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); }), s.end());
  std::size_t digits = 0;
  while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
  if (digits == 0 || digits > 12) {
    throw HostError(fmt::format("'{}' is not a size in bytes (e.g. 65536, 64KiB, 1MiB)", text));
  }
  const std::uint64_t v = std::stoull(s.substr(0, digits));
  std::string unit = s.substr(digits);
  std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return std::tolower(c); });
  if (unit.empty() || unit == "b") return v;
  if (unit == "kib") return v * 1024;
  if (unit == "mib") return v * 1024 * 1024;
  throw HostError(fmt::format("'{}': unit '{}' unknown (allowed: B, KiB, MiB)", text, s.substr(digits)));
}

std::string policy_to_yaml(const Policy& p, const Capabilities& caps, double clock_mhz,
                           const std::string& header_comment) {
  static const char* kClass[] = {"control", "bulk"};
  auto action = [&](const ClassifierAction& a) {
    return fmt::format("{{tenant: {}, class: {}, crypto: {}}}", a.tenant, a.cls < 2 ? kClass[a.cls] : "bulk",
                       spelling(a.crypto_op, "none"));
  };
  std::string o;
  if (!header_comment.empty()) o += "# " + header_comment + "\n";
  o += fmt::format("# nicsched scheduler policy (docs/policy.md); {} tenants, {} priority levels, {} crypto slots\n",
                   caps.tenants, caps.prio_levels, caps.crypto_slots);
  o += "version: 1\n";
  o += fmt::format("clock_mhz: {}\n", clock_mhz);
  o += fmt::format("scheduler:\n  enable: {}\n  arb_mode: {}\n  control_level: {}\n", p.enable, spelling(p.arb_mode),
                   p.control_level);
  o += "tenants:\n";
  for (std::size_t t = 0; t < p.tenants.size(); ++t) {
    const TenantPolicy& tp = p.tenants[t];
    o += fmt::format("  - id: {}\n    enable: {}\n    priority: {}\n    weight: {}\n", t, tp.enable, tp.priority,
                     tp.weight);
    if (tp.rate_limited) {
      o += fmt::format("    rate_bytes_per_kcycle: {}  # {:.3f} Gbit/s at {} MHz\n", tp.rate_bytes_per_kcycle,
                       rate_to_gbps(tp.rate_bytes_per_kcycle, clock_mhz), clock_mhz);
    } else {
      o += "    rate: off\n";
    }
    o += fmt::format("    burst: {}\n    crypto_quota: {}\n    queue_limit: {{control: {}, bulk: {}}}\n",
                     tp.burst_bytes, tp.crypto_quota, tp.qlimit_control_bytes, tp.qlimit_bulk_bytes);
    o += fmt::format("    control: {{rate_bytes_per_kcycle: {}, burst: {}}}  # {:.3f} Gbit/s at {} MHz\n",
                     tp.ctrl_rate_bytes_per_kcycle, tp.ctrl_burst_bytes,
                     rate_to_gbps(tp.ctrl_rate_bytes_per_kcycle, clock_mhz), clock_mhz);
  }
  if (p.classifier) {
    if (p.classifier->empty()) {
      o += "classifier: []\n";
    } else {
      o += "classifier:\n";
      for (const ClassifierEntry& e : *p.classifier) {
        std::string match;
        auto add = [&](const char* name, std::uint32_t v, std::uint32_t mask, std::uint32_t full, bool hex_mask) {
          if (mask == 0 && v == 0) return;
          match += fmt::format("{}{}: {}", match.empty() ? "" : ", ", name, v);
          if (mask != full) match += hex_mask ? fmt::format(", {}_mask: 0x{:x}", name, mask) : fmt::format(", {}_mask: {}", name, mask);
        };
        add("vlan", e.vlan, e.vlan_mask, rm::CLS_VLAN::MASK.max(), true);
        add("dscp", e.dscp, e.dscp_mask, rm::CLS_DSCP_PROTO::DSCP_MASK.max(), true);
        add("proto", e.proto, e.proto_mask, rm::CLS_DSCP_PROTO::PROTO_MASK.max(), true);
        add("port", e.port, e.port_mask, rm::CLS_PORT::MASK.max(), true);
        o += fmt::format("  - match: {{{}}}\n    action: {}\n", match, action(e.action));
      }
    }
  }
  if (p.default_action) o += fmt::format("default_action: {}\n", action(*p.default_action));
  if (p.tx_identity) {
    o += fmt::format("tx_identity:\n  mode: {}\n", p.tx_identity->source_mode ? "source" : "headers");
    std::string list;
    for (std::size_t s = 0; s < p.tx_identity->sources.size(); ++s) {
      const SourceBinding& b = p.tx_identity->sources[s];
      if (!b.bound) continue;
      list += fmt::format("    - {{source: {}, tenant: {}, on_spoof: {}}}\n", s, b.tenant, b.drop_spoofed ? "drop" : "keep");
    }
    if (!list.empty()) o += "  sources:\n" + list;
  }
  return o;
}

void save_policy(const std::string& path, const Policy& policy, const Capabilities& caps, double clock_mhz) {
  try {
    fileio::write_file_atomically(path, policy_to_yaml(policy, caps, clock_mhz));
  } catch (const fileio::FileError& e) {
    throw HostError(fmt::format("{}: cannot write the policy file: {}", path, e.problem()));
  }
}

}  // namespace nicsched::host
