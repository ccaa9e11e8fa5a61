// StarvationGuard (guard.hpp).
#include "nicsched/control/guard.hpp"

#include <algorithm>

#include "nicsched/control/error.hpp"

namespace nicsched::control {
namespace {

// Bulk bytes waiting at the end of the interval.
bool backlogged(const TenantState& t) { return t.present && t.bulk_depth_bytes > 0; }

}  // namespace

StarvationGuard::StarvationGuard(GuardConfig cfg) : cfg_(cfg) {
  if (!cfg_.valid_share()) {
    throw EnvError("starvation guard: share must be in (0, 1], not " + std::to_string(cfg_.share));
  }
}

void StarvationGuard::reset() {
  held_.clear();
  lifted_.clear();
  lifts_ = 0;
}

void StarvationGuard::apply(const TelemetryTracker& tracker, host::Policy& p) {
  if (!cfg_.on()) return;
  const auto& ts = tracker.tenants();
  held_.resize(ts.size(), 0);
  lifted_.resize(ts.size(), false);
  double backlog_bytes = 0;
  std::size_t queued = 0;
  for (const auto& t : ts) {
    if (backlogged(t)) {
      backlog_bytes += t.bytes;
      ++queued;
    }
  }
  const double floor = queued ? cfg_.share * backlog_bytes / static_cast<double>(queued) : 0.0;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    if (!backlogged(ts[i])) {
      held_[i] = 0;
      lifted_[i] = false;
      continue;
    }
    held_[i] = ts[i].bytes < floor ? held_[i] + 1 : 0;
    if (!lifted_[i] && held_[i] >= cfg_.intervals) {
      lifted_[i] = true;
      ++lifts_;
    }
  }
  const std::size_t n = std::min(p.tenants.size(), ts.size());
  std::uint32_t top_quantum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (p.tenants[i].priority == 0) top_quantum = std::max(top_quantum, p.tenants[i].weight);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!lifted_[i]) continue;
    p.tenants[i].priority = 0;
    p.tenants[i].weight = std::max(p.tenants[i].weight, top_quantum);
  }
}

}  // namespace nicsched::control
