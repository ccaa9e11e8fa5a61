// Placement: which GPUs a job's workers get, and (for vClos) which fabric links it owns.
//
//   random  the workers on GPUs drawn uniformly from the free ones (a scheduler that ignores
//           the topology).
//   packed  first fit in GPU order: fills a server, then the next, then the next leaf (the
//           locality-first default of cluster schedulers).
//   vclos   contention-free, after vClos: a job that fits under one leaf goes there (fewest
//           free GPUs that still fit, so large holes stay open) and uses no fabric link; a
//           larger job gets the fewest leaves that hold it and one spine whose up and down
//           links to each of those leaves no other job holds. Its ring crosses the spines
//           once per leaf, and every crossing takes that spine (Flow::spine). When no such
//           placement exists the job waits: it never shares a leaf <-> spine link.
// Inside a leaf every policy fills the servers with the most free GPUs first, so a job spans
// as few servers as it can. A server whose NIC has no tenant left for another job
// (set_job_slots) counts as full.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

#include "nicsched/cluster/fabric.hpp"

namespace nicsched::cluster {

enum class PlacementPolicy : std::uint8_t { kRandom, kPacked, kVclos };
[[nodiscard]] std::string_view to_string(PlacementPolicy p);
[[nodiscard]] std::optional<PlacementPolicy> placement_from(std::string_view name);  // "random", "packed", "vclos"
inline constexpr std::string_view kPlacementNames = "random, packed, vclos";

struct Allocation {
  std::vector<unsigned> gpus;     // ascending
  std::optional<unsigned> spine;  // the spine a vClos job's ring crossings take
};

class Placer {
 public:
  Placer(const Fabric& fabric, PlacementPolicy policy, std::uint64_t seed);

  // Places `workers` workers of `job`, or nullopt when the policy finds no room now (the job
  // waits). Throws std::invalid_argument when `job` is placed already, or when `workers` is
  // 0 or more than the fabric has GPUs (it could never run).
  std::optional<Allocation> place(unsigned job, unsigned workers);
  // Frees the job's GPUs and links. Throws std::invalid_argument for a job not placed.
  void release(unsigned job);

  [[nodiscard]] unsigned free_gpus() const;
  [[nodiscard]] PlacementPolicy policy() const { return policy_; }
  // How many jobs each server may hold at once (its NIC has one tenant per job on it, beside
  // the tenants pinned to it); unlimited by default. A server at its limit gets no workers.
  void set_job_slots(std::vector<unsigned> slots_per_host);

 private:
  [[nodiscard]] unsigned free_on_host(unsigned host) const;
  [[nodiscard]] unsigned free_on_leaf(unsigned leaf) const;
  // Takes `count` free GPUs from `leaf`'s servers, fullest-free first.
  void take_from_leaf(unsigned leaf, unsigned count, std::vector<unsigned>& out) const;
  std::optional<Allocation> place_vclos(unsigned workers) const;

  const Fabric* fabric_;
  PlacementPolicy policy_;
  std::mt19937_64 rng_;
  [[nodiscard]] bool usable(unsigned gpu) const;  // free, on a server with a job slot left
  [[nodiscard]] std::vector<unsigned> hosts_of(const Allocation& a) const;  // ascending, once each

  std::vector<int> gpu_owner_;    // job id, or -1 when free
  std::vector<unsigned> slots_;   // per server: jobs it may still take
  std::vector<int> link_owner_;   // vClos reservations of leaf <-> spine links, -1 when free
  std::map<unsigned, Allocation> placed_;
};

}  // namespace nicsched::cluster
