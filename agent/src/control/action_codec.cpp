#include "nicsched/control/action_codec.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "nicsched/control/controller.hpp"
#include "nicsched/control/selector.hpp"

namespace nicsched::control {
namespace {

// The control burst of the "off" level: the smallest a policy may set (host policy
// validation: one minimum-size frame).
constexpr std::uint32_t kMinControlBurst = 64;

}  // namespace

ActionCodec::ActionCodec(const NicEnvConfig& cfg, const host::Capabilities& caps, double link_bytes_per_cycle)
    : cfg_(cfg), caps_(caps),
      link_bytes_per_cycle_(link_bytes_per_cycle > 0.0 ? link_bytes_per_cycle : std::max(1.0, static_cast<double>(caps.data_bytes))) {
  cfg_.validate();
}

ActionSpace ActionCodec::space() const {
  ActionSpace s;
  if (strategy_action()) {
    s.head_sizes.push_back(static_cast<int>(cfg_.strategies.size()));
    return s;
  }
  for (std::uint32_t t = 0; t < caps_.tenants; ++t) {
    s.head_sizes.push_back(static_cast<int>(cfg_.priority_levels));
    s.head_sizes.push_back(static_cast<int>(cfg_.weight_levels));
    s.head_sizes.push_back(static_cast<int>(cfg_.quota_levels));
    if (rate_head()) s.head_sizes.push_back(static_cast<int>(cfg_.rate_levels));
    if (control_head()) s.head_sizes.push_back(static_cast<int>(cfg_.control_levels));
  }
  return s;
}

std::uint32_t ActionCodec::rate_of_level(std::uint32_t k) const {
  const double per_kcycle = link_bytes_per_cycle_ * 1024.0 / std::ldexp(1.0, static_cast<int>(k));
  return static_cast<std::uint32_t>(std::clamp(std::lround(per_kcycle), 1L, 0xFFFFFFL));
}

ControlBucket ActionCodec::control_bucket_of_level(std::uint32_t k) {
  const host::TenantPolicy reset;  // the registers' reset values
  switch (k) {
    case 1: return {0, kMinControlBurst};
    case 2: return {reset.ctrl_rate_bytes_per_kcycle / 4, reset.ctrl_burst_bytes / 4};
    case 3: return {reset.ctrl_rate_bytes_per_kcycle * 4, reset.ctrl_burst_bytes * 4};
    default: throw EnvError("ActionCodec: control level " + std::to_string(k) + " is not 1 (off), 2 (low) or 3 (high)");
  }
}

std::uint32_t ActionCodec::control_level_of(const ControlBucket& b, std::uint32_t levels) {
  for (std::uint32_t k = 1; k < levels; ++k) {
    if (b == control_bucket_of_level(k)) return k;
  }
  return 0;
}

void ActionCodec::mask(const TelemetryTracker& tracker, std::span<std::uint8_t> out) const {
  if (strategy_action()) {
    if (out.size() != cfg_.strategies.size()) throw EnvError("ActionCodec::mask: wrong mask size");
    std::fill(out.begin(), out.end(), std::uint8_t{1});
    return;
  }
  const std::size_t per_tenant = logits_per_tenant();
  if (out.size() != per_tenant * caps_.tenants) throw EnvError("ActionCodec::mask: wrong mask size");
  for (std::uint32_t t = 0; t < caps_.tenants; ++t) {
    auto m = out.subspan(t * per_tenant, per_tenant);
    const bool present = tracker.tenants()[t].present;
    for (std::uint32_t i = 0; i < cfg_.priority_levels; ++i) {
      m[i] = (present ? i < caps_.prio_levels : i == 0) ? 1 : 0;
    }
    for (std::uint32_t i = 0; i < cfg_.weight_levels; ++i) {
      m[cfg_.priority_levels + i] = (present || i == 0) ? 1 : 0;
    }
    for (std::uint32_t i = 0; i < cfg_.quota_levels; ++i) {
      const bool fits = i + 1 <= std::max<std::uint32_t>(1, caps_.crypto_slots);
      m[cfg_.priority_levels + cfg_.weight_levels + i] = (present ? fits : i == 0) ? 1 : 0;
    }
    std::size_t base = cfg_.priority_levels + cfg_.weight_levels + cfg_.quota_levels;
    if (rate_head()) {
      for (std::uint32_t i = 0; i < cfg_.rate_levels; ++i) m[base + i] = (present || i == 0) ? 1 : 0;
      base += cfg_.rate_levels;
    }
    if (control_head()) {
      for (std::uint32_t i = 0; i < cfg_.control_levels; ++i) m[base + i] = (present || i == 0) ? 1 : 0;
    }
  }
}

host::Policy ActionCodec::decode(std::span<const int> action, const host::Policy& base) const {
  if (strategy_action()) throw EnvError("ActionCodec::decode: the strategy action is decided by StrategySet");
  const std::size_t per = heads_per_tenant();
  if (action.size() != per * caps_.tenants) {
    throw EnvError("ActionCodec::decode: expected " + std::to_string(per * caps_.tenants) +
                   " action indices, got " + std::to_string(action.size()));
  }
  host::Policy p = base;
  p.arb_mode = host::ArbMode::kSpDwrr;
  p.tenants.resize(caps_.tenants);
  for (std::uint32_t t = 0; t < caps_.tenants; ++t) {
    const auto a = action.subspan(t * per, per);
    const int prio = a[kPriorityHead];
    const int weight = a[kWeightHead];
    const int quota = a[kQuotaHead];
    const int rate = rate_head() ? a[kRateHead] : 0;
    const int control = control_head() ? a[control_head_index()] : 0;
    if (prio < 0 || prio >= static_cast<int>(cfg_.priority_levels) || weight < 0 ||
        weight >= static_cast<int>(cfg_.weight_levels) || quota < 0 ||
        quota >= static_cast<int>(cfg_.quota_levels) || rate < 0 || rate >= static_cast<int>(cfg_.rate_levels) ||
        control < 0 || control >= static_cast<int>(cfg_.control_levels)) {
      std::string values;
      for (const int v : a) values += (values.empty() ? "" : ", ") + std::to_string(v);
      throw EnvError("ActionCodec::decode: tenant " + std::to_string(t) + ": action (" + values + ") out of range");
    }
    auto& tp = p.tenants[t];
    tp.priority = std::min(static_cast<std::uint32_t>(prio), caps_.prio_levels - 1);
    tp.weight = kBaseQuantum << static_cast<unsigned>(weight);
    tp.crypto_quota = std::min(static_cast<std::uint32_t>(quota) + 1, std::max<std::uint32_t>(1, caps_.crypto_slots));
    if (rate > 0) {
      tp.rate_limited = true;
      tp.rate_bytes_per_kcycle = rate_of_level(static_cast<std::uint32_t>(rate));
    }
    if (control > 0) {
      const auto bucket = control_bucket_of_level(static_cast<std::uint32_t>(control));
      tp.ctrl_rate_bytes_per_kcycle = bucket.rate_bytes_per_kcycle;
      tp.ctrl_burst_bytes = bucket.burst_bytes;
    }
  }
  return p;
}

std::vector<int> ActionCodec::encode(const host::Policy& policy) const {
  if (strategy_action()) throw EnvError("ActionCodec::encode: the strategy action is encoded by StrategySet::index_of");
  const std::size_t per = heads_per_tenant();
  std::vector<int> a(per * caps_.tenants, 0);
  for (std::uint32_t t = 0; t < caps_.tenants && t < policy.tenants.size(); ++t) {
    const auto& tp = policy.tenants[t];
    const std::span<int> at(a.data() + t * per, per);
    at[kPriorityHead] = static_cast<int>(std::min(tp.priority, cfg_.priority_levels - 1));
    int w = 0;
    while (w + 1 < static_cast<int>(cfg_.weight_levels) && (kBaseQuantum << static_cast<unsigned>(w + 1)) <= tp.weight) ++w;
    at[kWeightHead] = w;
    at[kQuotaHead] = static_cast<int>(std::clamp<std::uint32_t>(tp.crypto_quota, 1, cfg_.quota_levels) - 1);
    if (rate_head() && tp.rate_limited && tp.rate_bytes_per_kcycle > 0) {
      // The nearest level (in log2) to the limit; unlimited stays 0 (the scenario's setting).
      const double k = std::log2(link_bytes_per_cycle_ * 1024.0 / tp.rate_bytes_per_kcycle);
      at[kRateHead] = static_cast<int>(std::clamp(std::lround(k), 1L, static_cast<long>(cfg_.rate_levels) - 1));
    }
    if (control_head()) {  // a bucket that is one of the levels' exactly; any other stays 0 (the scenario's)
      at[control_head_index()] = static_cast<int>(
          control_level_of({tp.ctrl_rate_bytes_per_kcycle, tp.ctrl_burst_bytes}, cfg_.control_levels));
    }
  }
  return a;
}

StrategySet::StrategySet(const std::vector<std::string>& names, std::uint32_t hold) : names_(names), hold_(hold) {
  if (hold_ == 0) throw EnvError("StrategySet: the hold must be at least 1 decision");
  for (std::size_t i = 0; i < names_.size(); ++i) {
    try {
      panel_.add(make_baseline(names_[i]));
    } catch (const EnvError& e) {
      throw EnvError("strategy " + std::to_string(i + 1) + ": " + e.what());
    }
  }
}

void StrategySet::reset() {
  panel_.reset();
  decisions_ = 0;
  in_charge_ = 0;
}

void StrategySet::decide_all(const TelemetryTracker& tracker, const host::Policy& base) {
  panel_.decide_all(tracker, base);
}

const host::Policy& StrategySet::decision(int k) const {
  if (k < 0) throw EnvError("StrategySet: strategy " + std::to_string(k) + " out of range");
  return panel_.decision(static_cast<std::size_t>(k));
}

const host::Policy& StrategySet::commit(int proposed) {
  if (proposed < 0 || static_cast<std::size_t>(proposed) >= names_.size()) {
    throw EnvError("StrategySet: strategy " + std::to_string(proposed) + " out of range");
  }
  if (decisions_++ % hold_ == 0) in_charge_ = proposed;
  return decision(in_charge_);
}

std::optional<std::uint32_t> StrategySet::index_of(const Controller& teacher) const {
  const auto* selector = dynamic_cast<const OnlineSelector*>(&teacher);
  const std::string name = selector ? selector->candidates()[selector->current()] : teacher.name();
  for (std::size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return static_cast<std::uint32_t>(i);
  }
  return std::nullopt;
}

}  // namespace nicsched::control
