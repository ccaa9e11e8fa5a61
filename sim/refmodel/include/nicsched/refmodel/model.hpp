// RefModel: a cycle-stepped, transaction-level reference model of nicsched_top, written
// from the specification. It decides, for every frame, whether it is dropped (and why)
// or when it leaves, and keeps the counters the register map exposes. It is independent
// of the RTL's structure (no Verilator), so it serves as the regression's scoreboard and
// as a fast mode for the simulator.
//
// Use: push() frames with the cycle their last beat is accepted at the input, commit()
// configurations, set_output_ready() for MAC/host backpressure, step() the clock, then
// pop_records() for frames that were delivered or dropped, and counters().
//
// Timing (model cycle c, one decision per clock, see docs/verification.md):
//   1. a committed configuration takes effect; 2. crypto slots whose hold ends at c are
//   freed; 3. frames arriving at c are parsed, classified, admitted or dropped;
//   4. token buckets fill; 5. TX: a frame whose crypto is done takes a free output
//   link, then the arbiter makes one decision (a non-crypto head needs the free link, an
//   encrypt head needs a slot); 6. RX: the slot arbiter grants one decrypt head, a free
//   RX output link takes the oldest ready frame; 7. each output moves one beat if ready.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <span>
#include <unordered_map>
#include <vector>

#include "nicsched/refmodel/parser.hpp"
#include "nicsched/refmodel/types.hpp"

namespace nicsched::refmodel {

class RefModel {
 public:
  explicit RefModel(const Params& params);

  [[nodiscard]] const Params& params() const { return params_; }
  [[nodiscard]] const Config& config() const { return cfg_; }
  // The cycle the next step() simulates.
  [[nodiscard]] std::uint64_t cycle() const { return cycle_; }

  // Shadow writes + COMMIT: `cfg` takes effect at the start of the next simulated cycle.
  // Throws ModelError (and changes nothing) if cfg does not fit the parameters.
  void commit(const Config& cfg);
  // COUNTER_CLEAR: zero every live counter (depths are state, not counters: kept).
  void clear_counters();

  // A frame whose tlast is accepted at `arrival_cycle` (>= cycle()). Returns its id;
  // ids count from 0 in push order.
  std::uint64_t push(Direction dir, std::span<const std::uint8_t> bytes,
                     std::uint64_t arrival_cycle);
  // tready of m_axis_tx (MAC) or m_axis_rx (host) for the cycles that follow.
  void set_output_ready(Direction dir, bool ready);

  void step(std::uint64_t cycles = 1);
  // Steps until idle() or `max_cycles` more cycles; returns true if idle.
  bool run_until_idle(std::uint64_t max_cycles);
  // Nothing pending, queued, in a slot or on an output.
  [[nodiscard]] bool idle() const;

  // Frames delivered or dropped since the last call, in the order they were decided.
  std::vector<FrameRecord> pop_records();

  [[nodiscard]] Counters counters() const;
  [[nodiscard]] int busy_slots() const;
  [[nodiscard]] int free_slots() const { return params_.crypto_slots - busy_slots(); }
  [[nodiscard]] std::uint32_t slots_held(std::uint32_t tenant) const;
  // Bytes queued now in TX queue q (= Q_DEPTH) and buffer cells in use per direction.
  [[nodiscard]] std::uint64_t queue_bytes(std::uint32_t q) const { return qbytes_.at(q); }
  [[nodiscard]] std::uint64_t buffer_cells_used(Direction d) const {
    return cells_used_[static_cast<int>(d)];
  }
  // Cycles for which tenant t's TX queues have been unservable (tenant or egress
  // disabled) as of now; 0 when servable.
  [[nodiscard]] std::uint64_t unservable_for(std::uint32_t tenant) const;

 private:
  struct Live {
    FrameRecord rec;
    std::uint32_t cells = 0;
    std::uint64_t visible = 0;  // first cycle it may be scheduled
    std::uint64_t seq = 0;      // admission order (FIFO mode)
  };
  struct Slot {
    bool busy = false;
    std::uint64_t frame = 0;
    std::uint64_t release = 0;
  };
  struct Output {
    bool ready = true;
    bool active = false;
    std::uint64_t frame = 0;
    std::uint64_t beats_left = 0;
    std::deque<std::uint64_t> fifo;  // frames waiting for this output (crypto done, RX bypass)
  };
  // Deficit round robin over tenants: one instance per priority level (TX) and one for
  // the RX slot arbiter.
  struct Drr {
    std::uint32_t ptr = 0;
  };

  void apply_commit();
  void release_slots();
  void admit_arrivals();
  void admit_tx(Live& f);
  void admit_rx(Live& f);
  void fill_buckets();
  void tx_decide();
  void rx_decide();
  void move_beats(Direction d);
  void count_busy();
  void finish(std::uint64_t id, Fate fate);

  [[nodiscard]] bool tenant_servable(std::uint32_t t) const;
  [[nodiscard]] bool slot_available(std::uint32_t t) const;
  [[nodiscard]] bool tx_queue_eligible(std::uint32_t q, bool link_free) const;
  [[nodiscard]] int tenant_queue(std::uint32_t t, bool link_free) const;
  int pick_fifo(bool link_free) const;
  int pick_rr(std::uint32_t level, bool link_free);
  int pick_drr(std::vector<std::int64_t>& deficit, std::vector<bool>& fresh, Drr& st,
               const std::vector<std::int64_t>& head_len);
  void start_slot(std::uint64_t id);
  [[nodiscard]] std::uint32_t quantum(std::uint32_t t) const;
  [[nodiscard]] std::uint32_t limit(std::uint32_t q) const;
  [[nodiscard]] std::uint64_t buffer_capacity_cells() const;

  Params params_;
  Config cfg_;
  bool commit_pending_ = false;
  Config pending_cfg_;
  std::uint64_t cycle_ = 0;
  std::uint64_t next_id_ = 0;
  std::uint64_t next_seq_ = 0;

  std::multimap<std::uint64_t, std::uint64_t> arrivals_;  // arrival cycle -> id
  std::unordered_map<std::uint64_t, Live> live_;
  std::unordered_map<std::uint64_t, ParsedFrame> parsed_;  // until arrival
  std::vector<FrameRecord> done_;

  std::vector<std::deque<std::uint64_t>> txq_;  // per queue
  std::vector<std::uint64_t> qbytes_;
  std::vector<std::deque<std::uint64_t>> rxq_;  // per tenant: decrypt wait queues
  std::array<std::uint64_t, 2> cells_used_{};
  std::array<Output, 2> out_{};
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> held_;             // slots per tenant
  std::vector<std::int64_t> tokens_;            // per tenant, 1/1024 byte units
  std::vector<std::int64_t> tx_deficit_;
  std::vector<bool> tx_fresh_;
  std::array<Drr, kPrioLevels> tx_drr_{};
  std::array<std::uint32_t, kPrioLevels> rr_ptr_{};
  std::vector<std::int64_t> rx_deficit_;
  std::vector<bool> rx_fresh_;
  Drr rx_drr_{};
  std::vector<std::uint64_t> unservable_since_;  // per tenant; kServable when servable

  Counters ctr_;
};

}  // namespace nicsched::refmodel
