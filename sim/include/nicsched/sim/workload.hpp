// Workloads: generators of traffic with a notion of progress, one per tenant.
//
// A workload never sees packets. It hands the sender (TrafficSink, the simulated host or
// network) messages of payload bytes; the sender splits them into frames, keeps at most
// the tenant's window of bytes inside the NIC and reports back, per message flow, how
// many payload bytes have left the NIC (on_delivered). Time is the NIC's clock cycle.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "nicsched/interface.hpp"
#include "nicsched/sim/scenario.hpp"

namespace nicsched::sim {

// Flows of a tenant; they pick the frame's DSCP/port and thus its classifier entry.
enum class Flow : std::uint8_t {
  kControl = 0,   // TX, control class (DSCP EF), no crypto
  kBulkTx = 1,    // TX, bulk class; FL: encrypt
  kBulkRx = 2,    // RX, bulk class; FL: decrypt
  kRaw = 3,       // pcap frames, sent as captured
};

enum class Phase : std::uint8_t {
  kNotArrived,    // before start_ms
  kCompute,       // DDP: computing, no traffic
  kCommunicate,   // DDP: all-reduce burst in flight
  kDownload,      // FL: receiving the global model (RX, decrypt)
  kTrain,         // FL: local training
  kUpload,        // FL: sending the update (TX, encrypt)
  kStreaming,     // background / pcap: sending
  kLeft,          // after stop_ms, or a pcap file played out
};
[[nodiscard]] const char* to_string(Phase p);

// Where a workload's traffic goes.
class TrafficSink {
 public:
  virtual ~TrafficSink() = default;
  // Payload bytes to carry in frames of at most frame_bytes (frame length, headers
  // included); a message of flow kControl is one frame of frame_bytes and carries no
  // payload that counts towards progress. `created` is when the workload made it.
  virtual void send(std::uint32_t tenant, Flow flow, std::uint64_t payload_bytes,
                    std::uint32_t frame_bytes, std::uint64_t created) = 0;
  // A captured frame, sent as is.
  virtual void send_raw(std::uint32_t tenant, Direction dir, const std::vector<std::uint8_t>& frame,
                        std::uint64_t created) = 0;
  // The tenant left: forget what it queued and has not sent yet.
  virtual void cancel(std::uint32_t tenant) = 0;
};

// Where a tenant stands; what the agent's reward reads.
struct Progress {
  Phase phase = Phase::kNotArrived;
  std::uint64_t completed = 0;          // DDP iterations / FL rounds completed
  double phase_fraction = 0.0;          // of the current burst/download/upload, delivered
  std::uint64_t phase_start_cycle = 0;
  std::uint64_t offered_bytes = 0;      // payload handed to the sender
  std::uint64_t delivered_bytes = 0;    // payload that left the NIC
  // completed + the fraction of the current iteration's communication delivered: a
  // continuous measure of training progress (background/pcap: delivered/offered).
  [[nodiscard]] double units() const { return static_cast<double>(completed) + phase_fraction; }
};

class Workload : public Interface {
 public:
  Workload(const TenantSpec& spec, std::uint64_t seed);
  // A copy that continues exactly as this workload would (its random stream included):
  // Simulation::fork. Each workload is plain values, so each class's is its copy.
  [[nodiscard]] virtual std::unique_ptr<Workload> clone() const = 0;

  // Cycle at which the workload next changes state by itself (kNever: only deliveries).
  [[nodiscard]] virtual std::uint64_t next_wakeup() const = 0;
  // Called at cycle now >= next_wakeup(): move on, sending what is due.
  virtual void wake(std::uint64_t now, TrafficSink& out) = 0;
  // payload_bytes of flow `flow` left the NIC at cycle now.
  virtual void on_delivered(Flow flow, std::uint64_t payload_bytes, std::uint64_t now, TrafficSink& out);
  // Cluster mode: the ring this tenant belongs to passed its barrier at cycle now (every
  // edge's burst delivered). Throws SimError for a workload that is not a ring member
  // waiting at its barrier.
  virtual void barrier(std::uint64_t now, TrafficSink& out);
  // Leaves now, whatever it was doing (cluster mode: its job completed).
  void stop(std::uint64_t now, TrafficSink& out);

  [[nodiscard]] const TenantSpec& spec() const { return spec_; }
  [[nodiscard]] const Progress& progress() const { return progress_; }
  // Durations (cycles) of completed iterations / rounds, in order.
  [[nodiscard]] const std::vector<std::uint64_t>& iteration_cycles() const { return iterations_; }
  // Of each completed iteration / round, the cycles spent computing (DDP) / training (FL),
  // jitter included; the rest of the iteration is communication (and waiting for it).
  [[nodiscard]] const std::vector<std::uint64_t>& compute_cycles() const { return computes_; }
  // Payload bytes the workload sends per iteration (DDP burst, FL download+upload); 0 for
  // open-ended traffic.
  [[nodiscard]] virtual std::uint64_t bytes_per_iteration() const { return 0; }

 protected:
  // Compute/training time with the tenant's jitter applied (never below 10 %).
  std::uint64_t jittered(std::uint64_t cycles);
  void leave(TrafficSink& out);
  bool leaving(std::uint64_t now) const { return now >= spec_.stop_cycle; }
  // The iteration (DDP) or round (FL) that began at `start` ends at `now`: records it and
  // its compute time, then leaves at the stop cycle (false) or goes on (true).
  bool end_iteration(std::uint64_t start, std::uint64_t now, TrafficSink& out);
  // `t`, or the stop cycle if that comes first (kNever: no stop).
  [[nodiscard]] std::uint64_t until_stop(std::uint64_t t) const { return std::min(t, spec_.stop_cycle); }

  TenantSpec spec_;
  Progress progress_;
  std::vector<std::uint64_t> iterations_;
  std::vector<std::uint64_t> computes_;  // parallel to iterations_
  std::uint64_t compute_now_ = 0;         // the compute/training time of the iteration under way
  std::mt19937_64 rng_;
};

[[nodiscard]] std::unique_ptr<Workload> make_workload(const TenantSpec& spec, std::uint64_t scenario_seed,
                                                      double clock_mhz);

// DDP: compute, then a burst of burst_bytes on kBulkTx; the iteration ends when the whole
// burst has left the NIC (in cluster mode, with ring_barrier, at the ring's barrier).
// Control frames every control.period_cycles from the start.
class DdpWorkload final : public Workload {
 public:
  DdpWorkload(const TenantSpec& spec, std::uint64_t seed);
  [[nodiscard]] std::unique_ptr<Workload> clone() const override { return std::make_unique<DdpWorkload>(*this); }
  [[nodiscard]] std::uint64_t next_wakeup() const override;
  void wake(std::uint64_t now, TrafficSink& out) override;
  void on_delivered(Flow flow, std::uint64_t payload_bytes, std::uint64_t now, TrafficSink& out) override;
  void barrier(std::uint64_t now, TrafficSink& out) override;
  [[nodiscard]] std::uint64_t bytes_per_iteration() const override { return spec_.burst_bytes; }
  [[nodiscard]] std::uint64_t control_sent() const { return control_sent_; }

 private:
  void start_iteration(std::uint64_t now);
  void finish_iteration(std::uint64_t now, TrafficSink& out);  // records it, then the next or leaves
  std::uint64_t phase_end_ = kNever;    // end of compute
  std::uint64_t next_control_ = kNever;
  std::uint64_t iter_start_ = 0;
  std::uint64_t burst_delivered_ = 0;
  std::uint64_t control_sent_ = 0;
};

// FL: download (kBulkRx, decrypt), train, upload (kBulkTx, encrypt, expansion applied).
class FlWorkload final : public Workload {
 public:
  using Workload::Workload;
  [[nodiscard]] std::unique_ptr<Workload> clone() const override { return std::make_unique<FlWorkload>(*this); }
  [[nodiscard]] std::uint64_t next_wakeup() const override;
  void wake(std::uint64_t now, TrafficSink& out) override;
  void on_delivered(Flow flow, std::uint64_t payload_bytes, std::uint64_t now, TrafficSink& out) override;
  [[nodiscard]] std::uint64_t bytes_per_iteration() const override {
    return spec_.download_bytes + spec_.upload_bytes;
  }

 private:
  void start_round(std::uint64_t now, TrafficSink& out);
  // Download or upload: the phase starts now with `bytes` of `flow` handed to the sender.
  void start_transfer(Phase phase, Flow flow, std::uint64_t bytes, std::uint64_t now, TrafficSink& out);
  std::uint64_t phase_end_ = kNever;
  std::uint64_t round_start_ = 0;
  std::uint64_t phase_delivered_ = 0;
};

// Open-ended traffic (background, pcap): no iterations; its progress fraction is the
// payload delivered over the payload offered.
class StreamWorkload : public Workload {
 public:
  using Workload::Workload;
  void on_delivered(Flow flow, std::uint64_t payload_bytes, std::uint64_t now, TrafficSink& out) final;

 protected:
  // At a wake-up: leaves (false) once gone or at the stop cycle, else streams (true).
  bool streaming(std::uint64_t now, TrafficSink& out);
};

// Background: frames of packet_bytes at rate_gbps, constant, Poisson or on/off.
class BackgroundWorkload final : public StreamWorkload {
 public:
  BackgroundWorkload(const TenantSpec& spec, std::uint64_t seed, double clock_mhz);
  [[nodiscard]] std::unique_ptr<Workload> clone() const override { return std::make_unique<BackgroundWorkload>(*this); }
  [[nodiscard]] std::uint64_t next_wakeup() const override;
  void wake(std::uint64_t now, TrafficSink& out) override;

 private:
  double next_arrival(double t);
  double mean_gap_cycles_;              // between frames while on
  double next_ = 0;                     // next frame, cycles (fractional)
};

// pcap replay: the capture's frames at their (sped-up) timestamps from start_ms.
class PcapWorkload final : public StreamWorkload {
 public:
  PcapWorkload(const TenantSpec& spec, std::uint64_t seed, double clock_mhz);
  [[nodiscard]] std::unique_ptr<Workload> clone() const override { return std::make_unique<PcapWorkload>(*this); }
  [[nodiscard]] std::uint64_t next_wakeup() const override;
  void wake(std::uint64_t now, TrafficSink& out) override;
  [[nodiscard]] std::size_t frames() const { return frames_->size(); }

 private:
  struct Captured {
    std::uint64_t offset_cycles;
    std::vector<std::uint8_t> bytes;
  };
  std::shared_ptr<const std::vector<Captured>> frames_;  // never changes: copies share it
  std::uint64_t span_cycles_ = 0;       // first to last frame, plus one gap, for looping
  std::size_t next_index_ = 0;
  std::uint64_t base_ = 0;              // cycle of the current pass's first frame
};

}  // namespace nicsched::sim
