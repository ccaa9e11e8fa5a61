// Interface: the base of the project's abstract interfaces
// (drivers::RegisterBus, control::Controller, control::Env, sim::Workload). A
// virtual destructor, since implementations are owned and deleted through the
// interface, and no copies through the base: an implementation holds a
// connection, a model or run state that a copy through the base would slice.
// The copy constructor is protected so that an implementation whose state is
// plain values can copy itself whole behind a virtual clone() (a workload, a
// controller, a forked simulation: nicsched/clone_ptr.hpp); one that holds a
// connection or a file keeps its copies deleted.
#pragma once

namespace nicsched {

class Interface {
public:
  virtual ~Interface() = default;
  Interface &operator=(const Interface &) = delete;

protected:
  Interface() = default;
  Interface(const Interface &) = default;
};

} // namespace nicsched
