// NicModel's model backend: refmodel::RefModel behind NicCore, with a register file of
// the real map (through the generated nicsched/regmap.hpp) and the RTL backend's MAC
// model. See model_backend.hpp and docs/simulation.md ("Backends").
#include "nicsched/sim/model_backend.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <deque>
#include <unordered_map>
#include <vector>

#include "nic_core.hpp"
#include "nicsched/refmodel/model.hpp"
#include "nicsched/refmodel/parser.hpp"
#include "nicsched/regmap.hpp"

namespace nicsched::sim {

namespace rm = nicsched::regmap;
using refmodel::Config;
using refmodel::Counters;
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
  return p;
}

std::uint64_t cycle_register_offset(const NicConfig& cfg) { return cfg.buffer_bytes / kBeatBytes + 16; }

Config decode_config(const std::function<std::uint32_t(std::uint32_t)>& shadow, const Params& p) {
  Config c = Config::reset_values(p);
  const std::uint32_t ctrl = shadow(rm::CTRL::kOffset);
  c.enable = rm::CTRL::ENABLE.get(ctrl) != 0;
  c.mode = static_cast<refmodel::ArbMode>(rm::CTRL::ARB_MODE.get(ctrl));
  c.bad_to_default = rm::CTRL::BAD_TO_DEFAULT.get(ctrl) != 0;
  const std::uint32_t eng = shadow(rm::CRYPTO_ENGINE::kOffset);
  c.engine_bytes_per_cycle = rm::CRYPTO_ENGINE::BYTES_PER_CYCLE.get(eng);
  c.engine_latency = rm::CRYPTO_ENGINE::LATENCY.get(eng);
  const std::uint32_t def = shadow(rm::DEFAULT_ACTION::kOffset);
  c.default_action.tenant = rm::DEFAULT_ACTION::TENANT.get(def);
  c.default_action.cls = rm::DEFAULT_ACTION::CLASS.get(def);
  c.default_action.op = static_cast<refmodel::CryptoOp>(rm::DEFAULT_ACTION::CRYPTO_OP.get(def));
  for (std::uint32_t t = 0; t < static_cast<std::uint32_t>(p.num_tenants); ++t) {
    refmodel::TenantConfig& tc = c.tenants[t];
    const std::uint32_t tctrl = shadow(rm::T_CTRL::offset(t));
    tc.enable = rm::T_CTRL::ENABLE.get(tctrl) != 0;
    tc.priority = rm::T_CTRL::PRIORITY.get(tctrl);
    tc.crypto_quota = rm::T_CTRL::CRYPTO_QUOTA.get(tctrl);
    tc.rate_en = rm::T_CTRL::RATE_EN.get(tctrl) != 0;
    tc.quantum = rm::T_WEIGHT::QUANTUM.get(shadow(rm::T_WEIGHT::offset(t)));
    tc.rate_bytes_per_kcycle = rm::T_RATE::BYTES_PER_KCYCLE.get(shadow(rm::T_RATE::offset(t)));
    tc.burst_bytes = rm::T_BURST::BYTES.get(shadow(rm::T_BURST::offset(t)));
    tc.qlimit_ctrl = rm::T_QLIMIT_CTRL::BYTES.get(shadow(rm::T_QLIMIT_CTRL::offset(t)));
    tc.qlimit_bulk = rm::T_QLIMIT_BULK::BYTES.get(shadow(rm::T_QLIMIT_BULK::offset(t)));
  }
  for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(p.num_cls_entries); ++i) {
    refmodel::ClsEntry& e = c.classifier[i];
    const std::uint32_t vlan = shadow(rm::CLS_VLAN::offset(i));
    e.vlan = rm::CLS_VLAN::VALUE.get(vlan);
    e.vlan_mask = rm::CLS_VLAN::MASK.get(vlan);
    const std::uint32_t dp = shadow(rm::CLS_DSCP_PROTO::offset(i));
    e.dscp = rm::CLS_DSCP_PROTO::DSCP.get(dp);
    e.dscp_mask = rm::CLS_DSCP_PROTO::DSCP_MASK.get(dp);
    e.proto = rm::CLS_DSCP_PROTO::PROTO.get(dp);
    e.proto_mask = rm::CLS_DSCP_PROTO::PROTO_MASK.get(dp);
    const std::uint32_t port = shadow(rm::CLS_PORT::offset(i));
    e.port = rm::CLS_PORT::VALUE.get(port);
    e.port_mask = rm::CLS_PORT::MASK.get(port);
    const std::uint32_t act = shadow(rm::CLS_ACTION::offset(i));
    e.valid = rm::CLS_ACTION::VALID.get(act) != 0;
    e.action.tenant = rm::CLS_ACTION::TENANT.get(act);
    e.action.cls = rm::CLS_ACTION::CLASS.get(act);
    e.action.op = static_cast<refmodel::CryptoOp>(rm::CLS_ACTION::CRYPTO_OP.get(act));
  }
  return c;
}

void encode_counters(const Counters& c, const Params& p, std::uint64_t cycle_offset,
                     const std::function<void(std::uint32_t, std::uint32_t)>& put) {
  auto put64 = [&](std::uint32_t addr, std::uint64_t v) {
    put(addr, static_cast<std::uint32_t>(v));
    put(addr + 4, static_cast<std::uint32_t>(v >> 32));
  };
  auto put32 = [&](std::uint32_t addr, const rm::Field& f, std::uint64_t v) {
    put(addr, f.set(0, static_cast<std::uint32_t>(std::min<std::uint64_t>(v, f.max()))));
  };
  put64(rm::CYCLE::kOffset, c.cycle + cycle_offset);
  put32(rm::CRYPTO_BUSY::kOffset, rm::CRYPTO_BUSY::SLOTS, c.crypto_busy);
  for (std::uint32_t d = 0; d < 2; ++d) {
    const refmodel::ParserCounters& pc = c.parser.at(d);
    put64(rm::PRS_FRAMES::offset(d), pc.frames);
    put64(rm::PRS_RUNT::offset(d), pc.runt);
    put64(rm::PRS_TRUNCATED::offset(d), pc.truncated);
    put64(rm::PRS_BAD_IHL::offset(d), pc.bad_ihl);
    put64(rm::PRS_UNKNOWN_ETYPE::offset(d), pc.unknown_etype);
    put64(rm::PRS_BUF_DROP::offset(d), pc.buf_drop);
  }
  const auto nt = static_cast<std::uint32_t>(p.num_tenants);
  for (std::uint32_t t = 0; t < nt && t < c.crypto.size(); ++t) {
    const refmodel::CryptoCounters& cc = c.crypto[t];
    put64(rm::CR_TX_BUSY::offset(t), cc.tx_busy);
    put64(rm::CR_TX_WAIT::offset(t), cc.tx_wait);
    put64(rm::CR_TX_BYTES::offset(t), cc.tx_bytes);
    put64(rm::CR_TX_PKTS::offset(t), cc.tx_pkts);
    put64(rm::CR_RX_BUSY::offset(t), cc.rx_busy);
    put64(rm::CR_RX_WAIT::offset(t), cc.rx_wait);
    put64(rm::CR_RX_BYTES::offset(t), cc.rx_bytes);
    put64(rm::CR_RX_PKTS::offset(t), cc.rx_pkts);
    put32(rm::CR_SLOTS_HELD::offset(t), rm::CR_SLOTS_HELD::COUNT, cc.slots_held);
  }
  for (std::uint32_t q = 0; q < nt * refmodel::kNumClasses && q < c.queues.size(); ++q) {
    const refmodel::QueueCounters& qc = c.queues[q];
    put64(rm::Q_ENQ_PKTS::offset(q), qc.enq_pkts);
    put64(rm::Q_ENQ_BYTES::offset(q), qc.enq_bytes);
    put64(rm::Q_TX_PKTS::offset(q), qc.tx_pkts);
    put64(rm::Q_TX_BYTES::offset(q), qc.tx_bytes);
    put64(rm::Q_DROP_PKTS::offset(q), qc.drop_pkts);
    put64(rm::Q_DROP_BYTES::offset(q), qc.drop_bytes);
    put64(rm::Q_LAT_SUM::offset(q), qc.lat_sum);
    put64(rm::Q_LAT_COUNT::offset(q), qc.lat_count);
    put32(rm::Q_LAT_MAX::offset(q), rm::Q_LAT_MAX::CYCLES, qc.lat_max);
    put32(rm::Q_DEPTH::offset(q), rm::Q_DEPTH::BYTES, qc.depth_bytes);
    put32(rm::Q_DEPTH_HWM::offset(q), rm::Q_DEPTH_HWM::BYTES, qc.depth_hwm);
    put32(rm::Q_DEPTH_PKTS::offset(q), rm::Q_DEPTH_PKTS::COUNT, qc.depth_pkts);
  }
}

namespace {

constexpr std::uint32_t kAddrMask = (1U << rm::kAddrWidth) - 1U;  // the AXI4-Lite port's address bits
constexpr std::uint32_t kWords = (kAddrMask + 1U) / 4U;
constexpr std::uint8_t kOkay = static_cast<std::uint8_t>(rm::Resp::kOkay);
constexpr std::uint8_t kSlvErr = static_cast<std::uint8_t>(rm::Resp::kSlvErr);
constexpr std::uint8_t kDecErr = static_cast<std::uint8_t>(rm::Resp::kDecErr);

// What a register word is, for the register file.
enum class Kind : std::uint8_t {
  kUnmapped,    // DECERR
  kConst,       // ro: ID, VERSION, CAPS (value in fixed_)
  kShadow,      // rw, shadowed (or SCRATCH): shadow_ holds what software wrote
  kSnapshot,    // ro, latched by SNAPSHOT: snap_
  kConfigGen,   // ro, live
  kStatus,      // w1c, live
  kCommit,      // wo
  kSnapshotGo,  // wo
  kClear,       // wo
};

struct Word {
  Kind kind = Kind::kUnmapped;
  std::uint32_t write_mask = 0;  // rw (or w1c) field bits
};

// The instance's element count of an array register (single registers: 1).
std::uint32_t element_count(const rm::RegisterInfo& r, const Params& p) {
  if (r.count_param == "NumTenants") return static_cast<std::uint32_t>(p.num_tenants);
  if (r.count_param == "NumQueues") return static_cast<std::uint32_t>(p.num_tenants * refmodel::kNumClasses);
  if (r.count_param == "NumClsEntries") return static_cast<std::uint32_t>(p.num_cls_entries);
  return r.max_count;
}

class ModelCore final : public NicCore {
 public:
  explicit ModelCore(const NicConfig& cfg)
      : cfg_(cfg),
        params_(model_params(cfg)),
        model_(params_),
        cycle_offset_(cycle_register_offset(cfg)),
        map_(kWords),
        shadow_(kWords, 0),
        snap_(kWords, 0),
        fixed_(kWords, 0) {
    build_register_file();
    active_ = model_.config();
    tx_queue_.resize(static_cast<std::size_t>(params_.num_tenants * refmodel::kNumClasses));
    tx_queue_bytes_.assign(tx_queue_.size(), 0);
    tx_credit_.init(cfg.link_bytes_per_cycle);
    rx_credit_.init(cfg.link_bytes_per_cycle);
    // As on the RTL backend: m_axis_tx_tready is low in cycle 0 and no input beat is
    // offered before cycle 1.
    tx_ready_ = false;
  }

  std::uint64_t run(std::uint64_t max_cycles) override {
    return run_until_break(max_cycles, [this] { tick(); });
  }

  AxilResult axil_read(std::uint32_t addr, std::uint32_t /*timeout*/) override {
    const std::uint32_t w = (addr & kAddrMask) >> 2;
    const Word& m = map_[w];
    switch (m.kind) {
      case Kind::kUnmapped: return {0, kDecErr, false};
      case Kind::kConst: return {fixed_[w], kOkay, false};
      case Kind::kShadow: return {shadow_[w], kOkay, false};
      case Kind::kSnapshot: return {snap_[w], kOkay, false};
      case Kind::kConfigGen: return {config_gen_, kOkay, false};
      case Kind::kStatus: return {status_, kOkay, false};
      case Kind::kCommit:
      case Kind::kSnapshotGo:
      case Kind::kClear: return {0, kSlvErr, false};  // only wo fields: nothing to read
    }
    return {0, kDecErr, false};
  }

  AxilResult axil_write(std::uint32_t addr, std::uint32_t value, std::uint32_t /*timeout*/) override {
    const std::uint32_t w = (addr & kAddrMask) >> 2;
    const Word& m = map_[w];
    switch (m.kind) {
      case Kind::kUnmapped: return {0, kDecErr, false};
      case Kind::kConst:
      case Kind::kSnapshot:
      case Kind::kConfigGen: return {0, kSlvErr, false};  // only ro fields
      case Kind::kShadow: shadow_[w] = value & m.write_mask; break;
      case Kind::kStatus: status_ &= ~(value & m.write_mask); break;
      case Kind::kCommit:
        if (rm::COMMIT::GO.get(value) != 0) commit();
        break;
      case Kind::kSnapshotGo:
        if (rm::SNAPSHOT::GO.get(value) != 0) snapshot();
        break;
      case Kind::kClear:
        if (rm::COUNTER_CLEAR::GO.get(value) != 0) model_.clear_counters();
        break;
    }
    return {0, kOkay, false};
  }

 private:
  // One input stream: the frame being offered, beat by beat.
  struct Input {
    std::vector<std::uint8_t> buf;
    std::uint32_t len = 0;
    std::uint32_t off = 0;
    bool active = false;  // a frame is being offered
    bool valid = false;   // a beat is offered this cycle
  };

  void build_register_file() {
    for (const rm::RegisterInfo& r : rm::kRegisters) {
      const std::uint32_t count = element_count(r, params_);
      std::uint32_t write_mask = 0;
      bool wo = false, w1c = false;
      for (const rm::FieldInfo& f : r.fields) {
        const std::uint32_t mask = f.width >= 32 ? ~0U : ((1U << f.width) - 1U) << f.lsb;
        if (f.access == rm::Access::kRw || f.access == rm::Access::kW1c) write_mask |= mask;
        wo = wo || f.access == rm::Access::kWo;
        w1c = w1c || f.access == rm::Access::kW1c;
      }
      Kind kind = Kind::kConst;
      if (r.snapshot) {
        kind = Kind::kSnapshot;
      } else if (r.name == "COMMIT") {
        kind = Kind::kCommit;
      } else if (r.name == "SNAPSHOT") {
        kind = Kind::kSnapshotGo;
      } else if (r.name == "COUNTER_CLEAR") {
        kind = Kind::kClear;
      } else if (r.name == "CONFIG_GEN") {
        kind = Kind::kConfigGen;
      } else if (w1c) {
        kind = Kind::kStatus;
      } else if (write_mask != 0) {
        kind = Kind::kShadow;
      } else if (wo) {
        throw SimError(fmt::format("model backend: register {} has wo fields the backend does not know", r.name));
      }
      for (std::uint32_t i = 0; i < count; ++i) {
        for (std::uint32_t half = 0; half < r.width / 32; ++half) {
          const std::uint32_t w = (r.address(i) >> 2) + half;
          map_[w] = {kind, write_mask};
          shadow_[w] = static_cast<std::uint32_t>(r.reset() >> (32 * half)) & write_mask;
        }
      }
    }
    // Constant and capability registers (the RTL drives CAPS from its parameters).
    fixed_[rm::ID::kOffset >> 2] = rm::ID::kReset;
    fixed_[rm::VERSION::kOffset >> 2] = rm::VERSION::kReset;
    std::uint32_t caps0 = 0;
    caps0 = rm::CAPS0::TENANTS.set(caps0, static_cast<std::uint32_t>(params_.num_tenants));
    caps0 = rm::CAPS0::CLASSES.set(caps0, refmodel::kNumClasses);
    caps0 = rm::CAPS0::PRIO_LEVELS.set(caps0, refmodel::kPrioLevels);
    caps0 = rm::CAPS0::CRYPTO_SLOTS.set(caps0, static_cast<std::uint32_t>(params_.crypto_slots));
    caps0 = rm::CAPS0::CLS_ENTRIES.set(caps0, static_cast<std::uint32_t>(params_.num_cls_entries));
    fixed_[rm::CAPS0::kOffset >> 2] = caps0;
    std::uint32_t caps1 = 0;
    caps1 = rm::CAPS1::DATA_BYTES.set(caps1, static_cast<std::uint32_t>(params_.data_bytes));
    caps1 = rm::CAPS1::BUFFER_KIB.set(caps1, params_.buffer_bytes / 1024);
    fixed_[rm::CAPS1::kOffset >> 2] = caps1;
  }

  void commit() {
    Config c = decode_config([this](std::uint32_t a) { return shadow_[(a & kAddrMask) >> 2]; }, params_);
    try {
      model_.commit(c);  // validates; takes effect at the start of the next cycle
      active_ = c;
    } catch (const refmodel::ModelError& e) {
      // The RTL would index past its tables; the model refuses. Nothing is applied.
      throw drivers::BusError(fmt::format("inproc:refmodel: COMMIT of a configuration the model cannot run ({})",
                                          e.what()));
    }
    ++config_gen_;
  }

  void snapshot() {
    encode_counters(model_.counters(), params_, cycle_offset_,
                    [this](std::uint32_t a, std::uint32_t v) { snap_[a >> 2] = v; });
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
    const std::uint64_t id = model_.push(static_cast<refmodel::Direction>(d), in.buf, cycle);
    if (d == Direction::kTx) mirror_arrival(id, in.buf);
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

    model_.set_output_ready(refmodel::Direction::kTx, tx_ready_);
    model_.step(1);
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

  void mirror_arrival(std::uint64_t id, const std::vector<std::uint8_t>& bytes) {
    const refmodel::ParsedFrame pf = refmodel::parse_frame(bytes);
    const bool to_default = pf.drop == refmodel::ParseDrop::kUnknownEtype && active_.bad_to_default;
    if (pf.drop != refmodel::ParseDrop::kNone && !to_default) return;  // the parser drops it
    const refmodel::ClsAction a = refmodel::classify(pf, active_);
    TxFrame f;
    f.q = a.tenant * refmodel::kNumClasses + a.cls;
    f.len = static_cast<std::uint32_t>(bytes.size());
    f.crypto = a.op != refmodel::CryptoOp::kNone;
    tx_frames_.emplace(id, f);
    tx_queue_.at(f.q).push_back(id);
    tx_queue_bytes_[f.q] += f.len;
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
    for (std::uint32_t q = 0; q < tx_queue_.size(); ++q) {
      auto& dq = tx_queue_[q];
      while (!dq.empty() && model_.queue_bytes(refmodel::Direction::kTx, q) < tx_queue_bytes_[q]) {
        TxFrame& f = tx_frames_.at(dq.front());
        f.dispatched = true;
        f.on_output_from = f.crypto ? cycle + refmodel::crypto_hold_cycles(f.len, active_.engine_bytes_per_cycle,
                                                                            active_.engine_latency)
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
    const Direction d = r.dir == refmodel::Direction::kTx ? Direction::kTx : Direction::kRx;
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
      status_ |= d == Direction::kTx ? rm::STATUS::TX_BUF_FULL.mask() : rm::STATUS::RX_BUF_FULL.mask();
    }
    bytes.clear();
    pool_.push_back(std::move(bytes));
    return tx_last;
  }

  NicConfig cfg_;
  Params params_;
  refmodel::RefModel model_;
  std::uint64_t cycle_offset_;

  // Register file, one entry per 32-bit word of the 64 KiB space.
  std::vector<Word> map_;
  std::vector<std::uint32_t> shadow_;  // shadowed registers and SCRATCH
  std::vector<std::uint32_t> snap_;    // what the last SNAPSHOT latched
  std::vector<std::uint32_t> fixed_;   // ID, VERSION, CAPS
  std::uint32_t config_gen_ = 0;
  std::uint32_t status_ = 0;

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
