#include "nicsched/drivers/sim_protocol.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
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
    case MsgType::kAuth: return "AUTH";
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
    case MsgType::kAuthOk: return "AUTH_OK";
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
    case ErrorCode::kTimeout: return "timed out";
    case ErrorCode::kAuth: return "authentication failed";
    case ErrorCode::kHeld: return "NIC held by another client";
    case ErrorCode::kDiscarded: return "uncommitted writes discarded";
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

namespace {

constexpr std::array<std::uint32_t, 64> kSha256K{
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void sha256_block(std::array<std::uint32_t, 8>& h, const std::uint8_t* p) {
  std::array<std::uint32_t, 64> w{};
  for (std::size_t i = 0; i < 16; ++i) {
    w[i] = (static_cast<std::uint32_t>(p[4 * i]) << 24) | (static_cast<std::uint32_t>(p[4 * i + 1]) << 16) |
           (static_cast<std::uint32_t>(p[4 * i + 2]) << 8) | static_cast<std::uint32_t>(p[4 * i + 3]);
  }
  for (std::size_t i = 16; i < 64; ++i) {
    const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  auto [a, b, c, d, e, f, g, hh] = h;
  for (std::size_t i = 0; i < 64; ++i) {
    const std::uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kSha256K[i] + w[i];
    const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    hh = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

}  // namespace

std::array<std::uint8_t, 32> sha256(std::span<const std::uint8_t> data) {
  std::array<std::uint32_t, 8> h{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::size_t i = 0;
  for (; i + 64 <= data.size(); i += 64) sha256_block(h, data.data() + i);
  // Last one or two blocks: the rest, 0x80, zeros, the length in bits (big-endian).
  std::array<std::uint8_t, 128> tail{};
  const std::size_t rest = data.size() - i;
  std::memcpy(tail.data(), data.data() + i, rest);
  tail[rest] = 0x80;
  const std::size_t tail_len = rest + 9 <= 64 ? 64 : 128;
  const std::uint64_t bits = static_cast<std::uint64_t>(data.size()) * 8;
  for (std::size_t k = 0; k < 8; ++k) tail[tail_len - 1 - k] = static_cast<std::uint8_t>(bits >> (8 * k));
  for (std::size_t at = 0; at < tail_len; at += 64) sha256_block(h, tail.data() + at);
  std::array<std::uint8_t, 32> out{};
  for (std::size_t k = 0; k < 8; ++k) {
    for (std::size_t b = 0; b < 4; ++b) out[4 * k + b] = static_cast<std::uint8_t>(h[k] >> (24 - 8 * b));
  }
  return out;
}

std::array<std::uint8_t, 32> hmac_sha256(std::span<const std::uint8_t> key, std::span<const std::uint8_t> message) {
  std::array<std::uint8_t, 64> k{};
  if (key.size() > 64) {
    const auto hk = sha256(key);
    std::memcpy(k.data(), hk.data(), hk.size());
  } else {
    std::memcpy(k.data(), key.data(), key.size());
  }
  std::vector<std::uint8_t> inner(64 + message.size());
  for (std::size_t i = 0; i < 64; ++i) inner[i] = k[i] ^ 0x36;
  std::memcpy(inner.data() + 64, message.data(), message.size());
  const auto ih = sha256(inner);
  std::array<std::uint8_t, 96> outer{};
  for (std::size_t i = 0; i < 64; ++i) outer[i] = k[i] ^ 0x5c;
  std::memcpy(outer.data() + 64, ih.data(), ih.size());
  return sha256(outer);
}

Mac auth_mac(std::string_view secret, const Nonce& nonce, std::string_view client_name) {
  static constexpr std::string_view kLabel = "nicsim-auth-v1";
  std::vector<std::uint8_t> msg(kLabel.begin(), kLabel.end());
  msg.insert(msg.end(), nonce.begin(), nonce.end());
  msg.insert(msg.end(), client_name.begin(), client_name.end());
  const auto* key = reinterpret_cast<const std::uint8_t*>(secret.data());
  return hmac_sha256({key, secret.size()}, msg);
}

bool mac_equal(const Mac& a, const Mac& b) {
  std::uint8_t diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff = static_cast<std::uint8_t>(diff | (a[i] ^ b[i]));
  return diff == 0;
}

std::string load_secret_file(const std::string& path) {
  constexpr std::size_t kMaxSecretBytes = 4096;
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused as not regular.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw ProtocolError(fmt::format("secret file {}: {}", path, std::strerror(errno)));
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  std::string s(kMaxSecretBytes + 1, '\0');
  std::size_t got = 0;
  while (regular && got < s.size()) {
    const ssize_t n = ::read(fd, s.data() + got, s.size() - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (!regular) throw ProtocolError(fmt::format("secret file {}: not a regular file", path));
  if (got > kMaxSecretBytes) {
    throw ProtocolError(fmt::format("secret file {}: more than {} bytes", path, kMaxSecretBytes));
  }
  s.resize(got);
  if (!s.empty() && s.back() == '\n') s.pop_back();
  if (!s.empty() && s.back() == '\r') s.pop_back();
  if (s.empty()) throw ProtocolError(fmt::format("secret file {}: empty", path));
  return s;
}

}  // namespace nicsched::drivers::proto
