// nicsim: run a scenario on the simulated NIC, serve it over a socket, or draw scenarios
// from a scenario family (gen, nicsim_gen.cpp).
//
// Exit codes (docs/simulation.md):
//   0 success   2 usage error   3 invalid scenario   4 invalid policy file
//   5 simulation failure   6 server cannot start   7 frames left the NIC corrupted or
//   attributed to the wrong tenant
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "nicsched/control/controller.hpp"
#include "nicsched/drivers/sim_server.hpp"
#include "nicsched/sim/error.hpp"
#include "nicsched/sim/report.hpp"
#include "nicsched/sim/simulation.hpp"
#include "nicsim_gen.hpp"
#include "nicsched/version.hpp"
#include "nicsched/host/errors.hpp"

namespace {

using namespace nicsched;

constexpr int kExitUsage = 2;
constexpr int kExitScenario = 3;
constexpr int kExitPolicy = 4;
constexpr int kExitSim = 5;
constexpr int kExitServer = 6;
constexpr int kExitIntegrity = 7;

struct Common {
  std::string scenario;
  std::string policy;
  std::string baseline = "fifo";
  std::optional<std::uint64_t> cycles;
  std::string cache_dir;
  bool no_cache = false;
  std::string backend;  // rtl | model; empty: the scenario's nic.backend (default rtl)
};

sim::Scenario load(const Common& c) {
  sim::Scenario s = sim::load_scenario(c.scenario);
  if (!c.backend.empty()) s.backend = sim::parse_backend(c.backend);
  return s;
}

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

sim::SimOptions make_options(const Common& c, const std::string& baseline) {
  sim::SimOptions o;
  o.cycles = c.cycles;
  if (!c.policy.empty()) {
    o.policy_file = c.policy;
  } else {
    o.baseline = baseline;
  }
  return o;
}

std::vector<std::optional<sim::SoloResult>> solos(const Common& c, const sim::Scenario& s) {
  const std::filesystem::path dir = c.no_cache ? std::filesystem::path{}
                                    : c.cache_dir.empty() ? sim::default_cache_dir()
                                                          : std::filesystem::path(c.cache_dir);
  return sim::solo_baselines(s, dir, c.cycles);
}

int cmd_run(const Common& c, bool json, const std::string& trace, const std::string& pcap_out,
            const std::string& csv) {
  const sim::Scenario s = load(c);
  const bool tty = isatty(STDERR_FILENO) != 0 && !json;
  ProgressBar bar(tty);
  std::vector<std::string> baselines;
  if (c.policy.empty() && c.baseline == "all") {
    baselines = control::static_baseline_names();
  } else {
    baselines = {c.baseline};
  }
  bar.update("solo runs", 0.0);
  const auto solo = solos(c, s);
  std::vector<sim::RunMetrics> runs;
  std::uint64_t bad = 0;
  for (const auto& b : baselines) {
    sim::SimOptions o = make_options(c, b);
    o.solo = solo;
    if (baselines.size() == 1) {
      o.trace = trace;
      o.pcap_out = pcap_out;
    }
    sim::Simulation simulation(s, o);
    simulation.run_to_end([&](double f) { bar.update(c.policy.empty() ? b : "policy", f); });
    runs.push_back(simulation.metrics());
    if (!csv.empty()) {
      const std::string file = baselines.size() == 1 ? csv : csv + "." + b + ".csv";
      sim::write_time_series(file, simulation.samples(), s);
    }
    bad += simulation.integrity_errors() + simulation.misattributed();
  }
  bar.done();
  if (json) {
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
    return kExitIntegrity;
  }
  return 0;
}

// `nicsim serve` limits and access control (drivers::ServerOptions; docs/protocol.md).
struct ServeFlags {
  double idle_timeout_s = 30;
  double request_timeout_s = 5;
  double write_timeout_s = 5;
  double hold_timeout_s = 30;
  std::size_t max_clients = 32;
  bool allow_remote = false;
  std::string secret_file;
};

std::chrono::milliseconds flag_ms(const char* flag, double s) {
  if (!(s > 0) || s > 86400.0 * 365) {
    throw CLI::ValidationError(flag, "expected seconds > 0, got " + std::to_string(s));
  }
  return std::chrono::milliseconds(std::max<std::int64_t>(1, static_cast<std::int64_t>(s * 1000.0)));
}

int cmd_serve(const Common& c, const std::string& listen, const std::string& unix_path, bool lockstep,
              bool baselines, const ServeFlags& f) {
  const sim::Scenario s = load(c);
  sim::SimOptions o = make_options(c, c.baseline);
  if (baselines) o.solo = solos(c, s);
  sim::Simulation simulation(s, o);
  drivers::ServerOptions so;
  so.tcp_address.reset();
  if (!listen.empty()) {
    const auto colon = listen.rfind(':');
    if (colon == std::string::npos) throw CLI::ValidationError("--listen", "expected HOST:PORT, got " + listen);
    so.tcp_address = listen.substr(0, colon);
    try {
      const unsigned long port = std::stoul(listen.substr(colon + 1));
      if (port > 65535) throw std::out_of_range("port");
      so.tcp_port = static_cast<std::uint16_t>(port);
    } catch (const std::exception&) {
      throw CLI::ValidationError("--listen", "expected a port number 0..65535 after ':', got " + listen);
    }
  }
  so.unix_path = unix_path;
  so.idle_timeout = flag_ms("--idle-timeout", f.idle_timeout_s);
  so.request_timeout = flag_ms("--request-timeout", f.request_timeout_s);
  so.write_timeout = flag_ms("--write-timeout", f.write_timeout_s);
  so.hold_timeout = flag_ms("--hold-timeout", f.hold_timeout_s);
  if (f.max_clients == 0) throw CLI::ValidationError("--max-clients", "expected at least 1");
  so.max_clients = f.max_clients;
  so.allow_remote = f.allow_remote;
  if (!f.secret_file.empty()) {
    try {
      so.secret = drivers::proto::load_secret_file(f.secret_file);
    } catch (const drivers::proto::ProtocolError& e) {
      throw CLI::ValidationError("--secret-file", e.what());
    }
  }
  so.initial_mode = lockstep ? drivers::proto::Mode::kLockStep : drivers::proto::Mode::kFreeRunning;
  so.description = "nicsim " + s.name;
  drivers::SimServer server(simulation, so);
  if (so.tcp_address) spdlog::info("serving {} on {}:{}", s.name, *so.tcp_address, server.tcp_port());
  if (!unix_path.empty()) spdlog::info("serving {} on unix://{}", s.name, server.unix_path());
  // One line on stdout a script can wait for.
  std::cout << "listening";
  if (so.tcp_address) std::cout << " tcp " << *so.tcp_address << ":" << server.tcp_port();
  if (!unix_path.empty()) std::cout << " unix " << server.unix_path();
  std::cout << std::endl;
  server.run();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  auto logger = spdlog::stderr_color_mt("nicsim");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::warn);

  CLI::App app{"nicsim: multi-tenant training workloads on the simulated nicsched NIC"};
  app.set_version_flag("--version", std::string("nicsim ") + nicsched::kVersion);
  app.require_subcommand(1);
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "Log progress (info level) on stderr");

  Common c;
  auto add_common = [&](CLI::App* sub) {
    sub->add_option("scenario", c.scenario, "Scenario YAML file (sim/scenarios/)")->required();
    sub->add_option("--policy", c.policy, "Static policy file (YAML, the nicctl format)");
    sub->add_option("--cycles", c.cycles, "Simulated cycles instead of the scenario's duration");
    sub->add_option("--cache-dir", c.cache_dir, "Where solo-baseline results are cached");
    sub->add_flag("--no-cache", c.no_cache, "Recompute the solo baselines");
    sub->add_option("--backend", c.backend,
                    "What simulates the NIC: rtl (Verilated nicsched_top) or model (the reference model, "
                    "faster; docs/simulation.md); default: the scenario's nic.backend, else rtl")
        ->check(CLI::IsMember({"rtl", "model"}));
  };

  CLI::App* run = app.add_subcommand("run", "Run a scenario and print its metrics");
  add_common(run);
  std::vector<std::string> run_baselines = control::static_baseline_names();
  run_baselines.emplace_back("all");
  run->add_option("--baseline", c.baseline, "Built-in static policy: fifo, fair, sp, or all (one run each)")
      ->check(CLI::IsMember(run_baselines));
  bool json = false;
  std::string trace;
  std::string pcap_out;
  std::string csv;
  run->add_flag("--json", json, "Print the metrics as JSON");
  run->add_option("--trace", trace, "Write an FST waveform of the whole run");
  run->add_option("--pcap-out", pcap_out, "Write the frames that leave on the wire (pcap)");
  run->add_option("--csv", csv, "Write the per-tenant progress time series (CSV)");

  CLI::App* serve = app.add_subcommand("serve", "Serve the scenario's NIC over the nicsim protocol");
  add_common(serve);
  serve->add_option("--baseline", c.baseline, "Initial static policy: fifo, fair or sp")
      ->check(CLI::IsMember(control::static_baseline_names()));
  std::string listen;
  std::string unix_path;
  bool lockstep = false;
  bool serve_baselines = false;
  serve->add_option("--listen", listen, "TCP HOST:PORT (loopback unless you name another address)");
  serve->add_option("--unix", unix_path, "Unix socket path");
  serve->add_flag("--lockstep", lockstep, "Clock moves only on STEP requests (default: free-running)");
  serve->add_flag("--solo-baselines", serve_baselines, "Run the solo baselines first, for slowdown in METRICS");
  ServeFlags serve_flags;
  serve->add_option("--idle-timeout", serve_flags.idle_timeout_s, "Close a connection idle this many seconds")
      ->capture_default_str();
  serve->add_option("--request-timeout", serve_flags.request_timeout_s,
                    "Seconds a frame may take from its first byte (and HELLO/AUTH from connecting)")
      ->capture_default_str();
  serve->add_option("--write-timeout", serve_flags.write_timeout_s,
                    "Close a connection whose peer does not read a reply within this many seconds")
      ->capture_default_str();
  serve->add_option("--hold-timeout", serve_flags.hold_timeout_s,
                    "Seconds a client's uncommitted shadow writes hold off other writers")
      ->capture_default_str();
  serve->add_option("--max-clients", serve_flags.max_clients,
                    "Most connections at once (a newcomer replaces one idle >= 1 s)")
      ->capture_default_str();
  serve->add_flag("--allow-remote", serve_flags.allow_remote,
                  "Allow --listen on an address that is not loopback (anyone reaching it may write the NIC)");
  serve->add_option("--secret-file", serve_flags.secret_file,
                    "Clients must prove they know the secret in this file (clients: NICSCHED_SECRET_FILE)");

  sim::GenOptions gen_options;
  CLI::App* gen = sim::add_gen_command(app, gen_options);

  try {
    app.parse(argc, argv);
    if (serve->parsed() && listen.empty() && unix_path.empty()) {
      throw CLI::RequiredError("--listen or --unix");
    }
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "nicsim: " << e.what() << " (see --help)\n";
    return kExitUsage;
  }
  if (verbose) spdlog::set_level(spdlog::level::info);

  try {
    if (run->parsed()) return cmd_run(c, json, trace, pcap_out, csv);
    if (gen->parsed()) return sim::run_gen(gen_options);
    return cmd_serve(c, listen, unix_path, lockstep, serve_baselines, serve_flags);
  } catch (const sim::ScenarioError& e) {
    std::cerr << "nicsim: invalid scenario: " << e.what() << "\n";
    return kExitScenario;
  } catch (const host::PolicyError& e) {
    std::cerr << "nicsim: invalid policy: " << e.what() << "\n";
    return kExitPolicy;
  } catch (const CLI::ValidationError& e) {
    std::cerr << "nicsim: " << e.what() << "\n";
    return kExitUsage;
  } catch (const drivers::ServerError& e) {
    std::cerr << "nicsim: cannot serve: " << e.what() << "\n";
    return kExitServer;
  } catch (const std::exception& e) {
    std::cerr << "nicsim: " << e.what() << "\n";
    return kExitSim;
  }
}
