// Frame parsing and classification as the specification states them (Ethernet II, one
// 802.1Q tag, IPv4 with options, IPv6 without extension headers, UDP and TCP), used by
// the reference model to decide each frame's drop reason and {tenant, class, crypto op}.
#pragma once

#include <cstdint>
#include <span>

#include "nicsched/refmodel/types.hpp"

namespace nicsched::refmodel {

inline constexpr std::uint32_t kMinFrameBytes = 60;  // shorter (no FCS) is a runt

struct ParsedFrame {
  ParseDrop drop = ParseDrop::kNone;
  bool l3_known = false;       // IPv4 or IPv6
  std::uint32_t len = 0;       // frame bytes
  std::uint32_t vlan = 0;      // VLAN ID, 0 when untagged
  std::uint32_t dscp = 0;      // 0 when not IP
  std::uint32_t proto = 0;     // IPv4 protocol / IPv6 next header, 0 when not IP
  std::uint32_t dport = 0;     // L4 destination port, 0 when not TCP/UDP
};

// Drop reasons, in the order they are tested:
//   runt:          len < 60
//   unknown etype: ethertype (after at most one 0x8100 tag) is neither 0x0800 nor 0x86DD
//   bad IHL:       IPv4 version != 4 or IHL < 5; IPv6 version != 6
//   truncated:     the frame ends before the IP header (IHL*4 or 40 bytes), before the
//                  IP total length (IPv4 total length; IPv6 40 + payload length), or, for
//                  TCP/UDP in an unfragmented datagram (IPv4 fragment offset 0), before
//                  the L4 header (8 bytes UDP, 20 bytes TCP)
// Non-first IPv4 fragments carry no L4 header: dport is 0.
ParsedFrame parse_frame(std::span<const std::uint8_t> frame);

// First valid entry whose every masked field matches wins; else the default action.
ClsAction classify(const ParsedFrame& pf, const Config& cfg);

}  // namespace nicsched::refmodel
