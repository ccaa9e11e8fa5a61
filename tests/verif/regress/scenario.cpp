// Constrained-random scenario generation (see scenario.hpp and docs/verification.md).
#include "scenario.hpp"

#include <algorithm>
#include <random>

#include <fmt/format.h>

#include "nicsched/refmodel/parser.hpp"
#include "nicsched/sim/packet.hpp"

namespace nicsched::verif {
namespace {

using refmodel::ClassifierAction;
using refmodel::ClassifierEntry;
using refmodel::Config;
using refmodel::CryptoOp;
using refmodel::Direction;

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : g_(seed * 0x9E3779B97F4A7C15ULL + 12345) {}
  std::uint64_t range(std::uint64_t lo, std::uint64_t hi) {  // inclusive
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(g_);
  }
  std::uint32_t range32(std::uint32_t lo, std::uint32_t hi) {
    return static_cast<std::uint32_t>(range(lo, hi));
  }
  bool chance(double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(g_) < p; }
  double real(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(g_); }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[range(0, v.size() - 1)]; }
  std::mt19937_64& engine() { return g_; }

 private:
  std::mt19937_64 g_;
};

// A traffic flow: the header fields its frames carry (the classifier decides who owns it).
struct Flow {
  bool ipv6 = false;
  int vlan = -1;
  std::uint8_t dscp = 0;
  std::uint8_t proto = sim::kProtoUdp;
  std::uint16_t dport = 0;
  std::size_t ipv4_options = 0;
  double weight = 1.0;
};

enum class SizeMix { kSmall, kUniform, kBimodal, kJumboMix };

std::uint32_t draw_len(Rng& r, SizeMix mix) {
  switch (mix) {
    case SizeMix::kSmall: return 64;
    case SizeMix::kUniform: return r.range32(60, 1518);
    case SizeMix::kBimodal: return r.chance(0.5) ? 64 : 1518;
    case SizeMix::kJumboMix:
      if (r.chance(0.15)) return r.range32(8000, 9000);
      return r.chance(0.5) ? r.range32(60, 256) : r.range32(1000, 1518);
  }
  return 64;
}

std::vector<std::uint8_t> build(Rng& r, const Flow& f, std::uint32_t len, bool pad_to_min = true) {
  sim::PacketSpec s;
  s.pad_to_min = pad_to_min;
  if (f.vlan >= 0) s.vlan_id = static_cast<std::uint16_t>(f.vlan);
  s.l3 = f.ipv6 ? sim::L3Kind::ipv6 : sim::L3Kind::ipv4;
  s.dscp = f.dscp;
  s.protocol = f.proto;
  s.dst_port = f.dport;
  s.ipv4_option_words = f.ipv6 ? 0 : f.ipv4_options;
  s.payload_bytes = 0;
  const std::size_t bare = (f.vlan >= 0 ? 18 : 14) + (f.ipv6 ? 40 : 20 + 4 * s.ipv4_option_words) +
                           (f.proto == sim::kProtoTcp ? 20 : 8);
  // At least 4 random payload bytes, so that every frame's content is unique (outputs are
  // matched to inputs by content): a 64-byte draw on a flow with long headers grows.
  s.payload_bytes = std::max<std::size_t>(len > bare ? len - bare : 0, 4);
  std::vector<std::uint8_t> bytes = sim::build_packet(s);
  // Random payload: makes every frame's content unique, so outputs map back to inputs.
  for (std::size_t i = bare; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(r.range(0, 255));
  return bytes;
}

// Malformed frames for the parser's drop paths.
Offer malformed(Rng& r, const Flow& f, Direction dir) {
  Offer o;
  o.dir = dir;
  Flow g = f;
  g.ipv6 = false;
  g.vlan = -1;
  std::vector<std::uint8_t> b = build(r, g, r.range32(80, 600));
  switch (r.range(0, 3)) {
    case 0:  // a runt on RX; on TX (from 14 bytes up) mostly a cut IP header or datagram
      b.resize(r.range(1, 59));
      o.kind = "runt";
      break;
    case 1:
      b[14] = 0x43;  // version 4, IHL 3
      o.kind = "bad-ihl";
      break;
    case 2: {
      const std::uint32_t total = static_cast<std::uint32_t>(b.size() - 14 + r.range(1, 200));
      b[16] = static_cast<std::uint8_t>(total >> 8);
      b[17] = static_cast<std::uint8_t>(total);
      o.kind = "truncated";
      break;
    }
    default:
      b[12] = 0x88;
      b[13] = 0xB5;
      o.kind = "unknown-etype";
      break;
  }
  o.bytes = std::move(b);
  return o;
}

// What hosts send unpadded and the TX path must carry (padded to 60): a minimal UDP/TCP
// frame of a flow (under 60 bytes where its headers allow), or a non-IP frame (ARP, LLDP,
// PTP, a local experimental ethertype; tagged or not) of 14..120 bytes. On RX the short
// ones are runts.
Offer host_frame(Rng& r, const Flow& f, Direction dir) {
  Offer o;
  o.dir = dir;
  if (r.chance(0.5)) {
    Flow g = f;
    g.ipv6 = false;
    g.ipv4_options = 0;
    std::vector<std::uint8_t> b = build(r, g, 0, false);  // the flow's headers + 4 random bytes, unpadded
    const std::size_t n = b.size();
    if (n < 60) b.resize(r.range(n, 59));  // sometimes a few bytes after the datagram
    for (std::size_t i = n; i < b.size(); ++i) b[i] = static_cast<std::uint8_t>(r.range(0, 255));
    o.bytes = std::move(b);
    o.kind = "short";
    return o;
  }
  static const std::vector<std::uint32_t> kEthertypes = {0x0806, 0x88CC, 0x88F7, 0x88B5};
  const bool tagged = r.chance(0.3);
  const std::size_t hdr = tagged ? 18 : 14;
  std::vector<std::uint8_t> b(hdr + r.range(4, 106));
  for (auto& x : b) x = static_cast<std::uint8_t>(r.range(0, 255));  // random MACs and payload
  const std::uint32_t et = r.pick(kEthertypes);
  if (tagged) {
    b[12] = 0x81;
    b[13] = 0x00;
  }
  b[hdr - 2] = static_cast<std::uint8_t>(et >> 8);
  b[hdr - 1] = static_cast<std::uint8_t>(et);
  o.bytes = std::move(b);
  o.kind = "non-ip";
  return o;
}

refmodel::TenantConfig random_tenant(Rng& r, bool keeps_limits, const refmodel::TenantConfig& old) {
  refmodel::TenantConfig t;
  t.enable = true;
  t.priority = r.range32(0, 3);
  // 0 (counts as 1 byte) and 1: the arbiter then collapses thousands of rounds into one.
  static const std::vector<std::uint32_t> quanta = {0, 1, 64, 256, 1500, 3000, 9000};
  t.weight = r.chance(0.7) ? r.pick(quanta) : r.range32(64, 16000);
  t.rate_limited = r.chance(0.25);
  t.rate_bytes_per_kcycle = r.range32(4096, 40000);
  t.burst_bytes = r.range32(2000, 20000);
  t.crypto_quota = r.range32(1, 4);
  // Control buckets that run dry under the control flows (their frames then fall back to the
  // tenant's level) and ones that rarely do; bursts from one minimum frame up.
  t.ctrl_rate_bytes_per_kcycle = r.chance(0.5) ? r.range32(0, 4096) : r.range32(4096, 65536);
  t.ctrl_burst_bytes = r.range32(64, 16384);
  if (keeps_limits) {
    t.qlimit_control_bytes = old.qlimit_control_bytes;
    t.qlimit_bulk_bytes = old.qlimit_bulk_bytes;
    // A lowered burst, below the tokens a full bucket holds: the bucket must drop to it.
    if (r.chance(0.3)) {
      t.rate_limited = true;
      t.burst_bytes = std::max<std::uint32_t>(old.burst_bytes / 4, 64);
    }
  } else {
    t.qlimit_control_bytes = r.chance(0.3) ? 0xFFFFFF : r.range32(4096, 65536);
    t.qlimit_bulk_bytes = r.chance(0.3) ? 0xFFFFFF : r.range32(8192, 131072);
  }
  return t;
}

}  // namespace

Scenario make_scenario(std::uint64_t seed, const refmodel::Params& p, std::uint32_t sources, const ScenarioLimits& lim) {
  Rng r(seed);
  Scenario sc;
  sc.seed = seed;
  sc.params = p;
  const auto nt = static_cast<std::uint32_t>(p.num_tenants);
  const std::uint32_t active = r.range32(std::min<std::uint32_t>(2, nt), nt);
  sc.traffic_cycles = r.range(lim.min_cycles, lim.max_cycles);

  // ---- initial configuration
  Config cfg = reset_config(p);
  cfg.arb_mode = static_cast<refmodel::ArbMode>(r.range(0, 3));
  cfg.crypto_bytes_per_cycle = r.pick(std::vector<std::uint32_t>{4, 8, 16, 32, 64});
  cfg.crypto_latency = r.range32(0, 64);
  cfg.bad_to_default = r.chance(0.8);  // 1 is the reset value: non-IP frames get DEFAULT_ACTION
  cfg.control_level = r.chance(0.75);  // 1 is the reset value
  cfg.default_action = ClassifierAction{r.range32(0, active - 1), r.range32(0, 1), CryptoOp::kNone};
  for (std::uint32_t t = 0; t < nt; ++t) cfg.tenants[t] = random_tenant(r, false, cfg.tenants[t]);

  // ---- flows and classifier: entry i matches flow i (exactly on the port, sometimes on
  // more fields); a few wildcard entries shadow later ones (first match wins).
  const std::size_t nflows = r.range(3, std::min<std::size_t>(15, static_cast<std::size_t>(p.num_cls_entries) - 1));
  std::vector<Flow> flows;
  for (std::size_t i = 0; i < nflows; ++i) {
    Flow f;
    f.ipv6 = r.chance(0.3);
    f.vlan = r.chance(0.4) ? static_cast<int>(r.range(1, 4094)) : -1;
    f.dscp = static_cast<std::uint8_t>(r.pick(std::vector<std::uint32_t>{0, 10, 26, 46}));
    f.proto = r.chance(0.8) ? sim::kProtoUdp : sim::kProtoTcp;
    f.dport = static_cast<std::uint16_t>(20000 + i * 7 + r.range(0, 6));
    f.ipv4_options = r.chance(0.2) ? r.range(1, 4) : 0;
    f.weight = r.real(0.2, 3.0);
    flows.push_back(f);
  }
  for (std::size_t i = 0; i < nflows; ++i) {
    ClassifierEntry& e = cfg.classifier[i];
    const Flow& f = flows[i];
    e.valid = r.chance(0.95);
    e.port = f.dport;
    e.port_mask = 0xFFFF;
    if (r.chance(0.4)) {
      e.dscp = f.dscp;
      e.dscp_mask = 0x3F;
    }
    if (f.vlan >= 0 && r.chance(0.4)) {
      e.vlan = static_cast<std::uint32_t>(f.vlan);
      e.vlan_mask = 0xFFF;
    }
    if (r.chance(0.1)) {  // wildcard on DSCP only: takes every later flow of that DSCP
      e.port_mask = 0;
      e.dscp = f.dscp;
      e.dscp_mask = 0x3F;
    }
    const double u = r.real(0, 1);
    const CryptoOp op = u < 0.7 ? CryptoOp::kNone : u < 0.85 ? CryptoOp::kEncrypt : CryptoOp::kDecrypt;
    e.action = ClassifierAction{r.range32(0, active - 1), r.range32(0, 1), op};
  }
  sc.commits.push_back({0, cfg, "initial"});

  // ---- traffic per direction
  const SizeMix mix = static_cast<SizeMix>(r.range(0, 3));
  static const char* mix_names[] = {"64B", "uniform", "bimodal", "jumbo-mix"};
  const bool malformed_on = r.chance(0.5);
  // Short and non-IP frames, in their own random stream so that the draws above and below
  // are those of a seed without them.
  Rng rh(seed ^ 0x0E7A8F3ULL);
  const bool host_frames_on = rh.chance(0.6);
  std::uint64_t frames[2] = {0, 0};
  double total_w = 0;
  for (const Flow& f : flows) total_w += f.weight;
  for (int d = 0; d < 2; ++d) {
    const Direction dir = static_cast<Direction>(d);
    const double load = d == 0 ? r.real(0.3, 1.3) : r.real(0.1, 0.9);  // of 64 B per cycle
    double t = static_cast<double>(r.range(50, 500));
    while (t < static_cast<double>(sc.traffic_cycles)) {
      double x = r.real(0, total_w);
      std::size_t fi = 0;
      while (fi + 1 < flows.size() && x > flows[fi].weight) x -= flows[fi++].weight;
      Offer o;
      if (malformed_on && r.chance(0.03)) {
        o = malformed(r, flows[fi], dir);
      } else if (host_frames_on && rh.chance(0.05)) {
        o = host_frame(rh, flows[fi], dir);
      } else {
        o.dir = dir;
        o.kind = "ok";
        o.bytes = build(r, flows[fi], draw_len(r, mix));
      }
      o.ready_cycle = static_cast<std::uint64_t>(t);
      t += static_cast<double>(o.bytes.size()) / (64.0 * load) * r.real(0.5, 1.5);
      sc.offers.push_back(std::move(o));
      ++frames[d];
    }
  }

  // ---- TX identity, in a stream of its own (the draws above and below are those of a seed
  // without it): source binding in two seeds of three, each source bound (or not) to a
  // random tenant, spoofs kept or dropped; every TX frame from a random source (a few
  // beyond the table: unbound). The flows' rows name random tenants, so a bound source's
  // frames name other tenants (spoofs), its own, or no row at all.
  Rng rs(seed ^ 0x5B00F5ULL);
  sc.tx_identity.source_mode = rs.chance(0.67);
  for (std::uint32_t i = 0; i < sources; ++i) {
    sc.tx_identity.sources.push_back({rs.chance(0.8), rs.range32(0, nt - 1), rs.chance(0.5)});
  }
  std::uint32_t bound = 0;
  for (const auto& b : sc.tx_identity.sources) bound += b.bound ? 1 : 0;
  for (Offer& o : sc.offers) {
    if (o.dir == Direction::kTx) o.source = (sources == refmodel::kMaxSources || rs.chance(0.95)) ? rs.range32(0, sources - 1)
                                                                         : rs.range32(sources, refmodel::kMaxSources - 1);
  }

  // ---- mid-run commits: policy changes (limits, classifier, engine kept), a tenant
  // disabled while it is flooded (deterministic tail drops), egress switched off.
  std::string extras;
  const int changes = static_cast<int>(r.range(0, 3));
  for (int i = 0; i < changes; ++i) {
    Config c = sc.commits.back().cfg;
    if (r.chance(0.3)) c.arb_mode = static_cast<refmodel::ArbMode>(r.range(0, 3));
    if (r.chance(0.3)) c.control_level = !c.control_level;
    for (std::uint32_t t = 0; t < nt; ++t) {
      if (r.chance(0.5)) c.tenants[t] = random_tenant(r, true, c.tenants[t]);
    }
    sc.commits.push_back({r.range(1000, sc.traffic_cycles), c, "policy change"});
    std::sort(sc.commits.begin(), sc.commits.end(), [](const Commit& a, const Commit& b) { return a.cycle < b.cycle; });
  }
  if (changes > 0) extras += fmt::format(" commits={}", changes);
  auto in_force = [&sc](std::uint64_t at) {
    Config x = sc.commits.front().cfg;
    for (const Commit& c : sc.commits) {
      if (c.cycle <= at) x = c.cfg;
    }
    return x;
  };
  if (r.chance(0.4)) {  // one tenant off for a while: its queues fill and tail-drop
    const std::uint64_t b = r.range(1000, sc.traffic_cycles / 2);
    const std::uint64_t e = b + r.range(2000, sc.traffic_cycles / 2);
    const std::uint32_t victim = r.range32(0, active - 1);
    Config off = in_force(b);
    off.tenants[victim].enable = false;
    Config on = in_force(e);
    on.tenants[victim].enable = true;
    for (Commit& c : sc.commits) {
      if (c.cycle > b && c.cycle < e) c.cfg.tenants[victim].enable = false;
    }
    sc.commits.push_back({b, off, fmt::format("tenant {} off", victim)});
    sc.commits.push_back({e, on, fmt::format("tenant {} on", victim)});
    extras += fmt::format(" t{}-off[{},{})", victim, b, e);
  } else if (r.chance(0.15)) {  // egress off
    const std::uint64_t b = r.range(1000, sc.traffic_cycles / 2);
    const std::uint64_t e = b + r.range(1000, 8000);
    Config off = in_force(b);
    off.enable = false;
    Config on = in_force(e);
    on.enable = true;
    for (Commit& c : sc.commits) {
      if (c.cycle > b && c.cycle < e) c.cfg.enable = false;
    }
    sc.commits.push_back({b, off, "egress off"});
    sc.commits.push_back({e, on, "egress on"});
    extras += fmt::format(" egress-off[{},{})", b, e);
  }
  std::stable_sort(sc.commits.begin(), sc.commits.end(), [](const Commit& a, const Commit& b) { return a.cycle < b.cycle; });
  // Final commit: everyone enabled, every quota >= 1, so that every queue drains.
  {
    Config fin = sc.commits.back().cfg;
    fin.enable = true;
    for (auto& t : fin.tenants) {
      t.enable = true;
      t.crypto_quota = std::max<std::uint32_t>(t.crypto_quota, 1);
    }
    sc.commits.push_back({sc.traffic_cycles + 100, fin, "drain"});
  }

  // ---- backpressure
  sc.tx_backpressure = r.chance(0.5) ? r.real(0.05, 0.5) : 0.0;
  sc.rx_backpressure = r.chance(0.3) ? r.real(0.05, 0.3) : 0.0;
  sc.bursty_backpressure = r.chance(0.5);
  sc.input_idle = r.chance(0.3) ? r.real(0.05, 0.3) : 0.0;
  const int npause = static_cast<int>(r.range(0, 2));
  for (int i = 0; i < npause; ++i) {
    const std::uint64_t b = r.range(500, sc.traffic_cycles);
    sc.pauses.push_back({Direction::kTx, b, b + r.range(200, 3000)});
  }

  // ---- AXI4-Lite master stalls, in half the seeds (a stream of their own, so the draws
  // above are the same as without them)
  Rng ra(seed ^ 0x5A17A11ULL);
  if (ra.chance(0.5)) {
    sc.axil_valid_idle = ra.real(0.1, 0.6);
    sc.axil_ready_stall = ra.real(0.1, 0.6);
  }

  sc.summary = fmt::format(
      "seed {}: {} tenants active, mode {}{}, {} flows, sizes {}, {} TX + {} RX frames over {} cycles, "
      "engine {} B/cycle + {}, backpressure tx {:.2f} rx {:.2f}{}, {} pauses{}{}{}, tx identity {}",
      seed, active, regmap::to_string(cfg.arb_mode), cfg.control_level ? " + control level" : "", nflows, mix_names[static_cast<int>(mix)], frames[0],
      frames[1], sc.traffic_cycles, cfg.crypto_bytes_per_cycle, cfg.crypto_latency, sc.tx_backpressure,
      sc.rx_backpressure, sc.bursty_backpressure ? " bursty" : "", npause,
      std::string(malformed_on ? ", malformed frames" : "") + (host_frames_on ? ", short/non-IP frames" : ""),
      sc.axil_valid_idle > 0.0 ? fmt::format(", AXI4-Lite stalls {:.2f}/{:.2f}", sc.axil_valid_idle, sc.axil_ready_stall)
                               : std::string(),
      extras, sc.tx_identity.source_mode ? fmt::format("source ({} of {} sources bound)", bound, sources) : std::string("headers"));
  return sc;
}

}  // namespace nicsched::verif
