// Packet builder (Ethernet II / 802.1Q / IPv4 with options / IPv6 / UDP / TCP) and the
// reference model of the ingress block (parser + classifier), written from the rules in
// docs/ingress.md. Used by the RTL test benches, the workloads and the regression.
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

/// Why the ingress block drops a frame (values of nicsched_pkg::drop_reason_e).
enum class DropReason : std::uint8_t {
  none = 0,
  runt = 1,
  truncated = 2,
  bad_ihl = 3,
  unknown_ethertype = 4,
};
const char* to_string(DropReason r);

/// Fields the parser reports with a frame's last beat.
struct ParsedFrame {
  std::uint16_t length = 0;     ///< bytes, saturating at 65535
  std::uint16_t vlan_id = 0;    ///< 0 when untagged
  std::uint8_t dscp = 0;
  std::uint8_t protocol = 0;    ///< IPv4 protocol / IPv6 next header
  std::uint16_t src_port = 0;   ///< 0 when the frame has no UDP/TCP header to read
  std::uint16_t dst_port = 0;
  DropReason drop = DropReason::none;
  bool to_default = false;      ///< unknown ethertype kept (CTRL.BAD_TO_DEFAULT)
  bool operator==(const ParsedFrame&) const = default;
};
std::string to_string(const ParsedFrame& f);

/// Reference parser: the rules of docs/ingress.md applied to one frame's bytes.
ParsedFrame parse_frame(std::span<const std::uint8_t> frame, bool bad_to_default);

/// One classifier table entry (CLS_VLAN, CLS_DSCP_PROTO, CLS_PORT, CLS_ACTION).
struct ClassifierEntry {
  bool valid = false;
  std::uint16_t vlan = 0, vlan_mask = 0;     ///< 12 bits
  std::uint8_t dscp = 0, dscp_mask = 0;      ///< 6 bits
  std::uint8_t proto = 0, proto_mask = 0;
  std::uint16_t port = 0, port_mask = 0;     ///< L4 destination port
  std::uint8_t tenant = 0;                   ///< 6 bits
  std::uint8_t cls = 0;                      ///< 0 control, 1 bulk
  std::uint8_t crypto_op = 0;                ///< 0 none, 1 encrypt, 2 decrypt (3 acts as 0)
};

struct ClassifierAction {
  std::uint8_t tenant = 0;
  std::uint8_t cls = 1;
  std::uint8_t crypto_op = 0;
};

struct ClassifierConfig {
  std::vector<ClassifierEntry> entries;  ///< index = table entry
  ClassifierAction default_action;       ///< DEFAULT_ACTION
  bool bad_to_default = false;           ///< CTRL.BAD_TO_DEFAULT
};

/// nicsched_pkg::ingress_meta_t.
struct IngressMeta {
  DropReason drop = DropReason::none;
  std::uint8_t crypto_op = 0;
  std::uint8_t cls = 0;
  std::uint8_t tenant = 0;
  bool operator==(const IngressMeta&) const = default;
  /// The packed SystemVerilog layout {drop[2:0], crypto_op[1:0], cls, tenant[5:0]}.
  [[nodiscard]] std::uint16_t pack() const;
  static IngressMeta unpack(std::uint16_t bits);
};
std::string to_string(const IngressMeta& m);

/// Reference classifier: first valid entry whose masked fields all match, else default.
IngressMeta classify(const ParsedFrame& f, const ClassifierConfig& cfg);

/// parse_frame + classify.
IngressMeta ingress_reference(std::span<const std::uint8_t> frame, const ClassifierConfig& cfg);

}  // namespace nicsched::sim
