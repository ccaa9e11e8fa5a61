// SimServer: serves a SimTarget (the simulated NIC) over the nicsim wire protocol
// (sim_protocol.hpp, docs/protocol.md) on TCP and/or a Unix socket. `nicsim serve` is
//
//   drivers::ServerOptions opts;
//   opts.tcp_address = "127.0.0.1"; opts.tcp_port = 5555;      // and/or opts.unix_path
//   opts.initial_mode = drivers::proto::Mode::kFreeRunning;
//   drivers::SimServer server(simulation, opts);               // binds now; throws ServerError
//   server.run();                                              // until stop() or SIGINT/SIGTERM
//
// Behaviour:
// - Several clients at once. Everything runs on the thread that calls run(), so every
//   access to the target is serialised; the target needs no locking of its own.
// - Lock-step mode: the target's clock moves only on STEP requests. A long STEP is done in
//   chunks of `step_chunk_cycles`, and other clients are served between chunks.
// - Free-running mode: between requests the server steps the target by
//   `step_chunk_cycles` at a time, as fast as the target goes.
// - A malformed message gets an ERROR reply and the connection stays usable; an announced
//   body above proto::kMaxRequestBody, a version mismatch or a broken frame header gets an
//   ERROR reply and the connection is closed. Other clients are not affected.
// - An exception from the target (e.g. BusResponseError for an unmapped address) becomes
//   an ERROR reply to the client that caused it; the server keeps serving.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "nicsched/drivers/sim_protocol.hpp"
#include "nicsched/drivers/sim_target.hpp"

namespace nicsched::drivers {

// The server cannot start (address in use, bad address, Unix path not usable).
class ServerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ServerOptions {
  // TCP listener; std::nullopt: none. Port 0 picks a free port (see SimServer::tcp_port()).
  // Loopback unless told otherwise: binding another address is the caller's explicit choice.
  std::optional<std::string> tcp_address = "127.0.0.1";
  std::uint16_t tcp_port = 0;
  // Unix-domain socket path; empty: none. A stale socket file at the path is replaced;
  // any other kind of file there is an error.
  std::string unix_path;
  proto::Mode initial_mode = proto::Mode::kLockStep;
  // Cycles per step() call, in free-running mode and for splitting long STEP requests.
  std::uint64_t step_chunk_cycles = 2000;
  // Connections beyond this get an ERROR (kBusy) and are closed.
  std::size_t max_clients = 32;
  // Let run() return on SIGINT / SIGTERM.
  bool handle_signals = true;
  // Shown to clients in HELLO_OK (e.g. the scenario name).
  std::string description = "nicsim";
};

class SimServer {
 public:
  // Binds the listeners now, so errors (address in use, ...) surface here.
  SimServer(SimTarget& target, ServerOptions options);
  ~SimServer();
  SimServer(const SimServer&) = delete;
  SimServer& operator=(const SimServer&) = delete;

  // Serves until stop() (from any thread) or a signal; returns after closing every
  // connection. Call it once.
  void run();
  // Thread-safe; run() returns soon after.
  void stop();

  // The bound TCP port (useful with tcp_port = 0); 0 when there is no TCP listener.
  [[nodiscard]] std::uint16_t tcp_port() const;
  [[nodiscard]] const std::string& unix_path() const;

 class Impl;  // implementation (sim_server.cpp)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace nicsched::drivers
