// Scenario: the NIC, the link and the tenants of one simulated experiment, loaded from a
// YAML file under sim/scenarios/ (format: docs/simulation.md). Every quantity is already
// converted to simulated cycles and bytes here, after time scaling (docs/scaling.md):
//   - job-level quantities (model and update sizes in MB, compute/training times and
//     start/stop offsets in ms or s, on/off periods) describe the REAL job and are divided
//     by `scale`;
//   - packet-level quantities (packet bytes, MTU, windows, control period and deadline in
//     us, pause periods, crypto engine rate and latency) are simulated as written.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "nicsched/nic/types.hpp"
#include "nicsched/sim/presets.hpp"

namespace nicsched::fileio {
class MapReader;
}

namespace nicsched::sim {

inline constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();

enum class WorkloadKind : std::uint8_t { kDdp, kFl, kBackground, kPcap };
enum class BgPattern : std::uint8_t { kConstant, kPoisson, kOnOff };
using nic::Direction;  // TX: host -> wire, RX: wire -> host
// What simulates the NIC (docs/simulation.md, "Backends"): the Verilated nicsched_top, or
// the reference model nicsched::refmodel behind the same register map (fast mode).
enum class NicBackend : std::uint8_t { kRtl, kModel };
// Who says whose a TX frame is (docs/trust.md): its headers alone (header-only: for a host
// that enforces every tenant's VLAN), or the host queue it came from (source binding: each
// tenant's frames come from its own source, bound to it; headers choose only among the
// tenant's own classifier rows).
enum class TxIdentity : std::uint8_t { kHeaders, kSource };
[[nodiscard]] const char* to_string(WorkloadKind k);
[[nodiscard]] const char* to_string(Direction d);
[[nodiscard]] const char* to_string(NicBackend b);                 // "rtl", "model"
[[nodiscard]] NicBackend parse_backend(const std::string& name);  // throws SimError

// Periodic small latency-sensitive packets (heartbeats, state) of a DDP tenant.
struct ControlSpec {
  bool enabled = false;
  std::uint64_t period_cycles = 0;    // one packet per period
  std::uint32_t frame_bytes = 128;    // Ethernet frame length (no FCS)
  std::uint64_t deadline_cycles = 0;  // creation -> left the NIC; later is a miss
};

struct TenantSpec {
  std::string name;
  WorkloadKind kind = WorkloadKind::kDdp;
  std::uint32_t index = 0;            // NIC tenant number (position in the file)
  std::size_t line = 0;               // where it is defined, for messages
  // Identity on the wire: what the classifier matches.
  std::uint16_t vlan = 0;             // 802.1Q VLAN ID, unique per tenant (1..4094)
  std::uint16_t port = 0;             // UDP destination port of bulk TX; FL download uses port+1
  bool classify = true;               // pcap: false -> frames go to the default action
  // Adversarial (background, TX): its frames claim another tenant's identity, that tenant's
  // VLAN, DSCP EF and bulk UDP port (`spoof_as: NAME`); it still sends from its own source.
  bool spoofs = false;
  std::uint16_t spoof_vlan = 0;       // the claimed tenant's VLAN and port
  std::uint16_t spoof_port = 0;
  // DDP: DSCP of its bulk TX frames (46, EF, marks its own bulk as control).
  std::uint8_t bulk_dscp = 0;
  // Static-priority hint used by the `sp` baseline (0 highest).
  std::uint32_t priority = 0;
  // Lifetime, cycles since reset; stop == kNever: stays to the end.
  std::uint64_t start_cycle = 0;
  std::uint64_t stop_cycle = kNever;
  // Transport: frame size of bulk packets and the bytes the sender keeps in the NIC at
  // most (closed loop, like an RDMA/TCP window); 0 = open loop (background only).
  std::uint32_t mtu_frame_bytes = 1518;
  std::uint32_t window_bytes = 32768;
  double jitter = 0.0;                // relative std-dev of compute/training times

  // DDP: burst of 2(N-1)/N x model bytes after each compute phase.
  std::string model;                  // preset name or "custom"
  double model_mb_real = 0;           // real model (gradient) size, MB
  std::uint32_t workers = 8;          // N of the ring all-reduce
  double compute_ms_real = 0;         // real compute time per iteration
  std::uint64_t burst_bytes = 0;      // scaled payload bytes per burst
  std::uint64_t compute_cycles = 0;   // scaled
  ControlSpec control;
  // Cluster mode (docs/cluster.md): this tenant is one server's part of a ring that crosses
  // the fabric; its iteration ends at the ring's barrier (Simulation::barrier: every edge's
  // burst delivered), not when its own burst has left the NIC.
  bool ring_barrier = false;

  // FL: rounds of download (RX, decrypt), training, upload (TX, encrypt).
  double update_mb_real = 0;          // real model/update size, MB
  double train_ms_real = 0;
  double expansion = 1.0;             // secure-aggregation expansion of the upload
  std::uint64_t download_bytes = 0;   // scaled
  std::uint64_t upload_bytes = 0;     // scaled, expansion applied
  std::uint64_t train_cycles = 0;     // scaled

  // Background: open-loop bulk traffic, no crypto.
  BgPattern pattern = BgPattern::kConstant;
  double rate_gbps = 0;               // offered rate (while on)
  std::uint32_t packet_bytes = 1518;  // frame length
  std::uint64_t on_cycles = 0;        // on/off only, scaled
  std::uint64_t off_cycles = 0;
  Direction direction = Direction::kTx;  // background and pcap

  // pcap replay.
  std::filesystem::path pcap_file;
  bool loop = false;
  double speed = 1.0;                 // replay speed-up of the capture's timestamps
};

// A period where the MAC deasserts tready on egress (PFC pause, link flap).
struct PausePeriod {
  std::uint64_t start_cycle = 0;
  std::uint64_t length_cycles = 0;
};

// The core clock of every board shell (rtl/boards/nicsched_shell.sv runs the core on XDMA's
// 250 MHz axi_aclk), and so the fastest clock a scenario may ask for: no synthesised core
// runs faster. At 64 bytes a clock it carries at most kMaxLinkGbps.
inline constexpr double kShellClockMhz = 250.0;
inline constexpr double kMaxLinkGbps = 64.0 * 8.0 * kShellClockMhz / 1e3;  // 128 Gbit/s

struct Scenario {
  std::string name;
  std::filesystem::path file;         // where it was loaded from ("" for a string)
  std::string text_digest;            // hash of the file's text, for baseline caching
  std::uint64_t seed = 1;
  double clock_mhz = kShellClockMhz;
  double link_gbps = 100.0;
  double scale = 1000.0;              // real time / simulated time
  std::uint64_t duration_cycles = 0;
  std::uint64_t rto_cycles = 0;       // sender retransmits a packet not delivered by then
  // NIC instance (elaboration parameters pick a Verilated variant) and engine settings.
  std::uint32_t nic_tenants = 8;
  std::uint32_t crypto_slots = 4;
  std::string crypto_engine = "custom";  // nic.crypto_engine preset, or "custom"
  std::uint32_t crypto_bytes_per_cycle = 16;
  std::uint32_t crypto_latency = 32;
  NicBackend backend = NicBackend::kRtl;  // nic.backend
  TxIdentity tx_identity = TxIdentity::kHeaders;  // nic.tx_identity
  bool tx_identity_set = false;       // nic.tx_identity was written (else: header-only, said in the report)
  bool drop_spoofed = false;          // nic.on_spoof: drop (else keep as the source's tenant)
  std::vector<PausePeriod> pauses;    // sorted, non-overlapping
  std::vector<TenantSpec> tenants;

  [[nodiscard]] double cycles_per_us() const { return clock_mhz; }
  [[nodiscard]] double link_bytes_per_cycle() const { return link_gbps * 1e3 / 8.0 / clock_mhz; }
  // Classifier entries the scenario writes (see Simulation): control + bulk per tenant.
  [[nodiscard]] std::uint32_t classifier_entries_needed() const;
};

// Throws ScenarioError naming file, line, key and what was expected.
[[nodiscard]] Scenario load_scenario(const std::filesystem::path& file);
[[nodiscard]] Scenario parse_scenario(const std::string& yaml_text, const std::string& file_name);

// A file format built on the scenario's (the cluster scenario, docs/cluster.md): the
// scenario's keys and tenants, plus its own top-level and tenant keys, which its functions
// read (through the same reader, so their errors name file, line and key too). The tenant
// list is then not held to nic.tenants: the format checks its own limit.
struct ScenarioExtension {
  std::string top_keys;     // named in "unknown key" errors: "fabric, placement, routing"
  std::function<void(fileio::MapReader&, Scenario&)> read_top;
  std::string tenant_keys;  // "host, to_host"
  std::function<void(fileio::MapReader&, const TenantSpec&)> read_tenant;
};
[[nodiscard]] Scenario parse_extended_scenario(const std::string& yaml_text, const std::string& file_name,
                                               const ScenarioExtension& ext);
[[nodiscard]] Scenario load_extended_scenario(const std::filesystem::path& file, const ScenarioExtension& ext);

// The same scenario with only tenant `index` in it (for the solo baselines): the tenant
// keeps its NIC index, identity and timing.
[[nodiscard]] Scenario solo_scenario(const Scenario& s, std::uint32_t index);

}  // namespace nicsched::sim
