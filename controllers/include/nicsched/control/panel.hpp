// Panel: controllers that all decide every interval, of which the caller applies one. The
// online selector (its candidates), the strategy action (StrategySet) and the lookahead
// oracle (its arms) each hand the interval to one controller of several, and a controller
// not in charge must still see every interval, so that its own state (the starvation
// guard's held-back counts, burst estimates, a selector's trials) follows the run it may
// take over: switching then rewrites the policy registers only. A copy copies every
// member's state (ClonePtr), so a forked run (ControlledRun::fork, NicEnv::fork) carries
// its panel on exactly.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "nicsched/clone_ptr.hpp"
#include "nicsched/control/controller.hpp"

namespace nicsched::control {

class Panel {
 public:
  Panel() = default;
  explicit Panel(std::vector<std::unique_ptr<Controller>> members);
  void add(std::unique_ptr<Controller> member);

  [[nodiscard]] std::size_t size() const { return members_.size(); }
  [[nodiscard]] const Controller& member(std::size_t i) const { return *members_.at(i); }
  // Every member's reset(); the decisions are forgotten.
  void reset();
  // Every member decides on the interval just observed, in order.
  void decide_all(const TelemetryTracker& tracker, const host::Policy& base);
  // Member i's decision of the last decide_all(); EnvError for an i out of range or
  // before any decide_all().
  [[nodiscard]] const host::Policy& decision(std::size_t i) const;

 private:
  std::vector<ClonePtr<Controller>> members_;
  std::vector<host::Policy> decisions_;  // empty before the first decide_all()
};

}  // namespace nicsched::control
