// Simulation: a scenario's tenants running on the simulated NIC, with metrics.
//
// It is a drivers::SimTarget, so `nicsim run`, `nicsim serve` and the agent's NicEnv all
// drive the same object:
//   - RegisterBus: the NIC's registers (telemetry, policy writes); each access takes the
//     few cycles the AXI4-Lite slave needs.
//   - SimControl::step(n): advances n cycles; workloads generate traffic, the simulated
//     host sends it (per-tenant windows, retransmission after rto_us), departures are
//     attributed to their packets and checked byte for byte.
//   - metrics_json(): RunMetrics so far as JSON (docs/simulation.md).
//
// Progress for rewards (stable API for the agent):
//   tenant_count(), tenant(i).spec (name, kind, NIC index), tenant(i).progress:
//     completed        iterations (DDP) / rounds (FL) finished so far
//     phase            what the tenant is doing now (compute, communicate, ...)
//     phase_fraction   fraction of the current burst / download / upload delivered
//     units()          completed + phase_fraction during communication: continuous progress
//   progress_rate(i)   units per cycle since the tenant arrived (background/pcap: delivered
//                      share of offered bytes), the quantity normalised by solo runs.
//
// Identity travels through the real RTL path: each tenant's frames carry its VLAN ID
// (control frames also DSCP EF; FL download a second UDP port), and the constructor
// writes the matching classifier entries and the policy over the register bus.
//
// A run is a pipeline, one file per stage (docs/architecture.md):
//   scenario.cpp            scenario file -> Scenario
//   scenario_policy.cpp     Scenario -> policy + classifier, written before the first cycle
//                           (static baselines: the controllers of nicsched::controllers)
//   workload.cpp            per tenant, what to send when (DDP, FL, background, pcap)
//   simulation.cpp          the simulated host and the event loop: workloads' frames into
//                           the NIC, departures attributed and checked (this class)
//   nic_model.cpp           the NIC backend: the Verilated RTL or the reference model
//                           (model_backend.cpp)
//   simulation_metrics.cpp  what the run achieved -> RunMetrics, normalised by the solo
//                           runs of solo.cpp
//   report.cpp              RunMetrics -> table, JSON; samples() -> CSV
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "nicsched/clone_ptr.hpp"
#include "nicsched/drivers/sim_target.hpp"
#include "nicsched/host/types.hpp"
#include "nicsched/sim/frame.hpp"
#include "nicsched/sim/metrics.hpp"
#include "nicsched/sim/nic_model.hpp"
#include "nicsched/sim/pcap_io.hpp"
#include "nicsched/sim/scenario.hpp"
#include "nicsched/sim/solo.hpp"
#include "nicsched/sim/workload.hpp"

namespace nicsched::sim {

// A frame of a tenant's own traffic leaving the NIC towards the wire (cluster mode hands
// it to the fabric).
struct Departure {
  std::size_t tenant;         // position in the scenario
  Flow flow;                  // kControl, kBulkTx
  std::uint32_t frame_len;    // bytes on the wire (no FCS)
  std::uint64_t payload;      // progress-counting payload it carries
  std::uint64_t cycle;        // its last beat left
};

struct SimOptions {
  // Static policy: a policy file (nicctl's format, loaded by nicsched::host against the
  // model's capabilities) or a Policy built in code; its classifier, if any, is replaced
  // by the scenario's (scenario_policy.hpp). Neither: the static baseline's policy.
  std::filesystem::path policy_file;
  std::optional<host::Policy> policy;
  std::string baseline = "fifo";           // control::static_baseline_names(): fifo, fair, sp
  std::string policy_name;                 // shown in metrics; default: baseline name
  std::optional<bool> control_level;       // overrides the policy's control_level (CTRL.CONTROL_LEVEL)
  std::optional<std::uint64_t> cycles;     // run length instead of the scenario's duration
  std::filesystem::path trace;             // FST waveform
  std::filesystem::path pcap_out;          // frames that leave on the wire
  std::uint64_t sample_interval_cycles = 0;  // CSV time series; 0: duration / 200
  // Model backend: event-to-event (default) or per-cycle stepping (NicConfig::model_stepping).
  refmodel::Stepping model_stepping = refmodel::Stepping::kEvent;
  // Solo baselines for slowdown and normalised progress (index = position in scenario).
  std::vector<std::optional<SoloResult>> solo;
  // Cluster mode: told of every TX departure of a tenant's tagged traffic (docs/cluster.md).
  std::function<void(const Departure&)> on_departure;
};

class Simulation final : public drivers::SimTarget,
                         private FrameSource,
                         private FrameSink,
                         private TrafficSink {
 public:
  struct Tenant {
    TenantSpec spec;
    ClonePtr<Workload> workload;
    [[nodiscard]] const Progress& progress() const { return workload->progress(); }
  };

  Simulation(Scenario scenario, SimOptions options);
  ~Simulation() override;
  Simulation& operator=(const Simulation&) = delete;

  // A copy of the running simulation that continues exactly as this one would, and shares
  // nothing with it: the NIC (reference model, registers, MAC credits, frames inside), the
  // workloads and their random streams, the simulated host's queues, frames in flight,
  // expired ids, samples and metric accumulators (docs/simulation.md, "Forking a
  // simulation"). Between steps only (not from a FrameSource/FrameSink callback). Throws
  // SimError on the rtl backend (a Verilated model cannot be copied) and when the run
  // writes a capture (pcap_out); the simulation is then unchanged.
  [[nodiscard]] std::unique_ptr<Simulation> fork() const;

  // SimTarget
  std::uint32_t read32(std::uint32_t addr) override;
  void write32(std::uint32_t addr, std::uint32_t value) override;
  [[nodiscard]] std::string describe() const override;
  void step(std::uint64_t cycles) override;
  [[nodiscard]] std::uint64_t cycle() override;
  [[nodiscard]] std::string metrics_json() override;

  // Runs to the end (duration or options.cycles); `on_progress` gets the fraction done.
  void run_to_end(const std::function<void(double)>& on_progress = {});
  // Runs until `done` is true (checked between event chunks) or the end.
  void run_until(const std::function<bool()>& done);
  [[nodiscard]] std::uint64_t end_cycle() const { return end_cycle_; }
  [[nodiscard]] bool finished() { return nic_->cycle() >= end_cycle_; }

  // Cluster mode (docs/cluster.md), between steps: tenant `i`'s ring passed its barrier now
  // (DdpWorkload with ring_barrier; SimError otherwise), and `payload` bytes of its bulk TX
  // were lost beyond the NIC (a fabric drop), so its sender sends them again now, in frames
  // of its MTU.
  void barrier(std::size_t i);
  void resend(std::size_t i, std::uint64_t payload);
  // Cluster mode: tenant `i` (never started, or left) runs `spec`'s workload from now (a job
  // placed on this server); its NIC identity (index, VLAN, ports) stays the tenant's. Its
  // host queues and window start empty; frames of its earlier workload still in the NIC
  // leave uncounted (neither progress nor departures). `seed` seeds the new workload.
  void start_tenant(std::size_t i, TenantSpec spec, std::uint64_t seed);
  // Cluster mode: tenant `i` leaves now (its job completed); what it queued is dropped.
  void stop_tenant(std::size_t i);

  [[nodiscard]] std::size_t tenant_count() const { return tenants_.size(); }
  [[nodiscard]] const Tenant& tenant(std::size_t i) const { return tenants_.at(i); }
  [[nodiscard]] double progress_rate(std::size_t i);

  // The metrics stage (simulation_metrics.cpp): what the run achieved so far.
  [[nodiscard]] RunMetrics metrics();
  // Progress time series, one sample per tenant every sample interval (report.hpp writes it).
  [[nodiscard]] const std::vector<ProgressSample>& samples() const { return samples_; }

  [[nodiscard]] const Scenario& scenario() const { return scenario_; }
  [[nodiscard]] NicModel& nic() { return *nic_; }
  [[nodiscard]] const host::Capabilities& capabilities() const { return caps_; }
  [[nodiscard]] std::uint64_t integrity_errors() const { return integrity_errors_; }
  [[nodiscard]] std::uint64_t misattributed() const { return misattributed_; }
  [[nodiscard]] std::uint64_t frames_checked() const { return frames_checked_; }

 private:
  struct Pending {
    Flow flow;
    std::uint64_t payload_left;
    std::uint32_t frame_bytes;
    std::uint64_t created;
  };
  struct Raw {
    std::vector<std::uint8_t> bytes;
    std::uint64_t created;
  };
  struct Host {  // per tenant: what the sender still has to put into the NIC
    std::deque<Pending> control;             // TX only
    std::deque<Pending> bulk[2];             // per Direction
    std::deque<Raw> raw[2];
    std::uint64_t inflight_bytes[2] = {0, 0};
    std::vector<double> control_latency;     // cycles
    std::uint64_t control_sent = 0, control_delivered = 0, deadline_misses = 0;
    std::uint64_t retransmits = 0, host_drops = 0, late = 0;
    FlowId flow[3];                          // by Flow (control, bulk TX, bulk RX)
    std::uint32_t generation = 0;            // start_tenant count: frames of earlier ones leave uncounted
  };
  struct InFlight {
    std::uint32_t tenant;
    Flow flow;
    Direction dir;
    std::uint32_t frame_len;
    std::uint64_t payload;
    std::uint64_t created;
    std::uint64_t injected;
    std::uint32_t generation;
  };
  // FrameSource / FrameSink / TrafficSink
  bool next_frame(Direction dir, std::uint64_t cycle, std::vector<std::uint8_t>& frame) override;
  [[nodiscard]] std::uint32_t tx_source() const override { return tx_source_; }
  void frame_out(const OutFrame& frame) override;
  void send(std::uint32_t tenant, Flow flow, std::uint64_t payload_bytes, std::uint32_t frame_bytes,
            std::uint64_t created) override;
  void send_raw(std::uint32_t tenant, Direction dir, const std::vector<std::uint8_t>& frame,
                std::uint64_t created) override;
  void cancel(std::uint32_t tenant) override;

  // fork()'s copy: every member's own copy (the parts behind ClonePtr deep-copied), so a
  // member added later is copied too; fork() then attaches the copied NIC to the copy.
  Simulation(const Simulation&) = default;

  void configure_nic();
  void configure_tx_identity();
  void advance_to(std::uint64_t target, const std::function<bool()>& done);
  void process_due(std::uint64_t now);
  void expire_lost(std::uint64_t now);
  // The sender sends `p` again, ahead of what it queued (a frame lost: its RTO expired, or
  // dropped beyond the NIC); nothing once the tenant has left.
  void send_again(std::size_t slot, const Pending& p);
  [[nodiscard]] std::uint64_t next_event() const;
  [[nodiscard]] std::size_t slot_of(std::uint32_t nic_tenant) const;
  static Direction dir_of(Flow f) { return f == Flow::kBulkRx ? Direction::kRx : Direction::kTx; }

  Scenario scenario_;
  SimOptions options_;
  ClonePtr<NicModel> nic_;
  host::Capabilities caps_;
  std::vector<Tenant> tenants_;
  std::vector<Host> host_;
  std::vector<int> slot_by_nic_tenant_;  // NIC tenant -> position, -1 none
  FrameBuilder builder_;
  std::unordered_map<std::uint64_t, InFlight> inflight_;
  std::unordered_set<std::uint64_t> expired_;
  std::uint64_t next_id_ = 1;
  std::size_t rr_[2] = {0, 0};
  std::uint32_t tx_source_ = 0;  // source of the last TX frame given: its tenant's host queue (tenant index)
  std::uint64_t end_cycle_ = 0;
  std::uint64_t planned_end_ = 0;
  std::uint64_t next_sweep_ = 0;
  std::uint64_t next_sample_ = 0;
  std::uint64_t sample_interval_ = 0;
  std::vector<ProgressSample> samples_;
  ClonePtr<PcapWriter> pcap_;
  std::uint64_t integrity_errors_ = 0;
  std::uint64_t misattributed_ = 0;
  std::uint64_t frames_checked_ = 0;
  std::uint64_t foreign_frames_ = 0;
  std::uint64_t wall_ns_ = 0;            // spent inside step()/run_*
};

}  // namespace nicsched::sim
