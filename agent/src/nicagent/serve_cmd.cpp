// nicagent serve: the live control loop. Every interval: SNAPSHOT, decide, one COMMIT.
// Stops cleanly on SIGINT/SIGTERM; a lost connection is logged and the target reopened.
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>

#include "commands.hpp"
#include "nicsched/control/controller.hpp"
#include "nicsched/drivers/open_bus.hpp"
#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/host/telemetry.hpp"
#include "nicsched/ppo/ppo_controller.hpp"

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

}  // namespace

int serve(const ServeOptions& o) {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::unique_ptr<control::Controller> controller;
  if (!o.policy.empty()) {
    controller = std::make_unique<ppo::PpoController>(std::make_shared<const ppo::TrainedPolicy>(o.policy));
  } else {
    controller = control::make_baseline(o.baseline);
  }
  std::uint64_t decisions = 0;
  auto backoff = std::chrono::milliseconds(200);
  bool connected = false;  // the last attempt reached the target (for the log line)
  while (!g_stop.load()) {
    try {
      auto bus = drivers::open_bus(o.target);
      auto* clock = dynamic_cast<drivers::SimControl*>(bus.get());
      if (o.step_cycles > 0 && clock == nullptr) {
        throw std::runtime_error("--step-cycles needs a simulated target; " + o.target + " has no clock control");
      }
      const auto caps = host::discover(*bus);
      host::Policy base = host::read_policy(*bus, caps);
      base.classifier.reset();
      base.default_action.reset();
      // Link rate for link fractions: 100 GbE at the datapath's 250 MHz (50 bytes/cycle).
      control::TelemetryTracker tracker(caps, 50.0);
      tracker.reset(host::read_snapshot(*bus, caps));
      controller->reset();
      spdlog::info("serving {} on {} ({} tenants, {} priority levels, {} crypto slots)", controller->name(),
                   bus->describe(), caps.tenants, caps.prio_levels, caps.crypto_slots);
      backoff = std::chrono::milliseconds(200);
      connected = true;
      while (!g_stop.load()) {
        if (o.step_cycles > 0) {
          clock->step(o.step_cycles);
        } else {
          nap(std::chrono::duration<double, std::milli>(o.interval_ms));
          if (g_stop.load()) break;
        }
        tracker.update(host::read_snapshot(*bus, caps));
        const auto t0 = std::chrono::steady_clock::now();
        const auto policy = controller->decide(tracker, base);
        const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
        const auto applied = host::apply_policy(*bus, caps, policy);
        ++decisions;
        spdlog::info("decision {} at cycle {} (gen {}, {:.1f} us): {}", decisions, tracker.now(), applied.config_gen,
                     us, describe_decision(policy));
        if (o.max_decisions > 0 && decisions >= o.max_decisions) {
          g_stop.store(true);
        }
      }
    } catch (const drivers::UriError&) {
      throw;  // a wrong URI does not get better by retrying
    } catch (const drivers::BusError& e) {
      if (g_stop.load()) break;
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
  return 0;
}

}  // namespace nicsched::agent_cli
