// TokenBucket: one tenant's egress rate limit, the reference for nicsched_shaper (used by
// RefModel and by the rtl.shaper bench). Written from docs/rtl.md ("Shaper") and the
// module header, not from the RTL:
// - tokens in 1/1024 byte; every clock the bucket gains T_RATE.BYTES_PER_KCYCLE and is
//   capped at T_BURST.BYTES, then a frame sent in that clock takes its length (the bucket
//   may go negative: the next frame waits until it is paid back);
// - the tenant conforms (may send) while the bucket is not negative, or with RATE_EN = 0,
//   which holds the bucket full (enabling the limit starts with a full burst);
// - conforms() is the state before the clock edge: a frame sent at clock t counts from
//   t + 1.
#pragma once

#include <algorithm>
#include <cstdint>

namespace nicsched::refmodel {

class TokenBucket {
 public:
  static constexpr std::int64_t kScale = 1024;  // tokens per byte

  // The register fields the bucket follows (T_CTRL.RATE_EN, T_RATE, T_BURST).
  struct Config {
    bool enabled = false;                     // RATE_EN
    std::uint32_t rate_bytes_per_kcycle = 0;  // added every clock, in 1/1024 byte
    std::uint32_t burst_bytes = 0;            // cap
  };

  // Tokens (1/1024 byte) at reset; the RTL's buckets start empty.
  explicit TokenBucket(std::int64_t tokens = 0) : tokens_(tokens) {}

  [[nodiscard]] std::int64_t tokens() const { return tokens_; }
  [[nodiscard]] bool conforms(const Config& c) const { return !c.enabled || tokens_ >= 0; }

  // One clock edge; `sent_bytes` is the length of the frame sent in this clock, 0 if none.
  void clock(const Config& c, std::uint32_t sent_bytes) {
    const std::int64_t cap = static_cast<std::int64_t>(c.burst_bytes) * kScale;
    tokens_ = c.enabled ? std::min(tokens_ + static_cast<std::int64_t>(c.rate_bytes_per_kcycle), cap) -
                              static_cast<std::int64_t>(sent_bytes) * kScale
                        : cap;
  }

  // `cycles` clock edges in which nothing is sent, as clock(c, 0) that many times: the
  // refill saturates at the burst, so the span is min(tokens + cycles * rate, cap).
  void clock_idle(const Config& c, std::uint64_t cycles) {
    if (cycles == 0) return;
    const std::int64_t cap = static_cast<std::int64_t>(c.burst_bytes) * kScale;
    const auto rate = static_cast<std::int64_t>(c.rate_bytes_per_kcycle);
    if (!c.enabled || tokens_ >= cap) {
      tokens_ = cap;
    } else if (rate != 0) {
      // cap - tokens_ > 0: full within the span if fewer than `cycles` refills are short of it.
      const auto short_refills = static_cast<std::uint64_t>((cap - tokens_) / rate);
      tokens_ = short_refills < cycles ? cap : tokens_ + rate * static_cast<std::int64_t>(cycles);
    }
  }

 private:
  std::int64_t tokens_;
};

}  // namespace nicsched::refmodel
