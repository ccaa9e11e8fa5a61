// Specification-level parser and classifier of the reference model.
#include "nicsched/refmodel/parser.hpp"

namespace nicsched::refmodel {
namespace {

std::uint32_t be16(std::span<const std::uint8_t> f, std::size_t at) {
  return (static_cast<std::uint32_t>(f[at]) << 8) | f[at + 1];
}

constexpr std::uint32_t kEtypeVlan = 0x8100;
constexpr std::uint32_t kEtypeIpv4 = 0x0800;
constexpr std::uint32_t kEtypeIpv6 = 0x86DD;
constexpr std::uint32_t kProtoTcp = 6;
constexpr std::uint32_t kProtoUdp = 17;

bool masked_eq(std::uint32_t field, std::uint32_t value, std::uint32_t mask) {
  return (field & mask) == (value & mask);
}

}  // namespace

ParsedFrame parse_frame(std::span<const std::uint8_t> f) {
  ParsedFrame pf;
  pf.len = static_cast<std::uint32_t>(f.size());
  if (f.size() < kMinFrameBytes) {
    pf.drop = ParseDrop::kRunt;
    return pf;
  }
  std::size_t l3 = 14;
  std::uint32_t etype = be16(f, 12);
  if (etype == kEtypeVlan) {
    pf.vlan = be16(f, 14) & 0xFFFU;
    etype = be16(f, 16);
    l3 = 18;
  }
  const std::size_t n = f.size();
  std::size_t l4 = 0;
  bool l4_present = false;
  if (etype == kEtypeIpv4) {
    const std::uint32_t version = f[l3] >> 4;
    const std::uint32_t ihl = f[l3] & 0xFU;
    if (version != 4 || ihl < 5) {
      pf.drop = ParseDrop::kBadIhl;
      return pf;
    }
    const std::size_t hdr = 4U * ihl;
    if (l3 + hdr > n) {
      pf.drop = ParseDrop::kTruncated;
      return pf;
    }
    const std::size_t total = be16(f, l3 + 2);
    if (total < hdr || l3 + total > n) {
      pf.drop = ParseDrop::kTruncated;
      return pf;
    }
    pf.dscp = f[l3 + 1] >> 2;
    pf.proto = f[l3 + 9];
    const std::uint32_t frag_offset = be16(f, l3 + 6) & 0x1FFFU;
    l4 = l3 + hdr;
    l4_present = frag_offset == 0;
    if (l4_present && (pf.proto == kProtoTcp || pf.proto == kProtoUdp)) {
      const std::size_t l4_hdr = pf.proto == kProtoTcp ? 20 : 8;
      if (l4 + l4_hdr > l3 + total) {
        pf.drop = ParseDrop::kTruncated;
        return pf;
      }
    }
  } else if (etype == kEtypeIpv6) {
    if ((f[l3] >> 4) != 6) {
      pf.drop = ParseDrop::kBadIhl;
      return pf;
    }
    if (l3 + 40 > n || l3 + 40 + be16(f, l3 + 4) > n) {
      pf.drop = ParseDrop::kTruncated;
      return pf;
    }
    const std::uint32_t tclass = ((f[l3] & 0xFU) << 4) | (f[l3 + 1] >> 4);
    pf.dscp = tclass >> 2;
    pf.proto = f[l3 + 6];
    l4 = l3 + 40;
    l4_present = true;
    if (pf.proto == kProtoTcp || pf.proto == kProtoUdp) {
      const std::size_t l4_hdr = pf.proto == kProtoTcp ? 20 : 8;
      if (l4 + l4_hdr > l3 + 40 + be16(f, l3 + 4)) {
        pf.drop = ParseDrop::kTruncated;
        return pf;
      }
    }
  } else {
    pf.drop = ParseDrop::kUnknownEtype;
    return pf;
  }
  pf.l3_known = true;
  if (l4_present && (pf.proto == kProtoTcp || pf.proto == kProtoUdp)) {
    pf.dport = be16(f, l4 + 2);
  }
  return pf;
}

ClsAction classify(const ParsedFrame& pf, const Config& cfg) {
  if (!pf.l3_known) return cfg.default_action;
  for (const ClsEntry& e : cfg.classifier) {
    if (!e.valid) continue;
    if (masked_eq(pf.vlan, e.vlan, e.vlan_mask & 0xFFFU) &&
        masked_eq(pf.dscp, e.dscp, e.dscp_mask & 0x3FU) &&
        masked_eq(pf.proto, e.proto, e.proto_mask & 0xFFU) &&
        masked_eq(pf.dport, e.port, e.port_mask & 0xFFFFU)) {
      return e.action;
    }
  }
  return cfg.default_action;
}

}  // namespace nicsched::refmodel
