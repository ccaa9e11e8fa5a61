// Verilator test-bench support shared by every RTL bench (ingress, core blocks, top):
// a Testbench owning one Verilated model and its own context, FST waveforms written only
// when a run fails, and bit access to flattened vector ports of any width.
//
// Needs Verilator's runtime (verilated.h, verilated_fst_c.h) on the include path: it is a
// header for the benches' Verilated model libraries, not for the simulator library.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <verilated.h>
#include <verilated_fst_c.h>

namespace nicsched::sim::bfm {

/// One Verilated model (ports clk_i, rst_ni) with its own context and optional FST trace.
/// tick() runs one clock: samplers see the settled model before the rising edge (with the
/// cycle number of that edge), then the edge, then drivers set the next inputs and the
/// model settles at clock low. cycle() counts rising edges since construction.
template <class Model>
class Testbench {
 public:
  explicit Testbench(const std::string& trace_path = {})
      : ctx_(std::make_unique<VerilatedContext>()) {
    if (!trace_path.empty()) ctx_->traceEverOn(true);
    model_ = std::make_unique<Model>(ctx_.get(), "tb");
    if (!trace_path.empty()) open_trace(trace_path);
    model_->clk_i = 0;
    model_->rst_ni = 1;
    model_->eval();
  }
  Testbench(const Testbench&) = delete;
  Testbench& operator=(const Testbench&) = delete;
  Testbench(Testbench&&) = delete;
  Testbench& operator=(Testbench&&) = delete;
  ~Testbench() {
    if (trace_) trace_->close();
    model_->final();
  }

  Model& dut() { return *model_; }
  Model* operator->() { return model_.get(); }
  [[nodiscard]] std::uint64_t cycle() const { return cycle_; }

  /// Starts writing an FST waveform to `path` (the context must have traceEverOn, which the
  /// constructor sets when given a path).
  void open_trace(const std::string& path) {
    trace_ = std::make_unique<VerilatedFstC>();
    model_->trace(trace_.get(), 99);
    trace_->open(path.c_str());
  }

  void on_sample(std::function<void(std::uint64_t)> fn) { samplers_.push_back(std::move(fn)); }
  void on_drive(std::function<void()> fn) { drivers_.push_back(std::move(fn)); }

  void tick() {
    model_->eval();
    for (auto& s : samplers_) s(cycle_);
    model_->clk_i = 1;
    model_->eval();
    dump();
    ++cycle_;
    for (auto& d : drivers_) d();
    model_->clk_i = 0;
    model_->eval();
    dump();
  }

  void run(std::uint64_t cycles) {
    for (std::uint64_t i = 0; i < cycles; ++i) tick();
  }

  /// Holds rst_ni low for `cycles` clocks (not counted by cycle()).
  void reset(unsigned cycles = 4) {
    model_->rst_ni = 0;
    model_->eval();
    for (unsigned i = 0; i < cycles; ++i) {
      model_->clk_i = 1;
      model_->eval();
      dump();
      model_->clk_i = 0;
      model_->eval();
      dump();
    }
    model_->rst_ni = 1;
    model_->eval();
  }

 private:
  void dump() {
    ctx_->timeInc(1);
    if (trace_) trace_->dump(ctx_->time());
  }

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<VerilatedFstC> trace_;
  std::vector<std::function<void(std::uint64_t)>> samplers_;
  std::vector<std::function<void()>> drivers_;
  std::uint64_t cycle_ = 0;
};

/// Where a failing run writes its waveform: $NICSCHED_TRACE_DIR (or the working
/// directory) / `name` with every character that is awkward in a file name replaced by '_'.
inline std::string trace_path_for(const std::string& name) {
  const char* dir = std::getenv("NICSCHED_TRACE_DIR");
  std::string file = name;
  for (char& c : file) {
    if (c == '/' || c == ' ' || c == ':' || c == ',' || c == '=') c = '_';
  }
  return (std::filesystem::path(dir != nullptr ? dir : ".") / (file + ".fst")).string();
}

/// Runs body(trace_path) without a trace; if it throws, runs it again writing an FST
/// waveform and returns the first error with the waveform's path (empty string: passed).
template <class Body>
std::string run_traced(const std::string& name, Body&& body) {
  std::string error;
  try {
    body(std::string{});
    return {};
  } catch (const std::exception& e) {
    error = e.what();
  }
  const std::string fst = trace_path_for(name);
  try {
    body(fst);
  } catch (const std::exception&) {
    // the rerun fails the same way; it is only there for the waveform
  }
  return fmt::format("{} [waveform: {}]", error, fst);
}

// Bit access to flattened ports (CData/SData/IData/QData or VlWide<N>).

template <class T>
void set_bits(T& sig, unsigned lsb, unsigned width, std::uint64_t value) {
  for (unsigned i = 0; i < width; ++i) {
    const unsigned bit = lsb + i;
    const bool v = ((value >> i) & 1U) != 0;
    if constexpr (std::is_integral_v<T>) {
      const auto mask = std::uint64_t{1} << bit;
      auto word = static_cast<std::uint64_t>(sig);
      sig = static_cast<T>(v ? (word | mask) : (word & ~mask));
    } else {
      EData& w = sig.at(bit / 32);
      const EData mask = EData{1} << (bit % 32);
      w = v ? (w | mask) : (w & ~mask);
    }
  }
}

template <class T>
std::uint64_t get_bits(const T& sig, unsigned lsb, unsigned width) {
  std::uint64_t out = 0;
  for (unsigned i = 0; i < width; ++i) {
    const unsigned bit = lsb + i;
    bool v = false;
    if constexpr (std::is_integral_v<T>) {
      v = ((static_cast<std::uint64_t>(sig) >> bit) & 1U) != 0;
    } else {
      v = ((sig.at(bit / 32) >> (bit % 32)) & 1U) != 0;
    }
    if (v) out |= std::uint64_t{1} << i;
  }
  return out;
}

/// Drives a port of up to 64 bits from a wider or differently signed value.
template <class T>
  requires std::is_integral_v<T>
void put(T& sig, std::uint64_t value) {
  sig = static_cast<T>(value);
}

}  // namespace nicsched::sim::bfm
