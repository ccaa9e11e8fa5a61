// The nicsim wire format: the codec itself, and how the server treats broken, unknown,
// oversized and out-of-order messages (it answers or closes, and keeps serving others).
#include <catch2/catch.hpp>

#include "nicsched/drivers/sim_client.hpp"
#include "nicsched/drivers/sim_protocol.hpp"
#include "server_fixture.hpp"

using namespace nicsched;
using namespace nicsched::drivers::proto;
using test::RawConn;
using test::ServerFixture;

using test::expect_error;
using test::expect_read_works;

TEST_CASE("protocol: a frame is a little-endian header with the body length, type and tag", "[protocol]") {
  const auto frame = FrameWriter(MsgType::kWrite32, 0x1234).u32(0x10).u32(0xA1B2C3D4).finish();
  REQUIRE(frame.size() == kHeaderBytes + 8);
  const std::vector<std::uint8_t> expected = {8, 0, 0, 0, 0x03, 0, 0x34, 0x12,
                                              0x10, 0, 0, 0, 0xD4, 0xC3, 0xB2, 0xA1};
  CHECK(frame == expected);
  const Header h = decode_header(std::span<const std::uint8_t, kHeaderBytes>(frame.data(), kHeaderBytes));
  CHECK(h.body_len == 8);
  CHECK(h.type == MsgType::kWrite32);
  CHECK(h.tag == 0x1234);
}

TEST_CASE("protocol: strings and 64-bit fields round-trip and short bodies name the field", "[protocol]") {
  const auto frame = FrameWriter(MsgType::kHelloOk, 1).u64(0x0102030405060708ULL).str16("héllo").str32("{}").finish();
  const std::span<const std::uint8_t> body(frame.data() + kHeaderBytes, frame.size() - kHeaderBytes);
  BodyReader r(MsgType::kHelloOk, body);
  CHECK(r.u64("a") == 0x0102030405060708ULL);
  CHECK(r.str16("b") == "héllo");
  CHECK(r.str32("c") == "{}");
  r.expect_end();
  BodyReader shortr(MsgType::kRead32, body.first(3));
  CHECK_THROWS_WITH(shortr.u32("addr"), Catch::Contains("READ32") && Catch::Contains("'addr'"));
  BodyReader longr(MsgType::kStatus, body);
  CHECK_THROWS_WITH(longr.expect_end(), Catch::Contains("too long"));
}

TEST_CASE("protocol: ERROR frames carry code, AXI response, address and message", "[protocol]") {
  const auto frame = encode_error(9, {ErrorCode::kBusResponse, 3, 0x4000, "DECERR at 0x4000"});
  const ErrorReply e = decode_error(std::span<const std::uint8_t>(frame).subspan(kHeaderBytes));
  CHECK(e.code == ErrorCode::kBusResponse);
  CHECK(e.axi_resp == 3);
  CHECK(e.addr == 0x4000);
  CHECK(e.message == "DECERR at 0x4000");
}

TEST_CASE("protocol: a request before HELLO is refused, then HELLO makes the connection usable", "[protocol]") {
  ServerFixture srv;
  srv.target().write32(0x100, 42);
  RawConn c(srv.port());
  c.send(FrameWriter(MsgType::kRead32, 5).u32(0x100).finish());
  const ErrorReply e = expect_error(c, ErrorCode::kNoHello);
  CHECK_THAT(e.message, Catch::Contains("HELLO"));
  c.hello();
  expect_read_works(c, 0x100, 42);
}

TEST_CASE("protocol: a body too short or too long for its type gets an error and the connection stays", "[protocol]") {
  ServerFixture srv;
  srv.target().write32(0x100, 42);
  RawConn c(srv.port());
  c.hello();
  c.send(FrameWriter(MsgType::kRead32, 6).u16(0x100).finish());  // 2 bytes where 4 are needed
  CHECK_THAT(expect_error(c, ErrorCode::kMalformed).message, Catch::Contains("addr"));
  c.send(FrameWriter(MsgType::kWrite32, 7).u32(0x100).u32(1).u32(2).finish());  // 4 bytes extra
  CHECK_THAT(expect_error(c, ErrorCode::kMalformed).message, Catch::Contains("too long"));
  CHECK(srv.target().peek(0x100) == 42);  // the malformed write did nothing
  c.send(FrameWriter(MsgType::kWriteBatch, 8).u32(3).u32(0x100).u32(1).finish());  // announces 3, carries 1
  expect_error(c, ErrorCode::kMalformed);
  CHECK(srv.target().peek(0x100) == 42);  // nothing of the batch was written
  c.send(FrameWriter(MsgType::kSetMode, 9).u8(7).finish());
  expect_error(c, ErrorCode::kMalformed);
  c.send(FrameWriter(MsgType::kReadBlock, 10).u32(0).u32(kMaxBurstWords + 1).finish());
  expect_error(c, ErrorCode::kMalformed);
  expect_read_works(c, 0x100, 42);
}

TEST_CASE("protocol: an unknown message type gets an error and the connection stays", "[protocol]") {
  ServerFixture srv;
  RawConn c(srv.port());
  c.hello();
  c.send(FrameWriter(static_cast<MsgType>(0x55), 3).u32(1).finish());
  expect_error(c, ErrorCode::kUnknownType);
  c.send(FrameWriter(MsgType::kRead32Ok, 4).u32(1).finish());  // a response type sent as request
  expect_error(c, ErrorCode::kUnknownType);
  expect_read_works(c, 0x0, test::StandInRegisterFile::kId);
}

TEST_CASE("protocol: an oversized message is refused, its connection closed, and others are still served", "[protocol]") {
  ServerFixture srv;
  RawConn other(srv.port());
  other.hello();
  RawConn bad(srv.port());
  bad.hello();
  std::vector<std::uint8_t> header = {0, 0, 0, 0x40, static_cast<std::uint8_t>(MsgType::kWriteBatch), 0, 1, 0};  // 1 GiB body
  bad.send(header);
  const ErrorReply e = expect_error(bad, ErrorCode::kTooLarge);
  CHECK_THAT(e.message, Catch::Contains("1073741824"));
  CHECK_FALSE(bad.recv_frame());  // closed
  expect_read_works(other, 0x0, test::StandInRegisterFile::kId);
}

TEST_CASE("protocol: a broken header or another major version closes only that connection", "[protocol]") {
  ServerFixture srv;
  {
    RawConn c(srv.port());
    c.send({4, 0, 0, 0, 0x02, 0xEE, 1, 0, 0, 0, 0, 0});  // reserved byte set
    expect_error(c, ErrorCode::kMalformed);
    CHECK_FALSE(c.recv_frame());
  }
  {
    RawConn c(srv.port());
    c.send(FrameWriter(MsgType::kHello, 1).u16(kVersionMajor + 1).u16(0).str16("future client").finish());
    CHECK_THAT(expect_error(c, ErrorCode::kVersion).message, Catch::Contains("future client"));
    CHECK_FALSE(c.recv_frame());
  }
  {
    RawConn c(srv.port());  // announces a body, sends half of it, hangs up
    c.send({16, 0, 0, 0, 0x03, 0, 1, 0, 1, 2, 3});
  }
  RawConn c(srv.port());
  c.hello();
  expect_read_works(c, 0x0, test::StandInRegisterFile::kId);
}

TEST_CASE("protocol: clients beyond max_clients are told the server is busy", "[protocol]") {
  drivers::ServerOptions o;
  o.max_clients = 1;
  o.evict_idle_after = std::chrono::minutes(1);  // the first client is never idle long enough to give way
  ServerFixture srv(o);
  RawConn first(srv.port());
  first.hello();
  RawConn second(srv.port());
  const ErrorReply e = expect_error(second, ErrorCode::kBusy);
  CHECK_THAT(e.message, Catch::Contains("busy"));
  CHECK_FALSE(second.recv_frame());
  expect_read_works(first, 0x0, test::StandInRegisterFile::kId);
}
