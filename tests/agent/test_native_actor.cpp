// The native forward pass's pieces (agent/src/ppo/native_actor.hpp): the vectorised tanh
// against the double-precision tanh, and a layer run for several rows at once (SSE2 and,
// where the CPU has it, AVX2 code) against the plain sum in input order.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "native_actor.hpp"

using nicsched::ppo::detail::DenseLayer;
using nicsched::ppo::detail::VectorIsa;
using nicsched::ppo::detail::fast_tanh;

TEST_CASE("native actor: fast_tanh is within 4.2e-7 of tanh, odd, saturating, and keeps NaN", "[ppo][native]") {
  // Every 509th float bit pattern below 20 in magnitude (about 4 million values, both signs;
  // the full sweep, 2.1e9 values, measured 4.1e-7 at 5.83), and the values around 4e-4
  // where the approximation switches to tanh(x) = x.
  double worst = 0;
  std::size_t not_odd = 0;
  for (std::uint32_t bits = 0; bits < 0x41a00000U; bits += 509) {
    float x;
    std::memcpy(&x, &bits, sizeof x);
    for (const float v : {x, -x}) {
      const double want = std::tanh(static_cast<double>(v));
      worst = std::max(worst, std::fabs(static_cast<double>(fast_tanh(v)) - want));
      not_odd += fast_tanh(v) == -fast_tanh(-v) ? 0U : 1U;
    }
  }
  for (float v = 3.9e-4F; v < 4.1e-4F; v = std::nextafter(v, 1.0F)) {
    worst = std::max(worst, std::fabs(static_cast<double>(fast_tanh(v)) - std::tanh(static_cast<double>(v))));
  }
  CHECK(worst < 4.2e-7);
  CHECK(not_odd == 0);
  CHECK(fast_tanh(0.0F) == 0.0F);
  CHECK(std::fabs(fast_tanh(1e30F) - 1.0F) < 4.2e-7F);
  CHECK(std::fabs(fast_tanh(-std::numeric_limits<float>::infinity()) + 1.0F) < 4.2e-7F);
  CHECK(std::isnan(fast_tanh(std::numeric_limits<float>::quiet_NaN())));
}

TEST_CASE("native actor: a layer run over several rows at once gives each row's sum in input order", "[ppo][native]") {
  std::mt19937 rng(7);
  std::normal_distribution<float> g(0.0F, 1.0F);
  // Output counts below, at and above a block of 8 (padded), row counts around blocks of 4.
  for (const std::size_t out : {std::size_t{5}, std::size_t{8}, std::size_t{13}}) {
    for (const bool linear : {false, true}) {
      const std::size_t in = 11;
      std::vector<float> w(out * in), b(out);  // torch layout: [out][in]
      for (auto& v : w) v = g(rng);
      for (auto& v : b) v = g(rng);
      const DenseLayer layer(in, out, w, b, linear);
      REQUIRE(layer.stride % DenseLayer::kOutputBlock == 0);
      REQUIRE(layer.stride >= out);
      for (std::size_t rows = 1; rows <= 9; ++rows) {
        std::vector<float> x(rows * in);
        for (auto& v : x) v = g(rng) * 3.0F;
        // The SSE2 code, and the AVX2 code where this CPU has it: the same sums.
        for (const auto isa : {VectorIsa::sse2, nicsched::ppo::detail::best_vector_isa()}) {
        std::vector<float> y(rows * layer.stride, std::numeric_limits<float>::quiet_NaN());
        layer.forward(x.data(), in, rows, y.data(), layer.stride, isa);
        for (std::size_t r = 0; r < rows; ++r) {
          for (std::size_t o = 0; o < layer.stride; ++o) {
            if (o >= out) {
              CHECK(y[r * layer.stride + o] == 0.0F);  // padding outputs
              continue;
            }
            float acc = b[o];
            for (std::size_t i = 0; i < in; ++i) acc += w[o * in + i] * x[r * in + i];
            CHECK(y[r * layer.stride + o] == (linear ? acc : fast_tanh(acc)));
          }
        }
        }
      }
    }
  }
}
