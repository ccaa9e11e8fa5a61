// The checks of check.hpp.
#include "check.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "nicsched/refmodel/parser.hpp"

namespace nicsched::verif {
namespace {

using refmodel::CryptoOp;
using refmodel::Direction;
using refmodel::Fate;
using refmodel::FrameRecord;

constexpr std::size_t kMaxFailures = 20;
constexpr std::uint64_t kCommitGuard = 32;      // cycles around a commit where timing decides
constexpr std::uint64_t kEgressBeatsAhead = 7;  // output FIFO (4) + read pipeline (3)
// Registered grant (issue 16): a plain frame is decided while at most 2 plain frames wait
// before it (descriptor FIFO entries + a plain grant in flight < 3) behind the frame the
// egress reads; crypto completions may go between. So the plain TX frame kPlainAhead
// places before it in output order had been taken by the egress when it was decided.
constexpr std::size_t kPlainAhead = 3;
constexpr std::uint64_t kEligibleDelay = 4;     // tlast to an eligible head, at most
constexpr std::uint64_t kLatencyBelow = 32;     // Q_LAT may be below port-to-port latency by
                                                // the ingress pipeline, per frame
constexpr std::uint64_t kLatencyAbove = 2;      // ... and above it by at most this
constexpr std::uint64_t kFifoJitter = 32;       // FIFO: spread of RTL - model departure

class Failures {
 public:
  explicit Failures(std::vector<std::string>& out) : out_(out) {}
  template <class... A>
  void add(fmt::format_string<A...> f, A&&... a) {
    if (out_.size() < kMaxFailures) out_.push_back(fmt::format(f, std::forward<A>(a)...));
    else if (out_.size() == kMaxFailures) out_.push_back("(further failures not shown)");
  }

 private:
  std::vector<std::string>& out_;
};

const char* dir_name(Direction d) { return d == Direction::kTx ? "TX" : "RX"; }

std::uint32_t queue_of(const FrameRecord& r) { return r.action.tenant * 2 + r.action.cls; }

// Dropped by the ingress, before any queue: a parser drop reason, or a spoof from a source
// that drops them.
bool ingress_drop(const FrameRecord& r) { return r.fate == Fate::kParseDrop || r.fate == Fate::kSpoofDrop; }

bool near_commit(const RunResult& run, std::uint64_t c) {
  for (std::size_t i = 1; i < run.commit_cycle.size(); ++i) {
    const std::uint64_t k = run.commit_cycle[i];
    if (k != 0 && c + kCommitGuard >= k && c <= k + kCommitGuard) return true;
  }
  return false;
}

}  // namespace

std::string CheckReport::stats() const {
  return fmt::format("{} frames in, {} delivered, {} dropped, {} timing-dependent admissions, "
                     "{} exact, {} SP pairs{}, {} spoofs ({} dropped)",
                     frames_in, delivered, dropped, ambiguous, exact_admissions, sp_pairs_checked,
                     fifo_order_checked ? ", FIFO order" : "", spoofs, spoof_drops);
}

CheckReport check_run(const Scenario& sc, const RunResult& run) {
  CheckReport rep;
  Failures fail(rep.failures);
  const std::size_t n = sc.offers.size();
  const auto nt = static_cast<std::uint32_t>(sc.params.num_tenants);
  rep.frames_in = n;
  for (const FrameRecord& m : run.model) {
    rep.spoofs += m.spoofed ? 1 : 0;
    rep.spoof_drops += m.fate == Fate::kSpoofDrop ? 1 : 0;
  }
  if (!run.drained) {
    fail.add("did not drain: still busy at cycle {} (traffic ended at {})", run.end_cycle, sc.traffic_cycles);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (run.model[i].fate == Fate::kPending || run.model[i].fate == Fate::kQueued) {
      fail.add("offer {} ({} {} bytes) never completed its input handshake or the model kept it",
               i, dir_name(sc.offers[i].dir), sc.offers[i].bytes.size());
    }
  }

  // ---- 1. every output frame is one input frame, at most once, with the model's tuser
  // (a TX frame shorter than 60 bytes leaves padded with zeros to 60: its key is padded)
  std::unordered_map<std::string, std::vector<std::size_t>> by_content;
  for (std::size_t i = n; i-- > 0;) {
    std::string key(1, static_cast<char>(sc.offers[i].dir));
    key.append(reinterpret_cast<const char*>(sc.offers[i].bytes.data()), sc.offers[i].bytes.size());
    if (sc.offers[i].dir == Direction::kTx && key.size() < 1 + refmodel::kMinFrameBytes) {
      key.resize(1 + refmodel::kMinFrameBytes, '\0');
    }
    by_content[key].push_back(i);  // reversed: back() is the earliest
  }
  std::vector<long> rtl_of(n, -1);  // offer -> index into run.rtl
  for (std::size_t k = 0; k < run.rtl.size(); ++k) {
    const RtlFrame& f = run.rtl[k];
    std::string key(1, static_cast<char>(f.dir));
    key.append(reinterpret_cast<const char*>(f.bytes.data()), f.bytes.size());
    auto it = by_content.find(key);
    if (it == by_content.end() || it->second.empty()) {
      fail.add("{} output at cycle {} ({} bytes, tenant {} class {}) is no input frame, or one "
               "delivered twice", dir_name(f.dir), f.last_cycle, f.bytes.size(), f.tenant, f.cls);
      continue;
    }
    const std::size_t i = it->second.back();
    it->second.pop_back();
    rtl_of[i] = static_cast<long>(k);
    const FrameRecord& m = run.model[i];
    if (f.tenant != m.action.tenant || f.cls != m.action.cls ||
        f.op != static_cast<std::uint32_t>(m.egress_op)) {
      fail.add("offer {} ({} {} bytes, tlast at {}): tuser tenant {} class {} op {}, model says "
               "tenant {} class {} op {} (classified op {})", i, dir_name(f.dir), f.bytes.size(), run.arrival[i],
               f.tenant, f.cls, f.op, m.action.tenant, m.action.cls, static_cast<int>(m.egress_op),
               static_cast<int>(m.action.crypto_op));
    }
    if (ingress_drop(m)) {
      fail.add("offer {} ({}, {}) delivered by the RTL; the ingress must drop it ({}, {})", i,
               dir_name(f.dir), sc.offers[i].kind, refmodel::to_string(m.fate), refmodel::to_string(m.parse_drop));
    }
    // Source binding, independent of the model: a bound source's frame is its tenant's.
    if (f.dir == Direction::kTx) {
      const refmodel::SourceTable bound = sc.tx_identity.in_force();
      const std::uint32_t s = sc.offers[i].source;
      if (s < bound.size() && bound[s].bound && f.tenant != bound[s].tenant) {
        fail.add("offer {} from source {} (bound to tenant {}) left in tenant {}'s queue (class {})", i, s,
                 bound[s].tenant, f.tenant, f.cls);
      }
    }
  }

  // ---- 2. admissions: exact unless timing decides
  std::uint32_t max_len = 0;
  for (const Offer& o : sc.offers) max_len = std::max<std::uint32_t>(max_len, static_cast<std::uint32_t>(o.bytes.size()));
  std::uint32_t max_quantum = 0;
  bool dwrr = false;
  std::uint64_t max_hold = 0;
  for (const Commit& c : sc.commits) {
    dwrr = dwrr || c.cfg.arb_mode == refmodel::ArbMode::kDwrr || c.cfg.arb_mode == refmodel::ArbMode::kSpDwrr;
    for (const auto& t : c.cfg.tenants) max_quantum = std::max(max_quantum, t.weight);
    max_hold = std::max(max_hold, refmodel::crypto_hold_cycles(max_len, c.cfg.crypto_bytes_per_cycle,
                                                                c.cfg.crypto_latency));
  }
  const auto db = static_cast<std::int64_t>(sc.params.data_bytes);
  // RX always arbitrates by DWRR.
  const std::int64_t base_slack = 16 * db + 2 * static_cast<std::int64_t>(max_len) +
                                  static_cast<std::int64_t>(max_quantum);
  std::vector<bool> crypto_queue[2];
  for (int d = 0; d < 2; ++d) crypto_queue[d].assign(nt * 2, false);
  for (std::size_t i = 0; i < n; ++i) {
    const FrameRecord& m = run.model[i];
    if (!ingress_drop(m) && m.action.crypto_op != CryptoOp::kNone) {
      crypto_queue[static_cast<int>(m.dir)][queue_of(m)] = true;
    }
  }
  // A pause of one output couples the other direction's crypto queues of a tenant with
  // crypto frames in the paused direction to timing: the paused direction's finished frames
  // keep their slots (and the tenant's shared quota units) for the whole pause, and how many
  // of them there are when it begins depends on where the claims stood, which the input
  // latency, the tready each output sees (the RTL's output runs a few clocks behind the
  // model's) and timing-dependent admissions in the paused direction decide. The other
  // direction's queue may then wait for a slot for up to the pause in one and not in the
  // other, and a backlogged queue keeps that lag (regression seeds 45 and 170: RX queues of
  // the tenant starved for a whole TX pause in the RTL and not in the model; seed 45 passes
  // or fails with the model's tready shifted by one clock). From the first such pause on,
  // the queue's admissions are timing-dependent. Likewise for every crypto queue of the
  // other direction when the paused direction's crypto tenants may hold the whole pool
  // (their largest quotas add up to the slots or more).
  std::vector<bool> crypto_tenant[2];
  bool may_fill_pool[2] = {false, false};
  for (int d = 0; d < 2; ++d) {
    crypto_tenant[d].assign(nt, false);
    for (std::uint32_t q = 0; q < nt * 2; ++q) {
      if (crypto_queue[d][q]) crypto_tenant[d][q / 2] = true;
    }
    std::uint64_t quotas = 0;
    for (std::uint32_t t = 0; t < nt; ++t) {
      if (!crypto_tenant[d][t]) continue;
      std::uint32_t most = 0;
      for (const Commit& c : sc.commits) most = std::max(most, c.cfg.tenants[t].crypto_quota);
      quotas += most;
    }
    may_fill_pool[d] = quotas >= static_cast<std::uint64_t>(sc.params.crypto_slots);
  }
  constexpr std::uint64_t kNever = ~std::uint64_t{0};
  std::vector<std::uint64_t> pause_coupled_from[2];
  for (int d = 0; d < 2; ++d) pause_coupled_from[d].assign(nt * 2, kNever);
  for (const Pause& p : sc.pauses) {
    const int pd = static_cast<int>(p.dir);
    const int d = 1 - pd;
    for (std::uint32_t q = 0; q < nt * 2; ++q) {
      if (crypto_queue[d][q] && (crypto_tenant[pd][q / 2] || may_fill_pool[pd])) {
        pause_coupled_from[d][q] = std::min(pause_coupled_from[d][q], p.begin);
      }
    }
  }
  std::vector<std::size_t> by_arrival(n);
  for (std::size_t i = 0; i < n; ++i) by_arrival[i] = i;
  std::stable_sort(by_arrival.begin(), by_arrival.end(),
                   [&](std::size_t a, std::size_t b) { return run.arrival[a] < run.arrival[b]; });
  std::vector<bool> diverged_q[2];
  for (int d = 0; d < 2; ++d) diverged_q[d].assign(nt * 2, false);
  // What the RTL and the model hold when a frame arrives, from their own frame records
  // (admitted before it, not yet gone). Where a tenant's crypto slots are shared by its TX
  // and RX frames, which direction wins a slot depends on a few clocks of timing (the
  // same coupling as under a pause, above), so the RTL may serve a queue behind or ahead
  // of the model for a long time and hold more or less of the buffer; an admission is only
  // exact when it clears by more than that difference. A cell the RTL leaks is not in its
  // records, so it still shows as a miss.
  const std::int64_t cell = static_cast<std::int64_t>(sc.params.cell_bytes);
  auto cells_of = [&](std::size_t i) {
    return (static_cast<std::int64_t>(run.model[i].len) + cell - 1) / cell;
  };
  struct Held {
    std::vector<std::pair<std::uint64_t, std::size_t>> leave;  // (departure cycle, offer), earliest first
    std::size_t next = 0;
    std::int64_t cells[2] = {0, 0};
    std::vector<std::int64_t> bytes[2];
  };
  Held held_by[2];  // [0]: the model, [1]: the RTL
  for (Held& h : held_by) {
    for (int d = 0; d < 2; ++d) h.bytes[d].assign(nt * 2, 0);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (run.model[i].fate == Fate::kDelivered) held_by[0].leave.push_back({run.model[i].last_beat, i});
    if (rtl_of[i] >= 0) held_by[1].leave.push_back({run.rtl[static_cast<std::size_t>(rtl_of[i])].last_cycle, i});
  }
  for (Held& h : held_by) std::sort(h.leave.begin(), h.leave.end());
  // Frames leave before `now`; a frame is held from its arrival.
  auto hold = [&](Held& h, std::size_t i, std::int64_t sign) {
    const int d = static_cast<int>(run.model[i].dir);
    h.cells[d] += sign * cells_of(i);
    h.bytes[d][queue_of(run.model[i])] += sign * static_cast<std::int64_t>(run.model[i].len);
  };
  auto advance = [&](Held& h, std::uint64_t now) {
    for (; h.next < h.leave.size() && h.leave[h.next].first < now; ++h.next) hold(h, h.leave[h.next].second, -1);
  };
  // Bytes (in whole cells) by which the RTL's buffer may differ from the model's after
  // timing-dependent decisions went the other way.
  std::int64_t diverged_bytes[2] = {0, 0};
  bool any_divergence = false;
  std::vector<bool> ambiguous(n, false);
  std::map<std::tuple<int, std::uint32_t, bool>, std::pair<std::size_t, std::string>> admission_misses;
  for (std::size_t i : by_arrival) {
    const FrameRecord& m = run.model[i];
    if (ingress_drop(m) || m.fate == Fate::kPending || m.fate == Fate::kQueued) continue;
    const int d = static_cast<int>(m.dir);
    const std::uint32_t q = queue_of(m);
    for (Held& h : held_by) advance(h, run.arrival[i]);
    const std::int64_t queue_lag = std::llabs(held_by[1].bytes[d][q] - held_by[0].bytes[d][q]);
    const std::int64_t buffer_lag = std::llabs(held_by[1].cells[d] - held_by[0].cells[d]) * cell;
    if (m.fate == Fate::kDelivered) hold(held_by[0], i, +1);
    if (rtl_of[i] >= 0) hold(held_by[1], i, +1);
    std::int64_t slack = base_slack;
    if (crypto_queue[d][q]) slack += static_cast<std::int64_t>(max_hold) * db;
    // A queue frozen (tenant off) for a while can still differ by the one frame the RTL
    // and the model dispatched, or not, in the clock the commit took effect.
    const bool q_exact = (m.queue_frozen_for > 64 && std::llabs(m.queue_margin) > static_cast<std::int64_t>(max_len)) ||
                         std::llabs(m.queue_margin) > slack + queue_lag;
    const bool b_exact = std::llabs(m.buffer_margin) > slack * 2 + diverged_bytes[d] + buffer_lag;
    const bool amb = diverged_q[d][q] || !q_exact || !b_exact || near_commit(run, run.arrival[i]) ||
                     run.arrival[i] >= pause_coupled_from[d][q];
    ambiguous[i] = amb;
    const bool model_delivers = m.fate == Fate::kDelivered;
    // A drop near a full buffer may be a buffer drop in one and a tail drop in the other:
    // the per-reason counters are then not compared with the model's.
    if (!b_exact && !model_delivers) any_divergence = true;
    const bool rtl_delivers = rtl_of[i] >= 0;
    if (amb) {
      ++rep.ambiguous;
      if (model_delivers != rtl_delivers) {
        any_divergence = true;
        diverged_q[d][q] = true;
        diverged_bytes[d] += (static_cast<std::int64_t>(m.len) + cell - 1) / cell * cell;
      }
      continue;
    }
    ++rep.exact_admissions;
    if (model_delivers != rtl_delivers) {
      auto& [count, first] = admission_misses[{d, q, model_delivers}];
      if (count++ == 0) {
        first = fmt::format("offer {} ({} bytes, tlast at {}, queue margin {} B, buffer margin {} B)", i, m.len,
                            run.arrival[i], m.queue_margin, m.buffer_margin);
      }
    }
  }
  for (const auto& [key, v] : admission_misses) {
    const auto& [d, q, model_delivers] = key;
    fail.add("{} queue {}: {} frames the model {} were {} by the RTL although the decision does not depend on "
             "timing; first: {}", dir_name(static_cast<Direction>(d)), q, v.first,
             model_delivers ? "delivers" : "drops", model_delivers ? "never delivered" : "delivered", v.second);
  }

  // ---- 3. per-queue order
  std::map<std::pair<int, std::uint32_t>, std::vector<std::size_t>> per_queue;  // arrival order
  for (std::size_t i : by_arrival) {
    if (rtl_of[i] >= 0) per_queue[{static_cast<int>(run.model[i].dir), queue_of(run.model[i])}].push_back(i);
  }
  for (const auto& [key, ids] : per_queue) {
    std::size_t last_plain = n;
    std::size_t overtakes = 0;
    std::string first_overtake;
    for (std::size_t k = 0; k < ids.size(); ++k) {
      const std::size_t i = ids[k];
      const RtlFrame& f = run.rtl[static_cast<std::size_t>(rtl_of[i])];
      const bool crypto = run.model[i].action.crypto_op != CryptoOp::kNone;
      if (!crypto) {
        if (last_plain != n && run.rtl[static_cast<std::size_t>(rtl_of[last_plain])].last_cycle > f.last_cycle) {
          fail.add("{} queue {}: plain frames out of order: offer {} (tlast {}) left at {}, after offer {} "
                   "(tlast {}) left at {}", dir_name(static_cast<Direction>(key.first)), key.second, last_plain,
                   run.arrival[last_plain], run.rtl[static_cast<std::size_t>(rtl_of[last_plain])].last_cycle, i,
                   run.arrival[i], f.last_cycle);
        }
        last_plain = i;
      } else if (k > 0) {
        const std::size_t j = ids[k - 1];
        const bool j_crypto = run.model[j].action.crypto_op != CryptoOp::kNone;
        if (j_crypto && run.rtl[static_cast<std::size_t>(rtl_of[j])].last_cycle > f.last_cycle &&
            run.model[i].len >= run.model[j].len) {
          if (overtakes++ == 0) {
            first_overtake = fmt::format("offer {} ({} B, tlast {}) left at {}, before the earlier offer {} ({} B, "
                                         "tlast {}) at {}", i, run.model[i].len, run.arrival[i], f.last_cycle, j,
                                         run.model[j].len, run.arrival[j],
                                         run.rtl[static_cast<std::size_t>(rtl_of[j])].last_cycle);
          }
        }
      }
    }
    if (overtakes > 0) {
      fail.add("{} queue {}: {} crypto frames overtook an earlier, not longer crypto frame of the queue "
               "(holds end in claim order for equal lengths), first: {}", dir_name(static_cast<Direction>(key.first)),
               key.second, overtakes, first_overtake);
    }
  }

  // ---- 4. counters after the drain, against what the RTL delivered
  const refmodel::Telemetry& rc = run.rtl_counters;
  const refmodel::Telemetry& mc = run.model_counters;
  std::vector<std::uint64_t> pkts(nt * 2, 0), bytes(nt * 2, 0), undelivered(nt * 2, 0), lat_sum(nt * 2, 0),
      lat_max(nt * 2, 0), biggest(nt * 2, 0);
  std::vector<std::size_t> lat_max_offer(nt * 2, 0);
  std::vector<std::uint64_t> cr_pkts[2], cr_bytes[2], cr_busy[2];
  for (int d = 0; d < 2; ++d) {
    cr_pkts[d].assign(nt, 0);
    cr_bytes[d].assign(nt, 0);
    cr_busy[d].assign(nt, 0);
  }
  std::uint64_t not_parse_dropped_undelivered = 0;
  const refmodel::Config& engine = sc.commits.front().cfg;
  for (std::size_t i = 0; i < n; ++i) {
    const FrameRecord& m = run.model[i];
    if (ingress_drop(m) || m.fate == Fate::kPending) continue;
    const std::uint32_t q = queue_of(m);
    if (rtl_of[i] < 0) {
      ++undelivered[q];
      ++not_parse_dropped_undelivered;
      ++rep.dropped;
      continue;
    }
    ++rep.delivered;
    const RtlFrame& f = run.rtl[static_cast<std::size_t>(rtl_of[i])];
    ++pkts[q];
    bytes[q] += m.len;
    biggest[q] = std::max<std::uint64_t>(biggest[q], m.len);
    const std::uint64_t lat = f.first_cycle - run.arrival[i];
    lat_sum[q] += lat;
    if (lat > lat_max[q]) {
      lat_max[q] = lat;
      lat_max_offer[q] = i;
    }
    if (m.action.crypto_op != CryptoOp::kNone) {
      const int d = static_cast<int>(m.dir);
      ++cr_pkts[d][m.action.tenant];
      cr_bytes[d][m.action.tenant] += m.len;
      cr_busy[d][m.action.tenant] += refmodel::crypto_hold_cycles(m.len, engine.crypto_bytes_per_cycle, engine.crypto_latency);
    }
  }
  std::uint64_t drop_sum = 0;
  if (!admission_misses.empty()) {
    std::uint64_t rq = 0, mq = 0;
    for (std::uint32_t q = 0; q < nt * 2; ++q) {
      rq += rc.queues[q].drop_pkts;
      mq += mc.queues[q].drop_pkts;
    }
    fail.add("drops so far: RTL PRS_BUF_DROP TX/RX {}/{}, Q_DROP_PKTS {}; model {}/{}, {}", rc.parser[0].buf_drop,
             rc.parser[1].buf_drop, rq, mc.parser[0].buf_drop, mc.parser[1].buf_drop, mq);
  }
  for (std::uint32_t q = 0; q < nt * 2; ++q) {
    const refmodel::QueueCounters& c = rc.queues[q];
    drop_sum += c.drop_pkts;
    if (c.enq_pkts != pkts[q] || c.enq_bytes != bytes[q] || c.tx_pkts != pkts[q] || c.tx_bytes != bytes[q]) {
      fail.add("queue {}: Q_ENQ {} pkts/{} B, Q_TX {} pkts/{} B; the RTL delivered {} pkts/{} B", q,
               c.enq_pkts, c.enq_bytes, c.tx_pkts, c.tx_bytes, pkts[q], bytes[q]);
    }
    if (c.drop_pkts > undelivered[q]) {
      fail.add("queue {}: Q_DROP_PKTS {} but only {} of its frames went missing", q, c.drop_pkts, undelivered[q]);
    }
    if (c.lat_count != pkts[q]) fail.add("queue {}: Q_LAT_COUNT {} != {} delivered", q, c.lat_count, pkts[q]);
    const std::uint64_t lo = lat_sum[q] > kLatencyBelow * pkts[q] ? lat_sum[q] - kLatencyBelow * pkts[q] : 0;
    if (c.lat_sum < lo || c.lat_sum > lat_sum[q] + kLatencyAbove * pkts[q]) {
      fail.add("queue {}: Q_LAT_SUM {} vs {} seen at the ports over {} frames (-{}/+{} each allowed)", q,
               c.lat_sum, lat_sum[q], pkts[q], kLatencyBelow, kLatencyAbove);
    }
    if (pkts[q] > 0 && (c.lat_max + kLatencyBelow < lat_max[q] || c.lat_max > lat_max[q] + kLatencyAbove)) {
      const std::size_t w = lat_max_offer[q];
      fail.add("queue {}: Q_LAT_MAX {} vs {} seen at the ports (offer {}: {}{}, tlast at {}, first beat at {})", q,
               c.lat_max, lat_max[q], w, dir_name(run.model[w].dir),
               run.model[w].action.crypto_op != CryptoOp::kNone ? " crypto" : "", run.arrival[w],
               run.rtl[static_cast<std::size_t>(rtl_of[w])].first_cycle);
    }
    if (c.depth_bytes != 0 || c.depth_pkts != 0) {
      fail.add("queue {}: Q_DEPTH {} B / {} pkts after the drain", q, c.depth_bytes, c.depth_pkts);
    }
    if (c.depth_hwm < biggest[q]) {
      fail.add("queue {}: Q_DEPTH_HWM {} below its largest frame {}", q, c.depth_hwm, biggest[q]);
    }
    if (!any_divergence && c.drop_pkts != mc.queues[q].drop_pkts) {
      fail.add("queue {}: Q_DROP_PKTS {} vs model {} (no timing-dependent drop)", q, c.drop_pkts, mc.queues[q].drop_pkts);
    }
  }
  const std::uint64_t buf_drops = rc.parser[0].buf_drop + rc.parser[1].buf_drop;
  if (drop_sum + buf_drops != not_parse_dropped_undelivered) {
    fail.add("drops: Q_DROP_PKTS total {} + PRS_BUF_DROP {} != {} frames that went missing", drop_sum,
             buf_drops, not_parse_dropped_undelivered);
  }
  for (std::size_t d = 0; d < 2; ++d) {
    const refmodel::ParserCounters& a = rc.parser[d];
    const refmodel::ParserCounters& b = mc.parser[d];
    if (a.frames != b.frames || a.runt != b.runt || a.truncated != b.truncated || a.bad_ihl != b.bad_ihl ||
        a.unknown_etype != b.unknown_etype) {
      fail.add("PARSER[{}]: frames/runt/truncated/bad-ihl/unknown {}/{}/{}/{}/{}, model {}/{}/{}/{}/{}", d,
               a.frames, a.runt, a.truncated, a.bad_ihl, a.unknown_etype, b.frames, b.runt, b.truncated,
               b.bad_ihl, b.unknown_etype);
    }
    if (!any_divergence && a.buf_drop != b.buf_drop) {
      fail.add("PARSER[{}]: PRS_BUF_DROP {} vs model {}", d, a.buf_drop, b.buf_drop);
    }
  }
  for (std::uint32_t t = 0; t < nt; ++t) {
    const refmodel::CryptoCounters& c = rc.crypto[t];
    if (c.tx_pkts != cr_pkts[0][t] || c.tx_bytes != cr_bytes[0][t] || c.rx_pkts != cr_pkts[1][t] ||
        c.rx_bytes != cr_bytes[1][t]) {
      fail.add("tenant {}: CR_TX {} pkts/{} B, CR_RX {} pkts/{} B; delivered through crypto: TX {}/{}, RX {}/{}",
               t, c.tx_pkts, c.tx_bytes, c.rx_pkts, c.rx_bytes, cr_pkts[0][t], cr_bytes[0][t], cr_pkts[1][t],
               cr_bytes[1][t]);
    }
    if (c.tx_busy != cr_busy[0][t] || c.rx_busy != cr_busy[1][t]) {
      fail.add("tenant {}: CR_TX_BUSY {} / CR_RX_BUSY {} slot-cycles; sum of ceil(len/bpc)+latency: {} / {}", t,
               c.tx_busy, c.rx_busy, cr_busy[0][t], cr_busy[1][t]);
    }
    if ((cr_pkts[0][t] == 0 && c.tx_wait != 0) || (cr_pkts[1][t] == 0 && c.rx_wait != 0)) {
      fail.add("tenant {}: crypto wait TX {} RX {} cycles without any crypto frame", t, c.tx_wait, c.rx_wait);
    }
    if (c.slots_held != 0) fail.add("tenant {}: CR_SLOTS_HELD {} after the drain", t, c.slots_held);
  }
  if (rc.crypto_busy_slots != 0) fail.add("CRYPTO_BUSY {} after the drain", rc.crypto_busy_slots);
  if (run.rtl_spoofed != run.model_spoofed) {
    for (std::size_t s = 0; s < std::max(run.rtl_spoofed.size(), run.model_spoofed.size()); ++s) {
      const std::uint64_t a = s < run.rtl_spoofed.size() ? run.rtl_spoofed[s] : 0;
      const std::uint64_t b = s < run.model_spoofed.size() ? run.model_spoofed[s] : 0;
      if (a != b) fail.add("source {}: SRC_SPOOF {}, model {}", s, a, b);
    }
  }
  if (rc.config_gen != sc.commits.size()) {
    fail.add("CONFIG_GEN {} after {} commits", rc.config_gen, sc.commits.size());
  }
  if (rc.tx_buf_full != (rc.parser[0].buf_drop > 0) || rc.rx_buf_full != (rc.parser[1].buf_drop > 0)) {
    fail.add("STATUS TX/RX_BUF_FULL {}/{} with PRS_BUF_DROP {}/{}", rc.tx_buf_full, rc.rx_buf_full,
             rc.parser[0].buf_drop, rc.parser[1].buf_drop);
  }

  // ---- 5. strict priority (TX): per stretch between commits, per level, the latest
  // departure among frames of that level that arrived by each cycle (prefix maximum).
  struct Cand {
    std::uint64_t arrival, first;  // arrival: when it became an eligible head (see below)
    std::size_t offer;
    std::uint64_t since;           // `arrival` of `offer` (after the prefix maximum)
  };
  bool tx_crypto_tenant[64] = {};
  for (std::size_t i = 0; i < n; ++i) {
    const FrameRecord& m = run.model[i];
    if (m.dir == Direction::kTx && !ingress_drop(m) && m.action.crypto_op != CryptoOp::kNone) {
      tx_crypto_tenant[m.action.tenant] = true;
    }
  }
  // first beat index of every plain TX frame the RTL sent, in output order
  std::vector<std::uint64_t> tx_plain_starts;
  for (std::size_t i = 0; i < n; ++i) {
    const FrameRecord& m = run.model[i];
    if (m.dir == Direction::kTx && rtl_of[i] >= 0 && m.action.crypto_op == CryptoOp::kNone) {
      tx_plain_starts.push_back(run.rtl[static_cast<std::size_t>(rtl_of[i])].first_beat_index);
    }
  }
  std::sort(tx_plain_starts.begin(), tx_plain_starts.end());
  for (std::size_t seg = 0; seg < sc.commits.size(); ++seg) {
    const refmodel::Config& cfg = sc.commits[seg].cfg;
    if (cfg.arb_mode != refmodel::ArbMode::kSp && cfg.arb_mode != refmodel::ArbMode::kSpDwrr) continue;
    if (!cfg.enable) continue;
    const std::uint64_t from = (seg == 0 ? 0 : run.commit_cycle[seg]) + kCommitGuard;
    const std::uint64_t to = seg + 1 < sc.commits.size() && run.commit_cycle[seg + 1] != 0
                                 ? run.commit_cycle[seg + 1]
                                 : run.end_cycle;
    // A waiting frame counts from when it was the head of its queue and eligible: its
    // tlast + kEligibleDelay, and not before the previous frame of its queue started
    // (a queue's next head is valid the clock after the dequeue, which comes before the
    // dequeued frame's first beat).
    std::vector<Cand> by_level[4];
    std::vector<std::vector<Cand>> ctrl_of(nt);
    std::vector<std::uint64_t> prev_start(nt * 2, 0);
    for (std::size_t i : by_arrival) {
      const FrameRecord& m = run.model[i];
      if (m.dir != Direction::kTx || rtl_of[i] < 0) continue;
      const std::uint32_t t = m.action.tenant;
      const std::uint64_t first = run.rtl[static_cast<std::size_t>(rtl_of[i])].first_cycle;
      const std::uint64_t head_since = std::max(run.arrival[i] + kEligibleDelay, prev_start[queue_of(m)]);
      prev_start[queue_of(m)] = first;
      if (run.arrival[i] < from || run.arrival[i] >= to) continue;
      if (tx_crypto_tenant[t] || cfg.tenants[t].rate_limited || !cfg.tenants[t].enable) continue;
      const Cand c{head_since, first, i, head_since};
      by_level[cfg.tenants[t].priority].push_back(c);
      if (m.action.cls == 0) ctrl_of[t].push_back(c);
    }
    auto by_key = [](const Cand& a, const Cand& b) { return a.arrival < b.arrival; };
    for (auto& v : by_level) std::sort(v.begin(), v.end(), by_key);
    for (auto& v : ctrl_of) std::sort(v.begin(), v.end(), by_key);
    auto prefix_max = [](std::vector<Cand>& v) {
      for (std::size_t k = 1; k < v.size(); ++k) {
        if (v[k - 1].first > v[k].first) {
          v[k].first = v[k - 1].first;
          v[k].offer = v[k - 1].offer;
          v[k].since = v[k - 1].since;
        }
      }
    };
    for (auto& v : by_level) prefix_max(v);
    for (auto& v : ctrl_of) prefix_max(v);
    auto latest_waiting = [](const std::vector<Cand>& v, std::uint64_t by) -> const Cand* {
      auto it = std::upper_bound(v.begin(), v.end(), by, [](std::uint64_t x, const Cand& c) { return x < c.arrival; });
      if (it == v.begin()) return nullptr;
      return &*(it - 1);
    };
    for (std::size_t i = 0; i < n; ++i) {
      const FrameRecord& m = run.model[i];
      if (m.dir != Direction::kTx || rtl_of[i] < 0 || m.action.crypto_op != CryptoOp::kNone) continue;
      const RtlFrame& f = run.rtl[static_cast<std::size_t>(rtl_of[i])];
      if (f.first_cycle < from || f.first_cycle >= to) continue;
      // the plain TX frame kPlainAhead places before f in output order
      const auto pos = std::lower_bound(tx_plain_starts.begin(), tx_plain_starts.end(), f.first_beat_index);
      if (static_cast<std::size_t>(pos - tx_plain_starts.begin()) < kPlainAhead) continue;
      const std::uint64_t ahead_index = *(pos - static_cast<std::ptrdiff_t>(kPlainAhead));
      if (ahead_index < kEgressBeatsAhead) continue;
      const std::uint64_t granted_after = run.beat_cycles[0][ahead_index - kEgressBeatsAhead];
      const std::uint64_t eligible_by = granted_after;
      const std::uint32_t lvl = cfg.tenants[m.action.tenant].priority;
      // With CTRL.CONTROL_LEVEL a control frame may leave above every level (while its
      // tenant's control bucket has tokens): strict priority is checked on bulk frames.
      const std::uint32_t levels_above = cfg.control_level && m.action.cls == 0 ? 0 : lvl;
      for (std::uint32_t hi = 0; hi < levels_above; ++hi) {
        ++rep.sp_pairs_checked;
        const Cand* c = latest_waiting(by_level[hi], eligible_by);
        if (c && c->first > f.first_cycle) {
          fail.add("strict priority: offer {} (tenant {}, level {}) started at {} while offer {} (tenant {}, "
                   "level {}), an eligible head since {}, waited until {}", i, m.action.tenant, lvl, f.first_cycle,
                   c->offer, run.model[c->offer].action.tenant, hi, c->since, c->first);
          break;
        }
      }
      if (m.action.cls == 1) {
        ++rep.sp_pairs_checked;
        const Cand* c = latest_waiting(ctrl_of[m.action.tenant], eligible_by);
        if (c && c->first > f.first_cycle) {
          fail.add("control before bulk: tenant {} bulk offer {} started at {} while its control offer {} "
                   "(an eligible head since {}) waited until {}", m.action.tenant, i, f.first_cycle, c->offer,
                   c->since, c->first);
        }
      }
    }
  }

  // ---- 6. FIFO scenarios: TX departures in arrival order, at a constant offset from the model
  bool fifo_only = true;
  for (const Commit& c : sc.commits) {
    fifo_only = fifo_only && c.cfg.arb_mode == refmodel::ArbMode::kFifo && c.cfg.enable;
    for (const auto& t : c.cfg.tenants) fifo_only = fifo_only && t.enable && !t.rate_limited;
  }
  for (std::uint32_t t = 0; t < nt; ++t) fifo_only = fifo_only && !tx_crypto_tenant[t];
  if (fifo_only && !any_divergence) {
    rep.fifo_order_checked = true;
    std::int64_t lo = 0, hi = 0;
    bool first = true;
    std::size_t prev = n;
    for (std::size_t i : by_arrival) {
      const FrameRecord& m = run.model[i];
      if (m.dir != Direction::kTx || rtl_of[i] < 0) continue;
      const RtlFrame& f = run.rtl[static_cast<std::size_t>(rtl_of[i])];
      if (prev != n && run.rtl[static_cast<std::size_t>(rtl_of[prev])].first_cycle > f.first_cycle) {
        fail.add("FIFO: offer {} (tlast {}) left at {}, before the older offer {} (tlast {}) at {}", i,
                 run.arrival[i], f.first_cycle, prev, run.arrival[prev],
                 run.rtl[static_cast<std::size_t>(rtl_of[prev])].first_cycle);
      }
      prev = i;
      if (m.fate != Fate::kDelivered) continue;
      const std::int64_t delta = static_cast<std::int64_t>(f.first_cycle) - static_cast<std::int64_t>(m.first_beat);
      lo = first ? delta : std::min(lo, delta);
      hi = first ? delta : std::max(hi, delta);
      first = false;
    }
    if (!first && hi - lo > static_cast<std::int64_t>(kFifoJitter)) {
      fail.add("FIFO: RTL departures trail the model's by {}..{} cycles: more than {} cycles of jitter", lo, hi,
               kFifoJitter);
    }
  }
  return rep;
}

}  // namespace nicsched::verif
