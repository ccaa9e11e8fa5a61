// A small register map that exercises every shape the generator handles: params with an
// expr, a shadowed register with an enum, a 64-bit snapshot counter, a 64-bit rw/w1c
// register, wo command bits, an array block counted by a parameter.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace nicsched::test {

inline const std::string kTinyMap = R"(name: tiny
desc: Tiny test map
addr_width: 12
commit: CMD.COMMIT
snapshot: CMD.SNAP
params:
  - {name: NumPorts, default: 2, max: 4, desc: "Ports"}
  - {name: NumLanes, expr: "NumPorts * 2", max: 8, desc: "Lanes"}
blocks:
  - name: TOP
    base: 0x000
    desc: Top block.
    registers:
      - name: CMD
        offset: 0x0
        desc: Commands.
        fields:
          - {name: COMMIT, lsb: 0, width: 1, access: wo, reset: 0, desc: "Commit"}
          - {name: SNAP, lsb: 1, width: 1, access: wo, reset: 0, desc: "Snapshot"}
      - name: MODE
        offset: 0x4
        shadowed: true
        desc: Mode.
        fields:
          - {name: SPEED, lsb: 4, width: 2, access: rw, reset: 2, desc: "Speed", enum: {SLOW: 0, FAST: 2}}
          - {name: ON, lsb: 0, width: 1, access: rw, reset: 1, desc: "On"}
      - name: TIME
        offset: 0x8
        width: 64
        snapshot: true
        desc: Time.
        fields:
          - {name: COUNT, lsb: 0, width: 64, access: ro, reset: 0, desc: "Cycles"}
      - name: LIMIT64
        offset: 0x10
        width: 64
        desc: A wide limit and flags.
        fields:
          - {name: VAL, lsb: 0, width: 40, access: rw, reset: 0x12345, desc: "Limit"}
          - {name: FLAGS, lsb: 48, width: 4, access: w1c, reset: 0, desc: "Flags"}
  - name: PORT
    base: 0x100
    array: {count: NumPorts, stride: 0x10}
    desc: Per port.
    registers:
      - name: P_CFG
        offset: 0x4
        desc: Config.
        fields:
          - {name: LIMIT, lsb: 8, width: 12, access: rw, reset: 0x123, desc: "Limit"}
      - name: P_STAT
        offset: 0x8
        desc: Status.
        fields:
          - {name: DEPTH, lsb: 0, width: 16, access: ro, reset: 0, desc: "Depth"}
)";

// 1-based line of the first line of `text` containing `needle`.
inline int line_of(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  if (at == std::string::npos) throw std::logic_error("test map has no '" + needle + "'");
  int line = 1;
  for (std::size_t i = 0; i < at; ++i) line += text[i] == '\n' ? 1 : 0;
  return line;
}

// `text` with the first `from` replaced by `to` (which must exist).
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("test map has no '" + from + "'");
  return text.replace(at, from.size(), to);
}

}  // namespace nicsched::test
