// NicModel's model backend: refmodel::RefModel behind NicCore, with the register-file
// model of the real map (nicsched/nic/register_file.hpp) and the RTL backend's MAC model.
// See model_backend.hpp and docs/simulation.md ("Backends").
#include "nicsched/sim/model_backend.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <deque>
#include <unordered_map>
#include <vector>

#include "nic_core.hpp"
#include "nicsched/nic/codec.hpp"
#include "nicsched/nic/register_file.hpp"
#include "nicsched/refmodel/model.hpp"
#include "nicsched/refmodel/parser.hpp"
#include "nicsched/regmap.hpp"

namespace nicsched::sim {

namespace rm = nicsched::regmap;
using refmodel::Config;
using refmodel::Telemetry;
using refmodel::Params;

Params model_params(const NicConfig& cfg) {
  Params p;
  p.num_tenants = static_cast<int>(cfg.tenants);
  p.num_cls_entries = static_cast<int>(std::min<std::uint32_t>(64, 2 * cfg.tenants));
  p.data_bytes = static_cast<int>(kBeatBytes);
  p.crypto_slots = static_cast<int>(cfg.crypto_slots);
  p.buffer_bytes = cfg.buffer_bytes;
  p.cell_bytes = kBeatBytes;  // one cell per beat
  p.reserved_cells = 1;       // the free list's sentinel
  p.ingress_latency = 1;      // a queue's head is valid the clock after tlast
  p.stepping = cfg.model_stepping;
  return p;
}

std::uint64_t cycle_register_offset(const NicConfig& cfg) { return cfg.buffer_bytes / kBeatBytes + 16; }

namespace {

constexpr std::uint32_t kAddrMask = (1U << rm::kAddrWidth) - 1U;  // the AXI4-Lite port's address bits

class ModelCore final : public NicCore {
 public:
  explicit ModelCore(const NicConfig& cfg)
      : cfg_(cfg),
        params_(model_params(cfg)),
        model_(params_),
        cycle_offset_(cycle_register_offset(cfg)),
        regs_(nic::instance_counts(static_cast<std::uint32_t>(params_.num_tenants),
                                   static_cast<std::uint32_t>(params_.num_cls_entries))) {
    set_capabilities();
    active_ = model_.config();
    tx_queue_.resize(static_cast<std::size_t>(params_.num_tenants) * refmodel::kNumClasses);
    tx_queue_bytes_.assign(tx_queue_.size(), 0);
    tx_credit_.init(cfg.link_bytes_per_cycle);
    rx_credit_.init(cfg.link_bytes_per_cycle);
    // As on the RTL backend: m_axis_tx_tready is low in cycle 0 and no input beat is
    // offered before cycle 1.
    tx_ready_ = false;
  }

  std::uint64_t run(std::uint64_t max_cycles) override {
    for (std::uint64_t i = 0; i < max_cycles;) {
      if (quiet(max_cycles - i)) {
        skip_quiet(max_cycles - i);
        return max_cycles;
      }
      if (const std::uint64_t inert = run_inert(max_cycles - i); inert > 0) {
        i += inert;
        continue;
      }
      tick();
      ++i;
      if (break_requested) {  // as run_until_break(): only a frame sink sets it
        break_requested = false;
        return i;
      }
    }
    return max_cycles;
  }

  [[nodiscard]] std::unique_ptr<NicCore> clone() const override {
    auto copy = std::make_unique<ModelCore>(*this);  // every member is a value: the defaulted copy is whole
    copy->source = nullptr;
    copy->sink = nullptr;
    return copy;
  }

  AxilResult axil_read(std::uint32_t addr, std::uint32_t /*timeout*/) override {
    const auto [value, resp] = regs_.read(addr & kAddrMask);
    return {value, static_cast<std::uint8_t>(resp), false};
  }

  AxilResult axil_write(std::uint32_t addr, std::uint32_t value, std::uint32_t /*timeout*/) override {
    const std::uint32_t a = addr & kAddrMask;
    // What the rest of the NIC does at this write's clock edge: the model takes the
    // configuration the shadows hold (COMMIT), its counters are what SNAPSHOT latches.
    const bool commit = a == rm::COMMIT::kOffset && rm::COMMIT::GO.get(value) != 0;
    if (commit) commit_to_model();
    if (a == rm::SNAPSHOT::kOffset && rm::SNAPSHOT::GO.get(value) != 0) {
      Telemetry t = model_.counters();
      t.cycle += cycle_offset_;  // CYCLE counts from the release of reset (cycle_register_offset)
      for (std::uint32_t s = 0; s < sources(); ++s) t.spoofed.push_back(model_.spoofed(s));
      nic::encode_telemetry(t, [this](std::uint32_t w, std::uint32_t v) { regs_.set_live_word(w, v); });
    }
    const nic::RegisterFile::Resp resp = regs_.write(a, value);
    if (commit) regs_.set_live_value(rm::CONFIG_GEN::kOffset, ++config_gen_);
    if (a == rm::COUNTER_CLEAR::kOffset && rm::COUNTER_CLEAR::GO.get(value) != 0) model_.clear_counters();
    return {0, static_cast<std::uint8_t>(resp), false};
  }

 private:
  // One input stream: the frame being offered, beat by beat.
  struct Input {
    std::vector<std::uint8_t> buf;
    std::uint32_t len = 0;
    std::uint32_t off = 0;
    bool active = false;  // a frame is being offered
    bool valid = false;   // a beat is offered this cycle
    std::uint32_t source = 0;  // TX: the frame's source (FrameSource::tx_source)
  };

  // TX sources the register file has (SRC_BIND, SRC_SPOOF), as nicsched_top's default
  // NumSources.
  [[nodiscard]] static std::uint32_t sources() { return regmap::kNumSourcesDefault; }

  // ID and VERSION are constants of the map; the RTL drives CAPS from its parameters.
  void set_capabilities() {
    std::uint32_t caps0 = 0;
    caps0 = rm::CAPS0::TENANTS.set(caps0, static_cast<std::uint32_t>(params_.num_tenants));
    caps0 = rm::CAPS0::CLASSES.set(caps0, refmodel::kNumClasses);
    caps0 = rm::CAPS0::PRIO_LEVELS.set(caps0, refmodel::kPrioLevels);
    caps0 = rm::CAPS0::CRYPTO_SLOTS.set(caps0, static_cast<std::uint32_t>(params_.crypto_slots));
    caps0 = rm::CAPS0::CLS_ENTRIES.set(caps0, static_cast<std::uint32_t>(params_.num_cls_entries));
    regs_.set_live_value(rm::CAPS0::kOffset, caps0);
    std::uint32_t caps1 = 0;
    caps1 = rm::CAPS1::DATA_BYTES.set(caps1, static_cast<std::uint32_t>(params_.data_bytes));
    caps1 = rm::CAPS1::BUFFER_KIB.set(caps1, params_.buffer_bytes / 1024);
    caps1 = rm::CAPS1::SOURCES.set(caps1, sources());
    regs_.set_live_value(rm::CAPS1::kOffset, caps1);
  }

  // COMMIT: the model takes the configuration the shadow registers hold, the TX identity
  // (TX_IDENTITY, SRC_BIND) included, as the RTL does; all of it or, refused, none.
  void commit_to_model() {
    const auto shadow = [this](std::uint32_t a) { return regs_.read(a).first; };
    Config c = nic::decode_config(shadow, static_cast<std::uint32_t>(params_.num_tenants),
                                  static_cast<std::uint32_t>(params_.num_cls_entries));
    const refmodel::SourceTable before = model_.sources();
    try {
      model_.set_sources(nic::decode_tx_identity(shadow, sources()).in_force());
      try {
        model_.commit(c);  // validates; takes effect at the start of the next cycle
      } catch (const refmodel::ModelError&) {
        model_.set_sources(before);
        throw;
      }
      active_ = c;
    } catch (const refmodel::ModelError& e) {
      // The RTL would index past its tables; the model refuses. Nothing is applied.
      throw drivers::BusError(fmt::format("inproc:refmodel: COMMIT of a configuration the model cannot run ({})",
                                          e.what()));
    }
  }

  // The frame buffer for the next fetch: a recycled one if there is.
  std::vector<std::uint8_t> take_buffer() {
    if (pool_.empty()) return {};
    std::vector<std::uint8_t> b = std::move(pool_.back());
    pool_.pop_back();
    return b;
  }

  bool fetch(Direction d, Input& in) {
    const int di = static_cast<int>(d);
    if (!pending[di] || source == nullptr) return false;
    if (in.buf.capacity() == 0) in.buf = take_buffer();
    if (!source->next_frame(d, cycle, in.buf)) {
      pending[di] = false;
      return false;
    }
    in.source = d == Direction::kTx ? source->tx_source() : 0;
    in.len = static_cast<std::uint32_t>(in.buf.size());
    if (in.len == 0 || in.len > kMaxTaggedFrame) {
      throw SimError("frame source gave a frame of " + std::to_string(in.len) + " bytes");
    }
    in.off = 0;
    in.active = true;
    ++stats.frames_in[di];
    return true;
  }

  // The beat offered on input `d` this cycle is accepted (the model never stalls its
  // inputs); at tlast the frame goes to the model with this cycle as its arrival.
  // Returns the beat's bytes and whether it was the last.
  std::pair<std::uint32_t, bool> accept_beat(Direction d, Input& in) {
    const std::uint32_t n = std::min<std::uint32_t>(kBeatBytes, in.len - in.off);
    in.off += kBeatBytes;
    in.valid = false;
    if (in.off < in.len) return {n, false};
    in.active = false;
    const std::uint64_t id = model_.push(d, in.buf, cycle, in.source);
    if (d == Direction::kTx) mirror_arrival(id, in.buf, in.source);
    frames_.emplace(id, std::move(in.buf));
    in.buf = take_buffer();
    return {n, true};
  }

  void tick() {
    // Beats accepted at this cycle's edge; frames whose tlast it is arrive now.
    if (in_[0].valid) accept_beat(Direction::kTx, in_[0]);
    if (in_[1].valid) {
      const auto [n, last] = accept_beat(Direction::kRx, in_[1]);
      const std::uint32_t spent = n + (last ? kWireOverhead : 0);
      rx_credit_.credit -= static_cast<std::int64_t>(spent) * 256;
      stats.wire_bytes_in_rx += spent;
    }

    model_.set_output_ready(Direction::kTx, tx_ready_);
    // The per-cycle step: run() has tried an inert span (run_inert()) already, so step(1)
    // would mostly ask inert_cycles() again only to find 0.
    model_.step_cycle();
    bool tx_last_beat = false;
    for (const refmodel::FrameRecord& r : model_.pop_records()) tx_last_beat = finish(r) || tx_last_beat;
    mirror_dispatches();

    // The MAC's byte credit: a beat of 64 bytes left in every cycle the TX output was
    // ready and had a frame on it (a frame's last beat: its bytes + 24 of overhead,
    // charged in finish()).
    if (tx_ready_ && !tx_last_beat && tx_output_busy()) tx_credit_.credit -= static_cast<std::int64_t>(kBeatBytes) * 256;
    ++cycle;

    // Inputs for the next cycle.
    if (!in_[0].active) fetch(Direction::kTx, in_[0]);
    in_[0].valid = in_[0].active;
    rx_credit_.refill();
    if (rx_credit_.credit > 0 && (in_[1].active || fetch(Direction::kRx, in_[1]))) in_[1].valid = true;
    tx_credit_.refill();
    const bool paused = pauses_.paused(cycle);
    tx_ready_ = !paused && tx_credit_.credit > 0;
    if (paused) ++stats.paused_cycles;
  }

  // Event-driven stepping (NicConfig::model_stepping): up to `max` ticks at once, those
  // in which the model is inert (RefModel::inert_cycles()) and no input frame ends or is
  // fetched, the TX mirror's busy state holds and no output moves its last beat. What
  // tick() does in each is then integer bookkeeping: input beats, the MAC and host link
  // credits, the pause schedule and the TX ready that follows from them (the model is told
  // how many of the span's cycles were ready), done in closed form where it follows a
  // fixed pattern (span_closed_form()) and cycle by cycle (span_cycle()) otherwise.
  // Returns the ticks run, 0 when the next one must be a tick().
  std::uint64_t run_inert(std::uint64_t max) {
    if (params_.stepping != refmodel::Stepping::kEvent) return 0;
    for (int d = 0; d < 2; ++d) {
      if (!in_[d].active && source != nullptr && pending[d]) return 0;  // a fetch
    }
    const std::uint64_t tx_beats = model_.output_beats_left(Direction::kTx);
    if (span_ends(tx_beats, 0)) return 0;  // before asking the model
    // mirror_dispatches() has nothing to look at (no dispatch or arrival since its last look)
    const bool mirror_idle = tx_out_.size() == tx_frames_.size() ||
                             (model_.dispatched(Direction::kTx) == mirror_dispatched_ && !mirror_arrived_);
    if (!mirror_idle) return 0;
    std::uint64_t n = model_.inert_cycles(max);
    if (n == 0) return 0;
    bool tx_busy = false;  // tx_output_busy(), which holds until a dispatched frame's on_output_from
    for (const auto& o : tx_out_) {
      if (o.second <= cycle) {
        tx_busy = true;
      } else {
        n = std::min(n, o.second - cycle);
      }
    }
    const std::uint64_t rx_beats = model_.output_beats_left(Direction::kRx);  // m_axis_rx is always ready
    if (rx_beats > 0) n = std::min(n, rx_beats - 1);
    std::uint64_t k = 0;
    std::uint64_t tx_ready_cycles = 0;
    while (k < n) {
      if (const std::uint64_t m = span_closed_form(n - k, tx_busy, tx_beats, tx_ready_cycles); m > 0) {
        k += m;
        continue;
      }
      if (span_ends(tx_beats, tx_ready_cycles)) break;
      span_cycle(tx_busy, tx_ready_cycles);
      ++k;
    }
    if (k > 0) model_.advance_inert(k, {tx_ready_cycles, k});
    return k;
  }

  // Whether the span must end before this cycle: the TX output would move its last beat
  // (`tx_beats` left at the span's start, `tx_ready_cycles` of them moved since), or an
  // input frame's tlast is offered.
  [[nodiscard]] bool span_ends(std::uint64_t tx_beats, std::uint64_t tx_ready_cycles) const {
    if (tx_ready_ && tx_beats > 0 && tx_ready_cycles + 1 >= tx_beats) return true;  // the TX output's last beat
    if (in_[0].valid && in_[0].off + kBeatBytes >= in_[0].len) return true;       // a TX frame's tlast
    return in_[1].valid && in_[1].off + kBeatBytes >= in_[1].len;                  // an RX frame's tlast
  }

  // One cycle of an inert span (what tick() does in it outside the model).
  void span_cycle(bool tx_busy, std::uint64_t& tx_ready_cycles) {
    if (in_[0].valid) in_[0].off += kBeatBytes;  // offered again next cycle
    if (in_[1].valid) {
      in_[1].off += kBeatBytes;
      in_[1].valid = false;
      rx_credit_.credit -= static_cast<std::int64_t>(kBeatBytes) * 256;
      stats.wire_bytes_in_rx += kBeatBytes;
    }
    if (tx_ready_) {
      ++tx_ready_cycles;
      if (tx_busy) tx_credit_.credit -= static_cast<std::int64_t>(kBeatBytes) * 256;
    }
    ++cycle;
    rx_credit_.refill();
    if (rx_credit_.credit > 0 && in_[1].active) in_[1].valid = true;
    tx_credit_.refill();
    const bool paused = pauses_.paused(cycle);
    tx_ready_ = !paused && tx_credit_.credit > 0;
    if (paused) ++stats.paused_cycles;
  }

  // Up to `max` cycles of an inert span at once, as span_cycle() that many times, where
  // they follow a fixed pattern: no RX frame being offered, the pause state the same in
  // every cycle after this one, and the TX output either not ready in any of them (paused)
  // or ready exactly while the MAC credit is positive with the credit in its steady range,
  // in which the ready cycles are counted in closed form (below). Stops short of a TX
  // frame's tlast and of the TX output's last beat. Returns the cycles run (0: none fit).
  std::uint64_t span_closed_form(std::uint64_t max, bool tx_busy, std::uint64_t tx_beats,
                                 std::uint64_t& tx_ready_cycles) {
    if (in_[1].active || tx_busy != (tx_beats > 0)) return 0;
    const bool paused = pauses_.paused(cycle + 1);  // the next call asks cycle + 1 too: in order
    std::uint64_t k = std::min(max, pauses_.holds_until() - (cycle + 1));
    if (in_[0].valid) {  // stop before its tlast: beats at off, off + 64, ... while < len - 64
      const std::uint64_t left = in_[0].len - in_[0].off;  // > 64 (span_ends)
      k = std::min<std::uint64_t>(k, (left + kBeatBytes - 1) / kBeatBytes - 1);
    }
    constexpr std::int64_t kBeat = static_cast<std::int64_t>(kBeatBytes) * 256;
    const std::int64_t r = tx_credit_.rate;
    const std::int64_t x0 = tx_credit_.credit;
    std::uint64_t ready = 0;
    if (paused) {
      // Cycles c+1 .. c+k paused: only this cycle's ready (if any) could move a beat.
      if (tx_ready_) return 0;
    } else {
      // Not paused from c+1 on; this cycle's ready must follow the credit as the others'.
      if (tx_ready_ != (x0 > 0)) return 0;
      if (tx_busy) {
        // Each ready cycle spends a beat, each cycle refills r: in (r - 64*256, r] the credit
        // never reaches the cap and stays in that range, so after j cycles it is
        // x0 + j r - 64*256 R(j), R(j) the ready cycles, R(j) = ceil((x0 + (j - 1) r) / (64*256)).
        if (r <= 0 || r >= kBeat || x0 <= r - kBeat || x0 > r) return 0;
        // The last beat's cycle is the tx_beats-th ready one (tx_ready_cycles of them done):
        // run while R(k) <= T = tx_beats - 1 - tx_ready_cycles, i.e. k <= (64*256 T - x0) / r + 1.
        const auto t = static_cast<std::int64_t>(tx_beats - 1 - tx_ready_cycles);
        const std::int64_t lim = kBeat * t - x0;
        if (lim < 0) return 0;  // this cycle's ready moves the last beat
        k = std::min<std::uint64_t>(k, static_cast<std::uint64_t>(lim / r) + 1);
      }
    }
    if (k < 2) return 0;
    if (!paused && tx_busy) {
      const std::int64_t num = x0 + static_cast<std::int64_t>(k - 1) * r;
      ready = num <= 0 ? 0 : static_cast<std::uint64_t>((num + kBeat - 1) / kBeat);
      tx_credit_.credit = x0 + static_cast<std::int64_t>(k) * r - kBeat * static_cast<std::int64_t>(ready);
    } else {
      // No beat spent: paused, or no frame on the output (whose ready cycles the model
      // then does not count).
      tx_credit_.refill(k);
    }
    tx_ready_cycles += ready;
    if (in_[0].valid) in_[0].off += static_cast<std::uint32_t>(k * kBeatBytes);
    rx_credit_.refill(k);
    if (paused) stats.paused_cycles += k;
    cycle += k;
    tx_ready_ = !paused && tx_credit_.credit > 0;
    return k;
  }

  // Whether the next `cycles` ticks would only move the clocks: no input frame being
  // offered or to fetch (the source has none until notify_pending(), which only a callback
  // or the caller between runs makes), nothing dispatched for the MAC, and the model quiet
  // (RefModel::quiet_cycles()). No frame leaves then, so no callback can break the run.
  [[nodiscard]] bool quiet(std::uint64_t cycles) const {
    const bool may_fetch = source != nullptr && (pending[0] || pending[1]);
    return !in_[0].active && !in_[1].active && !may_fetch && tx_out_.empty() && model_.quiet_cycles() >= cycles;
  }

  // `cycles` quiet ticks at once: what tick() does in each is refill the link credits,
  // follow the pause schedule and step the model (which skips its own quiet span).
  void skip_quiet(std::uint64_t cycles) {
    model_.set_output_ready(Direction::kTx, tx_ready_);
    model_.step(cycles);
    rx_credit_.refill(cycles);
    tx_credit_.refill(cycles);
    stats.paused_cycles += pauses_.paused_cycles(cycle + 1, cycle + cycles);
    cycle += cycles;
    tx_ready_ = !pauses_.paused(cycle) && tx_credit_.credit > 0;
  }

  // The MAC needs to know in which cycles a beat left on m_axis_tx; the model says when
  // a frame's last beat left (its record), not when its first did. So the TX queues are
  // mirrored here: each arriving TX frame is classified as the model will classify it
  // (refmodel::parse_frame / classify with the configuration in force), the model's
  // queue_bytes() shows when a queue's head was dispatched, and a dispatched frame is on
  // the output from then (plain) or from the end of its crypto hold (crypto) until its
  // last beat. Exact except when a crypto frame whose hold is over waits behind an older
  // frame of its queue still in a slot (the output may idle then; counted as busy).
  struct TxFrame {
    std::uint32_t q = 0;
    std::uint32_t len = 0;
    bool crypto = false;
    bool dispatched = false;
    std::uint64_t on_output_from = 0;  // first cycle it may be on the output
  };

  void mirror_arrival(std::uint64_t id, const std::vector<std::uint8_t>& bytes, std::uint32_t tx_source) {
    const refmodel::ParsedFrame pf = refmodel::parse_frame(bytes, false, refmodel::kMinHostFrameBytes);
    const bool to_default = pf.drop == refmodel::ParseDrop::kUnknownEtype && active_.bad_to_default;
    if (pf.drop != refmodel::ParseDrop::kNone && !to_default) return;  // the parser drops it
    const refmodel::TxIdentity ident = refmodel::classify_tx(pf, active_, model_.sources(), tx_source);
    if (ident.dropped) return;  // dropped as a spoof
    const refmodel::ClassifierAction& a = ident.action;
    TxFrame f;
    f.q = a.tenant * refmodel::kNumClasses + a.cls;
    f.len = std::max(static_cast<std::uint32_t>(bytes.size()), refmodel::kMinFrameBytes);  // padded
    f.crypto = a.crypto_op != refmodel::CryptoOp::kNone;
    tx_frames_.emplace(id, f);
    tx_queue_.at(f.q).push_back(id);
    tx_queue_bytes_[f.q] += f.len;
    mirror_arrived_ = true;
  }

  // A mirrored TX frame left the model (delivered or dropped at admission).
  void mirror_leave(const refmodel::FrameRecord& r) {
    const std::uint64_t id = r.id;
    const auto it = tx_frames_.find(id);
    if (it == tx_frames_.end()) return;  // parse-dropped: never mirrored
    const TxFrame f = it->second;
    tx_frames_.erase(it);
    if (f.q != r.action.tenant * refmodel::kNumClasses + r.action.cls && !mirror_warned_) {
      mirror_warned_ = true;  // the MAC timing is then approximate; frames and counters are still the model's
      spdlog::warn("model backend: TX frame {} was mirrored in queue {}, the model queued it in {}; MAC beat timing "
                   "may be off by a few cycles per frame",
                   id, f.q, r.action.tenant * refmodel::kNumClasses + r.action.cls);
    }
    if (!f.dispatched) {
      auto& dq = tx_queue_[f.q];
      dq.erase(std::find(dq.begin(), dq.end(), id));
      tx_queue_bytes_[f.q] -= f.len;
    } else {
      tx_out_.erase(std::find_if(tx_out_.begin(), tx_out_.end(), [id](const auto& o) { return o.first == id; }));
    }
  }

  // Heads the model dispatched this cycle (at most one per cycle and direction).
  void mirror_dispatches() {
    if (tx_out_.size() == tx_frames_.size()) return;  // every mirrored frame is dispatched already
    // A queue's model bytes fall below the mirror's only when the model dispatches or a
    // frame is mirrored (a leave only lowers the mirror's): otherwise nothing to look at.
    const std::uint64_t dispatched = model_.dispatched(Direction::kTx);
    if (dispatched == mirror_dispatched_ && !mirror_arrived_) return;
    mirror_dispatched_ = dispatched;
    mirror_arrived_ = false;
    for (std::uint32_t q = 0; q < tx_queue_.size(); ++q) {
      auto& dq = tx_queue_[q];
      while (!dq.empty() && model_.queue_bytes(Direction::kTx, q) < tx_queue_bytes_[q]) {
        TxFrame& f = tx_frames_.at(dq.front());
        f.dispatched = true;
        f.on_output_from = f.crypto ? cycle + refmodel::crypto_hold_cycles(f.len, active_.crypto_bytes_per_cycle,
                                                                            active_.crypto_latency)
                                    : cycle;
        tx_out_.emplace_back(dq.front(), f.on_output_from);
        tx_queue_bytes_[q] -= f.len;
        dq.pop_front();
      }
    }
  }

  [[nodiscard]] bool tx_output_busy() const {
    return std::any_of(tx_out_.begin(), tx_out_.end(), [this](const auto& o) { return o.second <= cycle; });
  }

  // A frame the model delivered or dropped. Returns true for a TX delivery (its last
  // beat left this cycle).
  bool finish(const refmodel::FrameRecord& r) {
    const auto it = frames_.find(r.id);
    if (it == frames_.end()) throw SimError(fmt::format("model backend: record of unknown frame {}", r.id));
    std::vector<std::uint8_t> bytes = std::move(it->second);
    frames_.erase(it);
    const Direction d = r.dir;
    const int di = static_cast<int>(d);
    if (d == Direction::kTx) mirror_leave(r);
    bool tx_last = false;
    if (r.fate == refmodel::Fate::kDelivered) {
      ++stats.frames_out[di];
      if (d == Direction::kTx) {
        const std::uint32_t last_beat = r.len - (r.len - 1) / kBeatBytes * kBeatBytes;
        tx_credit_.credit -= static_cast<std::int64_t>(last_beat + kWireOverhead) * 256;
        stats.wire_bytes_out_tx += r.len + kWireOverhead;  // whole frame at its last beat
        tx_last = true;
      }
      OutFrame f;
      f.dir = d;
      f.data = bytes.data();
      f.len = r.len;
      f.tenant = r.action.tenant;
      f.cls = r.action.cls;
      f.crypto_op = static_cast<std::uint32_t>(r.egress_op);
      f.cycle = r.last_beat;
      if (sink != nullptr) sink->frame_out(f);
    } else if (r.fate == refmodel::Fate::kBufferDrop) {
      regs_.hw_set_value(rm::STATUS::kOffset,
                         d == Direction::kTx ? rm::STATUS::TX_BUF_FULL.mask() : rm::STATUS::RX_BUF_FULL.mask());
    }
    bytes.clear();
    pool_.push_back(std::move(bytes));
    return tx_last;
  }

  NicConfig cfg_;
  Params params_;
  refmodel::RefModel model_;
  std::uint64_t cycle_offset_;

  nic::RegisterFile regs_;  // the CSR block
  std::uint32_t config_gen_ = 0;

  // Streams.
  Input in_[2];
  std::unordered_map<std::uint64_t, std::vector<std::uint8_t>> frames_;  // model id -> bytes, until decided
  std::vector<std::vector<std::uint8_t>> pool_;
  refmodel::Config active_;                                  // what the model runs (last COMMIT)
  std::unordered_map<std::uint64_t, TxFrame> tx_frames_;     // mirrored TX frames, by model id
  std::vector<std::deque<std::uint64_t>> tx_queue_;          // per queue: not yet dispatched
  std::vector<std::uint64_t> tx_queue_bytes_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> tx_out_;  // dispatched, not delivered: id, on_output_from
  bool mirror_warned_ = false;
  std::uint64_t mirror_dispatched_ = 0;  // model_.dispatched(kTx) at the last look
  bool mirror_arrived_ = false;          // a frame was mirrored since
  LinkCredit tx_credit_;
  LinkCredit rx_credit_;
  bool tx_ready_ = false;
  PauseSchedule pauses_{cfg_.pauses};
};

}  // namespace

std::unique_ptr<NicCore> make_model_core(const NicConfig& cfg) {
  try {
    return std::make_unique<ModelCore>(cfg);
  } catch (const refmodel::ModelError& e) {
    throw SimError(fmt::format("model backend: {}", e.what()));
  }
}

}  // namespace nicsched::sim
