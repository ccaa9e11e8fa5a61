// Tagged frame construction and checking.
#include "nicsched/sim/frame.hpp"

#include <array>
#include <cstring>

#include "nicsched/sim/error.hpp"
#include "nicsched/sim/packet.hpp"

namespace nicsched::sim {
namespace {

constexpr std::uint32_t kTagOffset = kHeaderBytes;

void put32le(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
void put64le(std::uint8_t* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
std::uint32_t get32le(const std::uint8_t* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
std::uint64_t get64le(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
std::uint32_t tag_check(std::uint64_t id, std::uint32_t len) {
  return static_cast<std::uint32_t>(id * 2654435761ULL) ^ len;
}

// The filler pattern of a packet with seed 0: byte i is 7 i + i / 256 (mod 256).
const std::array<std::uint8_t, kMaxTaggedFrame>& filler_pattern() {
  static const std::array<std::uint8_t, kMaxTaggedFrame> pattern = [] {
    std::array<std::uint8_t, kMaxTaggedFrame> p{};
    for (std::uint32_t i = 0; i < kMaxTaggedFrame; ++i) {
      p[i] = static_cast<std::uint8_t>(static_cast<std::uint8_t>(i * 7U) + static_cast<std::uint8_t>(i >> 8));
    }
    return p;
  }();
  return pattern;
}

}  // namespace

const std::array<std::uint8_t, kHeaderBytes>& FrameBuilder::header(std::uint32_t frame_len, const FlowId& flow,
                                                                   std::uint8_t tenant) {
  const std::uint64_t key = (static_cast<std::uint64_t>(flow.vlan) << 52) ^
                            (static_cast<std::uint64_t>(flow.dscp) << 46) ^
                            (static_cast<std::uint64_t>(tenant) << 40) ^
                            (static_cast<std::uint64_t>(flow.src_port) << 24) ^
                            (static_cast<std::uint64_t>(flow.dst_port) << 14) ^ frame_len;
  auto it = headers_.find(key);
  if (it != headers_.end()) return it->second;
  PacketSpec spec;
  spec.dst_mac = {0x02, 0x00, 0x00, 0x00, 0x01, tenant};
  spec.src_mac = {0x02, 0x00, 0x00, 0x00, 0x00, tenant};
  spec.vlan_id = flow.vlan;
  spec.dscp = flow.dscp;
  spec.protocol = kProtoUdp;
  spec.src_port = flow.src_port;
  spec.dst_port = flow.dst_port;
  spec.src_ip4 = 0x0A000001U | (static_cast<std::uint32_t>(tenant) << 8);
  spec.dst_ip4 = 0x0A000002U | (static_cast<std::uint32_t>(tenant) << 8);
  spec.payload_bytes = frame_len - kHeaderBytes;
  const auto bytes = build_packet(spec);
  if (bytes.size() != frame_len) {
    throw SimError("FrameBuilder: packet builder wrote " + std::to_string(bytes.size()) + " bytes for a " +
                   std::to_string(frame_len) + "-byte frame");
  }
  std::array<std::uint8_t, kHeaderBytes> h{};
  std::memcpy(h.data(), bytes.data(), kHeaderBytes);
  return headers_.emplace(key, h).first->second;
}

void FrameBuilder::build(std::uint8_t* out, std::uint32_t frame_len, const FlowId& flow, const Tag& tag) {
  if (frame_len < kMinTaggedFrame || frame_len > kMaxTaggedFrame) {
    throw SimError("FrameBuilder: frame length " + std::to_string(frame_len) + " outside [" +
                   std::to_string(kMinTaggedFrame) + ", " + std::to_string(kMaxTaggedFrame) + "]");
  }
  std::memcpy(out, header(frame_len, flow, tag.tenant).data(), kHeaderBytes);
  std::uint8_t* t = out + kTagOffset;
  put32le(t, kTagMagic);
  t[4] = tag.tenant;
  t[5] = tag.flow;
  t[6] = 0;
  t[7] = 0;
  put64le(t + 8, tag.id);
  put64le(t + 16, tag.created);
  put32le(t + 24, frame_len);
  put32le(t + 28, tag_check(tag.id, frame_len));
  // Filler: a per-packet byte pattern, so a swapped or shifted payload is caught: byte i
  // is seed + 7 i + i / 256 (mod 256), the packet's seed added to one table (a vector add).
  const auto seed = static_cast<std::uint8_t>(tag.id * 13U);
  const std::array<std::uint8_t, kMaxTaggedFrame>& pattern = filler_pattern();
  for (std::uint32_t i = kMinTaggedFrame; i < frame_len; ++i) out[i] = static_cast<std::uint8_t>(seed + pattern[i]);
}

bool FrameBuilder::intact(const std::uint8_t* frame, std::uint32_t len, const FlowId& flow, const Tag& tag) {
  if (len != tag.frame_len || len < kMinTaggedFrame || len > kMaxTaggedFrame) return false;
  build(scratch_.data(), len, flow, tag);
  return std::memcmp(scratch_.data(), frame, len) == 0;
}

std::optional<Tag> parse_tag(const std::uint8_t* frame, std::uint32_t len) {
  if (len < kMinTaggedFrame) return std::nullopt;
  const std::uint8_t* t = frame + kTagOffset;
  if (get32le(t) != kTagMagic) return std::nullopt;
  Tag tag;
  tag.tenant = t[4];
  tag.flow = t[5];
  tag.id = get64le(t + 8);
  tag.created = get64le(t + 16);
  tag.frame_len = get32le(t + 24);
  if (get32le(t + 28) != tag_check(tag.id, tag.frame_len)) return std::nullopt;
  return tag;
}

}  // namespace nicsched::sim
