// Frames the workloads put on the AXI-Stream ports: Ethernet II + 802.1Q + IPv4 + UDP,
// then a 32-byte tag that names the packet, then a filler derived from the packet id.
// The tag lets the simulation attribute every frame that leaves the NIC to the packet
// that went in, and the filler lets it check that the frame left intact.
#pragma once

#include <cstdint>
#include <array>
#include <optional>
#include <unordered_map>

namespace nicsched::sim {

inline constexpr std::uint32_t kHeaderBytes = 46;  // Ethernet 14 + VLAN 4 + IPv4 20 + UDP 8
inline constexpr std::uint32_t kTagBytes = 32;
inline constexpr std::uint32_t kMinTaggedFrame = kHeaderBytes + kTagBytes;  // 78 >= 60
inline constexpr std::uint32_t kTagMagic = 0x4E53494D;                       // "NSIM"
inline constexpr std::uint8_t kDscpControl = 46;                             // EF
inline constexpr std::uint8_t kDscpBulk = 0;

// What the classifier sees.
struct FlowId {
  std::uint16_t vlan = 0;
  std::uint8_t dscp = 0;
  std::uint16_t src_port = 0;
  std::uint16_t dst_port = 0;
};

struct Tag {
  std::uint64_t id = 0;          // unique per simulation
  std::uint64_t created = 0;     // cycle the workload created the packet
  std::uint32_t frame_len = 0;   // bytes, as built
  std::uint8_t tenant = 0;
  std::uint8_t flow = 0;         // workload-defined (control / bulk TX / bulk RX)
};

// Builds tagged frames. The headers come from the project's packet builder
// (nicsched::sim::build_packet), cached per (flow, tenant, length): a run uses only a few.
class FrameBuilder {
 public:
  // Writes a frame of frame_len (kMinTaggedFrame..kMaxTaggedFrame) bytes into out.
  void build(std::uint8_t* out, std::uint32_t frame_len, const FlowId& flow, const Tag& tag);
  // True when the frame is byte for byte what build() writes for this flow and tag.
  [[nodiscard]] bool intact(const std::uint8_t* frame, std::uint32_t len, const FlowId& flow, const Tag& tag);

 private:
  const std::array<std::uint8_t, kHeaderBytes>& header(std::uint32_t frame_len, const FlowId& flow,
                                                       std::uint8_t tenant);
  std::unordered_map<std::uint64_t, std::array<std::uint8_t, kHeaderBytes>> headers_;
  std::array<std::uint8_t, 9216> scratch_{};
};
inline constexpr std::uint32_t kMaxTaggedFrame = 9216;

// The tag of a frame built by FrameBuilder, or nullopt for a foreign frame.
[[nodiscard]] std::optional<Tag> parse_tag(const std::uint8_t* frame, std::uint32_t len);

}  // namespace nicsched::sim
