// nicagent serve: the live control loop. Every interval: SNAPSHOT, decide, one COMMIT.
// Stops cleanly on SIGINT/SIGTERM; a lost connection is logged and the target reopened,
// up to --retries failed attempts in a row (then exit 3). Warns when the cycles between
// decisions, read from the NIC's cycle counter, are far from the policy's trained interval.
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <optional>
#include <csignal>
#include <deque>
#include <thread>

#include "commands.hpp"
#include "nicsched/control/controller.hpp"
#include "nicsched/control/nic_env.hpp"
#include "nicsched/control/thread_clock.hpp"
#include "nicsched/drivers/open_bus.hpp"
#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/host/telemetry.hpp"
#include "nicsched/ppo/policy.hpp"
#include "nicsched/ppo/ppo_controller.hpp"
#include "nicsched/sim/metrics.hpp"

namespace nicsched::agent_cli {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void on_signal(int /*sig*/) { g_stop.store(true); }

// Sleeps up to `d`, waking early on a stop request.
void nap(std::chrono::duration<double, std::milli> d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (!g_stop.load() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::min<std::chrono::duration<double, std::milli>>(
        std::chrono::milliseconds(20), until - std::chrono::steady_clock::now()));
  }
}

std::string describe_decision(const host::Policy& p) {
  std::string s;
  for (std::size_t t = 0; t < p.tenants.size(); ++t) {
    s += fmt::format("{}t{}:p{}/w{}/q{}", t ? " " : "", t, p.tenants[t].priority, p.tenants[t].weight,
                     p.tenants[t].crypto_quota);
  }
  return s;
}

// Compares the achieved control interval (NIC cycles from one decision's snapshot to the
// next, on the NIC's cycle counter) with the interval the policy was trained at, over
// windows of kWindow decisions; warns when a window's mean is off by more than the
// tolerance, and says when it is back within it. The loop's own register traffic
// (snapshot, commit, read-back) counts: on the Verilated NIC it takes ~2,250 cycles per
// decision for 8 tenants, on a card a few hundred microseconds.
class IntervalWatch {
 public:
  static constexpr std::uint64_t kWindow = 8;

  // step_cycles: what a lock-step loop advances the clock by per decision (0: free-running).
  IntervalWatch(std::uint64_t trained_cycles, double tolerance, std::uint64_t step_cycles)
      : trained_(trained_cycles), tolerance_(tolerance), step_(step_cycles) {}

  // A new connection (a new NIC, a new clock): start over.
  void restart() {
    last_snapshot_.reset();
    sum_ = 0;
    n_ = 0;
  }

  // A decision observed the snapshot taken at `snapshot_cycle`.
  void decision(std::uint64_t snapshot_cycle) {
    if (last_snapshot_ && snapshot_cycle > *last_snapshot_) {
      sum_ += snapshot_cycle - *last_snapshot_;
      ++n_;
    }
    last_snapshot_ = snapshot_cycle;
    if (n_ < kWindow) return;
    const double achieved = static_cast<double>(sum_) / static_cast<double>(n_);
    const double off = std::abs(achieved - static_cast<double>(trained_)) / static_cast<double>(trained_);
    sum_ = 0;
    n_ = 0;
    if (off > tolerance_ && !warned_) {
      std::string advice = "pace the loop with --interval-ms";
      if (step_ > 0) {
        const double traffic = std::max(0.0, achieved - static_cast<double>(step_));
        advice = static_cast<double>(trained_) > traffic
                     ? fmt::format("--step-cycles {:.0f} would match (the loop's register traffic takes {:.0f} cycles)",
                                   static_cast<double>(trained_) - traffic, traffic)
                     : fmt::format("the loop's register traffic alone takes {:.0f} cycles per decision", traffic);
      }
      spdlog::warn("achieved control interval {:.0f} cycles (NIC cycle counter, mean of the last {} decisions) differs "
                   "from the {} cycles the policy was trained at by {:.0f}% (tolerance {:.0f}%): its observations "
                   "span another time than in training; {}",
                   achieved, kWindow, trained_, off * 100, tolerance_ * 100, advice);
      warned_ = true;
    } else if (off <= tolerance_ && warned_) {
      spdlog::info("achieved control interval {:.0f} cycles is back within {:.0f}% of the trained {} cycles", achieved,
                   tolerance_ * 100, trained_);
      warned_ = false;
    }
  }

 private:
  std::uint64_t trained_;
  double tolerance_;
  std::uint64_t step_;
  std::optional<std::uint64_t> last_snapshot_;
  std::uint64_t sum_ = 0;
  std::uint64_t n_ = 0;
  bool warned_ = false;
};

// Wall and thread CPU time of the latest decisions (at most kKept: a loop may run for
// months), summarised as p50 / p99 when serve stops (docs/agent.md, "Figures").
class DecisionLatency {
 public:
  static constexpr std::size_t kKept = 100000;

  void add(double wall_us, double cpu_us) {
    if (wall_.size() == kKept) {
      wall_.pop_front();
      cpu_.pop_front();
    }
    wall_.push_back(wall_us);
    cpu_.push_back(cpu_us);
  }
  [[nodiscard]] std::string summary() const {
    const std::vector<double> wall(wall_.begin(), wall_.end()), cpu(cpu_.begin(), cpu_.end());
    auto pct = [](const std::vector<double>& v, double p) { return sim::percentile(v, p).value_or(NAN); };
    return fmt::format("latency of the last {} decisions: wall p50 {:.1f} us, p99 {:.1f} us; thread CPU "
                       "p50 {:.1f} us, p99 {:.1f} us",
                       wall.size(), pct(wall, 50), pct(wall, 99), pct(cpu, 50), pct(cpu, 99));
  }
  [[nodiscard]] bool empty() const { return wall_.empty(); }

 private:
  std::deque<double> wall_, cpu_;
};

}  // namespace

int serve(const ServeOptions& o) {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::unique_ptr<control::Controller> controller;
  std::unique_ptr<IntervalWatch> watch;  // with a policy only
  if (!o.policy.empty()) {
    auto policy = std::make_shared<const ppo::TrainedPolicy>(o.policy);
    const auto trained = control::parse_env_config(policy->env_yaml(), (o.policy / "policy.yaml").string());
    watch = std::make_unique<IntervalWatch>(trained.interval_cycles, o.interval_tolerance, o.step_cycles);
    controller = std::make_unique<ppo::PpoController>(std::move(policy));
  } else {
    controller = control::make_baseline(o.baseline);
  }
  std::uint64_t decisions = 0;
  DecisionLatency latency;
  auto backoff = std::chrono::milliseconds(200);
  bool connected = false;  // the last attempt reached the target (for the log line)
  std::uint32_t failures = 0;  // failed attempts in a row
  auto failing_since = std::chrono::steady_clock::now();
  while (!g_stop.load()) {
    try {
      auto bus = drivers::open_bus(o.target);
      auto* clock = dynamic_cast<drivers::SimControl*>(bus.get());
      if (o.step_cycles > 0 && clock == nullptr) {
        throw std::runtime_error("--step-cycles needs a simulated target; " + o.target + " has no clock control");
      }
      const auto caps = host::discover(*bus);
      const host::Policy base = control::read_controller_base(*bus, caps);
      // Link rate for link fractions: 100 GbE at the datapath's 250 MHz (50 bytes/cycle).
      control::TelemetryTracker tracker(caps, 50.0);
      tracker.reset(host::read_snapshot(*bus, caps));
      controller->reset();
      spdlog::info("serving {} on {} ({} tenants, {} priority levels, {} crypto slots)", controller->name(),
                   bus->describe(), caps.tenants, caps.prio_levels, caps.crypto_slots);
      backoff = std::chrono::milliseconds(200);
      connected = true;
      failures = 0;
      if (watch) watch->restart();
      while (!g_stop.load()) {
        if (o.step_cycles > 0) {
          clock->step(o.step_cycles);
        } else {
          nap(std::chrono::duration<double, std::milli>(o.interval_ms));
          if (g_stop.load()) break;
        }
        tracker.update(host::read_snapshot(*bus, caps));
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = control::thread_cpu_us();
        const auto policy = controller->decide(tracker, base);
        const double cpu_us = control::thread_cpu_us() - c0;
        const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
        latency.add(us, cpu_us);
        const auto applied = host::apply_policy(*bus, caps, policy);
        ++decisions;
        if (watch) watch->decision(tracker.now());
        spdlog::info("decision {} at cycle {} (gen {}, {:.1f} us, CPU {:.1f} us): {}", decisions, tracker.now(),
                     applied.config_gen, us, cpu_us, describe_decision(policy));
        if (o.max_decisions > 0 && decisions >= o.max_decisions) {
          g_stop.store(true);
        }
      }
    } catch (const drivers::UriError&) {
      throw;  // a wrong URI does not get better by retrying
    } catch (const drivers::BusError& e) {
      if (g_stop.load()) break;
      if (failures == 0) failing_since = std::chrono::steady_clock::now();
      if (++failures > o.retries) {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - failing_since).count();
        throw TargetUnreachable(fmt::format("cannot reach {} after {} attempts in {:.1f} s (last error: {}); "
                                            "--retries sets how many failed attempts in a row are allowed",
                                            o.target, failures, s, e.what()));
      }
      if (connected) {
        spdlog::warn("connection to {} lost ({}); reconnecting in {} ms", o.target, e.what(), backoff.count());
      } else {
        spdlog::warn("cannot reach {} ({}); retrying in {} ms", o.target, e.what(), backoff.count());
      }
      connected = false;
      nap(backoff);
      backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
    }
  }
  spdlog::info("stopped after {} decisions", decisions);
  if (!latency.empty()) spdlog::info("{}", latency.summary());
  return 0;
}

}  // namespace nicsched::agent_cli
