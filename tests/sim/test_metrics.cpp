// Metric math against hand-computed values.
#include <catch2/catch.hpp>

#include <cmath>

#include "nicsched/sim/metrics.hpp"
#include "nicsched/sim/report.hpp"

using namespace nicsched::sim;

TEST_CASE("nearest-rank percentiles", "[metrics]") {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);  // 1..100, unsorted
  CHECK(*percentile(v, 50) == 50.0);
  CHECK(*percentile(v, 99) == 99.0);
  CHECK(*percentile(v, 100) == 100.0);
  // 10 samples: p99 is rank ceil(9.9) = 10 -> the largest; p50 rank 5.
  const std::vector<double> w{7, 1, 3, 9, 5, 2, 8, 4, 6, 10};
  CHECK(*percentile(w, 99) == 10.0);
  CHECK(*percentile(w, 50) == 5.0);
  CHECK(*percentile({42.0}, 99) == 42.0);
  CHECK_FALSE(percentile({}, 50).has_value());
}

TEST_CASE("mean", "[metrics]") {
  CHECK(*mean({1.0, 2.0, 6.0}) == Approx(3.0));
  CHECK_FALSE(mean({}).has_value());
}

TEST_CASE("95 % confidence interval of a mean uses Student's t", "[metrics]") {
  // Published two-sided 95 % quantiles: df 4 -> 2.776, df 60 -> 2.000, df 120 -> 1.980.
  CHECK(student_t_975(4) == Approx(2.776));
  CHECK(student_t_975(60) == Approx(2.000).margin(1e-3));
  CHECK(student_t_975(120) == Approx(1.980).margin(1e-3));
  CHECK(student_t_975(100000) == Approx(1.960).margin(1e-3));
  // {1..5}: sample variance 2.5, so half-width = 2.776 * sqrt(2.5) / sqrt(5).
  CHECK(*ci95_half_width({1, 2, 3, 4, 5}) == Approx(2.776 * std::sqrt(2.5 / 5.0)));
  CHECK(*ci95_half_width({3, 3, 3}) == Approx(0.0));
  CHECK_FALSE(ci95_half_width({1.0}).has_value());
}

TEST_CASE("paired gain over scenarios: per-scenario % faster than the reference, its mean and CI", "[metrics]") {
  // Reference 2, 4, 5, 10 (NaN scenario left out); x 1, 4, 6, 9: gains 50, 0, -20, 10 %.
  const double nan = std::nan("");
  const auto g = paired_gain({1, 4, 6, nan, 9}, {2, 4, 5, 3, 10});
  CHECK(g.n == 4);
  CHECK(g.faster == 2);
  CHECK(g.slower == 1);
  CHECK(g.mean == Approx(10.0));
  // deviations 40, -10, -30, 0: sum of squares 2600, sample variance 2600 / 3; t(3) = 3.182
  REQUIRE(g.ci.has_value());
  CHECK(*g.ci == Approx(3.182 * std::sqrt(2600.0 / 3 / 4)));
  // Swapping the two is not the negation (each gain is relative to its reference).
  CHECK(paired_gain({2, 4, 5, 10}, {1, 4, 6, 9}).mean == Approx((-100.0 + 0 + 100.0 / 6 - 100.0 / 9) / 4));
  CHECK_FALSE(paired_gain({1}, {2}).ci.has_value());
  CHECK_THROWS_WITH(paired_gain({1, 2}, {1}), Catch::Contains("2 values against 1 reference values"));
}

TEST_CASE("Jain's index", "[metrics]") {
  CHECK(*jain_index({1, 1, 1, 1}) == Approx(1.0));
  CHECK(*jain_index({1, 0, 0, 0}) == Approx(0.25));
  // (1+2+3)^2 / (3 * (1+4+9)) = 36/42
  CHECK(*jain_index({1, 2, 3}) == Approx(36.0 / 42.0));
  CHECK_FALSE(jain_index({0, 0}).has_value());
  CHECK_FALSE(jain_index({}).has_value());
}

TEST_CASE("JSON output carries every tenant and nulls for missing statistics", "[metrics]") {
  RunMetrics m;
  m.scenario = "s";
  m.policy = "fifo";
  TenantMetrics t;
  t.name = "a";
  t.kind = "ddp";
  t.iter_mean_us = 12.5;
  m.tenants.push_back(t);
  const std::string j = to_json(m);
  CHECK(j.find("\"iter_mean_us\":12.5") != std::string::npos);
  CHECK(j.find("\"slowdown\":null") != std::string::npos);
  CHECK(j.find("\"policy\":\"fifo\"") != std::string::npos);
}
