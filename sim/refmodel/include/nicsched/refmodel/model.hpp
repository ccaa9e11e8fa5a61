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
// Structure (from the specification): two directions, each with one queue per (tenant,
// class) in its own shared buffer (byte limits T_QLIMIT_*, tail drop), an arbiter making
// one decision per clock, the crypto op it performs (TX encrypt, RX decrypt: one
// classifier table serves both directions, so a frame classified ENCRYPT or DECRYPT gets
// its direction's op, as docs/rtl.md decides), and an output stream. TX
// arbitrates as CTRL.ARB_MODE says with tenant enables and token buckets; RX weights
// tenants by DWRR (T_WEIGHT). Both share one pool of crypto slots with per-tenant quotas.
// The arbiter, the token buckets and the slot pool are the blocks' reference models
// (Arbiter, TokenBucket, CryptoSlots), the same classes the RTL unit tests check
// nicsched_arbiter, nicsched_shaper and nicsched_crypto_slots against.
//
// Timing (model cycle c, see docs/verification.md): the arbiter's grant is registered
// (issue 16): a decision made in c is executed in c+1.
//   1. a committed configuration takes effect; 2. frames whose tlast arrives at c are
//   parsed, classified, admitted or dropped; 3. the grant decided in c-1 that needs
//   crypto claims its slot (CryptoSlots::claim, as can_claim allowed in c-1); 4. per
//   direction, the arbiter makes one decision: the tenant of the grant executing in c is
//   not eligible; a crypto head needs a slot its tenant may claim (CryptoSlots::can_claim,
//   see below; none in a cycle with a claim), a plain head a credit of the 3-entry
//   descriptor FIFO before the output (entries + a plain grant executing in c < 3), a TX
//   tenant its TokenBucket to conform as it stood before the cycle (with
//   CTRL.CONTROL_LEVEL, a TX control head whose tenant's control bucket conforms goes
//   above every level: Arbiter); in SP and SP_DWRR, while the tenant in flight executes,
//   tenants of lower levels wait if, in the cycle it was decided, it was servable and
//   held another frame (its hold and the levels judged then: Grant::below); 5. the grant decided in c-1 executes: its frame leaves
//   its queue, its TX tenant's buckets are charged; each free output takes its
//   direction's crypto-done frame that may leave (CryptoSlots::offered: no older frame of
//   its queue in a slot; the first whose hold ended), else the FIFO's first frame, else
//   the executing plain frame; a plain frame not taken waits in the FIFO; 6. the clock
//   edge of the buckets (fill, then the frame sent; a control bucket pays for frames
//   granted at the control level only) and of the slot pool (a frame taken in 5 frees its
//   slot from c+1; a claim at c holds its slot in c+1 .. c+H and is done from c+H+1,
//   H = crypto_hold_cycles()); 7. each output moves one beat if its tready is high.
// Crypto claims: TX and RX take turns being the direction that may use the last free
// slot or the last unit of a tenant's quota; the other direction claims only if two
// slots are free and its tenant is two below its quota. Both directions decide on the
// pool as it stood before the edge, so neither's decision depends on the other's in the
// same cycle. The turn passes to the other direction at the edge of a cycle in which that
// direction was kept from a slot by the turn alone (a visible crypto head of a servable
// tenant, a slot free and the tenant below its quota, but not two), and stays otherwise
// (TX has it at first): under contention the last slot and the last unit of a tenant's
// quota alternate between the directions.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <span>
#include <unordered_map>
#include <vector>

#include "nicsched/refmodel/arbiter.hpp"
#include "nicsched/refmodel/crypto_slots.hpp"
#include "nicsched/refmodel/parser.hpp"
#include "nicsched/refmodel/token_bucket.hpp"
#include "nicsched/refmodel/types.hpp"

namespace nicsched::refmodel {

namespace detail {

// RefModel's state: plain values throughout but for the queues' pointers into live_, which
// RefModel's copy rebinds. Kept apart from RefModel so that its copy is this struct's
// defaulted one plus that rebinding: a member added here is copied without a field list.
struct RefModelState {
  explicit RefModelState(const Params& params)
      : params_(params), crypto_(params_.crypto_slots, params_.num_tenants) {}

  // One bit per queue (tenant * kNumClasses + class).
  using QueueMask = std::array<std::uint64_t, kMaxTenants * kNumClasses / 64>;

  struct Live {
    FrameRecord rec;
    std::uint32_t cells = 0;
    std::uint64_t visible = 0;  // first cycle it may be scheduled
    std::uint64_t seq = 0;      // admission order (FIFO mode)
  };
  // One direction: per-(tenant, class) queues in a shared buffer, an arbiter, the
  // crypto op it performs, and an output stream.
  struct Path {
    Direction dir = Direction::kTx;
    CryptoOp op = CryptoOp::kEncrypt;
    std::vector<std::deque<Live*>> q;  // live_'s nodes, which stay put until finish()
    std::vector<std::uint64_t> qbytes;
    std::uint64_t queued = 0;     // frames in q, all queues
    std::uint64_t dispatched = 0;  // frames the arbiter released
    QueueMask nonempty{};  // bit q: q holds a frame
    // The heads the arbiter sees, kept between steps (not rebuilt from every queued head):
    // `heads` holds backlog, len and ts of the queues in `visible` and zeros elsewhere. A
    // queue whose head changed (a frame admitted to it empty, a pop that left a frame) is
    // in `pending` until a step finds its head visible (record_heads()).
    QueueMask pending{};
    QueueMask visible{};
    QueueMask crypto_heads{};  // of `visible`: the head needs a crypto slot
    // Queues whose tenant the enables let this path serve (tenant_servable() but for the TX
    // bucket), under cfg_: rebuilt at each COMMIT (update_servable()).
    QueueMask servable{};
    std::uint64_t cells_used = 0;
    bool ready = true;            // tready of the output
    bool active = false;          // a frame is on the output
    // The grant decided last cycle, executing in this one (the registered grant).
    struct Grant {
      bool valid = false;
      std::uint32_t queue = 0;
      bool ctrl = false;           // granted at the control level
      std::uint64_t id = 0;        // its frame, the queue's head until it executes
      std::uint32_t quota = 0;     // its tenant's crypto quota when decided
      // Bit t: tenant t waits while this grant executes (strict priority), as judged when
      // it was decided (below_in_flight()).
      std::uint64_t below = 0;
    } grant;
    std::deque<std::uint64_t> fifo;  // plain frames granted, waiting for the output (<= 3)
    std::uint64_t frame = 0;
    std::uint64_t beats_left = 0;
    Arbiter arb{0, 32};  // 32-bit timestamps: the admission order
    ArbConfig arb_cfg;   // the arbiter's configuration inputs, rebuilt when cfg_ changes
    std::uint64_t arb_cfg_serial = ~0ULL;  // cfg_serial_ that arb_cfg was built from
    ArbHeads heads;      // this cycle's heads (kept to reuse their storage)
    // The arbiter's last step saw no eligible head under the configuration in force, and
    // these backlogged ones: a step without an eligible head grants nothing and only
    // drops the positive credit of the tenants with nothing backlogged, so stepping it
    // again with the same backlog changes nothing, and decide() skips it.
    bool arb_at_rest = false;
    QueueMask rest_backlog{};
    bool rest_backlog_none = false;  // rest_backlog is empty
  };

  Params params_;
  Config cfg_;
  // The crypto quotas the slot pool works with: cfg_'s, one cycle after a COMMIT changes
  // them (set at the end of each cycle; the RTL registers its quota input).
  std::array<std::uint32_t, kMaxTenants> crypto_quota_{};
  std::uint64_t cfg_serial_ = 0;  // counts the configurations cfg_ has held
  bool commit_pending_ = false;
  Config pending_cfg_;
  std::uint64_t cycle_ = 0;
  std::uint64_t next_id_ = 0;
  std::uint64_t next_seq_ = 0;

  std::multimap<std::uint64_t, std::uint64_t> arrivals_;  // arrival cycle -> id
  std::unordered_map<std::uint64_t, Live> live_;
  std::unordered_map<std::uint64_t, ParsedFrame> parsed_;  // until arrival
  std::vector<FrameRecord> done_;

  std::array<Path, 2> paths_{};
  CryptoSlots crypto_;                           // the slot pool both directions share
  std::vector<TokenBucket> buckets_;             // TX rate limit, per tenant
  std::vector<std::uint32_t> sent_;              // per tenant: bytes sent this cycle (TX)
  std::vector<TokenBucket> ctrl_buckets_;        // TX control level, per tenant
  std::vector<std::uint32_t> ctrl_sent_;         // per tenant: bytes sent at the control level this cycle
  std::vector<std::uint64_t> unservable_since_;  // per tenant; kServable when servable
  // Bit t: both of tenant t's buckets hold their cap under cfg_ as of serial
  // buckets_at_cap_serial_, so a clock edge without a frame sent leaves them as they are
  // (clock_buckets() and clock_buckets_idle() visit only the others and the sender).
  std::uint64_t buckets_at_cap_ = 0;
  std::uint64_t buckets_at_cap_serial_ = ~0ULL;
  std::uint64_t sent_tenants_ = 0;  // bit t: sent_[t] or ctrl_sent_[t] is set this cycle
  // Bit t: tenant t's rate-limit bucket is enabled and negative (it does not conform), as of
  // serial buckets_at_cap_serial_; kept where the buckets are clocked (a bucket at its cap
  // conforms).
  std::uint64_t buckets_owing_ = 0;

  Telemetry ctr_;
  SourceTable sources_;  // TX source bindings (set_sources)
  std::array<std::uint64_t, kMaxSources> spoofed_{};  // per TX source: frames whose headers named another tenant
};

}  // namespace detail

class RefModel : private detail::RefModelState {
 public:
  explicit RefModel(const Params& params);
  // A copy continues exactly as the original would (the simulator's fork); the two
  // share nothing.
  RefModel(const RefModel& other);
  RefModel& operator=(const RefModel& other);
  RefModel(RefModel&&) noexcept = default;  // live_'s nodes move with it: the pointers stay valid
  RefModel& operator=(RefModel&&) noexcept = default;
  ~RefModel() = default;

  [[nodiscard]] const Params& params() const { return params_; }
  [[nodiscard]] const Config& config() const { return cfg_; }
  // The cycle the next step() simulates.
  [[nodiscard]] std::uint64_t cycle() const { return cycle_; }

  // Shadow writes + COMMIT: `cfg` takes effect at the start of the next simulated cycle.
  // Throws ModelError (and changes nothing) if cfg does not fit the parameters.
  void commit(const Config& cfg);
  // The TX source table (docs/trust.md; not in the register map yet): applies to every
  // frame classified from now on (those whose tlast arrives at cycle() or later). Throws ModelError (and changes nothing) for a
  // table longer than kMaxSources or a binding to a tenant the instance lacks.
  void set_sources(const SourceTable& sources);
  [[nodiscard]] const SourceTable& sources() const { return sources_; }
  // COUNTER_CLEAR: zero every live counter (depths are state, not counters: kept).
  void clear_counters();

  // A frame whose tlast is accepted at `arrival_cycle` (>= cycle()). Returns its id;
  // ids count from 0 in push order. `source`: the TX source (s_axis_tx_tuser) it came from,
  // checked against the source table (set_sources, classify_tx); ignored on RX.
  std::uint64_t push(Direction dir, std::span<const std::uint8_t> bytes,
                     std::uint64_t arrival_cycle, std::uint32_t source = 0);
  // tready of m_axis_tx (MAC) or m_axis_rx (host) for the cycles that follow.
  void set_output_ready(Direction dir, bool ready);

  // Cycle-exact however `cycles` is split: spans in which the model is quiet (see
  // quiet_cycles()) are skipped in one go, with the counters and token buckets they move.
  void step(std::uint64_t cycles = 1);
  // Cycles from cycle() on in which nothing can happen but the clock (CYCLE counts, token
  // buckets refill): no frame has arrived that is still undecided (queued, in a crypto slot
  // or on an output), no COMMIT waits, and no frame arrives before cycle() + the result
  // (the maximum when none is pushed). 0 when the model is busy.
  [[nodiscard]] std::uint64_t quiet_cycles() const;
  // Event-driven stepping (Params::stepping == Stepping::kEvent; step() uses it, and a
  // caller whose output ready changes from cycle to cycle, the model backend's MAC, may
  // call it directly). The cycles from cycle() on, at most `max`, in each of which the
  // per-cycle step would make no decision, claim, take, admission or commit, no head
  // would become visible or eligible, no token bucket would cross into conformance, no
  // crypto hold would end and no crypto turn would pass: all it would do is count, move
  // beats, refill buckets and count down holds, which advance_inert() does in closed
  // form. An output's last beat is the caller's bound (output_beats_left()).
  [[nodiscard]] std::uint64_t inert_cycles(std::uint64_t max) const;
  // Beats the frame on output d has still to move (0 when none is on it).
  [[nodiscard]] std::uint64_t output_beats_left(Direction d) const {
    return path(d).active ? path(d).beats_left : 0;
  }
  // `cycles` (<= inert_cycles(), which the caller asked) cycles at once, in ready_cycles[d]
  // of which output d was ready (fewer than output_beats_left(d); ModelError otherwise).
  void advance_inert(std::uint64_t cycles, const std::array<std::uint64_t, 2>& ready_cycles);
  // One cycle by the per-cycle step (the definition, the cycle order above), whatever
  // Params::stepping says: for a caller that has just found inert_cycles() to be 0, for
  // which step(1) would only ask it again.
  void step_cycle();
  // Steps until idle() or `max_cycles` more cycles; returns true if idle.
  bool run_until_idle(std::uint64_t max_cycles);
  // Nothing pending, queued, in a slot or on an output.
  [[nodiscard]] bool idle() const;

  // Frames delivered or dropped since the last call, in the order they were decided.
  std::vector<FrameRecord> pop_records();

  [[nodiscard]] Telemetry counters() const;
  // TX frames from `source` whose headers named another tenant while it was bound (counted
  // whether dropped or kept; zeroed by clear_counters).
  [[nodiscard]] std::uint64_t spoofed(std::uint32_t source) const { return spoofed_.at(source); }
  [[nodiscard]] int busy_slots() const { return crypto_.held_total(); }
  [[nodiscard]] int free_slots() const { return crypto_.free_slots(); }
  // Slots a tenant holds (in hold, or done and waiting for the output).
  [[nodiscard]] std::uint32_t slots_held(std::uint32_t tenant) const { return crypto_.held(tenant); }
  // Bytes queued now in queue q of a direction, and buffer cells in use per direction.
  [[nodiscard]] std::uint64_t queue_bytes(Direction d, std::uint32_t q) const {
    return path(d).qbytes.at(q);
  }
  [[nodiscard]] std::uint64_t buffer_cells_used(Direction d) const { return path(d).cells_used; }
  // Frames the direction's arbiter has released (to a slot or the output) since reset.
  [[nodiscard]] std::uint64_t dispatched(Direction d) const { return path(d).dispatched; }
  // Cycles for which tenant t's TX queues have been unservable (tenant or egress
  // disabled) as of now; 0 when servable.
  [[nodiscard]] std::uint64_t unservable_for(std::uint32_t tenant) const;
  // Tokens (1/1024 byte) in tenant t's TX rate-limit bucket now.
  [[nodiscard]] std::int64_t bucket_tokens(std::uint32_t tenant) const { return buckets_.at(tenant).tokens(); }
  // Tokens (1/1024 byte) in tenant t's control bucket now.
  [[nodiscard]] std::int64_t ctrl_bucket_tokens(std::uint32_t tenant) const { return ctrl_buckets_.at(tenant).tokens(); }

 private:
  void skip_quiet(std::uint64_t cycles);
  void apply_commit();
  void sync_crypto_quota();
  void update_servable();
  void clock_crypto();
  void admit_arrivals();
  void admit(Live& f);
  void clock_buckets();
  // `cycles` bucket edges in which no frame is sent (rate limit and control buckets).
  void clock_buckets_idle(std::uint64_t cycles);
  // The tenants whose buckets a clock edge may change (see buckets_at_cap_); all of them
  // after a configuration change.
  [[nodiscard]] std::uint64_t buckets_to_clock() const;
  // Whether tenant t's buckets are both at their cap now.
  [[nodiscard]] bool buckets_at_cap(std::uint32_t t) const;
  // Updates buckets_at_cap_ and buckets_owing_ for tenant t after its buckets were clocked.
  void note_buckets(std::uint32_t t);
  // With no grant in flight and buckets_owing_ current: whether any of the heads `visible`
  // (of which `crypto` need a slot) is eligible now (queue_eligible()), the plain ones
  // from the masks kept between steps, the crypto ones one by one.
  [[nodiscard]] bool any_eligible_no_grant(const Path& p, const QueueMask& visible, const QueueMask& crypto,
                                           bool plain_ok) const;
  // The crypto wait counters of `cycles` decisions with p's heads and the pool as they are.
  void count_crypto_waits(Path& p, std::uint64_t cycles);
  // The inert cycles of one path (inert_cycles()), at most `max`.
  [[nodiscard]] std::uint64_t path_inert_cycles(const Path& p, std::uint64_t max) const;
  // The visible heads of p now: those recorded, and the pending ones visible by now.
  struct HeadMasks {
    QueueMask visible{};
    QueueMask crypto{};  // of visible: the head needs crypto
  };
  [[nodiscard]] HeadMasks visible_heads(const Path& p) const {
    HeadMasks hm{p.visible, p.crypto_heads};
    std::uint64_t pending = 0;
    for (const std::uint64_t w : p.pending) pending |= w;
    if (pending != 0) add_pending_visible(p, hm);
    return hm;
  }
  // Adds to hm the pending heads of p that are visible by now.
  void add_pending_visible(const Path& p, HeadMasks& hm) const;
  // Records the pending heads that are visible by now in p.heads and p.visible.
  void record_heads(Path& p);
  void decide(Path& p);
  // The arbiter's step for decide(): the heads it sees, eligibility, the decision.
  [[nodiscard]] ArbDecision decide_step(Path& p, const ArbConfig& ac, bool new_cfg, bool plain_ok);
  void claim_granted(Path& p);
  void execute(Path& p, const Path::Grant& g);
  void move_beats(Path& p);
  void count_busy(std::uint64_t cycles = 1);
  void finish(std::uint64_t id, Fate fate);
  void start_output(Path& p, std::uint64_t id);

  [[nodiscard]] Path& path(Direction d) { return paths_[static_cast<int>(d)]; }
  [[nodiscard]] const Path& path(Direction d) const { return paths_[static_cast<int>(d)]; }
  [[nodiscard]] ArbMode mode(const Path& p) const;
  [[nodiscard]] bool tenant_servable(const Path& p, std::uint32_t t) const;
  [[nodiscard]] bool slot_available(const Path& p, std::uint32_t t) const;
  void want_slots(const Path& p);
  // f(t) for every tenant t of p with a visible head that needs crypto (either class).
  template <class F>
  void for_each_crypto_tenant(const Path& p, F&& f) const;
  void take_output(Path& p, const Path::Grant& g);
  [[nodiscard]] bool needs_crypto(const Path& p, const Live& f) const;
  [[nodiscard]] bool queue_eligible(const Path& p, std::uint32_t q, bool plain_ok) const;
  [[nodiscard]] bool below_in_flight(const Path& p, std::uint32_t t) const;
  // The tenants that wait while a grant of tenant u decided now executes (Grant::below).
  [[nodiscard]] std::uint64_t below_mask(const Path& p, std::uint32_t u) const;
  void claim_slot(std::uint64_t id, std::uint32_t quota);
  [[nodiscard]] std::uint32_t limit(std::uint32_t q) const;
  [[nodiscard]] std::uint64_t buffer_capacity_cells() const;
  void update_depth(std::uint32_t q);
  // After a copy: the queues point into the original's live_; point them into this one's.
  void rebind_queues();
};

}  // namespace nicsched::refmodel
