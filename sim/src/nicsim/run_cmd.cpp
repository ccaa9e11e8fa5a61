// `nicsim run SCENARIO [--policy FILE | --baseline fifo|fair|sp|all]`: the scenario under
// each static baseline (or the policy), one table (or JSON) of the metrics.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "nicsched/control/controller.hpp"
#include "nicsched/sim/report.hpp"

namespace nicsched::nicsim_cli {
namespace {

class ProgressBar {
 public:
  explicit ProgressBar(bool on) : on_(on) {}
  void update(const std::string& label, double f) {
    if (!on_) return;
    const int width = 40;
    const int filled = static_cast<int>(f * width);
    std::fprintf(stderr, "\r%-10s [%s%s] %3d%%", label.c_str(), std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - filled), ' ').c_str(), static_cast<int>(f * 100));
    std::fflush(stderr);
  }
  void done() {
    if (on_) std::fprintf(stderr, "\r%70s\r", "");
  }

 private:
  bool on_;
};

}  // namespace

CLI::App* add_run_command(CLI::App& app, RunOptions& o) {
  CLI::App* run = app.add_subcommand("run", "Run a scenario and print its metrics");
  add_scenario_options(run, o.scenario);
  std::vector<std::string> choices = control::static_baseline_names();
  choices.emplace_back("all");
  run->add_option("--baseline", o.scenario.baseline, "Built-in static policy: fifo, fair, sp, or all (one run each)")
      ->check(CLI::IsMember(choices));
  run->add_flag("--json", o.json, "Print the metrics as JSON");
  run->add_option("--trace", o.trace, "Write an FST waveform of the whole run");
  run->add_option("--pcap-out", o.pcap_out, "Write the frames that leave on the wire (pcap)");
  run->add_option("--csv", o.csv, "Write the per-tenant progress time series (CSV)");
  return run;
}

int run(const RunOptions& o) {
  const ScenarioOptions& c = o.scenario;
  const sim::Scenario s = load_scenario(c);
  const bool tty = isatty(STDERR_FILENO) != 0 && !o.json;
  ProgressBar bar(tty);
  std::vector<std::string> baselines;
  if (c.policy.empty() && c.baseline == "all") {
    baselines = control::static_baseline_names();
  } else {
    baselines = {c.baseline};
  }
  bar.update("solo runs", 0.0);
  const auto solo = solo_baselines(c, s);
  std::vector<sim::RunMetrics> runs;
  std::uint64_t bad = 0;
  for (const auto& b : baselines) {
    sim::SimOptions so = sim_options(c, b);
    so.solo = solo;
    if (baselines.size() == 1) {
      so.trace = o.trace;
      so.pcap_out = o.pcap_out;
    }
    sim::Simulation simulation(s, so);
    simulation.run_to_end([&](double f) { bar.update(c.policy.empty() ? b : "policy", f); });
    runs.push_back(simulation.metrics());
    if (!o.csv.empty()) {
      const std::string file = baselines.size() == 1 ? o.csv : o.csv + "." + b + ".csv";
      sim::write_time_series(file, simulation.samples(), s);
    }
    bad += simulation.integrity_errors() + simulation.misattributed();
  }
  bar.done();
  if (o.json) {
    if (runs.size() == 1) {
      std::cout << sim::to_json(runs.front()) << "\n";
    } else {
      std::cout << "[";
      for (std::size_t i = 0; i < runs.size(); ++i) std::cout << (i ? "," : "") << sim::to_json(runs[i]);
      std::cout << "]\n";
    }
  } else if (runs.size() == 1) {
    sim::write_table(std::cout, runs.front());
  } else {
    sim::write_comparison(std::cout, runs);
  }
  if (bad != 0) {
    std::cerr << "nicsim: " << bad << " frame(s) left the NIC corrupted or attributed to the wrong tenant\n";
    return kIntegrity;
  }
  return kOk;
}

}  // namespace nicsched::nicsim_cli
