// nicctl: operate a nicsched NIC (a card's PCIe BAR / XDMA device, or nicsim over a socket):
// hardware info, live telemetry, policy files, per-tenant settings, the classifier table,
// a register dump. Usage and exit codes: docs/nicctl.md.
//
// Exit codes: 0 success; 1 internal error; 2 usage error (bad option, no or malformed
// target URI); 3 the target cannot be reached (connect, timeout, lost connection, open or
// map failure); 4 the NIC refused (AXI error response, not a nicsched NIC, unknown version);
// 5 invalid policy file or setting (nothing was written); 6 a committed policy read back
// differently.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <optional>
#include <thread>

#include "nicsched/drivers/open_bus.hpp"
#include "nicsched/drivers/sim_client.hpp"
#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/host/telemetry.hpp"
#include "nicsched/regmap.hpp"
#include "nicsched/version.hpp"

namespace {

using namespace nicsched;
namespace rm = nicsched::regmap;
using json = nlohmann::json;

enum Exit : int {
  kOk = 0,
  kInternal = 1,
  kUsage = 2,
  kUnreachable = 3,
  kRefused = 4,
  kInvalidInput = 5,
  kReadBack = 6,
};

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::atomic<bool> g_interrupted{false};
extern "C" void on_sigint(int) { g_interrupted = true; }

struct Global {
  std::string target;
  int timeout_ms = 5000;
  double clock_mhz = host::kDefaultClockMhz;
  int verbose = 0;
};

struct Session {
  std::unique_ptr<drivers::RegisterBus> bus;
  host::Capabilities caps;
};

Session connect(const Global& g) {
  if (g.target.empty()) throw UsageError("no target: give --target URI or set NICSCHED_TARGET (see nicctl --help)");
  drivers::BusOptions o;
  o.timeout = std::chrono::milliseconds(g.timeout_ms);
  o.client_name = "nicctl";
  Session s;
  s.bus = drivers::open_bus(g.target, o);
  s.caps = host::discover(*s.bus);
  return s;
}

std::string crypto_name(host::CryptoOp c) {
  switch (c) {
    case host::CryptoOp::kEncrypt: return "encrypt";
    case host::CryptoOp::kDecrypt: return "decrypt";
    default: return "none";
  }
}

// ------------------------------------------------------------------ info

int cmd_info(const Global& g, bool as_json) {
  Session s = connect(g);
  const std::uint32_t gen = rm::CONFIG_GEN::COUNT.get(s.bus->read32(rm::CONFIG_GEN::kOffset));
  const std::uint32_t status = s.bus->read32(rm::STATUS::kOffset);
  std::optional<std::uint64_t> cycle;
  std::string server;
  if (auto* sim = dynamic_cast<drivers::SimClient*>(s.bus.get())) {
    cycle = sim->cycle();
    const auto& i = sim->server_info();
    server = fmt::format("{} (protocol {}.{}, {})", i.description, i.version_major, i.version_minor,
                         drivers::proto::to_string(sim->mode()));
  }
  const auto& c = s.caps;
  if (as_json) {
    json j = {{"target", s.bus->describe()},
              {"id", c.id},
              {"version", fmt::format("{}.{}", c.version_major, c.version_minor)},
              {"tenants", c.tenants},
              {"classes", c.classes},
              {"queues", c.queues()},
              {"prio_levels", c.prio_levels},
              {"crypto_slots", c.crypto_slots},
              {"cls_entries", c.cls_entries},
              {"data_bytes", c.data_bytes},
              {"buffer_kib", c.buffer_kib},
              {"config_gen", gen},
              {"status", {{"tx_buf_full", rm::STATUS::TX_BUF_FULL.get(status) != 0},
                          {"rx_buf_full", rm::STATUS::RX_BUF_FULL.get(status) != 0}}}};
    if (cycle) j["cycle"] = *cycle;
    if (!server.empty()) j["server"] = server;
    std::cout << j.dump(2) << "\n";
    return kOk;
  }
  std::cout << fmt::format("target          {}\n", s.bus->describe());
  if (!server.empty()) std::cout << fmt::format("server          {}\n", server);
  std::cout << fmt::format("id              0x{:08x} (NSCH)\n", c.id);
  std::cout << fmt::format("version         {}.{}\n", c.version_major, c.version_minor);
  std::cout << fmt::format("tenants         {} ({} queues: control + bulk each)\n", c.tenants, c.queues());
  std::cout << fmt::format("priority levels {}\n", c.prio_levels);
  std::cout << fmt::format("crypto slots    {}\n", c.crypto_slots);
  std::cout << fmt::format("classifier      {} entries\n", c.cls_entries);
  std::cout << fmt::format("datapath        {} bytes/beat, {} KiB buffer per direction\n", c.data_bytes, c.buffer_kib);
  std::cout << fmt::format("config gen      {} commits since reset\n", gen);
  if (cycle) {
    std::cout << fmt::format("cycle           {} ({:.3f} ms at {} MHz)\n", *cycle,
                             static_cast<double>(*cycle) / (g.clock_mhz * 1e3), g.clock_mhz);
  }
  std::string flags;
  if (rm::STATUS::TX_BUF_FULL.get(status)) flags += " TX_BUF_FULL";
  if (rm::STATUS::RX_BUF_FULL.get(status)) flags += " RX_BUF_FULL";
  std::cout << fmt::format("status          {}\n", flags.empty() ? "ok" : flags.substr(1));
  return kOk;
}

// ------------------------------------------------------------------ stats

json stats_json(const std::string& target, const host::Capabilities& caps, const host::Telemetry& t,
                const std::optional<host::Rates>& r) {
  json j = {{"target", target}, {"cycle", t.cycle}, {"config_gen", t.config_gen}, {"crypto_busy_slots", t.crypto_busy_slots}};
  if (r) {
    j["interval_cycles"] = r->cycles;
    j["interval_seconds"] = r->seconds;
    j["link_gbps"] = r->link_gbps;
  }
  json tenants = json::array();
  for (std::uint32_t n = 0; n < caps.tenants; ++n) {
    const auto& qc = t.queues[n * caps.classes];
    const auto& qb = t.queues[n * caps.classes + 1];
    const auto& cr = t.crypto[n];
    json e = {{"tenant", n},
              {"tx_bytes", qc.tx_bytes + qb.tx_bytes},
              {"tx_pkts", qc.tx_pkts + qb.tx_pkts},
              {"enq_bytes", qc.enq_bytes + qb.enq_bytes},
              {"drop_pkts", qc.drop_pkts + qb.drop_pkts},
              {"drop_bytes", qc.drop_bytes + qb.drop_bytes},
              {"queue_bytes", {{"control", qc.depth_bytes}, {"bulk", qb.depth_bytes}}},
              {"queue_hwm", {{"control", qc.depth_hwm}, {"bulk", qb.depth_hwm}}},
              {"lat_max_cycles", {{"control", qc.lat_max}, {"bulk", qb.lat_max}}},
              {"crypto", {{"tx_bytes", cr.tx_bytes}, {"rx_bytes", cr.rx_bytes}, {"tx_wait_cycles", cr.tx_wait},
                          {"rx_wait_cycles", cr.rx_wait}, {"slots_held", cr.slots_held}}}};
    if (r) {
      const auto& tr = r->tenants[n];
      e["rates"] = {{"tx_gbps", tr.tx_gbps},         {"tx_pps", tr.tx_pps},
                    {"enq_gbps", tr.enq_gbps},       {"drop_pps", tr.drop_pps},
                    {"tx_share", tr.tx_share},       {"control_lat_cycles", tr.control_lat_cycles},
                    {"bulk_lat_cycles", tr.bulk_lat_cycles}, {"crypto_wait_frac", tr.crypto_wait_frac},
                    {"crypto_gbps", tr.crypto_gbps}};
    }
    tenants.push_back(e);
  }
  j["tenants"] = tenants;
  json parser = json::array();
  for (const auto& p : t.parser) {
    parser.push_back({{"frames", p.frames}, {"runt", p.runt}, {"truncated", p.truncated}, {"bad_ihl", p.bad_ihl},
                      {"unknown_etype", p.unknown_etype}, {"buf_drop", p.buf_drop}});
  }
  j["parser"] = {{"tx", parser[0]}, {"rx", parser[1]}};
  return j;
}

std::string stats_table(const std::string& target, const host::Capabilities& caps, const host::Telemetry& t,
                        const std::optional<host::Rates>& r, double clock_mhz) {
  std::string o;
  o += fmt::format("{}  cycle {}  config gen {}  crypto slots busy {}/{}\n", target, t.cycle, t.config_gen,
                   t.crypto_busy_slots, caps.crypto_slots);
  if (r) {
    o += fmt::format("interval {} cycles ({:.3f} ms at {} MHz)  link {:.2f} Gbit/s\n", r->cycles, r->seconds * 1e3,
                     clock_mhz, r->link_gbps);
  } else {
    o += "(no interval: counters only)\n";
  }
  o += fmt::format("{:>6} {:>9} {:>6} {:>10} {:>9} {:>9} {:>9} {:>7} {:>9} {:>9} {:>14} {:>10}\n", "tenant", "tx Gb/s",
                   "share", "tx pkt/s", "drop/s", "ctl lat", "bulk lat", "cr wait", "q ctl B", "q bulk B", "tx bytes",
                   "drops");
  for (std::uint32_t n = 0; n < caps.tenants; ++n) {
    const auto& qc = t.queues[n * caps.classes];
    const auto& qb = t.queues[n * caps.classes + 1];
    if (r) {
      const auto& tr = r->tenants[n];
      o += fmt::format("{:>6} {:>9.3f} {:>5.1f}% {:>10.0f} {:>9.0f} {:>9.1f} {:>9.1f} {:>6.1f}% ", n, tr.tx_gbps,
                       tr.tx_share * 100, tr.tx_pps, tr.drop_pps, tr.control_lat_cycles, tr.bulk_lat_cycles,
                       tr.crypto_wait_frac * 100);
    } else {
      o += fmt::format("{:>6} {:>9} {:>6} {:>10} {:>9} {:>9} {:>9} {:>7} ", n, "-", "-", "-", "-", "-", "-", "-");
    }
    o += fmt::format("{:>9} {:>9} {:>14} {:>10}\n", qc.depth_bytes, qb.depth_bytes, qc.tx_bytes + qb.tx_bytes,
                     qc.drop_pkts + qb.drop_pkts);
  }
  return o;
}

struct StatsOptions {
  bool json = false;
  bool watch = false;
  double interval_s = 1.0;
  std::uint64_t step_cycles = 0;
  int count = 0;
};

// Waits one interval: on a lock-step simulator with --step, advances its clock instead.
void wait_interval(drivers::RegisterBus& bus, const StatsOptions& o) {
  if (o.step_cycles > 0) {
    auto* sim = dynamic_cast<drivers::SimControl*>(&bus);
    if (!sim) throw UsageError(fmt::format("--step needs a simulator target; {} is not one", bus.describe()));
    sim->step(o.step_cycles);
    return;
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.interval_s);
  while (!g_interrupted && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

int cmd_stats(const Global& g, const StatsOptions& o) {
  Session s = connect(g);
  const double clock_hz = g.clock_mhz * 1e6;
  const bool tty = ::isatty(STDOUT_FILENO) != 0;
  const bool with_interval = o.watch || o.interval_s > 0 || o.step_cycles > 0;
  if (auto* sim = dynamic_cast<drivers::SimClient*>(s.bus.get());
      sim && with_interval && o.step_cycles == 0 && sim->mode() == drivers::proto::Mode::kLockStep) {
    std::cerr << fmt::format("nicctl: note: {} is in lock-step mode: its clock moves only with --step CYCLES\n",
                             s.bus->describe());
  }
  host::Telemetry prev = host::read_snapshot(*s.bus, s.caps);
  if (!with_interval) {
    if (o.json) {
      std::cout << stats_json(s.bus->describe(), s.caps, prev, std::nullopt).dump(2) << "\n";
    } else {
      std::cout << stats_table(s.bus->describe(), s.caps, prev, std::nullopt, g.clock_mhz);
    }
    return kOk;
  }
  std::signal(SIGINT, on_sigint);
  for (int shown = 0; !g_interrupted; ++shown) {
    wait_interval(*s.bus, o);
    if (g_interrupted) break;
    host::Telemetry now = host::read_snapshot(*s.bus, s.caps);
    const host::Rates r = host::compute_rates(prev, now, s.caps, clock_hz);
    if (o.json) {
      // --watch --json: one object per line (NDJSON); otherwise one pretty object.
      std::cout << stats_json(s.bus->describe(), s.caps, now, r).dump(o.watch ? -1 : 2) << "\n";
    } else {
      if (o.watch && tty) std::cout << "\x1b[H\x1b[J";  // refresh in place
      std::cout << stats_table(s.bus->describe(), s.caps, now, r, g.clock_mhz);
      if (o.watch) std::cout << (tty ? "(Ctrl-C to stop)\n" : "\n");
    }
    std::cout.flush();
    prev = std::move(now);
    if (!o.watch || (o.count > 0 && shown + 1 >= o.count)) break;
  }
  return kOk;
}

// ------------------------------------------------------------------ policies

int cmd_load_policy(const Global& g, const std::string& file, bool dry_run) {
  Session s = connect(g);
  const host::Policy p = host::load_policy(file, s.caps);  // validated in full; throws before any write
  if (dry_run) {
    std::cout << fmt::format("{}: valid for {} ({} tenants, {}); nothing written\n", file, s.bus->describe(),
                             s.caps.tenants,
                             p.classifier ? fmt::format("{} classifier entries", p.classifier->size())
                                          : std::string("classifier table untouched"));
    return kOk;
  }
  const host::ApplyResult r = host::apply_policy(*s.bus, s.caps, p);
  std::cout << fmt::format("{}: committed to {} ({} registers, config generation {})\n", file, s.bus->describe(),
                           r.writes, r.config_gen);
  return kOk;
}

int cmd_get_policy(const Global& g, const std::string& out_file) {
  Session s = connect(g);
  const host::Policy p = host::read_policy(*s.bus, s.caps);
  const std::string yaml = host::policy_to_yaml(p, s.caps, g.clock_mhz, "read from " + s.bus->describe() + " by nicctl get-policy");
  if (out_file.empty()) {
    std::cout << yaml;
  } else {
    host::save_policy(out_file, p, s.caps, g.clock_mhz);
    std::cerr << fmt::format("wrote {}\n", out_file);
  }
  return kOk;
}

struct SetOptions {
  std::uint32_t tenant = 0;
  std::optional<std::uint32_t> priority, weight, crypto_quota;
  std::optional<std::string> rate, burst, qlimit_control, qlimit_bulk;
  bool enable = false, disable = false;
};

std::uint32_t bytes_option(const std::string& name, const std::string& text) {
  std::uint64_t v = 0;
  try {
    v = host::parse_bytes(text);
  } catch (const host::HostError& e) {
    throw host::PolicyError(fmt::format("{}: {}", name, e.what()), "command line", 0, name);
  }
  if (v > 0xFFFFFFFFULL) throw host::PolicyError(fmt::format("{}: {} does not fit 32 bits", name, v), "command line", 0, name);
  return static_cast<std::uint32_t>(v);
}

int cmd_set(const Global& g, const SetOptions& o) {
  if (o.enable && o.disable) throw UsageError("set: --enable and --disable exclude each other");
  if (!o.priority && !o.weight && !o.crypto_quota && !o.rate && !o.burst && !o.qlimit_control && !o.qlimit_bulk &&
      !o.enable && !o.disable) {
    throw UsageError("set: nothing to set (give --priority, --weight, --rate, --burst, --crypto-quota, --qlimit-control, "
                     "--qlimit-bulk, --enable or --disable)");
  }
  Session s = connect(g);
  if (o.tenant >= s.caps.tenants) {
    throw host::PolicyError(fmt::format("set: tenant {} does not exist (allowed: 0..{}: the NIC has {} tenants)", o.tenant,
                                        s.caps.tenants - 1, s.caps.tenants),
                            "command line", 0, "TENANT");
  }
  host::Policy p = host::read_policy(*s.bus, s.caps);
  p.classifier.reset();  // leave the table and the default action as they are
  p.default_action.reset();
  host::TenantPolicy& t = p.tenants[o.tenant];
  if (o.priority) t.priority = *o.priority;
  if (o.weight) t.weight = *o.weight;
  if (o.crypto_quota) t.crypto_quota = *o.crypto_quota;
  if (o.enable) t.enable = true;
  if (o.disable) t.enable = false;
  if (o.rate) {
    if (*o.rate == "off" || *o.rate == "none") {
      t.rate_limited = false;
      t.rate_bytes_per_kcycle = 0;
    } else {
      try {
        t.rate_bytes_per_kcycle = host::parse_rate(*o.rate, g.clock_mhz);
      } catch (const host::HostError& e) {
        throw host::PolicyError(fmt::format("--rate: {}", e.what()), "command line", 0, "--rate");
      }
      t.rate_limited = true;
    }
  }
  if (o.burst) t.burst_bytes = bytes_option("--burst", *o.burst);
  if (o.qlimit_control) t.qlimit_control_bytes = bytes_option("--qlimit-control", *o.qlimit_control);
  if (o.qlimit_bulk) t.qlimit_bulk_bytes = bytes_option("--qlimit-bulk", *o.qlimit_bulk);
  const host::ApplyResult r = host::apply_policy(*s.bus, s.caps, p);
  std::cout << fmt::format("tenant {}: committed (config generation {})\n", o.tenant, r.config_gen);
  return kOk;
}

// ------------------------------------------------------------------ classifier

std::string match_text(const host::ClassifierEntry& e) {
  std::string m;
  auto add = [&](const char* name, std::uint32_t v, std::uint32_t mask, std::uint32_t full) {
    if (mask == 0) return;
    m += fmt::format("{}{}={}", m.empty() ? "" : " ", name, v);
    if (mask != full) m += fmt::format("/0x{:x}", mask);
  };
  add("vlan", e.vlan, e.vlan_mask, rm::CLS_VLAN::MASK.max());
  add("dscp", e.dscp, e.dscp_mask, rm::CLS_DSCP_PROTO::DSCP_MASK.max());
  add("proto", e.proto, e.proto_mask, rm::CLS_DSCP_PROTO::PROTO_MASK.max());
  add("port", e.port, e.port_mask, rm::CLS_PORT::MASK.max());
  return m.empty() ? "(any)" : m;
}

int cmd_classifier_list(const Global& g, bool as_json) {
  Session s = connect(g);
  const host::Policy p = host::read_policy(*s.bus, s.caps);
  if (as_json) {
    json entries = json::array();
    for (const auto& e : *p.classifier) {
      entries.push_back({{"vlan", e.vlan}, {"vlan_mask", e.vlan_mask}, {"dscp", e.dscp}, {"dscp_mask", e.dscp_mask},
                         {"proto", e.proto}, {"proto_mask", e.proto_mask}, {"port", e.port}, {"port_mask", e.port_mask},
                         {"tenant", e.action.tenant}, {"class", e.action.cls == 0 ? "control" : "bulk"},
                         {"crypto", crypto_name(e.action.crypto_op)}});
    }
    const auto& d = *p.default_action;
    std::cout << json{{"entries", entries},
                      {"capacity", s.caps.cls_entries},
                      {"default_action",
                       {{"tenant", d.tenant}, {"class", d.cls == 0 ? "control" : "bulk"}, {"crypto", crypto_name(d.crypto_op)}}}}
                     .dump(2)
              << "\n";
    return kOk;
  }
  std::cout << fmt::format("{:>5}  {:<40} {:>6} {:>8} {:>8}\n", "index", "match", "tenant", "class", "crypto");
  for (std::size_t i = 0; i < p.classifier->size(); ++i) {
    const auto& e = (*p.classifier)[i];
    std::cout << fmt::format("{:>5}  {:<40} {:>6} {:>8} {:>8}\n", i, match_text(e), e.action.tenant,
                             e.action.cls == 0 ? "control" : "bulk", crypto_name(e.action.crypto_op));
  }
  const auto& d = *p.default_action;
  std::cout << fmt::format("{:>5}  {:<40} {:>6} {:>8} {:>8}\n", "miss", "(no entry matches)", d.tenant,
                           d.cls == 0 ? "control" : "bulk", crypto_name(d.crypto_op));
  std::cout << fmt::format("{} of {} entries used\n", p.classifier->size(), s.caps.cls_entries);
  return kOk;
}

struct ClsAddOptions {
  std::optional<std::uint32_t> vlan, vlan_mask, dscp, dscp_mask, proto_mask, port, port_mask;
  std::optional<std::string> proto;
  std::uint32_t tenant = 0;
  std::string cls = "bulk";
  std::string crypto = "none";
  std::optional<std::size_t> at;
};

int cmd_classifier_add(const Global& g, const ClsAddOptions& o) {
  host::ClassifierEntry e;
  auto field = [](const std::optional<std::uint32_t>& v, const std::optional<std::uint32_t>& m, std::uint32_t& value,
                  std::uint32_t& mask, std::uint32_t full) {
    if (v) {
      value = *v;
      mask = full;
    }
    if (m) mask = *m;
  };
  field(o.vlan, o.vlan_mask, e.vlan, e.vlan_mask, rm::CLS_VLAN::MASK.max());
  field(o.dscp, o.dscp_mask, e.dscp, e.dscp_mask, rm::CLS_DSCP_PROTO::DSCP_MASK.max());
  field(o.port, o.port_mask, e.port, e.port_mask, rm::CLS_PORT::MASK.max());
  std::optional<std::uint32_t> proto;
  if (o.proto) {
    if (*o.proto == "tcp") proto = 6;
    else if (*o.proto == "udp") proto = 17;
    else {
      try {
        std::size_t used = 0;
        proto = static_cast<std::uint32_t>(std::stoul(*o.proto, &used, 0));
        if (used != o.proto->size()) throw std::invalid_argument("trailing");
      } catch (const std::exception&) {
        throw host::PolicyError(fmt::format("--proto: '{}' is not tcp, udp or an IP protocol number", *o.proto),
                                "command line", 0, "--proto");
      }
    }
  }
  field(proto, o.proto_mask, e.proto, e.proto_mask, rm::CLS_DSCP_PROTO::PROTO_MASK.max());
  e.action.tenant = o.tenant;
  e.action.cls = o.cls == "control" ? 0 : 1;
  e.action.crypto_op = o.crypto == "encrypt" ? host::CryptoOp::kEncrypt
                       : o.crypto == "decrypt" ? host::CryptoOp::kDecrypt
                                               : host::CryptoOp::kNone;
  Session s = connect(g);
  host::Policy p = host::read_policy(*s.bus, s.caps);
  p.default_action.reset();
  auto& entries = *p.classifier;
  const std::size_t at = o.at.value_or(entries.size());
  if (at > entries.size()) {
    throw host::PolicyError(fmt::format("--at {}: the table has {} entries (allowed: 0..{})", at, entries.size(),
                                        entries.size()),
                            "command line", 0, "--at");
  }
  entries.insert(entries.begin() + static_cast<std::ptrdiff_t>(at), e);
  const host::ApplyResult r = host::apply_policy(*s.bus, s.caps, p);
  std::cout << fmt::format("classifier entry {} added: {} -> tenant {} {} {} (config generation {})\n", at,
                           match_text(e), e.action.tenant, o.cls, o.crypto, r.config_gen);
  return kOk;
}

int cmd_classifier_del(const Global& g, std::size_t index) {
  Session s = connect(g);
  host::Policy p = host::read_policy(*s.bus, s.caps);
  p.default_action.reset();
  auto& entries = *p.classifier;
  if (index >= entries.size()) {
    throw host::PolicyError(fmt::format("classifier del {}: no such entry (the table has {} entries)", index, entries.size()),
                            "command line", 0, "INDEX");
  }
  entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(index));
  const host::ApplyResult r = host::apply_policy(*s.bus, s.caps, p);
  std::cout << fmt::format("classifier entry {} deleted (config generation {})\n", index, r.config_gen);
  return kOk;
}

// ------------------------------------------------------------------ registers

int cmd_dump_regs(const Global& g, bool snapshot_first) {
  Session s = connect(g);
  if (snapshot_first) s.bus->write32(rm::SNAPSHOT::kOffset, rm::SNAPSHOT::GO.set(0, 1));
  for (const rm::RegisterInfo& reg : rm::kRegisters) {
    const std::uint32_t n = host::instance_count(reg, s.caps);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::string name = reg.is_array() ? fmt::format("{}[{}]", reg.name, i) : std::string(reg.name);
      const std::uint32_t addr = reg.address(i);
      if (!reg.readable()) {
        std::cout << fmt::format("0x{:04x}  {:<22} (write-only)\n", addr, name);
        continue;
      }
      if (reg.width == 64) {
        const std::uint64_t v = s.bus->read64(addr);
        std::cout << fmt::format("0x{:04x}  {:<22} 0x{:016x}  {}\n", addr, name, v, v);
      } else {
        const std::uint32_t v = s.bus->read32(addr);
        std::cout << fmt::format("0x{:04x}  {:<22} 0x{:08x}          {}\n", addr, name, v, v);
      }
    }
  }
  return kOk;
}

int cmd_reset_counters(const Global& g) {
  Session s = connect(g);
  s.bus->write32(rm::COUNTER_CLEAR::kOffset, rm::COUNTER_CLEAR::GO.set(0, 1));
  std::cout << fmt::format("{}: telemetry counters cleared\n", s.bus->describe());
  return kOk;
}

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_default_logger(spdlog::stderr_color_mt("nicctl"));
  spdlog::set_level(spdlog::level::warn);

  CLI::App app{"nicctl: operate a nicsched NIC (card or simulator): telemetry, policies, classifier"};
  app.set_version_flag("--version", std::string(nicsched::kVersion));
  app.require_subcommand(1);
  Global g;
  app.add_option("-t,--target", g.target,
                 "sim://HOST:PORT, unix:///PATH, pcie://DDDD:BB:DD.F/barN or xdma:///dev/xdmaN_user")
      ->envname("NICSCHED_TARGET");
  app.add_option("--timeout-ms", g.timeout_ms, "Socket transports: time limit per request")
      ->check(CLI::Range(1, 3600000))
      ->capture_default_str();
  app.add_option("--clock-mhz", g.clock_mhz, "NIC clock, for Gbit/s and ms figures")
      ->check(CLI::Range(1.0, 10000.0))
      ->capture_default_str();
  app.add_flag("-v,--verbose", g.verbose, "More log output on stderr (-vv: debug)");

  bool info_json = false;
  auto* info = app.add_subcommand("info", "Hardware identity, capabilities, commit count and clock");
  info->add_flag("--json", info_json, "JSON output");

  StatsOptions so;
  auto* stats = app.add_subcommand("stats", "Per-tenant telemetry from one consistent snapshot, with rates");
  stats->add_flag("--json", so.json, "JSON output (with --watch: one object per line)");
  stats->add_flag("-w,--watch", so.watch, "Refresh in place every interval until Ctrl-C");
  stats->add_option("-i,--interval", so.interval_s, "Seconds between the two snapshots (0: counters only, no rates)")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  stats->add_option("--step", so.step_cycles,
                    "Lock-step simulator: advance the clock by this many cycles between snapshots instead of waiting");
  stats->add_option("-n,--count", so.count, "With --watch: stop after this many refreshes (0: until Ctrl-C)")
      ->check(CLI::NonNegativeNumber);

  std::string policy_file;
  bool dry_run = false;
  auto* load = app.add_subcommand("load-policy", "Validate a policy file in full, then write and COMMIT it at once");
  load->add_option("FILE", policy_file, "Policy YAML (docs/policy.md)")->required();
  load->add_flag("--dry-run", dry_run, "Validate against the NIC's capabilities only; write nothing");

  std::string policy_out;
  auto* get = app.add_subcommand("get-policy", "Print the NIC's configuration as a policy file load-policy accepts");
  get->add_option("-o,--output", policy_out, "Write to this file instead of stdout");

  SetOptions set_o;
  auto* set = app.add_subcommand("set", "Change one tenant's settings (read, modify, validate, COMMIT)");
  set->add_option("TENANT", set_o.tenant, "Tenant index")->required();
  set->add_option("--priority", set_o.priority, "Strict-priority level, 0 highest");
  set->add_option("--weight", set_o.weight, "DWRR quantum in bytes");
  set->add_option("--rate", set_o.rate, "Rate limit, e.g. 25Gbps, 800Mbit/s, or off");
  set->add_option("--burst", set_o.burst, "Token-bucket depth, e.g. 64KiB");
  set->add_option("--crypto-quota", set_o.crypto_quota, "Crypto slots the tenant may hold at once");
  set->add_option("--qlimit-control", set_o.qlimit_control, "Control-queue byte limit, e.g. 16KiB");
  set->add_option("--qlimit-bulk", set_o.qlimit_bulk, "Bulk-queue byte limit, e.g. 256KiB");
  set->add_flag("--enable", set_o.enable, "Serve the tenant's queues");
  set->add_flag("--disable", set_o.disable, "Stop serving the tenant's queues (frames queue, then tail-drop)");

  auto* cls = app.add_subcommand("classifier", "The classifier match table");
  cls->require_subcommand(1);
  bool cls_json = false;
  auto* cls_list = cls->add_subcommand("list", "Show the valid entries in match order and the default action");
  cls_list->add_flag("--json", cls_json, "JSON output");
  ClsAddOptions ca;
  auto* cls_add = cls->add_subcommand("add", "Add an entry (fields not given match anything)");
  cls_add->add_option("--vlan", ca.vlan, "VLAN ID (0: untagged)");
  cls_add->add_option("--vlan-mask", ca.vlan_mask, "VLAN bits that must match (default: all when --vlan is given)");
  cls_add->add_option("--dscp", ca.dscp, "DSCP");
  cls_add->add_option("--dscp-mask", ca.dscp_mask, "DSCP mask");
  cls_add->add_option("--proto", ca.proto, "IP protocol: tcp, udp or a number");
  cls_add->add_option("--proto-mask", ca.proto_mask, "Protocol mask");
  cls_add->add_option("--port", ca.port, "L4 destination port");
  cls_add->add_option("--port-mask", ca.port_mask, "Port mask");
  cls_add->add_option("--tenant", ca.tenant, "Tenant the frames go to")->required();
  cls_add->add_option("--class", ca.cls, "control or bulk")->check(CLI::IsMember({"control", "bulk"}))->capture_default_str();
  cls_add->add_option("--crypto", ca.crypto, "none, encrypt or decrypt")
      ->check(CLI::IsMember({"none", "encrypt", "decrypt"}))
      ->capture_default_str();
  cls_add->add_option("--at", ca.at, "Insert at this index (default: append; earlier entries win)");
  std::size_t del_index = 0;
  auto* cls_del = cls->add_subcommand("del", "Delete an entry (by the index `classifier list` shows)");
  cls_del->add_option("INDEX", del_index, "Entry index")->required();

  bool dump_snapshot = false;
  auto* dump = app.add_subcommand("dump-regs", "Every readable register of the map, with address and value");
  dump->add_flag("--snapshot", dump_snapshot, "Write SNAPSHOT first, so counters are current");

  auto* reset = app.add_subcommand("reset-counters", "Zero every telemetry counter (COUNTER_CLEAR)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kOk : kUsage;
  }
  if (g.verbose == 1) spdlog::set_level(spdlog::level::info);
  if (g.verbose >= 2) spdlog::set_level(spdlog::level::debug);

  try {
    if (info->parsed()) return cmd_info(g, info_json);
    if (stats->parsed()) return cmd_stats(g, so);
    if (load->parsed()) return cmd_load_policy(g, policy_file, dry_run);
    if (get->parsed()) return cmd_get_policy(g, policy_out);
    if (set->parsed()) return cmd_set(g, set_o);
    if (cls_list->parsed()) return cmd_classifier_list(g, cls_json);
    if (cls_add->parsed()) return cmd_classifier_add(g, ca);
    if (cls_del->parsed()) return cmd_classifier_del(g, del_index);
    if (dump->parsed()) return cmd_dump_regs(g, dump_snapshot);
    if (reset->parsed()) return cmd_reset_counters(g);
  } catch (const UsageError& e) {
    std::cerr << "nicctl: " << e.what() << "\n";
    return kUsage;
  } catch (const drivers::UriError& e) {
    std::cerr << "nicctl: bad target: " << e.what() << "\n";
    return kUsage;
  } catch (const host::PolicyError& e) {
    std::cerr << "nicctl: invalid policy (nothing written): " << e.what() << "\n";
    return kInvalidInput;
  } catch (const host::ReadBackMismatch& e) {
    std::cerr << "nicctl: " << e.what() << "\n";
    return kReadBack;
  } catch (const host::IncompatibleHardware& e) {
    std::cerr << "nicctl: " << e.what() << "\n";
    return kRefused;
  } catch (const drivers::BusResponseError& e) {
    std::cerr << "nicctl: the NIC refused an access: " << e.what() << "\n";
    return kRefused;
  } catch (const drivers::BusError& e) {
    std::cerr << "nicctl: " << e.what() << "\n";
    return kUnreachable;
  } catch (const host::HostError& e) {
    std::cerr << "nicctl: " << e.what() << "\n";
    return kInvalidInput;
  } catch (const std::exception& e) {
    std::cerr << "nicctl: internal error: " << e.what() << "\n";
    return kInternal;
  }
  return kUsage;
}
