// What a test can observe of a Simulation run, for tests that compare two runs that must
// agree (a fork and its original, event-driven and per-cycle stepping).
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

#include "nicsched/drivers/register_bus.hpp"
#include "nicsched/regmap.hpp"
#include "nicsched/sim/simulation.hpp"

namespace nicsched::sim::test {

// Everything a run leaves that can be observed: the metrics JSON without its wall-clock
// fields, the progress series, the integrity counters, the MAC statistics and every
// readable register after a SNAPSHOT (the NIC's counters and configuration).
inline nlohmann::json observe(Simulation& sim) {
  nlohmann::json j = nlohmann::json::parse(sim.metrics_json());
  j.erase("wall_seconds");
  j.erase("cycles_per_second");
  nlohmann::json samples = nlohmann::json::array();
  for (const ProgressSample& s : sim.samples()) {
    samples.push_back({s.cycle, s.tenant, static_cast<int>(s.phase), s.completed, s.units, s.delivered_bytes,
                       s.wire_bytes_tx});
  }
  j["samples"] = std::move(samples);
  j["integrity"] = {sim.integrity_errors(), sim.misattributed(), sim.frames_checked()};
  const MacStats& mac = sim.nic().mac_stats();
  j["mac"] = {mac.wire_bytes_out_tx, mac.wire_bytes_in_rx, mac.frames_out[0], mac.frames_out[1], mac.frames_in[0],
              mac.frames_in[1], mac.paused_cycles};
  namespace rm = nicsched::regmap;
  sim.write32(rm::SNAPSHOT::kOffset, rm::SNAPSHOT::GO.set(0, 1));
  nlohmann::json regs = nlohmann::json::object();
  for (const auto& r : rm::kRegisters) {
    if (!r.readable()) continue;
    for (std::uint32_t i = 0; i < r.max_count; ++i) {
      for (std::uint32_t w = 0; w < r.width / 32; ++w) {
        const std::uint32_t addr = r.address(i) + 4 * w;
        try {
          regs[std::to_string(addr)] = sim.read32(addr);
        } catch (const drivers::BusResponseError&) {
          break;  // past the instance's count
        }
      }
    }
  }
  j["registers"] = std::move(regs);
  return j;
}

// Steps `sim` the way a controller does: intervals of `interval` cycles, each followed by a
// telemetry snapshot read over the bus (so register accesses interleave with the run).
inline void run_intervals(Simulation& sim, std::uint64_t until, std::uint64_t interval) {
  while (sim.cycle() < until) {
    sim.step(std::min(interval, until - sim.cycle()));
    namespace rm = nicsched::regmap;
    sim.write32(rm::SNAPSHOT::kOffset, rm::SNAPSHOT::GO.set(0, 1));
    (void)sim.read32(rm::CYCLE::kOffset);
  }
}

}  // namespace nicsched::sim::test
