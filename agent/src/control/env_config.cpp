#include "nicsched/control/env_config.hpp"

#include <cmath>
#include <string>

#include "nicsched/control/controller.hpp"
#include "nicsched/fileio/settings.hpp"
#include "nicsched/fileio/yaml.hpp"

namespace nicsched::control {
namespace {

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

// The `action` key: a word, as `reward`.
fileio::Setting<NicEnvConfig> action_setting() {
  return {"action",
          [](NicEnvConfig& c, const fileio::YamlDoc& doc, const YAML::Node& n) {
            const auto word = doc.as<std::string>(n, "action", "tenant or strategy");
            if (word == action_kind_name(ActionKind::kTenant)) {
              c.action = ActionKind::kTenant;
            } else if (word == action_kind_name(ActionKind::kStrategy)) {
              c.action = ActionKind::kStrategy;
            } else {
              doc.fail(n, "action", "must be tenant or strategy, not '" + word + "'");
            }
          },
          [](YAML::Emitter& out, const NicEnvConfig& c) {
            out << YAML::Key << "action" << YAML::Value << action_kind_name(c.action);
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
          action_setting(),
          setting("strategies", &NicEnvConfig::strategies, "a list of controller names"),
          setting("strategy_hold", &NicEnvConfig::strategy_hold, "an unsigned integer"),
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

}  // namespace

const char* reward_kind_name(RewardKind k) {
  switch (k) {
    case RewardKind::kSpeed: return "speed";
    case RewardKind::kSlowdown: return "slowdown";
  }
  return "?";
}

const char* action_kind_name(ActionKind k) {
  switch (k) {
    case ActionKind::kTenant: return "tenant";
    case ActionKind::kStrategy: return "strategy";
  }
  return "?";
}

const std::vector<std::string>& default_strategies() {
  static const std::vector<std::string> names = {"progress+guard", "progress", "sp",           "fifo",       "fair",
                                                 "stagger+guard",  "las+guard", "crypto-equal", "crypto-prop"};
  return names;
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
  require(strategy_hold >= 1, "strategy_hold", "must be at least 1 (decisions a chosen strategy stays in charge)");
  require(action != ActionKind::kStrategy || strategies.size() >= 2, "strategies",
          "must name at least two controllers for the strategy action");
  for (std::size_t i = 0; i < strategies.size(); ++i) {
    try {
      (void)make_baseline(strategies[i]);
    } catch (const EnvError& e) {
      throw EnvError("env config: 'strategies' entry " + std::to_string(i + 1) + ": " + e.what());
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (strategies[i] == strategies[j]) {
        throw EnvError("env config: 'strategies' names '" + strategies[i] + "' twice (entries " +
                       std::to_string(j + 1) + " and " + std::to_string(i + 1) + ")");
      }
    }
  }
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

}  // namespace nicsched::control
