// The nicsim protocol end to end: SimClient against SimServer serving a stand-in register
// file, over TCP and a Unix socket.
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <thread>

#include "nicsched/drivers/open_bus.hpp"
#include "nicsched/drivers/sim_client.hpp"
#include "server_fixture.hpp"

using namespace nicsched;
using drivers::proto::Mode;
using test::ServerFixture;
using test::StandInRegisterFile;

namespace {

drivers::BusOptions quick_options() {
  drivers::BusOptions o;
  o.timeout = std::chrono::milliseconds(3000);
  o.connect_attempts = 2;
  o.reconnect_backoff = std::chrono::milliseconds(50);
  return o;
}

void exercise_registers(drivers::RegisterBus& bus, StandInRegisterFile& target) {
  CHECK(bus.read32(0x0) == StandInRegisterFile::kId);
  bus.write32(0x100, 0xCAFEF00D);
  CHECK(target.peek(0x100) == 0xCAFEF00D);
  CHECK(bus.read32(0x100) == 0xCAFEF00D);

  std::vector<drivers::RegWrite> batch;
  for (std::uint32_t i = 0; i < 40; ++i) batch.push_back({0x200 + 4 * i, 1000 + i});
  bus.write_batch(batch);
  std::vector<std::uint32_t> words(40);
  bus.read_block(0x200, words);
  for (std::uint32_t i = 0; i < 40; ++i) CHECK(words[i] == 1000 + i);
  CHECK(bus.read64(0x200) == ((std::uint64_t{1001} << 32) | 1000));
  const std::vector<drivers::BlockRange> ranges = {{0x204, 2}, {0x100, 1}};
  std::vector<std::uint32_t> gathered(3);
  bus.read_ranges(ranges, gathered);
  CHECK(gathered == std::vector<std::uint32_t>{1001, 1002, 0xCAFEF00D});
}

// A TCP socket listening on a free loopback port, for servers the tests play by hand.
struct Listener {
  int fd = -1;
  std::uint16_t port = 0;
};

Listener listen_on_loopback(int backlog) {
  Listener l;
  l.fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(l.fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0);
  REQUIRE(::listen(l.fd, backlog) == 0);
  socklen_t len = sizeof(sa);
  REQUIRE(::getsockname(l.fd, reinterpret_cast<sockaddr*>(&sa), &len) == 0);
  l.port = ntohs(sa.sin_port);
  return l;
}

}  // namespace

TEST_CASE("socket: register reads, writes, bursts and batches over TCP", "[socket]") {
  ServerFixture srv;
  auto bus = drivers::open_bus(fmt::format("sim://127.0.0.1:{}", srv.port()), quick_options());
  CHECK(bus->describe() == fmt::format("sim://127.0.0.1:{}", srv.port()));
  exercise_registers(*bus, srv.target());
}

TEST_CASE("socket: register reads, writes, bursts and batches over a Unix socket", "[socket]") {
  ServerFixture srv;
  auto bus = drivers::open_bus("unix://" + srv.unix_path(), quick_options());
  exercise_registers(*bus, srv.target());
}

TEST_CASE("socket: HELLO reports the protocol version, mode and server description", "[socket]") {
  drivers::ServerOptions o;
  o.description = "stand-in scenario";
  ServerFixture srv(o);
  auto client = drivers::SimClient::connect_tcp("127.0.0.1", srv.port(), quick_options());
  CHECK(client->server_info().version_major == drivers::proto::kVersionMajor);
  CHECK(client->server_info().description == "stand-in scenario");
  CHECK(client->server_info().mode == Mode::kLockStep);
  CHECK(client->server_info().max_burst_words == drivers::proto::kMaxBurstWords);
}

TEST_CASE("socket: an AXI error response from the target reaches the client with its address", "[socket]") {
  ServerFixture srv;
  auto bus = drivers::open_bus(fmt::format("sim://127.0.0.1:{}", srv.port()), quick_options());
  try {
    (void)bus->read32(0x8000);
    FAIL("read of an unmapped address succeeded");
  } catch (const drivers::BusResponseError& e) {
    CHECK(e.addr() == 0x8000);
    CHECK(e.resp() == drivers::BusResponseError::Resp::kDecErr);
    CHECK_THAT(e.what(), Catch::Contains("0x8000") && Catch::Contains("sim://127.0.0.1"));
  }
  try {
    bus->write32(0x0, 1);
    FAIL("write to a read-only register succeeded");
  } catch (const drivers::BusResponseError& e) {
    CHECK(e.resp() == drivers::BusResponseError::Resp::kSlvErr);
  }
  // The connection is still usable after error replies.
  CHECK(bus->read32(0x0) == StandInRegisterFile::kId);
}

TEST_CASE("socket: lock-step time moves only on STEP, by exactly the cycles asked", "[socket]") {
  drivers::ServerOptions o;
  o.step_chunk_cycles = 1000;  // a STEP of 12345 is served in 13 chunks
  ServerFixture srv(o);
  auto client = drivers::SimClient::connect_tcp("127.0.0.1", srv.port(), quick_options());
  CHECK(client->cycle() == 0);
  client->step(12345);
  CHECK(client->cycle() == 12345);
  CHECK(srv.target().step_calls() == 13);
  CHECK(client->cycle() == 12345);  // nothing runs in between
  client->step(0);
  CHECK(client->cycle() == 12345);
}

TEST_CASE("socket: snapshot writes the trigger and reads every range in one exchange", "[socket]") {
  ServerFixture srv;
  auto client = drivers::SimClient::connect_tcp("127.0.0.1", srv.port(), quick_options());
  client->write32(0x300, 7);
  client->write32(0x400, 9);
  client->step(777);
  const std::vector<drivers::BlockRange> ranges = {{StandInRegisterFile::kLatchedCycleAddr, 2}, {0x300, 1}, {0x400, 1}};
  std::vector<std::uint32_t> out(4);
  client->write_then_read(StandInRegisterFile::kSnapshotAddr, 1, ranges, out);
  CHECK(out == std::vector<std::uint32_t>{777, 0, 7, 9});
}

TEST_CASE("socket: free-running mode advances time without STEP and pause stops it", "[socket]") {
  drivers::ServerOptions o;
  o.step_chunk_cycles = 100;
  ServerFixture srv(o);
  auto client = drivers::SimClient::connect_tcp("127.0.0.1", srv.port(), quick_options());
  client->set_mode(Mode::kFreeRunning);
  CHECK(client->mode() == Mode::kFreeRunning);
  const std::uint64_t start = client->cycle();
  std::uint64_t now = start;
  // Liveness, not speed: wait (up to 10 s) for the clock to move on its own.
  for (int i = 0; i < 1000 && now == start; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    now = client->cycle();
  }
  CHECK(now > start);
  client->set_mode(Mode::kLockStep);
  const std::uint64_t paused = client->cycle();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(client->cycle() == paused);
  CHECK(paused % 100 == 0);  // whole chunks only
}

TEST_CASE("socket: metrics come back as the target's JSON string", "[socket]") {
  ServerFixture srv;
  auto client = drivers::SimClient::connect_unix(srv.unix_path(), quick_options());
  client->step(5);
  client->write32(0x100, 1);
  CHECK(client->metrics_json() == R"({"cycle": 5, "writes": 1})");
}

TEST_CASE("socket: several clients at once are all served and the target is never entered twice", "[socket]") {
  drivers::ServerOptions o;
  o.initial_mode = Mode::kFreeRunning;  // the background stepping competes as well
  o.step_chunk_cycles = 50;
  ServerFixture srv(o);
  constexpr int kClients = 4;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int c = 0; c < kClients; ++c) {
    threads.emplace_back([&, c] {
      try {
        auto bus = c % 2 == 0 ? drivers::open_bus(fmt::format("sim://127.0.0.1:{}", srv.port()), quick_options())
                              : drivers::open_bus("unix://" + srv.unix_path(), quick_options());
        const auto addr = static_cast<std::uint32_t>(0x800 + 4 * c);
        for (std::uint32_t i = 0; i < 200; ++i) {
          bus->write32(addr, i * 10 + static_cast<std::uint32_t>(c));
          if (bus->read32(addr) != i * 10 + static_cast<std::uint32_t>(c)) failures.fetch_add(1);
        }
      } catch (const std::exception&) {
        failures.fetch_add(1000);
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(failures.load() == 0);
  CHECK(srv.target().overlapping_entries() == 0);
}

TEST_CASE("socket: a dead server gives a clear error naming the URI, not a hang", "[socket]") {
  std::uint16_t port = 0;
  {
    ServerFixture srv;
    port = srv.port();
  }  // server gone, port closed
  const std::string uri = fmt::format("sim://127.0.0.1:{}", port);
  try {
    (void)drivers::open_bus(uri, quick_options());
    FAIL("connected to a dead server");
  } catch (const drivers::BusError& e) {
    CHECK_THAT(e.what(), Catch::Contains(uri) && Catch::Contains("cannot connect"));
  }
  CHECK_THROWS_WITH(drivers::open_bus("unix:///nonexistent/nicsim.sock", quick_options()),
                    Catch::Contains("unix:///nonexistent/nicsim.sock") && Catch::Contains("cannot connect"));
}

TEST_CASE("socket: a server that accepts but never answers times out", "[socket]") {
  // A listening socket nobody accepts on: the kernel completes the handshake, no reply
  // ever comes.
  const Listener l = listen_on_loopback(4);
  drivers::BusOptions o = quick_options();
  o.timeout = std::chrono::milliseconds(200);
  o.connect_attempts = 1;
  CHECK_THROWS_WITH(drivers::SimClient::connect_tcp("127.0.0.1", l.port, o), Catch::Contains("timed out after 200 ms"));
  ::close(l.fd);
}

TEST_CASE("socket: the client reconnects to a restarted server and retries a read", "[socket]") {
  const std::string path = test::temp_socket_path("nicsched-reconnect");
  const drivers::ServerOptions o = test::unix_only(path);
  auto first = std::make_unique<ServerFixture>(o);
  auto client = drivers::SimClient::connect_unix(path, quick_options());
  first->target().write32(0x100, 1);
  CHECK(client->read32(0x100) == 1);
  first.reset();  // server stops, connection closed

  StandInRegisterFile second_target;
  second_target.write32(0x100, 2);
  ServerFixture second(o, &second_target);
  CHECK(client->read32(0x100) == 2);
}

TEST_CASE("socket: a write whose connection breaks after it was sent says it may not have happened", "[socket]") {
  // A one-shot server: answers HELLO, reads the next request, then closes without a reply.
  const Listener l = listen_on_loopback(1);
  const int fd = l.fd;
  std::thread server([fd] {
    const int c = ::accept(fd, nullptr, nullptr);
    auto read_frame = [c] {
      std::array<std::uint8_t, 8> h{};
      if (::recv(c, h.data(), h.size(), MSG_WAITALL) != 8) return;
      std::vector<std::uint8_t> body(h[0] | (h[1] << 8));
      if (!body.empty()) (void)::recv(c, body.data(), body.size(), MSG_WAITALL);
    };
    read_frame();
    const auto ok = drivers::proto::FrameWriter(drivers::proto::MsgType::kHelloOk, 1)
                        .u16(drivers::proto::kVersionMajor).u16(0).u8(0).u32(16).str16("one-shot").finish();
    (void)::send(c, ok.data(), ok.size(), MSG_NOSIGNAL);
    read_frame();
    ::close(c);
  });
  drivers::BusOptions o = quick_options();
  o.connect_attempts = 1;
  auto client = drivers::SimClient::connect_tcp("127.0.0.1", l.port, o);
  CHECK_THROWS_WITH(client->write32(0x100, 5), Catch::Contains("write32 0x0100") && Catch::Contains("may or may not"));
  server.join();
  ::close(fd);
}

TEST_CASE("socket: a write after the server went away says it cannot connect, not that it may have happened", "[socket]") {
  const std::string path = test::temp_socket_path("nicsched-lostwrite");
  const drivers::ServerOptions o = test::unix_only(path);
  auto srv = std::make_unique<ServerFixture>(o);
  auto client = drivers::SimClient::connect_unix(path, quick_options());
  srv.reset();
  try {
    client->write32(0x100, 5);
    FAIL("a write to a stopped server succeeded");
  } catch (const drivers::BusError& e) {
    CHECK_THAT(e.what(), Catch::Contains("cannot connect") && !Catch::Contains("may or may not"));
  }
}

TEST_CASE("socket: a bad listen address or an occupied Unix path is a ServerError", "[socket]") {
  test::StandInRegisterFile target;
  drivers::ServerOptions o;
  o.handle_signals = false;
  o.tcp_address = "not-an-address";
  CHECK_THROWS_AS(drivers::SimServer(target, o), drivers::ServerError);
  o.tcp_address.reset();
  o.unix_path = test::temp_socket_path("nicsched-regular-file");
  { std::ofstream(o.unix_path) << "not a socket"; }
  CHECK_THROWS_WITH(drivers::SimServer(target, o), Catch::Contains("is not a socket"));
  CHECK(std::filesystem::is_regular_file(o.unix_path));  // left alone
  std::filesystem::remove(o.unix_path);
}
