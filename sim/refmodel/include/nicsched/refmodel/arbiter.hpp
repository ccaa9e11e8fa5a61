// Arbiter: the reference model of the egress arbiter's decisions (nicsched_arbiter), one
// per clock, used by RefModel (both directions) and by the rtl.arbiter bench, decision by
// decision. Written from the behaviour docs/rtl.md and the module header state, not from
// the RTL:
// - FIFO: the eligible head (tenant and device enabled) with the oldest enqueue time,
//   ages taken modulo 2^TsW, ties to the lowest queue.
// - Other modes: a tenant is eligible when enabled and one of its heads is; its control
//   head goes before its bulk head. SP and SP_DWRR rank tenants by T_CTRL.PRIORITY (0
//   first) and serve only the top level with an eligible tenant; DWRR puts every tenant
//   on one level.
// - SP: round robin by packets from the last tenant granted at that level.
// - DWRR / SP_DWRR: each tenant has a deficit (an unbounded integer here); a tenant of the
//   top level with a positive deficit may be granted (round robin as above) and the grant
//   subtracts its frame's length. When no eligible top-level tenant has credit, every
//   enabled, backlogged tenant of that level with deficit <= 0 gains 2^m times its quantum
//   of the clock before (0 counts as 1), and the pick is made from the new deficits in the
//   same clock. m is the exponent of the clock before: the least number for which, at the
//   start of that clock and with that clock's quanta, every tenant (any level, enabled or
//   not, backlogged or not) with deficit <= 0 would end with a positive deficit, and every
//   tenant with an eligible head has 2^m quanta >= the length of the head a grant would
//   charge (control first). Every refill therefore gives credit: a deficit <= 0 now is one
//   of the clock before, or a grant's (credit >= 1 less a frame of that length). m is 0
//   after reset and whenever every quantum covers every frame and debt.
// - Control level (ctrl_level; every mode but FIFO): before any of the above, the enabled
//   tenants with an eligible control head whose control bucket conforms (ctrl_conform)
//   are served round robin by packets from the last tenant granted at the control level;
//   no deficit is charged or refilled. A control head whose bucket does not conform
//   competes at its tenant's level as described above (control before bulk).
// - Every clock, a tenant with nothing queued loses positive credit (debt is kept).
#pragma once

#include <cstdint>
#include <vector>

#include "nicsched/nic/types.hpp"

namespace nicsched::refmodel {

// The arbiter's configuration inputs (CTRL.ENABLE, CTRL.ARB_MODE, per tenant T_CTRL.ENABLE,
// T_CTRL.PRIORITY, T_WEIGHT.QUANTUM).
struct ArbConfig {
  bool enable = true;
  nic::ArbMode mode = nic::ArbMode::kSp;
  std::vector<bool> t_enable;
  std::vector<unsigned> prio;     // 0..3
  std::vector<unsigned> quantum;  // 0..65535
  bool ctrl_level = false;        // CTRL.CONTROL_LEVEL (the TX arbiter; RX has none)
};

// One clock's queue heads, indexed by queue (tenant * 2 + class, class 0 control).
struct ArbHeads {
  std::vector<bool> elig, backlog;
  std::vector<unsigned> len;
  std::vector<std::uint32_t> ts;
  std::uint32_t now = 0;
  std::vector<bool> ctrl_conform;  // per tenant: control bucket has tokens (read with ctrl_level)
};

struct ArbDecision {
  bool valid = false;
  unsigned queue = 0;
  bool ctrl = false;  // granted at the control level (the control bucket pays)
};

class Arbiter {
 public:
  Arbiter(unsigned tenants, unsigned ts_bits)
      : n_(tenants), ts_mask_(ts_bits >= 32 ? 0xFFFFFFFFU : (1U << ts_bits) - 1U), deficit_(tenants, 0),
        last_(kRanks, 0), refill_quantum_(tenants, 0) {}

  [[nodiscard]] const std::vector<std::int64_t>& deficits() const { return deficit_; }

  // The decision for this clock; updates the state as the clock edge would.
  ArbDecision step(const ArbConfig& c, const ArbHeads& h) {
    const unsigned next_exp = refill_exponent(c, h);
    ArbDecision d = c.mode == nic::ArbMode::kFifo ? fifo(c, h) : scheduled(c, h);
    for (unsigned t = 0; t < n_; ++t) {
      if (!backlogged(h, t) && deficit_[t] > 0) deficit_[t] = 0;
    }
    refill_exp_ = next_exp;
    refill_quantum_ = c.quantum;
    return d;
  }

 private:
  [[nodiscard]] static bool backlogged(const ArbHeads& h, unsigned t) { return h.backlog[2 * t] || h.backlog[2 * t + 1]; }
  [[nodiscard]] bool eligible(const ArbConfig& c, const ArbHeads& h, unsigned t) const {
    return c.enable && c.t_enable[t] && (h.elig[2 * t] || h.elig[2 * t + 1]);
  }
  [[nodiscard]] static std::int64_t effective(unsigned quantum) { return quantum == 0 ? 1 : quantum; }
  // The length a grant of tenant t would charge: its control head's if eligible, else its bulk head's.
  [[nodiscard]] static unsigned charged_len(const ArbHeads& h, unsigned t) { return h.elig[2 * t] ? h.len[2 * t] : h.len[2 * t + 1]; }
  // The exponent the next clock's refill applies, from this clock's deficits, quanta and heads.
  [[nodiscard]] unsigned refill_exponent(const ArbConfig& c, const ArbHeads& h) const {
    unsigned m = 0;
    for (unsigned t = 0; t < n_; ++t) {
      const std::int64_t q = effective(c.quantum[t]);
      while (deficit_[t] <= 0 && deficit_[t] + (q << m) <= 0) ++m;
      if (h.elig[2 * t] || h.elig[2 * t + 1]) {
        while ((q << m) < static_cast<std::int64_t>(charged_len(h, t))) ++m;
      }
    }
    return m;
  }
  [[nodiscard]] static unsigned level(const ArbConfig& c, unsigned t) {
    return (c.mode == nic::ArbMode::kSp || c.mode == nic::ArbMode::kSpDwrr) ? c.prio[t] : 0;
  }

  ArbDecision fifo(const ArbConfig& c, const ArbHeads& h) const {
    ArbDecision d;
    std::uint32_t best = 0;
    for (unsigned q = 0; q < 2 * n_; ++q) {
      if (!(c.enable && c.t_enable[q / 2] && h.elig[q])) continue;
      const std::uint32_t age = (h.now - h.ts[q]) & ts_mask_;
      if (!d.valid || age > best) {
        d = {true, q};
        best = age;
      }
    }
    return d;
  }

  // The first tenant after the level's last grant (cyclic) for which `ok` holds.
  template <class Ok>
  [[nodiscard]] int round_robin(unsigned lvl, Ok ok) const {
    for (unsigned k = 1; k <= n_; ++k) {
      const unsigned t = (last_[lvl] + k) % n_;
      if (ok(t)) return static_cast<int>(t);
    }
    return -1;
  }

  ArbDecision scheduled(const ArbConfig& c, const ArbHeads& h) {
    if (c.ctrl_level) {
      auto ctrl = [&](unsigned t) { return c.enable && c.t_enable[t] && h.elig[2 * t] && h.ctrl_conform[t]; };
      const int pick = round_robin(kControlRank, ctrl);
      if (pick >= 0) {
        last_[kControlRank] = static_cast<unsigned>(pick);
        return {true, 2 * static_cast<unsigned>(pick), true};
      }
    }
    unsigned top = 4;
    for (unsigned t = 0; t < n_; ++t) {
      if (eligible(c, h, t) && level(c, t) < top) top = level(c, t);
    }
    if (top == 4) return {};
    const bool dwrr = c.mode == nic::ArbMode::kDwrr || c.mode == nic::ArbMode::kSpDwrr;
    auto in_top = [&](unsigned t) { return eligible(c, h, t) && level(c, t) == top; };
    int pick = -1;
    if (!dwrr) {
      pick = round_robin(top, in_top);
    } else {
      auto credit = [&](unsigned t) { return in_top(t) && deficit_[t] > 0; };
      pick = round_robin(top, credit);
      if (pick < 0) {
        auto in_debt = [&](unsigned t) {
          return c.enable && c.t_enable[t] && backlogged(h, t) && level(c, t) == top && deficit_[t] <= 0;
        };
        for (unsigned t = 0; t < n_; ++t) {
          if (in_debt(t)) deficit_[t] += effective(refill_quantum_[t]) << refill_exp_;
        }
        pick = round_robin(top, credit);
      }
    }
    if (pick < 0) return {};
    const auto t = static_cast<unsigned>(pick);
    const unsigned q = h.elig[2 * t] ? 2 * t : 2 * t + 1;
    if (dwrr) deficit_[t] -= charged_len(h, t);
    last_[top] = t;
    return {true, q};
  }

  static constexpr unsigned kControlRank = 4;  // last_[0..3]: priority levels
  static constexpr unsigned kRanks = 5;

  unsigned n_;
  std::uint32_t ts_mask_;
  std::vector<std::int64_t> deficit_;
  std::vector<unsigned> last_;  // per level and the control level: the tenant granted last (0 after reset)
  unsigned refill_exp_ = 0;                // m of this clock's refill (from the clock before; 0 after reset)
  std::vector<unsigned> refill_quantum_;   // the quanta of the clock before (0 after reset; 0 counts as 1)
};

}  // namespace nicsched::refmodel
