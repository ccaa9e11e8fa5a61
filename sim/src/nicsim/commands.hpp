// nicsim subcommands: options, how each adds itself to the command line, and entry points
// (docs/simulation.md). One file per subcommand: run_cmd.cpp, serve_cmd.cpp, gen_cmd.cpp,
// cluster_cmd.cpp;
// scenario_options.cpp holds what run and serve share. Entry points return the exit code
// or throw; main() maps the exceptions to the exit codes below.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nicsched/sim/scenario.hpp"
#include "nicsched/sim/simulation.hpp"

namespace nicsched::nicsim_cli {

// Exit codes of nicsim (docs/simulation.md).
enum Exit : int {
  kOk = 0,
  kUsage = 2,       // bad command line
  kScenario = 3,    // invalid scenario (or family) file
  kPolicy = 4,      // invalid policy file
  kSim = 5,         // simulation failure (any other error)
  kServer = 6,      // nicsim serve cannot start
  kIntegrity = 7,   // frames left the NIC corrupted or attributed to the wrong tenant
};

// What run and serve share: the scenario, the static policy, the solo-baseline cache.
struct ScenarioOptions {
  std::string scenario;                 // scenario YAML file
  std::string policy;                   // static policy file; empty: the baseline
  std::string baseline = "fifo";        // control::static_baseline_names() (run: or "all")
  std::optional<std::uint64_t> cycles;  // run length instead of the scenario's duration
  std::string cache_dir;                // solo baselines; empty: sim::default_cache_dir()
  bool no_cache = false;                // recompute the solo baselines
  std::string backend;                  // rtl | model; empty: the scenario's nic.backend (default rtl)
  std::string control_level;            // on | off: overrides the policy's scheduler.control_level; empty: keep
  std::string tx_identity;              // headers | source: overrides nic.tx_identity; empty: the scenario's
  std::string on_spoof;                 // keep | drop: overrides nic.on_spoof (needs tx_identity source)
};
// Adds the scenario argument and the options above except --baseline (each command
// names its own choices).
void add_scenario_options(CLI::App* sub, ScenarioOptions& o);
// The scenario file, with --backend, --tx-identity and --on-spoof applied.
[[nodiscard]] sim::Scenario load_scenario(const ScenarioOptions& o);
// The Simulation's options: the policy file, else the named static baseline.
[[nodiscard]] sim::SimOptions sim_options(const ScenarioOptions& o, const std::string& baseline);
// Solo baselines of the scenario, through the cache unless --no-cache.
[[nodiscard]] std::vector<std::optional<sim::SoloResult>> solo_baselines(const ScenarioOptions& o,
                                                                         const sim::Scenario& s);

// `nicsim run`: the scenario under each baseline (or the policy); a table or JSON.
struct RunOptions {
  ScenarioOptions scenario;
  bool json = false;
  std::string trace;     // FST waveform (one run only)
  std::string pcap_out;  // frames on the wire (one run only)
  std::string csv;       // progress time series (several runs: CSV.BASELINE.csv)
};
CLI::App* add_run_command(CLI::App& app, RunOptions& o);
int run(const RunOptions& o);

// `nicsim serve`: the scenario's NIC over the nicsim protocol (docs/protocol.md).
struct ServeOptions {
  ScenarioOptions scenario;
  std::string listen;              // TCP HOST:PORT
  std::string unix_path;           // Unix socket
  bool lockstep = false;           // clock moves only on STEP
  bool solo_baselines = false;     // run them first, for slowdown in METRICS
  double idle_timeout_s = 30;
  double request_timeout_s = 5;
  double write_timeout_s = 5;
  double hold_timeout_s = 30;
  std::size_t max_clients = 32;
  bool allow_remote = false;
  std::string secret_file;
};
CLI::App* add_serve_command(CLI::App& app, ServeOptions& o);
// Throws CLI::ValidationError (usage), drivers::ServerError (cannot serve).
int serve(const ServeOptions& o);

// `nicsim gen`: concrete scenarios drawn from a scenario family (docs/simulation.md,
// "Scenario families").
struct GenOptions {
  std::string family;                   // family YAML file
  std::optional<std::uint64_t> seed;    // first seed; default: the family's first
  std::uint64_t count = 1;              // scenarios, seeds seed .. seed+count-1
  std::string out;                      // directory; empty: the scenario's YAML on stdout
  bool json = false;                    // one JSON line of figures per scenario on stdout
};
CLI::App* add_gen_command(CLI::App& app, GenOptions& o);
// Writes the scenarios. Throws ScenarioError (bad family), CLI::ValidationError (usage,
// a seed outside the family's range), fileio::FileError (cannot write).
int gen(const GenOptions& o);

// `nicsim cluster`: a cluster scenario, servers with nicsched NICs on a leaf-spine fabric
// (docs/cluster.md).
struct ClusterOptions {
  std::string scenario;                 // cluster scenario YAML file
  std::string baseline = "fifo";        // every server's NIC controller (control::baseline_names())
  std::uint64_t interval_cycles = 2000; // between a dynamic controller's decisions
  std::string placement;                // random | packed | vclos; empty: the scenario's
  std::string routing;                  // ecmp | balanced; empty: the scenario's
  std::optional<std::uint64_t> cycles;  // run length instead of the scenario's duration
  bool json = false;
};
CLI::App* add_cluster_command(CLI::App& app, ClusterOptions& o);
int cluster(const ClusterOptions& o);

}  // namespace nicsched::nicsim_cli
