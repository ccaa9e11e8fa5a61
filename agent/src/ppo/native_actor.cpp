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

// Four floats in an SSE register (GCC/Clang vector extensions: plain SSE2 code on generic
// x86-64, no intrinsics, no -march). Loads and stores through memcpy: no alignment assumed.
using Vec4 = float __attribute__((vector_size(16)));
constexpr std::size_t kLanes = 4;
static_assert(DenseLayer::kOutputBlock == 2 * kLanes, "dense_block holds two vectors of outputs per row");

Vec4 load4(const float* p) {
  Vec4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
void store4(float* p, Vec4 v) { std::memcpy(p, &v, sizeof v); }

// Eigen's rational approximation of tanh (generic_fast_tanh_float: odd degree-13 over even
// degree-6 polynomial, input clamped to +-7.9988); below 4e-4 tanh(x) = x to float
// precision. Max error over every float, measured against the double tanh: 4.1e-7.
Vec4 tanh4(Vec4 a) {
  const Vec4 zero{};
  const float bound = 7.99881172180175781F;
  Vec4 x = a > bound ? zero + bound : a;  // written so that NaN stays NaN
  x = x < -bound ? zero - bound : x;
  const Vec4 x2 = x * x;
  Vec4 p = x2 * -2.76076847742355e-16F + 2.00018790482477e-13F;
  p = x2 * p + -8.60467152213735e-11F;
  p = x2 * p + 5.12229709037114e-08F;
  p = x2 * p + 1.48572235717979e-05F;
  p = x2 * p + 6.37261928875436e-04F;
  p = x2 * p + 4.89352455891786e-03F;
  p = x * p;
  Vec4 q = x2 * 1.19825839466702e-06F + 1.18534705686654e-04F;
  q = x2 * q + 2.26843463243900e-03F;
  q = x2 * q + 4.89352518554385e-03F;
  const Vec4 r = p / q;
  const Vec4 abs_a = a < zero ? -a : a;
  return abs_a < 0.0004F ? a : r;
}

// R rows x 8 outputs of a layer, the accumulators in registers: each weight vector is
// loaded once for the R rows. y = init + sum_i w[i] x[i], in input order, then tanh.
template <std::size_t R>
void dense_block(const float* x, std::size_t x_stride, std::size_t in, const float* w, std::size_t w_stride,
                 const float* init, float* y, std::size_t y_stride, bool tanh) {
  Vec4 lo[R], hi[R];
  const Vec4 init_lo = load4(init), init_hi = load4(init + kLanes);
  for (std::size_t r = 0; r < R; ++r) {
    lo[r] = init_lo;
    hi[r] = init_hi;
  }
  for (std::size_t i = 0; i < in; ++i) {
    const Vec4 w_lo = load4(w + i * w_stride), w_hi = load4(w + i * w_stride + kLanes);
    for (std::size_t r = 0; r < R; ++r) {
      const float v = x[r * x_stride + i];
      const Vec4 xi = {v, v, v, v};
      lo[r] += w_lo * xi;
      hi[r] += w_hi * xi;
    }
  }
  for (std::size_t r = 0; r < R; ++r) {
    store4(y + r * y_stride, tanh ? tanh4(lo[r]) : lo[r]);
    store4(y + r * y_stride + kLanes, tanh ? tanh4(hi[r]) : hi[r]);
  }
}

// `rows` rows of `in` inputs through weights [in][w_stride] (outputs 0..w_stride-1, a
// multiple of 8) starting from `init` (the bias, or a bias with part of the sum done).
void dense_rows(const float* x, std::size_t x_stride, std::size_t rows, std::size_t in, const float* w,
                std::size_t w_stride, const float* init, float* y, std::size_t y_stride, bool tanh) {
  constexpr std::size_t kRowBlock = 4;  // 8 accumulators + 2 weight vectors + 1 input: 11 of 16 registers
  for (std::size_t o = 0; o < w_stride; o += DenseLayer::kOutputBlock) {
    std::size_t r = 0;
    for (; r + kRowBlock <= rows; r += kRowBlock) {
      dense_block<kRowBlock>(x + r * x_stride, x_stride, in, w + o, w_stride, init + o, y + r * y_stride + o, y_stride, tanh);
    }
    const float* xr = x + r * x_stride;
    float* yr = y + r * y_stride + o;
    switch (rows - r) {
      case 3: dense_block<3>(xr, x_stride, in, w + o, w_stride, init + o, yr, y_stride, tanh); break;
      case 2: dense_block<2>(xr, x_stride, in, w + o, w_stride, init + o, yr, y_stride, tanh); break;
      case 1: dense_block<1>(xr, x_stride, in, w + o, w_stride, init + o, yr, y_stride, tanh); break;
      default: break;
    }
  }
}

// Runs `layers` over one row `x`; the result is in `a` or `b` (the span returned, the
// last layer's `out` floats).
std::span<const float> run_layers(const std::vector<DenseLayer>& layers, std::span<const float> x,
                                  std::vector<float>& a, std::vector<float>& b) {
  const float* in = x.data();
  bool into_a = true;
  for (const auto& layer : layers) {
    const auto out = sized(into_a ? a : b, layer.stride);
    layer.forward(in, layer.in, 1, out.data(), layer.stride);
    in = out.data();
    into_a = !into_a;
  }
  return {in, layers.back().out};
}

}  // namespace

float fast_tanh(float x) { return tanh4(Vec4{x, x, x, x})[0]; }

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

void DenseLayer::forward(const float* x, std::size_t x_stride, std::size_t rows, float* y, std::size_t y_stride) const {
  dense_rows(x, x_stride, rows, in, weight_t.data(), stride, bias.data(), y, y_stride, !linear);
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
  const auto y = run_layers(layers_, x, s.a, s.b);
  if (y.size() != out.size()) {
    throw std::invalid_argument("NativeActor: the actor gives " + std::to_string(y.size()) + " logits, " +
                                std::to_string(out.size()) + " expected");
  }
  std::copy(y.begin(), y.end(), out.begin());
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
  // The encoder, all tenants per layer; the encodings end in `enc` (row stride d_stride).
  const float* enc = x.data();
  std::size_t enc_stride = in;
  bool into_a = true;
  for (const auto& layer : layers_) {
    const auto y = sized(into_a ? s.a : s.b, tenants * layer.stride);
    layer.forward(enc, enc_stride, tenants, y.data(), layer.stride);
    enc = y.data();
    enc_stride = layer.stride;
    into_a = !into_a;
  }
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
  const auto hidden = sized(into_a ? s.a : s.b, tenants * first.stride);
  dense_rows(enc, enc_stride, tenants, d, first.weight_t.data(), first.stride, start.data(), hidden.data(), first.stride,
             true);
  const auto logits = sized(into_a ? s.b : s.a, tenants * last.stride);
  last.forward(hidden.data(), first.stride, tenants, logits.data(), last.stride);
  for (std::size_t t = 0; t < tenants; ++t) {
    std::copy_n(logits.begin() + static_cast<std::ptrdiff_t>(t * last.stride), sh.logits,
                out.begin() + static_cast<std::ptrdiff_t>(t * sh.logits));
  }
}

}  // namespace nicsched::ppo::detail
