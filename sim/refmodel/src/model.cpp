// RefModel: see model.hpp for the cycle order; docs/verification.md for the choices the
// specification leaves open (which are the model's, not the RTL's).
#include "nicsched/refmodel/model.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <optional>
#include <string>

#include "nicsched/refmodel/parser.hpp"

namespace nicsched::refmodel {
namespace {

constexpr std::uint64_t kServable = std::numeric_limits<std::uint64_t>::max();

TokenBucket::Config bucket_config(const TenantConfig& t) {
  return {t.rate_limited, t.rate_bytes_per_kcycle, t.burst_bytes};
}

// The control bucket runs while CTRL.CONTROL_LEVEL is set (held full otherwise).
TokenBucket::Config ctrl_bucket_config(const Config& c, const TenantConfig& t) {
  return {c.control_level, t.ctrl_rate_bytes_per_kcycle, t.ctrl_burst_bytes};
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

// f(q) for every queue q whose bit is set in `mask`, in ascending order.
template <class Mask, class F>
void for_each_bit(const Mask& mask, F&& f) {
  for (std::size_t w = 0; w < mask.size(); ++w) {
    for (std::uint64_t bits = mask[w]; bits != 0; bits &= bits - 1) {
      f(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits))));
    }
  }
}

template <class Mask>
void set_bit(Mask& mask, std::uint32_t q) { mask[q / 64] |= std::uint64_t{1} << (q % 64); }
template <class Mask>
void clear_bit(Mask& mask, std::uint32_t q) { mask[q / 64] &= ~(std::uint64_t{1} << (q % 64)); }
template <class Mask>
bool no_bits(const Mask& mask) {
  std::uint64_t any = 0;
  for (const std::uint64_t w : mask) any |= w;
  return any == 0;
}
// a == b, word by word (std::array's operator== calls memcmp here).
template <class Mask>
bool same_bits(const Mask& a, const Mask& b) {
  std::uint64_t diff = 0;
  for (std::size_t w = 0; w < a.size(); ++w) diff |= a[w] ^ b[w];
  return diff == 0;
}

const Params& validated(const Params& p) {
  p.validate();
  return p;
}

std::string field(const char* name, std::size_t i, const char* member) {
  return std::string(name) + "[" + std::to_string(i) + "]." + member;
}

void check_range(const std::string& what, std::uint64_t v, std::uint64_t max) {
  if (v > max) {
    throw ModelError("config: " + what + " = " + std::to_string(v) + ": must be <= " +
                     std::to_string(max));
  }
}

}  // namespace

// ---------------------------------------------------------------- types.hpp helpers

void Params::validate() const {
  auto bad = [](const std::string& what) { throw ModelError("params: " + what); };
  if (num_tenants < 1 || num_tenants > static_cast<int>(kMaxTenants)) bad("num_tenants must be 1..64");
  if (num_cls_entries < 1 || num_cls_entries > 64) bad("num_cls_entries must be 1..64");
  if (data_bytes < 8 || data_bytes > 64 || (data_bytes & (data_bytes - 1)) != 0) {
    bad("data_bytes must be a power of two, 8..64");
  }
  if (crypto_slots < 1 || crypto_slots > 255) bad("crypto_slots must be 1..255");
  if (cell_bytes == 0) bad("cell_bytes must be > 0");
  if (buffer_bytes / cell_bytes <= reserved_cells) bad("buffer_bytes must hold a cell beyond reserved_cells");
}

Config reset_config(const Params& p) {
  Config c;
  c.tenants.assign(static_cast<std::size_t>(p.num_tenants), TenantConfig{});
  c.classifier.assign(static_cast<std::size_t>(p.num_cls_entries), ClassifierEntry::reset());
  return c;
}

void validate(const Config& cfg, const Params& p) {
  const auto nt = static_cast<std::uint64_t>(p.num_tenants);
  if (cfg.tenants.size() != nt) {
    throw ModelError("config: tenants has " + std::to_string(cfg.tenants.size()) +
                     " entries, the instance has " + std::to_string(nt));
  }
  if (cfg.classifier.size() != static_cast<std::size_t>(p.num_cls_entries)) {
    throw ModelError("config: classifier has " + std::to_string(cfg.classifier.size()) +
                     " entries, the instance has " + std::to_string(p.num_cls_entries));
  }
  check_range("crypto_bytes_per_cycle", cfg.crypto_bytes_per_cycle, 0xFF);
  check_range("crypto_latency", cfg.crypto_latency, 0xFFFF);
  check_range("default_action.tenant", cfg.default_action.tenant, nt - 1);
  check_range("default_action.cls", cfg.default_action.cls, 1);
  for (std::size_t i = 0; i < cfg.tenants.size(); ++i) {
    const TenantConfig& t = cfg.tenants[i];
    check_range(field("tenants", i, "priority"), t.priority, kPrioLevels - 1);
    check_range(field("tenants", i, "crypto_quota"), t.crypto_quota, 0xFF);
    check_range(field("tenants", i, "weight"), t.weight, 0xFFFF);
    check_range(field("tenants", i, "rate_bytes_per_kcycle"), t.rate_bytes_per_kcycle, 0xFFFFFF);
    check_range(field("tenants", i, "burst_bytes"), t.burst_bytes, 0xFFFFFF);
    check_range(field("tenants", i, "qlimit_control_bytes"), t.qlimit_control_bytes, 0xFFFFFF);
    check_range(field("tenants", i, "qlimit_bulk_bytes"), t.qlimit_bulk_bytes, 0xFFFFFF);
    check_range(field("tenants", i, "ctrl_rate_bytes_per_kcycle"), t.ctrl_rate_bytes_per_kcycle, 0xFFFFFF);
    check_range(field("tenants", i, "ctrl_burst_bytes"), t.ctrl_burst_bytes, 0xFFFFFF);
  }
  for (std::size_t i = 0; i < cfg.classifier.size(); ++i) {
    const ClassifierEntry& e = cfg.classifier[i];
    if (!e.valid) continue;
    check_range(field("classifier", i, "action.tenant"), e.action.tenant, nt - 1);
    check_range(field("classifier", i, "action.cls"), e.action.cls, 1);
  }
}

std::uint64_t crypto_hold_cycles(std::uint32_t len, std::uint32_t bytes_per_cycle,
                                 std::uint32_t latency) {
  return ceil_div(len, std::max<std::uint32_t>(bytes_per_cycle, 1)) + latency;
}

const char* to_string(Fate f) {
  switch (f) {
    case Fate::kPending: return "pending";
    case Fate::kQueued: return "queued";
    case Fate::kDelivered: return "delivered";
    case Fate::kParseDrop: return "parse-drop";
    case Fate::kTailDrop: return "tail-drop";
    case Fate::kBufferDrop: return "buffer-drop";
    case Fate::kSpoofDrop: return "spoof-drop";
  }
  return "?";
}

const char* to_string(ParseDrop d) {
  switch (d) {
    case ParseDrop::kNone: return "none";
    case ParseDrop::kRunt: return "runt";
    case ParseDrop::kTruncated: return "truncated";
    case ParseDrop::kBadIhl: return "bad-ihl";
    case ParseDrop::kUnknownEtype: return "unknown-etype";
  }
  return "?";
}

// ---------------------------------------------------------------- RefModel

RefModel::RefModel(const Params& params) : RefModelState(validated(params)) {
  cfg_ = reset_config(params_);
  sync_crypto_quota();
  const auto nt = static_cast<std::size_t>(params_.num_tenants);
  for (int d = 0; d < 2; ++d) {
    Path& p = paths_[static_cast<std::size_t>(d)];
    p.dir = static_cast<Direction>(d);
    p.op = d == 0 ? CryptoOp::kEncrypt : CryptoOp::kDecrypt;
    p.q.resize(nt * kNumClasses);
    p.qbytes.assign(nt * kNumClasses, 0);
    p.arb = Arbiter(static_cast<unsigned>(nt), 32);
    p.heads.elig.assign(nt * kNumClasses, false);
    p.heads.backlog.assign(nt * kNumClasses, false);
    p.heads.len.assign(nt * kNumClasses, 0);
    p.heads.ts.assign(nt * kNumClasses, 0);
  }
  // The buckets as one clock after reset leaves them (full: the reset config has no limit).
  buckets_.resize(nt);
  sent_.assign(nt, 0);
  for (std::size_t t = 0; t < nt; ++t) buckets_[t].clock(bucket_config(cfg_.tenants[t]), 0);
  // The control buckets are full after reset (the reset T_CTRL_BURST), and stay so a clock later.
  ctrl_buckets_.assign(nt, TokenBucket(static_cast<std::int64_t>(TenantConfig{}.ctrl_burst_bytes) * TokenBucket::kScale));
  ctrl_sent_.assign(nt, 0);
  for (std::size_t t = 0; t < nt; ++t) ctrl_buckets_[t].clock(ctrl_bucket_config(cfg_, cfg_.tenants[t]), 0);
  unservable_since_.assign(nt, kServable);
  update_servable();
  ctr_.queues.resize(nt * kNumClasses);
  ctr_.crypto.resize(nt);
}

RefModel::RefModel(const RefModel& other) : RefModelState(other) { rebind_queues(); }

RefModel& RefModel::operator=(const RefModel& other) {
  if (this != &other) {
    RefModelState::operator=(other);
    rebind_queues();
  }
  return *this;
}

void RefModel::rebind_queues() {
  for (Path& p : paths_) {
    for (auto& q : p.q) {
      for (Live*& f : q) f = &live_.at(f->rec.id);  // f: the original's node, alive during the copy
    }
  }
}

void RefModel::commit(const Config& cfg) {
  validate(cfg, params_);
  pending_cfg_ = cfg;
  commit_pending_ = true;
}

void RefModel::set_sources(const SourceTable& sources) {
  if (sources.size() > kMaxSources) {
    throw ModelError("sources: " + std::to_string(sources.size()) + " entries, at most " + std::to_string(kMaxSources));
  }
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (sources[i].bound) {
      check_range(field("sources", i, "tenant"), sources[i].tenant, static_cast<std::uint64_t>(params_.num_tenants) - 1);
    }
  }
  sources_ = sources;
}

void RefModel::clear_counters() {
  for (QueueCounters& q : ctr_.queues) {
    const QueueCounters keep = q;
    q = QueueCounters{};
    q.depth_bytes = keep.depth_bytes;
    q.depth_pkts = keep.depth_pkts;
    q.depth_hwm = keep.depth_bytes;
  }
  for (CryptoCounters& c : ctr_.crypto) {
    const std::uint32_t held = c.slots_held;
    c = CryptoCounters{};
    c.slots_held = held;
  }
  for (ParserCounters& p : ctr_.parser) p = ParserCounters{};
  spoofed_.fill(0);
}

std::uint64_t RefModel::push(Direction dir, std::span<const std::uint8_t> bytes,
                             std::uint64_t arrival_cycle, std::uint32_t source) {
  if (source >= kMaxSources) {
    throw ModelError("push: source " + std::to_string(source) + " at cycle " + std::to_string(arrival_cycle) +
                     ": at most " + std::to_string(kMaxSources - 1));
  }
  if (arrival_cycle < cycle_) {
    throw ModelError("push: frame arrives at cycle " + std::to_string(arrival_cycle) +
                     ", the model is already at cycle " + std::to_string(cycle_));
  }
  if (bytes.empty()) throw ModelError("push: empty frame at cycle " + std::to_string(arrival_cycle));
  if (bytes.size() > 0xFFFF) {
    throw ModelError("push: frame of " + std::to_string(bytes.size()) +
                     " bytes at cycle " + std::to_string(arrival_cycle) + ": at most 65535");
  }
  const std::uint64_t id = next_id_++;
  Live f;
  f.rec.id = id;
  f.rec.dir = dir;
  f.rec.len = static_cast<std::uint32_t>(bytes.size());
  f.rec.arrival = arrival_cycle;
  f.rec.source = dir == Direction::kTx ? source : 0;
  live_.emplace(id, f);  // queues and slots hold its node until finish(): no rehash moves it
  parsed_.emplace(id, parse_frame(bytes, false, dir == Direction::kTx ? kMinHostFrameBytes : kMinFrameBytes));
  arrivals_.emplace(arrival_cycle, id);
  return id;
}

void RefModel::set_output_ready(Direction dir, bool ready) { path(dir).ready = ready; }

void RefModel::step(std::uint64_t cycles) {
  while (cycles > 0) {
    if (params_.stepping == Stepping::kEvent) {
      std::uint64_t inert = inert_cycles(cycles);
      std::array<std::uint64_t, 2> ready{};
      for (std::size_t d = 0; d < 2; ++d) {
        const Path& p = paths_[d];
        if (p.active && p.ready) inert = std::min(inert, p.beats_left - 1);
      }
      if (inert > 0) {
        for (std::size_t d = 0; d < 2; ++d) ready[d] = paths_[d].ready ? inert : 0;
        advance_inert(inert, ready);
        cycles -= inert;
        continue;
      }
    }
    step_cycle();
    --cycles;
    // The first quiet cycle is stepped in full (it brings the arbiters to rest); the rest
    // of the span only moves the clock.
    if (cycles > 0 && paths_[0].arb_at_rest && paths_[0].rest_backlog_none && paths_[1].arb_at_rest &&
        paths_[1].rest_backlog_none) {
      const std::uint64_t quiet = std::min(cycles, quiet_cycles());
      skip_quiet(quiet);
      cycles -= quiet;
    }
  }
}

std::uint64_t RefModel::quiet_cycles() const {
  // Every pushed frame is live until decided, and parsed_ until its arrival: a live frame
  // beyond those is queued, in a slot or on an output (slots are free when none is).
  if (commit_pending_ || live_.size() != parsed_.size()) return 0;
  return arrivals_.empty() ? std::numeric_limits<std::uint64_t>::max() : arrivals_.begin()->first - cycle_;
}

// `cycles` quiet cycles after one stepped in full: what step_cycle() would do in each is
// count the cycle and refill the buckets, rate limit and control (no arrival, head, slot, beat or commit; the
// servable state follows the configuration, the arbiters are at rest).
void RefModel::skip_quiet(std::uint64_t cycles) {
  clock_buckets_idle(cycles);
  cycle_ += cycles;
  ctr_.cycle += cycles;
}

std::uint64_t RefModel::buckets_to_clock() const {
  const auto nt = static_cast<unsigned>(params_.num_tenants);
  const std::uint64_t all = nt >= 64 ? ~0ULL : (std::uint64_t{1} << nt) - 1;
  if (buckets_at_cap_serial_ != cfg_serial_) return all;
  return (all & ~buckets_at_cap_) | sent_tenants_;
}

bool RefModel::buckets_at_cap(std::uint32_t t) const {
  const TenantConfig& tc = cfg_.tenants[t];
  return buckets_[t].tokens() == static_cast<std::int64_t>(tc.burst_bytes) * TokenBucket::kScale &&
         ctrl_buckets_[t].tokens() == static_cast<std::int64_t>(tc.ctrl_burst_bytes) * TokenBucket::kScale;
}

void RefModel::note_buckets(std::uint32_t t) {
  const std::uint64_t bit = std::uint64_t{1} << t;
  if (buckets_at_cap(t)) {
    buckets_at_cap_ |= bit;
  } else {
    buckets_at_cap_ &= ~bit;
  }
  if (!buckets_[t].conforms(bucket_config(cfg_.tenants[t]))) {
    buckets_owing_ |= bit;
  } else {
    buckets_owing_ &= ~bit;
  }
}

bool RefModel::any_eligible_no_grant(const Path& p, const QueueMask& visible, const QueueMask& crypto,
                                     bool plain_ok) const {
  if (plain_ok) {
    QueueMask owing{};  // the queues of TX tenants whose bucket does not conform
    if (p.dir == Direction::kTx) {
      for_each_bit(std::array<std::uint64_t, 1>{buckets_owing_}, [&](std::uint32_t t) {
        set_bit(owing, t * kNumClasses);
        set_bit(owing, t * kNumClasses + 1);
      });
    }
    std::uint64_t any = 0;
    for (std::size_t w = 0; w < visible.size(); ++w) any |= visible[w] & ~crypto[w] & p.servable[w] & ~owing[w];
    if (any != 0) return true;
  }
  bool eligible = false;
  for_each_bit(crypto, [&](std::uint32_t q) { eligible = eligible || queue_eligible(p, q, plain_ok); });
  return eligible;
}

void RefModel::clock_buckets_idle(std::uint64_t cycles) {
  const std::uint64_t visit = buckets_to_clock();
  for_each_bit(std::array<std::uint64_t, 1>{visit}, [&](std::uint32_t t) {
    buckets_[t].clock_idle(bucket_config(cfg_.tenants[t]), cycles);
    ctrl_buckets_[t].clock_idle(ctrl_bucket_config(cfg_, cfg_.tenants[t]), cycles);
    note_buckets(t);
  });
  buckets_at_cap_serial_ = cfg_serial_;
}

std::uint64_t RefModel::inert_cycles(std::uint64_t max) const {
  if (commit_pending_ || max == 0 || paths_[0].grant.valid || paths_[1].grant.valid) return 0;
  std::uint64_t n = max;
  if (!arrivals_.empty()) n = std::min(n, arrivals_.begin()->first - cycle_);
  // A hold that ends makes its frame done (crypto_done, the output may take it).
  const std::uint64_t hold = crypto_.cycles_to_hold_end();
  if (hold != std::numeric_limits<std::uint64_t>::max()) n = std::min(n, hold - 1);
  for (const Path& p : paths_) {
    if (n == 0) return 0;
    n = path_inert_cycles(p, n);
  }
  return n;
}

std::uint64_t RefModel::path_inert_cycles(const Path& p, std::uint64_t max) const {
  // A grant executes in the next cycle; a free output takes a done crypto frame or the FIFO's first.
  if (p.grant.valid) return 0;
  if (!p.active && (!p.fifo.empty() || (crypto_.held_total() != 0 && crypto_.offered(p.dir)))) return 0;
  // decide() skips the arbiter only when it is at rest with this backlog and configuration.
  if (!p.arb_at_rest || p.arb_cfg_serial != cfg_serial_) return 0;
  // The backlog is the one the arbiter came to rest with: the same visible heads.
  const HeadMasks hm = visible_heads(p);
  if (!same_bits(hm.visible, p.rest_backlog)) return 0;
  std::uint64_t n = max;
  for_each_bit(p.pending, [&](std::uint32_t q) {
    const Live& f = *p.q[q].front();
    if (f.visible > cycle_) n = std::min(n, f.visible - cycle_);  // becomes visible: the backlog changes
  });
  const bool plain_ok = p.fifo.size() < 3;  // no plain grant executes
  // No grant is in flight (above); the owing buckets are current between steps.
  if (buckets_at_cap_serial_ != cfg_serial_) return 0;
  if (any_eligible_no_grant(p, hm.visible, hm.crypto, plain_ok)) return 0;
  if (p.dir == Direction::kTx && buckets_owing_ != 0) {
    for_each_bit(hm.visible, [&](std::uint32_t q) {
      const std::uint32_t t = q / kNumClasses;
      // An ineligible TX tenant whose bucket is paying back becomes servable when it conforms.
      const TokenBucket::Config bc = bucket_config(cfg_.tenants[t]);
      if (bc.enabled && buckets_[t].tokens() < 0 && bc.rate_bytes_per_kcycle != 0) {
        n = std::min(n, ceil_div(static_cast<std::uint64_t>(-buckets_[t].tokens()), bc.rate_bytes_per_kcycle));
      }
    });
  }
  // The pool's turn stays: no want of this path's crypto heads would pass it.
  bool starves = false;
  for_each_crypto_tenant(p, [&](std::uint32_t t) {
    if (tenant_servable(p, t) && crypto_.starves(p.dir, t, crypto_quota_[t])) starves = true;
  });
  return starves ? 0 : n;
}

void RefModel::add_pending_visible(const Path& p, HeadMasks& hm) const {
  for_each_bit(p.pending, [&](std::uint32_t q) {
    const Live& f = *p.q[q].front();
    if (f.visible > cycle_) return;
    set_bit(hm.visible, q);
    if (needs_crypto(p, f)) set_bit(hm.crypto, q);
  });
}

void RefModel::record_heads(Path& p) {
  if (no_bits(p.pending)) return;
  ArbHeads& h = p.heads;
  for_each_bit(p.pending, [&](std::uint32_t q) {
    const Live& f = *p.q[q].front();
    if (f.visible > cycle_) return;
    clear_bit(p.pending, q);
    set_bit(p.visible, q);
    if (needs_crypto(p, f)) set_bit(p.crypto_heads, q);
    h.backlog[q] = true;
    h.len[q] = f.rec.len;
    h.ts[q] = static_cast<std::uint32_t>(f.seq);
  });
}

void RefModel::advance_inert(std::uint64_t cycles, const std::array<std::uint64_t, 2>& ready_cycles) {
  if (cycles == 0) return;
  for (std::size_t d = 0; d < 2; ++d) {
    Path& p = paths_[d];
    count_crypto_waits(p, cycles);
    if (!p.active) continue;
    if (ready_cycles[d] >= p.beats_left) {
      throw ModelError("refmodel: advance_inert over the last beat of an output (caller's bug)");
    }
    p.beats_left -= ready_cycles[d];
  }
  count_busy(cycles);
  clock_buckets_idle(cycles);
  crypto_.advance(cycles);
  cycle_ += cycles;
  ctr_.cycle += cycles;
}

void RefModel::step_cycle() {
  apply_commit();
  admit_arrivals();
  record_heads(paths_[0]);
  record_heads(paths_[1]);
  claim_granted(paths_[0]);
  claim_granted(paths_[1]);
  want_slots(paths_[0]);
  want_slots(paths_[1]);
  // decide() replaces each path's grant with this cycle's; the one decided last cycle
  // executes after the decisions (its frame is its queue's head until the edge)
  const Path::Grant executing[2] = {paths_[0].grant, paths_[1].grant};
  decide(paths_[0]);
  decide(paths_[1]);
  execute(paths_[0], executing[0]);
  execute(paths_[1], executing[1]);
  count_busy();
  clock_buckets();
  clock_crypto();
  move_beats(paths_[0]);
  move_beats(paths_[1]);
  sync_crypto_quota();
  ++cycle_;
  ++ctr_.cycle;
}

// The pool's quotas from the next cycle on: the configuration's (a COMMIT applied at the
// start of this cycle reaches the pool at its end). Between cycles they always equal
// cfg_'s, so the inert and quiet spans, which start after a full cycle, need nothing.
void RefModel::sync_crypto_quota() {
  for (std::size_t t = 0; t < cfg_.tenants.size(); ++t) crypto_quota_.at(t) = cfg_.tenants[t].crypto_quota;
}

bool RefModel::run_until_idle(std::uint64_t max_cycles) {
  for (std::uint64_t i = 0; i < max_cycles && !idle(); ++i) step();
  return idle();
}

bool RefModel::idle() const { return live_.empty(); }

std::vector<FrameRecord> RefModel::pop_records() {
  std::vector<FrameRecord> out;
  out.swap(done_);
  return out;
}

Telemetry RefModel::counters() const {
  Telemetry c = ctr_;
  c.crypto_busy_slots = static_cast<std::uint32_t>(busy_slots());
  for (std::size_t t = 0; t < c.crypto.size(); ++t) {
    c.crypto[t].slots_held = crypto_.held(static_cast<std::uint32_t>(t));
  }
  return c;
}

std::uint64_t RefModel::unservable_for(std::uint32_t tenant) const {
  const std::uint64_t since = unservable_since_.at(tenant);
  return since == kServable ? 0 : cycle_ - since;
}

// ---------------------------------------------------------------- cycle phases

void RefModel::apply_commit() {
  if (!commit_pending_) return;
  commit_pending_ = false;
  cfg_ = pending_cfg_;
  ++cfg_serial_;
  ++ctr_.config_gen;
  update_servable();
}

// The enables hold from one COMMIT to the next: unservable_since_ changes only then.
void RefModel::update_servable() {
  for (Path& p : paths_) p.servable = {};
  for (std::size_t t = 0; t < unservable_since_.size(); ++t) {
    const bool servable = cfg_.enable && cfg_.tenants[t].enable;
    if (servable) {
      unservable_since_[t] = kServable;
    } else if (unservable_since_[t] == kServable) {
      unservable_since_[t] = cycle_;
    }
    for (Path& p : paths_) {
      if (servable || (p.dir == Direction::kRx && !params_.rx_obeys_enables)) {
        set_bit(p.servable, static_cast<std::uint32_t>(t * kNumClasses));
        set_bit(p.servable, static_cast<std::uint32_t>(t * kNumClasses + 1));
      }
    }
  }
}

// The crypto pool's clock edge, after this cycle's claims and takes: a frame whose hold
// ended is done from the next cycle and waits in its slot for the output.
void RefModel::clock_crypto() {
  for (const std::uint64_t id : crypto_.clock()) live_.at(id).rec.crypto_done = cycle_ + 1;
}

void RefModel::admit_arrivals() {
  while (!arrivals_.empty() && arrivals_.begin()->first == cycle_) {
    const std::uint64_t id = arrivals_.begin()->second;
    arrivals_.erase(arrivals_.begin());
    Live& f = live_.at(id);
    const ParsedFrame pf = parsed_.at(id);
    parsed_.erase(id);
    ParserCounters& pc = ctr_.parser[static_cast<std::size_t>(f.rec.dir)];
    ++pc.frames;
    switch (pf.drop) {
      case ParseDrop::kNone: break;
      case ParseDrop::kRunt: ++pc.runt; break;
      case ParseDrop::kTruncated: ++pc.truncated; break;
      case ParseDrop::kBadIhl: ++pc.bad_ihl; break;
      case ParseDrop::kUnknownEtype: ++pc.unknown_etype; break;
    }
    f.rec.parse_drop = pf.drop;
    const bool to_default = pf.drop == ParseDrop::kUnknownEtype && cfg_.bad_to_default;
    if (pf.drop != ParseDrop::kNone && !to_default) {
      finish(id, Fate::kParseDrop);
      continue;
    }
    // Classified at arrival, with the config then; a TX frame's identity is checked against
    // its source's binding (classify_tx).
    if (f.rec.dir == Direction::kTx) {
      const TxIdentity ident = classify_tx(pf, cfg_, sources_, f.rec.source);
      f.rec.action = ident.action;
      f.rec.spoofed = ident.spoofed;
      if (ident.spoofed) ++spoofed_[f.rec.source];
      if (ident.dropped) {
        finish(id, Fate::kSpoofDrop);
        continue;
      }
    } else {
      f.rec.action = classify(pf, cfg_);
    }
    // The TX ingress pads a kept short frame with zeros: it is 60 bytes from here on.
    if (f.rec.dir == Direction::kTx) f.rec.len = std::max(f.rec.len, kMinFrameBytes);
    // One classifier table serves both directions: any crypto op means this direction's.
    f.rec.egress_op = f.rec.action.crypto_op != CryptoOp::kNone ? path(f.rec.dir).op : CryptoOp::kNone;
    f.cells = static_cast<std::uint32_t>(ceil_div(f.rec.len, params_.cell_bytes));
    f.visible = cycle_ + params_.ingress_latency;
    admit(f);
  }
}

void RefModel::admit(Live& f) {
  Path& p = path(f.rec.dir);
  const std::uint32_t t = f.rec.action.tenant;
  const std::uint32_t q = t * kNumClasses + f.rec.action.cls;
  const std::int64_t buf_margin =
      (static_cast<std::int64_t>(buffer_capacity_cells()) -
       static_cast<std::int64_t>(p.cells_used + f.cells)) *
      static_cast<std::int64_t>(params_.cell_bytes);
  const std::int64_t q_margin = static_cast<std::int64_t>(limit(q)) -
                                static_cast<std::int64_t>(p.qbytes[q] + f.rec.len);
  f.rec.admit_margin = std::min(buf_margin, q_margin);
  f.rec.queue_margin = q_margin;
  f.rec.buffer_margin = buf_margin;
  f.rec.queue_frozen_for = p.dir == Direction::kTx ? unservable_for(t) : 0;
  if (buf_margin < 0) {
    ++ctr_.parser[static_cast<std::size_t>(p.dir)].buf_drop;
    (p.dir == Direction::kTx ? ctr_.tx_buf_full : ctr_.rx_buf_full) = true;
    finish(f.rec.id, Fate::kBufferDrop);
    return;
  }
  QueueCounters& qc = ctr_.queues[q];
  if (q_margin < 0) {
    ++qc.drop_pkts;
    qc.drop_bytes += f.rec.len;
    finish(f.rec.id, Fate::kTailDrop);
    return;
  }
  f.rec.fate = Fate::kQueued;
  f.seq = next_seq_++;
  p.cells_used += f.cells;
  p.qbytes[q] += f.rec.len;
  p.q[q].push_back(&f);
  ++p.queued;
  if (p.q[q].size() == 1) set_bit(p.pending, q);  // a new head (heads' entries of an empty queue are clear)
  set_bit(p.nonempty, q);
  ++qc.enq_pkts;
  qc.enq_bytes += f.rec.len;
  update_depth(q);
}

void RefModel::update_depth(std::uint32_t q) {
  QueueCounters& qc = ctr_.queues[q];
  // Q_DEPTH / Q_DEPTH_PKTS are 32-bit registers; a buffer of 2^32 bytes is far off.
  qc.depth_bytes = static_cast<std::uint32_t>(paths_[0].qbytes[q] + paths_[1].qbytes[q]);
  qc.depth_pkts = static_cast<std::uint32_t>(paths_[0].q[q].size() + paths_[1].q[q].size());
  qc.depth_hwm = std::max(qc.depth_hwm, qc.depth_bytes);
}

// The shapers' clock edge (rate limit, control level), after this cycle's TX decision.
// Buckets at their cap with nothing sent stay there (buckets_at_cap_): only the others and
// the sender's are clocked.
void RefModel::clock_buckets() {
  const std::uint64_t visit = buckets_to_clock();
  for_each_bit(std::array<std::uint64_t, 1>{visit}, [&](std::uint32_t t) {
    buckets_[t].clock(bucket_config(cfg_.tenants[t]), sent_[t]);
    sent_[t] = 0;
    ctrl_buckets_[t].clock(ctrl_bucket_config(cfg_, cfg_.tenants[t]), ctrl_sent_[t]);
    ctrl_sent_[t] = 0;
    note_buckets(t);
  });
  sent_tenants_ = 0;
  buckets_at_cap_serial_ = cfg_serial_;
}

ArbMode RefModel::mode(const Path& p) const {
  return p.dir == Direction::kTx ? cfg_.arb_mode : ArbMode::kDwrr;
}

bool RefModel::tenant_servable(const Path& p, std::uint32_t t) const {
  if (p.dir == Direction::kRx && !params_.rx_obeys_enables) return true;
  if (!cfg_.enable || !cfg_.tenants[t].enable) return false;
  if (p.dir == Direction::kRx) return true;
  return buckets_[t].conforms(bucket_config(cfg_.tenants[t]));
}

bool RefModel::slot_available(const Path& p, std::uint32_t t) const {
  return crypto_.can_claim(p.dir, t, crypto_quota_[t]);
}

template <class F>
void RefModel::for_each_crypto_tenant(const Path& p, F&& f) const {
  std::uint32_t last = kMaxTenants;  // the queues come in order: a tenant's two are adjacent
  for_each_bit(visible_heads(p).crypto, [&](std::uint32_t q) {
    const std::uint32_t t = q / kNumClasses;
    if (t == last) return;
    last = t;
    f(t);
  });
}

// The pool's want input: tenants with a visible crypto head that nothing but a slot holds
// back (servable, not in flight; the output is not asked, as for any crypto head).
void RefModel::want_slots(const Path& p) {
  for_each_crypto_tenant(p, [&](std::uint32_t t) {
    if (p.grant.valid && p.grant.queue / kNumClasses == t) return;  // in flight: its claim executes
    if (tenant_servable(p, t)) crypto_.want(p.dir, t, crypto_quota_[t]);
  });
}

bool RefModel::needs_crypto(const Path& p, const Live& f) const {
  (void)p;
  return f.rec.action.crypto_op != CryptoOp::kNone;
}

bool RefModel::queue_eligible(const Path& p, std::uint32_t q, bool plain_ok) const {
  if (p.q[q].empty()) return false;
  const Live& f = *p.q[q].front();
  if (f.visible > cycle_) return false;
  const std::uint32_t t = q / kNumClasses;
  if (p.grant.valid && p.grant.queue / kNumClasses == t) return false;  // in flight
  if (below_in_flight(p, t)) return false;
  if (!tenant_servable(p, t)) return false;
  return needs_crypto(p, f) ? slot_available(p, t) : plain_ok;
}

// Strict priority across the clock that masks the tenant in flight: tenants of lower
// levels wait while it executes, as judged in the cycle it was decided (below_mask()).
bool RefModel::below_in_flight(const Path& p, std::uint32_t t) const {
  return p.grant.valid && ((p.grant.below >> t) & 1U) != 0;
}

// Judged in the cycle tenant u is granted (the RTL registers it then, so that the mask in
// the next cycle is the grant flop ANDed with flops): in SP and SP_DWRR (TX), if u is
// servable and holds a frame beyond the one granted, the tenants of levels below u's
// (the RTL counts the frames its queues hold).
std::uint64_t RefModel::below_mask(const Path& p, std::uint32_t u) const {
  const ArbMode md = mode(p);
  if (md != ArbMode::kSp && md != ArbMode::kSpDwrr) return 0;
  const std::size_t frames = p.q[u * kNumClasses].size() + p.q[u * kNumClasses + 1].size();
  if (frames < 2 || !tenant_servable(p, u)) return 0;
  std::uint64_t mask = 0;
  for (std::uint32_t t = 0; t < static_cast<std::uint32_t>(params_.num_tenants); ++t) {
    if (cfg_.tenants[t].priority > cfg_.tenants[u].priority) mask |= std::uint64_t{1} << t;
  }
  return mask;
}

void RefModel::claim_slot(std::uint64_t id, std::uint32_t quota) {
  Live& f = live_.at(id);
  const std::uint32_t t = f.rec.action.tenant;
  crypto_.claim(f.rec.dir, t, quota, id, t * kNumClasses + f.rec.action.cls,
                crypto_hold_cycles(f.rec.len, cfg_.crypto_bytes_per_cycle, cfg_.crypto_latency));
  f.rec.crypto = true;
  CryptoCounters& cc = ctr_.crypto[t];
  if (f.rec.dir == Direction::kTx) {
    cc.tx_bytes += f.rec.len;
    ++cc.tx_pkts;
  } else {
    cc.rx_bytes += f.rec.len;
    ++cc.rx_pkts;
  }
}

void RefModel::start_output(Path& p, std::uint64_t id) {
  Live& f = live_.at(id);
  p.active = true;
  p.frame = id;
  f.rec.first_beat = cycle_;
  p.beats_left = ceil_div(f.rec.len, static_cast<std::uint64_t>(params_.data_bytes));
}

// The output, free, takes a frame whose crypto is done first (it was scheduled already;
// its slot is free from the next cycle, the pool's edge), then the FIFO's first frame,
// then the plain frame of the grant executing now (`g`); a plain frame it does not take
// waits in the FIFO.
void RefModel::take_output(Path& p, const Path::Grant& g) {
  const bool plain = g.valid && !needs_crypto(p, live_.at(g.id));
  bool plain_taken = false;
  if (!p.active) {
    const std::optional<std::uint64_t> id =
        crypto_.held_total() == 0 ? std::nullopt : crypto_.offered(p.dir);
    if (id) {
      crypto_.take(p.dir, *id);
      start_output(p, *id);
    } else if (!p.fifo.empty()) {
      start_output(p, p.fifo.front());
      p.fifo.pop_front();
    } else if (plain) {
      start_output(p, g.id);
      plain_taken = true;
    }
  }
  if (plain && !plain_taken) {
    if (p.fifo.size() >= 3) throw ModelError("refmodel: descriptor FIFO overflow (model bug)");
    p.fifo.push_back(g.id);
  }
}

// The grant decided last cycle claims its slot first in the cycle: can_claim() of this
// cycle then allows no other claim (the pool's contract).
void RefModel::claim_granted(Path& p) {
  if (!p.grant.valid) return;
  const Live& f = live_.at(p.grant.id);
  if (needs_crypto(p, f)) claim_slot(p.grant.id, p.grant.quota);
}

// The grant decided last cycle executes: its frame leaves its queue (it was the head,
// its tenant masked since), the TX buckets pay for it, and it goes to the output (or the
// FIFO) unless it went to a slot (claim_granted()).
void RefModel::execute(Path& p, const Path::Grant& g) {
  if (g.valid) {
    const std::uint32_t uq = g.queue;
    Live& f = *p.q[uq].front();
    if (f.rec.id != g.id) throw ModelError("refmodel: a granted frame left its queue's head (model bug)");
    p.q[uq].pop_front();
    --p.queued;
    ++p.dispatched;
    // The head is gone: its heads' entries are cleared until the next one is recorded.
    ArbHeads& h = p.heads;
    h.backlog[uq] = false;
    h.elig[uq] = false;
    h.len[uq] = 0;
    h.ts[uq] = 0;
    clear_bit(p.visible, uq);
    clear_bit(p.crypto_heads, uq);
    if (p.q[uq].empty()) {
      clear_bit(p.nonempty, uq);
    } else {
      set_bit(p.pending, uq);
    }
    const std::uint32_t t = f.rec.action.tenant;
    f.rec.dispatch = cycle_;
    p.qbytes[uq] -= f.rec.len;
    update_depth(uq);
    if (p.dir == Direction::kTx) sent_[t] = f.rec.len;
    if (g.ctrl) ctrl_sent_[t] = f.rec.len;
    if (p.dir == Direction::kTx || g.ctrl) sent_tenants_ |= std::uint64_t{1} << t;
  }
  take_output(p, g);
}

void RefModel::decide(Path& p) {
  // A plain head needs a credit: FIFO entries + a plain grant executing now < 3.
  const bool exec_plain = p.grant.valid && !needs_crypto(p, live_.at(p.grant.id));
  const bool plain_ok = p.fifo.size() + (exec_plain ? 1U : 0U) < 3;
  const auto nt = static_cast<std::uint32_t>(params_.num_tenants);

  count_crypto_waits(p, 1);

  // The arbiter (Arbiter, arbiter.hpp: nicsched_arbiter's documented decision) sees the
  // visible heads; eligible = its tenant is servable (enables, token bucket) and not in
  // flight, and its frame may go next cycle (a crypto head needs a slot its tenant may
  // claim, a plain head a FIFO credit).
  // The FIFO timestamp is the admission order.
  ArbConfig& ac = p.arb_cfg;
  const bool new_cfg = p.arb_cfg_serial != cfg_serial_;
  if (new_cfg) {
    p.arb_cfg_serial = cfg_serial_;
    const bool gated = p.dir == Direction::kTx || params_.rx_obeys_enables;
    ac.enable = !gated || cfg_.enable;
    ac.mode = mode(p);
    ac.ctrl_level = p.dir == Direction::kTx && cfg_.control_level;
    ac.t_enable.resize(nt);
    ac.prio.resize(nt);
    ac.quantum.resize(nt);
    for (std::uint32_t t = 0; t < nt; ++t) {
      ac.t_enable[t] = !gated || cfg_.tenants[t].enable;
      ac.prio[t] = cfg_.tenants[t].priority;
      ac.quantum[t] = cfg_.tenants[t].weight;
    }
  }
  // queue_eligible() masks the tenant of p.grant, the grant executing now
  const ArbDecision d = decide_step(p, ac, new_cfg, plain_ok);
  p.grant = Path::Grant{};  // this cycle's decision, executed in the next

  if (!d.valid) return;
  Live& f = *p.q[d.queue].front();
  p.grant.valid = true;
  p.grant.queue = d.queue;
  p.grant.ctrl = d.ctrl;
  p.grant.id = f.rec.id;
  p.grant.quota = crypto_quota_[f.rec.action.tenant];
  p.grant.below = below_mask(p, f.rec.action.tenant);
}

// Crypto wait: a visible head that needs a slot its tenant cannot claim now.
void RefModel::count_crypto_waits(Path& p, std::uint64_t cycles) {
  for_each_crypto_tenant(p, [&](std::uint32_t t) {
    if (!slot_available(p, t)) (p.dir == Direction::kTx ? ctr_.crypto[t].tx_wait : ctr_.crypto[t].rx_wait) += cycles;
  });
}

ArbDecision RefModel::decide_step(Path& p, const ArbConfig& ac, bool new_cfg, bool plain_ok) {
  const auto nt = static_cast<std::uint32_t>(params_.num_tenants);
  if (p.queued == 0 && p.arb_at_rest && p.rest_backlog_none && !new_cfg) return {};
  // backlog, len and ts are kept by record_heads() and execute(); eligibility is this
  // cycle's (entries of queues without a visible head stay clear).
  // At rest with the same visible heads, no grant in flight and the owing buckets current:
  // eligibility from the masks kept between steps, the heads' entries left as they are
  // (every step of the arbiter below rewrites those of the visible heads).
  if (p.arb_at_rest && !new_cfg && !p.grant.valid && buckets_at_cap_serial_ == cfg_serial_ &&
      same_bits(p.visible, p.rest_backlog) && !any_eligible_no_grant(p, p.visible, p.crypto_heads, plain_ok)) {
    return {};
  }
  ArbHeads& h = p.heads;
  h.now = static_cast<std::uint32_t>(next_seq_);
  bool any_eligible = false;
  for_each_bit(p.visible, [&](std::uint32_t q) {
    const bool e = queue_eligible(p, q, plain_ok);
    h.elig[q] = e;
    any_eligible = any_eligible || e;
  });
  if (!any_eligible && p.arb_at_rest && !new_cfg && same_bits(p.visible, p.rest_backlog)) return {};
  p.arb_at_rest = !any_eligible;
  if (p.arb_at_rest) {
    p.rest_backlog = p.visible;
    p.rest_backlog_none = no_bits(p.visible);
  }
  // The control buckets only matter to a decision that is made (not on the early return above).
  if (ac.ctrl_level) {
    h.ctrl_conform.resize(nt);
    for (std::uint32_t t = 0; t < nt; ++t) {
      h.ctrl_conform[t] = ctrl_buckets_[t].conforms(ctrl_bucket_config(cfg_, cfg_.tenants[t]));
    }
  }
  return p.arb.step(ac, h);
}

void RefModel::move_beats(Path& p) {
  if (!p.active || !p.ready) return;
  if (--p.beats_left > 0) return;
  p.active = false;
  Live& f = live_.at(p.frame);
  f.rec.last_beat = cycle_;
  p.cells_used -= f.cells;
  const std::uint32_t q = f.rec.action.tenant * kNumClasses + f.rec.action.cls;
  QueueCounters& qc = ctr_.queues[q];
  ++qc.tx_pkts;
  qc.tx_bytes += f.rec.len;
  const std::uint64_t lat = f.rec.first_beat - f.rec.arrival;
  qc.lat_sum += lat;
  ++qc.lat_count;
  // Q_LAT_MAX is a 32-bit register: the largest latency saturates there.
  qc.lat_max = static_cast<std::uint32_t>(std::min<std::uint64_t>(std::max<std::uint64_t>(qc.lat_max, lat), 0xFFFFFFFFU));
  finish(p.frame, Fate::kDelivered);
}

// Slot-busy cycles: the slots in their hold this cycle.
void RefModel::count_busy(std::uint64_t cycles) {
  if (crypto_.held_total() == 0) return;  // no slot in its hold
  for (std::uint32_t t = 0; t < static_cast<std::uint32_t>(params_.num_tenants); ++t) {
    ctr_.crypto[t].tx_busy += cycles * crypto_.busy(Direction::kTx, t);
    ctr_.crypto[t].rx_busy += cycles * crypto_.busy(Direction::kRx, t);
  }
}

void RefModel::finish(std::uint64_t id, Fate fate) {
  auto it = live_.find(id);
  it->second.rec.fate = fate;
  done_.push_back(it->second.rec);
  live_.erase(it);
}

std::uint32_t RefModel::limit(std::uint32_t q) const {
  const TenantConfig& tc = cfg_.tenants[q / kNumClasses];
  return q % kNumClasses == 0 ? tc.qlimit_control_bytes : tc.qlimit_bulk_bytes;
}

std::uint64_t RefModel::buffer_capacity_cells() const {
  return params_.buffer_bytes / params_.cell_bytes - params_.reserved_cells;
}

}  // namespace nicsched::refmodel
