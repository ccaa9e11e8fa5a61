// Scenario loading and validation (the fileio YAML reader: file:line:key in every error).
#include "nicsched/sim/scenario.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <set>

#include "nicsched/fileio/file.hpp"
#include "nicsched/fileio/yaml.hpp"
#include "nicsched/sim/error.hpp"
#include "yaml_file.hpp"

namespace nicsched::sim {

const char* to_string(Direction d) { return d == Direction::kTx ? "tx" : "rx"; }

const char* to_string(NicBackend b) { return b == NicBackend::kModel ? "model" : "rtl"; }

NicBackend parse_backend(const std::string& name) {
  if (name == "rtl") return NicBackend::kRtl;
  if (name == "model") return NicBackend::kModel;
  throw SimError("unknown NIC backend '" + name + "' (expected rtl or model)");
}

std::uint32_t Scenario::classifier_entries_needed() const {
  std::uint32_t n = 0;
  for (const auto& t : tenants) {
    switch (t.kind) {
      case WorkloadKind::kDdp: n += t.control.enabled ? 2 : 1; break;
      case WorkloadKind::kFl: n += 2; break;
      case WorkloadKind::kBackground: n += 1; break;
      case WorkloadKind::kPcap: n += t.classify ? 1 : 0; break;
    }
  }
  return n;
}

namespace {

using fileio::MapReader;
using fileio::line_of;

std::uint64_t to_cycles_us(double us, double clock_mhz) {
  return static_cast<std::uint64_t>(std::llround(us * clock_mhz));
}

// Real-job milliseconds -> scaled simulated cycles.
std::uint64_t scaled_ms(double ms, const Scenario& s) {
  return static_cast<std::uint64_t>(std::llround(ms * 1e3 / s.scale * s.clock_mhz));
}

std::uint64_t scaled_mb(double mb, const Scenario& s) {
  return static_cast<std::uint64_t>(std::llround(mb * 1e6 / s.scale));
}

constexpr double kMaxMs = 1e9;

void read_common(MapReader& r, TenantSpec& t, const Scenario& s, std::set<std::uint16_t>& vlans,
                 std::set<std::uint16_t>& ports) {
  t.name = r.str("name");
  // Identity: defaults give tenant i VLAN 100+i and ports 5000+16i.
  t.vlan = static_cast<std::uint16_t>(r.integer("vlan", 100 + t.index, 1, 4094, "a VLAN ID"));
  if (!vlans.insert(t.vlan).second && t.classify) {
    r.fail_key("vlan", "expected a VLAN ID no other tenant uses, got " + std::to_string(t.vlan));
  }
  t.port = static_cast<std::uint16_t>(r.integer("port", 5000 + 16 * t.index, 1, 65534, "a UDP port"));
  if (!ports.insert(t.port).second) {
    r.fail_key("port", "expected a UDP port no other tenant uses, got " + std::to_string(t.port));
  }
  t.priority = static_cast<std::uint32_t>(r.integer("priority", std::min<std::uint32_t>(t.index, 3), 0, 3,
                                                    "a strict-priority level (0 highest)"));
  const double start_ms = r.num("start_ms", 0.0, 0.0, kMaxMs, "a real-time start offset in ms");
  t.start_cycle = scaled_ms(start_ms, s);
  if (r.has("stop_ms")) {
    const double stop_ms = r.num("stop_ms", std::nullopt, 0.0, kMaxMs, "a real-time stop offset in ms");
    if (stop_ms <= start_ms) r.fail_key("stop_ms", "expected a stop time after start_ms");
    t.stop_cycle = scaled_ms(stop_ms, s);
  }
  t.mtu_frame_bytes = static_cast<std::uint32_t>(
      r.integer("mtu", 1518, 128, 9018, "a bulk frame length in bytes (without FCS)"));
  t.jitter = r.num("jitter", 0.0, 0.0, 1.0, "a relative standard deviation");
}

void read_window(MapReader& r, TenantSpec& t, std::uint32_t def, bool allow_open) {
  t.window_bytes = static_cast<std::uint32_t>(
      r.integer("window_bytes", def, allow_open ? 0 : t.mtu_frame_bytes, 1u << 24,
                allow_open ? "bytes in flight in the NIC (0: open loop)"
                           : "bytes in flight in the NIC, at least one MTU frame"));
  if (allow_open && t.window_bytes != 0 && t.window_bytes < t.packet_bytes) {
    r.fail_key("window_bytes", "expected 0 or at least packet_bytes");
  }
}

// `model`: a preset's name (its sizes and times become the defaults) or custom (nullptr).
const ModelPreset* read_model(MapReader& r, TenantSpec& t) {
  std::vector<std::string> names;
  for (const auto& p : model_presets()) names.emplace_back(p.name);
  names.emplace_back("custom");
  t.model = r.choice("model", names, std::string("custom"));
  return find_model_preset(t.model);
}

void read_ddp(MapReader& r, TenantSpec& t, const Scenario& s) {
  const ModelPreset* p = read_model(r, t);
  t.model_mb_real = r.num("model_mb", p ? std::optional<double>(p->model_mb) : std::nullopt, 0.001, 1e6,
                          "a real model (gradient) size in MB");
  t.compute_ms_real = r.num("compute_ms", p ? std::optional<double>(p->compute_ms) : std::nullopt, 0.0,
                            kMaxMs, "a real compute time per iteration in ms");
  t.workers = static_cast<std::uint32_t>(r.integer("workers", 8, 2, 65536, "ring all-reduce workers"));
  const double burst_mb = t.model_mb_real * 2.0 * (t.workers - 1) / t.workers;
  t.burst_bytes = std::max<std::uint64_t>(1, scaled_mb(burst_mb, s));
  t.compute_cycles = scaled_ms(t.compute_ms_real, s);
  t.bulk_dscp = static_cast<std::uint8_t>(r.integer("bulk_dscp", 0, 0, 63, "a DSCP value for bulk TX (46: EF)"));
  read_window(r, t, 32768, false);
}

void read_control(MapReader& r, TenantSpec& t, const Scenario& s) {
  if (!r.has("control")) return;
  const YAML::Node cn = r.node("control");
  MapReader c(r.doc(), cn, r.full("control"));
  t.control.enabled = true;
  const double period_us = c.num("period_us", std::nullopt, 0.01, 1e6, "a control-packet period in us");
  t.control.period_cycles = std::max<std::uint64_t>(1, to_cycles_us(period_us, s.clock_mhz));
  t.control.frame_bytes =
      static_cast<std::uint32_t>(c.integer("bytes", 128, 78, 1518, "a control frame length in bytes"));
  const double deadline_us = c.num("deadline_us", std::nullopt, 0.001, 1e6, "a deadline in us");
  t.control.deadline_cycles = std::max<std::uint64_t>(1, to_cycles_us(deadline_us, s.clock_mhz));
  c.finish("period_us, bytes, deadline_us");
}

void read_fl(MapReader& r, TenantSpec& t, const Scenario& s) {
  const ModelPreset* p = read_model(r, t);
  t.update_mb_real = r.num("update_mb", p ? std::optional<double>(p->model_mb) : std::nullopt, 0.001, 1e6,
                           "a real model/update size in MB");
  t.train_ms_real = r.num("train_ms", std::nullopt, 0.0, kMaxMs, "a real local training time in ms");
  t.expansion = r.num("expansion", 1.0, 1.0, 16.0, "a secure-aggregation expansion factor");
  t.download_bytes = std::max<std::uint64_t>(1, scaled_mb(t.update_mb_real, s));
  t.upload_bytes = std::max<std::uint64_t>(1, scaled_mb(t.update_mb_real * t.expansion, s));
  t.train_cycles = scaled_ms(t.train_ms_real, s);
  read_window(r, t, 32768, false);
}

void read_background(MapReader& r, TenantSpec& t, const Scenario& s) {
  const auto pat = r.choice("pattern", {"constant", "poisson", "onoff"}, std::string("constant"));
  t.pattern = pat == "constant" ? BgPattern::kConstant : pat == "poisson" ? BgPattern::kPoisson : BgPattern::kOnOff;
  t.rate_gbps = r.num("rate_gbps", std::nullopt, 0.001, s.link_gbps * 4, "an offered rate in Gbit/s");
  t.packet_bytes =
      static_cast<std::uint32_t>(r.integer("packet_bytes", 1518, 78, 9018, "a frame length in bytes"));
  t.direction = r.choice("direction", {"tx", "rx"}, std::string("tx")) == "tx" ? Direction::kTx : Direction::kRx;
  if (t.pattern == BgPattern::kOnOff) {
    t.on_cycles = std::max<std::uint64_t>(1, scaled_ms(r.num("on_ms", std::nullopt, 0.0, kMaxMs, "a real on-period in ms"), s));
    t.off_cycles = scaled_ms(r.num("off_ms", std::nullopt, 0.0, kMaxMs, "a real off-period in ms"), s);
  } else {
    for (const char* k : {"on_ms", "off_ms"}) {
      if (r.has(k)) r.fail_key(k, "only allowed with pattern: onoff");
    }
  }
  read_window(r, t, 0, true);
  if (r.has("spoof_as") && t.direction != Direction::kTx) r.fail_key("spoof_as", "only allowed with direction: tx");
}

void read_pcap(MapReader& r, TenantSpec& t, const Scenario&) {
  t.pcap_file = r.str("file");
  t.direction = r.choice("direction", {"tx", "rx"}, std::string("tx")) == "tx" ? Direction::kTx : Direction::kRx;
  t.loop = r.boolean("loop", false);
  t.speed = r.num("speed", 1.0, 1e-6, 1e6, "a replay speed-up factor");
  t.window_bytes = 0;
}

void read_ddp_and_control(MapReader& r, TenantSpec& t, const Scenario& s) {
  read_ddp(r, t, s);
  read_control(r, t, s);
}

// Each workload kind: its `type:` in a scenario, the reader of its own keys and those keys
// (named when a tenant has a key no reader asked about).
struct WorkloadType {
  WorkloadKind kind;
  const char* name;
  void (*read)(MapReader&, TenantSpec&, const Scenario&);
  const char* keys;
};
constexpr WorkloadType kWorkloadTypes[] = {
    {WorkloadKind::kDdp, "ddp", read_ddp_and_control,
     "model, model_mb, compute_ms, workers, window_bytes, control, bulk_dscp"},
    {WorkloadKind::kFl, "fl", read_fl, "model, update_mb, train_ms, expansion, window_bytes"},
    {WorkloadKind::kBackground, "background", read_background,
     "pattern, rate_gbps, packet_bytes, on_ms, off_ms, direction, window_bytes, spoof_as"},
    {WorkloadKind::kPcap, "pcap", read_pcap, "file, direction, loop, speed, classify"},
};

}  // namespace

const char* to_string(WorkloadKind k) {
  for (const WorkloadType& w : kWorkloadTypes) {
    if (w.kind == k) return w.name;
  }
  return "?";
}

namespace {

Scenario read_scenario(const fileio::YamlDoc& doc, const std::string& yaml_text, const std::string& file_name,
                       const ScenarioExtension* ext) {
  const YAML::Node& root = doc.root();
  Scenario s;
  s.text_digest = std::to_string(std::hash<std::string>{}(yaml_text));
  MapReader r(doc, root, "");
  s.name = r.str("name");
  s.seed = r.integer("seed", 1, 0, ~0ULL >> 1, "a random seed");
  s.scale = r.num("scale", 1000.0, 1.0, 1e6, "a time-scale factor (real time / simulated time)");
  s.clock_mhz = r.num("clock_mhz", kShellClockMhz, 1.0, kShellClockMhz,
                      "a clock in MHz no faster than the board shell's core clock");
  s.link_gbps = r.num("link_gbps", 100.0, 0.1, 1000.0, "a link rate in Gbit/s");
  if (s.link_bytes_per_cycle() > 64.0) {
    r.fail_key("link_gbps", "expected a link rate the 64-byte datapath can carry at clock_mhz (at most " +
                                std::to_string(64.0 * 8.0 * s.clock_mhz / 1e3) + " Gbit/s)");
  }
  const double duration_s = r.num("duration_s", std::nullopt, 1e-6, 1e6, "a real-time duration in s");
  s.duration_cycles = scaled_ms(duration_s * 1e3, s);
  if (s.duration_cycles < 1000) r.fail_key("duration_s", "expected a duration of at least 1000 simulated cycles after scaling");
  s.rto_cycles = to_cycles_us(r.num("rto_us", 2000.0, 1.0, 1e7, "a retransmission timeout in us"), s.clock_mhz);

  if (r.has("nic")) {
    MapReader n(doc, r.node("nic"), "nic");
    s.nic_tenants = static_cast<std::uint32_t>(n.integer("tenants", 8, 1, 64, "NumTenants of the model"));
    s.crypto_slots = static_cast<std::uint32_t>(n.integer("crypto_slots", 4, 1, 255, "crypto slots"));
    // An engine preset (docs/scaling.md, "Crypto engines") or the engine's own figures.
    std::vector<std::string> engines{"custom"};
    for (const auto& e : crypto_presets()) engines.emplace_back(e.name);
    s.crypto_engine = n.choice("crypto_engine", engines, std::string("custom"));
    if (const CryptoPreset* e = find_crypto_preset(s.crypto_engine)) {
      for (const char* k : {"crypto_bytes_per_cycle", "crypto_latency"}) {
        if (n.has(k)) n.fail_key(k, "not allowed with crypto_engine: " + s.crypto_engine + " (the preset sets it)");
      }
      s.crypto_bytes_per_cycle = e->bytes_per_cycle;
      s.crypto_latency = e->latency;
    } else {
      s.crypto_bytes_per_cycle =
          static_cast<std::uint32_t>(n.integer("crypto_bytes_per_cycle", 16, 1, 255, "engine bytes per cycle per slot"));
      s.crypto_latency = static_cast<std::uint32_t>(n.integer("crypto_latency", 32, 0, 65535, "engine latency in cycles"));
    }
    s.backend = parse_backend(n.choice("backend", {"rtl", "model"}, std::string("rtl")));
    s.tx_identity_set = n.has("tx_identity");
    s.tx_identity = n.choice("tx_identity", {"headers", "source"}, std::string("headers")) == "source"
                        ? TxIdentity::kSource
                        : TxIdentity::kHeaders;
    if (n.has("on_spoof") && s.tx_identity != TxIdentity::kSource) {
      n.fail_key("on_spoof", "only allowed with tx_identity: source");
    }
    s.drop_spoofed = n.choice("on_spoof", {"keep", "drop"}, std::string("keep")) == "drop";
    n.finish("tenants, crypto_slots, crypto_engine, crypto_bytes_per_cycle, crypto_latency, backend, tx_identity, "
             "on_spoof");
  }

  if (r.has("mac")) {
    MapReader m(doc, r.node("mac"), "mac");
    if (m.has("pauses")) {
      const YAML::Node list = m.node("pauses");
      if (!list.IsSequence()) m.fail(list, m.full("pauses"), "expected a list of {at_us, for_us}");
      for (std::size_t i = 0; i < list.size(); ++i) {
        MapReader p(doc, list[i], m.full("pauses[" + std::to_string(i) + "]"));
        PausePeriod pp;
        pp.start_cycle = to_cycles_us(p.num("at_us", std::nullopt, 0.0, 1e9, "a pause start in us"), s.clock_mhz);
        pp.length_cycles = to_cycles_us(p.num("for_us", std::nullopt, 0.001, 1e9, "a pause length in us"), s.clock_mhz);
        p.finish("at_us, for_us");
        s.pauses.push_back(pp);
      }
    }
    const double every_us = m.num("pause_every_us", 0.0, 0.0, 1e9, "a pause period in us (0: none)");
    if (every_us > 0) {
      const double for_us = m.num("pause_for_us", std::nullopt, 0.001, every_us, "a pause length in us, below pause_every_us");
      const auto every = to_cycles_us(every_us, s.clock_mhz);
      const auto len = to_cycles_us(for_us, s.clock_mhz);
      for (std::uint64_t c = every; c < s.duration_cycles; c += every) s.pauses.push_back({c, len});
    } else if (m.has("pause_for_us")) {
      m.fail_key("pause_for_us", "only allowed with pause_every_us");
    }
    m.finish("pauses, pause_every_us, pause_for_us");
    std::sort(s.pauses.begin(), s.pauses.end(),
              [](const PausePeriod& a, const PausePeriod& b) { return a.start_cycle < b.start_cycle; });
    for (std::size_t i = 1; i < s.pauses.size(); ++i) {
      if (s.pauses[i].start_cycle < s.pauses[i - 1].start_cycle + s.pauses[i - 1].length_cycles) {
        m.fail(m.yaml(), "mac.pauses", "expected non-overlapping pause periods");
      }
    }
  }

  const YAML::Node tl = r.node("tenants");
  if (!tl) r.fail(root, "tenants", "required key is missing (expected a list of tenants)");
  if (!tl.IsSequence() || tl.size() == 0) r.fail(tl, "tenants", "expected a non-empty list of tenants");
  if (!ext && tl.size() > s.nic_tenants) {
    r.fail(tl, "tenants", "expected at most nic.tenants (" + std::to_string(s.nic_tenants) + ") tenants, got " +
                              std::to_string(tl.size()));
  }
  std::set<std::uint16_t> vlans;
  std::set<std::uint16_t> ports;
  std::set<std::string> names;
  for (std::size_t i = 0; i < tl.size(); ++i) {
    const std::string path = "tenants[" + std::to_string(i) + "]";
    MapReader t(doc, tl[i], path);
    TenantSpec spec;
    spec.index = static_cast<std::uint32_t>(i);
    spec.line = line_of(tl[i]);
    std::vector<std::string> type_names;
    for (const WorkloadType& w : kWorkloadTypes) type_names.emplace_back(w.name);
    const auto type = t.choice("type", type_names, std::nullopt);
    const WorkloadType& w = *std::find_if(std::begin(kWorkloadTypes), std::end(kWorkloadTypes),
                                          [&](const WorkloadType& k) { return k.name == type; });
    spec.kind = w.kind;
    if (spec.kind == WorkloadKind::kPcap) spec.classify = t.boolean("classify", true);
    read_common(t, spec, s, vlans, ports);
    if (!names.insert(spec.name).second) t.fail_key("name", "expected a tenant name no other tenant uses");
    w.read(t, spec, s);
    if (ext) ext->read_tenant(t, spec);
    t.finish(std::string("name, type, vlan, port, priority, start_ms, stop_ms, mtu, jitter, ") + w.keys +
             (ext ? ", " + ext->tenant_keys : std::string{}));
    if (spec.kind == WorkloadKind::kPcap && spec.pcap_file.is_relative() && !file_name.empty()) {
      spec.pcap_file = std::filesystem::path(file_name).parent_path() / spec.pcap_file;
    }
    s.tenants.push_back(std::move(spec));
  }
  // spoof_as names a tenant that may be defined after the attacker.
  for (std::size_t i = 0; i < tl.size(); ++i) {
    MapReader t(doc, tl[i], "tenants[" + std::to_string(i) + "]");
    if (!t.has("spoof_as")) continue;
    const std::string victim = t.str("spoof_as");
    const auto it = std::find_if(s.tenants.begin(), s.tenants.end(), [&](const TenantSpec& v) { return v.name == victim; });
    if (it == s.tenants.end() || it->index == i) {
      t.fail_key("spoof_as", "expected the name of another tenant, got '" + victim + "'");
    }
    s.tenants[i].spoofs = true;
    s.tenants[i].spoof_vlan = it->vlan;
    s.tenants[i].spoof_port = it->port;
  }
  if (ext) ext->read_top(r, s);
  r.finish("name, seed, scale, clock_mhz, link_gbps, duration_s, rto_us, nic, mac, tenants" +
           (ext ? ", " + ext->top_keys : std::string{}));
  return s;
}

}  // namespace

Scenario parse_scenario(const std::string& yaml_text, const std::string& file_name) {
  return parse_yaml(yaml_text, file_name,
                    [&](const fileio::YamlDoc& doc) { return read_scenario(doc, yaml_text, file_name, nullptr); });
}

Scenario parse_extended_scenario(const std::string& yaml_text, const std::string& file_name, const ScenarioExtension& ext) {
  return parse_yaml(yaml_text, file_name,
                    [&](const fileio::YamlDoc& doc) { return read_scenario(doc, yaml_text, file_name, &ext); });
}

Scenario load_scenario(const std::filesystem::path& file) {
  const std::string text = read_yaml_file(file, "the scenario file");
  Scenario s = parse_scenario(text, file.string());
  s.file = file;
  return s;
}

Scenario load_extended_scenario(const std::filesystem::path& file, const ScenarioExtension& ext) {
  const std::string text = read_yaml_file(file, "the scenario file");
  Scenario s = parse_extended_scenario(text, file.string(), ext);
  s.file = file;
  return s;
}

Scenario solo_scenario(const Scenario& s, std::uint32_t index) {
  Scenario solo = s;
  solo.tenants.clear();
  for (const auto& t : s.tenants) {
    if (t.index == index) solo.tenants.push_back(t);
  }
  if (solo.tenants.empty()) throw SimError("solo_scenario: no tenant with index " + std::to_string(index));
  solo.name = s.name + "/solo-" + solo.tenants.front().name;
  return solo;
}

}  // namespace nicsched::sim
