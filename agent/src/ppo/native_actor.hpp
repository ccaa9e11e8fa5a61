// NativeActor: the exported actor's forward pass (observation normalisation, tanh layers,
// the set network's per-tenant encoder and pooling, masking) in plain C++ over weights
// copied out of the TorchScript module at load (TrainedPolicy, policy.cpp).
//
// Why: a decision through the TorchScript interpreter and the ATen dispatcher costs
// 130-250 us of CPU when their code and data are cold (after another process or the
// simulator ran on the core), ~35 us warm, for ~50 k multiply-adds; this runs the same
// arithmetic from a few contiguous arrays
// (docs/journal/2026-11-26-decision-latency-native-path.md). The set network's layers run
// for all tenants at once, with a vectorised
// tanh and AVX2 where the CPU has it: ~5x cheaper than tenant by tenant with std::tanh, the
// same decisions (docs/journal/2026-11-26-decision-latency-set-network.md). Private to
// agent/src/ppo; no torch here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace nicsched::ppo::detail {

inline constexpr double kMaskedLogit = -1e8;  // logit of a masked-out action: probability 0

// The vector code a layer runs: SSE2 (every x86-64 CPU) or AVX2 (8 floats a register; no
// FMA), chosen at run time where the CPU has it. Both only multiply and add, in the same
// order: the same results bit for bit.
enum class VectorIsa { sse2, avx2 };
[[nodiscard]] VectorIsa best_vector_isa();  // avx2 where the CPU has it

// y = W x + b, then tanh unless `linear`, for one input row or several at once (the set
// network's tenants: one pass over the weights for all of them). The weights are stored
// transposed ([in][stride], `stride` = `out` rounded up to a multiple of kOutputBlock,
// zero-padded), so that the inner loop runs over a block of outputs held in registers
// for a block of rows; every output is still bias + w_0 x_0 + w_1 x_1 + ... in input order.
struct DenseLayer {
  static constexpr std::size_t kOutputBlock = 8;  // outputs per register block (two SSE vectors)

  std::size_t in = 0, out = 0, stride = 0;
  std::vector<float> weight_t;  // in x stride
  std::vector<float> bias;      // stride
  bool linear = false;          // no tanh (the last layer of the actor)

  // From a torch.nn.Linear weight [out][in] (row-major) and bias [out].
  DenseLayer(std::size_t in_size, std::size_t out_size, std::span<const float> weight, std::span<const float> bias_values,
             bool linear_layer);
  // `rows` rows of `in` floats (row r at x + r * x_stride) -> `rows` rows of `stride` floats
  // (y + r * y_stride; the padding outputs are 0).
  void forward(const float* x, std::size_t x_stride, std::size_t rows, float* y, std::size_t y_stride,
               VectorIsa isa = best_vector_isa()) const;
};

// tanh to within 4.1e-7 (absolute and relative, every float; glibc's tanhf: 1.0e-7) in a
// few multiply-adds and a division that vectorise: std::tanh was ~60 % of a set decision.
float fast_tanh(float x);

// (x - mean) / sqrt(var + 1e-8), clipped to +-clip, element by element; `sd` holds
// sqrt(var + 1e-8) as the exported module computes it (in float). Empty: the identity.
struct Normaliser {
  std::vector<float> mean, sd;
  float clip = 0.0F;

  Normaliser() = default;
  Normaliser(std::span<const float> mean_values, std::span<const float> var_values, double obs_clip);
  [[nodiscard]] bool identity() const { return mean.empty(); }
  [[nodiscard]] float apply(float x, std::size_t i) const;
};

// The set network's view of a flat observation: `frames` frames of T tenant blocks
// (`features` floats, feature 0 the presence flag) followed by `globals` floats.
struct NativeSetShape {
  std::size_t frames = 1, features = 1, globals = 0, logits = 1;
};

class NativeActor {
 public:
  // The mlp: normalise, then `layers` (tanh after all but the last).
  static NativeActor mlp(Normaliser obs, std::vector<DenseLayer> layers);
  // The set network: `tenant` normalises (frame, feature) of every tenant, `global` the
  // globals ([frame][global]); the encoder's tanh layers run on every tenant; the head
  // (2 layers) maps (encoding, mean and max of the present tenants' encodings) to the
  // tenant's logits.
  static NativeActor set(NativeSetShape shape, Normaliser tenant, Normaliser global, std::vector<DenseLayer> encoder,
                         std::vector<DenseLayer> head);

  // The masked logits (kMaskedLogit where mask is 0) of one observation, into `out`
  // (as many as the mask). Thread-safe: the scratch space is the calling thread's.
  void logits(std::span<const float> obs, std::span<const std::uint8_t> mask, std::span<float> out) const;
  // The set network's observation layout (none: the mlp).
  [[nodiscard]] std::optional<NativeSetShape> set_shape() const {
    return set_ ? std::optional<NativeSetShape>(shape_) : std::nullopt;
  }

 private:
  void mlp_logits(std::span<const float> obs, std::span<float> out) const;
  void set_logits(std::span<const float> obs, std::span<float> out) const;

  bool set_ = false;
  NativeSetShape shape_;
  Normaliser norm_, global_norm_;
  std::vector<DenseLayer> layers_;  // mlp: the actor; set: the per-tenant encoder
  std::vector<DenseLayer> head_;    // set: the per-tenant actor head
};

}  // namespace nicsched::ppo::detail
