#include "nicsched/drivers/sim_protocol.hpp"

#include <fmt/format.h>

#include <limits>

namespace nicsched::drivers::proto {

const char* to_string(MsgType t) {
  switch (t) {
    case MsgType::kHello: return "HELLO";
    case MsgType::kRead32: return "READ32";
    case MsgType::kWrite32: return "WRITE32";
    case MsgType::kReadBlock: return "READ_BLOCK";
    case MsgType::kWriteBatch: return "WRITE_BATCH";
    case MsgType::kSnapshot: return "SNAPSHOT";
    case MsgType::kStep: return "STEP";
    case MsgType::kSetMode: return "SET_MODE";
    case MsgType::kStatus: return "STATUS";
    case MsgType::kMetrics: return "METRICS";
    case MsgType::kReadRanges: return "READ_RANGES";
    case MsgType::kHelloOk: return "HELLO_OK";
    case MsgType::kRead32Ok: return "READ32_OK";
    case MsgType::kWrite32Ok: return "WRITE32_OK";
    case MsgType::kReadBlockOk: return "READ_BLOCK_OK";
    case MsgType::kWriteBatchOk: return "WRITE_BATCH_OK";
    case MsgType::kSnapshotOk: return "SNAPSHOT_OK";
    case MsgType::kStepOk: return "STEP_OK";
    case MsgType::kSetModeOk: return "SET_MODE_OK";
    case MsgType::kStatusOk: return "STATUS_OK";
    case MsgType::kMetricsOk: return "METRICS_OK";
    case MsgType::kReadRangesOk: return "READ_RANGES_OK";
    case MsgType::kError: return "ERROR";
  }
  return "UNKNOWN";
}

const char* to_string(ErrorCode c) {
  switch (c) {
    case ErrorCode::kMalformed: return "malformed message";
    case ErrorCode::kUnknownType: return "unknown message type";
    case ErrorCode::kTooLarge: return "message too large";
    case ErrorCode::kVersion: return "protocol version mismatch";
    case ErrorCode::kNoHello: return "HELLO expected first";
    case ErrorCode::kBusResponse: return "AXI error response";
    case ErrorCode::kBusError: return "bus error";
    case ErrorCode::kTarget: return "target error";
    case ErrorCode::kBusy: return "server busy";
  }
  return "unknown error";
}

const char* to_string(Mode m) {
  return m == Mode::kFreeRunning ? "free-running" : "lock-step";
}

Header decode_header(std::span<const std::uint8_t, kHeaderBytes> b) {
  Header h;
  h.body_len = static_cast<std::uint32_t>(b[0]) | (static_cast<std::uint32_t>(b[1]) << 8) |
               (static_cast<std::uint32_t>(b[2]) << 16) | (static_cast<std::uint32_t>(b[3]) << 24);
  h.type = static_cast<MsgType>(b[4]);
  if (b[5] != 0) {
    throw ProtocolError(fmt::format("frame header: reserved byte is 0x{:02x}, must be 0", b[5]));
  }
  h.tag = static_cast<std::uint16_t>(b[6] | (b[7] << 8));
  return h;
}

FrameWriter::FrameWriter(MsgType type, std::uint16_t tag) {
  buf_.reserve(64);
  buf_.resize(kHeaderBytes, 0);
  buf_[4] = static_cast<std::uint8_t>(type);
  buf_[6] = static_cast<std::uint8_t>(tag & 0xFF);
  buf_[7] = static_cast<std::uint8_t>(tag >> 8);
}

FrameWriter& FrameWriter::u8(std::uint8_t v) {
  buf_.push_back(v);
  return *this;
}
FrameWriter& FrameWriter::u16(std::uint16_t v) {
  buf_.push_back(static_cast<std::uint8_t>(v & 0xFF));
  buf_.push_back(static_cast<std::uint8_t>(v >> 8));
  return *this;
}
FrameWriter& FrameWriter::u32(std::uint32_t v) {
  for (int i = 0; i < 4; ++i) buf_.push_back(static_cast<std::uint8_t>((v >> (8 * i)) & 0xFF));
  return *this;
}
FrameWriter& FrameWriter::u64(std::uint64_t v) {
  for (int i = 0; i < 8; ++i) buf_.push_back(static_cast<std::uint8_t>((v >> (8 * i)) & 0xFF));
  return *this;
}
FrameWriter& FrameWriter::str16(std::string_view s) {
  if (s.size() > std::numeric_limits<std::uint16_t>::max()) {
    throw ProtocolError(fmt::format("string of {} bytes does not fit a u16 length", s.size()));
  }
  u16(static_cast<std::uint16_t>(s.size()));
  buf_.insert(buf_.end(), s.begin(), s.end());
  return *this;
}
FrameWriter& FrameWriter::str32(std::string_view s) {
  u32(static_cast<std::uint32_t>(s.size()));
  buf_.insert(buf_.end(), s.begin(), s.end());
  return *this;
}

std::vector<std::uint8_t> FrameWriter::finish() {
  const auto len = static_cast<std::uint32_t>(buf_.size() - kHeaderBytes);
  for (int i = 0; i < 4; ++i) buf_[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>((len >> (8 * i)) & 0xFF);
  return std::move(buf_);
}

std::span<const std::uint8_t> BodyReader::take(std::size_t n, const char* field) {
  if (body_.size() - pos_ < n) {
    throw ProtocolError(fmt::format("{} body too short: field '{}' needs {} bytes at offset {}, body has {}",
                                    to_string(type_), field, n, pos_, body_.size()));
  }
  auto s = body_.subspan(pos_, n);
  pos_ += n;
  return s;
}

std::uint8_t BodyReader::u8(const char* field) { return take(1, field)[0]; }
std::uint16_t BodyReader::u16(const char* field) {
  auto b = take(2, field);
  return static_cast<std::uint16_t>(b[0] | (b[1] << 8));
}
std::uint32_t BodyReader::u32(const char* field) {
  auto b = take(4, field);
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(b[i]) << (8 * i);
  return v;
}
std::uint64_t BodyReader::u64(const char* field) {
  auto b = take(8, field);
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(b[i]) << (8 * i);
  return v;
}
std::string BodyReader::str16(const char* field) {
  const std::uint16_t n = u16(field);
  auto b = take(n, field);
  return {b.begin(), b.end()};
}
std::string BodyReader::str32(const char* field) {
  const std::uint32_t n = u32(field);
  auto b = take(n, field);
  return {b.begin(), b.end()};
}
void BodyReader::expect_end() const {
  if (pos_ != body_.size()) {
    throw ProtocolError(fmt::format("{} body too long: {} bytes, {} expected", to_string(type_),
                                    body_.size(), pos_));
  }
}

std::vector<std::uint8_t> encode_error(std::uint16_t tag, const ErrorReply& e) {
  FrameWriter w(MsgType::kError, tag);
  w.u16(static_cast<std::uint16_t>(e.code)).u8(e.axi_resp).u32(e.addr);
  // A message longer than a u16 is cut rather than failing the error path itself.
  w.str16(std::string_view(e.message).substr(0, 4096));
  return std::move(w).finish();
}

ErrorReply decode_error(std::span<const std::uint8_t> body) {
  BodyReader r(MsgType::kError, body);
  ErrorReply e;
  e.code = static_cast<ErrorCode>(r.u16("code"));
  e.axi_resp = r.u8("axi_resp");
  e.addr = r.u32("addr");
  e.message = r.str16("message");
  r.expect_end();
  return e;
}

}  // namespace nicsched::drivers::proto
