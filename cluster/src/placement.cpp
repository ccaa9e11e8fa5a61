#include "nicsched/cluster/placement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace nicsched::cluster {

std::string_view to_string(PlacementPolicy p) {
  switch (p) {
    case PlacementPolicy::kRandom: return "random";
    case PlacementPolicy::kPacked: return "packed";
    case PlacementPolicy::kVclos: return "vclos";
  }
  return "?";
}

std::optional<PlacementPolicy> placement_from(std::string_view name) {
  for (PlacementPolicy p : {PlacementPolicy::kRandom, PlacementPolicy::kPacked, PlacementPolicy::kVclos})
    if (name == to_string(p)) return p;
  return std::nullopt;
}

std::vector<unsigned> Placer::hosts_of(const Allocation& a) const {
  std::vector<unsigned> hosts;
  for (unsigned g : a.gpus) hosts.push_back(fabric_->host_of_gpu(g));
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());  // gpus ascending
  return hosts;
}

Placer::Placer(const Fabric& fabric, PlacementPolicy policy, std::uint64_t seed)
    : fabric_(&fabric),
      policy_(policy),
      rng_(seed),
      gpu_owner_(fabric.gpus(), -1),
      slots_(fabric.hosts(), std::numeric_limits<unsigned>::max()),
      link_owner_(fabric.links(), -1) {}

void Placer::set_job_slots(std::vector<unsigned> slots_per_host) {
  if (slots_per_host.size() != fabric_->hosts())
    throw std::invalid_argument(fmt::format("job slots for {} servers (the fabric has {})", slots_per_host.size(),
                                            fabric_->hosts()));
  if (!placed_.empty()) throw std::invalid_argument("job slots set after jobs were placed");
  slots_ = std::move(slots_per_host);
}

bool Placer::usable(unsigned gpu) const { return gpu_owner_[gpu] == -1 && slots_[fabric_->host_of_gpu(gpu)] > 0; }

unsigned Placer::free_gpus() const {
  unsigned n = 0;
  for (unsigned g = 0; g < gpu_owner_.size(); ++g) n += usable(g) ? 1u : 0u;
  return n;
}

unsigned Placer::free_on_host(unsigned host) const {
  const unsigned g = fabric_->spec().gpus_per_host;
  unsigned n = 0;
  for (unsigned i = host * g; i < (host + 1) * g; ++i) n += usable(i) ? 1u : 0u;
  return n;
}

unsigned Placer::free_on_leaf(unsigned leaf) const {
  const unsigned per_leaf = fabric_->spec().hosts_per_leaf;
  unsigned n = 0;
  for (unsigned h = leaf * per_leaf; h < (leaf + 1) * per_leaf; ++h) n += free_on_host(h);
  return n;
}

void Placer::take_from_leaf(unsigned leaf, unsigned count, std::vector<unsigned>& out) const {
  const FabricSpec& spec = fabric_->spec();
  std::vector<unsigned> hosts(spec.hosts_per_leaf);
  std::iota(hosts.begin(), hosts.end(), leaf * spec.hosts_per_leaf);
  std::stable_sort(hosts.begin(), hosts.end(), [&](unsigned a, unsigned b) { return free_on_host(a) > free_on_host(b); });
  for (unsigned h : hosts) {
    for (unsigned g = h * spec.gpus_per_host; g < (h + 1) * spec.gpus_per_host && count > 0; ++g) {
      if (!usable(g)) continue;
      out.push_back(g);
      --count;
    }
  }
}

std::optional<Allocation> Placer::place_vclos(unsigned workers) const {
  const FabricSpec& spec = fabric_->spec();
  // One leaf: the one with the fewest free GPUs that still holds the job.
  std::optional<unsigned> best_leaf;
  for (unsigned l = 0; l < spec.leaves; ++l) {
    const unsigned f = free_on_leaf(l);
    if (f >= workers && (!best_leaf || f < free_on_leaf(*best_leaf))) best_leaf = l;
  }
  Allocation a;
  if (best_leaf) {
    take_from_leaf(*best_leaf, workers, a.gpus);
    std::sort(a.gpus.begin(), a.gpus.end());
    return a;
  }
  // k leaves and one spine free on all of them: the fewest leaves, then the lowest spine.
  for (unsigned k = 2; k <= spec.leaves; ++k) {
    for (unsigned s = 0; s < spec.spines; ++s) {
      std::vector<unsigned> leaves;
      for (unsigned l = 0; l < spec.leaves; ++l)
        if (free_on_leaf(l) > 0 && link_owner_[fabric_->leaf_up(l, s)] == -1 && link_owner_[fabric_->spine_down(s, l)] == -1)
          leaves.push_back(l);
      std::stable_sort(leaves.begin(), leaves.end(), [&](unsigned x, unsigned y) { return free_on_leaf(x) > free_on_leaf(y); });
      if (leaves.size() < k) continue;
      leaves.resize(k);
      unsigned room = 0;
      for (unsigned l : leaves) room += free_on_leaf(l);
      if (room < workers) continue;
      // Fill the leaves in order; every chosen leaf gets at least one worker so the ring
      // crosses exactly the links reserved below.
      unsigned left = workers;
      for (std::size_t i = 0; i < leaves.size(); ++i) {
        const unsigned later = static_cast<unsigned>(leaves.size() - i - 1);
        const unsigned take = std::min(free_on_leaf(leaves[i]), left - later);
        take_from_leaf(leaves[i], take, a.gpus);
        left -= take;
      }
      std::sort(a.gpus.begin(), a.gpus.end());
      a.spine = s;
      return a;
    }
  }
  return std::nullopt;
}

std::optional<Allocation> Placer::place(unsigned job, unsigned workers) {
  if (placed_.count(job)) throw std::invalid_argument(fmt::format("job {} is placed already", job));
  if (workers == 0 || workers > fabric_->gpus())
    throw std::invalid_argument(fmt::format("job {}: {} workers (the fabric has {} GPUs)", job, workers, fabric_->gpus()));
  if (workers > free_gpus()) return std::nullopt;

  Allocation a;
  switch (policy_) {
    case PlacementPolicy::kRandom: {
      std::vector<unsigned> free;
      for (unsigned g = 0; g < gpu_owner_.size(); ++g)
        if (usable(g)) free.push_back(g);
      // A partial Fisher-Yates shuffle: the first `workers` entries are a uniform draw.
      for (unsigned i = 0; i < workers; ++i) {
        std::uniform_int_distribution<std::size_t> pick(i, free.size() - 1);
        std::swap(free[i], free[pick(rng_)]);
      }
      a.gpus.assign(free.begin(), free.begin() + workers);
      break;
    }
    case PlacementPolicy::kPacked:
      for (unsigned g = 0; g < gpu_owner_.size() && a.gpus.size() < workers; ++g)
        if (usable(g)) a.gpus.push_back(g);
      break;
    case PlacementPolicy::kVclos: {
      auto v = place_vclos(workers);
      if (!v) return std::nullopt;
      a = std::move(*v);
      break;
    }
  }
  std::sort(a.gpus.begin(), a.gpus.end());
  for (unsigned g : a.gpus) gpu_owner_[g] = static_cast<int>(job);
  for (unsigned h : hosts_of(a)) --slots_[h];
  if (a.spine) {
    std::vector<bool> on_leaf(fabric_->spec().leaves, false);
    for (unsigned g : a.gpus) on_leaf[fabric_->leaf_of(fabric_->host_of_gpu(g))] = true;
    for (unsigned l = 0; l < on_leaf.size(); ++l) {
      if (!on_leaf[l]) continue;
      link_owner_[fabric_->leaf_up(l, *a.spine)] = static_cast<int>(job);
      link_owner_[fabric_->spine_down(*a.spine, l)] = static_cast<int>(job);
    }
  }
  placed_.emplace(job, a);
  return a;
}

void Placer::release(unsigned job) {
  const auto it = placed_.find(job);
  if (it == placed_.end()) throw std::invalid_argument(fmt::format("job {} is not placed", job));
  for (unsigned h : hosts_of(it->second)) ++slots_[h];
  for (int& owner : gpu_owner_)
    if (owner == static_cast<int>(job)) owner = -1;
  for (int& owner : link_owner_)
    if (owner == static_cast<int>(job)) owner = -1;
  placed_.erase(it);
}

}  // namespace nicsched::cluster
