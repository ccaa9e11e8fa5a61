// The lookahead oracle (lookahead.hpp).
#include "nicsched/control/lookahead.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "nicsched/control/action_codec.hpp"
#include "nicsched/control/error.hpp"
#include "nicsched/control/observation.hpp"
#include "nicsched/control/panel.hpp"

namespace nicsched::control {
namespace {

constexpr std::uint64_t kToTheEnd = std::numeric_limits<std::uint64_t>::max();

// The controller of a lookahead run and of each of its copies: every arm decides at every
// interval; the arm in charge for the next `left` decisions, then the default, is committed.
// A copy (Controller::clone, through ControlledRun::fork) copies the arms and the plan.
class PlanController final : public Controller {
 public:
  explicit PlanController(std::vector<std::unique_ptr<Controller>> arms) : arms_(std::move(arms)) {}
  [[nodiscard]] std::string name() const override { return "lookahead"; }
  [[nodiscard]] std::unique_ptr<Controller> clone() const override { return std::make_unique<PlanController>(*this); }
  void reset() override {
    arms_.reset();
    last_.reset();
  }
  host::Policy decide(const TelemetryTracker& tracker, const host::Policy& base) override {
    const std::uint32_t active = left_ > 0 ? arm_ : fallback_;
    if (left_ > 0 && left_ != kToTheEnd) --left_;
    in_force_ = last_ ? *last_ : base;
    arms_.decide_all(tracker, base);
    // The hold arm (index arms_.size()) writes the policy committed last.
    last_ = active < arms_.size() ? arms_.decision(active) : in_force_;
    return *last_;
  }

  // `arm` in charge for the next `decisions` decisions (kToTheEnd: for good), then `then`.
  void follow(std::uint32_t arm, std::uint64_t decisions, std::uint32_t then) {
    arm_ = arm;
    left_ = decisions;
    fallback_ = then;
  }
  // The policy in force when the last decision was taken (what a learned controller's
  // observation encodes as "the action in force").
  [[nodiscard]] const host::Policy& in_force() const { return in_force_; }
  [[nodiscard]] std::uint32_t arm_count() const { return static_cast<std::uint32_t>(arms_.size()) + 1; }
  [[nodiscard]] std::vector<std::string> arm_names() const {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < arms_.size(); ++i) names.push_back(arms_.member(i).name());
    names.emplace_back(kHoldArm);
    return names;
  }

 private:
  Panel arms_;
  std::optional<host::Policy> last_;  // the policy committed last (what `hold` writes)
  host::Policy in_force_;
  std::uint32_t arm_ = 0, fallback_ = 0;
  std::uint64_t left_ = kToTheEnd;
};

PlanController& plan_of(ControlledRun& run) { return dynamic_cast<PlanController&>(run.controller()); }

// Lower wins; NaN never wins against a number.
bool better(double a, double b) { return !std::isnan(a) && (std::isnan(b) || a < b); }

// A plan for a copy: `arm` for `decisions` decisions, then `then`.
struct Plan {
  std::uint32_t arm, then;
  std::uint64_t decisions;
};

// Plays copies of a run and counts them.
struct Copies {
  const sim::Scenario& scenario;
  std::uint64_t forks = 0;
  std::uint64_t simulated_cycles = 0;

  std::uint64_t last_steps = 0;  // decisions the last copy played

  // A copy of `run` under `plan` (none: the plan being followed), played for `steps`
  // decisions (kToTheEnd: to the end) and scored.
  double play(const ControlledRun& run, std::optional<Plan> plan, std::uint64_t steps) {
    auto copy = run.fork();
    if (plan) plan_of(*copy).follow(plan->arm, plan->decisions, plan->then);
    const std::uint64_t from = copy->simulation().cycle();
    last_steps = 0;
    while (last_steps < steps && copy->step()) ++last_steps;
    ++forks;
    simulated_cycles += copy->simulation().cycle() - from;
    return score_run(copy->result(), scenario).norm_time;
  }

  // The first decision: arms 0 .. count-1 each alone to the end; the best is chosen.
  // `length` (when given): the chosen arm's run in decisions.
  LookaheadDecision first(const ControlledRun& run, std::uint32_t count, std::uint64_t* length = nullptr) {
    LookaheadDecision d;
    for (std::uint32_t a = 0; a < count; ++a) {
      d.arm_scores.push_back(play(run, Plan{a, a, kToTheEnd}, kToTheEnd));
      if (!d.chosen || better(d.arm_scores[a], d.best_score)) {
        d.chosen = a;
        d.best_score = d.arm_scores[a];
        if (length != nullptr) *length = last_steps;
      }
    }
    return d;
  }

  // Arms 0 .. count-1, each "arm for H, then `then`", on copies of `run`.
  std::vector<double> arms(const ControlledRun& run, std::uint32_t count, std::uint32_t then,
                           const LookaheadConfig& config) {
    std::vector<double> scores;
    for (std::uint32_t a = 0; a < count; ++a) scores.push_back(play(run, Plan{a, then, config.horizon}, steps(config)));
    return scores;
  }

  static std::uint64_t steps(const LookaheadConfig& config) {
    return config.continuation == 0 ? kToTheEnd : config.horizon + config.continuation;
  }
};

void check(const LookaheadConfig& config) {
  if (config.every == 0) throw EnvError("lookahead: every (k) must be at least 1 decision");
  if (config.horizon == 0) throw EnvError("lookahead: horizon (H) must be at least 1 decision");
  if (config.per_run > 0 && config.horizon_k == 0) throw EnvError("lookahead: horizon_k (H / k) must be at least 1");
}

// The k and H of a run whose default rule plays `length` decisions (LookaheadConfig::per_run).
LookaheadConfig resolved(LookaheadConfig config, std::uint64_t length) {
  if (config.per_run == 0) return config;
  config.every = std::max<std::uint64_t>(1, length / (config.per_run + 1));
  config.horizon = config.horizon_k * config.every;
  return config;
}

}  // namespace

LookaheadResult run_lookahead(const ScenarioEntry& entry, std::uint64_t seed,
                              std::vector<std::unique_ptr<Controller>> arms, std::uint64_t interval_cycles,
                              std::optional<std::uint64_t> min_iterations, const LookaheadConfig& settings) {
  if (arms.empty()) throw EnvError("lookahead: no candidate controllers");
  check(settings);
  ControlledRun run(entry, seed, std::make_unique<PlanController>(std::move(arms)), interval_cycles, min_iterations);
  LookaheadResult out;
  out.arms = plan_of(run).arm_names();
  const std::uint32_t n_arms = plan_of(run).arm_count();
  Copies copies{entry.scenario};

  // First decision: every arm alone to the end; the best is the default rule.
  std::uint64_t length = 0;
  LookaheadDecision first = copies.first(run, n_arms, &length);
  const LookaheadConfig config = resolved(settings, length);
  out.every = config.every;
  out.horizon = config.horizon;
  out.default_arm = *first.chosen;
  plan_of(run).follow(out.default_arm, kToTheEnd, out.default_arm);
  double incumbent = first.best_score;  // with continuation to the end: what the run will score
  out.decisions.push_back(std::move(first));

  std::uint64_t decision = 0;
  while (true) {
    bool running = true;
    for (std::uint64_t s = 0; s < config.every && (running = run.step()); ++s) ++decision;
    if (!running) break;
    LookaheadDecision d;
    d.decision = decision;
    // The plan being followed: its projection is known exactly when copies run to the end
    // (a fork continues as the original); a cut-short projection is measured.
    d.incumbent_score = config.continuation == 0 ? incumbent : copies.play(run, std::nullopt, Copies::steps(config));
    d.best_score = d.incumbent_score;
    d.arm_scores = copies.arms(run, n_arms, out.default_arm, config);
    for (std::uint32_t a = 0; a < n_arms; ++a) {
      if (better(d.arm_scores[a], d.best_score)) {
        d.chosen = a;
        d.best_score = d.arm_scores[a];
      }
    }
    if (d.chosen) plan_of(run).follow(*d.chosen, config.horizon, out.default_arm);
    incumbent = d.best_score;
    out.decisions.push_back(std::move(d));
  }
  out.run = run.result();
  out.score = score_run(out.run, entry.scenario).norm_time;
  out.forks = copies.forks;
  out.simulated_cycles = copies.simulated_cycles;
  return out;
}

const char* label_continuation_name(LabelContinuation c) {
  switch (c) {
    case LabelContinuation::kDefaultRule: return "default";
    case LabelContinuation::kStudent: return "student";
  }
  return "?";
}

double LabelledState::gap() const {
  double best = NAN, second = NAN;
  for (const double s : arm_scores) {
    if (std::isnan(s)) return 0.0;
    if (std::isnan(best) || s < best) {
      second = best;
      best = s;
    } else if (std::isnan(second) || s < second) {
      second = s;
    }
  }
  return std::isnan(second) || !(best > 0.0) ? 0.0 : (second - best) / best;
}

namespace {

// What every labelling of a student's run needs of `env` and `every`.
void check_student_labels(const NicEnvConfig& env, std::uint64_t every) {
  if (env.action != ActionKind::kStrategy || env.strategies.empty()) {
    throw EnvError("DAgger labels: the env config's action must be `strategy` with its strategies");
  }
  if (every == 0) throw EnvError("DAgger labels: every (k) must be at least 1 decision");
  if (every % env.strategy_hold != 0) {
    throw EnvError("DAgger labels: every (k = " + std::to_string(every) +
                   ") must be a multiple of the env config's strategy_hold (" + std::to_string(env.strategy_hold) +
                   "): the labels are for decisions the student takes");
  }
}

// The student's run on `entry` and `seed`: every strategy of `env` decides every interval
// beside it (so each one's state follows the run, and a copy can put one in charge); the
// student, the member after them, is in charge throughout.
std::unique_ptr<ControlledRun> student_run(const ScenarioEntry& entry, std::uint64_t seed,
                                           std::unique_ptr<Controller> student, const NicEnvConfig& env,
                                           std::optional<std::uint64_t> min_iterations) {
  std::vector<std::unique_ptr<Controller>> members;
  for (const auto& name : env.strategies) members.push_back(make_baseline(name));
  const auto n_strategies = static_cast<std::uint32_t>(members.size());
  members.push_back(std::move(student));
  auto run = std::make_unique<ControlledRun>(entry, seed, std::make_unique<PlanController>(std::move(members)),
                                             env.interval_cycles, min_iterations);
  plan_of(*run).follow(n_strategies, kToTheEnd, n_strategies);
  return run;
}

// Plays the student's run to its end. Before each decision d, `scores_at(run, d)` gives
// every strategy's score for it, or nothing when d is not labelled; a labelled decision
// becomes a state with the student's observation and mask as its encoder saw them, and
// the strategy of the lowest score as its label (the first on a tie; NaN never wins).
using ScoresAt = std::function<std::vector<double>(const ControlledRun& run, std::uint64_t decision)>;
void label_decisions(ControlledRun& run, const ScenarioEntry& entry, const NicEnvConfig& env,
                     const ScoresAt& scores_at, LabelledRun& out) {
  const host::Capabilities& caps = run.tracker().caps();
  ObservationEncoder encoder(env, caps);
  const ActionCodec codec(env, caps, run.tracker().link_bytes_per_cycle());
  for (std::uint64_t decision = 0;; ++decision) {
    std::vector<double> scores = scores_at(run, decision);
    if (!run.step()) break;
    // The student decided: its observation, as its encoder saw it.
    encoder.push(run.tracker(), plan_of(run).in_force());
    if (scores.empty()) continue;
    LabelledState st;
    st.decision = decision;
    st.observation.resize(encoder.size());
    encoder.write(st.observation);
    st.mask.resize(codec.space().total());
    codec.mask(run.tracker(), st.mask);
    st.arm_scores = std::move(scores);
    for (std::uint32_t a = 1; a < st.arm_scores.size(); ++a) {
      if (better(st.arm_scores[a], st.arm_scores[st.label])) st.label = a;
    }
    out.states.push_back(std::move(st));
  }
  out.run = run.result();
  out.score = score_run(out.run, entry.scenario).norm_time;
}

}  // namespace

LabelledRun run_labelled(const ScenarioEntry& entry, std::uint64_t seed, std::unique_ptr<Controller> student,
                         const NicEnvConfig& env, std::optional<std::uint64_t> min_iterations,
                         const LookaheadConfig& config, LabelContinuation then) {
  check_student_labels(env, config.every);
  check(config);
  if (config.per_run > 0) throw EnvError("DAgger labels: per_run is the lookahead oracle's; labels take every (k)");
  const auto run = student_run(entry, seed, std::move(student), env, min_iterations);
  const auto n_strategies = static_cast<std::uint32_t>(env.strategies.size());
  Copies copies{entry.scenario};
  LabelledRun out;
  const LookaheadDecision first = copies.first(*run, n_strategies);
  out.default_arm = *first.chosen;
  out.default_scores = first.arm_scores;
  // Every k-th decision after the first, the oracle's comparison on a copy of the run as it
  // stands: each strategy in charge from the next decision on.
  const std::uint32_t after = then == LabelContinuation::kStudent ? n_strategies : out.default_arm;
  label_decisions(
      *run, entry, env,
      [&](const ControlledRun& r, std::uint64_t decision) {
        return decision > 0 && decision % config.every == 0 ? copies.arms(r, n_strategies, after, config)
                                                            : std::vector<double>{};
      },
      out);
  out.forks = copies.forks;
  out.simulated_cycles = copies.simulated_cycles;
  return out;
}

LabelledRun run_scenario_labelled(const ScenarioEntry& entry, std::uint64_t seed, std::unique_ptr<Controller> student,
                                  const NicEnvConfig& env, std::optional<std::uint64_t> min_iterations,
                                  std::uint64_t every, const BaselineChoice& label) {
  check_student_labels(env, every);
  if (label.scores.size() != env.strategies.size()) {
    throw EnvError("DAgger scenario labels: " + std::to_string(label.scores.size()) + " scores for " +
                   std::to_string(env.strategies.size()) + " strategies");
  }
  const auto run = student_run(entry, seed, std::move(student), env, min_iterations);
  LabelledRun out;
  out.default_arm = static_cast<std::uint32_t>(label.best);
  out.default_scores = label.scores;
  label_decisions(
      *run, entry, env,
      [&](const ControlledRun&, std::uint64_t decision) {
        return decision % every == 0 ? label.scores : std::vector<double>{};
      },
      out);
  return out;
}

void DaggerData::append(const LabelledRun& run, std::uint32_t iteration) {
  for (const auto& st : run.states) {
    if (observation_size == 0) observation_size = st.observation.size();
    if (st.observation.size() != observation_size) {
      throw EnvError("DAgger data: an observation of " + std::to_string(st.observation.size()) + " values, the data's have " +
                     std::to_string(observation_size));
    }
    observations.insert(observations.end(), st.observation.begin(), st.observation.end());
    if (mask_size == 0) mask_size = st.mask.size();
    if (st.mask.size() != mask_size) {
      throw EnvError("DAgger data: a mask of " + std::to_string(st.mask.size()) + " values, the data's have " +
                     std::to_string(mask_size));
    }
    masks.insert(masks.end(), st.mask.begin(), st.mask.end());
    labels.push_back(static_cast<int>(st.label));
    gaps.push_back(static_cast<float>(st.gap()));
    iterations.push_back(iteration);
  }
}

std::vector<float> DaggerData::gap_weights() const {
  double sum = 0.0;
  for (const float g : gaps) sum += static_cast<double>(g);
  if (!(sum > 0.0)) throw EnvError("DAgger data: every row's gap is 0, so gap weights are undefined");
  const double mean = sum / static_cast<double>(gaps.size());
  std::vector<float> out;
  out.reserve(gaps.size());
  for (const float g : gaps) out.push_back(static_cast<float>(static_cast<double>(g) / mean));
  return out;
}

}  // namespace nicsched::control
