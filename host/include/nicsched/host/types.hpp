// Plain data shared by host, sim and agent: what the hardware is (Capabilities), what
// it measured (Telemetry, one consistent SNAPSHOT) and what it should do (Policy).
// All values are in register units; conversions to human units live in the policy
// file loader (docs/policy.md).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace nicsched::host {

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
  [[nodiscard]] std::uint32_t queues() const { return tenants * classes; }
};

enum class ArbMode : std::uint32_t { kFifo = 0, kSp = 1, kDwrr = 2, kSpDwrr = 3 };
enum class CryptoOp : std::uint32_t { kNone = 0, kEncrypt = 1, kDecrypt = 2 };

// Per queue (q = tenant * 2 + class), from QUEUE_STATS.
struct QueueCounters {
  std::uint64_t enq_pkts = 0, enq_bytes = 0;    // accepted into the queue
  std::uint64_t tx_pkts = 0, tx_bytes = 0;      // left the NIC
  std::uint64_t drop_pkts = 0, drop_bytes = 0;  // tail-dropped at the queue limit
  std::uint64_t lat_sum = 0, lat_count = 0;     // enqueue-to-egress latency, cycles
  std::uint32_t lat_max = 0;
  std::uint32_t depth_bytes = 0, depth_hwm = 0, depth_pkts = 0;
};

// Per tenant, from CRYPTO_STATS.
struct CryptoCounters {
  std::uint64_t tx_busy = 0, tx_wait = 0, tx_bytes = 0, tx_pkts = 0;
  std::uint64_t rx_busy = 0, rx_wait = 0, rx_bytes = 0, rx_pkts = 0;
  std::uint32_t slots_held = 0;
};

// Per direction (0 TX, 1 RX), from PARSER.
struct ParserCounters {
  std::uint64_t frames = 0, runt = 0, truncated = 0, bad_ihl = 0, unknown_etype = 0,
                buf_drop = 0;
};

// One SNAPSHOT: every counter latched at the same clock edge.
struct Telemetry {
  std::uint64_t cycle = 0;
  std::uint32_t config_gen = 0;
  std::uint32_t crypto_busy_slots = 0;
  std::vector<QueueCounters> queues;     // caps.queues() entries
  std::vector<CryptoCounters> crypto;    // caps.tenants entries
  std::array<ParserCounters, 2> parser;  // TX, RX
};

struct TenantPolicy {
  bool enable = true;
  std::uint32_t priority = 0;                  // 0 highest .. prio_levels-1
  std::uint32_t weight = 1500;                 // DWRR quantum, bytes
  bool rate_limited = false;
  std::uint32_t rate_bytes_per_kcycle = 0;     // token fill per 1024 cycles
  std::uint32_t burst_bytes = 16384;           // bucket depth
  std::uint32_t crypto_quota = 4;              // slots held at once, TX + RX
  std::uint32_t qlimit_control_bytes = 16384;  // tail-drop limit, control queue
  std::uint32_t qlimit_bulk_bytes = 65536;     // tail-drop limit, bulk queue
  bool operator==(const TenantPolicy&) const = default;
};

struct ClassifierAction {
  std::uint32_t tenant = 0;
  std::uint32_t cls = 1;  // 0 control, 1 bulk
  CryptoOp crypto_op = CryptoOp::kNone;
  bool operator==(const ClassifierAction&) const = default;
};

struct ClassifierEntry {
  std::uint32_t vlan = 0, vlan_mask = 0;    // 12 bits
  std::uint32_t dscp = 0, dscp_mask = 0;    // 6 bits
  std::uint32_t proto = 0, proto_mask = 0;  // 8 bits
  std::uint32_t port = 0, port_mask = 0;    // 16 bits, L4 destination port
  ClassifierAction action;
  bool operator==(const ClassifierEntry&) const = default;
};

// A complete scheduler configuration, applied with one COMMIT.
struct Policy {
  bool enable = true;
  ArbMode arb_mode = ArbMode::kSpDwrr;
  std::uint32_t crypto_bytes_per_cycle = 16;
  std::uint32_t crypto_latency = 32;
  std::vector<TenantPolicy> tenants;  // index = tenant; size caps.tenants
  // Absent: the classifier table is left as it is. Present: entries fill the table from
  // index 0; the remaining entries are written invalid.
  std::optional<std::vector<ClassifierEntry>> classifier;
  std::optional<ClassifierAction> default_action;
  bool operator==(const Policy&) const = default;
};

}  // namespace nicsched::host
