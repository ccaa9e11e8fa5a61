// SimServer against hostile and broken clients: idle connections, partial frames, peers
// that stop reading, more connections than slots, remote binding and the shared secret.
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "nicsched/drivers/open_bus.hpp"
#include "nicsched/drivers/sim_client.hpp"
#include "nicsched/drivers/sim_protocol.hpp"
#include "server_fixture.hpp"

using namespace nicsched;
using namespace nicsched::drivers::proto;
using namespace std::chrono_literals;
using test::expect_error;
using test::expect_read_works;
using test::RawConn;
using test::ServerFixture;
using test::wait_until;

namespace {

drivers::BusOptions quick_options() {
  drivers::BusOptions o;
  o.timeout = 3000ms;
  o.connect_attempts = 2;
  o.reconnect_backoff = 50ms;
  return o;
}

std::string hex(const std::array<std::uint8_t, 32>& d) {
  std::string s;
  for (std::uint8_t b : d) s += fmt::format("{:02x}", b);
  return s;
}

std::span<const std::uint8_t> bytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

}  // namespace

TEST_CASE("limits: a connection idle past idle_timeout is told why and closed, freeing its slot", "[limits]") {
  ServerFixture srv({.max_clients = 1, .idle_timeout = 300ms, .evict_idle_after = 1min});
  RawConn idle(srv.port());
  idle.hello();
  const ErrorReply e = expect_error(idle, ErrorCode::kTimeout);
  CHECK_THAT(e.message, Catch::Contains("without a request"));
  CHECK_FALSE(idle.recv_frame());
  RawConn next(srv.port());  // the one slot is free again
  next.hello();
  expect_read_works(next, 0x0, test::StandInRegisterFile::kId);
  CHECK(srv.stats().timed_out == 1);
}

TEST_CASE("limits: a client whose idle connection the server closed reconnects before its next write", "[limits]") {
  ServerFixture srv({.idle_timeout = 200ms});
  auto bus = drivers::open_bus(fmt::format("sim://127.0.0.1:{}", srv.port()), quick_options());
  bus->write32(0x100, 1);
  REQUIRE(wait_until([&] { return srv.stats().timed_out == 1; }));
  bus->write32(0x100, 2);  // not "may or may not have reached the target": it reconnects first
  CHECK(srv.target().peek(0x100) == 2);
}

TEST_CASE("limits: a frame not complete within request_timeout of its first byte closes the connection", "[limits]") {
  ServerFixture srv({.request_timeout = 300ms});
  RawConn slow(srv.port());
  slow.hello();
  slow.send({4, 0, 0, 0, 0x02});  // half a READ32 header, then nothing
  CHECK_THAT(expect_error(slow, ErrorCode::kTimeout).message, Catch::Contains("first byte"));
  CHECK_FALSE(slow.recv_frame());

  RawConn dribble(srv.port());  // one byte every 100 ms: each arrives, the frame never completes in time
  dribble.hello();
  const auto frame = FrameWriter(MsgType::kRead32, 5).u32(0).finish();
  for (std::uint8_t b : frame) {
    if (!dribble.try_send({b})) break;
    std::this_thread::sleep_for(100ms);
  }
  CHECK_THAT(expect_error(dribble, ErrorCode::kTimeout).message, Catch::Contains("first byte"));
}

TEST_CASE("limits: a connection that never says HELLO is closed after request_timeout", "[limits]") {
  ServerFixture srv({.idle_timeout = 1min, .request_timeout = 300ms});
  RawConn silent(srv.port());
  CHECK_THAT(expect_error(silent, ErrorCode::kTimeout).message, Catch::Contains("HELLO"));
  CHECK_FALSE(silent.recv_frame());
}

TEST_CASE("limits: a peer that stops reading its replies loses its slot after write_timeout", "[limits]") {
  ServerFixture srv({.max_clients = 2, .write_timeout = 300ms, .evict_idle_after = 1min});
  RawConn hog(srv.port(), 4096);
  hog.hello();
  // 64 KiB replies, never read: the server's socket buffer fills and its write stalls.
  const auto req = FrameWriter(MsgType::kReadBlock, 9).u32(0).u32(1024).finish();
  for (int i = 0; i < 2000 && hog.try_send(req); ++i) {
  }
  REQUIRE(wait_until([&] { return srv.stats().timed_out >= 1; }));
  REQUIRE(wait_until([&] { return srv.stats().connections_now == 0; }));
  auto bus = drivers::open_bus(fmt::format("sim://127.0.0.1:{}", srv.port()), quick_options());
  CHECK(bus->read32(0) == test::StandInRegisterFile::kId);
}

TEST_CASE("limits: with every slot taken, a newcomer replaces the connection idle longest", "[limits]") {
  ServerFixture srv({.max_clients = 3, .evict_idle_after = 200ms});
  std::vector<std::unique_ptr<RawConn>> idle;
  for (int i = 0; i < 3; ++i) {
    idle.push_back(std::make_unique<RawConn>(srv.port()));
    idle.back()->hello();
  }
  std::this_thread::sleep_for(400ms);
  RawConn newcomer(srv.port());
  newcomer.hello();
  expect_read_works(newcomer, 0x0, test::StandInRegisterFile::kId);
  const ErrorReply e = expect_error(*idle.front(), ErrorCode::kTimeout);  // the oldest made room
  CHECK_THAT(e.message, Catch::Contains("make room"));
  CHECK(srv.stats().evicted == 1);
  expect_read_works(*idle[1], 0x0, test::StandInRegisterFile::kId);  // the others still work
}

TEST_CASE("limits: a STEP of a client that has gone stops instead of running on", "[limits]") {
  ServerFixture srv({.step_chunk_cycles = 100});
  {
    RawConn c(srv.port());
    c.hello();
    c.send(FrameWriter(MsgType::kStep, 3).u64(~std::uint64_t{0}).finish());
    std::this_thread::sleep_for(50ms);
  }
  REQUIRE(wait_until([&] { return srv.stats().connections_now == 0; }));
  const std::uint64_t steps = srv.target().step_calls();
  std::this_thread::sleep_for(200ms);
  CHECK(srv.target().step_calls() == steps);
}

TEST_CASE("limits: listening on an address that is not loopback needs allow_remote", "[limits]") {
  for (const char* addr : {"0.0.0.0", "192.0.2.1"}) {
    drivers::ServerOptions o;
    o.tcp_address = addr;
    o.handle_signals = false;
    test::StandInRegisterFile target;
    try {
      drivers::SimServer server(target, o);
      FAIL("bound " << addr << " without allow_remote");
    } catch (const drivers::ServerError& e) {
      CHECK_THAT(e.what(), Catch::Contains("allow-remote") && Catch::Contains(addr));
    }
  }
}

TEST_CASE("auth: SHA-256 and HMAC-SHA256 give the published test vectors", "[auth]") {
  CHECK(hex(sha256({})) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(hex(sha256(bytes("abc"))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(hex(sha256(bytes("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))) ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // RFC 4231 test cases 1, 2 and 6 (a key longer than the block).
  const std::vector<std::uint8_t> key1(20, 0x0b);
  CHECK(hex(hmac_sha256(key1, bytes("Hi There"))) ==
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  CHECK(hex(hmac_sha256(bytes("Jefe"), bytes("what do ya want for nothing?"))) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  const std::vector<std::uint8_t> key6(131, 0xaa);
  CHECK(hex(hmac_sha256(key6, bytes("Test Using Larger Than Block-Size Key - Hash Key First"))) ==
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST_CASE("auth: with a secret, only clients that prove it get in, old clients get a clear refusal", "[auth]") {
  drivers::ServerOptions o;
  o.secret = "correct horse battery staple";
  ServerFixture srv(o);
  const std::string uri = fmt::format("sim://127.0.0.1:{}", srv.port());

  auto good = quick_options();
  good.secret = o.secret;
  auto bus = drivers::open_bus(uri, good);
  bus->write32(0x100, 7);
  CHECK(bus->read32(0x100) == 7);

  auto wrong = quick_options();
  wrong.secret = "Tr0ub4dor&3";
  CHECK_THROWS_WITH(drivers::open_bus(uri, wrong), Catch::Contains("wrong shared secret"));
  CHECK_THROWS_WITH(drivers::open_bus(uri, quick_options()), Catch::Contains("NICSCHED_SECRET_FILE"));

  RawConn old(srv.port());  // a protocol 1.0 client cannot authenticate
  old.send(FrameWriter(MsgType::kHello, 1).u16(kVersionMajor).u16(0).str16("old client").finish());
  CHECK_THAT(expect_error(old, ErrorCode::kAuth).message, Catch::Contains("1.1"));
  CHECK_FALSE(old.recv_frame());

  RawConn skip(srv.port());  // HELLO, then a request without AUTH
  skip.hello();
  skip.send(FrameWriter(MsgType::kWrite32, 2).u32(0x100).u32(99).finish());
  CHECK_THAT(expect_error(skip, ErrorCode::kAuth).message, Catch::Contains("before AUTH"));
  CHECK_FALSE(skip.recv_frame());
  CHECK(srv.target().peek(0x100) == 7);  // the unauthenticated write never happened
  CHECK(srv.stats().auth_failures == 3);  // wrong secret, 1.0 client, request before AUTH
}

TEST_CASE("auth: without a secret, 1.0 and 1.1 clients both work and AUTH is refused", "[auth]") {
  ServerFixture srv;
  RawConn old(srv.port());
  const auto body = old.hello(0, "old client");
  BodyReader r(MsgType::kHelloOk, body);
  (void)r.u16("major");
  CHECK(r.u16("minor") == kVersionMinor);
  (void)r.u8("mode");
  (void)r.u32("max_burst_words");
  (void)r.str16("server");
  CHECK(r.remaining() == 0);  // a 1.0 client gets the 1.0 reply
  expect_read_works(old, 0x0, test::StandInRegisterFile::kId);

  RawConn now(srv.port());
  const auto body11 = now.hello();
  BodyReader r11(MsgType::kHelloOk, body11);
  (void)r11.u16("major");
  (void)r11.u16("minor");
  (void)r11.u8("mode");
  (void)r11.u32("max_burst_words");
  (void)r11.str16("server");
  CHECK(r11.u8("auth_required") == 0);
  now.send(FrameWriter(MsgType::kAuth, 4).u64(0).u64(0).u64(0).u64(0).finish());
  CHECK_THAT(expect_error(now, ErrorCode::kMalformed).message, Catch::Contains("no shared secret"));
  expect_read_works(now, 0x0, test::StandInRegisterFile::kId);
}

TEST_CASE("auth: secret files must be regular, non-empty and small", "[auth]") {
  const auto dir = std::filesystem::temp_directory_path();
  const auto good = dir / fmt::format("nicsched-secret-{}", ::getpid());
  std::ofstream(good) << "s3cret\n";
  CHECK(load_secret_file(good.string()) == "s3cret");
  const auto empty = dir / fmt::format("nicsched-secret-empty-{}", ::getpid());
  std::ofstream(empty) << "";
  CHECK_THROWS_WITH(load_secret_file(empty.string()), Catch::Contains("empty"));
  CHECK_THROWS_WITH(load_secret_file(dir.string()), Catch::Contains("not a regular file"));
  CHECK_THROWS_WITH(load_secret_file("/nonexistent/secret"), Catch::Contains("/nonexistent/secret"));
  std::filesystem::remove(good);
  std::filesystem::remove(empty);
}
