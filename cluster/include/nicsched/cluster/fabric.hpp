// A two-tier leaf-spine fabric: hosts under leaf switches, every leaf linked to every spine.
// Links are directional (a full-duplex cable is two links) and numbered densely, so per-link
// state is a vector indexed by LinkId.
//
//   host h --host_up(h)--> leaf(h) --leaf_up(l, s)--> spine s --spine_down(s, l')--> leaf l'
//          <-host_down(h)--                                        --host_down(h')--> host h'
//
// A path between two hosts under one leaf is {host_up, host_down}; between leaves it crosses
// one spine: {host_up, leaf_up, spine_down, host_down}. Which spine is the routing policy's
// choice (routing.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace nicsched::cluster {

// The shape and rates of a fabric, as a cluster scenario declares them.
struct FabricSpec {
  unsigned leaves = 4;               // leaf (top-of-rack) switches
  unsigned spines = 2;               // spine switches; each leaf has one uplink to each
  unsigned hosts_per_leaf = 4;       // servers under each leaf
  unsigned gpus_per_host = 8;        // GPUs per server (workers are placed on GPUs)
  double host_gbps = 100.0;          // host <-> leaf link rate
  double uplink_gbps = 100.0;        // leaf <-> spine link rate
  std::uint64_t port_buffer_bytes = 1u << 20;  // each switch output port's buffer

  // Hosts' bandwidth into a leaf over the leaf's bandwidth to the spines (1 = non-blocking).
  [[nodiscard]] double oversubscription() const {
    return hosts_per_leaf * host_gbps / (spines * uplink_gbps);
  }
};

enum class LinkKind : std::uint8_t {
  kHostUp,     // host -> its leaf
  kHostDown,   // leaf -> host
  kLeafUp,     // leaf -> spine
  kSpineDown,  // spine -> leaf
};

using LinkId = unsigned;
using Path = std::vector<LinkId>;

struct Link {
  LinkKind kind;
  unsigned leaf;  // the leaf at one end
  unsigned peer;  // the host (kHostUp/kHostDown) or the spine (kLeafUp/kSpineDown)
  double gbps;
};

class Fabric {
 public:
  // Throws std::invalid_argument naming the field when a count is 0 or a rate not positive.
  explicit Fabric(const FabricSpec& spec);

  [[nodiscard]] const FabricSpec& spec() const { return spec_; }
  [[nodiscard]] unsigned hosts() const { return spec_.leaves * spec_.hosts_per_leaf; }
  [[nodiscard]] unsigned gpus() const { return hosts() * spec_.gpus_per_host; }
  [[nodiscard]] unsigned leaf_of(unsigned host) const { return host / spec_.hosts_per_leaf; }
  [[nodiscard]] unsigned host_of_gpu(unsigned gpu) const { return gpu / spec_.gpus_per_host; }

  [[nodiscard]] LinkId host_up(unsigned host) const;
  [[nodiscard]] LinkId host_down(unsigned host) const;
  [[nodiscard]] LinkId leaf_up(unsigned leaf, unsigned spine) const;
  [[nodiscard]] LinkId spine_down(unsigned spine, unsigned leaf) const;

  [[nodiscard]] std::size_t links() const { return links_.size(); }
  [[nodiscard]] const Link& link(LinkId id) const { return links_.at(id); }
  // "host3->leaf0", "leaf1->spine0", "spine0->leaf2", "leaf0->host3".
  [[nodiscard]] std::string name(LinkId id) const;
  [[nodiscard]] bool is_fabric_link(LinkId id) const;  // leaf <-> spine

  // The links from `src` to `dst` (different hosts); `spine` is used only when they sit under
  // different leaves. Throws std::out_of_range for a host or spine the fabric lacks.
  [[nodiscard]] Path path(unsigned src, unsigned dst, unsigned spine) const;

 private:
  FabricSpec spec_;
  std::vector<Link> links_;  // host_up[0..H), host_down[0..H), leaf_up[l*S+s], spine_down[s*L+l]
};

}  // namespace nicsched::cluster
