// Typed exceptions of the simulator library (nicsched::sim). Only main() catches them.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace nicsched::sim {

// Any failure inside the simulator: model, workloads, files it reads or writes.
class SimError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An invalid scenario file. what() reads "FILE:LINE: KEY: what was expected".
class ScenarioError : public SimError {
 public:
  ScenarioError(std::string file, std::size_t line, std::string key, const std::string& expected)
      : SimError(file + ":" + std::to_string(line) + ": " + key + ": " + expected),
        file_(std::move(file)),
        line_(line),
        key_(std::move(key)) {}
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] std::size_t line() const { return line_; }  // 1-based
  [[nodiscard]] const std::string& key() const { return key_; }

 private:
  std::string file_;
  std::size_t line_;
  std::string key_;
};

// A packet left the NIC different from how it went in, or unknown to the simulation.
class IntegrityError : public SimError {
 public:
  using SimError::SimError;
};

}  // namespace nicsched::sim
