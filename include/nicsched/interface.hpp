// Interface: the base of the project's abstract interfaces
// (drivers::RegisterBus, control::Controller, control::Env, sim::Workload). A
// virtual destructor, since implementations are owned and deleted through the
// interface, and no copies: an implementation holds a connection, a model or
// run state that a copy through the base would slice.
#pragma once

namespace nicsched {

class Interface {
public:
  virtual ~Interface() = default;
  Interface(const Interface &) = delete;
  Interface &operator=(const Interface &) = delete;

protected:
  Interface() = default;
};

} // namespace nicsched
