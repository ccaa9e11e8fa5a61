// nicctl stats: per-tenant telemetry from one consistent snapshot, with rates; --watch.
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <iostream>
#include <thread>

#include "nicsched/drivers/sim_client.hpp"
#include "nicsched/host/telemetry.hpp"

#include "commands.hpp"

namespace nicsched::nicctl {

using json = nlohmann::json;

namespace {

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
  // SRC_SPOOF: TX frames from a bound source whose headers named another tenant (docs/trust.md)
  j["spoofed"] = t.spoofed;
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
  // Sources whose SRC_SPOOF counted frames (a line only when some did; docs/trust.md).
  std::string spoofs;
  for (std::size_t s = 0; s < t.spoofed.size(); ++s) {
    if (t.spoofed[s] != 0) spoofs += fmt::format(" {}:{}", s, t.spoofed[s]);
  }
  if (!spoofs.empty()) o += fmt::format("spoofed TX frames by source (SRC_SPOOF):{}\n", spoofs);
  return o;
}

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

}  // namespace

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

}  // namespace nicsched::nicctl
