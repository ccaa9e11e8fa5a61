#include "nicsched/ppo/ppo_controller.hpp"

#include "nicsched/ppo/trainer.hpp"

namespace nicsched::ppo {

PpoController::PpoController(std::shared_ptr<const TrainedPolicy> policy)
    : policy_(std::move(policy)),
      env_(control::parse_env_config(policy_->env_yaml(), "policy.yaml env")),
      guard_(env_.guard()) {}

void PpoController::reset() {
  codec_.reset();
  strategies_.reset();
  encoder_.reset();
  in_force_.reset();
  guard_.reset();
}

host::Policy PpoController::decide(const control::TelemetryTracker& tracker, const host::Policy& base) {
  if (!encoder_) {
    codec_.emplace(env_, tracker.caps(), tracker.link_bytes_per_cycle());
    encoder_.emplace(env_, tracker.caps());
    if (!policy_->fits(encoder_->size(), codec_->space().head_sizes)) {  // a set network fits any tenant count
      throw CheckpointError("the policy was trained for observations of " +
                            std::to_string(policy_->observation_size()) + " values and " +
                            std::to_string(policy_->head_sizes().size()) + " action heads; this NIC (" +
                            std::to_string(tracker.caps().tenants) + " tenants) needs " +
                            std::to_string(encoder_->size()) + " and " +
                            std::to_string(codec_->space().heads()));
    }
    if (codec_->strategy_action()) strategies_.emplace(env_.strategies, env_.strategy_hold);
    obs_.resize(encoder_->size());
    mask_.resize(codec_->space().total());
  }
  if (!in_force_) in_force_ = base;
  encoder_->push(tracker, *in_force_);
  encoder_->write(obs_);
  codec_->mask(tracker, mask_);
  action_ = policy_->act(obs_, mask_);
  if (strategies_) {
    strategies_->decide_all(tracker, base);
    in_force_ = strategies_->commit(action_.at(0));
  } else {
    in_force_ = codec_->decode(action_, base);
  }
  guard_.apply(tracker, *in_force_);
  return *in_force_;
}

}  // namespace nicsched::ppo
