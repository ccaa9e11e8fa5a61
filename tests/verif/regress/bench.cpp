// Bench implementation: Verilated nicsched_top + reference model in lock step.
#include "bench.hpp"

#include <deque>
#include <stdexcept>

#include <fmt/format.h>
#include <verilated.h>
#include <verilated_fst_c.h>

#include "Vregress_top.h"
#include "nicsched/nic/codec.hpp"
#include "nicsched/regmap.hpp"
#include "nicsched/sim/bfm/axil_master.hpp"
#include "nicsched/sim/bfm/axis.hpp"

namespace nicsched::verif {

using refmodel::Direction;
namespace rm = nicsched::regmap;
namespace bfm = nicsched::sim::bfm;

refmodel::Params bench_params() {
  refmodel::Params p;
  p.num_tenants = NICSCHED_REGRESS_TENANTS;
  p.num_cls_entries = NICSCHED_REGRESS_CLS_ENTRIES;
  p.crypto_slots = NICSCHED_REGRESS_CRYPTO_SLOTS;
  p.data_bytes = NICSCHED_REGRESS_DATA_BITS / 8;
  p.buffer_bytes = NICSCHED_REGRESS_BUFFER_BYTES;
  p.cell_bytes = static_cast<std::uint32_t>(p.data_bytes);  // one cell per beat
  p.reserved_cells = 1;                                     // the free list's sentinel
  p.ingress_latency = 1;                                    // head valid the clock after tlast
  return p;
}

std::uint32_t bench_sources() { return NICSCHED_REGRESS_SOURCES; }

namespace {

using Source = bfm::AxisSource<VlWide<16>, QData>;
using Sink = bfm::AxisSink<VlWide<16>, QData, std::uint64_t>;

bfm::StallPattern stall(double p, bool bursty) {
  if (p <= 0.0) return bfm::StallPattern::none();
  return bursty ? bfm::StallPattern::bursty(p, 16) : bfm::StallPattern::random(p);
}

}  // namespace

class BenchImpl {
 public:
  BenchImpl(const Scenario& sc, const std::string& trace_path, std::string coverage_path)
      : sc_(sc), coverage_path_(std::move(coverage_path)), ctx_(std::make_unique<VerilatedContext>()),
        model_(sc.params) {
    if (!trace_path.empty()) ctx_->traceEverOn(true);
    top_ = std::make_unique<Vregress_top>(ctx_.get(), "top");
    if (!trace_path.empty()) {
      trace_ = std::make_unique<VerilatedFstC>();
      top_->trace(trace_.get(), 99);
      trace_->open(trace_path.c_str());
    }
    axil_ = std::make_unique<bfm::AxilMaster<Vregress_top>>(
        *top_, bfm::AxilStalls{sc.axil_valid_idle, sc.axil_ready_stall, sc.seed * 4 + 5});
    src_[0] = std::make_unique<Source>(top_->s_axis_tx_tdata, top_->s_axis_tx_tkeep, top_->s_axis_tx_tvalid,
                                       top_->s_axis_tx_tready, top_->s_axis_tx_tlast,
                                       stall(sc.input_idle, false), sc.seed * 4 + 1);
    src_[1] = std::make_unique<Source>(top_->s_axis_rx_tdata, top_->s_axis_rx_tkeep, top_->s_axis_rx_tvalid,
                                       top_->s_axis_rx_tready, top_->s_axis_rx_tlast,
                                       stall(sc.input_idle, false), sc.seed * 4 + 2);
    sink_[0] = std::make_unique<Sink>(top_->m_axis_tx_tdata, top_->m_axis_tx_tkeep, top_->m_axis_tx_tvalid,
                                      top_->m_axis_tx_tready, top_->m_axis_tx_tlast,
                                      stall(sc.tx_backpressure, sc.bursty_backpressure), sc.seed * 4 + 3);
    sink_[1] = std::make_unique<Sink>(top_->m_axis_rx_tdata, top_->m_axis_rx_tkeep, top_->m_axis_rx_tvalid,
                                      top_->m_axis_rx_tready, top_->m_axis_rx_tlast,
                                      stall(sc.rx_backpressure, sc.bursty_backpressure), sc.seed * 4 + 4);
    sink_[0]->on_last([this] { return static_cast<std::uint64_t>(top_->m_axis_tx_tuser); });
    sink_[1]->on_last([this] { return static_cast<std::uint64_t>(top_->m_axis_rx_tuser); });
    top_->clk_i = 0;
    top_->rst_ni = 0;
    top_->eval();
  }

  ~BenchImpl() {
    if (trace_) trace_->close();
    top_->final();
#if VM_COVERAGE
    if (!coverage_path_.empty()) ctx_->coveragep()->write(coverage_path_.c_str());
#endif
  }
  BenchImpl(const BenchImpl&) = delete;
  BenchImpl& operator=(const BenchImpl&) = delete;

  RunResult run() {
    reset();
    const std::uint32_t caps0 = read(rm::CAPS0::kOffset);
    if (rm::CAPS0::TENANTS.get(caps0) != static_cast<std::uint32_t>(sc_.params.num_tenants) ||
        rm::CAPS0::CRYPTO_SLOTS.get(caps0) != static_cast<std::uint32_t>(sc_.params.crypto_slots)) {
      throw std::runtime_error(fmt::format("CAPS0 = {:#010x} does not describe the bench's instance", caps0));
    }
    res_.arrival.assign(sc_.offers.size(), 0);
    res_.commit_cycle.assign(sc_.commits.size(), 0);
    // Initial policy, written and committed before traffic (model cycle 0 = now).
    write_config(sc_.commits[0].cfg, nullptr);
    if (sc_.tx_identity.sources.size() > bench_sources()) {
      throw std::runtime_error(fmt::format("scenario binds {} sources; the instance has {}",
                                           sc_.tx_identity.sources.size(), bench_sources()));
    }
    for (const nic::RegWrite& w : nic::encode_tx_identity(sc_.tx_identity)) write(w.addr, w.value);
    write(rm::COMMIT::kOffset, 1);
    model_.commit(sc_.commits[0].cfg);
    model_.set_sources(sc_.tx_identity.in_force());
    last_cfg_ = sc_.commits[0].cfg;
    for (int i = 0; i < 4; ++i) tick();
    running_ = true;
    std::size_t next_commit = 1;
    const std::uint64_t max_cycles = sc_.traffic_cycles + 3000000;
    std::uint64_t quiet = 0;
    while (now_ < max_cycles) {
      if (next_commit < sc_.commits.size() && sc_.commits[next_commit].cycle <= now_) {
        const std::size_t idx = next_commit++;
        write_config(sc_.commits[idx].cfg, &last_cfg_);
        commit_cfg_ = &sc_.commits[idx].cfg;
        commit_idx_ = idx;
        commit_aw_ = commit_w_ = false;
        write(rm::COMMIT::kOffset, 1);
        last_cfg_ = sc_.commits[idx].cfg;
        continue;
      }
      const std::size_t beats = res_.beat_cycles[0].size() + res_.beat_cycles[1].size();
      tick();
      const bool moved = res_.beat_cycles[0].size() + res_.beat_cycles[1].size() != beats;
      quiet = moved ? 0 : quiet + 1;
      if (now_ > sc_.traffic_cycles && next_commit == sc_.commits.size() && next_offer_[0] == count_[0] &&
          next_offer_[1] == count_[1] && src_[0]->idle() && src_[1]->idle() && model_.idle() &&
          quiet > 4000) {
        res_.drained = true;
        break;
      }
    }
    res_.end_cycle = now_;
    res_.model_counters = model_.counters();
    write(rm::SNAPSHOT::kOffset, 1);
    res_.rtl_counters = nic::decode_telemetry([this](std::uint32_t a) { return read(a); },
                                              static_cast<std::uint32_t>(sc_.params.num_tenants),
                                              {.status = true, .sources = bench_sources()});
    res_.rtl_spoofed = res_.rtl_counters.spoofed;
    for (std::uint32_t s = 0; s < bench_sources(); ++s) res_.model_spoofed.push_back(model_.spoofed(s));
    for (int d = 0; d < 2; ++d) collect(static_cast<Direction>(d));
    std::sort(res_.rtl.begin(), res_.rtl.end(),
              [](const RtlFrame& a, const RtlFrame& b) { return a.last_cycle < b.last_cycle; });
    for (refmodel::FrameRecord& r : model_.pop_records()) {
      r.id = id_to_offer_[r.id];
      records_.push_back(r);
    }
    res_.model.resize(sc_.offers.size());
    for (const refmodel::FrameRecord& r : records_) res_.model[r.id] = r;
    return std::move(res_);
  }

 private:
  void reset() {
    top_->rst_ni = 0;
    for (int i = 0; i < 16; ++i) tick();
    top_->rst_ni = 1;
    for (int i = 0; i < 200000 && !(top_->s_axis_tx_tready && top_->s_axis_rx_tready); ++i) tick();
    if (!(top_->s_axis_tx_tready && top_->s_axis_rx_tready)) {
      throw std::runtime_error("s_axis_tx/rx_tready never rose after reset (200000 cycles)");
    }
    // The ingress takes frames before the queues have built their free lists (one cell
    // per clock after reset): let that finish, so the first frames are not held back.
    const std::uint64_t init_cycles = sc_.params.buffer_bytes / static_cast<std::uint32_t>(sc_.params.data_bytes) + 64;
    for (std::uint64_t i = 0; i < init_cycles; ++i) tick();
    // The bench's cycle 0 is the first cycle of traffic; count from here.
    base_ = raw_cycle_;
    now_ = 0;
    for (int d = 0; d < 2; ++d) {
      for (std::size_t i = 0; i < sc_.offers.size(); ++i) {
        if (sc_.offers[i].dir == static_cast<Direction>(d)) order_[d].push_back(i);
      }
      count_[d] = order_[d].size();
    }
  }

  void write_config(const refmodel::Config& cfg, const refmodel::Config* previous) {
    refmodel::validate(cfg, sc_.params);
    const auto writes = nic::encode_config(cfg);
    std::vector<nic::RegWrite> before;
    if (previous) before = nic::encode_config(*previous);
    for (std::size_t i = 0; i < writes.size(); ++i) {
      if (previous && before[i].value == writes[i].value) continue;  // the shadow holds it
      write(writes[i].addr, writes[i].value);
    }
  }

  void write(std::uint32_t addr, std::uint32_t value) {
    const bfm::AxilResp r = axil_->write32(addr, value, [this] { tick(); }, 0xF, 2000);
    if (r != bfm::AxilResp::kOkay) {
      throw std::runtime_error(fmt::format("AXI4-Lite write of {:#06x} answered {}", addr, bfm::to_string(r)));
    }
  }

  std::uint32_t read(std::uint32_t addr) {
    const bfm::AxilReadResult r = axil_->read32(addr, [this] { tick(); }, 2000);
    if (r.resp != bfm::AxilResp::kOkay) {
      throw std::runtime_error(fmt::format("AXI4-Lite read of {:#06x} answered {}", addr, bfm::to_string(r.resp)));
    }
    return r.data;
  }

  // One clock: sample (clock low, settled), model step, rising edge, drive, falling edge.
  void tick() {
    Vregress_top& t = *top_;
    // Offers whose time has come go to the sources (in order, per direction).
    if (running_) {
      for (int d = 0; d < 2; ++d) {
        while (next_offer_[d] < count_[d] && sc_.offers[order_[d][next_offer_[d]]].ready_cycle <= now_) {
          const std::size_t idx = order_[d][next_offer_[d]++];
          src_[d]->push_bytes(sc_.offers[idx].bytes);
          in_flight_[d].push_back(idx);
        }
      }
    }
    const bool in_fire[2] = {t.s_axis_tx_tvalid && t.s_axis_tx_tready && t.s_axis_tx_tlast,
                             t.s_axis_rx_tvalid && t.s_axis_rx_tready && t.s_axis_rx_tlast};
    const bool out_fire[2] = {t.m_axis_tx_tvalid && t.m_axis_tx_tready, t.m_axis_rx_tvalid && t.m_axis_rx_tready};
    const bool ready[2] = {t.m_axis_tx_tready != 0, t.m_axis_rx_tready != 0};
    for (int d = 0; d < 2; ++d) {
      src_[d]->sample();
      sink_[d]->sample(now_);
      if (out_fire[d]) res_.beat_cycles[d].push_back(now_);
    }
    // COMMIT.GO: the CSR block takes the write into its write stage in the clock both its
    // address and data are accepted, and performs it in the next clock (B is free then: this
    // bench writes one register at a time, each after the B of the one before).
    const bool commit_now = commit_staged_;
    if (commit_cfg_ != nullptr && !commit_staged_) {
      commit_aw_ = commit_aw_ || (t.s_axil_awvalid && t.s_axil_awready);
      commit_w_ = commit_w_ || (t.s_axil_wvalid && t.s_axil_wready);
      commit_staged_ = commit_aw_ && commit_w_;
    } else {
      commit_staged_ = false;
    }
    axil_->sample();
    if (running_) {
      for (int d = 0; d < 2; ++d) {
        if (!in_fire[d]) continue;
        if (in_flight_[d].empty()) throw std::runtime_error("tlast accepted with no frame in flight");
        const std::size_t idx = in_flight_[d].front();
        in_flight_[d].pop_front();
        res_.arrival[idx] = now_;
        const std::uint64_t id = model_.push(static_cast<Direction>(d), sc_.offers[idx].bytes, now_, sc_.offers[idx].source);
        // Model ids count arrivals (both directions interleaved); map them to offers.
        id_to_offer_.resize(std::max<std::size_t>(id_to_offer_.size(), id + 1));
        id_to_offer_[id] = idx;
      }
      model_.set_output_ready(Direction::kTx, ready[0]);
      model_.set_output_ready(Direction::kRx, ready[1]);
      model_.step(1);
      for (refmodel::FrameRecord& r : model_.pop_records()) {
        r.id = id_to_offer_[r.id];
        records_.push_back(r);
      }
    }
    if (commit_now) {
      if (running_) {
        res_.commit_cycle[commit_idx_] = now_;
        model_.commit(*commit_cfg_);
      }
      commit_cfg_ = nullptr;
    }
    t.clk_i = 1;
    t.eval();
    if (trace_) trace_->dump(ctx_->time());
    ctx_->timeInc(1);
    for (int d = 0; d < 2; ++d) {
      src_[d]->drive();
      sink_[d]->drive();
    }
    // The TX frame on the bus (the oldest one not through its tlast) names its source.
    t.s_axis_tx_tuser = in_flight_[0].empty() ? 0 : static_cast<CData>(sc_.offers[in_flight_[0].front()].source);
    for (const Pause& p : sc_.pauses) {
      if (running_ && now_ + 1 >= p.begin && now_ + 1 < p.end) {
        (p.dir == Direction::kTx ? t.m_axis_tx_tready : t.m_axis_rx_tready) = 0;
      }
    }
    axil_->drive();
    t.clk_i = 0;
    t.eval();
    if (trace_) trace_->dump(ctx_->time());
    ctx_->timeInc(1);
    ++raw_cycle_;
    if (running_) ++now_;
  }

  void collect(Direction dir) {
    const int d = static_cast<int>(dir);
    std::uint64_t beat = 0;
    for (auto& f : sink_[d]->frames()) {
      RtlFrame r;
      r.dir = dir;
      r.bytes = bfm::kept_bytes(f.beats);
      r.tenant = static_cast<std::uint32_t>(f.meta & 0x3FU);
      r.cls = static_cast<std::uint32_t>((f.meta >> 6) & 1U);
      r.op = static_cast<std::uint32_t>((f.meta >> 7) & 3U);
      r.first_cycle = f.first_cycle;
      r.last_cycle = f.last_cycle;
      r.first_beat_index = beat;
      beat += f.beats.size();
      res_.rtl.push_back(std::move(r));
    }
  }

  const Scenario& sc_;
  std::string coverage_path_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vregress_top> top_;
  std::unique_ptr<VerilatedFstC> trace_;
  std::unique_ptr<bfm::AxilMaster<Vregress_top>> axil_;
  const refmodel::Config* commit_cfg_ = nullptr;  // COMMIT.GO outstanding: its config
  std::size_t commit_idx_ = 0;
  bool commit_aw_ = false, commit_w_ = false;
  bool commit_staged_ = false;  // the COMMIT write is in the CSR's write stage: performed next clock
  std::unique_ptr<Source> src_[2];
  std::unique_ptr<Sink> sink_[2];
  refmodel::RefModel model_;
  refmodel::Config last_cfg_;
  bool running_ = false;
  std::uint64_t raw_cycle_ = 0, base_ = 0, now_ = 0;
  std::vector<std::size_t> order_[2];
  std::size_t count_[2] = {0, 0};
  std::size_t next_offer_[2] = {0, 0};
  std::deque<std::size_t> in_flight_[2];
  std::vector<std::size_t> id_to_offer_;
  std::vector<refmodel::FrameRecord> records_;
  RunResult res_;
};

Bench::Bench(const Scenario& sc, const std::string& trace_path, const std::string& coverage_path)
    : impl_(std::make_unique<BenchImpl>(sc, trace_path, coverage_path)) {}

bool coverage_build() {
#if VM_COVERAGE
  return true;
#else
  return false;
#endif
}
Bench::~Bench() = default;
RunResult Bench::run() { return impl_->run(); }

}  // namespace nicsched::verif
