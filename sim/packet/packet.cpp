// Packet builder and ingress reference model; the rules are those of docs/ingress.md.
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

const char* to_string(DropReason r) {
  switch (r) {
    case DropReason::none: return "none";
    case DropReason::runt: return "runt";
    case DropReason::truncated: return "truncated";
    case DropReason::bad_ihl: return "bad_ihl";
    case DropReason::unknown_ethertype: return "unknown_ethertype";
  }
  return "invalid";
}

std::string to_string(const ParsedFrame& f) {
  return fmt::format("{{len {} vlan {} dscp {} proto {} sport {} dport {} drop {} default {}}}",
                     f.length, f.vlan_id, f.dscp, f.protocol, f.src_port, f.dst_port,
                     to_string(f.drop), f.to_default);
}

ParsedFrame parse_frame(std::span<const std::uint8_t> frame, bool bad_to_default) {
  ParsedFrame out;
  out.length = static_cast<std::uint16_t>(std::min<std::size_t>(frame.size(), 65535));
  const auto dropped = [&out](DropReason why) {
    ParsedFrame d;
    d.length = out.length;
    d.drop = why;
    return d;
  };

  if (frame.size() < kMinFrameBytes) return dropped(DropReason::runt);

  // L2: 60 bytes are present from here on, enough for every fixed-offset field below.
  std::size_t l3 = 14;
  std::uint16_t ethertype = get16(frame, 12);
  std::uint16_t vlan = 0;
  if (ethertype == kEthertypeVlan) {
    vlan = get16(frame, 14) & 0x0FFF;
    ethertype = get16(frame, 16);
    l3 = 18;
  }
  if (ethertype != kEthertypeIpv4 && ethertype != kEthertypeIpv6) {
    if (!bad_to_default) return dropped(DropReason::unknown_ethertype);
    out.vlan_id = vlan;
    out.to_default = true;
    return out;
  }

  const unsigned version = frame[l3] >> 4;
  std::size_t l4 = 0;          // offset of the L4 header, 0 when ports are not read
  std::uint8_t proto = 0;
  std::uint8_t dscp = 0;
  if (ethertype == kEthertypeIpv4) {
    const std::size_t ihl = frame[l3] & 0x0F;
    if (version != 4 || ihl < 5) return dropped(DropReason::bad_ihl);
    const std::size_t hdr_bytes = 4 * ihl;
    const std::size_t total = get16(frame, l3 + 2);
    if (total < hdr_bytes || l3 + total > frame.size()) return dropped(DropReason::truncated);
    proto = frame[l3 + 9];
    dscp = static_cast<std::uint8_t>(frame[l3 + 1] >> 2);
    const bool first_fragment = (get16(frame, l3 + 6) & 0x1FFF) == 0;
    const std::size_t l4_min = l4_min_bytes(proto);
    if (first_fragment && l4_min != 0) {
      if (total - hdr_bytes < l4_min) return dropped(DropReason::truncated);
      l4 = l3 + hdr_bytes;
    }
  } else {
    if (version != 6) return dropped(DropReason::bad_ihl);
    const std::size_t payload = get16(frame, l3 + 4);
    if (l3 + 40 + payload > frame.size()) return dropped(DropReason::truncated);
    proto = frame[l3 + 6];
    const unsigned traffic_class = ((frame[l3] & 0x0F) << 4) | (frame[l3 + 1] >> 4);
    dscp = static_cast<std::uint8_t>(traffic_class >> 2);
    const std::size_t l4_min = l4_min_bytes(proto);
    if (l4_min != 0) {
      if (payload < l4_min) return dropped(DropReason::truncated);
      l4 = l3 + 40;
    }
  }
  out.vlan_id = vlan;
  out.protocol = proto;
  out.dscp = dscp;
  if (l4 != 0) {
    out.src_port = get16(frame, l4);
    out.dst_port = get16(frame, l4 + 2);
  }
  return out;
}

std::uint16_t IngressMeta::pack() const {
  return static_cast<std::uint16_t>((static_cast<unsigned>(drop) << 9) | ((crypto_op & 3U) << 7) |
                                    ((cls & 1U) << 6) | (tenant & 0x3FU));
}

IngressMeta IngressMeta::unpack(std::uint16_t bits) {
  IngressMeta m;
  m.drop = static_cast<DropReason>((bits >> 9) & 7U);
  m.crypto_op = static_cast<std::uint8_t>((bits >> 7) & 3U);
  m.cls = static_cast<std::uint8_t>((bits >> 6) & 1U);
  m.tenant = static_cast<std::uint8_t>(bits & 0x3FU);
  return m;
}

std::string to_string(const IngressMeta& m) {
  return fmt::format("{{drop {} crypto {} class {} tenant {}}}", to_string(m.drop), m.crypto_op,
                     m.cls, m.tenant);
}

IngressMeta classify(const ParsedFrame& f, const ClassifierConfig& cfg) {
  IngressMeta m;
  if (f.drop != DropReason::none) {
    m.drop = f.drop;
    return m;
  }
  ClassifierAction act = cfg.default_action;
  if (!f.to_default) {
    const auto matches = [&f](const ClassifierEntry& e) {
      return e.valid && ((f.vlan_id ^ e.vlan) & e.vlan_mask & 0x0FFF) == 0 &&
             ((f.dscp ^ e.dscp) & e.dscp_mask & 0x3F) == 0 &&
             ((f.protocol ^ e.proto) & e.proto_mask) == 0 &&
             ((f.dst_port ^ e.port) & e.port_mask) == 0;
    };
    const auto hit = std::find_if(cfg.entries.begin(), cfg.entries.end(), matches);
    if (hit != cfg.entries.end()) act = {hit->tenant, hit->cls, hit->crypto_op};
  }
  m.tenant = act.tenant & 0x3F;
  m.cls = act.cls & 1;
  m.crypto_op = (act.crypto_op == 1 || act.crypto_op == 2) ? act.crypto_op : 0;
  return m;
}

IngressMeta ingress_reference(std::span<const std::uint8_t> frame, const ClassifierConfig& cfg) {
  return classify(parse_frame(frame, cfg.bad_to_default), cfg);
}

}  // namespace nicsched::sim
