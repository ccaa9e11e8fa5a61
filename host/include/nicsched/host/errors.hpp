// Typed errors of the host library. Transport failures stay drivers::BusError.
#pragma once

#include <stdexcept>
#include <string>

namespace nicsched::host {

class HostError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The target is not a nicsched NIC, or speaks a register-interface major version this
// software does not know.
class IncompatibleHardware : public HostError {
 public:
  using HostError::HostError;
};

// A policy (file or struct) that does not fit the hardware. what() is one line:
// "FILE:LINE: KEY: problem (allowed: RANGE)". Nothing was written to the NIC.
class PolicyError : public HostError {
 public:
  PolicyError(const std::string& what, std::string file, int line, std::string key)
      : HostError(what), file_(std::move(file)), line_(line), key_(std::move(key)) {}
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] int line() const { return line_; }  // 1-based; 0 when not from a file
  [[nodiscard]] const std::string& key() const { return key_; }

 private:
  std::string file_;
  int line_;
  std::string key_;
};

// A policy was written and committed, but the registers read back differently.
class ReadBackMismatch : public HostError {
 public:
  using HostError::HostError;
};

}  // namespace nicsched::host
