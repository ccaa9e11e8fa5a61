// Test bench of the generated nicsched_csr: owns one Verilated model (any parameter
// variant), its clock and an FST trace, drives the AXI4-Lite port through the reusable
// AxilMaster BFM and reaches every field port by name (<reg>_<field>_i/_o/_we_o/_set_i)
// through Verilator's public symbol table, so it follows the register map without edits.
// Registers with `snapshot: ram` keep their snapshot outside the CSR: the bench plays that
// block (RamSnapshots below), so tests drive their live values as for any ro register.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

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

// The block outside the CSR that holds `snapshot: ram` registers, as the CSR's ports ask
// (docs/rtl.md "Telemetry"): live values per element, a copy taken when snapshot_o is high
// at an edge, and, loaded at an edge with snap_load_o high (held otherwise), the snapshot of
// the element <block>_snap_idx_o names (as it is before that edge) on the register's
// one-element _i port.
class RamSnapshots {
 public:
  RamSnapshots() {
    for (std::size_t i = 0; i < rm::kRegisters.size(); ++i) {
      const auto& r = rm::kRegisters[i];
      if (!r.snapshot_ram) continue;
      regs_.push_back(i);
    }
    live_.resize(rm::kRegisters.size());
    snap_.resize(rm::kRegisters.size());
    for (std::size_t i : regs_) {
      const auto& r = rm::kRegisters[i];
      live_[i].assign(r.max_count, std::vector<std::uint64_t>(r.fields.size(), 0));
      snap_[i] = live_[i];
    }
  }
  [[nodiscard]] bool empty() const { return regs_.empty(); }
  void set_live(std::size_t reg, std::uint32_t elem, std::size_t k, std::uint64_t v) { live_.at(reg).at(elem).at(k) = v; }
  // Before the rising edge: the CSR's outputs as they are in the clock that ends with it.
  template <class Port>
  void before_edge(const Port& port) {
    load_ = port("snap_load_o").get(0, 1) != 0;
    if (load_) load_next(port);
    if (port("snapshot_o").get(0, 1) != 0) snap_ = live_;
  }
  // After the rising edge: the registered snapshot values on the _i ports.
  template <class FieldPort>
  void after_edge(const FieldPort& field_port) {
    if (!load_) return;
    std::size_t n = 0;
    for (std::size_t i : regs_) {
      for (std::size_t k = 0; k < rm::kRegisters[i].fields.size(); ++k) {
        const auto p = field_port(i, k);
        p.set(0, p.bits(), next_[n++]);
      }
    }
  }

 private:
  // The values the _i ports load at this edge: the snapshot before it.
  template <class Port>
  void load_next(const Port& port) {
    next_.clear();
    for (std::size_t i : regs_) {
      const auto& r = rm::kRegisters[i];
      std::string blk(r.block);
      for (char& c : blk) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      const auto idx_port = port(blk + "_snap_idx_o");
      const auto idx = static_cast<std::uint32_t>(idx_port.get(0, idx_port.bits()));
      for (std::size_t k = 0; k < r.fields.size(); ++k) {
        next_.push_back(idx < snap_[i].size() ? snap_[i][idx][k] : 0);
      }
    }
  }

  std::vector<std::size_t> regs_;  // indices of the snapshot: ram registers
  std::vector<std::vector<std::vector<std::uint64_t>>> live_, snap_;  // [reg][elem][field]
  std::vector<std::uint64_t> next_;
  bool load_ = false;  // the _i ports load at this edge
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
    if (!ram_.empty()) ram_.before_edge([this](const std::string& n) { return port(n); });
    dut_->clk_i = 1;
    dut_->eval();
    if (!ram_.empty()) ram_.after_edge([this](std::size_t reg, std::size_t k) { return field_port(reg, k, "_i"); });
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
  // A ro field of a snapshot: ram register sets the live value of the block outside (RamSnapshots).
  void set_field(std::size_t reg, std::uint32_t elem, std::size_t k, const std::string& suffix, std::uint64_t v) {
    if (suffix == "_i" && rm::kRegisters[reg].snapshot_ram) {
      ram_.set_live(reg, elem, k, v);
      return;
    }
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
  RamSnapshots ram_;
  std::function<void()> tick_;
  std::function<void(std::uint64_t)> on_cycle_;
  std::uint64_t cycle_ = 0;
};

}  // namespace nicsched::test
