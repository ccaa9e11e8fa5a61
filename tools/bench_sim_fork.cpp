// bench_sim_fork: the cost of forking a running simulation (tools/bench_sim_fork.sh writes
// the results into docs/simulation.md, "Forking a simulation").
//
//   bench_sim_fork FILE --cycles N --interval C --forks K [--controller NAME]
//
// Runs the scenario on the model backend under NAME (a ControlledRun, as a lookahead
// oracle would drive it) and forks it at K decisions spread evenly over the run. Per fork:
// the CPU time of ControlledRun::fork() (the simulation, tracker, controller and what the
// run recorded) and of Simulation::fork() alone, and the heap bytes the copy holds (glibc's
// bytes in use after the fork minus before, the copy alive: every container it copies). Also
// the CPU time of one control interval, the unit a lookahead horizon is made of. One line
// of `key value` pairs on stdout.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <vector>

#include "nicsched/control/controller.hpp"
#include "nicsched/control/sim_env.hpp"
#include "nicsched/control/thread_clock.hpp"
#include "nicsched/version.hpp"

namespace {

using namespace nicsched;

struct Cost {
  double us = 0;
  std::uint64_t bytes = 0;
};

// Heap bytes in use now (glibc's count of allocated chunks, their headers included).
std::uint64_t heap_in_use() { return mallinfo2().uordblks; }

// CPU time of f() and the heap bytes it leaves allocated (the copy it returns, still alive).
template <class F>
Cost measure(F&& f) {
  const std::uint64_t heap0 = heap_in_use();
  const double t0 = control::thread_cpu_us();
  f();
  const double us = control::thread_cpu_us() - t0;
  const std::uint64_t heap1 = heap_in_use();
  return {us, heap1 > heap0 ? heap1 - heap0 : 0};
}

struct Summary {
  double mean = 0, ci95 = 0, max = 0;
};

// Mean, the half-width of its normal-approximation 95 % interval, and the maximum.
Summary summarise(const std::vector<double>& v) {
  Summary s;
  if (v.empty()) return s;
  for (double x : v) s.mean += x;
  s.mean /= static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  if (v.size() > 1) s.ci95 = 1.96 * std::sqrt(ss / static_cast<double>(v.size() - 1) / static_cast<double>(v.size()));
  s.max = *std::max_element(v.begin(), v.end());
  return s;
}

int run(const std::string& file, std::uint64_t cycles, std::uint64_t interval, std::uint32_t forks,
        const std::string& controller, std::uint32_t repeats) {
  control::ScenarioEntry e;
  e.scenario = sim::load_scenario(file);
  e.scenario.backend = sim::NicBackend::kModel;
  e.solo.resize(e.scenario.tenants.size());
  e.cycles = cycles;
  control::ControlledRun run(e, 1, control::make_baseline(controller), interval);
  const std::uint64_t decisions = cycles / interval;
  std::vector<double> run_us, run_bytes, sim_us, sim_bytes;
  double step_us = 0;
  std::uint64_t steps = 0;
  for (std::uint32_t k = 1; k <= forks; ++k) {
    const std::uint64_t at = decisions * k / (forks + 1);
    while (steps < at) {
      const double t0 = control::thread_cpu_us();
      if (!run.step()) break;
      step_us += control::thread_cpu_us() - t0;
      ++steps;
    }
    for (std::uint32_t r = 0; r < repeats; ++r) {  // the same state forked again: CPU-time noise
      {
        std::unique_ptr<control::ControlledRun> copy;
        const Cost c = measure([&] { copy = run.fork(); });
        run_us.push_back(c.us);
        run_bytes.push_back(static_cast<double>(c.bytes));
      }  // freed before the next fork, so each starts from the same heap
      std::unique_ptr<sim::Simulation> sim_copy;
      const Cost s = measure([&] { sim_copy = run.simulation().fork(); });
      sim_us.push_back(s.us);
      sim_bytes.push_back(static_cast<double>(s.bytes));
    }
  }
  const Summary ru = summarise(run_us), rb = summarise(run_bytes), su = summarise(sim_us), sb = summarise(sim_bytes);
  std::cout << fmt::format(
      "tenants {} scenario_tenants {} cycles {} interval {} forks {} fork_us {:.1f} fork_us_ci {:.1f} fork_us_max {:.1f} "
      "fork_bytes {:.0f} fork_bytes_max {:.0f} sim_fork_us {:.1f} sim_fork_us_ci {:.1f} sim_fork_bytes {:.0f} "
      "interval_us {:.1f}\n",
      e.scenario.nic_tenants, e.scenario.tenants.size(), cycles, interval, run_us.size(), ru.mean, ru.ci95, ru.max,
      rb.mean, rb.max, su.mean, su.ci95, sb.mean, steps == 0 ? 0.0 : step_us / static_cast<double>(steps));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_sim_fork: the cost of forking a running simulation"};
  app.set_version_flag("--version", std::string("bench_sim_fork ") + nicsched::kVersion);
  std::string file, controller = "progress+guard";
  std::uint64_t cycles = 1000000, interval = 2000;
  std::uint32_t forks = 20, repeats = 5;
  app.add_option("file", file, "scenario file")->required()->check(CLI::ExistingFile);
  app.add_option("--cycles", cycles, "run length")->check(CLI::Range(std::uint64_t{10000}, std::uint64_t{1} << 40));
  app.add_option("--interval", interval, "control interval (cycles)")->check(CLI::Range(100, 1000000));
  app.add_option("--forks", forks, "fork points, spread evenly over the run")->check(CLI::Range(1, 1000));
  app.add_option("--repeats", repeats, "forks of the same state at each point")->check(CLI::Range(1, 100));
  app.add_option("--controller", controller, "the baseline that drives the run");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    return run(file, cycles, interval, forks, controller, repeats);
  } catch (const std::exception& e) {
    std::cerr << "bench_sim_fork: " << e.what() << "\n";
    return 1;
  }
}
