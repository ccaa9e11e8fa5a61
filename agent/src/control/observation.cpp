#include "nicsched/control/observation.hpp"

#include <algorithm>
#include <cmath>

#include "nicsched/control/action_codec.hpp"
#include "nicsched/control/controller.hpp"

namespace nicsched::control {
namespace {

float clipped(double v, double hi) { return static_cast<float>(std::clamp(v, 0.0, hi)); }

}  // namespace

ObservationEncoder::ObservationEncoder(const NicEnvConfig& cfg, const host::Capabilities& caps)
    : cfg_(cfg), caps_(caps), frames_(cfg.history * frame_size(), 0.0F) {}

std::size_t ObservationEncoder::frame_size() const {
  return caps_.tenants * tenant_features(cfg_) + kGlobalFeatures;
}
std::size_t ObservationEncoder::size() const { return cfg_.history * frame_size(); }
void ObservationEncoder::reset() { std::fill(frames_.begin(), frames_.end(), 0.0F); }

void ObservationEncoder::push(const TelemetryTracker& tr, const host::Policy& in_force) {
  const std::size_t fs = frame_size();
  std::copy_backward(frames_.begin(), frames_.end() - static_cast<std::ptrdiff_t>(fs), frames_.end());
  std::span<float> f(frames_.data(), fs);
  const double interval = std::max<double>(1.0, static_cast<double>(tr.interval_cycles()));
  const double link = interval * tr.link_bytes_per_cycle();  // bytes per interval at line rate
  const std::size_t per = tenant_features(cfg_);
  for (std::uint32_t t = 0; t < caps_.tenants; ++t) {
    const auto& s = tr.tenants()[t];
    auto o = f.subspan(t * per, per);
    const host::TenantPolicy tp = t < in_force.tenants.size() ? in_force.tenants[t] : host::TenantPolicy{};
    const double age = s.burst_age(tr.now());
    const double bulk_limit = std::max(1.0, static_cast<double>(tp.qlimit_bulk_bytes));
    const double control_limit = std::max(1.0, static_cast<double>(tp.qlimit_control_bytes));
    o[TenantFeature::kPresent] = s.present ? 1.0F : 0.0F;
    o[TenantFeature::kShare] = clipped(s.share, 1.0);
    o[TenantFeature::kLinkFraction] = clipped(s.link_fraction, 2.0);
    o[TenantFeature::kOffered] = clipped(s.enq_bytes / link, 4.0);
    o[TenantFeature::kBulkDepth] = clipped(s.bulk_depth_bytes / bulk_limit, 1.0);
    o[TenantFeature::kControlDepth] = clipped(s.control_depth_bytes / control_limit, 1.0);
    o[TenantFeature::kDrops] = static_cast<float>(std::log1p(s.drops));
    o[TenantFeature::kCryptoBusy] = clipped(s.crypto_busy_fraction, 1.0);
    o[TenantFeature::kCryptoWait] = clipped(s.crypto_wait_fraction, 1.0);
    o[TenantFeature::kControlLatency] = clipped(s.control_latency_cycles / 1000.0, 4.0);
    o[TenantFeature::kInBurst] = s.in_burst ? 1.0F : 0.0F;
    o[TenantFeature::kBurstAge] =
        clipped(s.period_cycles > 0 ? age / s.period_cycles : age / (64.0 * interval), 4.0);
    o[TenantFeature::kBurstBytes] = clipped(
        s.last_burst_bytes > 0 ? s.burst_bytes / s.last_burst_bytes : s.burst_bytes / (16.0 * link), 4.0);
    o[TenantFeature::kPeriod] = clipped(s.period_cycles / (256.0 * interval), 4.0);
    o[TenantFeature::kAttained] = static_cast<float>(std::log1p(s.attained_bytes / link) / 10.0);
    o[TenantFeature::kBurstLeft] = clipped(s.remaining_burst_bytes() / (16.0 * link), 4.0);
    o[TenantFeature::kPriority] =
        static_cast<float>(tp.priority) / static_cast<float>(std::max<std::uint32_t>(1, caps_.prio_levels - 1));
    o[TenantFeature::kWeightLevel] =
        static_cast<float>(std::log2(std::max(1.0, static_cast<double>(tp.weight) / kBaseQuantum)) /
                           std::max(1.0, cfg_.weight_levels - 1.0));
    o[TenantFeature::kCryptoQuota] =
        static_cast<float>(tp.crypto_quota) / static_cast<float>(std::max<std::uint32_t>(1, caps_.crypto_slots));
    if (per == TenantFeature::kCountWithControl) {
      // What the control bucket sees: the tenant's control bytes out against what the reset
      // bucket passes in the interval (the level serves up to its rate, the rest falls back
      // to the tenant's own priority), and the control level in force (0: the scenario's).
      const double reset_bytes =
          static_cast<double>(host::TenantPolicy{}.ctrl_rate_bytes_per_kcycle) * interval / 1024.0;
      o[TenantFeature::kControlBytes] = clipped(s.control_bytes / std::max(1.0, reset_bytes), 4.0);
      const std::uint32_t level =
          ActionCodec::control_level_of({tp.ctrl_rate_bytes_per_kcycle, tp.ctrl_burst_bytes}, cfg_.control_levels);
      o[TenantFeature::kControlLevel] = static_cast<float>(level) / static_cast<float>(cfg_.control_levels - 1);
    }
  }
  auto g = f.subspan(caps_.tenants * per, kGlobalFeatures);
  g[GlobalFeature::kLinkUtilisation] = clipped(tr.link_fraction(), 2.0);
  g[GlobalFeature::kCryptoUtilisation] = clipped(tr.crypto_busy_fraction(), 1.0);
  g[GlobalFeature::kPresentShare] = static_cast<float>(tr.present_count()) / static_cast<float>(caps_.tenants);
}

void ObservationEncoder::write(std::span<float> out) const {
  if (out.size() != frames_.size()) throw EnvError("ObservationEncoder::write: wrong observation size");
  std::copy(frames_.begin(), frames_.end(), out.begin());
}

}  // namespace nicsched::control
