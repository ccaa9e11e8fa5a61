#include "nicsched/control/nic_env.hpp"

#include <algorithm>
#include <cmath>

#include "nicsched/control/controller.hpp"
#include "nicsched/fileio/settings.hpp"
#include "nicsched/fileio/yaml.hpp"
#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/host/telemetry.hpp"

namespace nicsched::control {
namespace {

float clipped(double v, double hi) { return static_cast<float>(std::clamp(v, 0.0, hi)); }

// The control burst of the "off" level: the smallest a policy may set (host policy
// validation: one minimum-size frame).
constexpr std::uint32_t kMinControlBurst = 64;

using fileio::setting;

// The `reward` key: a word, not an enum's number.
fileio::Setting<NicEnvConfig> reward_setting() {
  return {"reward",
          [](NicEnvConfig& c, const fileio::YamlDoc& doc, const YAML::Node& n) {
            const auto word = doc.as<std::string>(n, "reward", "speed or slowdown");
            if (word == reward_kind_name(RewardKind::kSpeed)) {
              c.reward = RewardKind::kSpeed;
            } else if (word == reward_kind_name(RewardKind::kSlowdown)) {
              c.reward = RewardKind::kSlowdown;
            } else {
              doc.fail(n, "reward", "must be speed or slowdown, not '" + word + "'");
            }
          },
          [](YAML::Emitter& out, const NicEnvConfig& c) {
            out << YAML::Key << "reward" << YAML::Value << reward_kind_name(c.reward);
          }};
}

const fileio::Settings<NicEnvConfig>& env_settings() {
  static const fileio::Settings<NicEnvConfig> table(
      "unknown env setting",
      {
          setting("interval_cycles", &NicEnvConfig::interval_cycles, "an unsigned integer"),
          setting("history", &NicEnvConfig::history, "an unsigned integer"),
          setting("episode_steps", &NicEnvConfig::episode_steps, "an unsigned integer"),
          setting("priority_levels", &NicEnvConfig::priority_levels, "an unsigned integer"),
          setting("weight_levels", &NicEnvConfig::weight_levels, "an unsigned integer"),
          setting("quota_levels", &NicEnvConfig::quota_levels, "an unsigned integer"),
          setting("rate_levels", &NicEnvConfig::rate_levels, "an unsigned integer"),
          setting("control_levels", &NicEnvConfig::control_levels, "an unsigned integer"),
          reward_setting(),
          setting("slowdown_prior_iterations", &NicEnvConfig::slowdown_prior_iterations, "a number"),
          setting("progress_coef", &NicEnvConfig::progress_coef, "a number"),
          setting("fairness_coef", &NicEnvConfig::fairness_coef, "a number"),
          setting("drop_coef", &NicEnvConfig::drop_coef, "a number"),
          setting("deadline_coef", &NicEnvConfig::deadline_coef, "a number"),
          setting("starvation_coef", &NicEnvConfig::starvation_coef, "a number"),
          setting("guard_intervals", &NicEnvConfig::guard_intervals, "an unsigned integer"),
          setting("guard_share", &NicEnvConfig::guard_share, "a number"),
      });
  return table;
}

// The settings of one env config document (fileio's YAML reader: file, line and key in errors).
NicEnvConfig read_env_config(const fileio::YamlDoc& doc) {
  NicEnvConfig c;
  if (doc.empty()) return c;
  env_settings().read(doc, c);
  try {
    c.validate();
  } catch (const EnvError& e) {
    throw EnvError(doc.file() + ": " + e.what());
  }
  return c;
}

double jain(const std::vector<double>& x) {
  double s = 0, s2 = 0;
  for (double v : x) {
    s += v;
    s2 += v * v;
  }
  return (x.empty() || s2 <= 0.0) ? 1.0 : s * s / (static_cast<double>(x.size()) * s2);
}

}  // namespace

const char* reward_kind_name(RewardKind k) {
  switch (k) {
    case RewardKind::kSpeed: return "speed";
    case RewardKind::kSlowdown: return "slowdown";
  }
  return "?";
}

void NicEnvConfig::validate() const {
  auto require = [](bool ok, const char* key, const char* what) {
    if (!ok) throw EnvError(std::string("env config: '") + key + "' " + what);
  };
  require(interval_cycles >= 100, "interval_cycles", "must be at least 100");
  require(history >= 1, "history", "must be at least 1");
  require(episode_steps >= 1, "episode_steps", "must be at least 1");
  require(priority_levels >= 1 && priority_levels <= 4, "priority_levels", "must be 1..4 (T_CTRL.PRIORITY has 2 bits)");
  require(weight_levels >= 1 && weight_levels <= 6, "weight_levels", "must be 1..6 (quantum 1500 * 2^5 fits 16 bits)");
  require(quota_levels >= 1 && quota_levels <= 255, "quota_levels", "must be 1..255");
  require(rate_levels >= 1 && rate_levels <= 11, "rate_levels", "must be 1..11 (level 10 is line rate / 1024)");
  require(control_levels >= 1 && control_levels <= 4, "control_levels",
          "must be 1..4 (0: the scenario's control bucket, 1: off, 2: low, 3: high)");
  require(slowdown_prior_iterations > 0 && std::isfinite(slowdown_prior_iterations), "slowdown_prior_iterations",
          "must be a positive number (iterations at solo speed each tenant starts from)");
  require(progress_coef >= 0 && fairness_coef >= 0 && drop_coef >= 0 && deadline_coef >= 0,
          "progress_coef/fairness_coef/drop_coef/deadline_coef", "must not be negative");
  require(starvation_coef >= 0 && std::isfinite(starvation_coef), "starvation_coef",
          "must be a finite number >= 0 (weight of the worst tenant's slowdown term; 0: off)");
  require(guard().valid_share(), "guard_share",
          "must be in (0, 1] (held back: less than this share of the backlogged tenants' mean bytes)");
}

NicEnvConfig parse_env_config(const std::string& yaml_text, const std::string& source) {
  try {
    return read_env_config(fileio::YamlDoc(yaml_text, source));
  } catch (const fileio::YamlError& e) {
    throw EnvError(e.what());
  }
}

NicEnvConfig load_env_config(const std::filesystem::path& file) {
  try {
    return read_env_config(fileio::YamlDoc::load(file, "the env config file"));
  } catch (const fileio::YamlError& e) {
    throw EnvError(e.what());
  } catch (const fileio::FileError& e) {
    throw EnvError(e.what());
  }
}

std::string env_config_yaml(const NicEnvConfig& c) { return env_settings().yaml(c); }

// ---------------------------------------------------------------------------------------
ActionCodec::ActionCodec(const NicEnvConfig& cfg, const host::Capabilities& caps, double link_bytes_per_cycle)
    : cfg_(cfg), caps_(caps),
      link_bytes_per_cycle_(link_bytes_per_cycle > 0.0 ? link_bytes_per_cycle : std::max(1.0, static_cast<double>(caps.data_bytes))) {
  cfg_.validate();
}

ActionSpace ActionCodec::space() const {
  ActionSpace s;
  for (std::uint32_t t = 0; t < caps_.tenants; ++t) {
    s.head_sizes.push_back(static_cast<int>(cfg_.priority_levels));
    s.head_sizes.push_back(static_cast<int>(cfg_.weight_levels));
    s.head_sizes.push_back(static_cast<int>(cfg_.quota_levels));
    if (rate_head()) s.head_sizes.push_back(static_cast<int>(cfg_.rate_levels));
    if (control_head()) s.head_sizes.push_back(static_cast<int>(cfg_.control_levels));
  }
  return s;
}

std::uint32_t ActionCodec::rate_of_level(std::uint32_t k) const {
  const double per_kcycle = link_bytes_per_cycle_ * 1024.0 / std::ldexp(1.0, static_cast<int>(k));
  return static_cast<std::uint32_t>(std::clamp(std::lround(per_kcycle), 1L, 0xFFFFFFL));
}

ControlBucket ActionCodec::control_bucket_of_level(std::uint32_t k) {
  const host::TenantPolicy reset;  // the registers' reset values
  switch (k) {
    case 1: return {0, kMinControlBurst};
    case 2: return {reset.ctrl_rate_bytes_per_kcycle / 4, reset.ctrl_burst_bytes / 4};
    case 3: return {reset.ctrl_rate_bytes_per_kcycle * 4, reset.ctrl_burst_bytes * 4};
    default: throw EnvError("ActionCodec: control level " + std::to_string(k) + " is not 1 (off), 2 (low) or 3 (high)");
  }
}

std::uint32_t ActionCodec::control_level_of(const ControlBucket& b, std::uint32_t levels) {
  for (std::uint32_t k = 1; k < levels; ++k) {
    if (b == control_bucket_of_level(k)) return k;
  }
  return 0;
}

void ActionCodec::mask(const TelemetryTracker& tracker, std::span<std::uint8_t> out) const {
  const std::size_t per_tenant = logits_per_tenant();
  if (out.size() != per_tenant * caps_.tenants) throw EnvError("ActionCodec::mask: wrong mask size");
  for (std::uint32_t t = 0; t < caps_.tenants; ++t) {
    auto m = out.subspan(t * per_tenant, per_tenant);
    const bool present = tracker.tenants()[t].present;
    for (std::uint32_t i = 0; i < cfg_.priority_levels; ++i) {
      m[i] = (present ? i < caps_.prio_levels : i == 0) ? 1 : 0;
    }
    for (std::uint32_t i = 0; i < cfg_.weight_levels; ++i) {
      m[cfg_.priority_levels + i] = (present || i == 0) ? 1 : 0;
    }
    for (std::uint32_t i = 0; i < cfg_.quota_levels; ++i) {
      const bool fits = i + 1 <= std::max<std::uint32_t>(1, caps_.crypto_slots);
      m[cfg_.priority_levels + cfg_.weight_levels + i] = (present ? fits : i == 0) ? 1 : 0;
    }
    std::size_t base = cfg_.priority_levels + cfg_.weight_levels + cfg_.quota_levels;
    if (rate_head()) {
      for (std::uint32_t i = 0; i < cfg_.rate_levels; ++i) m[base + i] = (present || i == 0) ? 1 : 0;
      base += cfg_.rate_levels;
    }
    if (control_head()) {
      for (std::uint32_t i = 0; i < cfg_.control_levels; ++i) m[base + i] = (present || i == 0) ? 1 : 0;
    }
  }
}

host::Policy ActionCodec::decode(std::span<const int> action, const host::Policy& base) const {
  const std::size_t per = heads_per_tenant();
  if (action.size() != per * caps_.tenants) {
    throw EnvError("ActionCodec::decode: expected " + std::to_string(per * caps_.tenants) +
                   " action indices, got " + std::to_string(action.size()));
  }
  host::Policy p = base;
  p.arb_mode = host::ArbMode::kSpDwrr;
  p.tenants.resize(caps_.tenants);
  for (std::uint32_t t = 0; t < caps_.tenants; ++t) {
    const auto a = action.subspan(t * per, per);
    const int prio = a[0];
    const int weight = a[1];
    const int quota = a[2];
    const int rate = rate_head() ? a[3] : 0;
    const int control = control_head() ? a[per - 1] : 0;
    if (prio < 0 || prio >= static_cast<int>(cfg_.priority_levels) || weight < 0 ||
        weight >= static_cast<int>(cfg_.weight_levels) || quota < 0 ||
        quota >= static_cast<int>(cfg_.quota_levels) || rate < 0 || rate >= static_cast<int>(cfg_.rate_levels) ||
        control < 0 || control >= static_cast<int>(cfg_.control_levels)) {
      std::string values;
      for (const int v : a) values += (values.empty() ? "" : ", ") + std::to_string(v);
      throw EnvError("ActionCodec::decode: tenant " + std::to_string(t) + ": action (" + values + ") out of range");
    }
    auto& tp = p.tenants[t];
    tp.priority = std::min(static_cast<std::uint32_t>(prio), caps_.prio_levels - 1);
    tp.weight = kBaseQuantum << static_cast<unsigned>(weight);
    tp.crypto_quota = std::min(static_cast<std::uint32_t>(quota) + 1, std::max<std::uint32_t>(1, caps_.crypto_slots));
    if (rate > 0) {
      tp.rate_limited = true;
      tp.rate_bytes_per_kcycle = rate_of_level(static_cast<std::uint32_t>(rate));
    }
    if (control > 0) {
      const auto bucket = control_bucket_of_level(static_cast<std::uint32_t>(control));
      tp.ctrl_rate_bytes_per_kcycle = bucket.rate_bytes_per_kcycle;
      tp.ctrl_burst_bytes = bucket.burst_bytes;
    }
  }
  return p;
}

std::vector<int> ActionCodec::encode(const host::Policy& policy) const {
  const std::size_t per = heads_per_tenant();
  std::vector<int> a(per * caps_.tenants, 0);
  for (std::uint32_t t = 0; t < caps_.tenants && t < policy.tenants.size(); ++t) {
    const auto& tp = policy.tenants[t];
    a[t * per] = static_cast<int>(std::min(tp.priority, cfg_.priority_levels - 1));
    int w = 0;
    while (w + 1 < static_cast<int>(cfg_.weight_levels) && (kBaseQuantum << static_cast<unsigned>(w + 1)) <= tp.weight) ++w;
    a[t * per + 1] = w;
    a[t * per + 2] =
        static_cast<int>(std::clamp<std::uint32_t>(tp.crypto_quota, 1, cfg_.quota_levels) - 1);
    if (rate_head() && tp.rate_limited && tp.rate_bytes_per_kcycle > 0) {
      // The nearest level (in log2) to the limit; unlimited stays 0 (the scenario's setting).
      const double k = std::log2(link_bytes_per_cycle_ * 1024.0 / tp.rate_bytes_per_kcycle);
      a[t * per + 3] = static_cast<int>(std::clamp(std::lround(k), 1L, static_cast<long>(cfg_.rate_levels) - 1));
    }
    if (control_head()) {  // a bucket that is one of the levels' exactly; any other stays 0 (the scenario's)
      a[t * per + per - 1] = static_cast<int>(
          control_level_of({tp.ctrl_rate_bytes_per_kcycle, tp.ctrl_burst_bytes}, cfg_.control_levels));
    }
  }
  return a;
}

// ---------------------------------------------------------------------------------------
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
    o[0] = s.present ? 1.0F : 0.0F;
    o[1] = clipped(s.share, 1.0);
    o[2] = clipped(s.link_fraction, 2.0);
    o[3] = clipped(s.enq_bytes / link, 4.0);
    o[4] = clipped(s.bulk_depth_bytes / std::max(1.0, static_cast<double>(tp.qlimit_bulk_bytes)), 1.0);
    o[5] = clipped(s.control_depth_bytes / std::max(1.0, static_cast<double>(tp.qlimit_control_bytes)), 1.0);
    o[6] = static_cast<float>(std::log1p(s.drops));
    o[7] = clipped(s.crypto_busy_fraction, 1.0);
    o[8] = clipped(s.crypto_wait_fraction, 1.0);
    o[9] = clipped(s.control_latency_cycles / 1000.0, 4.0);
    o[10] = s.in_burst ? 1.0F : 0.0F;
    o[11] = clipped(s.period_cycles > 0 ? age / s.period_cycles : age / (64.0 * interval), 4.0);
    o[12] = clipped(s.last_burst_bytes > 0 ? s.burst_bytes / s.last_burst_bytes : s.burst_bytes / (16.0 * link), 4.0);
    o[13] = clipped(s.period_cycles / (256.0 * interval), 4.0);
    o[14] = static_cast<float>(std::log1p(s.attained_bytes / link) / 10.0);
    o[15] = clipped(s.remaining_burst_bytes() / (16.0 * link), 4.0);
    o[16] = static_cast<float>(tp.priority) / static_cast<float>(std::max<std::uint32_t>(1, caps_.prio_levels - 1));
    o[17] = static_cast<float>(std::log2(std::max(1.0, static_cast<double>(tp.weight) / kBaseQuantum)) /
                               std::max(1.0, cfg_.weight_levels - 1.0));
    o[18] = static_cast<float>(tp.crypto_quota) / static_cast<float>(std::max<std::uint32_t>(1, caps_.crypto_slots));
    if (per > kTenantFeatures) {
      // What the control bucket sees: the tenant's control bytes out against what the reset
      // bucket passes in the interval (the level serves up to its rate, the rest falls back
      // to the tenant's own priority), and the control level in force (0: the scenario's).
      const double reset_bytes = static_cast<double>(host::TenantPolicy{}.ctrl_rate_bytes_per_kcycle) * interval / 1024.0;
      o[19] = clipped(s.control_bytes / std::max(1.0, reset_bytes), 4.0);
      const std::uint32_t level =
          ActionCodec::control_level_of({tp.ctrl_rate_bytes_per_kcycle, tp.ctrl_burst_bytes}, cfg_.control_levels);
      o[20] = static_cast<float>(level) / static_cast<float>(cfg_.control_levels - 1);
    }
  }
  auto g = f.subspan(caps_.tenants * per, kGlobalFeatures);
  g[0] = clipped(tr.link_fraction(), 2.0);
  g[1] = clipped(tr.crypto_busy_fraction(), 1.0);
  g[2] = static_cast<float>(tr.present_count()) / static_cast<float>(caps_.tenants);
}

void ObservationEncoder::write(std::span<float> out) const {
  if (out.size() != frames_.size()) throw EnvError("ObservationEncoder::write: wrong observation size");
  std::copy(frames_.begin(), frames_.end(), out.begin());
}

// ---------------------------------------------------------------------------------------
RewardTerms compute_reward(const NicEnvConfig& cfg, const std::vector<TenantProgress>& start,
                           const std::vector<TenantProgress>& before, const std::vector<TenantProgress>& after,
                           std::uint64_t interval_cycles, std::uint64_t elapsed_cycles,
                           const TelemetryTracker& tracker) {
  RewardTerms r;
  std::vector<double> cumulative;
  double progress_sum = 0.0;
  std::size_t training = 0;
  for (std::size_t t = 0; t < after.size() && t < before.size() && t < start.size(); ++t) {
    if (!after[t].training || after[t].solo_rate <= 0.0) continue;
    ++training;
    progress_sum += (after[t].units - before[t].units) / (after[t].solo_rate * static_cast<double>(interval_cycles));
    if (elapsed_cycles > 0) {
      cumulative.push_back((after[t].units - start[t].units) /
                           (after[t].solo_rate * static_cast<double>(elapsed_cycles)));
    }
  }
  if (cfg.reward == RewardKind::kSlowdown) {
    // Potential-based: the rewards of an episode sum to episode_steps x (its final
    // potential + 1), the running estimate of 1 - the mean normalised iteration time.
    r.progress = static_cast<double>(cfg.episode_steps) *
                 (slowdown_potential(cfg, start, after) - slowdown_potential(cfg, start, before));
  } else {
    r.progress = training > 0 ? progress_sum / static_cast<double>(training) : 0.0;
  }
  r.fairness = jain(cumulative) - 1.0;
  double dropped = 0, sent = 0;
  std::size_t present = 0, missed = 0;
  for (std::size_t t = 0; t < tracker.tenants().size(); ++t) {
    const auto& s = tracker.tenants()[t];
    dropped += s.drops;
    sent += s.packets;
    if (!s.present) continue;
    ++present;
    const auto deadline = t < after.size() ? after[t].control_deadline_cycles : 0;
    if (deadline > 0 && s.control_latency_cycles > static_cast<double>(deadline)) ++missed;
  }
  r.drops = dropped + sent > 0 ? dropped / (dropped + sent) : 0.0;
  r.deadline = present > 0 ? static_cast<double>(missed) / static_cast<double>(present) : 0.0;
  r.starvation = static_cast<double>(cfg.episode_steps) *
                 (starvation_potential(cfg, start, after) - starvation_potential(cfg, start, before));
  r.total = cfg.progress_coef * r.progress + cfg.fairness_coef * r.fairness - cfg.drop_coef * r.drops -
            cfg.deadline_coef * r.deadline + cfg.starvation_coef * r.starvation;
  return r;
}

namespace {
// Each training tenant's running normalised iteration time (n_i + k) / (u_i + k) since `start`
// (slowdown_potential's comment), handed to `fold` in tenant order; returns the count.
template <class Fold>
std::size_t fold_running_slowdowns(const NicEnvConfig& cfg, const std::vector<TenantProgress>& start,
                                   const std::vector<TenantProgress>& now, Fold&& fold) {
  const double k = cfg.slowdown_prior_iterations;
  std::size_t training = 0;
  for (std::size_t t = 0; t < now.size() && t < start.size(); ++t) {
    if (!now[t].training || now[t].solo_rate <= 0.0) continue;
    ++training;
    const auto present = now[t].present_cycles - std::min(now[t].present_cycles, start[t].present_cycles);
    const double solo_iterations = static_cast<double>(present) * now[t].solo_rate;
    const double done = std::max(0.0, now[t].units - start[t].units);
    fold((solo_iterations + k) / (done + k));
  }
  return training;
}
}  // namespace

double slowdown_potential(const NicEnvConfig& cfg, const std::vector<TenantProgress>& start,
                          const std::vector<TenantProgress>& now) {
  double sum = 0.0;
  const auto training = fold_running_slowdowns(cfg, start, now, [&](double s) { sum += s; });
  return training > 0 ? -sum / static_cast<double>(training) : 0.0;
}

double starvation_potential(const NicEnvConfig& cfg, const std::vector<TenantProgress>& start,
                            const std::vector<TenantProgress>& now) {
  double worst = 0.0;
  const auto training = fold_running_slowdowns(cfg, start, now, [&](double s) { worst = std::max(worst, s); });
  return training > 0 ? -worst : 0.0;
}

// ---------------------------------------------------------------------------------------
NicEnv::NicEnv(NicEnvConfig cfg, TargetFactory factory)
    : cfg_(cfg), factory_(std::move(factory)), guard_(cfg.guard()) {
  cfg_.validate();
  target_ = factory_(0);
  caps_ = host::discover(target_->bus());
  tracker_.emplace(caps_, target_->link_bytes_per_cycle());
  codec_.emplace(cfg_, caps_, target_->link_bytes_per_cycle());
  encoder_.emplace(cfg_, caps_);
}

NicEnv::~NicEnv() = default;
NicEnv::NicEnv(const NicEnv&) = default;

std::unique_ptr<NicEnv> NicEnv::fork() const {
  return std::unique_ptr<NicEnv>(new NicEnv(*this));  // the copy constructor is private
}

std::size_t NicEnv::observation_size() const { return encoder_->size(); }
ActionSpace NicEnv::action_space() const { return codec_->space(); }

void NicEnv::action_mask(std::span<std::uint8_t> mask_out) const { codec_->mask(*tracker_, mask_out); }

void NicEnv::set_teacher(std::unique_ptr<Controller> teacher) {
  teacher_ = std::move(teacher);
  if (teacher_) teacher_->reset();
}

bool NicEnv::expert_action(std::span<int> action_out) {
  if (!teacher_) return false;
  const auto a = codec_->encode(teacher_->decide(*tracker_, base_));
  if (action_out.size() != a.size()) throw EnvError("NicEnv::expert_action: wrong action size");
  const auto space = codec_->space();
  std::vector<std::uint8_t> mask(space.total());
  codec_->mask(*tracker_, mask);
  std::size_t off = 0;
  for (std::size_t h = 0; h < a.size(); ++h) {
    action_out[h] = mask[off + static_cast<std::size_t>(a[h])] ? a[h] : 0;
    off += static_cast<std::size_t>(space.head_sizes[h]);
  }
  return true;
}

void NicEnv::reset(std::uint64_t seed, std::span<float> obs_out) {
  target_ = factory_(seed);
  auto& bus = target_->bus();
  const host::Capabilities caps = host::discover(bus);
  if (caps.tenants != caps_.tenants) {
    throw EnvError("NicEnv: the target built for seed " + std::to_string(seed) + " has a different tenant count");
  }
  // Each episode may run another NIC of the same tenant count (a scenario family's draws:
  // other links, crypto slots): rates, masks and encodings follow this episode's NIC.
  caps_ = caps;
  tracker_.emplace(caps_, target_->link_bytes_per_cycle());
  codec_.emplace(cfg_, caps_, target_->link_bytes_per_cycle());
  encoder_.emplace(cfg_, caps_);
  base_ = host::read_policy(bus, caps_);
  base_.classifier.reset();  // the scenario's table stays as it is
  base_.default_action.reset();
  in_force_ = base_;
  tracker_->reset(host::read_snapshot(bus, caps_));
  encoder_->reset();
  start_progress_ = target_->progress();
  start_cycle_ = target_->clock().cycle();
  last_progress_ = start_progress_;
  steps_ = 0;
  if (teacher_) teacher_->reset();
  guard_.reset();
  target_->clock().step(cfg_.interval_cycles);
  observe_interval();
  encoder_->write(obs_out);
}

void NicEnv::observe_interval() {
  auto& bus = target_->bus();
  tracker_->update(host::read_snapshot(bus, caps_));
  encoder_->push(*tracker_, in_force_);
  const auto now_progress = target_->progress();
  reward_ = compute_reward(cfg_, start_progress_, last_progress_, now_progress, tracker_->interval_cycles(),
                           target_->clock().cycle() - start_cycle_, *tracker_);
  last_progress_ = now_progress;
}

StepResult NicEnv::step(std::span<const int> action, std::span<float> obs_out) {
  in_force_ = codec_->decode(action, base_);
  guard_.apply(*tracker_, in_force_);
  host::apply_policy(target_->bus(), caps_, in_force_);
  target_->clock().step(cfg_.interval_cycles);
  observe_interval();
  encoder_->write(obs_out);
  ++steps_;
  StepResult r;
  r.reward = static_cast<float>(reward_.total);
  r.truncated = steps_ >= cfg_.episode_steps || target_->finished();
  return r;
}

}  // namespace nicsched::control
