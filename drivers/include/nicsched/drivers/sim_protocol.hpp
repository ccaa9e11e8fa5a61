// The nicsim wire protocol: small, versioned, length-prefixed binary messages between a
// register-bus client (sim:// and unix:// URIs) and `nicsim serve` (SimServer).
// The byte-level format is documented in docs/protocol.md; this header is its codec.
//
// Every message is a frame: an 8-byte header, then `body_len` bytes of body.
//   u32 body_len | u8 type | u8 reserved (0) | u16 tag
// All integers are little-endian. A response carries the tag of its request. Strings are a
// length (u16, or u32 where noted) followed by that many bytes of UTF-8, no terminator.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nicsched::drivers::proto {

inline constexpr std::uint16_t kVersionMajor = 1;  // incompatible changes
inline constexpr std::uint16_t kVersionMinor = 1;  // compatible additions (1.1: AUTH)

inline constexpr std::size_t kHeaderBytes = 8;
// Largest request body the server accepts; a longer announced body is answered with
// kTooLarge and the connection is closed (the stream cannot be trusted past it).
inline constexpr std::uint32_t kMaxRequestBody = 64 * 1024;
// Largest response body a client accepts (metrics JSON can be long).
inline constexpr std::uint32_t kMaxResponseBody = 16 * 1024 * 1024;
// Most words one READ_BLOCK or SNAPSHOT may return (the whole 64 KiB register space).
inline constexpr std::uint32_t kMaxBurstWords = 16 * 1024;

enum class MsgType : std::uint8_t {
  // requests
  kHello = 0x01,       // u16 major, u16 minor, str16 client name
  kRead32 = 0x02,      // u32 addr
  kWrite32 = 0x03,     // u32 addr, u32 value
  kReadBlock = 0x04,   // u32 addr, u32 count
  kWriteBatch = 0x05,  // u32 n, n x (u32 addr, u32 value)
  kSnapshot = 0x06,    // u32 trigger_addr, u32 trigger_value, u32 n, n x (u32 addr, u32 count)
  kStep = 0x07,        // u64 cycles
  kSetMode = 0x08,     // u8 mode
  kStatus = 0x09,      // (empty)
  kMetrics = 0x0A,     // (empty)
  kReadRanges = 0x0B,  // u32 n, n x (u32 addr, u32 count)
  kAuth = 0x0C,        // 32 bytes: auth_mac(secret, nonce, client name)   (1.1)
  // responses: request type | 0x80
  kHelloOk = 0x81,       // u16 major, u16 minor, u8 mode, u32 max_burst_words, str16 server;
                         // to a client of minor >= 1 also: u8 auth_required, 32 bytes nonce
  kRead32Ok = 0x82,      // u32 value
  kWrite32Ok = 0x83,     // (empty)
  kReadBlockOk = 0x84,   // u32 count, count x u32
  kWriteBatchOk = 0x85,  // u32 n written
  kSnapshotOk = 0x86,    // u32 count, count x u32
  kStepOk = 0x87,        // u64 cycle after the step
  kSetModeOk = 0x88,     // u8 mode, u64 cycle
  kStatusOk = 0x89,      // u8 mode, u64 cycle
  kMetricsOk = 0x8A,     // str32 JSON
  kReadRangesOk = 0x8B,  // u32 count, count x u32
  kAuthOk = 0x8C,        // (empty)
  kError = 0xFF,         // u16 code, u8 axi_resp, u32 addr, str16 message
};

// Lock-step: simulated time advances only on STEP. Free-running: the server advances
// the target in chunks between requests.
enum class Mode : std::uint8_t { kLockStep = 0, kFreeRunning = 1 };

enum class ErrorCode : std::uint16_t {
  kMalformed = 1,     // body too short/long for its type, bad field value; connection kept
  kUnknownType = 2,   // type not a request; connection kept
  kTooLarge = 3,      // body_len above the limit; connection closed
  kVersion = 4,       // HELLO with another major version; connection closed
  kNoHello = 5,       // request before HELLO; connection kept
  kBusResponse = 6,   // the target answered with an AXI error (axi_resp: 2 SLVERR, 3 DECERR)
  kBusError = 7,      // the target failed the access otherwise (bad address, ...)
  kTarget = 8,        // any other failure inside the target
  kBusy = 9,          // too many clients; connection closed
  kTimeout = 10,      // idle too long, or a frame not complete in time; connection closed
  kAuth = 11,         // authentication required, or the AUTH proof is wrong; connection closed
  kHeld = 12,         // shadow registers hold another client's uncommitted writes; kept
  kDiscarded = 13,    // this client's uncommitted shadow writes were discarded; kept
};

// Shared-secret handshake (protocol 1.1, docs/protocol.md "Authentication").
inline constexpr std::size_t kNonceBytes = 32;
inline constexpr std::size_t kMacBytes = 32;
using Nonce = std::array<std::uint8_t, kNonceBytes>;
using Mac = std::array<std::uint8_t, kMacBytes>;
// HMAC-SHA256(key = secret, message = "nicsim-auth-v1" | nonce | client name).
[[nodiscard]] Mac auth_mac(std::string_view secret, const Nonce& nonce, std::string_view client_name);
// SHA-256 and HMAC-SHA256 (FIPS 180-4, RFC 2104), for the handshake.
[[nodiscard]] std::array<std::uint8_t, 32> sha256(std::span<const std::uint8_t> data);
[[nodiscard]] std::array<std::uint8_t, 32> hmac_sha256(std::span<const std::uint8_t> key,
                                                       std::span<const std::uint8_t> message);
// Constant-time comparison of two MACs.
[[nodiscard]] bool mac_equal(const Mac& a, const Mac& b);

// A shared secret kept in a file (the whole file, one trailing newline removed). Throws
// ProtocolError naming the file when it cannot be read, is not a regular file, is empty
// or larger than 4 KiB.
[[nodiscard]] std::string load_secret_file(const std::string& path);

[[nodiscard]] const char* to_string(MsgType t);
[[nodiscard]] const char* to_string(ErrorCode c);
[[nodiscard]] const char* to_string(Mode m);

// A frame that breaks the format (short body, bad header, unexpected type).
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Header {
  std::uint32_t body_len = 0;
  MsgType type = MsgType::kError;
  std::uint16_t tag = 0;
};

// Parses the 8 header bytes. Throws ProtocolError if the reserved byte is not zero.
[[nodiscard]] Header decode_header(std::span<const std::uint8_t, kHeaderBytes> bytes);

// Builds a whole frame (header + body).
class FrameWriter {
 public:
  FrameWriter(MsgType type, std::uint16_t tag);
  FrameWriter& u8(std::uint8_t v);
  FrameWriter& u16(std::uint16_t v);
  FrameWriter& u32(std::uint32_t v);
  FrameWriter& u64(std::uint64_t v);
  FrameWriter& str16(std::string_view s);  // throws ProtocolError if longer than 65535
  FrameWriter& str32(std::string_view s);
  // The finished frame (body_len filled in); the writer is left empty.
  [[nodiscard]] std::vector<std::uint8_t> finish();

 private:
  std::vector<std::uint8_t> buf_;
};

// Reads a body field by field; every getter throws ProtocolError when the body is short,
// naming the message type and the field.
class BodyReader {
 public:
  BodyReader(MsgType type, std::span<const std::uint8_t> body) : type_(type), body_(body) {}
  std::uint8_t u8(const char* field);
  std::uint16_t u16(const char* field);
  std::uint32_t u32(const char* field);
  std::uint64_t u64(const char* field);
  std::string str16(const char* field);
  std::string str32(const char* field);
  [[nodiscard]] std::size_t remaining() const { return body_.size() - pos_; }
  // Throws ProtocolError if bytes are left over.
  void expect_end() const;

 private:
  std::span<const std::uint8_t> take(std::size_t n, const char* field);
  MsgType type_;
  std::span<const std::uint8_t> body_;
  std::size_t pos_ = 0;
};

// An ERROR frame's contents.
struct ErrorReply {
  ErrorCode code = ErrorCode::kTarget;
  std::uint8_t axi_resp = 0;  // 2 SLVERR, 3 DECERR when code == kBusResponse, else 0
  std::uint32_t addr = 0;     // the register address concerned, 0 if none
  std::string message;
};

[[nodiscard]] std::vector<std::uint8_t> encode_error(std::uint16_t tag, const ErrorReply& e);
[[nodiscard]] ErrorReply decode_error(std::span<const std::uint8_t> body);

}  // namespace nicsched::drivers::proto
