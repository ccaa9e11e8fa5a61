// Plain data of the nicsched reference model: its build-time parameters, the software
// configuration (the register map's shadowed registers, applied by COMMIT), the
// counters (QUEUE_STATS, CRYPTO_STATS, PARSER, GLOBAL) and what it reports per frame.
// Written from shared/DESIGN.md, rtl/regmap/nicsched.yaml and docs/architecture.md, not
// from the RTL; docs/verification.md states every choice the specification leaves open.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace nicsched::refmodel {

// Bad parameters, configuration or input; the message names what and where.
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr int kNumClasses = 2;   // 0 control, 1 bulk; queue q = tenant*2 + class
inline constexpr int kPrioLevels = 4;   // T_CTRL.PRIORITY: 0 highest
inline constexpr int kMaxTenants = 64;  // 6-bit tenant index in the register map

enum class Direction : std::uint8_t { kTx = 0, kRx = 1 };
enum class ArbMode : std::uint8_t { kFifo = 0, kSp = 1, kDwrr = 2, kSpDwrr = 3 };
enum class CryptoOp : std::uint8_t { kNone = 0, kEncrypt = 1, kDecrypt = 2 };

// Why the parser refused a frame (PARSER block counters).
enum class ParseDrop : std::uint8_t { kNone = 0, kRunt, kTruncated, kBadIhl, kUnknownEtype };

// What a frame became.
enum class Fate : std::uint8_t {
  kPending = 0,   // not yet arrived or not yet decided
  kQueued,        // accepted, waiting (queue, crypto wait queue or output)
  kDelivered,     // left on m_axis_tx / m_axis_rx (last beat accepted by the MAC / host)
  kParseDrop,     // refused by the parser (see parse_drop)
  kTailDrop,      // TX queue byte limit exceeded
  kBufferDrop,    // the direction's shared buffer had no room
};

// Elaboration parameters of the modelled nicsched_top, plus the model's own pipeline
// latencies (documented in docs/verification.md; the RTL's are measured, not assumed).
struct Params {
  int num_tenants = 8;                 // NumTenants, 1..64
  int num_cls_entries = 16;            // NumClsEntries, 1..64
  int data_bytes = 64;                 // DataWidth / 8: bytes per AXI4-Stream beat
  int crypto_slots = 4;                // CryptoSlots
  std::uint32_t buffer_bytes = 262144; // BufferBytes, shared buffer per direction
  std::uint32_t cell_bytes = 64;       // buffer allocation unit (frames use ceil(len/cell) cells)
  std::uint32_t reserved_cells = 0;    // cells of the buffer that never hold frames
  std::uint32_t ingress_latency = 0;   // cycles from a frame's tlast to being eligible
  bool rx_obeys_enables = false;       // RX arbiter honours CTRL.ENABLE and T_CTRL.ENABLE
  void validate() const;               // throws ModelError naming the bad parameter
};

// T_CTRL / T_WEIGHT / T_RATE / T_BURST / T_QLIMIT_* of one tenant (register reset values).
struct TenantConfig {
  bool enable = true;
  std::uint32_t priority = 0;              // 0..3, 0 highest
  std::uint32_t crypto_quota = 4;          // slots held at once, TX + RX
  bool rate_en = false;
  std::uint32_t quantum = 1500;            // DWRR bytes per round; 0 is treated as 1
  std::uint32_t rate_bytes_per_kcycle = 0; // token fill per 1024 cycles (24 bits)
  std::uint32_t burst_bytes = 16384;       // bucket depth (24 bits)
  std::uint32_t qlimit_ctrl = 16384;       // control queue byte limit (24 bits)
  std::uint32_t qlimit_bulk = 65536;       // bulk queue byte limit (24 bits)
};

struct ClsAction {
  std::uint32_t tenant = 0;
  std::uint32_t cls = 1;  // 0 control, 1 bulk
  CryptoOp op = CryptoOp::kNone;
};

// One CLASSIFIER entry: matches when every (field & mask) == (value & mask).
struct ClsEntry {
  bool valid = false;
  std::uint32_t vlan = 0, vlan_mask = 0;    // 12 bits
  std::uint32_t dscp = 0, dscp_mask = 0;    // 6 bits
  std::uint32_t proto = 0, proto_mask = 0;  // 8 bits
  std::uint32_t port = 0, port_mask = 0;    // 16 bits
  ClsAction action{0, 0, CryptoOp::kNone};  // CLS_ACTION reset: tenant 0, control
};

// Every shadowed register: one COMMIT applies all of it at one clock edge.
struct Config {
  bool enable = true;                  // CTRL.ENABLE
  ArbMode mode = ArbMode::kFifo;       // CTRL.ARB_MODE
  bool bad_to_default = false;         // CTRL.BAD_TO_DEFAULT
  std::uint32_t engine_bytes_per_cycle = 16;  // CRYPTO_ENGINE.BYTES_PER_CYCLE (0 as 1)
  std::uint32_t engine_latency = 32;          // CRYPTO_ENGINE.LATENCY
  ClsAction default_action{0, 1, CryptoOp::kNone};  // DEFAULT_ACTION
  std::vector<TenantConfig> tenants;   // num_tenants entries
  std::vector<ClsEntry> classifier;    // num_cls_entries entries
  // The reset configuration of an instance with these parameters.
  static Config reset_values(const Params& p);
  // Throws ModelError naming the field (e.g. "tenants[3].priority = 5: must be 0..3").
  void validate(const Params& p) const;
};

// Slot hold time in cycles: ceil(len / bytes_per_cycle) + latency (bytes_per_cycle 0 as 1).
std::uint64_t crypto_hold_cycles(std::uint32_t len, std::uint32_t bytes_per_cycle,
                                 std::uint32_t latency);

// QUEUE_STATS of one TX queue.
struct QueueCounters {
  std::uint64_t enq_pkts = 0, enq_bytes = 0;
  std::uint64_t tx_pkts = 0, tx_bytes = 0;
  std::uint64_t drop_pkts = 0, drop_bytes = 0;
  std::uint64_t lat_sum = 0, lat_count = 0;
  std::uint64_t lat_max = 0;
  std::uint64_t depth_bytes = 0, depth_hwm = 0, depth_pkts = 0;
  bool operator==(const QueueCounters&) const = default;
};

// CRYPTO_STATS of one tenant.
struct CryptoCounters {
  std::uint64_t tx_busy = 0, tx_wait = 0, tx_bytes = 0, tx_pkts = 0;
  std::uint64_t rx_busy = 0, rx_wait = 0, rx_bytes = 0, rx_pkts = 0;
  std::uint64_t slots_held = 0;
  bool operator==(const CryptoCounters&) const = default;
};

// PARSER block of one direction.
struct ParserCounters {
  std::uint64_t frames = 0, runt = 0, truncated = 0, bad_ihl = 0, unknown_etype = 0,
                buf_drop = 0;
  bool operator==(const ParserCounters&) const = default;
};

struct Counters {
  std::uint64_t cycle = 0;
  std::uint64_t config_gen = 0;
  std::uint64_t crypto_busy = 0;       // CRYPTO_BUSY.SLOTS
  bool tx_buf_full = false, rx_buf_full = false;  // STATUS (sticky)
  std::vector<QueueCounters> queues;   // num_tenants * 2
  std::vector<CryptoCounters> crypto;  // num_tenants
  std::array<ParserCounters, 2> parser{};  // TX, RX
};

// One frame that left the model (or was dropped), with its timeline in cycles.
struct FrameRecord {
  std::uint64_t id = 0;          // as returned by RefModel::push
  Direction dir = Direction::kTx;
  std::uint32_t len = 0;
  Fate fate = Fate::kPending;
  ParseDrop parse_drop = ParseDrop::kNone;
  ClsAction action;              // classification (valid unless parse-dropped)
  CryptoOp egress_op = CryptoOp::kNone;  // tuser on the output: the op done, or none
  bool crypto = false;           // went through a crypto slot
  std::uint64_t arrival = 0;     // cycle of its tlast at the input
  std::uint64_t dispatch = 0;    // cycle the arbiter (TX) or slot arbiter (RX) released it
  std::uint64_t crypto_done = 0; // cycle its slot was freed (crypto frames)
  std::uint64_t first_beat = 0;  // cycle its first beat was presented at the output
  std::uint64_t last_beat = 0;   // cycle its last beat was accepted (departure)
  // Bytes by which the admission cleared (>= 0) or missed (< 0) the queue limit and the
  // free buffer, and the tighter of the two. A decision within a timing margin of 0
  // depends on pipeline latency (docs/verification.md, "timing-sensitive drops") unless
  // the queue could not be served for long before (queue_frozen_for cycles; TX only).
  std::int64_t admit_margin = 0;
  std::int64_t queue_margin = 0;
  std::int64_t buffer_margin = 0;
  std::uint64_t queue_frozen_for = 0;
};

const char* to_string(Fate f);
const char* to_string(ParseDrop d);
const char* to_string(ArbMode m);

}  // namespace nicsched::refmodel
