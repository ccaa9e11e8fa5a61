#include "nicsched/cluster/routing.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <stdexcept>

namespace nicsched::cluster {

std::uint32_t host_ip(unsigned host) { return (10u << 24) + host + 1; }

std::uint32_t ecmp_hash(const Flow& flow) {
  std::array<unsigned char, 13> tuple{};
  auto put = [&tuple](std::size_t at, std::uint32_t value, std::size_t bytes) {
    for (std::size_t i = 0; i < bytes; ++i) tuple[at + i] = static_cast<unsigned char>(value >> (8 * (bytes - 1 - i)));
  };
  put(0, host_ip(flow.src_host), 4);
  put(4, host_ip(flow.dst_host), 4);
  put(8, kUdpProtocol, 1);
  put(9, flow.src_port, 2);
  put(11, flow.dst_port, 2);
  return static_cast<std::uint32_t>(crc32(0L, tuple.data(), static_cast<uInt>(tuple.size())));
}

std::vector<Flow> ring_flows(const Fabric& fabric, unsigned job, std::vector<unsigned> gpus, double gradient_bytes) {
  std::sort(gpus.begin(), gpus.end());
  if (std::adjacent_find(gpus.begin(), gpus.end()) != gpus.end())
    throw std::invalid_argument(fmt::format("job {}: a GPU appears twice among its workers", job));
  for (unsigned g : gpus)
    if (g >= fabric.gpus()) throw std::out_of_range(fmt::format("job {}: GPU {} (the fabric has {})", job, g, fabric.gpus()));
  std::vector<Flow> flows;
  const std::size_t n = gpus.size();
  if (n < 2) return flows;
  const double per_edge = 2.0 * static_cast<double>(n - 1) / static_cast<double>(n) * gradient_bytes;
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned src = fabric.host_of_gpu(gpus[i]);
    const unsigned dst = fabric.host_of_gpu(gpus[(i + 1) % n]);
    if (src == dst) continue;  // NVLink inside the server, not the network
    Flow f;
    f.job = job;
    f.src_host = src;
    f.dst_host = dst;
    f.src_port = static_cast<std::uint16_t>(49152 + (job * 1024 + i) % 16384);
    f.bytes = per_edge;
    flows.push_back(f);
  }
  return flows;
}

std::string_view to_string(Routing r) { return r == Routing::kEcmp ? "ecmp" : "balanced"; }

std::optional<Routing> routing_from(std::string_view name) {
  if (name == "ecmp") return Routing::kEcmp;
  if (name == "balanced") return Routing::kBalanced;
  return std::nullopt;
}

std::vector<Path> route(const Fabric& fabric, const std::vector<Flow>& flows, Routing routing) {
  const unsigned spines = fabric.spec().spines;
  std::vector<unsigned> spine(flows.size(), 0);
  std::vector<double> load(fabric.links(), 0.0);
  auto crosses = [&](const Flow& f) { return fabric.leaf_of(f.src_host) != fabric.leaf_of(f.dst_host); };

  // Pinned flows first: balanced routing counts them as load it cannot move.
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const Flow& f = flows[i];
    if (!f.spine) continue;
    if (*f.spine >= spines) throw std::out_of_range(fmt::format("job {}: pinned spine {} (the fabric has {})", f.job, *f.spine, spines));
    spine[i] = *f.spine;
    if (crosses(f)) {
      load[fabric.leaf_up(fabric.leaf_of(f.src_host), spine[i])] += f.bytes;
      load[fabric.spine_down(spine[i], fabric.leaf_of(f.dst_host))] += f.bytes;
    }
  }
  std::vector<std::size_t> order(flows.size());
  std::iota(order.begin(), order.end(), 0);
  if (routing == Routing::kBalanced)
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return flows[a].bytes > flows[b].bytes; });
  for (std::size_t i : order) {
    const Flow& f = flows[i];
    if (f.spine || !crosses(f)) continue;
    if (routing == Routing::kEcmp) {
      spine[i] = ecmp_hash(f) % spines;
      continue;
    }
    const unsigned ls = fabric.leaf_of(f.src_host);
    const unsigned ld = fabric.leaf_of(f.dst_host);
    // The spine whose busier link would be least loaded; ties to the smaller sum, then index.
    unsigned best = 0;
    double best_max = 0.0;
    double best_sum = 0.0;
    for (unsigned s = 0; s < spines; ++s) {
      const double up = load[fabric.leaf_up(ls, s)] + f.bytes;
      const double down = load[fabric.spine_down(s, ld)] + f.bytes;
      const double mx = std::max(up, down);
      if (s == 0 || mx < best_max || (mx == best_max && up + down < best_sum)) {
        best = s;
        best_max = mx;
        best_sum = up + down;
      }
    }
    spine[i] = best;
    load[fabric.leaf_up(ls, best)] += f.bytes;
    load[fabric.spine_down(best, ld)] += f.bytes;
  }
  std::vector<Path> paths;
  paths.reserve(flows.size());
  for (std::size_t i = 0; i < flows.size(); ++i) paths.push_back(fabric.path(flows[i].src_host, flows[i].dst_host, spine[i]));
  return paths;
}

FabricUse tally(const Fabric& fabric, const std::vector<Flow>& flows, const std::vector<Path>& paths) {
  if (flows.size() != paths.size())
    throw std::invalid_argument(fmt::format("tally: {} flows but {} paths", flows.size(), paths.size()));
  FabricUse use;
  use.links.resize(fabric.links());
  for (std::size_t i = 0; i < flows.size(); ++i) {
    for (LinkId id : paths[i]) {
      LinkUse& u = use.links.at(id);
      u.bytes += flows[i].bytes;
      ++u.flows;
      const auto at = std::lower_bound(u.jobs.begin(), u.jobs.end(), flows[i].job);
      if (at == u.jobs.end() || *at != flows[i].job) u.jobs.insert(at, flows[i].job);
    }
  }
  return use;
}

unsigned FabricUse::collisions(const Fabric& fabric) const {
  unsigned n = 0;
  for (LinkId id = 0; id < links.size(); ++id)
    if (fabric.is_fabric_link(id) && links[id].jobs.size() >= 2) ++n;
  return n;
}

}  // namespace nicsched::cluster
