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
//   body above the request limit, a version mismatch or a broken frame header gets an
//   ERROR reply and the connection is closed. Other clients are not affected.
// - An exception from the target (e.g. BusResponseError for an unmapped address) becomes
//   an ERROR reply to the client that caused it; the server keeps serving.
// - Limits (docs/protocol.md "Limits"): a connection idle for `idle_timeout`, a frame not
//   complete `request_timeout` after its first byte, HELLO (and AUTH) not done
//   `request_timeout` after connecting, or a reply the peer does not read within
//   `write_timeout` closes the connection. Each connection buffers one request (at most
//   `max_request_body` bytes) and one reply. When `max_clients` are connected, a newcomer
//   replaces the connection idle longest (if idle >= `evict_idle_after`), else is refused.
// - Policy ownership (docs/protocol.md "Shadow registers"): a client's writes to shadowed
//   registers are its own until it writes COMMIT. Meanwhile other clients' shadow writes
//   and COMMITs are refused (ERROR kHeld naming the holder), and their reads of those
//   registers return the values from before the hold (uncommitted writes are visible to
//   their writer only). If the holder disconnects
//   (or is closed) before COMMIT, the shadow registers it wrote get their earlier values
//   back, so no later COMMIT applies its half-written policy. A hold older than
//   `hold_timeout` yields to the next writer the same way, and the holder's next shadow
//   write or COMMIT is answered ERROR kDiscarded.
// - Authentication: with a `secret`, clients must prove they know it (HMAC-SHA256
//   challenge-response) before any other request.
#pragma once

#include <chrono>
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
  std::optional<std::string> tcp_address = "127.0.0.1";
  std::uint16_t tcp_port = 0;
  // A tcp_address that is not a loopback address is refused unless this is set: anyone
  // who can reach the port can then change the NIC's policy (see `secret`).
  bool allow_remote = false;
  // Unix-domain socket path; empty: none. A stale socket file at the path is replaced;
  // any other kind of file there is an error. The socket is made mode 0600 (owner only).
  std::string unix_path{};
  // Shared secret clients must prove they know (protocol 1.1 AUTH); empty: no check.
  std::string secret{};
  proto::Mode initial_mode = proto::Mode::kLockStep;
  // Cycles per step() call, in free-running mode and for splitting long STEP requests.
  std::uint64_t step_chunk_cycles = 2000;
  // Most connections at once; see evict_idle_after for what happens to the next one.
  std::size_t max_clients = 32;
  // A connection with no request started for this long is closed (ERROR kTimeout).
  std::chrono::milliseconds idle_timeout{30000};
  // A frame must be complete this long after its first byte; HELLO (and AUTH when a
  // secret is set) must be done this long after connecting.
  std::chrono::milliseconds request_timeout{5000};
  // A reply the peer has not read within this is abandoned and the connection closed.
  std::chrono::milliseconds write_timeout{5000};
  // With max_clients connected, a newcomer replaces the connection idle longest if it has
  // been idle at least this long; otherwise the newcomer gets ERROR kBusy.
  std::chrono::milliseconds evict_idle_after{1000};
  // Uncommitted shadow writes older than this yield to another client's writes.
  std::chrono::milliseconds hold_timeout{30000};
  // Largest request body accepted (at most proto::kMaxRequestBody).
  std::uint32_t max_request_body = proto::kMaxRequestBody;
  // Let run() return on SIGINT / SIGTERM.
  bool handle_signals = true;
  // Shown to clients in HELLO_OK (e.g. the scenario name).
  std::string description = "nicsim";
};

// What the server has seen, for tests and the soak suite.
struct ServerStats {
  std::uint64_t accepted = 0;           // connections accepted
  std::uint64_t refused_busy = 0;       // refused with kBusy
  std::uint64_t evicted = 0;            // closed to make room for a newcomer
  std::uint64_t timed_out = 0;          // closed by idle/request/write timeouts
  std::uint64_t auth_failures = 0;      // refused for a missing or wrong AUTH
  std::uint64_t requests = 0;           // complete frames handled
  std::uint64_t error_replies = 0;      // ERROR replies sent
  std::uint64_t commits = 0;            // COMMIT writes passed to the target
  std::uint64_t held_refusals = 0;      // writes refused with kHeld
  std::uint64_t discarded_holds = 0;    // holds whose shadow writes were put back
  std::uint64_t discarded_writes = 0;   // shadow registers put back by those
  std::size_t connections_now = 0;
  std::size_t max_connections = 0;      // most at once
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
  // A copy of the counters; thread-safe.
  [[nodiscard]] ServerStats stats() const;

 class Impl;  // implementation (sim_server.cpp)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace nicsched::drivers
