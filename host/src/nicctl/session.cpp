// nicctl: opening the target and discovering the NIC; names shared by the subcommands.
#include <fmt/format.h>

#include <chrono>

#include "nicsched/drivers/open_bus.hpp"
#include "nicsched/host/discovery.hpp"

#include "commands.hpp"

namespace nicsched::nicctl {

std::atomic<bool> g_interrupted{false};
extern "C" void on_sigint(int) { g_interrupted = true; }

Session connect(const Global& g) {
  if (g.target.empty()) throw UsageError("no target: give --target URI or set NICSCHED_TARGET (see nicctl --help)");
  drivers::BusOptions o;
  o.timeout = std::chrono::milliseconds(g.timeout_ms);
  o.client_name = "nicctl";
  Session s;
  s.bus = drivers::open_bus(g.target, o);
  s.caps = host::discover(*s.bus);
  return s;
}

std::string crypto_name(host::CryptoOp c) { return host::spelling(c, "none"); }

}  // namespace nicsched::nicctl
