// nicsim: run a scenario on the simulated NIC (run_cmd.cpp), serve it over a socket
// (serve_cmd.cpp), draw scenarios from a scenario family (gen_cmd.cpp), or run a cluster
// scenario, servers with nicsched NICs on a leaf-spine fabric (cluster_cmd.cpp).
//
// Exit codes (commands.hpp, docs/simulation.md):
//   0 success   2 usage error   3 invalid scenario   4 invalid policy file
//   5 simulation failure   6 server cannot start   7 frames left the NIC corrupted or
//   attributed to the wrong tenant
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <iostream>

#include "commands.hpp"
#include "nicsched/drivers/sim_server.hpp"
#include "nicsched/host/errors.hpp"
#include "nicsched/sim/error.hpp"
#include "nicsched/version.hpp"

int main(int argc, char** argv) {
  using namespace nicsched;
  using namespace nicsched::nicsim_cli;
  auto logger = spdlog::stderr_color_mt("nicsim");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::warn);

  CLI::App app{"nicsim: multi-tenant training workloads on the simulated nicsched NIC"};
  app.set_version_flag("--version", std::string("nicsim ") + nicsched::kVersion);
  app.require_subcommand(1);
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "Log progress (info level) on stderr");

  RunOptions run_options;
  CLI::App* run_cmd = add_run_command(app, run_options);
  ServeOptions serve_options;
  CLI::App* serve_cmd = add_serve_command(app, serve_options);
  GenOptions gen_options;
  CLI::App* gen_cmd = add_gen_command(app, gen_options);
  ClusterOptions cluster_options;
  CLI::App* cluster_cmd = add_cluster_command(app, cluster_options);

  try {
    app.parse(argc, argv);
    if (serve_cmd->parsed() && serve_options.listen.empty() && serve_options.unix_path.empty()) {
      throw CLI::RequiredError("--listen or --unix");
    }
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "nicsim: " << e.what() << " (see --help)\n";
    return kUsage;
  }
  if (verbose) spdlog::set_level(spdlog::level::info);

  try {
    if (run_cmd->parsed()) return run(run_options);
    if (gen_cmd->parsed()) return gen(gen_options);
    if (cluster_cmd->parsed()) return cluster(cluster_options);
    return serve(serve_options);
  } catch (const sim::ScenarioError& e) {
    std::cerr << "nicsim: invalid scenario: " << e.what() << "\n";
    return kScenario;
  } catch (const host::PolicyError& e) {
    std::cerr << "nicsim: invalid policy: " << e.what() << "\n";
    return kPolicy;
  } catch (const CLI::ValidationError& e) {
    std::cerr << "nicsim: " << e.what() << "\n";
    return kUsage;
  } catch (const drivers::ServerError& e) {
    std::cerr << "nicsim: cannot serve: " << e.what() << "\n";
    return kServer;
  } catch (const std::exception& e) {
    std::cerr << "nicsim: " << e.what() << "\n";
    return kSim;
  }
}
