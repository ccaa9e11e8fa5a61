// Solo baselines: what each tenant of a scenario achieves alone on the NIC, the
// normalisers of slowdown and normalised progress (metrics.hpp) and of the agent's reward.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "nicsched/sim/scenario.hpp"

namespace nicsched::sim {

// Per tenant, what it achieved alone on the NIC.
struct SoloResult {
  std::optional<double> iter_mean_cycles;
  double progress_rate = 0;
};

// Runs every tenant alone (FIFO baseline) until it completes `iterations` iterations or
// the scenario ends; results are cached in cache_dir (empty: no cache) under the
// scenario's name and digest.
[[nodiscard]] std::vector<std::optional<SoloResult>> solo_baselines(const Scenario& s,
                                                                    const std::filesystem::path& cache_dir,
                                                                    std::optional<std::uint64_t> cycles,
                                                                    std::uint64_t iterations = 6);
// $XDG_CACHE_HOME/nicsched, else $HOME/.cache/nicsched, else "" (no cache).
[[nodiscard]] std::filesystem::path default_cache_dir();

}  // namespace nicsched::sim
