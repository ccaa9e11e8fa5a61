#include "nicsched/ppo/config.hpp"

#include <cmath>
#include <string>

#include "nicsched/fileio/settings.hpp"

namespace nicsched::ppo {
namespace {

using fileio::setting;

const fileio::Settings<PpoConfig>& settings() {
  static const fileio::Settings<PpoConfig> table(
      "unknown PPO setting",
      {
          setting("seed", &PpoConfig::seed, "an unsigned integer"),
          setting("total_steps", &PpoConfig::total_steps, "an unsigned integer"),
          setting("num_envs", &PpoConfig::num_envs, "an unsigned integer"),
          setting("num_steps", &PpoConfig::num_steps, "an unsigned integer"),
          setting("torch_threads", &PpoConfig::torch_threads, "an unsigned integer"),
          setting("env_threads", &PpoConfig::env_threads, "an unsigned integer"),
          setting("learning_rate", &PpoConfig::learning_rate, "a number"),
          setting("anneal_lr", &PpoConfig::anneal_lr, "true or false"),
          setting("adam_eps", &PpoConfig::adam_eps, "a number"),
          setting("update_epochs", &PpoConfig::update_epochs, "an unsigned integer"),
          setting("num_minibatches", &PpoConfig::num_minibatches, "an unsigned integer"),
          setting("max_grad_norm", &PpoConfig::max_grad_norm, "a number"),
          setting("gamma", &PpoConfig::gamma, "a number"),
          setting("gae_lambda", &PpoConfig::gae_lambda, "a number"),
          setting("norm_adv", &PpoConfig::norm_adv, "true or false"),
          setting("clip_coef", &PpoConfig::clip_coef, "a number"),
          setting("clip_vloss", &PpoConfig::clip_vloss, "true or false"),
          setting("ent_coef", &PpoConfig::ent_coef, "a number"),
          setting("vf_coef", &PpoConfig::vf_coef, "a number"),
          setting("use_target_kl", &PpoConfig::use_target_kl, "true or false"),
          setting("target_kl", &PpoConfig::target_kl, "a number"),
          setting("anchor_coef", &PpoConfig::anchor_coef, "a number"),
          setting("draw_weights", &PpoConfig::draw_weights, "uniform or trailing"),
          setting("draw_pool", &PpoConfig::draw_pool, "an unsigned integer"),
          setting("draw_mix", &PpoConfig::draw_mix, "a number"),
          setting("draw_every", &PpoConfig::draw_every, "an unsigned integer"),
          setting("draw_seeds", &PpoConfig::draw_seeds, "an unsigned integer"),
          setting("draw_baselines", &PpoConfig::draw_baselines, "a list of baseline names"),
          setting("hidden_sizes", &PpoConfig::hidden_sizes, "a list of unsigned integers"),
          setting("network", &PpoConfig::network, "mlp or set"),
          setting("norm_obs", &PpoConfig::norm_obs, "true or false"),
          setting("obs_clip", &PpoConfig::obs_clip, "a number"),
          setting("checkpoint_every", &PpoConfig::checkpoint_every, "an unsigned integer"),
      });
  return table;
}

void require(bool ok, const std::string& key, const std::string& what, const char* config = "PPO config") {
  if (!ok) throw ConfigError(std::string(config) + ": '" + key + "' " + what);
}

const fileio::Settings<DaggerConfig>& dagger_settings() {
  static const fileio::Settings<DaggerConfig> table(
      "unknown DAgger setting",
      {
          setting("iterations", &DaggerConfig::iterations, "an unsigned integer"),
          setting("draws", &DaggerConfig::draws, "an unsigned integer"),
          setting("labels", &DaggerConfig::labels, "lookahead or scenario"),
          setting("label_seeds", &DaggerConfig::label_seeds, "an unsigned integer"),
          setting("every", &DaggerConfig::every, "an unsigned integer"),
          setting("horizon", &DaggerConfig::horizon, "an unsigned integer"),
          setting("continuation", &DaggerConfig::continuation, "an unsigned integer"),
          setting("continue_with", &DaggerConfig::continue_with, "default or student"),
          setting("weights", &DaggerConfig::weights, "none or gap"),
          setting("min_iterations", &DaggerConfig::min_iterations, "an unsigned integer"),
          setting("epochs", &DaggerConfig::epochs, "an unsigned integer"),
          setting("learning_rate", &DaggerConfig::learning_rate, "a number"),
      });
  return table;
}

// Reads `file` with `table`, then validates; ConfigErrors name the file.
template <class Config>
Config load_config(const fileio::Settings<Config>& table, const std::filesystem::path& file, const char* what) {
  Config cfg;
  try {
    table.read(fileio::YamlDoc::load(file, what), cfg);
  } catch (const fileio::YamlError& e) {
    throw ConfigError(e.what());
  } catch (const fileio::FileError& e) {
    throw ConfigError(e.what());
  }
  try {
    cfg.validate();
  } catch (const ConfigError& e) {
    throw ConfigError(file.string() + ": " + e.what());
  }
  return cfg;
}

}  // namespace

void PpoConfig::validate() {
  require(num_envs >= 1, "num_envs", "must be at least 1");
  require(num_steps >= 1, "num_steps", "must be at least 1");
  require(torch_threads >= 1, "torch_threads", "must be at least 1");
  require(learning_rate > 0.0, "learning_rate", "must be positive");
  require(adam_eps > 0.0, "adam_eps", "must be positive");
  require(update_epochs >= 1, "update_epochs", "must be at least 1");
  require(num_minibatches >= 1, "num_minibatches", "must be at least 1");
  require(gamma >= 0.0 && gamma <= 1.0, "gamma", "must be in [0, 1]");
  require(gae_lambda >= 0.0 && gae_lambda <= 1.0, "gae_lambda", "must be in [0, 1]");
  require(clip_coef > 0.0, "clip_coef", "must be positive");
  require(ent_coef >= 0.0, "ent_coef", "must not be negative");
  require(vf_coef >= 0.0, "vf_coef", "must not be negative");
  require(target_kl > 0.0, "target_kl", "must be positive");
  require(anchor_coef >= 0.0 && std::isfinite(anchor_coef), "anchor_coef", "must be a finite number >= 0");
  require(draw_weights == "uniform" || draw_weights == "trailing", "draw_weights",
          "must be uniform or trailing, got '" + draw_weights + "'");
  require(draw_pool >= 2, "draw_pool", "must be at least 2");
  require(draw_mix >= 0.0 && draw_mix <= 1.0, "draw_mix", "must be in [0, 1]");
  require(draw_every >= 1, "draw_every", "must be at least 1");
  require(draw_seeds >= 1, "draw_seeds", "must be at least 1");
  require(!hidden_sizes.empty(), "hidden_sizes", "must name at least one layer");
  for (auto h : hidden_sizes) require(h >= 1, "hidden_sizes", "entries must be at least 1");
  require(network == "mlp" || network == "set", "network", "must be mlp or set, got '" + network + "'");
  require(obs_clip > 0.0, "obs_clip", "must be positive");
  batch_size = std::uint64_t{num_envs} * num_steps;
  require(batch_size % num_minibatches == 0, "num_minibatches",
          "must divide num_envs * num_steps = " + std::to_string(batch_size));
  minibatch_size = batch_size / num_minibatches;
  require(total_steps >= batch_size, "total_steps",
          "must be at least num_envs * num_steps = " + std::to_string(batch_size));
  num_updates = total_steps / batch_size;
}

PpoConfig load_ppo_config(const std::filesystem::path& file) {
  return load_config(settings(), file, "the PPO config file");
}

std::string ppo_config_yaml(const PpoConfig& c) { return settings().yaml(c); }

void DaggerConfig::validate() {
  constexpr const char* kWhat = "DAgger config";
  require(iterations >= 1, "iterations", "must be at least 1", kWhat);
  require(draws >= 1, "draws", "must be at least 1", kWhat);
  require(labels == "lookahead" || labels == "scenario", "labels",
          "must be lookahead or scenario, got '" + labels + "'", kWhat);
  require(label_seeds >= 1, "label_seeds", "must be at least 1", kWhat);
  require(every >= 1, "every", "must be at least 1", kWhat);
  require(horizon >= 1, "horizon", "must be at least 1", kWhat);
  require(continue_with == "default" || continue_with == "student", "continue_with",
          "must be default or student, got '" + continue_with + "'", kWhat);
  require(weights == "none" || weights == "gap", "weights", "must be none or gap, got '" + weights + "'", kWhat);
  require(min_iterations >= 1, "min_iterations", "must be at least 1", kWhat);
  require(epochs >= 1, "epochs", "must be at least 1", kWhat);
  require(learning_rate > 0.0, "learning_rate", "must be positive", kWhat);
}

DaggerConfig load_dagger_config(const std::filesystem::path& file) {
  return load_config(dagger_settings(), file, "the DAgger config file");
}

std::string dagger_config_yaml(const DaggerConfig& c) { return dagger_settings().yaml(c); }

}  // namespace nicsched::ppo
