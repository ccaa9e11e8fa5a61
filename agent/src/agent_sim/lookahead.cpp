// The lookahead oracle (lookahead.hpp).
#include "nicsched/control/lookahead.hpp"

#include <cmath>
#include <limits>

#include "nicsched/control/error.hpp"
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
    arms_.decide_all(tracker, base);
    // The hold arm (index arms_.size()) writes the policy committed last.
    last_ = active < arms_.size() ? arms_.decision(active) : (last_ ? *last_ : base);
    return *last_;
  }

  // `arm` in charge for the next `decisions` decisions (kToTheEnd: for good), then `then`.
  void follow(std::uint32_t arm, std::uint64_t decisions, std::uint32_t then) {
    arm_ = arm;
    left_ = decisions;
    fallback_ = then;
  }
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
  std::uint32_t arm_ = 0, fallback_ = 0;
  std::uint64_t left_ = kToTheEnd;
};

PlanController& plan_of(ControlledRun& run) { return dynamic_cast<PlanController&>(run.controller()); }

// Lower wins; NaN never wins against a number.
bool better(double a, double b) { return !std::isnan(a) && (std::isnan(b) || a < b); }

}  // namespace

LookaheadResult run_lookahead(const ScenarioEntry& entry, std::uint64_t seed,
                              std::vector<std::unique_ptr<Controller>> arms, std::uint64_t interval_cycles,
                              std::optional<std::uint64_t> min_iterations, const LookaheadConfig& config) {
  if (arms.empty()) throw EnvError("lookahead: no candidate controllers");
  if (config.every == 0) throw EnvError("lookahead: every (k) must be at least 1 decision");
  if (config.horizon == 0) throw EnvError("lookahead: horizon (H) must be at least 1 decision");
  const sim::Scenario& scenario = entry.scenario;
  ControlledRun run(entry, seed, std::make_unique<PlanController>(std::move(arms)), interval_cycles, min_iterations);
  LookaheadResult out;
  out.arms = plan_of(run).arm_names();
  const std::uint32_t n_arms = plan_of(run).arm_count();

  // A copy of the run, under `plan` (arm for `decisions`, then `then`; none: the plan being
  // followed), played for `steps` decisions (kToTheEnd: to the end) and scored.
  struct Plan {
    std::uint32_t arm, then;
    std::uint64_t decisions;
  };
  auto play = [&](std::optional<Plan> plan, std::uint64_t steps) {
    auto copy = run.fork();
    if (plan) plan_of(*copy).follow(plan->arm, plan->decisions, plan->then);
    const std::uint64_t from = copy->simulation().cycle();
    for (std::uint64_t s = 0; s < steps && copy->step(); ++s) {
    }
    ++out.forks;
    out.simulated_cycles += copy->simulation().cycle() - from;
    return score_run(copy->result(), scenario).norm_time;
  };

  // First decision: every arm alone to the end; the best is the default rule.
  LookaheadDecision first;
  for (std::uint32_t a = 0; a < n_arms; ++a) {
    first.arm_scores.push_back(play(Plan{a, a, kToTheEnd}, kToTheEnd));
    if (!first.chosen || better(first.arm_scores[a], first.best_score)) {
      first.chosen = a;
      first.best_score = first.arm_scores[a];
    }
  }
  out.default_arm = *first.chosen;
  plan_of(run).follow(out.default_arm, kToTheEnd, out.default_arm);
  double incumbent = first.best_score;  // with continuation to the end: what the run will score
  out.decisions.push_back(std::move(first));

  const std::uint64_t steps = config.continuation == 0 ? kToTheEnd : config.horizon + config.continuation;
  std::uint64_t decision = 0;
  while (true) {
    bool running = true;
    for (std::uint64_t s = 0; s < config.every && (running = run.step()); ++s) ++decision;
    if (!running) break;
    LookaheadDecision d;
    d.decision = decision;
    // The plan being followed: its projection is known exactly when copies run to the end
    // (a fork continues as the original); a cut-short projection is measured.
    d.incumbent_score = config.continuation == 0 ? incumbent : play(std::nullopt, steps);
    d.best_score = d.incumbent_score;
    for (std::uint32_t a = 0; a < n_arms; ++a) {
      d.arm_scores.push_back(play(Plan{a, out.default_arm, config.horizon}, steps));
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
  out.score = score_run(out.run, scenario).norm_time;
  return out;
}

}  // namespace nicsched::control
