// The one register codec of the NIC: its vocabulary (nicsched/nic/types.hpp) in register
// words and back, through the generated field accessors of nicsched/regmap.hpp (no
// address or bit position is written here by hand).
//   encode_config / decode_config        Config <-> the shadowed registers (what COMMIT applies)
//   encode_telemetry / decode_telemetry  Telemetry <-> the SNAPSHOT registers (decode: + CONFIG_GEN, STATUS)
//   encode_tx_identity / decode_tx_identity  TxIdentityConfig <-> TX_IDENTITY and SRC_BIND
//   register_name                        "T_WEIGHT[3]" for an address, for error messages
// Used by the host library (policies, telemetry), the reference model's regression, the
// model backend's register file and the tests. Header-only; no I/O: callers say how a
// word is read or written.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "nicsched/nic/types.hpp"
#include "nicsched/regmap.hpp"

namespace nicsched::nic {

// One register write.
struct RegWrite {
  std::uint32_t addr = 0;
  std::uint32_t value = 0;
};

// Reads the 32-bit word at a byte address (a shadow register, a latched snapshot, ...).
using ReadWord = std::function<std::uint32_t(std::uint32_t addr)>;
// Stores the 32-bit word at a byte address.
using WriteWord = std::function<void(std::uint32_t addr, std::uint32_t value)>;

// Which shadowed registers encode_config writes.
struct ConfigParts {
  bool crypto_engine = true;   // CRYPTO_ENGINE (NIC setup at bring-up: never written by a policy)
  bool default_action = true;  // DEFAULT_ACTION
  bool classifier = true;      // every CLASSIFIER entry of the instance
};

// ------------------------------------------------------------------ configuration

// The shadow writes that express `c`, in address order: CTRL, CRYPTO_ENGINE (unless
// parts.crypto_engine is false, as when a policy is applied),
// DEFAULT_ACTION, then per tenant T_CTRL .. T_CTRL_BURST, then per classifier entry
// CLS_VLAN .. CLS_ACTION (one element per entry of c.tenants / c.classifier). COMMIT is
// not included. Values wider than their field are truncated: validate first.
[[nodiscard]] inline std::vector<RegWrite> encode_config(const Config& c, ConfigParts parts = {}) {
  namespace rm = nicsched::regmap;
  auto b = [](bool v) { return v ? 1U : 0U; };
  std::vector<RegWrite> w;
  w.reserve(3 + 8 * c.tenants.size() + 4 * c.classifier.size());
  std::uint32_t ctrl = 0;
  ctrl = rm::CTRL::ENABLE.set(ctrl, b(c.enable));
  ctrl = rm::CTRL::ARB_MODE.set(ctrl, c.arb_mode);
  ctrl = rm::CTRL::BAD_TO_DEFAULT.set(ctrl, b(c.bad_to_default));
  ctrl = rm::CTRL::CONTROL_LEVEL.set(ctrl, b(c.control_level));
  w.push_back({rm::CTRL::kOffset, ctrl});
  if (parts.crypto_engine) {
    std::uint32_t eng = 0;
    eng = rm::CRYPTO_ENGINE::BYTES_PER_CYCLE.set(eng, c.crypto_bytes_per_cycle);
    eng = rm::CRYPTO_ENGINE::LATENCY.set(eng, c.crypto_latency);
    w.push_back({rm::CRYPTO_ENGINE::kOffset, eng});
  }
  if (parts.default_action) {
    std::uint32_t def = 0;
    def = rm::DEFAULT_ACTION::TENANT.set(def, c.default_action.tenant);
    def = rm::DEFAULT_ACTION::CLASS.set(def, c.default_action.cls);
    def = rm::DEFAULT_ACTION::CRYPTO_OP.set(def, c.default_action.crypto_op);
    w.push_back({rm::DEFAULT_ACTION::kOffset, def});
  }
  for (std::uint32_t t = 0; t < c.tenants.size(); ++t) {
    const TenantConfig& tc = c.tenants[t];
    std::uint32_t tctrl = 0;
    tctrl = rm::T_CTRL::ENABLE.set(tctrl, b(tc.enable));
    tctrl = rm::T_CTRL::PRIORITY.set(tctrl, tc.priority);
    tctrl = rm::T_CTRL::CRYPTO_QUOTA.set(tctrl, tc.crypto_quota);
    tctrl = rm::T_CTRL::RATE_EN.set(tctrl, b(tc.rate_limited));
    w.push_back({rm::T_CTRL::offset(t), tctrl});
    w.push_back({rm::T_WEIGHT::offset(t), rm::T_WEIGHT::QUANTUM.set(0, tc.weight)});
    w.push_back({rm::T_RATE::offset(t), rm::T_RATE::BYTES_PER_KCYCLE.set(0, tc.rate_bytes_per_kcycle)});
    w.push_back({rm::T_BURST::offset(t), rm::T_BURST::BYTES.set(0, tc.burst_bytes)});
    w.push_back({rm::T_QLIMIT_CTRL::offset(t), rm::T_QLIMIT_CTRL::BYTES.set(0, tc.qlimit_control_bytes)});
    w.push_back({rm::T_QLIMIT_BULK::offset(t), rm::T_QLIMIT_BULK::BYTES.set(0, tc.qlimit_bulk_bytes)});
    w.push_back({rm::T_CTRL_RATE::offset(t), rm::T_CTRL_RATE::BYTES_PER_KCYCLE.set(0, tc.ctrl_rate_bytes_per_kcycle)});
    w.push_back({rm::T_CTRL_BURST::offset(t), rm::T_CTRL_BURST::BYTES.set(0, tc.ctrl_burst_bytes)});
  }
  if (!parts.classifier) return w;
  for (std::uint32_t i = 0; i < c.classifier.size(); ++i) {
    const ClassifierEntry& e = c.classifier[i];
    std::uint32_t vlan = 0;
    vlan = rm::CLS_VLAN::VALUE.set(vlan, e.vlan);
    vlan = rm::CLS_VLAN::MASK.set(vlan, e.vlan_mask);
    std::uint32_t dp = 0;
    dp = rm::CLS_DSCP_PROTO::DSCP.set(dp, e.dscp);
    dp = rm::CLS_DSCP_PROTO::DSCP_MASK.set(dp, e.dscp_mask);
    dp = rm::CLS_DSCP_PROTO::PROTO.set(dp, e.proto);
    dp = rm::CLS_DSCP_PROTO::PROTO_MASK.set(dp, e.proto_mask);
    std::uint32_t port = 0;
    port = rm::CLS_PORT::VALUE.set(port, e.port);
    port = rm::CLS_PORT::MASK.set(port, e.port_mask);
    std::uint32_t act = 0;
    act = rm::CLS_ACTION::VALID.set(act, b(e.valid));
    act = rm::CLS_ACTION::TENANT.set(act, e.action.tenant);
    act = rm::CLS_ACTION::CLASS.set(act, e.action.cls);
    act = rm::CLS_ACTION::CRYPTO_OP.set(act, e.action.crypto_op);
    w.push_back({rm::CLS_VLAN::offset(i), vlan});
    w.push_back({rm::CLS_DSCP_PROTO::offset(i), dp});
    w.push_back({rm::CLS_PORT::offset(i), port});
    w.push_back({rm::CLS_ACTION::offset(i), act});
  }
  return w;
}

// The configuration the shadowed registers hold (the inverse of encode_config), for an
// instance of `tenants` tenants and `cls_entries` classifier entries. Fields are decoded
// as written (a classifier tenant beyond the instance included): validate after.
[[nodiscard]] inline Config decode_config(const ReadWord& shadow, std::uint32_t tenants, std::uint32_t cls_entries) {
  namespace rm = nicsched::regmap;
  Config c = Config::reset_values(tenants, cls_entries);
  const std::uint32_t ctrl = shadow(rm::CTRL::kOffset);
  c.enable = rm::CTRL::ENABLE.get(ctrl) != 0;
  c.arb_mode = rm::CTRL::ARB_MODE.decode(ctrl);
  c.bad_to_default = rm::CTRL::BAD_TO_DEFAULT.get(ctrl) != 0;
  c.control_level = rm::CTRL::CONTROL_LEVEL.get(ctrl) != 0;
  const std::uint32_t eng = shadow(rm::CRYPTO_ENGINE::kOffset);
  c.crypto_bytes_per_cycle = rm::CRYPTO_ENGINE::BYTES_PER_CYCLE.get(eng);
  c.crypto_latency = rm::CRYPTO_ENGINE::LATENCY.get(eng);
  const std::uint32_t def = shadow(rm::DEFAULT_ACTION::kOffset);
  c.default_action = {rm::DEFAULT_ACTION::TENANT.get(def), rm::DEFAULT_ACTION::CLASS.get(def),
                      rm::DEFAULT_ACTION::CRYPTO_OP.decode(def)};
  for (std::uint32_t t = 0; t < tenants; ++t) {
    TenantConfig& tc = c.tenants[t];
    const std::uint32_t tctrl = shadow(rm::T_CTRL::offset(t));
    tc.enable = rm::T_CTRL::ENABLE.get(tctrl) != 0;
    tc.priority = rm::T_CTRL::PRIORITY.get(tctrl);
    tc.crypto_quota = rm::T_CTRL::CRYPTO_QUOTA.get(tctrl);
    tc.rate_limited = rm::T_CTRL::RATE_EN.get(tctrl) != 0;
    tc.weight = rm::T_WEIGHT::QUANTUM.get(shadow(rm::T_WEIGHT::offset(t)));
    tc.rate_bytes_per_kcycle = rm::T_RATE::BYTES_PER_KCYCLE.get(shadow(rm::T_RATE::offset(t)));
    tc.burst_bytes = rm::T_BURST::BYTES.get(shadow(rm::T_BURST::offset(t)));
    tc.qlimit_control_bytes = rm::T_QLIMIT_CTRL::BYTES.get(shadow(rm::T_QLIMIT_CTRL::offset(t)));
    tc.qlimit_bulk_bytes = rm::T_QLIMIT_BULK::BYTES.get(shadow(rm::T_QLIMIT_BULK::offset(t)));
    tc.ctrl_rate_bytes_per_kcycle = rm::T_CTRL_RATE::BYTES_PER_KCYCLE.get(shadow(rm::T_CTRL_RATE::offset(t)));
    tc.ctrl_burst_bytes = rm::T_CTRL_BURST::BYTES.get(shadow(rm::T_CTRL_BURST::offset(t)));
  }
  for (std::uint32_t i = 0; i < cls_entries; ++i) {
    ClassifierEntry& e = c.classifier[i];
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
    e.action = {rm::CLS_ACTION::TENANT.get(act), rm::CLS_ACTION::CLASS.get(act), rm::CLS_ACTION::CRYPTO_OP.decode(act)};
  }
  return c;
}

// ------------------------------------------------------------------ TX identity

// The shadow writes that express `id` (TX_IDENTITY, then SRC_BIND[i] for each entry of
// id.sources, in address order); COMMIT applies them with the rest.
[[nodiscard]] inline std::vector<RegWrite> encode_tx_identity(const TxIdentityConfig& id) {
  namespace rm = nicsched::regmap;
  std::vector<RegWrite> w;
  w.reserve(1 + id.sources.size());
  w.push_back({rm::TX_IDENTITY::kOffset,
               rm::TX_IDENTITY::TX_ID_MODE.set(0, id.source_mode ? rm::TxIdMode::kSource : rm::TxIdMode::kHeaders)});
  for (std::uint32_t i = 0; i < id.sources.size(); ++i) {
    const SourceBinding& b = id.sources[i];
    std::uint32_t v = 0;
    v = rm::SRC_BIND::BOUND.set(v, b.bound ? 1U : 0U);
    v = rm::SRC_BIND::TENANT.set(v, b.tenant);
    v = rm::SRC_BIND::DROP_SPOOF.set(v, b.drop_spoofed ? 1U : 0U);
    w.push_back({rm::SRC_BIND::offset(i), v});
  }
  return w;
}

// What TX_IDENTITY and SRC_BIND[0 .. sources-1] hold (the inverse of encode_tx_identity).
[[nodiscard]] inline TxIdentityConfig decode_tx_identity(const ReadWord& shadow, std::uint32_t sources) {
  namespace rm = nicsched::regmap;
  TxIdentityConfig id;
  id.source_mode = rm::TX_IDENTITY::TX_ID_MODE.decode(shadow(rm::TX_IDENTITY::kOffset)) == rm::TxIdMode::kSource;
  id.sources.resize(sources);
  for (std::uint32_t i = 0; i < sources; ++i) {
    const std::uint32_t v = shadow(rm::SRC_BIND::offset(i));
    id.sources[i] = {rm::SRC_BIND::BOUND.get(v) != 0, rm::SRC_BIND::TENANT.get(v), rm::SRC_BIND::DROP_SPOOF.get(v) != 0};
  }
  return id;
}


// ------------------------------------------------------------------ telemetry

// The SNAPSHOT registers of one element of each counter block, each listed once for
// encode_telemetry and decode_telemetry, in the order decode reads them: 64-bit counters
// (LO at the offset, HI at offset + 4) and 32-bit gauges (one field of their register).
template <class Counters>
struct Counter64 {
  std::uint32_t (*offset)(std::uint32_t element);
  std::uint64_t Counters::*value;
};
template <class Counters>
struct Gauge32 {
  std::uint32_t (*offset)(std::uint32_t element);
  regmap::Field field;
  std::uint32_t Counters::*value;
};

inline constexpr Counter64<ParserCounters> kParserCounters64[] = {
    {regmap::PRS_FRAMES::offset, &ParserCounters::frames},
    {regmap::PRS_RUNT::offset, &ParserCounters::runt},
    {regmap::PRS_TRUNCATED::offset, &ParserCounters::truncated},
    {regmap::PRS_BAD_IHL::offset, &ParserCounters::bad_ihl},
    {regmap::PRS_UNKNOWN_ETYPE::offset, &ParserCounters::unknown_etype},
    {regmap::PRS_BUF_DROP::offset, &ParserCounters::buf_drop}};
inline constexpr Counter64<CryptoCounters> kCryptoCounters64[] = {
    {regmap::CR_TX_BUSY::offset, &CryptoCounters::tx_busy},   {regmap::CR_TX_WAIT::offset, &CryptoCounters::tx_wait},
    {regmap::CR_TX_BYTES::offset, &CryptoCounters::tx_bytes}, {regmap::CR_TX_PKTS::offset, &CryptoCounters::tx_pkts},
    {regmap::CR_RX_BUSY::offset, &CryptoCounters::rx_busy},   {regmap::CR_RX_WAIT::offset, &CryptoCounters::rx_wait},
    {regmap::CR_RX_BYTES::offset, &CryptoCounters::rx_bytes}, {regmap::CR_RX_PKTS::offset, &CryptoCounters::rx_pkts}};
inline constexpr Gauge32<CryptoCounters> kCryptoGauges32[] = {
    {regmap::CR_SLOTS_HELD::offset, regmap::CR_SLOTS_HELD::COUNT, &CryptoCounters::slots_held}};
inline constexpr Counter64<QueueCounters> kQueueCounters64[] = {
    {regmap::Q_ENQ_PKTS::offset, &QueueCounters::enq_pkts},   {regmap::Q_ENQ_BYTES::offset, &QueueCounters::enq_bytes},
    {regmap::Q_TX_PKTS::offset, &QueueCounters::tx_pkts},     {regmap::Q_TX_BYTES::offset, &QueueCounters::tx_bytes},
    {regmap::Q_DROP_PKTS::offset, &QueueCounters::drop_pkts}, {regmap::Q_DROP_BYTES::offset, &QueueCounters::drop_bytes},
    {regmap::Q_LAT_SUM::offset, &QueueCounters::lat_sum},     {regmap::Q_LAT_COUNT::offset, &QueueCounters::lat_count}};
inline constexpr Gauge32<QueueCounters> kQueueGauges32[] = {
    {regmap::Q_LAT_MAX::offset, regmap::Q_LAT_MAX::CYCLES, &QueueCounters::lat_max},
    {regmap::Q_DEPTH::offset, regmap::Q_DEPTH::BYTES, &QueueCounters::depth_bytes},
    {regmap::Q_DEPTH_HWM::offset, regmap::Q_DEPTH_HWM::BYTES, &QueueCounters::depth_hwm},
    {regmap::Q_DEPTH_PKTS::offset, regmap::Q_DEPTH_PKTS::COUNT, &QueueCounters::depth_pkts}};

// Every word of every snapshot register for `t` (what SNAPSHOT latches; CONFIG_GEN and
// STATUS are live registers and not among them): put(addr, word),
// 64-bit registers as LO at the offset and HI at offset + 4; a value wider than its field
// saturates at the field's largest value. One element per entry of t.crypto / t.queues.
inline void encode_telemetry(const Telemetry& t, const WriteWord& put) {
  namespace rm = nicsched::regmap;
  auto put64 = [&](std::uint32_t addr, std::uint64_t v) {
    put(addr, static_cast<std::uint32_t>(v));
    put(addr + 4, static_cast<std::uint32_t>(v >> 32));
  };
  auto put32 = [&](std::uint32_t addr, const rm::Field& f, std::uint32_t v) { put(addr, f.set(0, std::min(v, f.max()))); };
  put64(rm::CYCLE::kOffset, t.cycle);
  put32(rm::CRYPTO_BUSY::kOffset, rm::CRYPTO_BUSY::SLOTS, t.crypto_busy_slots);
  for (std::uint32_t d = 0; d < t.parser.size(); ++d) {
    for (const auto& c : kParserCounters64) put64(c.offset(d), t.parser[d].*c.value);
  }
  for (std::uint32_t n = 0; n < t.crypto.size(); ++n) {
    for (const auto& c : kCryptoCounters64) put64(c.offset(n), t.crypto[n].*c.value);
    for (const auto& g : kCryptoGauges32) put32(g.offset(n), g.field, t.crypto[n].*g.value);
  }
  for (std::uint32_t q = 0; q < t.queues.size(); ++q) {
    for (const auto& c : kQueueCounters64) put64(c.offset(q), t.queues[q].*c.value);
    for (const auto& g : kQueueGauges32) put32(g.offset(q), g.field, t.queues[q].*g.value);
  }
  for (std::uint32_t i = 0; i < t.spoofed.size(); ++i) put64(rm::SRC_SPOOF::offset(i), t.spoofed[i]);
}

// Which of the live registers beside the snapshot decode_telemetry reads.
struct TelemetryParts {
  bool status = false;  // STATUS (sticky flags); left false when not read
  std::uint32_t sources = 0;  // SRC_SPOOF of sources 0 .. sources-1 (caps.sources)
};

// The counters of an instance of `tenants` tenants (tenants * 2 queues) from the words
// `read` returns (the latched SNAPSHOT copies: the caller writes SNAPSHOT.GO first), read
// in this order: CYCLE, CONFIG_GEN, CRYPTO_BUSY, [STATUS], PARSER, CRYPTO_STATS, QUEUE_STATS,
// [SOURCE's SRC_SPOOF].
[[nodiscard]] inline Telemetry decode_telemetry(const ReadWord& read, std::uint32_t tenants, TelemetryParts parts = {}) {
  namespace rm = nicsched::regmap;
  auto r64 = [&](std::uint32_t addr) {
    const std::uint64_t lo = read(addr);
    const std::uint64_t hi = read(addr + 4);
    return (hi << 32) | lo;
  };
  Telemetry t;
  t.cycle = r64(rm::CYCLE::kOffset);
  t.config_gen = rm::CONFIG_GEN::COUNT.get(read(rm::CONFIG_GEN::kOffset));
  t.crypto_busy_slots = rm::CRYPTO_BUSY::SLOTS.get(read(rm::CRYPTO_BUSY::kOffset));
  if (parts.status) {
    const std::uint32_t status = read(rm::STATUS::kOffset);
    t.tx_buf_full = rm::STATUS::TX_BUF_FULL.get(status) != 0;
    t.rx_buf_full = rm::STATUS::RX_BUF_FULL.get(status) != 0;
  }
  for (std::uint32_t d = 0; d < t.parser.size(); ++d) {
    for (const auto& c : kParserCounters64) t.parser[d].*c.value = r64(c.offset(d));
  }
  t.crypto.resize(tenants);
  for (std::uint32_t n = 0; n < tenants; ++n) {
    for (const auto& c : kCryptoCounters64) t.crypto[n].*c.value = r64(c.offset(n));
    for (const auto& g : kCryptoGauges32) t.crypto[n].*g.value = g.field.get(read(g.offset(n)));
  }
  t.queues.resize(tenants * kNumClasses);
  for (std::uint32_t q = 0; q < t.queues.size(); ++q) {
    for (const auto& c : kQueueCounters64) t.queues[q].*c.value = r64(c.offset(q));
    for (const auto& g : kQueueGauges32) t.queues[q].*g.value = g.field.get(read(g.offset(q)));
  }
  t.spoofed.resize(parts.sources);
  for (std::uint32_t i = 0; i < parts.sources; ++i) t.spoofed[i] = r64(rm::SRC_SPOOF::offset(i));
  return t;
}

// ------------------------------------------------------------------ names

// The register at byte address `addr` as "NAME" or "NAME[i]" (an array element), with
// ".HI" for the upper word of a 64-bit register; "0x1234" where the map has none.
[[nodiscard]] inline std::string register_name(std::uint32_t addr) {
  namespace rm = nicsched::regmap;
  for (const rm::RegisterInfo& r : rm::kRegisters) {
    if (addr < r.offset) continue;
    const std::uint32_t rel = addr - r.offset;
    const std::uint32_t elem = r.is_array() ? rel / r.stride : 0;
    const std::uint32_t within = r.is_array() ? rel % r.stride : rel;
    if (elem >= r.max_count || within >= r.width / 8 || within % 4 != 0) continue;
    std::string name(r.name);
    if (r.is_array()) name.append(1, '[').append(std::to_string(elem)).append(1, ']');
    if (within == 4) name.append(".HI");
    return name;
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", addr);
  return buf;
}

}  // namespace nicsched::nic
