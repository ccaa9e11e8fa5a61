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

#include "nicsched/nic/types.hpp"

namespace nicsched::refmodel {

// Bad parameters, configuration or input; the message names what and where.
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The NIC's vocabulary (nicsched/nic/types.hpp), as the model uses it.
using nic::ArbMode;
using nic::ClassifierAction;
using nic::ClassifierEntry;
using nic::Config;
using nic::CryptoCounters;
using nic::CryptoOp;
using nic::Direction;
using nic::ParserCounters;
using nic::QueueCounters;
using nic::Telemetry;
using nic::TenantConfig;

inline constexpr std::uint32_t kNumClasses = nic::kNumClasses;  // 0 control, 1 bulk; queue q = tenant*2 + class
inline constexpr std::uint32_t kPrioLevels = nic::kPrioLevels;  // T_CTRL.PRIORITY: 0 highest
inline constexpr std::uint32_t kMaxTenants = nic::kMaxTenants;  // 6-bit tenant index in the register map

// TX sources and their bindings (docs/trust.md): the NIC's vocabulary (nicsched/nic/types.hpp,
// SRC_BIND); classify_tx says what a binding does.
using nic::SourceBinding;
using nic::SourceTable;
inline constexpr std::uint32_t kMaxSources = nic::kMaxSources;

// Why the parser refused a frame (PARSER block counters; the values of the RTL's
// nicsched_pkg::drop_reason_e).
enum class ParseDrop : std::uint8_t { kNone = 0, kRunt = 1, kTruncated = 2, kBadIhl = 3, kUnknownEtype = 4 };

// What a frame became.
enum class Fate : std::uint8_t {
  kPending = 0,   // not yet arrived or not yet decided
  kQueued,        // accepted, waiting (queue, crypto wait queue or output)
  kDelivered,     // left on m_axis_tx / m_axis_rx (last beat accepted by the MAC / host)
  kParseDrop,     // refused by the parser (see parse_drop)
  kTailDrop,      // TX queue byte limit exceeded
  kBufferDrop,    // the direction's shared buffer had no room
  kSpoofDrop,     // TX, bound source: its headers named another tenant, and the source drops spoofs
};

// How RefModel::step() advances the clock. Both give the same results cycle for cycle:
// kPerCycle runs every cycle's phases (the definition, which the RTL regression checks);
// kEvent runs in one go each span in which those phases would change nothing but counters,
// beats, token buckets and crypto hold timers (RefModel::inert_cycles()), which the
// equivalence test (tests/sim/test_event_equivalence.cpp) checks against kPerCycle.
enum class Stepping : std::uint8_t { kPerCycle, kEvent };

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
  Stepping stepping = Stepping::kPerCycle;  // the model's own choice, not the RTL's
  void validate() const;               // throws ModelError naming the bad parameter
};

// The reset configuration of an instance with these parameters.
[[nodiscard]] Config reset_config(const Params& p);
// Throws ModelError naming the field (e.g. "tenants[3].priority = 5: must be <= 3") if
// `cfg` does not fit the parameters or the register fields.
void validate(const Config& cfg, const Params& p);

// Slot hold time in cycles: ceil(len / bytes_per_cycle) + latency (bytes_per_cycle 0 as 1).
std::uint64_t crypto_hold_cycles(std::uint32_t len, std::uint32_t bytes_per_cycle,
                                 std::uint32_t latency);

// One frame that left the model (or was dropped), with its timeline in cycles.
struct FrameRecord {
  std::uint64_t id = 0;          // as returned by RefModel::push
  Direction dir = Direction::kTx;
  std::uint32_t len = 0;
  Fate fate = Fate::kPending;
  ParseDrop parse_drop = ParseDrop::kNone;
  std::uint32_t source = 0;      // TX: the source (host queue / VF) it came from
  bool spoofed = false;          // TX, bound source: its headers named another tenant
  ClassifierAction action;       // classification (valid unless parse- or spoof-dropped)
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
// ArbMode: regmap::to_string (generated from the map's names).

}  // namespace nicsched::refmodel
