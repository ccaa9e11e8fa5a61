// Frame parsing and classification as the specification states them (Ethernet II, one
// 802.1Q tag, IPv4 with options, IPv6 without extension headers, UDP and TCP); the rules
// are those of docs/ingress.md. The one C++ model of the ingress: the reference model
// decides each frame's drop reason and {tenant, class, crypto op} with it, and the RTL
// benches of the parser, classifier and ingress check the RTL against it.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "nicsched/refmodel/types.hpp"

namespace nicsched::refmodel {

inline constexpr std::uint32_t kMinFrameBytes = 60;      // shorter (no FCS) from the MAC (RX) is a runt
inline constexpr std::uint32_t kMinHostFrameBytes = 14;  // from the host (TX): an Ethernet header
// A TX frame that is kept and shorter than kMinFrameBytes is padded with zeros to it in the
// ingress: from there on it is kMinFrameBytes long (queues, buffer, shaper, crypto, counters).

// The fields the parser reports with a frame's last beat (the RTL's m_prs_* outputs).
struct ParsedFrame {
  std::uint16_t length = 0;    // bytes, saturating at 65535
  std::uint16_t vlan_id = 0;   // 0 when untagged
  std::uint8_t dscp = 0;       // 0 when not IP
  std::uint8_t protocol = 0;   // IPv4 protocol / IPv6 next header, 0 when not IP
  std::uint16_t src_port = 0;  // 0 when the frame has no UDP/TCP header to read
  std::uint16_t dst_port = 0;
  ParseDrop drop = ParseDrop::kNone;  // a dropped frame reports only its length
  bool to_default = false;     // unknown ethertype kept for the default action (CTRL.BAD_TO_DEFAULT)
  bool operator==(const ParsedFrame&) const = default;
};
std::string to_string(const ParsedFrame& f);

// Drop reasons, in the order they are tested:
//   runt:          len < 60
//   unknown etype: ethertype (after at most one 0x8100 tag) is neither 0x0800 nor 0x86DD;
//                  with bad_to_default the frame is kept instead (to_default, VLAN ID read)
//   bad IHL:       IPv4 version != 4 or IHL < 5; IPv6 version != 6
//   truncated:     the frame ends before the IP header (IHL*4 or 40 bytes), before the
//                  IP total length (IPv4 total length; IPv6 40 + payload length), or, for
//                  TCP/UDP in an unfragmented datagram (IPv4 fragment offset 0), before
//                  the L4 header (8 bytes UDP, 20 bytes TCP)
// Non-first IPv4 fragments carry no L4 header: the ports are 0.
// min_frame_bytes: the direction's runt threshold (kMinFrameBytes RX, kMinHostFrameBytes TX).
// Below 60 bytes two more rules apply before the ethertype / version tests: TPID 0x8100 with
// fewer than 18 bytes, and an IP ethertype with fewer than L2 + 20 (IPv4) / + 40 (IPv6)
// bytes, are truncated.
ParsedFrame parse_frame(std::span<const std::uint8_t> frame, bool bad_to_default = false,
                        std::uint32_t min_frame_bytes = kMinFrameBytes);

// The first valid entry whose every masked field matches wins; frames that are not IP
// (to_default, or dropped) and frames that match nothing get DEFAULT_ACTION. A CRYPTO_OP
// of 3 (no operation of the map) acts as NONE, as in the RTL.
ClassifierAction classify(const ParsedFrame& pf, const Config& cfg);

// A TX frame's identity (docs/trust.md): the headers' classification, checked against the
// tenant its source is bound to (`sources`; an unbound source: header-only, the
// headers' classification as it is). For a bound source, a frame whose matching row names
// the source's tenant keeps that row's action (the tenant chooses its own class and crypto
// op); a frame that matches no row, or is not IP, gets DEFAULT_ACTION's class and crypto op
// with the source's tenant; a frame whose matching row names another tenant is spoofed:
// dropped if the source drops spoofs, else given the source's tenant as a miss is.
struct TxIdentity {
  ClassifierAction action;
  bool spoofed = false;
  bool dropped = false;  // spoofed, and the source drops spoofs
  bool operator==(const TxIdentity&) const = default;
};
TxIdentity classify_tx(const ParsedFrame& pf, const Config& cfg, const SourceTable& sources, std::uint32_t source);

}  // namespace nicsched::refmodel
