// The oracle's search over static configurations (oracle.hpp).
#include "nicsched/control/oracle.hpp"

#include <algorithm>
#include <random>
#include <sstream>

#include "nicsched/control/error.hpp"

namespace nicsched::control {
namespace {

// Uniform integer in [0, n) from the generator's raw output (the same on every platform,
// unlike std::uniform_int_distribution).
std::uint32_t pick(std::mt19937_64& rng, std::uint32_t n) { return n <= 1 ? 0 : static_cast<std::uint32_t>(rng() % n); }

StaticConfig equal_config(const OracleSpace& s, host::ArbMode mode) {
  StaticConfig c;
  c.arb_mode = mode;
  c.priority.assign(s.tenants, 0);
  c.weight_level.assign(s.tenants, 0);
  c.crypto_quota.assign(s.tenants, std::max<std::uint32_t>(1, s.crypto_slots));
  return c;
}

StaticConfig random_config(const OracleSpace& s, std::mt19937_64& rng) {
  StaticConfig c = equal_config(s, pick(rng, 2) == 0 ? host::ArbMode::kDwrr : host::ArbMode::kSpDwrr);
  for (auto t : s.active) {
    c.priority[t] = pick(rng, s.prio_levels);
    c.weight_level[t] = pick(rng, s.weight_levels);
  }
  for (auto t : s.crypto) c.crypto_quota[t] = 1 + pick(rng, std::max<std::uint32_t>(1, s.crypto_slots));
  return c;
}

// One change to `c`: the mode, one tenant's priority / weight / quota, or two priorities swapped.
StaticConfig neighbour(const OracleSpace& s, StaticConfig c, std::mt19937_64& rng) {
  enum Move : std::uint32_t { kMode, kPriority, kWeight, kSwap, kQuota };
  // Quota moves only where a tenant uses the crypto engine.
  const auto move = static_cast<Move>(pick(rng, s.crypto.empty() ? 4 : 5));
  const auto t = s.active[pick(rng, static_cast<std::uint32_t>(s.active.size()))];
  switch (move) {
    case kMode:
      c.arb_mode = c.arb_mode == host::ArbMode::kSpDwrr ? host::ArbMode::kDwrr : host::ArbMode::kSpDwrr;
      break;
    case kPriority:
      c.arb_mode = host::ArbMode::kSpDwrr;
      c.priority[t] = pick(rng, s.prio_levels);
      break;
    case kWeight:
      if (c.arb_mode == host::ArbMode::kFifo) c.arb_mode = host::ArbMode::kDwrr;
      c.weight_level[t] = pick(rng, s.weight_levels);
      break;
    case kSwap: {
      c.arb_mode = host::ArbMode::kSpDwrr;
      const auto u = s.active[pick(rng, static_cast<std::uint32_t>(s.active.size()))];
      std::swap(c.priority[t], c.priority[u]);
      break;
    }
    case kQuota:
      c.crypto_quota[s.crypto[pick(rng, static_cast<std::uint32_t>(s.crypto.size()))]] =
          1 + pick(rng, std::max<std::uint32_t>(1, s.crypto_slots));
      break;
  }
  return c;
}

void list(std::ostringstream& o, const char* key, const std::vector<std::uint32_t>& v,
          const std::vector<std::uint32_t>& which) {
  o << ' ' << key << "=[";
  for (std::size_t i = 0; i < which.size(); ++i) o << (i ? "," : "") << v.at(which[i]);
  o << ']';
}

}  // namespace

StaticConfig fifo_config(const OracleSpace& space) { return equal_config(space, host::ArbMode::kFifo); }

StaticConfig sp_config(const OracleSpace& space) {
  StaticConfig c = equal_config(space, host::ArbMode::kSpDwrr);
  const std::uint32_t lowest = space.prio_levels - 1;
  for (std::size_t t = 0; t < c.priority.size() && t < space.sp_priority.size(); ++t) {
    c.priority[t] = std::min(space.sp_priority[t], lowest);
  }
  return c;
}

host::Policy to_policy(const StaticConfig& c, const host::Policy& base) {
  host::Policy p = base;
  p.arb_mode = c.arb_mode;
  p.tenants.resize(c.priority.size());
  for (std::size_t t = 0; t < p.tenants.size(); ++t) {
    p.tenants[t].priority = c.priority[t];
    p.tenants[t].weight = kBaseQuantum << c.weight_level[t];
    p.tenants[t].crypto_quota = c.crypto_quota[t];
  }
  return p;
}

std::string describe(const StaticConfig& c, const OracleSpace& space) {
  std::ostringstream o;
  if (c.arb_mode == host::ArbMode::kFifo) {
    o << "fifo";
  } else {
    o << (c.arb_mode == host::ArbMode::kDwrr ? "dwrr" : "sp-dwrr");
    if (c.arb_mode == host::ArbMode::kSpDwrr) list(o, "p", c.priority, space.active);
    list(o, "w", c.weight_level, space.active);
  }
  if (!space.crypto.empty()) list(o, "q", c.crypto_quota, space.crypto);
  return o.str();
}

host::Policy StaticController::decide(const TelemetryTracker& tracker, const host::Policy& base) {
  (void)tracker;
  return to_policy(config_, base);
}

OracleResult search_oracle(const OracleSpace& space, const Judge& judge, const OracleBudget& budget) {
  if (space.tenants == 0 || space.active.empty()) throw EnvError("oracle: no active tenant to configure");
  for (auto t : space.active) {
    if (t >= space.tenants) throw EnvError("oracle: active tenant " + std::to_string(t) + " >= NIC tenants");
  }
  for (auto t : space.crypto) {
    if (std::find(space.active.begin(), space.active.end(), t) == space.active.end()) {
      throw EnvError("oracle: crypto tenant " + std::to_string(t) + " is not active");
    }
  }
  if (space.prio_levels == 0 || space.weight_levels == 0) throw EnvError("oracle: no priority or weight level");
  std::mt19937_64 rng(budget.seed);
  std::vector<StaticConfig> judged;
  OracleResult r;
  // Judges `c` unless it was judged before (then nothing is spent).
  auto consider = [&](const StaticConfig& c) {
    if (std::find(judged.begin(), judged.end(), c) != judged.end()) return;
    judged.push_back(c);
    const double score = judge(c);
    ++r.evaluations;
    if (r.evaluations == 1) {
      r.best = c;
      r.best_score = score;
      r.fifo_score = score;
    } else if (score < r.best_score) {
      r.best = c;
      r.best_score = score;
      ++r.improvements;
    }
  };
  const std::uint32_t total = std::max<std::uint32_t>(1, budget.evaluations);
  std::vector<StaticConfig> fixed{fifo_config(space), equal_config(space, host::ArbMode::kDwrr)};
  if (!space.sp_priority.empty()) {
    if (space.sp_priority.size() != space.tenants) throw EnvError("oracle: sp_priority must name every NIC tenant");
    fixed.push_back(sp_config(space));
  }
  if (space.work.size() == space.tenants) {
    const std::uint32_t lowest = space.prio_levels - 1;
    StaticConfig training_first = equal_config(space, host::ArbMode::kSpDwrr);
    std::vector<double> key(space.tenants, -1.0);
    for (auto t : space.active) {
      training_first.priority[t] = space.work[t] > 0 ? 0 : lowest;
      if (space.work[t] > 0) key[t] = space.work[t];
    }
    StaticConfig smallest_first = equal_config(space, host::ArbMode::kSpDwrr);
    smallest_first.priority = rank_to_levels(key, space.prio_levels);
    fixed.push_back(training_first);
    fixed.push_back(smallest_first);
  }
  for (const auto& c : fixed) {
    if (r.evaluations < total) consider(c);
  }
  const std::uint32_t random_until = r.evaluations + (total - r.evaluations) / 2;
  // Draws that repeat a judged configuration cost nothing; the attempt limit ends the
  // search on spaces smaller than the budget.
  std::uint32_t attempts = 0;
  const std::uint32_t max_attempts = 50 * total;
  while (r.evaluations < random_until && attempts++ < max_attempts) consider(random_config(space, rng));
  while (r.evaluations < total && attempts++ < max_attempts) consider(neighbour(space, r.best, rng));
  return r;
}

}  // namespace nicsched::control
