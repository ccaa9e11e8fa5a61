// AXI4-Lite master bus functional model for Verilated models (header-only).
//
// Drives a slave whose ports follow docs/architecture.md: s_axil_awaddr, awprot, awvalid,
// awready, wdata, wstrb, wvalid, wready, bresp, bvalid, bready, araddr, arprot, arvalid,
// arready, rdata, rresp, rvalid, rready (32-bit data). The same BFM drives nicsched_csr and
// nicsched_top: it is a template over the Verilated model type.
//
// The harness owns the clock. Each cycle it calls, in this order:
//   sample()  with the clock low and the model evaluated: records the handshakes that
//             happen at the coming rising edge and checks the slave's side of the protocol
//             (VALID held and payload stable until READY);
//   (rising edge, eval)
//   drive()   sets the master's inputs for the next cycle; then the harness evaluates the
//             model with the clock low again.
// Transactions are queued with post_write()/post_read() and finish in completions()
// (AXI4-Lite answers in order per direction). AW, W and AR are driven independently, so
// several transactions may be outstanding; with Stalls the master leaves VALID low on
// random cycles before offering a beat and drops BREADY/RREADY on random cycles. A VALID
// once raised is held, with its payload, until the handshake.
// read32()/write32() are blocking helpers: they post one transaction and call the
// harness's tick callback (one clock, including sample()/drive()) until it completes.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace nicsched::sim::bfm {

/// The slave broke an AXI4-Lite rule (VALID dropped or payload changed before READY, a
/// response with nothing outstanding).
class AxilProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A blocking access did not complete within its cycle budget.
class AxilTimeout : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// AXI response codes.
enum class AxilResp : std::uint8_t { kOkay = 0, kExOkay = 1, kSlvErr = 2, kDecErr = 3 };

inline const char* to_string(AxilResp r) {
  switch (r) {
    case AxilResp::kOkay: return "OKAY";
    case AxilResp::kExOkay: return "EXOKAY";
    case AxilResp::kSlvErr: return "SLVERR";
    case AxilResp::kDecErr: return "DECERR";
  }
  return "?";
}

/// Random VALID idles and READY stalls; probabilities per cycle, 0 = never stall.
struct AxilStalls {
  double valid_idle = 0.0;   ///< master keeps AWVALID/WVALID/ARVALID low this cycle
  double ready_stall = 0.0;  ///< master keeps BREADY/RREADY low this cycle
  std::uint64_t seed = 1;
};

/// A finished transaction, with the cycles of its handshakes (cycle = drive() calls so far).
struct AxilCompletion {
  std::uint64_t id = 0;  ///< as returned by post_write()/post_read()
  bool is_write = false;
  std::uint32_t addr = 0;
  std::uint32_t data = 0;  ///< write: data written; read: data returned
  std::uint8_t strb = 0xF;
  AxilResp resp = AxilResp::kOkay;
  std::uint64_t addr_cycle = 0;  ///< AW/AR handshake
  std::uint64_t data_cycle = 0;  ///< W handshake (writes)
  std::uint64_t resp_cycle = 0;  ///< B/R handshake
};

/// Result of a blocking read.
struct AxilReadResult {
  std::uint32_t data = 0;
  AxilResp resp = AxilResp::kOkay;
};

template <class Model>
class AxilMaster {
 public:
  using Tick = std::function<void()>;

  explicit AxilMaster(Model& model, AxilStalls stalls = {}) : m_(model), stalls_(stalls), rng_(stalls.seed) {
    idle_outputs();
  }

  void set_stalls(AxilStalls s) {
    stalls_ = s;
    rng_.seed(s.seed);
  }

  /// Queues a write; returns its id.
  std::uint64_t post_write(std::uint32_t addr, std::uint32_t data, std::uint8_t strb = 0xF) {
    Pending p;
    p.c.id = next_id_++;
    p.c.is_write = true;
    p.c.addr = addr;
    p.c.data = data;
    p.c.strb = strb;
    writes_.push_back(p);
    return p.c.id;
  }

  /// Queues a read; returns its id.
  std::uint64_t post_read(std::uint32_t addr) {
    Pending p;
    p.c.id = next_id_++;
    p.c.addr = addr;
    reads_.push_back(p);
    return p.c.id;
  }

  /// Nothing queued or outstanding.
  [[nodiscard]] bool idle() const { return writes_.empty() && reads_.empty(); }
  [[nodiscard]] std::uint64_t cycle() const { return cycle_; }

  /// Finished transactions in completion order; the caller may clear it.
  std::deque<AxilCompletion>& completions() { return done_; }

  /// Clock low, model evaluated: records the handshakes of the coming rising edge.
  void sample() {
    check_stable();
    aw_hs_ = m_.s_axil_awvalid && m_.s_axil_awready;
    w_hs_ = m_.s_axil_wvalid && m_.s_axil_wready;
    ar_hs_ = m_.s_axil_arvalid && m_.s_axil_arready;
    if (aw_hs_) at(writes_, aw_sent_++).c.addr_cycle = cycle_;
    if (w_hs_) at(writes_, w_sent_++).c.data_cycle = cycle_;
    if (ar_hs_) at(reads_, ar_sent_++).c.addr_cycle = cycle_;
    if (m_.s_axil_bvalid && m_.s_axil_bready) {
      if (writes_.empty() || aw_sent_ == 0 || w_sent_ == 0) {
        throw AxilProtocolError("AXI4-Lite: BVALID with no write whose address and data were accepted");
      }
      Pending p = writes_.front();
      writes_.pop_front();
      --aw_sent_;
      --w_sent_;
      p.c.resp = static_cast<AxilResp>(m_.s_axil_bresp & 3U);
      p.c.resp_cycle = cycle_;
      done_.push_back(p.c);
    }
    if (m_.s_axil_rvalid && m_.s_axil_rready) {
      if (reads_.empty() || ar_sent_ == 0) throw AxilProtocolError("AXI4-Lite: RVALID with no read outstanding");
      Pending p = reads_.front();
      reads_.pop_front();
      --ar_sent_;
      p.c.data = static_cast<std::uint32_t>(m_.s_axil_rdata);
      p.c.resp = static_cast<AxilResp>(m_.s_axil_rresp & 3U);
      p.c.resp_cycle = cycle_;
      done_.push_back(p.c);
    }
    prev_bvalid_ = m_.s_axil_bvalid && !m_.s_axil_bready;
    prev_bresp_ = m_.s_axil_bresp;
    prev_rvalid_ = m_.s_axil_rvalid && !m_.s_axil_rready;
    prev_rresp_ = m_.s_axil_rresp;
    prev_rdata_ = static_cast<std::uint32_t>(m_.s_axil_rdata);
  }

  /// After the rising edge: sets the master's inputs for the next cycle.
  void drive() {
    ++cycle_;
    // A raised VALID stays until its handshake (recorded by sample()); otherwise offer the
    // next beat unless this cycle idles.
    const bool aw_held = m_.s_axil_awvalid && !aw_hs_;
    const bool w_held = m_.s_axil_wvalid && !w_hs_;
    const bool ar_held = m_.s_axil_arvalid && !ar_hs_;
    aw_hs_ = w_hs_ = ar_hs_ = false;
    if (!aw_held) offer_address(m_.s_axil_awvalid, m_.s_axil_awaddr, m_.s_axil_awprot, writes_, aw_sent_);
    if (!w_held) {
      put(m_.s_axil_wvalid, 0);
      if (w_sent_ < writes_.size() && !roll(stalls_.valid_idle)) {
        put(m_.s_axil_wvalid, 1);
        put(m_.s_axil_wdata, writes_[w_sent_].c.data);
        put(m_.s_axil_wstrb, writes_[w_sent_].c.strb);
      }
    }
    if (!ar_held) offer_address(m_.s_axil_arvalid, m_.s_axil_araddr, m_.s_axil_arprot, reads_, ar_sent_);
    put(m_.s_axil_bready, roll(stalls_.ready_stall) ? 0U : 1U);
    put(m_.s_axil_rready, roll(stalls_.ready_stall) ? 0U : 1U);
  }

  /// Blocking write: posts it and ticks until its response. Throws AxilTimeout.
  AxilResp write32(std::uint32_t addr, std::uint32_t data, const Tick& tick, std::uint8_t strb = 0xF,
                   std::uint64_t timeout_cycles = 1000) {
    return wait_for(post_write(addr, data, strb), tick, timeout_cycles).resp;
  }

  /// Blocking read: posts it and ticks until its response. Throws AxilTimeout.
  AxilReadResult read32(std::uint32_t addr, const Tick& tick, std::uint64_t timeout_cycles = 1000) {
    const AxilCompletion c = wait_for(post_read(addr), tick, timeout_cycles);
    return {c.data, c.resp};
  }

  /// Ticks until transaction `id` completes; removes it from completions() and returns it.
  AxilCompletion wait_for(std::uint64_t id, const Tick& tick, std::uint64_t timeout_cycles = 1000) {
    for (std::uint64_t n = 0;; ++n) {
      for (auto it = done_.begin(); it != done_.end(); ++it) {
        if (it->id == id) {
          AxilCompletion c = *it;
          done_.erase(it);
          return c;
        }
      }
      if (n == timeout_cycles) {
        throw AxilTimeout("AXI4-Lite: transaction " + std::to_string(id) + " not answered within " +
                          std::to_string(timeout_cycles) + " cycles");
      }
      tick();
    }
  }

 private:
  struct Pending {
    AxilCompletion c;
  };

  static Pending& at(std::deque<Pending>& q, std::size_t i) {
    if (i >= q.size()) throw AxilProtocolError("AXI4-Lite: handshake with nothing queued (BFM state lost)");
    return q[i];
  }
  // One address channel (AW or AR) whose VALID is not held: offers the first address of
  // `queue` not yet accepted, unless there is none or this cycle idles.
  template <class Valid, class Addr, class Prot>
  void offer_address(Valid& valid, Addr& addr, Prot& prot, const std::deque<Pending>& queue, std::size_t sent) {
    put(valid, 0);
    if (sent < queue.size() && !roll(stalls_.valid_idle)) {
      put(valid, 1);
      put(addr, queue[sent].c.addr);
      put(prot, 0);
    }
  }

  // Assigns to a Verilated port whatever its storage type (CData, SData, IData).
  template <class Port>
  static void put(Port& port, std::uint64_t v) {
    port = static_cast<Port>(v);
  }

  bool roll(double p) { return p > 0.0 && std::bernoulli_distribution(p)(rng_); }

  void idle_outputs() {
    put(m_.s_axil_awvalid, 0);
    put(m_.s_axil_wvalid, 0);
    put(m_.s_axil_arvalid, 0);
    put(m_.s_axil_bready, 1);
    put(m_.s_axil_rready, 1);
    put(m_.s_axil_awaddr, 0);
    put(m_.s_axil_awprot, 0);
    put(m_.s_axil_wdata, 0);
    put(m_.s_axil_wstrb, 0);
    put(m_.s_axil_araddr, 0);
    put(m_.s_axil_arprot, 0);
  }

  // A response offered and not taken last cycle must still be offered, unchanged.
  void check_stable() const {
    if (prev_bvalid_ && (!m_.s_axil_bvalid || m_.s_axil_bresp != prev_bresp_)) {
      throw AxilProtocolError("AXI4-Lite: BVALID dropped or BRESP changed before BREADY");
    }
    if (prev_rvalid_ && (!m_.s_axil_rvalid || m_.s_axil_rresp != prev_rresp_ ||
                         static_cast<std::uint32_t>(m_.s_axil_rdata) != prev_rdata_)) {
      throw AxilProtocolError("AXI4-Lite: RVALID dropped or RDATA/RRESP changed before RREADY");
    }
  }

  Model& m_;
  AxilStalls stalls_;
  std::mt19937_64 rng_;
  std::deque<Pending> writes_;  // in order; [0, aw_sent_) have had AW accepted, [0, w_sent_) W
  std::deque<Pending> reads_;   // in order; [0, ar_sent_) have had AR accepted
  std::size_t aw_sent_ = 0, w_sent_ = 0, ar_sent_ = 0;
  bool aw_hs_ = false, w_hs_ = false, ar_hs_ = false;  // handshakes at the coming edge
  std::deque<AxilCompletion> done_;
  std::uint64_t next_id_ = 1;
  std::uint64_t cycle_ = 0;
  bool prev_bvalid_ = false, prev_rvalid_ = false;
  std::uint8_t prev_bresp_ = 0, prev_rresp_ = 0;
  std::uint32_t prev_rdata_ = 0;
};

}  // namespace nicsched::sim::bfm
