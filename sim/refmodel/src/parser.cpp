// Specification-level parser and classifier (see parser.hpp and docs/ingress.md).
#include "nicsched/refmodel/parser.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace nicsched::refmodel {
namespace {

std::uint16_t be16(std::span<const std::uint8_t> f, std::size_t at) {
  return static_cast<std::uint16_t>((f[at] << 8) | f[at + 1]);
}

constexpr std::uint16_t kEtypeVlan = 0x8100;
constexpr std::uint16_t kEtypeIpv4 = 0x0800;
constexpr std::uint16_t kEtypeIpv6 = 0x86DD;
constexpr std::uint8_t kProtoTcp = 6;
constexpr std::uint8_t kProtoUdp = 17;

// L4 header bytes the parser needs after the IP header (0: a protocol without ports).
std::size_t l4_min_bytes(std::uint8_t proto) {
  if (proto == kProtoUdp) return 8;
  if (proto == kProtoTcp) return 20;
  return 0;
}

bool masked_eq(std::uint32_t field, std::uint32_t value, std::uint32_t mask) {
  return (field & mask) == (value & mask);
}

}  // namespace

std::string to_string(const ParsedFrame& f) {
  return fmt::format("{{len {} vlan {} dscp {} proto {} sport {} dport {} drop {} default {}}}", f.length,
                     f.vlan_id, f.dscp, f.protocol, f.src_port, f.dst_port, to_string(f.drop), f.to_default);
}

ParsedFrame parse_frame(std::span<const std::uint8_t> frame, bool bad_to_default, std::uint32_t min_frame_bytes) {
  ParsedFrame out;
  out.length = static_cast<std::uint16_t>(std::min<std::size_t>(frame.size(), 65535));
  const auto dropped = [&out](ParseDrop why) {
    ParsedFrame d;
    d.length = out.length;
    d.drop = why;
    return d;
  };

  if (frame.size() < std::max<std::size_t>(min_frame_bytes, 14)) return dropped(ParseDrop::kRunt);

  // L2: the Ethernet header is there; a cut 802.1Q tag and a cut fixed IP header are
  // truncated (possible only below 60 bytes, on TX), so every field read below is present.
  std::size_t l3 = 14;
  std::uint16_t ethertype = be16(frame, 12);
  std::uint16_t vlan = 0;
  if (ethertype == kEtypeVlan) {
    if (frame.size() < 18) return dropped(ParseDrop::kTruncated);
    vlan = be16(frame, 14) & 0x0FFF;
    ethertype = be16(frame, 16);
    l3 = 18;
  }
  if (ethertype != kEtypeIpv4 && ethertype != kEtypeIpv6) {
    if (!bad_to_default) return dropped(ParseDrop::kUnknownEtype);
    out.vlan_id = vlan;
    out.to_default = true;
    return out;
  }

  if (frame.size() < l3 + (ethertype == kEtypeIpv4 ? 20 : 40)) return dropped(ParseDrop::kTruncated);
  const unsigned version = frame[l3] >> 4;
  std::size_t l4 = 0;  // offset of the L4 header, 0 when ports are not read
  std::uint8_t proto = 0;
  std::uint8_t dscp = 0;
  if (ethertype == kEtypeIpv4) {
    const std::size_t ihl = frame[l3] & 0x0F;
    if (version != 4 || ihl < 5) return dropped(ParseDrop::kBadIhl);
    const std::size_t hdr_bytes = 4 * ihl;
    const std::size_t total = be16(frame, l3 + 2);
    if (total < hdr_bytes || l3 + total > frame.size()) return dropped(ParseDrop::kTruncated);
    proto = frame[l3 + 9];
    dscp = static_cast<std::uint8_t>(frame[l3 + 1] >> 2);
    const bool first_fragment = (be16(frame, l3 + 6) & 0x1FFF) == 0;
    const std::size_t l4_min = l4_min_bytes(proto);
    if (first_fragment && l4_min != 0) {
      if (total - hdr_bytes < l4_min) return dropped(ParseDrop::kTruncated);
      l4 = l3 + hdr_bytes;
    }
  } else {
    if (version != 6) return dropped(ParseDrop::kBadIhl);
    const std::size_t payload = be16(frame, l3 + 4);
    if (l3 + 40 + payload > frame.size()) return dropped(ParseDrop::kTruncated);
    proto = frame[l3 + 6];
    const unsigned traffic_class = ((frame[l3] & 0x0FU) << 4) | (frame[l3 + 1] >> 4);
    dscp = static_cast<std::uint8_t>(traffic_class >> 2);
    const std::size_t l4_min = l4_min_bytes(proto);
    if (l4_min != 0) {
      if (payload < l4_min) return dropped(ParseDrop::kTruncated);
      l4 = l3 + 40;
    }
  }
  out.vlan_id = vlan;
  out.protocol = proto;
  out.dscp = dscp;
  if (l4 != 0) {
    out.src_port = be16(frame, l4);
    out.dst_port = be16(frame, l4 + 2);
  }
  return out;
}

namespace {

// The first valid entry whose every masked field matches; nullptr for a miss and for frames
// the table does not see (dropped, or not IP).
const ClassifierEntry* matching_entry(const ParsedFrame& pf, const Config& cfg) {
  if (pf.drop != ParseDrop::kNone || pf.to_default) return nullptr;
  for (const ClassifierEntry& e : cfg.classifier) {
    if (e.valid && masked_eq(pf.vlan_id, e.vlan, e.vlan_mask & 0xFFFU) &&
        masked_eq(pf.dscp, e.dscp, e.dscp_mask & 0x3FU) && masked_eq(pf.protocol, e.proto, e.proto_mask & 0xFFU) &&
        masked_eq(pf.dst_port, e.port, e.port_mask & 0xFFFFU)) {
      return &e;
    }
  }
  return nullptr;
}

ClassifierAction defined_op(ClassifierAction act) {
  if (act.crypto_op != CryptoOp::kEncrypt && act.crypto_op != CryptoOp::kDecrypt) act.crypto_op = CryptoOp::kNone;
  return act;
}

}  // namespace

ClassifierAction classify(const ParsedFrame& pf, const Config& cfg) {
  const ClassifierEntry* e = matching_entry(pf, cfg);
  return defined_op(e != nullptr ? e->action : cfg.default_action);
}

TxIdentity classify_tx(const ParsedFrame& pf, const Config& cfg, const SourceTable& sources, std::uint32_t source) {
  TxIdentity id;
  const ClassifierEntry* e = matching_entry(pf, cfg);
  const bool bound = source < sources.size() && sources[source].bound;
  if (!bound) {
    id.action = defined_op(e != nullptr ? e->action : cfg.default_action);
    return id;
  }
  const SourceBinding& b = sources[source];
  if (e != nullptr && e->action.tenant == b.tenant) {
    id.action = defined_op(e->action);
    return id;
  }
  id.spoofed = e != nullptr;
  id.dropped = id.spoofed && b.drop_spoofed;
  id.action = cfg.default_action;
  id.action.tenant = b.tenant;
  id.action = defined_op(id.action);
  return id;
}

}  // namespace nicsched::refmodel
