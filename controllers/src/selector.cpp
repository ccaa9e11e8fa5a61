// OnlineSelector (selector.hpp).
#include "nicsched/control/selector.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "nicsched/control/error.hpp"

namespace nicsched::control {
namespace {

constexpr const char* kSelect = "select";
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A bulk-active interval, as the tracker's burst detection counts one.
bool busy(const TenantState& s) { return s.in_burst || s.bytes > 0 || s.enq_bytes > 0 || s.bulk_depth_bytes > 0; }

// (c + d) / (c + d0): the iteration's time over its time with the link to itself.
double slowdown(double gap, double length, double bytes, double link_bytes_per_cycle) {
  const double alone = std::min(length, bytes / link_bytes_per_cycle);
  return gap + alone > 0 ? (gap + length) / (gap + alone) : kNaN;
}

}  // namespace

bool is_selector_name(const std::string& name) { return name == kSelect || name.rfind("select:", 0) == 0; }

std::unique_ptr<Controller> make_selector(const std::string& name, const std::vector<std::uint32_t>& sp_levels) {
  if (!is_selector_name(name)) throw EnvError("'" + name + "' is not a selector (select or select:A,B,...)");
  std::vector<std::string> list;
  if (name == kSelect) {
    list = kDefaultSelectCandidates;
  } else {
    const std::string rest = name.substr(std::string(kSelect).size() + 1);
    std::size_t from = 0;
    while (true) {
      const auto comma = rest.find(',', from);
      list.push_back(rest.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
  }
  return std::make_unique<OnlineSelector>(name, list, sp_levels);
}

OnlineSelector::OnlineSelector(std::string name, const std::vector<std::string>& candidates,
                               const std::vector<std::uint32_t>& sp_levels)
    : name_(std::move(name)), names_(candidates) {
  for (std::size_t i = 0; i < names_.size(); ++i) {
    const auto& c = names_[i];
    const std::string where = "baseline '" + name_ + "': candidate " + std::to_string(i + 1);
    if (c.empty()) throw EnvError(where + " is empty (give select:A,B,... with baseline names)");
    if (is_selector_name(c)) throw EnvError(where + " '" + c + "' is a selector itself");
    if (std::find(names_.begin(), names_.begin() + static_cast<std::ptrdiff_t>(i), c) !=
        names_.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw EnvError(where + " '" + c + "' is given twice");
    }
    try {
      arms_.add(make_baseline(c, sp_levels));
    } catch (const EnvError& e) {
      throw EnvError(where + ": " + e.what());
    }
  }
  reset();
}

void OnlineSelector::reset() {
  arms_.reset();
  st_ = State{};
  st_.arms.assign(arms_.size(), Arm{});
}

std::uint64_t OnlineSelector::dwell(const TelemetryTracker& tr) const {
  std::vector<double> periods;
  for (std::size_t t = 0; t < st_.tenants.size(); ++t) {
    if (st_.tenants[t].active && tr.tenants()[t].bursts >= 2) periods.push_back(tr.tenants()[t].period_cycles);
  }
  double period = 0;
  if (!periods.empty()) {  // the median (the upper one of an even count)
    std::nth_element(periods.begin(), periods.begin() + static_cast<std::ptrdiff_t>(periods.size() / 2), periods.end());
    period = periods[periods.size() / 2];
  }
  const double interval = static_cast<double>(std::max<std::uint64_t>(1, tr.interval_cycles()));
  const auto d = static_cast<std::uint64_t>(std::ceil(kDwellPeriods * period / interval));
  return std::clamp(d, kMinDwellIntervals, kMaxDwellIntervals);
}

void OnlineSelector::begin_trial(const TelemetryTracker& tr, std::uint32_t arm) {
  st_.arm = arm;
  st_.arms[arm].tried = true;
  st_.trials.push_back(Trial{arm, tr.now(), dwell(tr), kNaN});
  for (auto& t : st_.tenants) {
    t.sum = 0;
    t.samples = 0;
  }
}

void OnlineSelector::observe(const TelemetryTracker& tr) {
  const auto& ts = tr.tenants();
  st_.tenants.resize(ts.size());
  const std::uint64_t now = tr.now();
  const std::uint64_t interval = tr.interval_cycles();
  const std::uint64_t trial_start = st_.trials.empty() ? 0 : st_.trials.back().start_cycle;
  bool changed = false;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const auto& s = ts[i];
    auto& t = st_.tenants[i];
    if (busy(s)) {
      if (t.last_seen > 0) t.longest_quiet = std::max(t.longest_quiet, now - interval - std::min(now - interval, t.last_seen));
      t.last_seen = now;
    }
    if (t.in_burst && !s.in_burst) {
      // The burst ended during the last interval; its last active interval ended one before.
      const std::uint64_t end = now - std::min(now, interval);
      if (t.prev_end > 0 && s.burst_start_cycle >= trial_start && s.burst_start_cycle >= t.prev_end) {
        const double x = slowdown(static_cast<double>(s.burst_start_cycle - t.prev_end),
                                  static_cast<double>(end - std::min(end, s.burst_start_cycle)),
                                  s.last_burst_bytes, tr.link_bytes_per_cycle());
        if (!std::isnan(x)) {
          t.sum += x;
          ++t.samples;
        }
      }
      t.prev_end = end;
    }
    t.in_burst = s.in_burst;
    // Left: quiet for kLeavePeriods x the longer of its period and its longest quiet spell
    // so far; not before it has shown a period (an FL client's first training phase).
    const double quiet_limit =
        std::max(kLeavePeriods * std::max(s.period_cycles, static_cast<double>(t.longest_quiet)),
                 static_cast<double>(kLeaveMinIntervals * std::max<std::uint64_t>(1, interval)));
    const bool left = s.bursts >= 2 && static_cast<double>(now - std::min(now, t.last_seen)) > quiet_limit;
    const bool active = s.present && !left;
    if (active != t.active) changed = true;
    t.active = active;
  }
  if (changed && !st_.trials.empty()) {
    // Re-explore: drop the statistics and try every candidate again, the current one first.
    st_.resets.push_back(tr.now());
    st_.arms.assign(arms_.size(), Arm{});
    st_.trials.back().score = kNaN;
    begin_trial(tr, st_.arm);
  }
}

double OnlineSelector::close_trial(const TelemetryTracker& tr) {
  const auto& trial = st_.trials.back();
  const std::uint64_t now = tr.now();
  const std::uint64_t half = trial.dwell * std::max<std::uint64_t>(1, tr.interval_cycles()) / 2;
  double sum = 0;
  std::uint32_t tenants = 0;
  for (std::size_t i = 0; i < st_.tenants.size(); ++i) {
    const auto& t = st_.tenants[i];
    const auto& s = tr.tenants()[i];
    if (t.samples > 0) {
      sum += t.sum / t.samples;
      ++tenants;
    } else if (s.in_burst && t.prev_end > 0 && s.burst_start_cycle >= t.prev_end && now - s.burst_start_cycle >= half) {
      // A burst it could not finish: its time so far, a lower bound.
      const double x = slowdown(static_cast<double>(s.burst_start_cycle - t.prev_end),
                                static_cast<double>(now - s.burst_start_cycle), s.burst_bytes,
                                tr.link_bytes_per_cycle());
      if (!std::isnan(x)) {
        sum += x;
        ++tenants;
      }
    }
  }
  return tenants > 0 ? sum / tenants : kNaN;
}

std::uint32_t OnlineSelector::next_arm() const {
  const auto k = static_cast<std::uint32_t>(st_.arms.size());
  for (std::uint32_t a = 0; a < k; ++a) {
    if (!st_.arms[a].tried) return a;
  }
  std::uint32_t scored = 0;
  double total = 0, within = 0;
  std::uint32_t dof = 0;
  for (const auto& a : st_.arms) {
    if (a.n == 0) continue;
    scored += a.n;
    total += a.sum;
    within += a.sum_sq - a.sum * a.sum / a.n;
    dof += a.n - 1;
  }
  if (scored == 0) return st_.arm;  // nothing measurable (no periodic tenant): stay
  const double mean = total / scored;
  double sigma = dof > 0 ? std::sqrt(std::max(0.0, within) / dof) : kPriorNoise * mean;
  sigma = std::max(sigma, kMinNoise * mean);
  const double log_n = std::log(static_cast<double>(scored));
  std::uint32_t best = st_.arm;
  double best_index = std::numeric_limits<double>::infinity();
  for (std::uint32_t a = 0; a < k; ++a) {
    const auto& arm = st_.arms[a];
    if (arm.n == 0) continue;  // tried, nothing measured: not chosen on no evidence
    const double index = arm.sum / arm.n - kUcbScale * sigma * std::sqrt(log_n / arm.n);
    if (index < best_index) {
      best_index = index;
      best = a;
    }
  }
  return best;
}

host::Policy OnlineSelector::decide(const TelemetryTracker& tracker, const host::Policy& base) {
  observe(tracker);
  if (st_.trials.empty()) {
    begin_trial(tracker, 0);
  } else {
    auto& trial = st_.trials.back();
    const std::uint64_t interval = std::max<std::uint64_t>(1, tracker.interval_cycles());
    if (tracker.now() - trial.start_cycle >= trial.dwell * interval) {
      trial.score = close_trial(tracker);
      if (!std::isnan(trial.score)) {
        auto& arm = st_.arms[trial.arm];
        ++arm.n;
        arm.sum += trial.score;
        arm.sum_sq += trial.score * trial.score;
      }
      begin_trial(tracker, next_arm());
    }
  }
  arms_.decide_all(tracker, base);  // every candidate follows the run
  return arms_.decision(st_.arm);
}

}  // namespace nicsched::control
