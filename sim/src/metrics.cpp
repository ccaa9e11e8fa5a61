// The statistics metrics are built from (percentile, mean, Jain). Output: report.cpp.
#include "nicsched/sim/metrics.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

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

// tools/starvation.py's t95 mirrors this (same table, same expansion); the test
// tools.starvation.t95_matches_cpp fails when the two differ. Change both or neither.
double student_t_975(std::uint64_t df) {
  static constexpr std::array<double, 30> kTable{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                                 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                                 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                                 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  if (df == 0) return INFINITY;
  if (df <= kTable.size()) return kTable[df - 1];
  const double z = 1.959964;  // the normal distribution's 0.975 quantile
  const double n = static_cast<double>(df);
  return z + (z * z * z + z) / (4 * n) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * n * n);
}

std::optional<double> ci95_half_width(const std::vector<double>& samples) {
  if (samples.size() < 2) return std::nullopt;
  const double m = *mean(samples);
  double sq = 0;
  for (double x : samples) sq += (x - m) * (x - m);
  const double n = static_cast<double>(samples.size());
  return student_t_975(samples.size() - 1) * std::sqrt(sq / (n - 1)) / std::sqrt(n);
}

PairedGain paired_gain(const std::vector<double>& x, const std::vector<double>& reference) {
  if (x.size() != reference.size()) {
    throw std::invalid_argument("paired_gain: " + std::to_string(x.size()) + " values against " +
                                std::to_string(reference.size()) + " reference values");
  }
  std::vector<double> gains;
  PairedGain g;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) || std::isnan(reference[i])) continue;
    const double v = (reference[i] - x[i]) / reference[i] * 100;
    gains.push_back(v);
    g.faster += v > 0 ? 1 : 0;
    g.slower += v < 0 ? 1 : 0;
  }
  g.n = gains.size();
  g.mean = mean(gains).value_or(NAN);
  g.ci = ci95_half_width(gains);
  return g;
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
