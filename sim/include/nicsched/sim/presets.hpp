// Presets a scenario names instead of writing numbers: DDP models (real gradient size and
// compute time per iteration) and crypto engines (bytes per cycle per slot, latency). Every
// value, its GPU, batch size and source is in docs/scaling.md, "Presets".
#pragma once

#include <string>
#include <vector>

namespace nicsched::sim {

// A real DDP job: gradient bytes all-reduced per iteration and the compute between bursts.
struct ModelPreset {
  const char* name;
  double model_mb;    // gradient size, MB (10^6 bytes)
  double compute_ms;  // forward + backward time per iteration on one GPU
};
[[nodiscard]] const std::vector<ModelPreset>& model_presets();
[[nodiscard]] const ModelPreset* find_model_preset(const std::string& name);  // nullptr: none

// An AES-GCM engine behind one crypto slot: a packet holds the slot for
// ceil(length / bytes_per_cycle) + latency cycles.
struct CryptoPreset {
  const char* name;
  unsigned bytes_per_cycle;
  unsigned latency;   // cycles
};
[[nodiscard]] const std::vector<CryptoPreset>& crypto_presets();
[[nodiscard]] const CryptoPreset* find_crypto_preset(const std::string& name);  // nullptr: none

}  // namespace nicsched::sim
