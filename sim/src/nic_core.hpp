// The per-variant part of NicModel: a template over the Verilated class, instantiated
// once per variant (nic_variants*.cpp). Everything that runs every cycle is here.
#pragma once

#include <verilated.h>
#if __has_include(<verilated_fst_c.h>)
#include <verilated_fst_c.h>
#define NICSCHED_HAVE_FST 1
#endif

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "nicsched/nic/types.hpp"
#include "nicsched/sim/error.hpp"
#include "nicsched/sim/frame.hpp"
#include "nicsched/sim/nic_model.hpp"

namespace nicsched::sim {

// AXI4-Lite response of the last access.
struct AxilResult {
  std::uint32_t data = 0;
  std::uint8_t resp = 0;  // 0 OKAY, 2 SLVERR, 3 DECERR
  bool timed_out = false;
};

class NicCore {
 public:
  virtual ~NicCore() = default;
  virtual std::uint64_t run(std::uint64_t max_cycles) = 0;
  virtual AxilResult axil_read(std::uint32_t addr, std::uint32_t timeout) = 0;
  virtual AxilResult axil_write(std::uint32_t addr, std::uint32_t value, std::uint32_t timeout) = 0;
  // A copy that continues exactly as this core would, source and sink detached (null);
  // SimError where the backend's state cannot be copied (NicModel::clone).
  [[nodiscard]] virtual std::unique_ptr<NicCore> clone() const = 0;

  FrameSource* source = nullptr;
  FrameSink* sink = nullptr;
  bool pending[2] = {false, false};
  bool break_requested = false;
  std::uint64_t cycle = 0;
  MacStats stats;

 protected:
  // Runs tick() for up to max_cycles cycles; stops after the cycle in which a frame sink set
  // break_requested (clearing it). Returns the cycles run. Shared by every backend's run().
  template <class Tick>
  std::uint64_t run_until_break(std::uint64_t max_cycles, Tick&& tick) {
    for (std::uint64_t i = 0; i < max_cycles; ++i) {
      tick();
      if (break_requested) {
        break_requested = false;
        return i + 1;
      }
    }
    return max_cycles;
  }
};

// Credit in 1/256 bytes: refilled every cycle at the link rate, spent per beat.
struct LinkCredit {
  std::int64_t credit = 0;
  std::int64_t rate = 0;
  std::int64_t cap = 0;
  void init(double bytes_per_cycle) {
    rate = static_cast<std::int64_t>(bytes_per_cycle * 256.0 + 0.5);
    cap = 64 * 256;
    credit = cap;
  }
  void refill() { credit = std::min(credit + rate, cap); }
  // `cycles` refills in a row: the credit saturates at the cap, so one min() covers them.
  void refill(std::uint64_t cycles) {
    if (cycles == 0 || rate <= 0) return;
    const auto gap = static_cast<std::uint64_t>(std::max<std::int64_t>(0, cap - credit));
    credit = gap / static_cast<std::uint64_t>(rate) < cycles ? cap : credit + rate * static_cast<std::int64_t>(cycles);
  }
};

// The MAC's egress pause periods (NicConfig::pauses: sorted, non-overlapping), asked cycle
// by cycle in increasing order: paused(c) is true while c lies in a period.
class PauseSchedule {
 public:
  explicit PauseSchedule(std::vector<PausePeriod> pauses)
      : p_(std::move(pauses)), next_(p_.empty() ? ~0ULL : p_.front().start_cycle) {}

  bool paused(std::uint64_t cycle) {
    if (cycle >= next_) update(cycle);
    return paused_;
  }
  // After paused(c): paused() answers the same for every cycle from c up to, not including,
  // this one.
  [[nodiscard]] std::uint64_t holds_until() const { return next_; }

  // paused(c) for every c in [first, last], in order; returns for how many it was true.
  std::uint64_t paused_cycles(std::uint64_t first, std::uint64_t last) {
    std::uint64_t n = 0;
    for (std::uint64_t c = first; c <= last;) {
      const bool p = paused(c);
      const std::uint64_t end = std::min(last + 1, next_);  // paused(c) holds until next_ (> c)
      if (p) n += end - c;
      c = end;
    }
    return n;
  }

 private:
  void update(std::uint64_t cycle) {
    while (index_ < p_.size() && cycle >= p_[index_].start_cycle + p_[index_].length_cycles) ++index_;
    if (index_ >= p_.size()) {
      paused_ = false;
      next_ = ~0ULL;
      return;
    }
    const auto& cur = p_[index_];
    paused_ = cycle >= cur.start_cycle;
    next_ = paused_ ? cur.start_cycle + cur.length_cycles : cur.start_cycle;
  }

  std::vector<PausePeriod> p_;
  std::size_t index_ = 0;
  std::uint64_t next_ = ~0ULL;
  bool paused_ = false;
};

inline constexpr std::uint32_t kWireOverhead = 24;  // preamble + SFD 8, IFG 12, FCS 4
inline constexpr std::uint32_t kBeatBytes = 64;
inline constexpr std::size_t kFrameBufBytes = kMaxTaggedFrame + 2 * kBeatBytes;

template <class V>
class CoreImpl final : public NicCore {
 public:
  explicit CoreImpl(const NicConfig& cfg) : cfg_(cfg), ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->randReset(0);
    if (!cfg.trace.empty()) ctx_->traceEverOn(true);
    top_ = std::make_unique<V>(ctx_.get(), "nicsched_top");
    if (!cfg.trace.empty()) open_trace(cfg.trace);
    tx_credit_.init(cfg.link_bytes_per_cycle);
    rx_credit_.init(cfg.link_bytes_per_cycle);
    for (auto& s : src_) s.buf.resize(kFrameBufBytes);
    for (auto& s : out_) s.buf.resize(kFrameBufBytes + kBeatBytes);
    // Reset with every input idle.
    top_->rst_ni = 0;
    top_->s_axis_tx_tvalid = 0;
    top_->s_axis_rx_tvalid = 0;
    top_->m_axis_tx_tready = 0;
    top_->m_axis_rx_tready = 1;
    top_->s_axil_awvalid = 0;
    top_->s_axil_wvalid = 0;
    top_->s_axil_bready = 0;
    top_->s_axil_arvalid = 0;
    top_->s_axil_rready = 0;
    top_->s_axil_awprot = 0;
    top_->s_axil_arprot = 0;
    top_->s_axil_wstrb = 0xF;
    for (std::uint32_t i = 0; i < cfg.reset_cycles; ++i) clock_edge_pair();
    top_->rst_ni = 1;
    // The queue managers initialise their free lists after reset, one cell per cycle,
    // with their inputs stalled; the NIC is ready once the larger (either direction's)
    // list is built. Cycle 0 is the first ready cycle.
    const std::uint64_t init_cycles = cfg.buffer_bytes / kBeatBytes + 16;
    for (std::uint64_t i = 0; i < init_cycles; ++i) clock_edge_pair();
    top_->clk_i = 0;
    top_->eval();
    if (!top_->s_axis_tx_tready || !top_->s_axis_rx_tready) {
      throw SimError("nicsched_top: input streams not ready " + std::to_string(init_cycles) + " cycles after reset");
    }
    cycle = 0;
  }

  ~CoreImpl() override {
#ifdef NICSCHED_HAVE_FST
    if (tfp_) tfp_->close();
#endif
    top_->final();
  }
  CoreImpl(const CoreImpl&) = delete;
  CoreImpl& operator=(const CoreImpl&) = delete;

  std::uint64_t run(std::uint64_t max_cycles) override {
    return run_until_break(max_cycles, [this] { tick(); });
  }

  [[nodiscard]] std::unique_ptr<NicCore> clone() const override {
    throw SimError("the rtl backend cannot be forked: a Verilated model's state (its generated classes, the "
                   "VerilatedContext, an open waveform) has no copy; fork a simulation on the model backend "
                   "(--backend model)");
  }

  AxilResult axil_write(std::uint32_t addr, std::uint32_t value, std::uint32_t timeout) override {
    top_->s_axil_awaddr = static_cast<std::remove_reference_t<decltype(top_->s_axil_awaddr)>>(addr);
    top_->s_axil_wdata = value;
    top_->s_axil_wstrb = 0xF;
    top_->s_axil_awvalid = 1;
    top_->s_axil_wvalid = 1;
    top_->s_axil_bready = 1;
    axil_op_ = AxilOp::kWrite;
    return finish_axil(timeout);
  }

  AxilResult axil_read(std::uint32_t addr, std::uint32_t timeout) override {
    top_->s_axil_araddr = static_cast<std::remove_reference_t<decltype(top_->s_axil_araddr)>>(addr);
    top_->s_axil_arvalid = 1;
    top_->s_axil_rready = 1;
    axil_op_ = AxilOp::kRead;
    return finish_axil(timeout);
  }

 private:
  enum class AxilOp : std::uint8_t { kIdle, kWrite, kRead };

  struct Source {
    std::vector<std::uint8_t> buf;
    std::uint32_t len = 0;
    std::uint32_t off = 0;
    bool active = false;
    std::uint32_t tx_source = 0;  // TX: s_axis_tx_tuser, the frame's source (FrameSource::tx_source)
  };
  struct Sink {
    std::vector<std::uint8_t> buf;
    std::uint32_t len = 0;
  };

  void open_trace([[maybe_unused]] const std::filesystem::path& path) {
#ifdef NICSCHED_HAVE_FST
    if constexpr (requires(V& v, VerilatedFstC* t) { v.trace(t, 99); }) {
      tfp_ = std::make_unique<VerilatedFstC>();
      top_->trace(tfp_.get(), 99);
      tfp_->open(path.c_str());
      if (!tfp_->isOpen()) throw SimError(path.string() + ": cannot open the waveform file");
      return;
    }
#endif
    throw SimError("this NicModel variant was built without FST tracing; cannot write " + path.string());
  }

  void dump([[maybe_unused]] std::uint64_t t) {
#ifdef NICSCHED_HAVE_FST
    if (tfp_) tfp_->dump(t);
#endif
  }

  void clock_edge_pair() {
    top_->clk_i = 0;
    top_->eval();
    top_->clk_i = 1;
    top_->eval();
  }

  AxilResult finish_axil(std::uint32_t timeout) {
    axil_done_ = false;
    for (std::uint32_t i = 0; i < timeout && !axil_done_; ++i) tick();
    AxilResult r = axil_result_;
    if (!axil_done_) {
      r.timed_out = true;
      top_->s_axil_awvalid = 0;
      top_->s_axil_wvalid = 0;
      top_->s_axil_arvalid = 0;
      top_->s_axil_bready = 0;
      top_->s_axil_rready = 0;
      axil_op_ = AxilOp::kIdle;
    }
    return r;
  }

  // Puts the next beat of `s` on the stream's input ports.
  template <class Data, class Keep>
  static void offer(Source& s, Data& tdata, Keep& tkeep, CData& tlast, CData& tvalid) {
    const std::uint32_t n = std::min<std::uint32_t>(kBeatBytes, s.len - s.off);
    std::memcpy(tdata.data(), s.buf.data() + s.off, kBeatBytes);
    tkeep = n >= kBeatBytes ? ~static_cast<Keep>(0) : static_cast<Keep>((static_cast<std::uint64_t>(1) << n) - 1);
    tlast = (s.off + n >= s.len) ? 1 : 0;
    tvalid = 1;
  }

  bool fetch(Direction d, Source& s) {
    if (!pending[static_cast<int>(d)]) return false;
    if (!source->next_frame(d, cycle, s.buf)) {
      pending[static_cast<int>(d)] = false;
      return false;
    }
    s.len = static_cast<std::uint32_t>(s.buf.size());
    if (s.len == 0 || s.len > kMaxTaggedFrame) {
      throw SimError("frame source gave a frame of " + std::to_string(s.len) + " bytes");
    }
    s.buf.resize(std::max<std::size_t>(s.len + kBeatBytes, kFrameBufBytes));
    s.off = 0;
    s.active = true;
    if (d == Direction::kTx) {
      s.tx_source = source->tx_source();
      if (s.tx_source >= nic::kMaxSources) {
        throw SimError("frame source gave TX source " + std::to_string(s.tx_source) + ", s_axis_tx_tuser holds 0.." +
                       std::to_string(nic::kMaxSources - 1));
      }
    }
    ++stats.frames_in[static_cast<int>(d)];
    return true;
  }

  // A beat handshaken on an output stream: append; deliver at tlast.
  template <class Data>
  void take(Direction d, const Data& tdata, std::uint64_t keep, bool last, std::uint32_t user) {
    Sink& k = out_[static_cast<int>(d)];
    const auto n = static_cast<std::uint32_t>(std::popcount(keep));
    if (k.len + kBeatBytes > kFrameBufBytes) {
      throw SimError(std::string("m_axis_") + to_string(d) + ": frame longer than " +
                     std::to_string(kFrameBufBytes) + " bytes without tlast at cycle " + std::to_string(cycle));
    }
    std::memcpy(k.buf.data() + k.len, tdata.data(), kBeatBytes);
    k.len += n;
    if (!last) return;
    ++stats.frames_out[static_cast<int>(d)];
    if (d == Direction::kTx) stats.wire_bytes_out_tx += kWireOverhead;
    OutFrame f;
    f.dir = d;
    f.data = k.buf.data();
    f.len = k.len;
    f.tenant = user & 0x3FU;
    f.cls = (user >> 6) & 1U;
    f.crypto_op = (user >> 7) & 3U;
    f.cycle = cycle;
    k.len = 0;
    if (sink != nullptr) sink->frame_out(f);
  }

  void tick() {
    // Inputs for this cycle are in place; settle the combinational outputs.
    top_->clk_i = 0;
    top_->eval();
    dump(2 * cycle);

    // Handshakes of the coming rising edge.
    const bool tx_in = top_->s_axis_tx_tvalid && top_->s_axis_tx_tready;
    const bool rx_in = top_->s_axis_rx_tvalid && top_->s_axis_rx_tready;
    if (top_->m_axis_tx_tvalid && top_->m_axis_tx_tready) {
      const auto n = static_cast<std::uint32_t>(std::popcount(static_cast<std::uint64_t>(top_->m_axis_tx_tkeep)));
      tx_credit_.credit -= static_cast<std::int64_t>(n + (top_->m_axis_tx_tlast ? kWireOverhead : 0)) * 256;
      stats.wire_bytes_out_tx += n;
      take(Direction::kTx, top_->m_axis_tx_tdata, top_->m_axis_tx_tkeep, top_->m_axis_tx_tlast, top_->m_axis_tx_tuser);
    }
    if (top_->m_axis_rx_tvalid) {
      take(Direction::kRx, top_->m_axis_rx_tdata, top_->m_axis_rx_tkeep, top_->m_axis_rx_tlast, top_->m_axis_rx_tuser);
    }
    if (axil_op_ != AxilOp::kIdle) sample_axil();

    top_->clk_i = 1;
    top_->eval();
    dump(2 * cycle + 1);
    ++cycle;

    // Inputs for the next cycle.
    if (tx_in) {
      Source& s = src_[0];
      s.off += kBeatBytes;
      top_->s_axis_tx_tvalid = 0;
      if (s.off >= s.len) s.active = false;
    }
    if (!top_->s_axis_tx_tvalid && (src_[0].active || fetch(Direction::kTx, src_[0]))) {
      offer(src_[0], top_->s_axis_tx_tdata, top_->s_axis_tx_tkeep, top_->s_axis_tx_tlast, top_->s_axis_tx_tvalid);
      top_->s_axis_tx_tuser = static_cast<CData>(src_[0].tx_source);
    }
    if (rx_in) {
      Source& s = src_[1];
      const std::uint32_t n = std::min<std::uint32_t>(kBeatBytes, s.len - s.off);
      s.off += kBeatBytes;
      const std::uint32_t spent = n + (s.off >= s.len ? kWireOverhead : 0);
      rx_credit_.credit -= static_cast<std::int64_t>(spent) * 256;
      stats.wire_bytes_in_rx += spent;
      top_->s_axis_rx_tvalid = 0;
      if (s.off >= s.len) s.active = false;
    }
    rx_credit_.refill();
    if (!top_->s_axis_rx_tvalid && rx_credit_.credit > 0 && (src_[1].active || fetch(Direction::kRx, src_[1]))) {
      offer(src_[1], top_->s_axis_rx_tdata, top_->s_axis_rx_tkeep, top_->s_axis_rx_tlast, top_->s_axis_rx_tvalid);
    }
    tx_credit_.refill();
    const bool paused = pauses_.paused(cycle);
    top_->m_axis_tx_tready = (!paused && tx_credit_.credit > 0) ? 1 : 0;
    if (paused) ++stats.paused_cycles;
    if (axil_op_ != AxilOp::kIdle) drive_axil();
  }

  void sample_axil() {
    if (top_->s_axil_awvalid && top_->s_axil_awready) aw_fire_ = true;
    if (top_->s_axil_wvalid && top_->s_axil_wready) w_fire_ = true;
    if (top_->s_axil_arvalid && top_->s_axil_arready) ar_fire_ = true;
    if (top_->s_axil_bvalid && top_->s_axil_bready) {
      axil_result_ = {0, static_cast<std::uint8_t>(top_->s_axil_bresp), false};
      resp_fire_ = true;
    }
    if (top_->s_axil_rvalid && top_->s_axil_rready) {
      axil_result_ = {static_cast<std::uint32_t>(top_->s_axil_rdata), static_cast<std::uint8_t>(top_->s_axil_rresp), false};
      resp_fire_ = true;
    }
  }

  void drive_axil() {
    if (aw_fire_) top_->s_axil_awvalid = 0;
    if (w_fire_) top_->s_axil_wvalid = 0;
    if (ar_fire_) top_->s_axil_arvalid = 0;
    aw_fire_ = w_fire_ = ar_fire_ = false;
    if (resp_fire_) {
      resp_fire_ = false;
      top_->s_axil_bready = 0;
      top_->s_axil_rready = 0;
      axil_op_ = AxilOp::kIdle;
      axil_done_ = true;
    }
  }

  NicConfig cfg_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<V> top_;
#ifdef NICSCHED_HAVE_FST
  std::unique_ptr<VerilatedFstC> tfp_;
#endif
  Source src_[2];
  Sink out_[2];
  LinkCredit tx_credit_;
  LinkCredit rx_credit_;
  PauseSchedule pauses_{cfg_.pauses};
  AxilOp axil_op_ = AxilOp::kIdle;
  bool aw_fire_ = false, w_fire_ = false, ar_fire_ = false, resp_fire_ = false, axil_done_ = false;
  AxilResult axil_result_;
};

}  // namespace nicsched::sim
