// bench_agent: agent figures for docs/agent.md ("Figures"). Environment steps per second (one
// NicEnv, and a VecEnv of K stepped in parallel threads), policy inference latency per
// decision, and the time of one PPO update (rollout and optimisation separately).
// Prints Markdown; tools/bench_agent.sh runs it.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <random>

#include <sys/resource.h>

#include "nicsched/control/nic_env.hpp"
#include "nicsched/control/sim_env.hpp"
#include "nicsched/control/thread_clock.hpp"
#include "nicsched/control/vec_env.hpp"
#include "nicsched/ppo/policy.hpp"
#include "nicsched/ppo/trainer.hpp"
#include "nicsched/version.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using nicsched::control::NicEnv;
using nicsched::control::NicEnvConfig;

double seconds(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// A valid random action: a uniformly chosen allowed value per head.
std::vector<int> random_action(const nicsched::control::ActionSpace& space, std::span<const std::uint8_t> mask,
                               std::mt19937_64& rng) {
  std::vector<int> a;
  std::size_t off = 0;
  for (int h : space.head_sizes) {
    std::vector<int> allowed;
    for (int i = 0; i < h; ++i) {
      if (mask[off + static_cast<std::size_t>(i)] != 0) allowed.push_back(i);
    }
    a.push_back(allowed[std::uniform_int_distribution<std::size_t>(0, allowed.size() - 1)(rng)]);
    off += static_cast<std::size_t>(h);
  }
  return a;
}

// Involuntary context switches and page faults of the calling thread so far.
struct ThreadEvents {
  long preempted = 0;
  long faults = 0;
};
ThreadEvents thread_events() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return {u.ru_nivcsw, u.ru_minflt + u.ru_majflt};
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p / 100.0 * static_cast<double>(v.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_agent: NicEnv steps/s, inference latency, PPO update time"};
  app.set_version_flag("--version", std::string("bench_agent ") + nicsched::kVersion);
  std::string scenario = "sim/scenarios/default.yaml";
  std::string policy_dir;
  std::uint64_t steps = 400;
  std::uint32_t envs = 2;
  app.add_option("--scenario", scenario, "scenario YAML")->capture_default_str();
  app.add_option("--policy", policy_dir, "exported policy (for the inference latency)");
  app.add_option("--steps", steps, "env steps per measurement")->capture_default_str();
  app.add_option("--envs", envs, "environments of the vectorised measurement")->capture_default_str();
  std::string backend = "rtl";
  app.add_option("--backend", backend, "NIC simulator: rtl or model")->capture_default_str()
      ->check(CLI::IsMember({"rtl", "model"}));
  CLI11_PARSE(app, argc, argv);
  try {
    auto scenarios = std::make_shared<std::vector<nicsched::control::ScenarioEntry>>();
    scenarios->push_back(nicsched::control::load_scenario_entry(scenario, 4'000'000,
                                                                    nicsched::sim::parse_backend(backend)));
    const NicEnvConfig cfg;
    std::mt19937_64 rng(1);
    std::cout << "| figure | value | how |\n|---|---|---|\n";

    {  // single env
      NicEnv env(cfg, nicsched::control::sim_target_factory(scenarios, 0));
      std::vector<float> obs(env.observation_size());
      std::vector<std::uint8_t> mask(env.action_space().total());
      env.reset(1, obs);
      const auto t0 = Clock::now();
      for (std::uint64_t i = 0; i < steps; ++i) {
        env.action_mask(mask);
        (void)env.step(random_action(env.action_space(), mask, rng), obs);
      }
      const double s = seconds(t0);
      std::cout << "| NicEnv steps/s, 1 env, " << backend << " backend | " << static_cast<double>(steps) / s << " | " << steps
                << " steps of " << cfg.interval_cycles << " cycles, random actions |\n";
    }
    {  // vectorised
      std::vector<std::unique_ptr<nicsched::control::Env>> list;
      for (std::uint32_t k = 0; k < envs; ++k) {
        list.push_back(std::make_unique<NicEnv>(cfg, nicsched::control::sim_target_factory(scenarios, k)));
      }
      nicsched::control::VecEnv vec(std::move(list), 1, envs);
      vec.reset();
      const auto t0 = Clock::now();
      const std::uint64_t rounds = steps / envs;
      for (std::uint64_t i = 0; i < rounds; ++i) {
        std::vector<int> actions;
        for (std::uint32_t k = 0; k < envs; ++k) {
          const auto total = vec.action_space().total();
          const auto a = random_action(vec.action_space(), vec.masks().subspan(k * total, total), rng);
          actions.insert(actions.end(), a.begin(), a.end());
        }
        vec.step(actions);
      }
      const double s = seconds(t0);
      std::cout << "| NicEnv steps/s, " << backend << " backend, " << envs << " envs in " << envs << " threads | "
                << static_cast<double>(rounds * envs) / s << " | VecEnv, " << rounds * envs << " steps |\n";
    }
    if (!policy_dir.empty()) {
      const nicsched::ppo::TrainedPolicy policy(policy_dir);
      std::vector<float> obs(policy.observation_size(), 0.1F);
      std::size_t total = 0;
      for (int h : policy.head_sizes()) total += static_cast<std::size_t>(h);
      const std::vector<std::uint8_t> mask(total, 1);
      std::vector<double> us, cpu_us;
      std::vector<bool> preempted, faulted;  // per call: the thread was switched out / took a page fault
      for (int i = 0; i < 2000; ++i) {
        const ThreadEvents e0 = thread_events();
        const auto t0 = Clock::now();
        const double c0 = nicsched::control::thread_cpu_us();
        (void)policy.act(obs, mask);
        const double c1 = nicsched::control::thread_cpu_us();
        const double wall = seconds(t0);
        const ThreadEvents e1 = thread_events();
        if (i >= 100) {
          us.push_back(wall * 1e6);
          cpu_us.push_back(c1 - c0);
          preempted.push_back(e1.preempted != e0.preempted);
          faulted.push_back(e1.faults != e0.faults);
        }
      }
      // Where the CPU-time tail comes from: of the calls above the CPU p99, how many were
      // switched out (the thread CPU clock also runs in the scheduler, and the caches are
      // cold afterwards) or took a page fault, against the same share over all calls.
      const double cpu_p99 = percentile(cpu_us, 99);
      std::size_t slow = 0, slow_pre = 0, slow_flt = 0, all_pre = 0, all_flt = 0;
      for (std::size_t i = 0; i < cpu_us.size(); ++i) {
        all_pre += preempted[i] ? 1U : 0U;
        all_flt += faulted[i] ? 1U : 0U;
        if (cpu_us[i] < cpu_p99) continue;
        ++slow;
        slow_pre += preempted[i] ? 1U : 0U;
        slow_flt += faulted[i] ? 1U : 0U;
      }
      std::cout << "| policy decision, wall p50 / p99 (us) | " << percentile(us, 50) << " / "
                << percentile(us, 99)
                << " | TrainedPolicy::act (the actor's forward pass in plain C++ from weights copied out of the "
                   "module at load), 1900 calls after 100 |\n";
      std::cout << "| policy decision, thread CPU p50 / p99 (us) | " << percentile(cpu_us, 50) << " / "
                << cpu_p99 << " | the same calls, CLOCK_THREAD_CPUTIME_ID: wall - CPU = time preempted |\n";
      std::cout << "| policy decision, calls >= CPU p99: preempted / page-faulted | " << slow_pre << " / " << slow_flt
                << " of " << slow << " | all " << cpu_us.size() << " calls: " << all_pre << " / " << all_flt
                << " (getrusage RUSAGE_THREAD nivcsw, minflt + majflt around each call) |\n";
      // The same decision with cold caches, as after other processes ran on the core: 48 MiB
      // (more than the L2 + L3 of the 2-core VM) written between calls.
      std::vector<char> evict(std::size_t{48} << 20);
      std::vector<double> cold_us;
      for (int i = 0; i < 300; ++i) {
        for (std::size_t k = 0; k < evict.size(); k += 64) ++evict[k];
        const double c0 = nicsched::control::thread_cpu_us();
        (void)policy.act(obs, mask);
        cold_us.push_back(nicsched::control::thread_cpu_us() - c0);
      }
      std::cout << "| policy decision, caches evicted: thread CPU p50 / p99 (us) | " << percentile(cold_us, 50) << " / "
                << percentile(cold_us, 99) << " | 300 calls, 48 MiB written between calls |\n";
      // As eval and serve decide: one decision after each env step, on its observation.
      NicEnv env(cfg, nicsched::control::sim_target_factory(scenarios, 0));
      if (env.observation_size() == policy.observation_size() && env.action_space().total() == total) {
        std::vector<float> env_obs(env.observation_size());
        std::vector<std::uint8_t> env_mask(total);
        env.reset(1, env_obs);
        std::vector<double> step_us, step_cpu_us;
        for (std::uint64_t i = 0; i < std::min<std::uint64_t>(steps, 1000); ++i) {
          env.action_mask(env_mask);
          const auto t0 = Clock::now();
          const double c0 = nicsched::control::thread_cpu_us();
          const std::vector<int> a = policy.act(env_obs, env_mask);
          step_cpu_us.push_back(nicsched::control::thread_cpu_us() - c0);
          step_us.push_back(seconds(t0) * 1e6);
          (void)env.step(a, env_obs);
        }
        std::cout << "| policy decision between env steps, wall / thread CPU p50 / p99 (us) | "
                  << percentile(step_us, 50) << " / " << percentile(step_us, 99) << ", " << percentile(step_cpu_us, 50)
                  << " / " << percentile(step_cpu_us, 99) << " | " << step_us.size()
                  << " decisions, each after a NicEnv step (as eval and serve decide) |\n";
      }
    }
    for (const std::string network : {"mlp", "set"}) {  // one PPO update on NicEnv
      nicsched::ppo::PpoConfig pc;
      pc.num_envs = envs;
      pc.num_steps = 128;
      pc.total_steps = 10ULL * envs * 128;
      pc.env_threads = envs;
      pc.network = network;
      std::vector<std::unique_ptr<nicsched::control::Env>> list;
      for (std::uint32_t k = 0; k < envs; ++k) {
        list.push_back(std::make_unique<NicEnv>(cfg, nicsched::control::sim_target_factory(scenarios, k)));
      }
      nicsched::ppo::TenantLayout layout;
      const nicsched::control::ActionCodec codec(cfg, nicsched::host::Capabilities{});
      layout.tenants = list.front()->action_space().heads() / codec.heads_per_tenant();
      layout.frames = cfg.history;
      layout.tenant_features = nicsched::control::ObservationEncoder::tenant_features(cfg);
      layout.frame_size = layout.tenants * layout.tenant_features + nicsched::control::ObservationEncoder::kGlobalFeatures;
      layout.heads_per_tenant = codec.heads_per_tenant();
      layout.logits_per_tenant = codec.logits_per_tenant();
      nicsched::ppo::Trainer trainer(pc, std::move(list), layout);
      const auto st = trainer.update();
      std::cout << "| PPO update, " << backend << " backend, " << network << " network: rollout / optimisation (s) | "
                << st.rollout_seconds << " / " << st.update_seconds << " | " << envs
                << " envs x 128 steps, 4 epochs x 4 minibatches, hidden 64x64 |\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "bench_agent: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
