// Packet builder (Ethernet II / 802.1Q / IPv4 with options / IPv6 / UDP / TCP), used by
// the RTL test benches, the workloads and the regression. The one model of how the NIC
// parses and classifies such frames is the reference model's (nicsched/refmodel/parser.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace nicsched::sim {

/// Invalid packet description (the message names the field and the value).
class PacketError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr std::uint16_t kEthertypeIpv4 = 0x0800;
inline constexpr std::uint16_t kEthertypeIpv6 = 0x86DD;
inline constexpr std::uint16_t kEthertypeVlan = 0x8100;
inline constexpr std::uint8_t kProtoTcp = 6;
inline constexpr std::uint8_t kProtoUdp = 17;
inline constexpr std::size_t kMinFrameBytes = 60;  ///< without FCS
inline constexpr std::size_t kMaxFrameBytes = 9600;  ///< largest jumbo frame the builder writes

enum class L3Kind : std::uint8_t { ipv4, ipv6, raw };

/// What build_packet() writes. Defaults give a 60-byte untagged IPv4/UDP frame.
struct PacketSpec {
  std::array<std::uint8_t, 6> dst_mac{0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
  std::array<std::uint8_t, 6> src_mac{0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
  std::optional<std::uint16_t> vlan_id;  ///< one 802.1Q tag when set (0..4095)
  std::uint8_t vlan_pcp = 0;             ///< tag priority (0..7)
  L3Kind l3 = L3Kind::ipv4;
  std::uint16_t ethertype = 0x88B5;      ///< L3Kind::raw only
  std::uint8_t dscp = 0;                 ///< 0..63
  std::uint8_t ttl = 64;                 ///< IPv4 TTL / IPv6 hop limit
  std::size_t ipv4_option_words = 0;     ///< 32-bit words of IPv4 options (NOPs + EOL), 0..10
  std::uint16_t frag_offset = 0;         ///< IPv4 fragment offset, 8-byte units (0..8191)
  bool more_fragments = false;           ///< IPv4 MF flag
  std::uint8_t protocol = kProtoUdp;     ///< IPv4 protocol / IPv6 next header
  std::uint16_t src_port = 40000;        ///< UDP/TCP (first fragment only)
  std::uint16_t dst_port = 4791;
  std::size_t payload_bytes = 18;        ///< bytes after the L4 header (after IP for others)
  std::uint32_t src_ip4 = 0x0A000001;
  std::uint32_t dst_ip4 = 0x0A000002;
  std::array<std::uint8_t, 16> src_ip6{0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  std::array<std::uint8_t, 16> dst_ip6{0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  bool pad_to_min = true;                ///< zero-pad frames shorter than 60 bytes
};

/// Writes the frame (no FCS). IPv4 header checksum is computed; L4 checksums are zero
/// (UDP) or left zero (TCP): the NIC does not check them. Throws PacketError.
std::vector<std::uint8_t> build_packet(const PacketSpec& spec);

}  // namespace nicsched::sim
