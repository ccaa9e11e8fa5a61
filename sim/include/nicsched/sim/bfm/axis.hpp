// AXI4-Stream source and sink bus functional models for Verilated models (header-only).
//
// The BFMs hold references to a model's port variables, so they work with any Verilated
// top: 64-bit data (QData) and wider (VlWide<N>), tkeep of 8..64 lanes. Each clock the
// test bench calls, in this order:
//   sample()  with the clock low and the model evaluated: records the handshakes that
//             happen at the coming rising edge (and checks the AXI4-Stream rules);
//   (rising edge, eval)
//   drive()   sets the inputs for the next cycle; then the bench evaluates the model with
//             the clock low again.
// Stall patterns (none / random / bursty) make the idle x backpressure matrix: a source
// with an idle pattern leaves tvalid low on some cycles between beats, a sink with a
// backpressure pattern drops tready. A source never withdraws a beat it has offered.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <verilated.h>

namespace nicsched::sim::bfm {

/// A broken AXI4-Stream rule seen by a sink (tvalid dropped or a beat changed while stalled).
class AxisProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One beat: `data` holds every lane (bytes_per_beat bytes, lanes with keep 0 included),
/// `keep` one bit per lane, `user` whatever the bench puts on sideband ports.
struct AxisBeat {
  std::vector<std::uint8_t> data;
  std::uint64_t keep = 0;
  bool last = false;
  std::uint64_t user = 0;
};

/// Beats of a frame received by a sink, with the sideband sampled on its tlast beat.
template <class Meta>
struct AxisFrame {
  std::vector<AxisBeat> beats;
  Meta meta{};
  std::uint64_t first_cycle = 0;  ///< cycle of the first beat's handshake
  std::uint64_t last_cycle = 0;   ///< cycle of the tlast handshake
};

/// Bytes of the lanes with keep set, in order.
inline std::vector<std::uint8_t> kept_bytes(const std::vector<AxisBeat>& beats) {
  std::vector<std::uint8_t> out;
  for (const auto& b : beats) {
    for (std::size_t i = 0; i < b.data.size(); ++i) {
      if ((b.keep >> i) & 1U) out.push_back(b.data[i]);
    }
  }
  return out;
}

/// Splits a frame into beats with contiguous tkeep (full beats, then the rest). A frame of
/// 0 bytes is one beat with keep 0. With `empty_last_beat` an extra tlast beat with keep 0
/// follows (a legal AXI4-Stream ending that a MAC may produce). Unused lanes are filled
/// with `filler` bytes so that a DUT that leaks them is caught.
inline std::vector<AxisBeat> beats_from_bytes(std::span<const std::uint8_t> bytes,
                                              unsigned bytes_per_beat,
                                              bool empty_last_beat = false,
                                              std::uint8_t filler = 0xA5) {
  std::vector<AxisBeat> beats;
  std::size_t at = 0;
  do {
    AxisBeat b;
    b.data.assign(bytes_per_beat, filler);
    const std::size_t n = std::min<std::size_t>(bytes_per_beat, bytes.size() - at);
    for (std::size_t i = 0; i < n; ++i) b.data[i] = bytes[at + i];
    b.keep = n >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1);
    at += n;
    beats.push_back(std::move(b));
  } while (at < bytes.size());
  if (empty_last_beat) {
    AxisBeat b;
    b.data.assign(bytes_per_beat, filler);
    beats.push_back(std::move(b));
  }
  beats.back().last = true;
  return beats;
}

/// True when both beat lists carry the same bytes on kept lanes, the same keep and last.
inline bool same_beats(const std::vector<AxisBeat>& a, const std::vector<AxisBeat>& b,
                       std::string* why = nullptr) {
  if (a.size() != b.size()) {
    if (why) *why = "beat count " + std::to_string(a.size()) + " vs " + std::to_string(b.size());
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].keep != b[i].keep || a[i].last != b[i].last) {
      if (why) *why = "beat " + std::to_string(i) + ": tkeep/tlast differ";
      return false;
    }
    for (std::size_t l = 0; l < a[i].data.size() && l < b[i].data.size(); ++l) {
      if (((a[i].keep >> l) & 1U) && a[i].data[l] != b[i].data[l]) {
        if (why) *why = "beat " + std::to_string(i) + " lane " + std::to_string(l) + ": data differ";
        return false;
      }
    }
  }
  return true;
}

namespace detail {

template <class T>
struct Lanes;
template <class T>
  requires std::is_integral_v<T>
struct Lanes<T> {
  static constexpr unsigned kCount = sizeof(T);
  static std::uint8_t get(const T& s, unsigned lane) {
    return static_cast<std::uint8_t>((static_cast<std::uint64_t>(s) >> (8 * lane)) & 0xFFU);
  }
  static void set(T& s, unsigned lane, std::uint8_t v) {
    const auto shift = 8 * lane;
    auto word = static_cast<std::uint64_t>(s);
    word &= ~(std::uint64_t{0xFF} << shift);
    word |= static_cast<std::uint64_t>(v) << shift;
    s = static_cast<T>(word);
  }
};
template <std::size_t W>
struct Lanes<VlWide<W>> {
  static constexpr unsigned kCount = static_cast<unsigned>(W * 4);
  static std::uint8_t get(const VlWide<W>& s, unsigned lane) {
    return static_cast<std::uint8_t>((s.at(lane / 4) >> (8 * (lane % 4))) & 0xFFU);
  }
  static void set(VlWide<W>& s, unsigned lane, std::uint8_t v) {
    const auto shift = 8 * (lane % 4);
    EData& word = s.at(lane / 4);
    word = (word & ~(EData{0xFF} << shift)) | (static_cast<EData>(v) << shift);
  }
};

}  // namespace detail

/// How often a source idles (tvalid low between beats) or a sink stalls (tready low).
struct StallPattern {
  enum class Mode : std::uint8_t { none, random, bursty };
  Mode mode = Mode::none;
  double probability = 0.0;  ///< random: stall chance per cycle; bursty: chance a burst starts
  unsigned max_burst = 1;    ///< bursty: longest stall, cycles

  static StallPattern none() { return {}; }
  static StallPattern random(double p) { return {Mode::random, p, 1}; }
  static StallPattern bursty(double p, unsigned max_burst) { return {Mode::bursty, p, max_burst}; }
  [[nodiscard]] std::string name() const {
    switch (mode) {
      case Mode::none: return "none";
      case Mode::random: return "random";
      case Mode::bursty: return "bursty";
    }
    return "invalid";
  }
};

/// Per-cycle stall decisions of one pattern.
class StallGenerator {
 public:
  StallGenerator(StallPattern p, std::uint64_t seed) : pattern_(p), rng_(seed) {}
  bool next() {
    switch (pattern_.mode) {
      case StallPattern::Mode::none: return false;
      case StallPattern::Mode::random: return coin();
      case StallPattern::Mode::bursty:
        if (burst_left_ > 0) {
          --burst_left_;
          return true;
        }
        if (coin()) {
          burst_left_ = std::uniform_int_distribution<unsigned>(0, pattern_.max_burst - 1)(rng_);
          return true;
        }
        return false;
    }
    return false;
  }

 private:
  bool coin() { return std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < pattern_.probability; }
  StallPattern pattern_;
  std::mt19937_64 rng_;
  unsigned burst_left_ = 0;
};

/// Drives frames into a model's s_axis_* ports.
template <class DataT, class KeepT>
class AxisSource {
 public:
  using DataLanes = detail::Lanes<DataT>;
  static constexpr unsigned kBytesPerBeat = DataLanes::kCount;

  AxisSource(DataT& tdata, KeepT& tkeep, CData& tvalid, const CData& tready, CData& tlast,
             StallPattern idle = StallPattern::none(), std::uint64_t seed = 1)
      : tdata_(tdata), tkeep_(tkeep), tvalid_(tvalid), tready_(tready), tlast_(tlast),
        idle_(idle, seed) {
    static_assert(detail::Lanes<KeepT>::kCount * 8 >= kBytesPerBeat, "tkeep narrower than tdata lanes");
    tvalid_ = 0;
  }

  /// Called with every beat put on the bus (to drive sideband ports from AxisBeat::user).
  void on_beat(std::function<void(const AxisBeat&)> fn) { on_beat_ = std::move(fn); }

  void push(std::vector<AxisBeat> beats) {
    for (auto& b : beats) {
      if (b.data.size() != kBytesPerBeat) {
        throw std::invalid_argument("AxisSource::push: beat of " + std::to_string(b.data.size()) +
                                    " bytes on a " + std::to_string(kBytesPerBeat) + "-byte bus");
      }
      pending_.push_back(std::move(b));
    }
  }
  void push_bytes(std::span<const std::uint8_t> frame) { push(beats_from_bytes(frame, kBytesPerBeat)); }

  void sample() { fired_ = tvalid_ && tready_; }

  void drive() {
    if (fired_) {
      pending_.pop_front();
      ++beats_sent_;
      fired_ = false;
      tvalid_ = 0;
    }
    if (tvalid_) return;  // an offered beat stays until taken
    if (pending_.empty() || idle_.next()) return;
    const AxisBeat& b = pending_.front();
    for (unsigned l = 0; l < kBytesPerBeat; ++l) DataLanes::set(tdata_, l, b.data[l]);
    tkeep_ = static_cast<KeepT>(b.keep);
    tlast_ = b.last ? 1 : 0;
    if (on_beat_) on_beat_(b);
    tvalid_ = 1;
  }

  [[nodiscard]] bool idle() const { return pending_.empty(); }
  [[nodiscard]] std::uint64_t beats_sent() const { return beats_sent_; }

 private:
  DataT& tdata_;
  KeepT& tkeep_;
  CData& tvalid_;
  const CData& tready_;
  CData& tlast_;
  StallGenerator idle_;
  std::deque<AxisBeat> pending_;
  std::function<void(const AxisBeat&)> on_beat_;
  bool fired_ = false;
  std::uint64_t beats_sent_ = 0;
};

/// Takes frames from a model's m_axis_* ports; `Meta` is what the bench samples on tlast.
template <class DataT, class KeepT, class Meta = std::uint64_t>
class AxisSink {
 public:
  using DataLanes = detail::Lanes<DataT>;
  static constexpr unsigned kBytesPerBeat = DataLanes::kCount;

  AxisSink(const DataT& tdata, const KeepT& tkeep, const CData& tvalid, CData& tready,
           const CData& tlast, StallPattern backpressure = StallPattern::none(), std::uint64_t seed = 2)
      : tdata_(tdata), tkeep_(tkeep), tvalid_(tvalid), tready_(tready), tlast_(tlast),
        stall_(backpressure, seed) {
    tready_ = 1;
  }

  /// Reads the sideband (tuser, field ports) on each tlast beat.
  void on_last(std::function<Meta()> fn) { meta_ = std::move(fn); }

  void sample(std::uint64_t cycle) {
    if (!tvalid_) {
      if (held_) throw AxisProtocolError("AXI4-Stream: tvalid dropped before the handshake at cycle " + std::to_string(cycle));
      return;
    }
    AxisBeat b = read_beat();
    if (held_) {
      std::string why;
      if (!same_beats({*held_}, {b}, &why)) {
        throw AxisProtocolError("AXI4-Stream: beat changed while stalled at cycle " + std::to_string(cycle) + " (" + why + ")");
      }
    }
    if (!tready_) {
      held_ = std::move(b);
      return;
    }
    held_.reset();
    if (current_.beats.empty()) current_.first_cycle = cycle;
    const bool last = b.last;
    current_.beats.push_back(std::move(b));
    if (last) {
      if (meta_) current_.meta = meta_();
      current_.last_cycle = cycle;
      frames_.push_back(std::move(current_));
      current_ = {};
    }
  }

  void drive() { tready_ = stall_.next() ? 0 : 1; }

  [[nodiscard]] std::vector<AxisFrame<Meta>>& frames() { return frames_; }
  [[nodiscard]] bool mid_frame() const { return !current_.beats.empty(); }

 private:
  AxisBeat read_beat() const {
    AxisBeat b;
    b.data.resize(kBytesPerBeat);
    for (unsigned l = 0; l < kBytesPerBeat; ++l) b.data[l] = DataLanes::get(tdata_, l);
    b.keep = static_cast<std::uint64_t>(tkeep_);
    b.last = tlast_ != 0;
    return b;
  }

  const DataT& tdata_;
  const KeepT& tkeep_;
  const CData& tvalid_;
  CData& tready_;
  const CData& tlast_;
  StallGenerator stall_;
  std::function<Meta()> meta_;
  std::optional<AxisBeat> held_;
  AxisFrame<Meta> current_;
  std::vector<AxisFrame<Meta>> frames_;
};

/// Type deduction helpers: make_source(top->s_axis_tdata, ...) picks DataT/KeepT.
template <class DataT, class KeepT>
AxisSource<DataT, KeepT> make_source(DataT& tdata, KeepT& tkeep, CData& tvalid, const CData& tready,
                                     CData& tlast, StallPattern idle, std::uint64_t seed) {
  return AxisSource<DataT, KeepT>(tdata, tkeep, tvalid, tready, tlast, idle, seed);
}

template <class Meta, class DataT, class KeepT>
AxisSink<DataT, KeepT, Meta> make_sink(const DataT& tdata, const KeepT& tkeep, const CData& tvalid,
                                       CData& tready, const CData& tlast, StallPattern backpressure,
                                       std::uint64_t seed) {
  return AxisSink<DataT, KeepT, Meta>(tdata, tkeep, tvalid, tready, tlast, backpressure, seed);
}

}  // namespace nicsched::sim::bfm
