#include "nicsched/control/nic_env.hpp"

#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/host/telemetry.hpp"

namespace nicsched::control {

NicEnv::NicEnv(NicEnvConfig cfg, TargetFactory factory)
    : cfg_(cfg), factory_(std::move(factory)), guard_(cfg.guard()) {
  cfg_.validate();
  target_ = factory_(0);
  caps_ = host::discover(target_->bus());
  tracker_.emplace(caps_, target_->link_bytes_per_cycle());
  codec_.emplace(cfg_, caps_, target_->link_bytes_per_cycle());
  encoder_.emplace(cfg_, caps_);
  if (cfg_.action == ActionKind::kStrategy) strategies_.emplace(cfg_.strategies, cfg_.strategy_hold);
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
  if (strategies_) {
    (void)teacher_->decide(*tracker_, base_);  // its state follows the run (a selector's arm)
    const auto k = strategies_->index_of(*teacher_);
    if (!k) throw EnvError("NicEnv: the teacher '" + teacher_->name() + "' decides as none of the env's strategies");
    if (action_out.size() != 1) throw EnvError("NicEnv::expert_action: wrong action size");
    action_out[0] = static_cast<int>(*k);
    return true;
  }
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
  base_ = read_controller_base(bus, caps_);
  in_force_ = base_;
  tracker_->reset(host::read_snapshot(bus, caps_));
  encoder_->reset();
  start_progress_ = target_->progress();
  start_cycle_ = target_->clock().cycle();
  last_progress_ = start_progress_;
  steps_ = 0;
  if (teacher_) teacher_->reset();
  guard_.reset();
  if (strategies_) strategies_->reset();
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
  if (strategies_) strategies_->decide_all(*tracker_, base_);
}

StepResult NicEnv::step(std::span<const int> action, std::span<float> obs_out) {
  if (strategies_) {
    if (action.size() != 1) throw EnvError("NicEnv::step: the strategy action is one index");
    in_force_ = strategies_->commit(action[0]);
  } else {
    in_force_ = codec_->decode(action, base_);
  }
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
