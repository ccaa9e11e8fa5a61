// Workload generators: DDP, FL, background, pcap replay.
#include "nicsched/sim/workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "nicsched/sim/error.hpp"
#include "nicsched/sim/pcap_io.hpp"

namespace nicsched::sim {

const char* to_string(Phase p) {
  switch (p) {
    case Phase::kNotArrived: return "not-arrived";
    case Phase::kCompute: return "compute";
    case Phase::kCommunicate: return "communicate";
    case Phase::kDownload: return "download";
    case Phase::kTrain: return "train";
    case Phase::kUpload: return "upload";
    case Phase::kStreaming: return "streaming";
    case Phase::kLeft: return "left";
  }
  return "?";
}

Workload::Workload(const TenantSpec& spec, std::uint64_t seed)
    : spec_(spec), rng_(seed * 0x9E3779B97F4A7C15ULL + spec.index * 0xBF58476D1CE4E5B9ULL + 1) {}

void Workload::on_delivered(Flow, std::uint64_t payload_bytes, std::uint64_t, TrafficSink&) {
  progress_.delivered_bytes += payload_bytes;
}

void Workload::stop(std::uint64_t now, TrafficSink& out) {
  spec_.stop_cycle = std::min(spec_.stop_cycle, now);
  if (progress_.phase != Phase::kLeft) wake(now, out);  // at its stop cycle: every kind leaves
}

void Workload::barrier(std::uint64_t now, TrafficSink&) {
  throw SimError(fmt::format("cycle {}: tenant {} ({}) is not a ring member waiting at its barrier", now, spec_.name,
                             to_string(spec_.kind)));
}

std::uint64_t Workload::jittered(std::uint64_t cycles) {
  if (spec_.jitter <= 0.0 || cycles == 0) return cycles;
  std::normal_distribution<double> n(1.0, spec_.jitter);
  const double f = std::max(0.1, n(rng_));
  return static_cast<std::uint64_t>(std::llround(static_cast<double>(cycles) * f));
}

void Workload::leave(TrafficSink& out) {
  progress_.phase = Phase::kLeft;
  progress_.phase_fraction = 0.0;
  out.cancel(spec_.index);
}

bool Workload::end_iteration(std::uint64_t start, std::uint64_t now, TrafficSink& out) {
  iterations_.push_back(now - start);
  computes_.push_back(compute_now_);
  ++progress_.completed;
  if (!leaving(now)) return true;
  leave(out);
  return false;
}

std::unique_ptr<Workload> make_workload(const TenantSpec& spec, std::uint64_t scenario_seed,
                                        double clock_mhz) {
  switch (spec.kind) {
    case WorkloadKind::kDdp: return std::make_unique<DdpWorkload>(spec, scenario_seed);
    case WorkloadKind::kFl: return std::make_unique<FlWorkload>(spec, scenario_seed);
    case WorkloadKind::kBackground: return std::make_unique<BackgroundWorkload>(spec, scenario_seed, clock_mhz);
    case WorkloadKind::kPcap: return std::make_unique<PcapWorkload>(spec, scenario_seed, clock_mhz);
  }
  throw SimError("make_workload: unknown workload kind");
}

// ---------------------------------------------------------------- open-ended streams

void StreamWorkload::on_delivered(Flow, std::uint64_t payload_bytes, std::uint64_t, TrafficSink&) {
  progress_.delivered_bytes += payload_bytes;
  progress_.phase_fraction = progress_.offered_bytes == 0
                                 ? 0.0
                                 : static_cast<double>(progress_.delivered_bytes) /
                                       static_cast<double>(progress_.offered_bytes);
}

bool StreamWorkload::streaming(std::uint64_t now, TrafficSink& out) {
  if (progress_.phase == Phase::kLeft) return false;
  if (leaving(now)) {
    leave(out);
    return false;
  }
  progress_.phase = Phase::kStreaming;
  return true;
}

// ---------------------------------------------------------------- DDP

DdpWorkload::DdpWorkload(const TenantSpec& spec, std::uint64_t seed) : Workload(spec, seed) {
  if (spec.control.enabled) next_control_ = spec.start_cycle;
}

std::uint64_t DdpWorkload::next_wakeup() const {
  if (progress_.phase == Phase::kLeft) return kNever;
  std::uint64_t t = progress_.phase == Phase::kNotArrived ? spec_.start_cycle : phase_end_;
  return until_stop(std::min(t, next_control_));
}

void DdpWorkload::start_iteration(std::uint64_t now) {
  iter_start_ = now;
  progress_.phase = Phase::kCompute;
  progress_.phase_start_cycle = now;
  progress_.phase_fraction = 0.0;
  phase_end_ = now + jittered(spec_.compute_cycles);
}

void DdpWorkload::wake(std::uint64_t now, TrafficSink& out) {
  if (progress_.phase == Phase::kLeft) return;
  if (leaving(now)) {
    leave(out);
    phase_end_ = next_control_ = kNever;
    return;
  }
  if (progress_.phase == Phase::kNotArrived && now >= spec_.start_cycle) start_iteration(now);
  if (progress_.phase == Phase::kCompute && now >= phase_end_) {
    compute_now_ = now - iter_start_;
    progress_.phase = Phase::kCommunicate;
    progress_.phase_start_cycle = now;
    phase_end_ = kNever;
    burst_delivered_ = 0;
    progress_.offered_bytes += spec_.burst_bytes;
    out.send(spec_.index, Flow::kBulkTx, spec_.burst_bytes, spec_.mtu_frame_bytes, now);
  }
  while (next_control_ <= now) {
    out.send(spec_.index, Flow::kControl, 0, spec_.control.frame_bytes, next_control_);
    ++control_sent_;
    next_control_ += spec_.control.period_cycles;
  }
}

void DdpWorkload::on_delivered(Flow flow, std::uint64_t payload_bytes, std::uint64_t now, TrafficSink& out) {
  progress_.delivered_bytes += payload_bytes;
  if (flow != Flow::kBulkTx || progress_.phase != Phase::kCommunicate) return;
  burst_delivered_ += payload_bytes;
  progress_.phase_fraction =
      std::min(1.0, static_cast<double>(burst_delivered_) / static_cast<double>(spec_.burst_bytes));
  if (burst_delivered_ >= spec_.burst_bytes && !spec_.ring_barrier) finish_iteration(now, out);
}

void DdpWorkload::barrier(std::uint64_t now, TrafficSink& out) {
  if (!spec_.ring_barrier || progress_.phase != Phase::kCommunicate) Workload::barrier(now, out);
  finish_iteration(now, out);
}

void DdpWorkload::finish_iteration(std::uint64_t now, TrafficSink& out) {
  if (end_iteration(iter_start_, now, out)) {
    start_iteration(now);
  } else {
    phase_end_ = next_control_ = kNever;
  }
}

// ---------------------------------------------------------------- FL

std::uint64_t FlWorkload::next_wakeup() const {
  if (progress_.phase == Phase::kLeft) return kNever;
  return until_stop(progress_.phase == Phase::kNotArrived ? spec_.start_cycle : phase_end_);
}

void FlWorkload::start_round(std::uint64_t now, TrafficSink& out) {
  round_start_ = now;
  start_transfer(Phase::kDownload, Flow::kBulkRx, spec_.download_bytes, now, out);
}

void FlWorkload::start_transfer(Phase phase, Flow flow, std::uint64_t bytes, std::uint64_t now, TrafficSink& out) {
  progress_.phase = phase;
  progress_.phase_start_cycle = now;
  progress_.phase_fraction = 0.0;
  phase_delivered_ = 0;
  phase_end_ = kNever;
  progress_.offered_bytes += bytes;
  out.send(spec_.index, flow, bytes, spec_.mtu_frame_bytes, now);
}

void FlWorkload::wake(std::uint64_t now, TrafficSink& out) {
  if (progress_.phase == Phase::kLeft) return;
  if (leaving(now)) {
    leave(out);
    phase_end_ = kNever;
    return;
  }
  if (progress_.phase == Phase::kNotArrived && now >= spec_.start_cycle) start_round(now, out);
  if (progress_.phase == Phase::kTrain && now >= phase_end_) {
    compute_now_ = now - progress_.phase_start_cycle;
    start_transfer(Phase::kUpload, Flow::kBulkTx, spec_.upload_bytes, now, out);
  }
}

void FlWorkload::on_delivered(Flow flow, std::uint64_t payload_bytes, std::uint64_t now, TrafficSink& out) {
  progress_.delivered_bytes += payload_bytes;
  if (progress_.phase == Phase::kDownload && flow == Flow::kBulkRx) {
    phase_delivered_ += payload_bytes;
    progress_.phase_fraction =
        static_cast<double>(phase_delivered_) / static_cast<double>(spec_.download_bytes);
    if (phase_delivered_ >= spec_.download_bytes) {
      progress_.phase = Phase::kTrain;
      progress_.phase_start_cycle = now;
      progress_.phase_fraction = 0.0;
      phase_end_ = now + jittered(spec_.train_cycles);
      if (spec_.train_cycles == 0) wake(now, out);
    }
  } else if (progress_.phase == Phase::kUpload && flow == Flow::kBulkTx) {
    phase_delivered_ += payload_bytes;
    progress_.phase_fraction =
        static_cast<double>(phase_delivered_) / static_cast<double>(spec_.upload_bytes);
    if (phase_delivered_ >= spec_.upload_bytes && end_iteration(round_start_, now, out)) start_round(now, out);
  }
}

// ---------------------------------------------------------------- background

BackgroundWorkload::BackgroundWorkload(const TenantSpec& spec, std::uint64_t seed, double clock_mhz)
    : StreamWorkload(spec, seed) {
  const double bits_per_cycle = spec.rate_gbps * 1e3 / clock_mhz;
  mean_gap_cycles_ = spec.packet_bytes * 8.0 / bits_per_cycle;
  next_ = static_cast<double>(spec.start_cycle);
}

double BackgroundWorkload::next_arrival(double t) {
  double gap = mean_gap_cycles_;
  if (spec_.pattern == BgPattern::kPoisson) {
    std::exponential_distribution<double> e(1.0 / mean_gap_cycles_);
    gap = e(rng_);
  }
  double n = t + gap;
  if (spec_.pattern == BgPattern::kOnOff) {
    // Frames only inside the on part of each (on + off) cycle from start.
    const double period = static_cast<double>(spec_.on_cycles + spec_.off_cycles);
    const double rel = n - static_cast<double>(spec_.start_cycle);
    const double in = std::fmod(rel, period);
    if (in >= static_cast<double>(spec_.on_cycles)) n += period - in;
  }
  return n;
}

std::uint64_t BackgroundWorkload::next_wakeup() const {
  if (progress_.phase == Phase::kLeft) return kNever;
  return until_stop(static_cast<std::uint64_t>(std::ceil(next_)));
}

void BackgroundWorkload::wake(std::uint64_t now, TrafficSink& out) {
  if (!streaming(now, out)) return;
  const std::uint32_t payload = spec_.packet_bytes - 46;
  const Flow flow = spec_.direction == Direction::kTx ? Flow::kBulkTx : Flow::kBulkRx;
  while (next_ <= static_cast<double>(now)) {
    out.send(spec_.index, flow, payload, spec_.packet_bytes, static_cast<std::uint64_t>(next_));
    progress_.offered_bytes += payload;
    next_ = next_arrival(next_);
  }
}

// ---------------------------------------------------------------- pcap

PcapWorkload::PcapWorkload(const TenantSpec& spec, std::uint64_t seed, double clock_mhz)
    : StreamWorkload(spec, seed) {
  const auto packets = read_pcap(spec.pcap_file);
  if (packets.empty()) throw SimError(spec.pcap_file.string() + ": capture holds no frames");
  const double t0 = packets.front().time_s;
  auto frames = std::make_shared<std::vector<Captured>>();
  for (const auto& p : packets) {
    const double dt_us = (p.time_s - t0) * 1e6 / spec.speed;
    frames->push_back({static_cast<std::uint64_t>(std::llround(dt_us * clock_mhz)), p.bytes});
  }
  const std::uint64_t last = frames->back().offset_cycles;
  span_cycles_ = last + std::max<std::uint64_t>(1, last / frames->size());
  frames_ = std::move(frames);
  base_ = spec.start_cycle;
}

std::uint64_t PcapWorkload::next_wakeup() const {
  if (progress_.phase == Phase::kLeft) return kNever;
  return until_stop(base_ + (*frames_)[next_index_].offset_cycles);
}

void PcapWorkload::wake(std::uint64_t now, TrafficSink& out) {
  if (!streaming(now, out)) return;
  const std::vector<Captured>& frames = *frames_;
  while (base_ + frames[next_index_].offset_cycles <= now) {
    const auto& f = frames[next_index_];
    out.send_raw(spec_.index, spec_.direction, f.bytes, base_ + f.offset_cycles);
    progress_.offered_bytes += f.bytes.size();
    if (++next_index_ == frames.size()) {
      if (!spec_.loop) {
        progress_.phase = Phase::kLeft;
        next_index_ = 0;
        return;
      }
      next_index_ = 0;
      base_ += span_cycles_;
    }
  }
}


}  // namespace nicsched::sim
