// The exported actor's forward pass in plain C++ (native_actor.hpp).
#include "native_actor.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace nicsched::ppo::detail {
namespace {

// Per-thread scratch space: eval's seeds share one policy across threads, and a decision
// should not allocate.
struct Scratch {
  std::vector<float> input, a, b, encodings, present;
};
Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

std::span<float> sized(std::vector<float>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
  return {v.data(), n};
}

// Runs `layers` over `x`; the result is in `a` or `b` (the span returned).
std::span<const float> run_layers(const std::vector<DenseLayer>& layers, std::span<const float> x,
                                  std::vector<float>& a, std::vector<float>& b) {
  std::span<const float> in = x;
  bool into_a = true;
  for (const auto& layer : layers) {
    const auto out = sized(into_a ? a : b, layer.out);
    layer.forward(in, out);
    in = out;
    into_a = !into_a;
  }
  return in;
}

}  // namespace

DenseLayer::DenseLayer(std::size_t in_size, std::size_t out_size, std::span<const float> weight,
                       std::span<const float> bias_values, bool linear_layer)
    : in(in_size), out(out_size), weight_t(in_size * out_size), bias(bias_values.begin(), bias_values.end()),
      linear(linear_layer) {
  if (weight.size() != in * out || bias.size() != out) {
    throw std::invalid_argument("DenseLayer: " + std::to_string(weight.size()) + " weights and " +
                                std::to_string(bias.size()) + " biases for " + std::to_string(in) + " inputs and " +
                                std::to_string(out) + " outputs");
  }
  for (std::size_t o = 0; o < out; ++o) {
    for (std::size_t i = 0; i < in; ++i) weight_t[i * out + o] = weight[o * in + i];
  }
}

void DenseLayer::forward(std::span<const float> x, std::span<float> y) const {
  float* __restrict acc = y.data();
  std::copy(bias.begin(), bias.end(), acc);
  for (std::size_t i = 0; i < in; ++i) {
    const float xi = x[i];
    const float* __restrict w = weight_t.data() + i * out;
    for (std::size_t o = 0; o < out; ++o) acc[o] += w[o] * xi;
  }
  if (!linear) {
    for (std::size_t o = 0; o < out; ++o) acc[o] = std::tanh(acc[o]);
  }
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
  const std::size_t d = layers_.back().out;
  auto& s = scratch();
  const auto x = sized(s.input, tenants * in);
  const auto enc = sized(s.encodings, tenants * d + 3 * d);  // encodings, then the head's input
  const auto present = sized(s.present, tenants);            // 1 or 0
  float present_count = 0.0F;
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
    present[t] = row[0] > 0.5F ? 1.0F : 0.0F;
    present_count += present[t];
    const auto e = run_layers(layers_, {row, in}, s.a, s.b);
    std::copy(e.begin(), e.end(), enc.begin() + static_cast<std::ptrdiff_t>(t * d));
  }
  // The context: mean and max over present tenants (absent ones floored at -1 for the max).
  const auto head_in = enc.subspan(tenants * d, 3 * d);
  const float count = std::max(present_count, 1.0F);
  for (std::size_t j = 0; j < d; ++j) {
    float sum = 0.0F, mx = -1.0F;
    for (std::size_t t = 0; t < tenants; ++t) {
      const float v = enc[t * d + j];
      sum += v * present[t];
      mx = std::max(mx, present[t] > 0.0F ? v : -1.0F);
    }
    head_in[d + j] = sum / count;
    head_in[2 * d + j] = mx;
  }
  for (std::size_t t = 0; t < tenants; ++t) {
    std::copy_n(enc.begin() + static_cast<std::ptrdiff_t>(t * d), d, head_in.begin());
    const auto l = run_layers(head_, head_in, s.a, s.b);
    std::copy(l.begin(), l.end(), out.begin() + static_cast<std::ptrdiff_t>(t * sh.logits));
  }
}

}  // namespace nicsched::ppo::detail
