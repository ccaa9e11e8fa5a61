// PpoConfig YAML loading: overrides apply, derived values follow, bad input is named.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "nicsched/ppo/config.hpp"

using nicsched::ppo::ConfigError;
using nicsched::ppo::load_ppo_config;
using nicsched::ppo::ppo_config_yaml;
using nicsched::ppo::PpoConfig;

namespace {

std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("nicsched_agent_" + name);
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::filesystem::path& p) {
  try {
    (void)load_ppo_config(p);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("config: YAML values override defaults and derived sizes follow", "[config]") {
  const auto p = write_temp("ok.yaml",
                            "num_envs: 4\nnum_steps: 64\nnum_minibatches: 8\ntotal_steps: 2560\n"
                            "clip_vloss: false\nhidden_sizes: [32, 16]\n");
  const auto cfg = load_ppo_config(p);
  CHECK(cfg.num_envs == 4);
  CHECK_FALSE(cfg.clip_vloss);
  CHECK(cfg.hidden_sizes == std::vector<std::uint32_t>{32, 16});
  CHECK(cfg.batch_size == 256);
  CHECK(cfg.minibatch_size == 32);
  CHECK(cfg.num_updates == 10);
  CHECK(cfg.gamma == PpoConfig{}.gamma);  // untouched keys keep their defaults
}

TEST_CASE("config: an unknown key is an error naming file, line and key", "[config]") {
  const auto p = write_temp("unknown.yaml", "num_envs: 4\nlearning_rat: 0.001\n");
  const auto msg = error_of(p);
  CHECK_THAT(msg, Catch::Contains("nicsched_agent_unknown.yaml:2"));
  CHECK_THAT(msg, Catch::Contains("learning_rat"));
}

TEST_CASE("config: a value of the wrong type names the key and what was expected", "[config]") {
  const auto p = write_temp("type.yaml", "gamma: high\n");
  const auto msg = error_of(p);
  CHECK_THAT(msg, Catch::Contains(":1"));
  CHECK_THAT(msg, Catch::Contains("gamma"));
  CHECK_THAT(msg, Catch::Contains("a number"));
}

TEST_CASE("config: inconsistent sizes are rejected", "[config]") {
  const auto p = write_temp("sizes.yaml", "num_envs: 3\nnum_steps: 5\nnum_minibatches: 4\n");
  CHECK_THAT(error_of(p), Catch::Contains("num_minibatches"));
  PpoConfig cfg;
  cfg.gamma = 1.5;
  CHECK_THROWS_AS(cfg.validate(), ConfigError);
}

TEST_CASE("config: what ppo_config_yaml writes loads back unchanged", "[config]") {
  PpoConfig cfg;
  cfg.seed = 7;
  cfg.learning_rate = 3e-4;
  cfg.use_target_kl = true;
  cfg.hidden_sizes = {128, 64};
  const auto p = write_temp("round.yaml", ppo_config_yaml(cfg));
  const auto back = load_ppo_config(p);
  CHECK(back.seed == 7);
  CHECK(back.learning_rate == Approx(3e-4));
  CHECK(back.use_target_kl);
  CHECK(back.hidden_sizes == cfg.hidden_sizes);
}

TEST_CASE("config: the DAgger config's continuation and weights are words, bad ones named", "[config][dagger]") {
  nicsched::ppo::DaggerConfig cfg;
  cfg.continue_with = "student";
  cfg.weights = "gap";
  const auto back = nicsched::ppo::load_dagger_config(write_temp("dagger.yaml", nicsched::ppo::dagger_config_yaml(cfg)));
  CHECK(back.continue_with == "student");
  CHECK(back.weights == "gap");
  CHECK(nicsched::ppo::load_dagger_config(write_temp("dagger-empty.yaml", "iterations: 1\n")).continue_with == "default");
  CHECK_THROWS_WITH(nicsched::ppo::load_dagger_config(write_temp("dagger-bad.yaml", "continue_with: oracle\n")),
                    Catch::Contains("continue_with") && Catch::Contains("oracle"));
  CHECK_THROWS_WITH(nicsched::ppo::load_dagger_config(write_temp("dagger-bad2.yaml", "weights: spread\n")),
                    Catch::Contains("weights") && Catch::Contains("spread"));
}

TEST_CASE("config: the DAgger config's labels and label seeds, bad ones named", "[config][dagger]") {
  nicsched::ppo::DaggerConfig cfg;
  CHECK(cfg.labels == "lookahead");
  cfg.labels = "scenario";
  cfg.label_seeds = 3;
  const auto back =
      nicsched::ppo::load_dagger_config(write_temp("dagger-labels.yaml", nicsched::ppo::dagger_config_yaml(cfg)));
  CHECK(back.labels == "scenario");
  CHECK(back.label_seeds == 3);
  CHECK_THROWS_WITH(nicsched::ppo::load_dagger_config(write_temp("dagger-bad3.yaml", "labels: hindsight\n")),
                    Catch::Contains("'labels'") && Catch::Contains("hindsight") && Catch::Contains("dagger-bad3.yaml"));
  CHECK_THROWS_WITH(nicsched::ppo::load_dagger_config(write_temp("dagger-bad4.yaml", "label_seeds: 0\n")),
                    Catch::Contains("'label_seeds'") && Catch::Contains("at least 1"));
  CHECK_THROWS_WITH(nicsched::ppo::load_dagger_config(write_temp("dagger-bad5.yaml", "label_seeds: two\n")),
                    Catch::Contains("label_seeds"));
}

TEST_CASE("config: anchor_coef is 0 unless set, and must be a finite number >= 0", "[config][anchor]") {
  CHECK(PpoConfig{}.anchor_coef == 0.0);
  CHECK(load_ppo_config(write_temp("anchor.yaml", "anchor_coef: 0.5\n")).anchor_coef == 0.5);
  PpoConfig cfg;
  cfg.anchor_coef = 2.0;
  CHECK(load_ppo_config(write_temp("anchor-round.yaml", ppo_config_yaml(cfg))).anchor_coef == 2.0);
  for (const char* bad : {"anchor_coef: -0.1\n", "anchor_coef: .inf\n", "anchor_coef: .nan\n"}) {
    INFO(bad);
    const auto msg = error_of(write_temp("anchor-bad.yaml", bad));
    CHECK_THAT(msg, Catch::Contains("'anchor_coef'") && Catch::Contains("nicsched_agent_anchor-bad.yaml"));
  }
  CHECK_THAT(error_of(write_temp("anchor-word.yaml", "anchor_coef: strong\n")),
             Catch::Contains("anchor_coef") && Catch::Contains("a number") && Catch::Contains(":1"));
}
