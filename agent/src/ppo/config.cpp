#include "nicsched/ppo/config.hpp"

#include <yaml-cpp/yaml.h>

#include "nicsched/fileio/yaml.hpp"

#include <functional>
#include <map>

namespace nicsched::ppo {
namespace {

using Setter = std::function<void(PpoConfig&, const fileio::YamlDoc&, const YAML::Node&, const std::string&)>;

template <typename T>
Setter field(T PpoConfig::*member, const char* expected) {
  return [member, expected](PpoConfig& c, const fileio::YamlDoc& doc, const YAML::Node& n, const std::string& k) {
    c.*member = doc.as<T>(n, k, expected);
  };
}

const std::map<std::string, Setter>& setters() {
  static const std::map<std::string, Setter> table = {
      {"seed", field(&PpoConfig::seed, "an unsigned integer")},
      {"total_steps", field(&PpoConfig::total_steps, "an unsigned integer")},
      {"num_envs", field(&PpoConfig::num_envs, "an unsigned integer")},
      {"num_steps", field(&PpoConfig::num_steps, "an unsigned integer")},
      {"torch_threads", field(&PpoConfig::torch_threads, "an unsigned integer")},
      {"env_threads", field(&PpoConfig::env_threads, "an unsigned integer")},
      {"learning_rate", field(&PpoConfig::learning_rate, "a number")},
      {"anneal_lr", field(&PpoConfig::anneal_lr, "true or false")},
      {"adam_eps", field(&PpoConfig::adam_eps, "a number")},
      {"update_epochs", field(&PpoConfig::update_epochs, "an unsigned integer")},
      {"num_minibatches", field(&PpoConfig::num_minibatches, "an unsigned integer")},
      {"max_grad_norm", field(&PpoConfig::max_grad_norm, "a number")},
      {"gamma", field(&PpoConfig::gamma, "a number")},
      {"gae_lambda", field(&PpoConfig::gae_lambda, "a number")},
      {"norm_adv", field(&PpoConfig::norm_adv, "true or false")},
      {"clip_coef", field(&PpoConfig::clip_coef, "a number")},
      {"clip_vloss", field(&PpoConfig::clip_vloss, "true or false")},
      {"ent_coef", field(&PpoConfig::ent_coef, "a number")},
      {"vf_coef", field(&PpoConfig::vf_coef, "a number")},
      {"use_target_kl", field(&PpoConfig::use_target_kl, "true or false")},
      {"target_kl", field(&PpoConfig::target_kl, "a number")},
      {"hidden_sizes", field(&PpoConfig::hidden_sizes, "a list of unsigned integers")},
      {"network", field(&PpoConfig::network, "mlp or set")},
      {"norm_obs", field(&PpoConfig::norm_obs, "true or false")},
      {"obs_clip", field(&PpoConfig::obs_clip, "a number")},
      {"checkpoint_every", field(&PpoConfig::checkpoint_every, "an unsigned integer")},
  };
  return table;
}

void require(bool ok, const std::string& key, const std::string& what) {
  if (!ok) throw ConfigError("PPO config: '" + key + "' " + what);
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
  PpoConfig cfg;
  try {
    const auto doc = fileio::YamlDoc::load(file, "the PPO config file");
    if (!doc.empty()) {
      doc.expect_map(doc.root(), "(top level)");
      for (const auto& kv : doc.root()) {
        const auto key = doc.scalar(kv.first, "(key)");
        const auto it = setters().find(key);
        if (it == setters().end()) doc.fail(kv.first, key, "unknown PPO setting");
        it->second(cfg, doc, kv.second, key);
      }
    }
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

std::string ppo_config_yaml(const PpoConfig& c) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "seed" << YAML::Value << c.seed;
  out << YAML::Key << "total_steps" << YAML::Value << c.total_steps;
  out << YAML::Key << "num_envs" << YAML::Value << c.num_envs;
  out << YAML::Key << "num_steps" << YAML::Value << c.num_steps;
  out << YAML::Key << "torch_threads" << YAML::Value << c.torch_threads;
  out << YAML::Key << "env_threads" << YAML::Value << c.env_threads;
  out << YAML::Key << "learning_rate" << YAML::Value << c.learning_rate;
  out << YAML::Key << "anneal_lr" << YAML::Value << c.anneal_lr;
  out << YAML::Key << "adam_eps" << YAML::Value << c.adam_eps;
  out << YAML::Key << "update_epochs" << YAML::Value << c.update_epochs;
  out << YAML::Key << "num_minibatches" << YAML::Value << c.num_minibatches;
  out << YAML::Key << "max_grad_norm" << YAML::Value << c.max_grad_norm;
  out << YAML::Key << "gamma" << YAML::Value << c.gamma;
  out << YAML::Key << "gae_lambda" << YAML::Value << c.gae_lambda;
  out << YAML::Key << "norm_adv" << YAML::Value << c.norm_adv;
  out << YAML::Key << "clip_coef" << YAML::Value << c.clip_coef;
  out << YAML::Key << "clip_vloss" << YAML::Value << c.clip_vloss;
  out << YAML::Key << "ent_coef" << YAML::Value << c.ent_coef;
  out << YAML::Key << "vf_coef" << YAML::Value << c.vf_coef;
  out << YAML::Key << "use_target_kl" << YAML::Value << c.use_target_kl;
  out << YAML::Key << "target_kl" << YAML::Value << c.target_kl;
  out << YAML::Key << "hidden_sizes" << YAML::Value << YAML::Flow << c.hidden_sizes;
  out << YAML::Key << "network" << YAML::Value << c.network;
  out << YAML::Key << "norm_obs" << YAML::Value << c.norm_obs;
  out << YAML::Key << "obs_clip" << YAML::Value << c.obs_clip;
  out << YAML::Key << "checkpoint_every" << YAML::Value << c.checkpoint_every;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace nicsched::ppo
