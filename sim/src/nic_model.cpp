// NicModel: the variant-independent facade over NicCore.
#include "nicsched/sim/nic_model.hpp"

#include <fmt/format.h>

#include <map>

#include "nic_core.hpp"

namespace nicsched::sim {

// Built into nicsched::sim (nic_variants.cpp).
std::unique_ptr<NicCore> make_core_t8(const NicConfig& cfg);
std::unique_ptr<NicCore> make_core_t16(const NicConfig& cfg);
// The reference-model backend (model_backend.cpp).
std::unique_ptr<NicCore> make_model_core(const NicConfig& cfg);

namespace {

struct Variant {
  NicCoreFactory factory;
  bool traces;
};

std::map<std::uint32_t, Variant>& registry() {
  static std::map<std::uint32_t, Variant> r = {
      {8, {&make_core_t8, true}},
      {16, {&make_core_t16, false}},
  };
  return r;
}

// The answer to the AXI4-Lite `op` ("read", "write") of `addr` on `nic`: a BusError when
// it was not answered within `timeout` cycles, a BusResponseError on SLVERR or DECERR.
void check_answer(const NicModel& nic, const AxilResult& r, const char* op, std::uint32_t addr,
                  std::uint32_t timeout) {
  if (r.timed_out) {
    throw drivers::BusError(
        fmt::format("{}: {} of 0x{:04X} not answered in {} cycles", nic.describe(), op, addr, timeout));
  }
  if (r.resp == 2 || r.resp == 3) {
    throw drivers::BusResponseError(
        fmt::format("{}: {} of 0x{:04X} answered {}", nic.describe(), op, addr, r.resp == 2 ? "SLVERR" : "DECERR"),
        addr, static_cast<drivers::BusResponseError::Resp>(r.resp));
  }
}

}  // namespace

void register_nic_variant(std::uint32_t tenants, NicCoreFactory factory) {
  registry()[tenants] = {factory, false};
}

std::vector<std::uint32_t> NicModel::variants() {
  std::vector<std::uint32_t> v;
  for (const auto& [n, f] : registry()) v.push_back(n);
  return v;
}

bool NicModel::variant_traces(std::uint32_t tenants) {
  const auto it = registry().find(tenants);
  return it != registry().end() && it->second.traces;
}

bool NicModel::supports(NicBackend backend, std::uint32_t tenants) {
  if (backend == NicBackend::kModel) return tenants >= 1 && tenants <= 64;
  return registry().count(tenants) != 0;
}

NicModel::NicModel(const NicConfig& cfg) : cfg_(cfg) {
  if (cfg.backend == NicBackend::kModel) {
    if (!cfg.trace.empty()) {
      throw SimError(fmt::format("the model backend has no signals to trace; cannot write {} (use the rtl backend)",
                                 cfg.trace.string()));
    }
    core_ = make_model_core(cfg);
    return;
  }
  const auto it = registry().find(cfg.tenants);
  if (it == registry().end()) {
    std::string list;
    for (auto v : variants()) list += (list.empty() ? "" : ", ") + std::to_string(v);
    throw SimError(fmt::format("no NicModel variant with {} tenants in this build (built: {})", cfg.tenants, list));
  }
  if (!cfg.trace.empty() && !it->second.traces) {
    throw SimError(fmt::format("the {}-tenant model was built without FST tracing; cannot write {}", cfg.tenants,
                               cfg.trace.string()));
  }
  core_ = it->second.factory(cfg);
}

NicModel::NicModel(const NicConfig& cfg, std::unique_ptr<NicCore> core) : cfg_(cfg), core_(std::move(core)) {}

NicModel::~NicModel() = default;

std::unique_ptr<NicModel> NicModel::clone() const {
  return std::unique_ptr<NicModel>(new NicModel(cfg_, core_->clone()));  // the constructor is private
}

void NicModel::attach(FrameSource* source, FrameSink* sink) {
  core_->source = source;
  core_->sink = sink;
}

void NicModel::notify_pending(Direction dir) { core_->pending[static_cast<int>(dir)] = core_->source != nullptr; }

void NicModel::request_break() { core_->break_requested = true; }

std::uint64_t NicModel::run(std::uint64_t max_cycles) { return core_->run(max_cycles); }

void NicModel::step(std::uint64_t cycles) {
  while (cycles > 0) cycles -= core_->run(cycles);
}

std::uint64_t NicModel::cycle() { return core_->cycle; }

std::uint32_t NicModel::read32(std::uint32_t addr) {
  if (addr % 4 != 0) throw drivers::BusError(fmt::format("{}: read32 of unaligned address 0x{:04X}", describe(), addr));
  const AxilResult r = core_->axil_read(addr, cfg_.axil_timeout_cycles);
  check_answer(*this, r, "read", addr, cfg_.axil_timeout_cycles);
  return r.data;
}

void NicModel::write32(std::uint32_t addr, std::uint32_t value) {
  if (addr % 4 != 0) throw drivers::BusError(fmt::format("{}: write32 to unaligned address 0x{:04X}", describe(), addr));
  check_answer(*this, core_->axil_write(addr, value, cfg_.axil_timeout_cycles), "write", addr,
               cfg_.axil_timeout_cycles);
}

std::string NicModel::describe() const {
  if (cfg_.backend == NicBackend::kModel) return fmt::format("inproc:refmodel[NumTenants={}]", cfg_.tenants);
  return fmt::format("inproc:nicsched_top[NumTenants={}]", cfg_.tenants);
}

const MacStats& NicModel::mac_stats() const { return core_->stats; }


}  // namespace nicsched::sim
