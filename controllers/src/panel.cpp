// Panel (panel.hpp).
#include "nicsched/control/panel.hpp"

#include "nicsched/control/error.hpp"

namespace nicsched::control {

Panel::Panel(std::vector<std::unique_ptr<Controller>> members) {
  for (auto& m : members) add(std::move(m));
}

void Panel::add(std::unique_ptr<Controller> member) {
  members_.emplace_back(std::move(member));
  decisions_.clear();
}

void Panel::reset() {
  for (auto& m : members_) m->reset();
  decisions_.clear();
}

void Panel::decide_all(const TelemetryTracker& tracker, const host::Policy& base) {
  decisions_.resize(members_.size());
  for (std::size_t i = 0; i < members_.size(); ++i) decisions_[i] = members_[i]->decide(tracker, base);
}

const host::Policy& Panel::decision(std::size_t i) const {
  if (decisions_.empty()) throw EnvError("panel: no decision before the first interval");
  if (i >= decisions_.size()) {
    throw EnvError("panel: member " + std::to_string(i) + " out of range (0.." + std::to_string(decisions_.size() - 1) +
                   ")");
  }
  return decisions_[i];
}

}  // namespace nicsched::control
