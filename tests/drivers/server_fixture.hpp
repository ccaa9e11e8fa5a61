// A SimServer on loopback (ephemeral port) and a Unix socket, serving a stand-in register
// file from a background thread, plus a raw POSIX client for sending broken frames.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "nicsched/drivers/sim_protocol.hpp"
#include "nicsched/drivers/sim_server.hpp"
#include "stand_in_target.hpp"

namespace nicsched::test {

inline std::string temp_socket_path(const std::string& stem) {
  return (std::filesystem::temp_directory_path() /
          (stem + "-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()) + ".sock"))
      .string();
}

// Server options for a Unix socket at `path` only (no TCP listener).
inline drivers::ServerOptions unix_only(const std::string& path) {
  drivers::ServerOptions o;
  o.unix_path = path;
  o.tcp_address.reset();
  return o;
}

class ServerFixture {
 public:
  explicit ServerFixture(drivers::ServerOptions opts = {}, drivers::SimTarget* target = nullptr) {
    opts.handle_signals = false;
    if (opts.unix_path.empty()) opts.unix_path = temp_socket_path("nicsched-drivers-test");
    target_ = target ? target : &own_target_;
    server_ = std::make_unique<drivers::SimServer>(*target_, opts);
    thread_ = std::thread([this] { server_->run(); });
  }
  ~ServerFixture() { stop(); }
  ServerFixture(const ServerFixture&) = delete;
  ServerFixture& operator=(const ServerFixture&) = delete;

  void stop() {
    if (thread_.joinable()) {
      server_->stop();
      thread_.join();
    }
  }
  [[nodiscard]] std::uint16_t port() const { return server_->tcp_port(); }
  [[nodiscard]] const std::string& unix_path() const { return server_->unix_path(); }
  [[nodiscard]] drivers::ServerStats stats() const { return server_->stats(); }
  StandInRegisterFile& target() { return own_target_; }

 private:
  StandInRegisterFile own_target_;
  drivers::SimTarget* target_ = nullptr;
  std::unique_ptr<drivers::SimServer> server_;
  std::thread thread_;
};

// A blocking POSIX socket with a receive timeout, so a test fails instead of hanging.
class RawConn {
 public:
  // rcvbuf > 0: a small receive buffer, for a peer that stops reading.
  explicit RawConn(std::uint16_t port, int rcvbuf = 0) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (rcvbuf > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
      throw std::runtime_error("raw connect failed");
    }
    timeval tv{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  }
  ~RawConn() { ::close(fd_); }
  RawConn(const RawConn&) = delete;
  RawConn& operator=(const RawConn&) = delete;

  void send(const std::vector<std::uint8_t>& bytes) {
    REQUIRE(::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size()));
  }
  // Sends what it can without blocking; false once the connection is gone or full.
  bool try_send(const std::vector<std::uint8_t>& bytes) {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT) == static_cast<ssize_t>(bytes.size());
  }

  struct Frame {
    drivers::proto::Header header;
    std::vector<std::uint8_t> body;
  };
  // The next frame, or nullopt when the server closed the connection. Fails on timeout.
  std::optional<Frame> recv_frame() {
    std::array<std::uint8_t, drivers::proto::kHeaderBytes> h{};
    if (!recv_all(h.data(), h.size())) return std::nullopt;
    Frame f;
    f.header = drivers::proto::decode_header(h);
    f.body.resize(f.header.body_len);
    REQUIRE(recv_all(f.body.data(), f.body.size()));
    return f;
  }

  // HELLO as a client of protocol 1.`minor`; returns HELLO_OK's body.
  std::vector<std::uint8_t> hello(std::uint16_t minor = drivers::proto::kVersionMinor,
                                  const std::string& name = "raw test client") {
    send(drivers::proto::FrameWriter(drivers::proto::MsgType::kHello, 1)
             .u16(drivers::proto::kVersionMajor)
             .u16(minor)
             .str16(name)
             .finish());
    auto f = recv_frame();
    REQUIRE(f);
    REQUIRE(f->header.type == drivers::proto::MsgType::kHelloOk);
    return f->body;
  }

 private:
  bool recv_all(std::uint8_t* p, std::size_t n) {
    while (n > 0) {
      const ssize_t got = ::recv(fd_, p, n, 0);
      if (got == 0) return false;
      if (got < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) FAIL("raw client: no reply within 5 s");
        if (errno == ECONNRESET) return false;
        FAIL("raw client: recv failed: " << std::strerror(errno));
      }
      p += got;
      n -= static_cast<std::size_t>(got);
    }
    return true;
  }
  int fd_ = -1;
};

inline drivers::proto::ErrorReply expect_error(RawConn& c, drivers::proto::ErrorCode code) {
  auto f = c.recv_frame();
  REQUIRE(f);
  REQUIRE(f->header.type == drivers::proto::MsgType::kError);
  drivers::proto::ErrorReply e = drivers::proto::decode_error(f->body);
  CHECK(e.code == code);
  return e;
}

inline void expect_read_works(RawConn& c, std::uint32_t addr, std::uint32_t value) {
  using namespace drivers::proto;
  c.send(FrameWriter(MsgType::kRead32, 77).u32(addr).finish());
  auto f = c.recv_frame();
  REQUIRE(f);
  REQUIRE(f->header.type == MsgType::kRead32Ok);
  CHECK(f->header.tag == 77);
  BodyReader r(MsgType::kRead32Ok, f->body);
  CHECK(r.u32("value") == value);
}

// Polls `done` every 10 ms until it holds or `limit` passes; returns whether it held.
template <class F>
bool wait_until(F&& done, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace nicsched::test
