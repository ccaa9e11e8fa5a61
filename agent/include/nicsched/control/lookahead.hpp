// The lookahead oracle: the ruler for dynamic control (docs/results.md, the lookahead
// rows). At every k-th decision of a run it forks the run (ControlledRun::fork), lets each
// candidate decide in its own copy for a horizon of H decisions, continues each copy with
// the default rule, scores each copy as whole-scenario evaluation scores a run
// (score_run's normalised iteration time) and commits the plan whose copy scored best.
// It sees the workloads' future (each copy simulates it), so it is an offline bound, not
// a controller one could deploy, as the static oracle (oracle.hpp) is for static
// configurations.
//
// Candidates (arms): the controllers given (eval: every baseline it runs, and the static
// oracle's configuration when it was searched), and `hold`, which keeps writing the policy
// committed last (the current configuration). Every arm decides at every interval,
// whichever is in charge, so that an arm's own state (the starvation guard's counts, the
// selector's trials) follows the run it would take over; only the policy of the arm in
// charge is committed.
//
// Plans. A plan is "arm a for H decisions, then the default rule to the end". At the first
// decision each arm is played alone to the end (H infinite), the best of them is committed
// and becomes the default rule for the rest of the run (the per-seed hindsight choice among
// the arms); at every k-th decision after it, the candidates are the plan being followed
// (its remaining part) and, for each arm a, "a for H, then the default". The plan being
// followed wins ties (so the run does not switch for nothing), then the arms in order; a
// NaN score never wins.
//
// What it guarantees, with continuation to the end (LookaheadConfig::continuation = 0):
// the simulation is deterministic and a fork continues exactly as the original
// (docs/simulation.md), so the score of the plan being followed is what the run will
// score if nothing changes; each decision keeps it or replaces it by a better one. The
// final score is therefore the best projected score of the last decision, at most every
// projected score of every earlier decision, and at most the score of every arm played
// alone for the whole run. With a shorter continuation the projections are cut short and
// the guarantee does not hold (the score of a prefix ranks the candidates).
//
// Cost: (arms + 1) copies per decision after the first, each simulating the rest of the
// run (or H + continuation intervals), and one whole run per arm at the first: about
// (arms + 1) x decisions / 2 whole runs with continuation to the end.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nicsched/clone_ptr.hpp"
#include "nicsched/control/controller.hpp"
#include "nicsched/control/env_config.hpp"
#include "nicsched/control/sim_env.hpp"

namespace nicsched::control {

inline constexpr const char* kHoldArm = "hold";  // the arm that keeps the last committed policy

struct LookaheadConfig {
  std::uint64_t every = 500;       // k: decisions between lookahead decisions (>= 1)
  std::uint64_t horizon = 500;     // H: decisions a candidate plays in its copy before the default rule (>= 1)
  std::uint64_t continuation = 0;  // decisions the default rule plays after H in a copy; 0: to the run's end
  // k from the run's length instead of `every`: with per_run = N > 0, k = max(1, L / (N + 1))
  // and H = horizon_k x k, L the length in decisions of the default rule's run (its copy at
  // the first decision, played to the end): about N lookahead decisions after the first in
  // every run, long or short. `every` and `horizon` are then not used.
  std::uint64_t per_run = 0;
  std::uint64_t horizon_k = 2;     // with per_run: H in units of k (>= 1)
};

// One lookahead decision: what each candidate's copy scored, what was committed.
struct LookaheadDecision {
  std::uint64_t decision = 0;  // index of the run's decision it was taken at (0: the first)
  // Per arm (LookaheadRun's arm order), the score of "arm for H then default" (at the first
  // decision: the arm alone to the end); lower is better, NaN: no score.
  std::vector<double> arm_scores;
  double incumbent_score = NAN;  // the plan being followed (NaN at the first decision)
  double best_score = NAN;       // the committed plan's
  std::optional<std::uint32_t> chosen;  // the arm now in charge; none: the plan followed was kept
};

struct LookaheadResult {
  RunResult run;                              // the committed run (controller "lookahead")
  std::uint64_t every = 0;                    // the k and H it ran with (per_run: as resolved)
  std::uint64_t horizon = 0;
  double score = NAN;                         // score_run(run).norm_time
  std::vector<std::string> arms;              // arm names, kHoldArm last
  std::uint32_t default_arm = 0;              // the default rule (chosen at the first decision)
  std::vector<LookaheadDecision> decisions;   // every lookahead decision in order
  std::uint64_t forks = 0;                    // copies played
  std::uint64_t simulated_cycles = 0;         // in the copies, the committed run's excluded
};

// The lookahead oracle on one scenario and seed: `arms` (fresh controllers, reset here),
// `hold` added; other arguments as run_controller's. Throws EnvError on no arms or a
// config with every or horizon 0.
[[nodiscard]] LookaheadResult run_lookahead(const ScenarioEntry& entry, std::uint64_t seed,
                                            std::vector<std::unique_ptr<Controller>> arms,
                                            std::uint64_t interval_cycles,
                                            std::optional<std::uint64_t> min_iterations,
                                            const LookaheadConfig& config);

// DAgger's labels (docs/agent.md, "DAgger"): the oracle's comparison at the states a
// student visits. The student (any controller; a strategy policy, PpoController) decides
// the whole run; every strategy of `env` (env.strategies, make_baseline) decides every
// interval beside it (so each one's state follows the run, as under the strategy action).
// At the first decision every strategy is played alone to the end and the best becomes the
// default rule, as run_lookahead does; before every k-th decision after it (k =
// config.every) the run is forked once per strategy, the strategy is put in charge of the
// next H decisions, then the default rule (to the end, or for config.continuation
// decisions), and each copy is scored as run_lookahead scores it. The label of that next
// decision is the strategy whose copy scored lowest (the first on a tie; NaN never wins):
// the oracle's choice among the strategies on the same fork. The student's own plan is no
// candidate (a label must be an action). The observation is the strategy action's
// (ObservationEncoder of `env`, fed what the student's encoder is fed: the tracker and the
// policy in force), so it is what a PpoController of `env` saw at that decision.
//
// With env.strategy_hold = h > 1 the student chooses at decisions 0, h, 2h, ... only, so k
// must be a multiple of h (the labels are for decisions the student takes); with H = h a
// label's plan is exactly one of the student's commitments. With `then` = kStudent a copy
// continues after H with the student itself (its copy, which decided every interval of the
// copy beside the strategy in charge) instead of the default rule: a label then says which
// strategy is best now given that the student decides afterwards.
enum class LabelContinuation {
  kDefaultRule,  // the oracle's: the best strategy alone, chosen at the first decision
  kStudent,      // the student's own policy
};
[[nodiscard]] const char* label_continuation_name(LabelContinuation c);

struct LabelledState {
  std::uint64_t decision = 0;          // the run's decision (0: the first) the label is for
  std::vector<float> observation;      // the student's observation at it
  std::vector<std::uint8_t> mask;      // the action mask at it
  std::vector<double> arm_scores;      // per strategy, "it for H, then the continuation"
  std::uint32_t label = 0;             // the strategy whose copy scored lowest
  // How much the choice matters: (second lowest - lowest) / lowest of arm_scores (0 on a tie
  // or when a score is NaN).
  [[nodiscard]] double gap() const;
};
struct LabelledRun {
  RunResult run;                       // the student's run
  double score = NAN;                  // score_run(run).norm_time
  std::uint32_t default_arm = 0;       // the default rule (index into env.strategies)
  std::vector<double> default_scores;  // each strategy alone from the first decision
  std::vector<LabelledState> states;
  std::uint64_t forks = 0;             // copies played
  std::uint64_t simulated_cycles = 0;  // in the copies
};
// `env` gives the strategies, the interval, the hold and the observation; EnvError when its
// action is not `strategy`, for every or horizon 0, and for every not a multiple of the hold.
[[nodiscard]] LabelledRun run_labelled(const ScenarioEntry& entry, std::uint64_t seed,
                                       std::unique_ptr<Controller> student, const NicEnvConfig& env,
                                       std::optional<std::uint64_t> min_iterations, const LookaheadConfig& config,
                                       LabelContinuation then = LabelContinuation::kDefaultRule);

// DAgger's scenario labels (DAgger config `labels: scenario`; docs/agent.md, "DAgger"): one
// label for a whole draw instead of one per fork. `label` is best_baseline over the
// strategies of `env` on the draw (each strategy alone for the whole run on workload seeds
// 1 .. label seeds, eval's stopping rule, the mean of the seeds' scores; the lowest wins,
// the first on a tie). The student (as run_labelled's) runs the draw on `seed` beside the
// strategies; its decisions 0, every, 2 every, ... are labelled states, each with the
// student's observation and mask, the draw's label, and the strategies' whole-run scores
// as its arm_scores (so its gap is the draw's gap between the best and the second-best
// strategy). The labelled run's default rule and default scores are the label and those
// scores. EnvError as run_labelled's (action, every 0, every not a multiple of the hold),
// and when `label` has not one score per strategy.
[[nodiscard]] LabelledRun run_scenario_labelled(const ScenarioEntry& entry, std::uint64_t seed,
                                                std::unique_ptr<Controller> student, const NicEnvConfig& env,
                                                std::optional<std::uint64_t> min_iterations, std::uint64_t every,
                                                const BaselineChoice& label);

// DAgger's aggregate: every iteration's labelled states appended to those of the earlier
// iterations (nothing is dropped), row after row.
struct DaggerData {
  std::size_t observation_size = 0;  // floats per row (fixed by the first row)
  std::size_t mask_size = 0;
  std::vector<float> observations;   // rows x observation_size
  std::vector<std::uint8_t> masks;   // rows x mask_size
  std::vector<int> labels;           // per row, the strategy index
  std::vector<float> gaps;           // per row, LabelledState::gap()
  std::vector<std::uint32_t> iterations;  // per row, the DAgger iteration that labelled it
  [[nodiscard]] std::size_t rows() const { return labels.size(); }
  // Per row, its gap over the mean gap of all rows (mean 1; rows whose choice does not
  // matter weigh 0); EnvError when every gap is 0.
  [[nodiscard]] std::vector<float> gap_weights() const;
  // Appends the run's states; EnvError for a row of another size than the data's.
  void append(const LabelledRun& run, std::uint32_t iteration);
};

}  // namespace nicsched::control
