// Packet builder.
#include "nicsched/sim/packet.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace nicsched::sim {
namespace {

void put16(std::vector<std::uint8_t>& b, std::uint16_t v) {
  b.push_back(static_cast<std::uint8_t>(v >> 8));
  b.push_back(static_cast<std::uint8_t>(v & 0xFF));
}

void put32(std::vector<std::uint8_t>& b, std::uint32_t v) {
  put16(b, static_cast<std::uint16_t>(v >> 16));
  put16(b, static_cast<std::uint16_t>(v & 0xFFFF));
}

std::uint16_t get16(std::span<const std::uint8_t> b, std::size_t at) {
  return static_cast<std::uint16_t>((b[at] << 8) | b[at + 1]);
}

void check_range(const char* field, std::size_t value, std::size_t max) {
  if (value > max) {
    throw PacketError(fmt::format("PacketSpec.{} = {}: must be at most {}", field, value, max));
  }
}

std::uint16_t ipv4_checksum(std::span<const std::uint8_t> hdr) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i + 1 < hdr.size(); i += 2) sum += get16(hdr, i);
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum & 0xFFFF);
}

// L4 header bytes the NIC requires after the IP header (0: protocol without ports).
std::size_t l4_min_bytes(std::uint8_t proto) {
  if (proto == kProtoUdp) return 8;
  if (proto == kProtoTcp) return 20;
  return 0;
}

void append_l4(std::vector<std::uint8_t>& b, const PacketSpec& s) {
  if (s.protocol == kProtoUdp) {
    put16(b, s.src_port);
    put16(b, s.dst_port);
    put16(b, static_cast<std::uint16_t>(8 + s.payload_bytes));
    put16(b, 0);  // checksum not used
  } else if (s.protocol == kProtoTcp) {
    put16(b, s.src_port);
    put16(b, s.dst_port);
    put32(b, 1);        // sequence
    put32(b, 0);        // acknowledgement
    b.push_back(0x50);  // data offset 5 words
    b.push_back(0x18);  // PSH, ACK
    put16(b, 65535);    // window
    put16(b, 0);        // checksum
    put16(b, 0);        // urgent pointer
  }
}

}  // namespace

std::vector<std::uint8_t> build_packet(const PacketSpec& s) {
  if (s.vlan_id) check_range("vlan_id", *s.vlan_id, 4095);
  check_range("vlan_pcp", s.vlan_pcp, 7);
  check_range("dscp", s.dscp, 63);
  check_range("ipv4_option_words", s.ipv4_option_words, 10);
  check_range("frag_offset", s.frag_offset, 8191);
  check_range("payload_bytes", s.payload_bytes, kMaxFrameBytes);

  std::vector<std::uint8_t> b;
  b.reserve(64 + s.payload_bytes);
  b.insert(b.end(), s.dst_mac.begin(), s.dst_mac.end());
  b.insert(b.end(), s.src_mac.begin(), s.src_mac.end());
  if (s.vlan_id) {
    put16(b, kEthertypeVlan);
    put16(b, static_cast<std::uint16_t>((s.vlan_pcp << 13) | *s.vlan_id));
  }
  const bool first_fragment = s.frag_offset == 0;
  const std::size_t l4_bytes = (s.l3 == L3Kind::raw || (s.l3 == L3Kind::ipv4 && !first_fragment))
                                   ? 0
                                   : l4_min_bytes(s.protocol);
  switch (s.l3) {
    case L3Kind::ipv4: {
      put16(b, kEthertypeIpv4);
      const std::size_t ip_start = b.size();
      const std::size_t hdr_bytes = 20 + 4 * s.ipv4_option_words;
      const std::size_t total = hdr_bytes + l4_bytes + s.payload_bytes;
      check_range("IPv4 total length", total, 65535);
      b.push_back(static_cast<std::uint8_t>(0x40 | (hdr_bytes / 4)));
      b.push_back(static_cast<std::uint8_t>(s.dscp << 2));
      put16(b, static_cast<std::uint16_t>(total));
      put16(b, 0x1234);  // identification
      put16(b, static_cast<std::uint16_t>((s.more_fragments ? 0x2000 : 0) | s.frag_offset));
      b.push_back(s.ttl);
      b.push_back(s.protocol);
      put16(b, 0);  // checksum, filled below
      put32(b, s.src_ip4);
      put32(b, s.dst_ip4);
      for (std::size_t i = 0; i < 4 * s.ipv4_option_words; ++i) {
        b.push_back(i + 1 == 4 * s.ipv4_option_words ? 0x00 : 0x01);  // NOPs, then EOL
      }
      const std::uint16_t csum = ipv4_checksum(std::span(b).subspan(ip_start, hdr_bytes));
      b[ip_start + 10] = static_cast<std::uint8_t>(csum >> 8);
      b[ip_start + 11] = static_cast<std::uint8_t>(csum & 0xFF);
      break;
    }
    case L3Kind::ipv6: {
      put16(b, kEthertypeIpv6);
      const std::size_t payload_len = l4_bytes + s.payload_bytes;
      check_range("IPv6 payload length", payload_len, 65535);
      const std::uint32_t tc = static_cast<std::uint32_t>(s.dscp) << 2;
      put32(b, (6U << 28) | (tc << 20) | 0x12345U);  // version, traffic class, flow label
      put16(b, static_cast<std::uint16_t>(payload_len));
      b.push_back(s.protocol);
      b.push_back(s.ttl);
      b.insert(b.end(), s.src_ip6.begin(), s.src_ip6.end());
      b.insert(b.end(), s.dst_ip6.begin(), s.dst_ip6.end());
      break;
    }
    case L3Kind::raw:
      put16(b, s.ethertype);
      break;
  }
  if (l4_bytes != 0) append_l4(b, s);
  for (std::size_t i = 0; i < s.payload_bytes; ++i) b.push_back(static_cast<std::uint8_t>(i));
  if (s.pad_to_min && b.size() < kMinFrameBytes) b.resize(kMinFrameBytes, 0);
  check_range("frame length", b.size(), kMaxFrameBytes);
  return b;
}

}  // namespace nicsched::sim
