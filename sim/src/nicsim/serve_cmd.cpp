// `nicsim serve SCENARIO --listen HOST:PORT | --unix PATH`: the scenario's NIC over the
// nicsim protocol (drivers::SimServer; limits and access control in docs/protocol.md).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <iostream>

#include "commands.hpp"
#include "nicsched/control/controller.hpp"
#include "nicsched/drivers/sim_server.hpp"

namespace nicsched::nicsim_cli {
namespace {

std::chrono::milliseconds flag_ms(const char* flag, double s) {
  if (!(s > 0) || s > 86400.0 * 365) {
    throw CLI::ValidationError(flag, "expected seconds > 0, got " + std::to_string(s));
  }
  return std::chrono::milliseconds(std::max<std::int64_t>(1, static_cast<std::int64_t>(s * 1000.0)));
}

}  // namespace

CLI::App* add_serve_command(CLI::App& app, ServeOptions& o) {
  CLI::App* serve = app.add_subcommand("serve", "Serve the scenario's NIC over the nicsim protocol");
  add_scenario_options(serve, o.scenario);
  serve->add_option("--baseline", o.scenario.baseline, "Initial static policy: fifo, fair or sp")
      ->check(CLI::IsMember(control::static_baseline_names()));
  serve->add_option("--listen", o.listen, "TCP HOST:PORT (loopback unless you name another address)");
  serve->add_option("--unix", o.unix_path, "Unix socket path");
  serve->add_flag("--lockstep", o.lockstep, "Clock moves only on STEP requests (default: free-running)");
  serve->add_flag("--solo-baselines", o.solo_baselines, "Run the solo baselines first, for slowdown in METRICS");
  serve->add_option("--idle-timeout", o.idle_timeout_s, "Close a connection idle this many seconds")
      ->capture_default_str();
  serve->add_option("--request-timeout", o.request_timeout_s,
                    "Seconds a frame may take from its first byte (and HELLO/AUTH from connecting)")
      ->capture_default_str();
  serve->add_option("--write-timeout", o.write_timeout_s,
                    "Close a connection whose peer does not read a reply within this many seconds")
      ->capture_default_str();
  serve->add_option("--hold-timeout", o.hold_timeout_s,
                    "Seconds a client's uncommitted shadow writes hold off other writers")
      ->capture_default_str();
  serve->add_option("--max-clients", o.max_clients, "Most connections at once (a newcomer replaces one idle >= 1 s)")
      ->capture_default_str();
  serve->add_flag("--allow-remote", o.allow_remote,
                  "Allow --listen on an address that is not loopback (anyone reaching it may write the NIC)");
  serve->add_option("--secret-file", o.secret_file,
                    "Clients must prove they know the secret in this file (clients: NICSCHED_SECRET_FILE)");
  return serve;
}

int serve(const ServeOptions& o) {
  const ScenarioOptions& c = o.scenario;
  const sim::Scenario s = load_scenario(c);
  sim::SimOptions sim_opts = sim_options(c, c.baseline);
  if (o.solo_baselines) sim_opts.solo = solo_baselines(c, s);
  sim::Simulation simulation(s, sim_opts);
  drivers::ServerOptions so;
  so.tcp_address.reset();
  if (!o.listen.empty()) {
    const auto colon = o.listen.rfind(':');
    if (colon == std::string::npos) throw CLI::ValidationError("--listen", "expected HOST:PORT, got " + o.listen);
    so.tcp_address = o.listen.substr(0, colon);
    try {
      const unsigned long port = std::stoul(o.listen.substr(colon + 1));
      if (port > 65535) throw std::out_of_range("port");
      so.tcp_port = static_cast<std::uint16_t>(port);
    } catch (const std::exception&) {
      throw CLI::ValidationError("--listen", "expected a port number 0..65535 after ':', got " + o.listen);
    }
  }
  so.unix_path = o.unix_path;
  so.idle_timeout = flag_ms("--idle-timeout", o.idle_timeout_s);
  so.request_timeout = flag_ms("--request-timeout", o.request_timeout_s);
  so.write_timeout = flag_ms("--write-timeout", o.write_timeout_s);
  so.hold_timeout = flag_ms("--hold-timeout", o.hold_timeout_s);
  if (o.max_clients == 0) throw CLI::ValidationError("--max-clients", "expected at least 1");
  so.max_clients = o.max_clients;
  so.allow_remote = o.allow_remote;
  if (!o.secret_file.empty()) {
    try {
      so.secret = drivers::proto::load_secret_file(o.secret_file);
    } catch (const drivers::proto::ProtocolError& e) {
      throw CLI::ValidationError("--secret-file", e.what());
    }
  }
  so.initial_mode = o.lockstep ? drivers::proto::Mode::kLockStep : drivers::proto::Mode::kFreeRunning;
  so.description = "nicsim " + s.name;
  drivers::SimServer server(simulation, so);
  if (so.tcp_address) spdlog::info("serving {} on {}:{}", s.name, *so.tcp_address, server.tcp_port());
  if (!o.unix_path.empty()) spdlog::info("serving {} on unix://{}", s.name, server.unix_path());
  // One line on stdout a script can wait for.
  std::cout << "listening";
  if (so.tcp_address) std::cout << " tcp " << *so.tcp_address << ":" << server.tcp_port();
  if (!o.unix_path.empty()) std::cout << " unix " << server.unix_path();
  std::cout << std::endl;
  server.run();
  return kOk;
}

}  // namespace nicsched::nicsim_cli
