// ObservationEncoder: NicEnv's observation (docs/agent.md, "Observation"): stacked frames of
// per-tenant and global features, each feature at a named index.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "nicsched/control/env_config.hpp"
#include "nicsched/control/tracker.hpp"
#include "nicsched/host/types.hpp"

namespace nicsched::control {

// One tenant's features in a frame, at these indices of its slice (docs/agent.md,
// "Observation", numbers them the same). Ratios are clipped to [0, the bound named].
struct TenantFeature {
  enum Index : std::size_t {
    kPresent,         // 1 once the tenant has shown traffic in the episode (the mask of absent tenants)
    kShare,           // its share of all tenants' bytes in the interval
    kLinkFraction,    // its bytes / line-rate bytes in the interval (<= 2)
    kOffered,         // bulk bytes offered / line-rate bytes in the interval (<= 4)
    kBulkDepth,       // bulk queue depth / its limit
    kControlDepth,    // control queue depth / its limit
    kDrops,           // log(1 + drops in the interval)
    kCryptoBusy,      // crypto slot busy fraction
    kCryptoWait,      // crypto head-of-line wait fraction
    kControlLatency,  // mean control-packet latency / 1000 cycles (<= 4)
    kInBurst,         // 1 while the tenant is in a burst
    kBurstAge,        // time since the burst began / estimated period (<= 4)
    kBurstBytes,      // bytes sent in this burst / the previous burst's size (<= 4)
    kPeriod,          // estimated period / 256 intervals (<= 4)
    kAttained,        // log(1 + attained bytes / line-rate interval bytes) / 10
    kBurstLeft,       // estimated bytes left in the burst / 16 line-rate intervals (<= 4)
    kPriority,        // the action in force: priority / (the NIC's levels - 1)
    kWeightLevel,     // weight level / (weight_levels - 1)
    kCryptoQuota,     // crypto quota / the NIC's crypto slots
    kCount,           // 19: the features of an observation without the control head
    // With the control head (NicEnvConfig::control_levels > 1) only:
    kControlBytes = kCount,  // control bytes out / what the reset control bucket passes in the interval (<= 4)
    kControlLevel,           // the control level in force / (control_levels - 1); 0: the scenario's bucket
    kCountWithControl,       // 21
  };
};

// The features after every tenant's in a frame, at these indices of the global slice.
struct GlobalFeature {
  enum Index : std::size_t {
    kLinkUtilisation,    // link utilisation in the interval (<= 2)
    kCryptoUtilisation,  // crypto slot utilisation
    kPresentShare,       // share of the NIC's tenant slots present
    kCount,
  };
};

// Observation: `history` frames, newest first; a frame is, per NIC tenant,
// tenant_features() features (the last action included) followed by kGlobalFeatures.
class ObservationEncoder {
 public:
  static constexpr std::size_t kTenantFeatures = TenantFeature::kCount;
  // With the control head (NicEnvConfig::control_levels > 1) each tenant has two more: its
  // control bytes out against the reset control bucket's rate, and the control level in
  // force. Without it the observation is the committed policy's.
  static constexpr std::size_t kControlFeatures = TenantFeature::kCountWithControl - TenantFeature::kCount;
  static constexpr std::size_t kGlobalFeatures = GlobalFeature::kCount;
  [[nodiscard]] static std::size_t tenant_features(const NicEnvConfig& cfg) {
    return kTenantFeatures + (cfg.control_levels > 1 ? kControlFeatures : 0);
  }
  ObservationEncoder(const NicEnvConfig& cfg, const host::Capabilities& caps);
  [[nodiscard]] std::size_t size() const;
  // Clears the history (all frames zero).
  void reset();
  // Pushes the frame for the tracker's latest interval and the action in force.
  void push(const TelemetryTracker& tracker, const host::Policy& in_force);
  void write(std::span<float> out) const;

 private:
  [[nodiscard]] std::size_t frame_size() const;
  NicEnvConfig cfg_;
  host::Capabilities caps_;
  std::vector<float> frames_;  // history * frame_size, newest first
};

}  // namespace nicsched::control
