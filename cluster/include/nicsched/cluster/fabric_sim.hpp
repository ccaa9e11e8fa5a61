// The fabric in motion: frames through the switches' output-queued ports.
//
// Level of detail (docs/cluster.md, "The fabric model"): each switch output port is a FIFO
// drained at its link's rate with a tail-drop buffer of port_buffer_bytes; a frame is stored
// and forwarded (it leaves a port once wholly received), each link adds a propagation delay,
// and the switch fabric itself is never the bottleneck (output queueing). A FIFO drained at a
// constant rate needs no per-byte simulation: a port is the time its last accepted frame ends
// (`busy_until`), its backlog at time t is (busy_until - t) x rate, and a frame accepted at t
// starts at max(t, busy_until). So each frame costs one event per hop, processed in time order
// (ties in the order they were scheduled), and a run is deterministic.
//
// Time is in picoseconds (the NIC clock's cycle is a whole number of them at the rates used;
// integer time keeps serialisation exact and runs reproducible). The host -> leaf link is the
// NIC's own MAC: a frame is injected when its last byte has left the NIC, and first meets a
// queue at the leaf.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "nicsched/cluster/fabric.hpp"

namespace nicsched::cluster {

struct FabricFrame {
  std::uint64_t id = 0;       // the caller's handle (returned on delivery or drop)
  unsigned job = 0;
  unsigned src_host = 0;
  unsigned dst_host = 0;
  std::uint32_t bytes = 0;    // on the wire, headers included
  Path path;                  // host_up ... host_down (Fabric::path)
};

struct PortStats {
  std::uint64_t frames = 0;
  std::uint64_t bytes = 0;    // bytes sent on the link
  std::uint64_t drops = 0;
  std::uint64_t dropped_bytes = 0;
  std::uint64_t max_backlog_bytes = 0;
};

class FabricSim {
 public:
  using Delivered = std::function<void(const FabricFrame&, std::uint64_t at_ps)>;
  using Dropped = std::function<void(const FabricFrame&, LinkId at_link, std::uint64_t at_ps)>;

  // `link_latency_ps`: propagation (and switch pipeline) delay per link.
  FabricSim(const Fabric& fabric, std::uint64_t link_latency_ps);

  // The frame's last byte left its host's NIC at `at_ps`; it reaches its leaf one link
  // latency later, which must not be before the time the fabric has run to (a frame may be
  // injected up to one latency in the fabric's past: what conservative synchronisation with
  // a window of one latency needs). Throws std::invalid_argument for that, a path that does
  // not lead from the source's host link to the destination's, or an empty frame.
  void inject(FabricFrame frame, std::uint64_t at_ps);
  // Processes every hop event before `until_ps`; deliveries and drops are reported through
  // the callbacks, in time order. A callback may inject (a retransmission, the next frame).
  void run_until(std::uint64_t until_ps, const Delivered& delivered, const Dropped& dropped);
  // The earliest pending event, or UINT64_MAX when nothing is in flight.
  [[nodiscard]] std::uint64_t next_event_ps() const;
  [[nodiscard]] std::size_t in_flight() const { return events_.size(); }

  [[nodiscard]] const PortStats& port(LinkId link) const { return ports_.at(link).stats; }
  [[nodiscard]] std::uint64_t serialisation_ps(LinkId link, std::uint32_t bytes) const;
  [[nodiscard]] std::uint64_t now_ps() const { return now_ps_; }

 private:
  struct Port {
    std::uint64_t busy_until = 0;
    PortStats stats;
  };
  struct Event {
    std::uint64_t at_ps;
    std::uint64_t seq;
    std::size_t hop;          // index into the frame's path of the link it now enters; path.size(): delivered
    std::size_t frame;        // index into frames_
    bool operator>(const Event& o) const { return at_ps != o.at_ps ? at_ps > o.at_ps : seq > o.seq; }
  };

  const Fabric* fabric_;
  std::uint64_t latency_ps_;
  std::vector<Port> ports_;
  std::vector<FabricFrame> frames_;   // slots of frames in flight
  std::vector<std::size_t> free_slots_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::uint64_t seq_ = 0;
  std::uint64_t now_ps_ = 0;
};

}  // namespace nicsched::cluster
