// Hand-built frames for the reference-model unit tests: bytes written field by field
// here, so the model's parser is checked against this file, not against another model.
#pragma once

#include <cstdint>
#include <vector>

namespace nicsched::verif::test {

struct Ip4Frame {
  std::uint32_t len = 60;        // total frame bytes (>= headers)
  int vlan = -1;                 // -1 untagged
  std::uint32_t dscp = 0;
  std::uint32_t proto = 17;
  std::uint32_t dport = 4791;
  std::uint32_t ihl = 5;
  std::uint32_t version = 4;
  int ip_total = -1;             // -1: up to the end of the frame
  std::uint32_t frag_offset = 0; // 8-byte units
};

inline void put16(std::vector<std::uint8_t>& f, std::size_t at, std::uint32_t v) {
  f[at] = static_cast<std::uint8_t>(v >> 8);
  f[at + 1] = static_cast<std::uint8_t>(v);
}

inline std::vector<std::uint8_t> ip4(const Ip4Frame& s) {
  std::vector<std::uint8_t> f(s.len, 0);
  std::size_t l3 = 14;
  if (s.vlan >= 0) {
    put16(f, 12, 0x8100);
    put16(f, 14, static_cast<std::uint32_t>(s.vlan));
    l3 = 18;
  }
  put16(f, l3 - 2, 0x0800);
  f[l3] = static_cast<std::uint8_t>((s.version << 4) | s.ihl);
  f[l3 + 1] = static_cast<std::uint8_t>(s.dscp << 2);
  put16(f, l3 + 2, s.ip_total >= 0 ? static_cast<std::uint32_t>(s.ip_total)
                                   : static_cast<std::uint32_t>(s.len - l3));
  put16(f, l3 + 6, s.frag_offset);
  f[l3 + 9] = static_cast<std::uint8_t>(s.proto);
  const std::size_t l4 = l3 + 4 * s.ihl;
  if (l4 + 4 <= f.size()) put16(f, l4 + 2, s.dport);
  return f;
}

inline std::vector<std::uint8_t> ip6(std::uint32_t len, std::uint32_t tclass, std::uint32_t nh,
                                     std::uint32_t dport) {
  std::vector<std::uint8_t> f(len, 0);
  put16(f, 12, 0x86DD);
  f[14] = static_cast<std::uint8_t>(0x60 | (tclass >> 4));
  f[15] = static_cast<std::uint8_t>((tclass & 0xF) << 4);
  put16(f, 18, len - 14 - 40);
  f[20] = static_cast<std::uint8_t>(nh);
  put16(f, 54 + 2, dport);
  return f;
}

inline std::vector<std::uint8_t> raw(std::uint32_t len, std::uint32_t etype) {
  std::vector<std::uint8_t> f(len, 0);
  put16(f, 12, etype);
  return f;
}

}  // namespace nicsched::verif::test
