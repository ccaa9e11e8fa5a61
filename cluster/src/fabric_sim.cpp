#include "nicsched/cluster/fabric_sim.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace nicsched::cluster {

FabricSim::FabricSim(const Fabric& fabric, std::uint64_t link_latency_ps)
    : fabric_(&fabric), latency_ps_(link_latency_ps), ports_(fabric.links()) {}

std::uint64_t FabricSim::serialisation_ps(LinkId link, std::uint32_t bytes) const {
  // bytes x 8 bits / (gbps x 1e9 bit/s) in ps = bytes x 8000 / gbps, rounded up.
  return static_cast<std::uint64_t>(std::ceil(static_cast<double>(bytes) * 8000.0 / fabric_->link(link).gbps));
}

void FabricSim::inject(FabricFrame frame, std::uint64_t at_ps) {
  if (frame.bytes == 0) throw std::invalid_argument(fmt::format("frame {}: no bytes", frame.id));
  if (frame.path.size() < 2 || frame.path.front() != fabric_->host_up(frame.src_host) ||
      frame.path.back() != fabric_->host_down(frame.dst_host))
    throw std::invalid_argument(fmt::format("frame {}: its path does not lead from host {} to host {}", frame.id,
                                            frame.src_host, frame.dst_host));
  if (at_ps + latency_ps_ < now_ps_)
    throw std::invalid_argument(fmt::format("frame {}: injected at {} ps, it would reach its leaf before {} ps, "
                                            "where the fabric has run to", frame.id, at_ps, now_ps_));
  // The NIC serialised it on the host link: count it there, and it reaches the leaf one
  // link latency later.
  PortStats& first = ports_[frame.path.front()].stats;
  ++first.frames;
  first.bytes += frame.bytes;
  std::size_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
    frames_[slot] = std::move(frame);
  } else {
    slot = frames_.size();
    frames_.push_back(std::move(frame));
  }
  events_.push({at_ps + latency_ps_, seq_++, 1, slot});
}

void FabricSim::run_until(std::uint64_t until_ps, const Delivered& delivered, const Dropped& dropped) {
  while (!events_.empty() && events_.top().at_ps < until_ps) {
    const Event e = events_.top();
    events_.pop();
    now_ps_ = e.at_ps;
    FabricFrame& f = frames_[e.frame];
    if (e.hop == f.path.size()) {  // the last byte reached the destination host
      const FabricFrame done = std::move(f);  // the callback may inject (and move frames_)
      free_slots_.push_back(e.frame);
      if (delivered) delivered(done, e.at_ps);
      continue;
    }
    const LinkId link = f.path[e.hop];
    Port& port = ports_[link];
    // The frame is wholly received at the switch and queued on the port towards `link`.
    const std::uint64_t backlog_ps = port.busy_until > e.at_ps ? port.busy_until - e.at_ps : 0;
    const auto backlog_bytes =
        static_cast<std::uint64_t>(static_cast<double>(backlog_ps) * fabric_->link(link).gbps / 8000.0);
    if (backlog_bytes + f.bytes > fabric_->spec().port_buffer_bytes) {
      ++port.stats.drops;
      port.stats.dropped_bytes += f.bytes;
      const FabricFrame lost = std::move(f);
      free_slots_.push_back(e.frame);
      if (dropped) dropped(lost, link, e.at_ps);
      continue;
    }
    port.stats.max_backlog_bytes = std::max(port.stats.max_backlog_bytes, backlog_bytes + f.bytes);
    ++port.stats.frames;
    port.stats.bytes += f.bytes;
    port.busy_until = std::max(e.at_ps, port.busy_until) + serialisation_ps(link, f.bytes);
    events_.push({port.busy_until + latency_ps_, seq_++, e.hop + 1, e.frame});
  }
  now_ps_ = std::max(now_ps_, until_ps);
}

std::uint64_t FabricSim::next_event_ps() const {
  return events_.empty() ? std::numeric_limits<std::uint64_t>::max() : events_.top().at_ps;
}

}  // namespace nicsched::cluster
