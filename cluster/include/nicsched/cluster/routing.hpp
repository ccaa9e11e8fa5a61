// Flows on a leaf-spine fabric and the routing policies that choose their spines.
//
// A job's ring all-reduce orders its workers by host (the order NCCL builds a ring in: the
// GPUs of a server together, servers in order), so each pair of consecutive workers on
// different hosts is one flow on the network, and a ring spanning k leaves crosses the spines
// k times. Flows look as RoCEv2 traffic does to a switch: UDP to port 4791, the source port
// carrying the queue pair's entropy.
//
// Routing policies:
//   ECMP      each switch hashes the flow's 5-tuple (CRC-32 over source and destination IPv4
//             address, protocol, source and destination port) and takes spine hash mod S;
//             flows of different jobs that hash onto one uplink collide.
//   balanced  the ring pattern is known, so each flow takes the spine whose two links
//             (leaf -> spine, spine -> leaf) would be least loaded after adding it, largest
//             flows first; no job is moved.
// A placement that reserves links (vClos, placement.hpp) pins its flows' spine; both policies
// keep a pinned spine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nicsched/cluster/fabric.hpp"

namespace nicsched::cluster {

inline constexpr std::uint16_t kRoceV2Port = 4791;
inline constexpr std::uint8_t kUdpProtocol = 17;

struct Flow {
  unsigned job = 0;
  unsigned src_host = 0;
  unsigned dst_host = 0;
  std::uint16_t src_port = 0;
  std::uint16_t dst_port = kRoceV2Port;
  double bytes = 0.0;                 // bytes per iteration of the job (balanced routing's weight)
  std::optional<unsigned> spine;      // pinned by the placement (vClos), else chosen by routing
};

// Host h's IPv4 address: 10.0.0.0 + h + 1 (10.0.0.1 for host 0).
[[nodiscard]] std::uint32_t host_ip(unsigned host);
// The ECMP hash: CRC-32 (IEEE 802.3, as zlib's crc32) of the 13 bytes src IP, dst IP,
// protocol, src port, dst port, multi-byte fields big-endian.
[[nodiscard]] std::uint32_t ecmp_hash(const Flow& flow);

// The network flows of one job's ring all-reduce: `gpus` are the job's workers (any order),
// each ring edge carries 2 (n - 1) / n x `gradient_bytes` per iteration (n workers). Source
// ports are 49152 + a number unique to (job, edge) within the job.
[[nodiscard]] std::vector<Flow> ring_flows(const Fabric& fabric, unsigned job, std::vector<unsigned> gpus,
                                           double gradient_bytes);

enum class Routing : std::uint8_t { kEcmp, kBalanced };
[[nodiscard]] std::string_view to_string(Routing r);
[[nodiscard]] std::optional<Routing> routing_from(std::string_view name);  // "ecmp", "balanced"
inline constexpr std::string_view kRoutingNames = "ecmp, balanced";

// One path per flow, in the flows' order.
[[nodiscard]] std::vector<Path> route(const Fabric& fabric, const std::vector<Flow>& flows, Routing routing);

// What the flows put on each link.
struct LinkUse {
  double bytes = 0.0;             // sum of the flows' bytes per iteration
  unsigned flows = 0;
  std::vector<unsigned> jobs;     // distinct jobs, ascending
};

struct FabricUse {
  std::vector<LinkUse> links;     // indexed by LinkId
  // Leaf <-> spine links that carry flows of two or more jobs (a host's own links are shared
  // by the jobs on that host by design: its NIC schedules them).
  [[nodiscard]] unsigned collisions(const Fabric& fabric) const;
};

[[nodiscard]] FabricUse tally(const Fabric& fabric, const std::vector<Flow>& flows, const std::vector<Path>& paths);

}  // namespace nicsched::cluster
