// Test bench of the generated nicsched_csr: owns one Verilated model (any parameter
// variant), its clock and an FST trace, drives the AXI4-Lite port through the reusable
// AxilMaster BFM and reaches every field port by name (<reg>_<field>_i/_o/_we_o/_set_i)
// through Verilator's public symbol table, so it follows the register map without edits.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include <verilated.h>
#include <verilated_fst_c.h>
#include <verilated_syms.h>

#include "nicsched/nic/register_file.hpp"
#include "nicsched/sim/bfm/axil_master.hpp"

namespace nicsched::test {

namespace rm = nicsched::regmap;
// The reference of the bench: the register-file model of nicsched/nic/register_file.hpp,
// driven by the generated register table and knowing nothing of the RTL.
using RegFileModel = nic::RegisterFile;
using nic::Counts;
using nic::field_max;
using Resp = regmap::Resp;

// The trace of the running test: kept when the test fails, removed when it passes
// (trace_listener.cpp).
void register_trace(const std::filesystem::path& path);

// A port of the model, read and written as a little-endian bit vector whatever its
// Verilated storage (CData .. VlWide).
class PortRef {
 public:
  PortRef() = default;
  PortRef(void* data, std::uint32_t bits) : data_(static_cast<std::uint8_t*>(data)), bits_(bits) {}
  [[nodiscard]] std::uint32_t bits() const { return bits_; }
  [[nodiscard]] std::uint64_t get(std::uint32_t lsb, std::uint32_t width) const {
    check(lsb, width);
    std::uint64_t v = 0;
    for (std::uint32_t b = 0; b < width; ++b) {
      const std::uint32_t at = lsb + b;
      v |= static_cast<std::uint64_t>((data_[at / 8] >> (at % 8)) & 1U) << b;
    }
    return v;
  }
  void set(std::uint32_t lsb, std::uint32_t width, std::uint64_t v) const {
    check(lsb, width);
    for (std::uint32_t b = 0; b < width; ++b) {
      const std::uint32_t at = lsb + b;
      const auto bit = static_cast<std::uint8_t>(1U << (at % 8));
      if ((v >> b) & 1U) {
        data_[at / 8] = static_cast<std::uint8_t>(data_[at / 8] | bit);
      } else {
        data_[at / 8] = static_cast<std::uint8_t>(data_[at / 8] & ~bit);
      }
    }
  }

 private:
  void check(std::uint32_t lsb, std::uint32_t width) const {
    if (data_ == nullptr || lsb + width > bits_) throw std::out_of_range("port slice beyond the port");
  }
  std::uint8_t* data_ = nullptr;
  std::uint32_t bits_ = 0;
};

template <class Model>
class CsrBench {
 public:
  using Master = nicsched::sim::bfm::AxilMaster<Model>;

  // `trace_name`: file stem of the FST written under the test's working directory.
  CsrBench(Counts counts, const std::string& trace_name, nicsched::sim::bfm::AxilStalls stalls = {})
      : ctx_(std::make_unique<VerilatedContext>()), model_(RegFileModel(counts)), counts_(std::move(counts)) {
    ctx_->traceEverOn(true);
    dut_ = std::make_unique<Model>(ctx_.get(), "TOP");
    scope_ = ctx_->scopeFind("TOP.TOP");
    if (scope_ == nullptr) throw std::runtime_error("model has no public scope TOP.TOP (verilate with --public-flat-rw)");
    trace_ = std::make_unique<VerilatedFstC>();
    dut_->trace(trace_.get(), 99);
    std::filesystem::create_directories("traces");
    const std::filesystem::path path = std::filesystem::path("traces") / (trace_name + ".fst");
    trace_->open(path.c_str());
    register_trace(path);
    bus_ = std::make_unique<Master>(*dut_, stalls);
    tick_ = [this] { tick(); };
    reset();
  }
  ~CsrBench() {
    trace_->close();
    dut_->final();
  }
  CsrBench(const CsrBench&) = delete;
  CsrBench& operator=(const CsrBench&) = delete;

  Model& dut() { return *dut_; }
  Master& bus() { return *bus_; }
  RegFileModel& model() { return model_; }
  const RegFileModel& model() const { return model_; }
  const Counts& counts() const { return counts_; }
  [[nodiscard]] std::uint64_t cycle() const { return cycle_; }

  // Called after every rising edge with the cycle number (drives hardware inputs).
  void on_cycle(std::function<void(std::uint64_t)> f) { on_cycle_ = std::move(f); }

  // One clock: BFM samples, rising edge, BFM drives, per-cycle hook, falling edge.
  void tick() {
    bus_->sample();
    dut_->clk_i = 1;
    dut_->eval();
    ctx_->timeInc(1);
    trace_->dump(static_cast<std::uint64_t>(ctx_->time()));
    ++cycle_;
    bus_->drive();
    if (on_cycle_) on_cycle_(cycle_);
    dut_->clk_i = 0;
    dut_->eval();
    ctx_->timeInc(1);
    trace_->dump(static_cast<std::uint64_t>(ctx_->time()));
  }
  void ticks(std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) tick();
  }

  void reset(int cycles = 4) {
    dut_->rst_ni = 0;
    dut_->clk_i = 0;
    dut_->eval();
    for (int i = 0; i < cycles; ++i) tick();
    dut_->rst_ni = 1;
    dut_->eval();
    tick();
  }

  nicsched::sim::bfm::AxilReadResult read(std::uint32_t addr) { return bus_->read32(addr, tick_); }
  nicsched::sim::bfm::AxilResp write(std::uint32_t addr, std::uint32_t data, std::uint8_t strb = 0xF) {
    return bus_->write32(addr, data, tick_, strb);
  }

  // A port by name, e.g. "ctrl_enable_o".
  PortRef port(const std::string& name) const {
    const VerilatedVar* v = scope_->varFind(name.c_str());
    if (v == nullptr) throw std::runtime_error("model has no port " + name);
    return {v->datap(), static_cast<std::uint32_t>(v->packed().elements())};
  }
  // Port of field k of register `reg` with suffix ("_i", "_o", "_we_o", "_set_i").
  PortRef field_port(std::size_t reg, std::size_t k, const std::string& suffix) const {
    const auto& r = rm::kRegisters[reg];
    return port(lower(std::string(r.name) + "_" + std::string(r.fields[k].name)) + suffix);
  }
  // Field k of element `elem` of register `reg` on its port.
  std::uint64_t get_field(std::size_t reg, std::uint32_t elem, std::size_t k, const std::string& suffix) const {
    const std::uint32_t w = suffix == "_we_o" ? 1U : rm::kRegisters[reg].fields[k].width;
    return field_port(reg, k, suffix).get(elem * w, w);
  }
  void set_field(std::size_t reg, std::uint32_t elem, std::size_t k, const std::string& suffix, std::uint64_t v) {
    const std::uint32_t w = rm::kRegisters[reg].fields[k].width;
    field_port(reg, k, suffix).set(elem * w, w, v);
  }

  static std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return s;
  }

 private:
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Model> dut_;
  const VerilatedScope* scope_ = nullptr;
  std::unique_ptr<VerilatedFstC> trace_;
  std::unique_ptr<Master> bus_;
  RegFileModel model_;
  Counts counts_;
  std::function<void()> tick_;
  std::function<void(std::uint64_t)> on_cycle_;
  std::uint64_t cycle_ = 0;
};

}  // namespace nicsched::test
