// The statistics metrics are built from (percentile, mean, Jain). Output: report.cpp.
#include "nicsched/sim/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace nicsched::sim {

std::optional<double> percentile(std::vector<double> samples, double p) {
  if (samples.empty()) return std::nullopt;
  std::sort(samples.begin(), samples.end());
  const double rank = std::ceil(p / 100.0 * static_cast<double>(samples.size()));
  const auto idx = static_cast<std::size_t>(std::clamp(rank, 1.0, static_cast<double>(samples.size()))) - 1;
  return samples[idx];
}

std::optional<double> mean(const std::vector<double>& samples) {
  if (samples.empty()) return std::nullopt;
  return std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
}

std::optional<double> jain_index(const std::vector<double>& x) {
  if (x.empty()) return std::nullopt;
  double sum = 0;
  double sq = 0;
  for (double v : x) {
    sum += v;
    sq += v * v;
  }
  if (sq <= 0) return std::nullopt;
  return sum * sum / (static_cast<double>(x.size()) * sq);
}

}  // namespace nicsched::sim
