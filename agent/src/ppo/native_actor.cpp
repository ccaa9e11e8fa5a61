// The exported actor's forward pass in plain C++ (native_actor.hpp).
#include "native_actor.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace nicsched::ppo::detail {
namespace {

// Per-thread scratch space: eval's seeds share one policy across threads, and a decision
// should not allocate.
struct Scratch {
  std::vector<float> input, a, b, context, hidden;
};
Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

std::span<float> sized(std::vector<float>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
  return {v.data(), n};
}

// Four floats in an SSE register, eight in an AVX one (GCC/Clang vector extensions, no
// intrinsics). The layer code (native_dense.inc) is compiled twice: for generic x86-64
// (SSE2) and, inside a `#pragma GCC target("avx2")` region, for AVX2 (not FMA), which
// dense_rows picks at run time where the CPU has it. Both only multiply and add, in the
// same order: the same results bit for bit. (Templates written outside the region and
// inlined into it do not work: GCC splits their 8-lane vectors before inlining.)
using Vec4 = float __attribute__((vector_size(16)));
using Vec8 = float __attribute__((vector_size(32)));

namespace sse2 {
using V = Vec4;
#include "native_dense.inc"
}  // namespace sse2

#if defined(__x86_64__) || defined(__i386__)
#define NICSCHED_NATIVE_AVX2 1
#pragma GCC push_options
#pragma GCC target("avx2")
namespace avx2 {
using V = Vec8;
#include "native_dense.inc"
}  // namespace avx2
#pragma GCC pop_options
#endif

// `rows` rows of `in` inputs through weights [in][w_stride] (outputs 0..w_stride-1, a
// multiple of 8) starting from `init` (the bias, or a bias with part of the sum done).
void dense_rows(const float* x, std::size_t x_stride, std::size_t rows, std::size_t in, const float* w,
                std::size_t w_stride, const float* init, float* y, std::size_t y_stride, bool tanh,
                VectorIsa isa = best_vector_isa()) {
#ifdef NICSCHED_NATIVE_AVX2
  if (isa == VectorIsa::avx2) {
    avx2::dense_rows(x, x_stride, rows, in, w, w_stride, init, y, y_stride, tanh);
    return;
  }
#endif
  (void)isa;  // elsewhere than x86: the generic code, whatever was asked
  sse2::dense_rows(x, x_stride, rows, in, w, w_stride, init, y, y_stride, tanh);
}

// `rows` rows through `layers`, each layer for all rows at once (one pass over its
// weights); the layers alternate between `a` and `b`. The result: the last layer's rows,
// `stride` floats apart, in `a` or `b` (`in_a` says which).
struct LayerRows {
  const float* data;
  std::size_t stride;
  bool in_a;
};
LayerRows run_layers(const std::vector<DenseLayer>& layers, const float* x, std::size_t x_stride, std::size_t rows,
                     std::vector<float>& a, std::vector<float>& b) {
  LayerRows r{x, x_stride, false};
  for (const auto& layer : layers) {
    const bool into_a = !r.in_a;
    const auto y = sized(into_a ? a : b, rows * layer.stride);
    layer.forward(r.data, r.stride, rows, y.data(), layer.stride);
    r = {y.data(), layer.stride, into_a};
  }
  return r;
}

}  // namespace

float fast_tanh(float x) { return sse2::tanh_v(Vec4{x, x, x, x})[0]; }

VectorIsa best_vector_isa() {
#ifdef NICSCHED_NATIVE_AVX2
  static const VectorIsa isa = __builtin_cpu_supports("avx2") != 0 ? VectorIsa::avx2 : VectorIsa::sse2;
  return isa;
#else
  return VectorIsa::sse2;
#endif
}

DenseLayer::DenseLayer(std::size_t in_size, std::size_t out_size, std::span<const float> weight,
                       std::span<const float> bias_values, bool linear_layer)
    : in(in_size), out(out_size), stride((out_size + kOutputBlock - 1) / kOutputBlock * kOutputBlock),
      weight_t(in_size * stride, 0.0F), bias(stride, 0.0F), linear(linear_layer) {
  if (weight.size() != in * out || bias_values.size() != out) {
    throw std::invalid_argument("DenseLayer: " + std::to_string(weight.size()) + " weights and " +
                                std::to_string(bias_values.size()) + " biases for " + std::to_string(in) +
                                " inputs and " + std::to_string(out) + " outputs");
  }
  std::copy(bias_values.begin(), bias_values.end(), bias.begin());
  for (std::size_t o = 0; o < out; ++o) {
    for (std::size_t i = 0; i < in; ++i) weight_t[i * stride + o] = weight[o * in + i];
  }
}

void DenseLayer::forward(const float* x, std::size_t x_stride, std::size_t rows, float* y, std::size_t y_stride,
                         VectorIsa isa) const {
  dense_rows(x, x_stride, rows, in, weight_t.data(), stride, bias.data(), y, y_stride, !linear, isa);
}

Normaliser::Normaliser(std::span<const float> mean_values, std::span<const float> var_values, double obs_clip)
    : mean(mean_values.begin(), mean_values.end()), sd(var_values.size()), clip(static_cast<float>(obs_clip)) {
  if (mean.size() != sd.size()) {
    throw std::invalid_argument("Normaliser: " + std::to_string(mean.size()) + " means and " +
                                std::to_string(sd.size()) + " variances");
  }
  for (std::size_t i = 0; i < sd.size(); ++i) sd[i] = std::sqrt(var_values[i] + 1e-8F);
}

float Normaliser::apply(float x, std::size_t i) const {
  if (identity()) return x;
  return std::clamp((x - mean[i]) / sd[i], -clip, clip);
}

NativeActor NativeActor::mlp(Normaliser obs, std::vector<DenseLayer> layers) {
  NativeActor a;
  a.norm_ = std::move(obs);
  a.layers_ = std::move(layers);
  return a;
}

NativeActor NativeActor::set(NativeSetShape shape, Normaliser tenant, Normaliser global, std::vector<DenseLayer> encoder,
                             std::vector<DenseLayer> head) {
  NativeActor a;
  a.set_ = true;
  a.shape_ = shape;
  a.norm_ = std::move(tenant);
  a.global_norm_ = std::move(global);
  a.layers_ = std::move(encoder);
  a.head_ = std::move(head);
  return a;
}

void NativeActor::logits(std::span<const float> obs, std::span<const std::uint8_t> mask, std::span<float> out) const {
  if (out.size() != mask.size()) {
    throw std::invalid_argument("NativeActor::logits: " + std::to_string(out.size()) + " outputs for " +
                                std::to_string(mask.size()) + " mask bytes");
  }
  if (set_) {
    set_logits(obs, out);
  } else {
    mlp_logits(obs, out);
  }
  const auto masked = static_cast<float>(kMaskedLogit);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (mask[i] == 0) out[i] = masked;
  }
}

void NativeActor::mlp_logits(std::span<const float> obs, std::span<float> out) const {
  auto& s = scratch();
  const auto x = sized(s.input, obs.size());
  for (std::size_t i = 0; i < obs.size(); ++i) x[i] = norm_.apply(obs[i], i);
  const auto y = run_layers(layers_, x.data(), x.size(), 1, s.a, s.b);
  const std::size_t n = layers_.back().out;
  if (n != out.size()) {
    throw std::invalid_argument("NativeActor: the actor gives " + std::to_string(n) + " logits, " +
                                std::to_string(out.size()) + " expected");
  }
  std::copy_n(y.data, n, out.begin());
}

// As the exported `features`, `pool` and `actor` methods (policy_export.cpp): tenant t's
// encoder input is its normalised features of every frame, then the normalised globals of
// every frame; it is present when its normalised presence flag in frame 0 is above 0.5.
// Each layer runs for all tenants at once (one pass over its weights). The head's first
// layer sees (encoding, mean, max): the (mean, max) part is the same for every tenant, so
// it is summed once onto the bias and each tenant adds its own encoding's part.
void NativeActor::set_logits(std::span<const float> obs, std::span<float> out) const {
  const auto& sh = shape_;
  const std::size_t frame = obs.size() / sh.frames;
  const std::size_t tenants = (frame - sh.globals) / sh.features;
  if (frame * sh.frames != obs.size() || frame < sh.globals || tenants * sh.features + sh.globals != frame ||
      tenants * sh.logits != out.size()) {
    throw std::invalid_argument("NativeActor: an observation of " + std::to_string(obs.size()) + " floats and " +
                                std::to_string(out.size()) + " logits do not fit the set network's layout");
  }
  const std::size_t per = sh.frames * sh.features, in = per + sh.frames * sh.globals;
  auto& s = scratch();
  const auto x = sized(s.input, tenants * in);
  for (std::size_t t = 0; t < tenants; ++t) {
    float* row = x.data() + t * in;
    for (std::size_t f = 0; f < sh.frames; ++f) {
      for (std::size_t k = 0; k < sh.features; ++k) {
        row[f * sh.features + k] = norm_.apply(obs[f * frame + t * sh.features + k], f * sh.features + k);
      }
      for (std::size_t g = 0; g < sh.globals; ++g) {
        row[per + f * sh.globals + g] = global_norm_.apply(obs[f * frame + tenants * sh.features + g], f * sh.globals + g);
      }
    }
  }
  // The encoder, all tenants per layer.
  const auto encoded = run_layers(layers_, x.data(), in, tenants, s.a, s.b);
  const float* enc = encoded.data;
  const std::size_t enc_stride = encoded.stride;
  auto& other = encoded.in_a ? s.b : s.a;  // the buffer the encodings are not in
  auto& used = encoded.in_a ? s.a : s.b;
  const std::size_t d = layers_.back().out;
  // The context: mean and max over present tenants (absent ones floored at -1 for the max).
  const auto context = sized(s.context, 2 * d);
  float present_count = 0.0F;
  for (std::size_t t = 0; t < tenants; ++t) present_count += x[t * in] > 0.5F ? 1.0F : 0.0F;
  const float count = std::max(present_count, 1.0F);
  for (std::size_t j = 0; j < d; ++j) {
    float sum = 0.0F, mx = -1.0F;
    for (std::size_t t = 0; t < tenants; ++t) {
      const bool present = x[t * in] > 0.5F;
      const float v = enc[t * enc_stride + j];
      sum += present ? v : 0.0F;
      mx = std::max(mx, present ? v : -1.0F);
    }
    context[j] = sum / count;
    context[d + j] = mx;
  }
  // The head: first layer's context part once (bias + W_context (mean, max)), then every
  // tenant's encoding part from there, tanh; then the linear layer to the logits.
  const auto& first = head_.front();
  const auto& last = head_.back();
  const auto start = sized(s.hidden, first.stride);
  dense_rows(context.data(), 2 * d, 1, 2 * d, first.weight_t.data() + d * first.stride, first.stride, first.bias.data(),
             start.data(), first.stride, false);
  const auto hidden = sized(other, tenants * first.stride);
  dense_rows(enc, enc_stride, tenants, d, first.weight_t.data(), first.stride, start.data(), hidden.data(), first.stride,
             true);
  const auto logits = sized(used, tenants * last.stride);  // the encodings are no longer read
  last.forward(hidden.data(), first.stride, tenants, logits.data(), last.stride);
  for (std::size_t t = 0; t < tenants; ++t) {
    std::copy_n(logits.begin() + static_cast<std::ptrdiff_t>(t * last.stride), sh.logits,
                out.begin() + static_cast<std::ptrdiff_t>(t * sh.logits));
  }
}

}  // namespace nicsched::ppo::detail
