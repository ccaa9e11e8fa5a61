#include "nicsched/cluster/fabric.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace nicsched::cluster {

namespace {

void require_count(unsigned value, const char* field) {
  if (value == 0) throw std::invalid_argument(fmt::format("fabric.{}: must be at least 1", field));
}

void require_rate(double gbps, const char* field) {
  if (!(gbps > 0.0)) throw std::invalid_argument(fmt::format("fabric.{}: must be a positive rate, got {}", field, gbps));
}

}  // namespace

Fabric::Fabric(const FabricSpec& spec) : spec_(spec) {
  require_count(spec.leaves, "leaves");
  require_count(spec.spines, "spines");
  require_count(spec.hosts_per_leaf, "hosts_per_leaf");
  require_count(spec.gpus_per_host, "gpus_per_host");
  require_rate(spec.host_gbps, "host_gbps");
  require_rate(spec.uplink_gbps, "uplink_gbps");
  if (spec.port_buffer_bytes == 0) throw std::invalid_argument("fabric.port_buffer_bytes: must be at least 1");

  const unsigned h_count = hosts();
  links_.reserve(2 * h_count + 2 * spec.leaves * spec.spines);
  for (unsigned h = 0; h < h_count; ++h) links_.push_back({LinkKind::kHostUp, leaf_of(h), h, spec.host_gbps});
  for (unsigned h = 0; h < h_count; ++h) links_.push_back({LinkKind::kHostDown, leaf_of(h), h, spec.host_gbps});
  for (unsigned l = 0; l < spec.leaves; ++l)
    for (unsigned s = 0; s < spec.spines; ++s) links_.push_back({LinkKind::kLeafUp, l, s, spec.uplink_gbps});
  for (unsigned s = 0; s < spec.spines; ++s)
    for (unsigned l = 0; l < spec.leaves; ++l) links_.push_back({LinkKind::kSpineDown, l, s, spec.uplink_gbps});
}

LinkId Fabric::host_up(unsigned host) const {
  if (host >= hosts()) throw std::out_of_range(fmt::format("host {} (the fabric has {})", host, hosts()));
  return host;
}

LinkId Fabric::host_down(unsigned host) const { return hosts() + host_up(host); }

LinkId Fabric::leaf_up(unsigned leaf, unsigned spine) const {
  if (leaf >= spec_.leaves) throw std::out_of_range(fmt::format("leaf {} (the fabric has {})", leaf, spec_.leaves));
  if (spine >= spec_.spines) throw std::out_of_range(fmt::format("spine {} (the fabric has {})", spine, spec_.spines));
  return 2 * hosts() + leaf * spec_.spines + spine;
}

LinkId Fabric::spine_down(unsigned spine, unsigned leaf) const {
  (void)leaf_up(leaf, spine);  // range checks
  return 2 * hosts() + spec_.leaves * spec_.spines + spine * spec_.leaves + leaf;
}

std::string Fabric::name(LinkId id) const {
  const Link& l = link(id);
  switch (l.kind) {
    case LinkKind::kHostUp: return fmt::format("host{}->leaf{}", l.peer, l.leaf);
    case LinkKind::kHostDown: return fmt::format("leaf{}->host{}", l.leaf, l.peer);
    case LinkKind::kLeafUp: return fmt::format("leaf{}->spine{}", l.leaf, l.peer);
    case LinkKind::kSpineDown: return fmt::format("spine{}->leaf{}", l.peer, l.leaf);
  }
  return "?";
}

bool Fabric::is_fabric_link(LinkId id) const {
  const LinkKind k = link(id).kind;
  return k == LinkKind::kLeafUp || k == LinkKind::kSpineDown;
}

Path Fabric::path(unsigned src, unsigned dst, unsigned spine) const {
  if (src == dst) throw std::invalid_argument(fmt::format("a path from host {} to itself", src));
  const unsigned ls = leaf_of(host_up(src));
  const unsigned ld = leaf_of(host_up(dst));
  if (ls == ld) return {host_up(src), host_down(dst)};
  return {host_up(src), leaf_up(ls, spine), spine_down(spine, ld), host_down(dst)};
}

}  // namespace nicsched::cluster
