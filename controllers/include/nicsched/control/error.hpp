// The error of nicsched::control: misuse of a controller, the telemetry tracker or an
// environment (an unknown baseline, a snapshot that does not fit the capabilities, wrong
// buffer sizes, an action out of range).
#pragma once

#include <stdexcept>

namespace nicsched::control {

class EnvError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace nicsched::control
