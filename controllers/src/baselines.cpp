// The baseline controllers (controller.hpp lists them) and the factory that names them.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

#include "nicsched/clone_ptr.hpp"
#include "nicsched/control/controller.hpp"
#include "nicsched/control/error.hpp"
#include "nicsched/control/guard.hpp"
#include "nicsched/control/selector.hpp"
#include "nicsched/host/policy.hpp"

namespace nicsched::control {
namespace {

// Every baseline starts from the base policy with all tenants equal: one level, the
// base quantum, all crypto slots available; then sets what it controls.
host::Policy equal_policy(const TelemetryTracker& tr, const host::Policy& base, host::ArbMode mode) {
  host::Policy p = base;
  p.arb_mode = mode;
  p.tenants.resize(tr.caps().tenants);
  for (auto& t : p.tenants) {
    t.priority = 0;
    t.weight = kBaseQuantum;
    t.crypto_quota = tr.caps().crypto_slots;
  }
  return p;
}

class Fifo final : public Controller {
 public:
  [[nodiscard]] std::unique_ptr<Controller> clone() const override { return std::make_unique<Fifo>(*this); }
  [[nodiscard]] std::string name() const override { return "fifo"; }
  host::Policy decide(const TelemetryTracker& tr, const host::Policy& base) override {
    return equal_policy(tr, base, host::ArbMode::kFifo);
  }
};

class Fair final : public Controller {
 public:
  [[nodiscard]] std::unique_ptr<Controller> clone() const override { return std::make_unique<Fair>(*this); }
  [[nodiscard]] std::string name() const override { return "fair"; }
  host::Policy decide(const TelemetryTracker& tr, const host::Policy& base) override {
    return equal_policy(tr, base, host::ArbMode::kDwrr);
  }
};

class StaticPriority final : public Controller {
 public:
  [[nodiscard]] std::unique_ptr<Controller> clone() const override { return std::make_unique<StaticPriority>(*this); }
  explicit StaticPriority(std::vector<std::uint32_t> levels) : levels_(std::move(levels)) {}
  [[nodiscard]] std::string name() const override { return "sp"; }
  host::Policy decide(const TelemetryTracker& tr, const host::Policy& base) override {
    auto p = equal_policy(tr, base, host::ArbMode::kSpDwrr);
    const std::uint32_t lowest = tr.caps().prio_levels - 1;
    for (std::size_t t = 0; t < p.tenants.size(); ++t) {
      const auto want = t < levels_.size() ? levels_[t] : static_cast<std::uint32_t>(t);
      p.tenants[t].priority = std::min(want, lowest);
    }
    return p;
  }

 private:
  std::vector<std::uint32_t> levels_;
};

// Priority from a per-tenant key (lower key = higher priority; < 0 = not ranked).
class Ranked final : public Controller {
 public:
  [[nodiscard]] std::unique_ptr<Controller> clone() const override { return std::make_unique<Ranked>(*this); }
  enum class Key : std::uint8_t { kBurstStart, kAttained, kRemaining };
  Ranked(std::string name, Key key) : name_(std::move(name)), key_(key) {}
  [[nodiscard]] std::string name() const override { return name_; }
  host::Policy decide(const TelemetryTracker& tr, const host::Policy& base) override {
    auto p = equal_policy(tr, base, host::ArbMode::kSpDwrr);
    std::vector<double> key(p.tenants.size(), -1.0);
    const double level_bytes = tr.link_bytes_per_cycle() * static_cast<double>(tr.interval_cycles());
    std::vector<std::uint32_t> las_level(p.tenants.size(), 0);
    for (std::size_t t = 0; t < p.tenants.size(); ++t) {
      const auto& s = tr.tenants()[t];
      if (!s.in_burst) continue;
      switch (key_) {
        case Key::kBurstStart:
          key[t] = static_cast<double>(s.burst_start_cycle);
          break;
        case Key::kAttained: {
          // Multi-level feedback: level k once the burst has sent more than
          // 4^k intervals' worth of line-rate bytes (k = 0 for a fresh burst).
          double threshold = level_bytes;
          std::uint32_t level = 0;
          while (level + 1 < tr.caps().prio_levels - 1 && s.burst_bytes > threshold) {
            ++level;
            threshold *= 4.0;
          }
          las_level[t] = level;
          key[t] = level;
          break;
        }
        case Key::kRemaining:
          key[t] = s.remaining_burst_bytes();
          break;
      }
    }
    if (key_ == Key::kAttained) {
      const std::uint32_t lowest = tr.caps().prio_levels - 1;
      for (std::size_t t = 0; t < p.tenants.size(); ++t) {
        p.tenants[t].priority = key[t] < 0 ? lowest : las_level[t];
      }
      return p;
    }
    const auto levels = rank_to_levels(key, tr.caps().prio_levels);
    for (std::size_t t = 0; t < p.tenants.size(); ++t) p.tenants[t].priority = levels[t];
    return p;
  }

 private:
  std::string name_;
  Key key_;
};

class CryptoSplit final : public Controller {
 public:
  [[nodiscard]] std::unique_ptr<Controller> clone() const override { return std::make_unique<CryptoSplit>(*this); }
  explicit CryptoSplit(bool proportional) : proportional_(proportional) {}
  [[nodiscard]] std::string name() const override { return proportional_ ? "crypto-prop" : "crypto-equal"; }
  host::Policy decide(const TelemetryTracker& tr, const host::Policy& base) override {
    auto p = equal_policy(tr, base, host::ArbMode::kDwrr);
    const auto slots = tr.caps().crypto_slots;
    std::vector<double> demand(p.tenants.size(), 0.0);
    for (std::size_t t = 0; t < demand.size(); ++t) {
      // Crypto users: tenants that kept a slot busy or waited for one.
      demand[t] = tr.tenants()[t].crypto_demand;
    }
    const auto users = static_cast<std::uint32_t>(
        std::count_if(demand.begin(), demand.end(), [](double d) { return d > 0.0; }));
    if (users == 0) return p;
    const double total = std::accumulate(demand.begin(), demand.end(), 0.0);
    for (std::size_t t = 0; t < demand.size(); ++t) {
      if (demand[t] <= 0.0) continue;  // non-users keep the full pool: they use none of it
      const double share = proportional_ ? demand[t] / total : 1.0 / users;
      p.tenants[t].crypto_quota =
          std::clamp<std::uint32_t>(static_cast<std::uint32_t>(std::lround(share * slots)), 1, slots);
    }
    return p;
  }

 private:
  bool proportional_;
};

// A baseline with the starvation guard over its decisions (make_baseline("NAME+guard[N]")).
class Guarded final : public Controller {
 public:
  [[nodiscard]] std::unique_ptr<Controller> clone() const override { return std::make_unique<Guarded>(*this); }
  Guarded(std::string name, std::unique_ptr<Controller> inner, GuardConfig cfg)
      : name_(std::move(name)), inner_(std::move(inner)), guard_(cfg) {}
  [[nodiscard]] std::string name() const override { return name_; }
  void reset() override {
    inner_->reset();
    guard_.reset();
  }
  host::Policy decide(const TelemetryTracker& tr, const host::Policy& base) override {
    auto p = inner_->decide(tr, base);
    guard_.apply(tr, p);
    return p;
  }

 private:
  std::string name_;
  ClonePtr<Controller> inner_;  // a copy of the wrapper copies the baseline inside it
  StarvationGuard guard_;
};

}  // namespace

std::vector<std::uint32_t> rank_to_levels(const std::vector<double>& key, std::uint32_t levels) {
  const std::uint32_t lowest = levels == 0 ? 0 : levels - 1;
  std::vector<std::size_t> order;
  for (std::size_t t = 0; t < key.size(); ++t) {
    if (key[t] >= 0.0) order.push_back(t);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
  std::vector<std::uint32_t> out(key.size(), lowest);
  const std::uint32_t top_levels = lowest == 0 ? 0 : lowest - 1;  // the lowest stays for idle tenants
  for (std::size_t r = 0; r < order.size(); ++r) {
    out[order[r]] = std::min(static_cast<std::uint32_t>(r), top_levels);
  }
  return out;
}

const std::vector<std::string>& baseline_names() {
  static const std::vector<std::string> names = {"fifo",     "fair",         "sp",
                                                 "stagger",  "las",          "progress",
                                                 "crypto-equal", "crypto-prop", "progress+guard",
                                                 "select"};
  return names;
}

const std::vector<std::string>& static_baseline_names() {
  static const std::vector<std::string> names(baseline_names().begin(), baseline_names().begin() + 3);  // fifo, fair, sp
  return names;
}

bool is_static_baseline(const std::string& name) {
  const auto& names = static_baseline_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

host::Policy read_controller_base(drivers::RegisterBus& bus, const host::Capabilities& caps) {
  host::Policy base = host::read_policy(bus, caps);
  base.classifier.reset();
  base.default_action.reset();
  return base;
}

std::unique_ptr<Controller> make_baseline(const std::string& name, std::vector<std::uint32_t> sp_levels) {
  if (is_selector_name(name)) return make_selector(name, sp_levels);  // before NAME+guard: its list may hold some
  if (const auto plus = name.find("+guard"); plus != std::string::npos) {
    const std::string n = name.substr(plus + 6);
    GuardConfig g{kDefaultGuardIntervals};
    if (!n.empty()) {
      const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), g.intervals);
      if (n.size() > 6 || ec != std::errc{} || end != n.data() + n.size() || g.intervals == 0) {
        throw EnvError("baseline '" + name + "': the guard's interval count must be 1..999999, not '" + n + "'");
      }
    }
    return std::make_unique<Guarded>(name, make_baseline(name.substr(0, plus), std::move(sp_levels)), g);
  }
  if (name == "fifo") return std::make_unique<Fifo>();
  if (name == "fair") return std::make_unique<Fair>();
  if (name == "sp") return std::make_unique<StaticPriority>(std::move(sp_levels));
  if (name == "stagger") return std::make_unique<Ranked>("stagger", Ranked::Key::kBurstStart);
  if (name == "las") return std::make_unique<Ranked>("las", Ranked::Key::kAttained);
  if (name == "progress") return std::make_unique<Ranked>("progress", Ranked::Key::kRemaining);
  if (name == "crypto-equal") return std::make_unique<CryptoSplit>(false);
  if (name == "crypto-prop") return std::make_unique<CryptoSplit>(true);
  std::string known;
  for (const auto& n : baseline_names()) known += (known.empty() ? "" : ", ") + n;
  throw EnvError("unknown baseline '" + name + "' (known: " + known + ", each also as NAME+guard or NAME+guardN; select:A,B,... a selector over some)");
}

}  // namespace nicsched::control
