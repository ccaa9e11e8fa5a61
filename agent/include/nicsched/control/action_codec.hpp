// ActionCodec: NicEnv's action (docs/agent.md, "Action"). The per-tenant action (`action:
// tenant`): heads (priority, weight level, quota[, rate][, control bucket]) per tenant,
// tenant after tenant, decoded into a host::Policy, encoded from one (behaviour cloning),
// and masked to what the NIC has. The strategy action (`action: strategy`): one head whose
// value k hands the interval's decision to the env config's strategies[k] (StrategySet).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <span>
#include <vector>

#include "nicsched/control/controller.hpp"
#include "nicsched/control/env.hpp"
#include "nicsched/control/env_config.hpp"
#include "nicsched/control/panel.hpp"
#include "nicsched/control/tracker.hpp"
#include "nicsched/host/types.hpp"

namespace nicsched::control {

// A control-bucket level's registers (T_CTRL_RATE.BYTES_PER_KCYCLE, T_CTRL_BURST.BYTES).
struct ControlBucket {
  std::uint32_t rate_bytes_per_kcycle = 0;
  std::uint32_t burst_bytes = 0;
  bool operator==(const ControlBucket&) const = default;
};

class ActionCodec {
 public:
  // link_bytes_per_cycle: the line rate the rate levels are fractions of (0: one
  // AXI4-Stream beat per cycle, CAPS data_bytes).
  ActionCodec(const NicEnvConfig& cfg, const host::Capabilities& caps, double link_bytes_per_cycle = 0.0);
  // The strategy action: one head of strategies.size() values, every value allowed.
  [[nodiscard]] bool strategy_action() const { return cfg_.action == ActionKind::kStrategy; }
  [[nodiscard]] ActionSpace space() const;
  // A tenant's heads, at these indices of its slice of the action; the control head, when
  // there, is the last (control_head_index()).
  enum Head : std::size_t {
    kPriorityHead,
    kWeightHead,
    kQuotaHead,
    kRateHead,  // with the rate head (NicEnvConfig::rate_levels > 1) only
  };
  // 3, plus one with the rate head (NicEnvConfig::rate_levels > 1), plus one with the
  // control head (control_levels > 1).
  [[nodiscard]] std::size_t heads_per_tenant() const {
    return std::size_t{kQuotaHead + 1} + (rate_head() ? 1U : 0U) + (control_head() ? 1U : 0U);
  }
  [[nodiscard]] std::size_t control_head_index() const { return heads_per_tenant() - 1; }
  [[nodiscard]] std::size_t logits_per_tenant() const {
    return cfg_.priority_levels + cfg_.weight_levels + cfg_.quota_levels + (rate_head() ? cfg_.rate_levels : 0) +
           (control_head() ? cfg_.control_levels : 0);
  }
  // T_RATE.BYTES_PER_KCYCLE of rate level k >= 1 (line rate / 2^k).
  [[nodiscard]] std::uint32_t rate_of_level(std::uint32_t k) const;
  // The control bucket of control level k = 1 (off), 2 (low), 3 (high); level 0 keeps the
  // scenario's. Relative to the registers' reset (256 bytes per 1024 cycles, 4096 bytes):
  // off = rate 0 and the smallest burst a policy may set (64 bytes: one minimum frame, then
  // the tenant's control frames compete at its own priority level); low = a quarter of
  // both; high = four times both (docs/agent.md, "Action").
  [[nodiscard]] static ControlBucket control_bucket_of_level(std::uint32_t k);
  // The level 1 .. levels-1 whose bucket `b` is exactly; 0 (the scenario's) for any other.
  [[nodiscard]] static std::uint32_t control_level_of(const ControlBucket& b, std::uint32_t levels);
  // Allowed values: priorities the NIC has, quotas up to its slots; absent tenants
  // are pinned to index 0 of every head. The strategy action: all.
  void mask(const TelemetryTracker& tracker, std::span<std::uint8_t> out) const;
  // The per-tenant action only (EnvError for the strategy action, whose decisions are
  // StrategySet's). The policy for an action: base with SP+DWRR and each tenant's values; level 0 of the
  // rate and control heads leaves the tenant's rate limit and control bucket as in base.
  [[nodiscard]] host::Policy decode(std::span<const int> action, const host::Policy& base) const;
  // The action that stands for a policy's tenant settings (nearest levels).
  [[nodiscard]] std::vector<int> encode(const host::Policy& policy) const;

 private:
  [[nodiscard]] bool rate_head() const { return cfg_.rate_levels > 1; }
  [[nodiscard]] bool control_head() const { return cfg_.control_levels > 1; }
  NicEnvConfig cfg_;
  host::Capabilities caps_;
  double link_bytes_per_cycle_ = 0.0;
};

// The strategy action's controllers (NicEnvConfig::strategies): a Panel (panel.hpp) of
// them by name. Every one decides every interval, as the online selector's candidates do;
// the chosen one's decision is committed. With a hold of h decisions
// (NicEnvConfig::strategy_hold) a choice is taken at decisions 0, h, 2h, ... and the chosen
// strategy stays in charge until the next. A copy copies every controller's state and the
// hold (NicEnv::fork).
class StrategySet {
 public:
  // EnvError naming the entry that is no controller.
  explicit StrategySet(const std::vector<std::string>& names, std::uint32_t hold = 1);
  [[nodiscard]] std::size_t size() const { return names_.size(); }
  [[nodiscard]] const std::vector<std::string>& names() const { return names_; }
  void reset();
  // Every strategy decides on the interval just observed.
  void decide_all(const TelemetryTracker& tracker, const host::Policy& base);
  // Strategy k's decision of the last decide_all(); EnvError for a k out of range or
  // before any decide_all().
  [[nodiscard]] const host::Policy& decision(int k) const;
  // The decision to commit when the policy proposes strategy `proposed` at this decision:
  // `proposed`'s when a hold period begins, else that of the strategy chosen at its start.
  // Call once per decision, after decide_all(); EnvError for a `proposed` out of range.
  [[nodiscard]] const host::Policy& commit(int proposed);
  // The index of the strategy a teacher's decision stands for: the arm an online
  // selector runs now, or the teacher's own name; none when it is no strategy.
  [[nodiscard]] std::optional<std::uint32_t> index_of(const Controller& teacher) const;

 private:
  std::vector<std::string> names_;
  Panel panel_;
  std::uint32_t hold_ = 1;
  std::uint64_t decisions_ = 0;  // commits since reset
  int in_charge_ = 0;            // the strategy chosen at the start of the hold period
};

}  // namespace nicsched::control
