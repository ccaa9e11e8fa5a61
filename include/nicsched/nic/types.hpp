// The vocabulary of the NIC: plain data that every part (host library, reference model,
// simulator, agent, tests) uses to say what the hardware is (Capabilities), what it is
// told to do (TenantConfig, ClassifierEntry, Config, Policy) and what it measured
// (Telemetry, one SNAPSHOT). Defined once here; the enums and the reset values come from
// the register map (rtl/regmap/nicsched.yaml through the generated nicsched/regmap.hpp).
// All values are in register units; conversions to human units live in the policy-file
// loader (docs/policy.md). nicsched/nic/codec.hpp turns these into register words and back.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "nicsched/regmap.hpp"

namespace nicsched::nic {

namespace rm = nicsched::regmap;

// CTRL.ARB_MODE and the CRYPTO_OP fields: the generated enums of the register map.
using ArbMode = rm::ArbMode;
using CryptoOp = rm::CryptoOp;

// The two datapaths; also the element index of the PARSER register block.
enum class Direction : std::uint8_t { kTx = 0, kRx = 1 };  // TX: host -> wire, RX: wire -> host

inline constexpr std::uint32_t kNumClasses = 2;  // queue q = tenant * 2 + class
inline constexpr std::uint32_t kClassControl = 0;
inline constexpr std::uint32_t kClassBulk = 1;
inline constexpr std::uint32_t kPrioLevels = rm::T_CTRL::PRIORITY.max() + 1;  // 0 highest
inline constexpr std::uint32_t kMaxTenants = rm::kNumTenantsMax;
inline constexpr std::uint32_t kMaxClsEntries = rm::kNumClsEntriesMax;
inline constexpr std::uint32_t kMaxSources = rm::kNumSourcesMax;  // s_axis_tx_tuser: 6 bits

// A TX source (a host queue, H2C channel or VF, named per frame by the trusted host side on
// s_axis_tx_tuser) and the tenant it is bound to (docs/trust.md; SRC_BIND). Unbound: its
// frames are classified by their headers alone (header-only mode). Bound: the reference
// model's classify_tx.
struct SourceBinding {
  bool bound = rm::SRC_BIND::BOUND.get(rm::SRC_BIND::kReset) != 0;
  std::uint32_t tenant = rm::SRC_BIND::TENANT.get(rm::SRC_BIND::kReset);
  bool drop_spoofed = rm::SRC_BIND::DROP_SPOOF.get(rm::SRC_BIND::kReset) != 0;  // false: kept as the source's tenant
  bool operator==(const SourceBinding&) const = default;
};
// Per source; a source beyond the table is unbound (empty: header-only for every source).
using SourceTable = std::vector<SourceBinding>;

// TX_IDENTITY and the SRC_BIND table. In HEADERS mode every source is header-only,
// whatever its binding says (in_force()).
struct TxIdentityConfig {
  bool source_mode = rm::TX_IDENTITY::TX_ID_MODE.get(rm::TX_IDENTITY::kReset) != 0;  // TX_IDENTITY.TX_ID_MODE = SOURCE
  SourceTable sources;  // SRC_BIND[i]; one per source of the instance
  bool operator==(const TxIdentityConfig&) const = default;
  // The bindings frames are classified with (the reference model's set_sources).
  [[nodiscard]] SourceTable in_force() const { return source_mode ? sources : SourceTable{}; }
};

// Read from ID / VERSION / CAPS0 / CAPS1; software never assumes these.
struct Capabilities {
  std::uint32_t id = 0;
  std::uint32_t version_major = 0;
  std::uint32_t version_minor = 0;
  std::uint32_t tenants = 0;        // NumTenants
  std::uint32_t classes = 0;        // 2: control (0), bulk (1)
  std::uint32_t prio_levels = 0;    // strict-priority levels, 0 highest
  std::uint32_t crypto_slots = 0;   // slots shared by TX encrypt and RX decrypt
  std::uint32_t cls_entries = 0;    // classifier entries
  std::uint32_t data_bytes = 0;     // AXI4-Stream bytes per beat
  std::uint32_t buffer_kib = 0;     // shared packet buffer per direction
  std::uint32_t sources = 0;        // TX sources with a binding (CAPS1.SOURCES; 0 before VERSION.MINOR 2)
  [[nodiscard]] std::uint32_t queues() const { return tenants * classes; }
};

// ------------------------------------------------------------------ counters (SNAPSHOT)
// Field widths are the registers' (64-bit counters, 32-bit gauges).

// Per queue (q = tenant * 2 + class), from QUEUE_STATS.
struct QueueCounters {
  std::uint64_t enq_pkts = 0, enq_bytes = 0;    // accepted into the queue
  std::uint64_t tx_pkts = 0, tx_bytes = 0;      // left the NIC
  std::uint64_t drop_pkts = 0, drop_bytes = 0;  // tail-dropped at the queue limit
  std::uint64_t lat_sum = 0, lat_count = 0;     // enqueue-to-egress latency, cycles
  std::uint32_t lat_max = 0;
  std::uint32_t depth_bytes = 0, depth_hwm = 0, depth_pkts = 0;
  bool operator==(const QueueCounters&) const = default;
};

// Per tenant, from CRYPTO_STATS.
struct CryptoCounters {
  std::uint64_t tx_busy = 0, tx_wait = 0, tx_bytes = 0, tx_pkts = 0;
  std::uint64_t rx_busy = 0, rx_wait = 0, rx_bytes = 0, rx_pkts = 0;
  std::uint32_t slots_held = 0;
  bool operator==(const CryptoCounters&) const = default;
};

// Per direction (0 TX, 1 RX), from PARSER.
struct ParserCounters {
  std::uint64_t frames = 0, runt = 0, truncated = 0, bad_ihl = 0, unknown_etype = 0,
                buf_drop = 0;
  bool operator==(const ParserCounters&) const = default;
};

// One SNAPSHOT: every counter latched at the same clock edge (CONFIG_GEN and STATUS are
// live registers, read beside it).
struct Telemetry {
  std::uint64_t cycle = 0;                  // CYCLE
  std::uint32_t config_gen = 0;             // CONFIG_GEN
  std::uint32_t crypto_busy_slots = 0;      // CRYPTO_BUSY
  bool tx_buf_full = false, rx_buf_full = false;  // STATUS (sticky; read only where asked)
  std::vector<QueueCounters> queues;        // caps.queues() entries
  std::vector<CryptoCounters> crypto;       // caps.tenants entries
  std::array<ParserCounters, 2> parser{};   // TX, RX
  std::vector<std::uint64_t> spoofed;       // SRC_SPOOF per TX source (caps.sources entries; docs/trust.md)
};

// ------------------------------------------------------------------ configuration
// Defaults are the registers' reset values.

// T_CTRL / T_WEIGHT / T_RATE / T_BURST / T_QLIMIT_* / T_CTRL_RATE / T_CTRL_BURST of one tenant.
struct TenantConfig {
  bool enable = rm::T_CTRL::ENABLE.get(rm::T_CTRL::kReset) != 0;
  std::uint32_t priority = rm::T_CTRL::PRIORITY.get(rm::T_CTRL::kReset);          // 0 highest
  std::uint32_t weight = rm::T_WEIGHT::QUANTUM.get(rm::T_WEIGHT::kReset);          // DWRR quantum, bytes (0 as 1)
  bool rate_limited = rm::T_CTRL::RATE_EN.get(rm::T_CTRL::kReset) != 0;
  std::uint32_t rate_bytes_per_kcycle = rm::T_RATE::BYTES_PER_KCYCLE.get(rm::T_RATE::kReset);  // per 1024 cycles
  std::uint32_t burst_bytes = rm::T_BURST::BYTES.get(rm::T_BURST::kReset);         // bucket depth
  std::uint32_t crypto_quota = rm::T_CTRL::CRYPTO_QUOTA.get(rm::T_CTRL::kReset);   // slots at once, TX + RX
  std::uint32_t qlimit_control_bytes = rm::T_QLIMIT_CTRL::BYTES.get(rm::T_QLIMIT_CTRL::kReset);  // tail drop
  std::uint32_t qlimit_bulk_bytes = rm::T_QLIMIT_BULK::BYTES.get(rm::T_QLIMIT_BULK::kReset);     // tail drop
  // The control bucket (CTRL.CONTROL_LEVEL): what the control class may send above every level.
  std::uint32_t ctrl_rate_bytes_per_kcycle = rm::T_CTRL_RATE::BYTES_PER_KCYCLE.get(rm::T_CTRL_RATE::kReset);
  std::uint32_t ctrl_burst_bytes = rm::T_CTRL_BURST::BYTES.get(rm::T_CTRL_BURST::kReset);
  bool operator==(const TenantConfig&) const = default;
};

// What the classifier gives a frame: DEFAULT_ACTION, or the action of a CLS entry.
struct ClassifierAction {
  std::uint32_t tenant = rm::DEFAULT_ACTION::TENANT.get(rm::DEFAULT_ACTION::kReset);
  std::uint32_t cls = rm::DEFAULT_ACTION::CLASS.get(rm::DEFAULT_ACTION::kReset);  // 0 control, 1 bulk
  CryptoOp crypto_op = rm::DEFAULT_ACTION::CRYPTO_OP.decode(rm::DEFAULT_ACTION::kReset);
  bool operator==(const ClassifierAction&) const = default;
};

// One CLASSIFIER entry: matches when every (field & mask) == (value & mask). An entry
// written by software is valid; reset() is the register reset (invalid, tenant 0, control).
struct ClassifierEntry {
  bool valid = true;
  std::uint32_t vlan = 0, vlan_mask = 0;    // 12 bits
  std::uint32_t dscp = 0, dscp_mask = 0;    // 6 bits
  std::uint32_t proto = 0, proto_mask = 0;  // 8 bits
  std::uint32_t port = 0, port_mask = 0;    // 16 bits, L4 destination port
  ClassifierAction action;
  bool operator==(const ClassifierEntry&) const = default;
  [[nodiscard]] static ClassifierEntry reset() {
    ClassifierEntry e;
    e.valid = rm::CLS_ACTION::VALID.get(rm::CLS_ACTION::kReset) != 0;
    e.action = {rm::CLS_ACTION::TENANT.get(rm::CLS_ACTION::kReset), rm::CLS_ACTION::CLASS.get(rm::CLS_ACTION::kReset),
                rm::CLS_ACTION::CRYPTO_OP.decode(rm::CLS_ACTION::kReset)};
    return e;
  }
};

// Every shadowed register: what one COMMIT applies at one clock edge.
struct Config {
  bool enable = rm::CTRL::ENABLE.get(rm::CTRL::kReset) != 0;                         // CTRL.ENABLE
  ArbMode arb_mode = rm::CTRL::ARB_MODE.decode(rm::CTRL::kReset);                    // CTRL.ARB_MODE
  bool bad_to_default = rm::CTRL::BAD_TO_DEFAULT.get(rm::CTRL::kReset) != 0;         // CTRL.BAD_TO_DEFAULT
  bool control_level = rm::CTRL::CONTROL_LEVEL.get(rm::CTRL::kReset) != 0;           // CTRL.CONTROL_LEVEL
  std::uint32_t crypto_bytes_per_cycle = rm::CRYPTO_ENGINE::BYTES_PER_CYCLE.get(rm::CRYPTO_ENGINE::kReset);  // 0 as 1
  std::uint32_t crypto_latency = rm::CRYPTO_ENGINE::LATENCY.get(rm::CRYPTO_ENGINE::kReset);
  ClassifierAction default_action;     // DEFAULT_ACTION
  std::vector<TenantConfig> tenants;   // one per tenant of the instance
  std::vector<ClassifierEntry> classifier;  // one per classifier entry of the instance
  bool operator==(const Config&) const = default;
  // The reset configuration of an instance with these counts.
  [[nodiscard]] static Config reset_values(std::uint32_t tenants, std::uint32_t cls_entries) {
    Config c;
    c.tenants.assign(tenants, TenantConfig{});
    c.classifier.assign(cls_entries, ClassifierEntry::reset());
    return c;
  }
};

// A complete scheduler configuration as software states it (policy files, controllers,
// nicctl), applied with one COMMIT. Unlike Config it may leave the classifier as it is, and
// it never holds CRYPTO_ENGINE (what the hardware is, not a scheduling choice).
struct Policy {
  bool enable = true;
  ArbMode arb_mode = ArbMode::kSpDwrr;
  bool control_level = rm::CTRL::CONTROL_LEVEL.get(rm::CTRL::kReset) != 0;  // CTRL.CONTROL_LEVEL
  // No crypto engine settings: CRYPTO_ENGINE is NIC/board setup written once at bring-up
  // (nicsim: from the scenario; a card: its board shell), never by a policy.
  std::vector<TenantConfig> tenants;  // index = tenant; size caps.tenants
  // Absent: the classifier table is left as it is. Present: entries fill the table from
  // index 0; the remaining entries are written as after reset (invalid).
  std::optional<std::vector<ClassifierEntry>> classifier;
  std::optional<ClassifierAction> default_action;
  // Absent: TX_IDENTITY and SRC_BIND are left as they are (a controller's policy). Present:
  // TX_IDENTITY and every SRC_BIND of the NIC are written (sources beyond the table unbound).
  std::optional<TxIdentityConfig> tx_identity;
  bool operator==(const Policy&) const = default;
};

}  // namespace nicsched::nic
