// The oracle: the best static configuration of a scenario, found offline by search with the
// simulator as the judge (docs/results.md, the oracle rows). It uses knowledge no online
// controller has (the whole future of the scenario, every seed it is judged on), so it
// is an upper bound for static policies, not a controller one could deploy.
//
// Search space: what one policy write sets and the agent's action space covers (priority,
// DWRR weight level, crypto quota per tenant; the arbitration mode); rate limits are left
// off, and start-phase offsets are not part of it because the hardware cannot express
// them (no register delays a tenant's traffic; a tenant's phase is its host's).
//
// Search (budget = number of judged configurations, each judged on all seeds by the
// caller's Judge):
//   1. the fixed candidates: FIFO first (so the oracle is never worse than FIFO under the
//      same judge), equal-weight DWRR (the `fair` baseline), the scenario's own priorities
//      where OracleSpace::sp_priority is given (the `sp` baseline: so the oracle is never
//      worse than any static baseline), and where OracleSpace::work is given two priority
//      orders: training tenants above the others, and smallest work per iteration first
//      (rank_to_levels; the others lowest);
//   2. random configurations, half of the remaining budget;
//   3. greedy local search from the best so far: one change at a time (the mode, one
//      tenant's priority / weight level / quota, or two tenants' priorities swapped),
//      kept when it judges better, until the budget is spent.
// Everything is drawn from std::mt19937_64 seeded by OracleBudget::seed: the same judge
// gives the same result.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "nicsched/control/controller.hpp"
#include "nicsched/host/types.hpp"

namespace nicsched::control {

// One static configuration: held for a whole run.
struct StaticConfig {
  host::ArbMode arb_mode = host::ArbMode::kFifo;
  std::vector<std::uint32_t> priority;      // per NIC tenant, 0 highest (SP_DWRR only)
  std::vector<std::uint32_t> weight_level;  // per NIC tenant: DWRR quantum kBaseQuantum << level
  std::vector<std::uint32_t> crypto_quota;  // per NIC tenant: slots at once, 1..crypto_slots
  bool operator==(const StaticConfig&) const = default;
};

// What may be searched on one scenario's NIC.
struct OracleSpace {
  std::uint32_t tenants = 0;            // NIC tenants (caps.tenants)
  std::uint32_t prio_levels = 4;        // caps.prio_levels
  std::uint32_t weight_levels = 4;      // quantum 1500 .. 1500 << (weight_levels - 1), as the agent's
  std::uint32_t crypto_slots = 4;       // caps.crypto_slots
  std::vector<std::uint32_t> active{};  // NIC tenants the scenario uses (others keep the defaults)
  std::vector<std::uint32_t> crypto{};  // of those, the ones whose traffic uses the crypto engine
  // Per NIC tenant: bytes per iteration / round of a training tenant, <= 0 for the others
  // (background, pcap, unused). Empty: no priority-order candidates.
  std::vector<double> work{};
  // Per NIC tenant: the `sp` baseline's levels (the scenario's priorities; values past the
  // lowest level are clamped to it). Empty: no such candidate.
  std::vector<std::uint32_t> sp_priority{};
};

// The `sp` baseline as a StaticConfig: SP_DWRR, base quantum, every slot, sp_priority clamped.
[[nodiscard]] StaticConfig sp_config(const OracleSpace& space);

// FIFO as a StaticConfig: what the `fifo` baseline writes (one level, base quantum, every slot).
[[nodiscard]] StaticConfig fifo_config(const OracleSpace& space);
// `base` with the configuration's mode and per-tenant settings (queue limits, rate limits and
// the classifier stay as in `base`).
[[nodiscard]] host::Policy to_policy(const StaticConfig& c, const host::Policy& base);
// One line: "fifo", or "dwrr w=[1,2,..] q=[..]" / "sp-dwrr p=[..] w=[..] q=[..]" over the
// active tenants.
[[nodiscard]] std::string describe(const StaticConfig& c, const OracleSpace& space);

// A Controller that writes one StaticConfig at every decision.
class StaticController final : public Controller {
 public:
  StaticController(StaticConfig config, std::string name) : config_(std::move(config)), name_(std::move(name)) {}
  [[nodiscard]] std::string name() const override { return name_; }
  host::Policy decide(const TelemetryTracker& tracker, const host::Policy& base) override;

 private:
  StaticConfig config_;
  std::string name_;
};

struct OracleBudget {
  std::uint32_t evaluations = 24;  // configurations judged, the fixed candidates included
  std::uint64_t seed = 1;          // of the random draws and moves
};

// Lower is better (e.g. mean normalised iteration time over seeds).
using Judge = std::function<double(const StaticConfig&)>;

struct OracleResult {
  StaticConfig best;
  double best_score = 0;
  double fifo_score = 0;           // the judge's value of fifo_config (candidate 0)
  std::uint32_t evaluations = 0;   // configurations judged
  std::uint32_t improvements = 0;  // times the best changed after FIFO
};

// Throws EnvError when the space is empty or inconsistent (a tenant index >= tenants).
[[nodiscard]] OracleResult search_oracle(const OracleSpace& space, const Judge& judge, const OracleBudget& budget);

}  // namespace nicsched::control
