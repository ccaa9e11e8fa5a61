// NicModel: the Verilated nicsched_top, clocked in process; or, with
// NicConfig::backend = NicBackend::kModel, the reference model nicsched::refmodel behind
// the same interfaces (model_backend.hpp; docs/simulation.md, "Backends").
//
// - Owns the model (and its VerilatedContext) of the variant whose NumTenants the
//   configuration asks for (variants(): the ones built into this binary).
// - Register interface: RegisterBus over the AXI4-Lite port. Each access runs the clock
//   until the slave answers (a few cycles), with the streams running meanwhile; an AXI
//   error response becomes drivers::BusResponseError.
// - Streams: frames come from a FrameSource (host TX on s_axis_tx, wire RX on s_axis_rx)
//   and leave to a FrameSink (wire on m_axis_tx, host on m_axis_rx). The MAC model gives
//   the wire side the link rate: m_axis_tx_tready follows a byte-credit pattern of
//   link_bytes_per_cycle (each frame also pays 24 bytes of preamble, IFG and FCS), is held
//   low during pause periods, and the RX side offers beats no faster than the link. The
//   host side is not limited (m_axis_rx_tready is always high).
// - Cost per cycle: two eval()s plus a few integer updates; port words are touched only
//   when a beat moves. No allocation per cycle or per frame once buffers have grown.
// - Optional FST waveform of every signal (variants built with tracing).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "nicsched/drivers/register_bus.hpp"
#include "nicsched/refmodel/types.hpp"
#include "nicsched/sim/scenario.hpp"

namespace nicsched::sim {

struct NicConfig {
  NicBackend backend = NicBackend::kRtl;   // Verilated top, or the reference model
  std::uint32_t tenants = 8;               // NumTenants of the Verilated variant (model: any 1..64)
  std::uint32_t crypto_slots = 4;          // model backend only; the RTL's CryptoSlots is elaborated (4)
  double link_bytes_per_cycle = 50.0;      // 100 GbE at 250 MHz
  std::vector<PausePeriod> pauses;         // egress pause periods, sorted
  std::filesystem::path trace;             // FST file; empty: no waveform
  std::uint32_t reset_cycles = 16;
  // BufferBytes of the variants (docs/architecture.md default). After reset the model is
  // clocked buffer_bytes / 64 + 16 cycles while the queue managers build their free
  // lists; cycle() counts from the end of that.
  std::uint32_t buffer_bytes = 262144;
  std::uint32_t axil_timeout_cycles = 2000;  // an access not answered by then is a BusError
                                             // (RTL backend; the model answers at once)
  // Model backend: the reference model steps event to event (spans in which nothing but
  // counters, beats, buckets and timers move run in closed form), or cycle by cycle (the
  // definition; the equivalence test's checker). The results are the same.
  refmodel::Stepping model_stepping = refmodel::Stepping::kEvent;
};

// A frame that left the NIC (TX: onto the wire; RX: to the host).
struct OutFrame {
  Direction dir = Direction::kTx;
  const std::uint8_t* data = nullptr;  // valid during the callback only
  std::uint32_t len = 0;
  std::uint32_t tenant = 0;            // from tuser (egress_user_t)
  std::uint32_t cls = 0;
  std::uint32_t crypto_op = 0;
  std::uint64_t cycle = 0;             // cycle of the tlast beat
};

class FrameSource {
 public:
  virtual ~FrameSource() = default;
  // The next frame to offer on the direction's input stream, or false for none now (the
  // model then asks again only after notify_pending(dir)). Fill `frame` (resize it to
  // the frame's length); called between clock edges, must not access registers.
  virtual bool next_frame(Direction dir, std::uint64_t cycle, std::vector<std::uint8_t>& frame) = 0;
  // The TX source (host queue / VF, s_axis_tx_tuser) of the frame next_frame(kTx) gave last:
  // what the trusted host side says, not what the frame's headers claim (docs/trust.md).
  [[nodiscard]] virtual std::uint32_t tx_source() const { return 0; }
};

class FrameSink {
 public:
  virtual ~FrameSink() = default;
  // Called at the tlast beat; must not access registers (it may notify_pending/request_break).
  virtual void frame_out(const OutFrame& frame) = 0;
};

struct MacStats {
  std::uint64_t wire_bytes_out_tx = 0;  // m_axis_tx, with 24 bytes per frame of overhead
  std::uint64_t wire_bytes_in_rx = 0;   // s_axis_rx, likewise
  std::uint64_t frames_out[2] = {0, 0}; // per Direction
  std::uint64_t frames_in[2] = {0, 0};
  std::uint64_t paused_cycles = 0;
};

class NicCore;  // the variant-specific part (sim/src/nic_core.hpp)
using NicCoreFactory = std::unique_ptr<NicCore> (*)(const NicConfig&);

// Makes a variant available by its NumTenants (the default build has 8 and 16; the
// benchmark adds others). Not thread-safe; call before constructing models.
void register_nic_variant(std::uint32_t tenants, NicCoreFactory factory);

class NicModel final : public drivers::RegisterBus, public drivers::SimControl {
 public:
  explicit NicModel(const NicConfig& cfg);
  ~NicModel() override;
  NicModel(const NicModel&) = delete;
  NicModel& operator=(const NicModel&) = delete;

  // NumTenants of every variant this binary can build, ascending.
  [[nodiscard]] static std::vector<std::uint32_t> variants();
  // Whether the variant writes waveforms.
  [[nodiscard]] static bool variant_traces(std::uint32_t tenants);
  // Whether this build can simulate `tenants` tenants on the backend (model: 1..64).
  [[nodiscard]] static bool supports(NicBackend backend, std::uint32_t tenants);

  // A copy of the whole NIC that continues exactly as this one would: the model, its
  // queues and frames in flight, registers, MAC credits, statistics (Simulation::fork).
  // The copy is detached: attach() its own source and sink before running it. The rtl
  // backend throws SimError (a Verilated model's state cannot be copied).
  [[nodiscard]] std::unique_ptr<NicModel> clone() const;

  void attach(FrameSource* source, FrameSink* sink);
  void notify_pending(Direction dir);
  // From a callback: run() returns after the current cycle.
  void request_break();
  // Runs up to max_cycles cycles; fewer if a callback called request_break(). Returns
  // the cycles run.
  std::uint64_t run(std::uint64_t max_cycles);

  // SimControl
  void step(std::uint64_t cycles) override;
  [[nodiscard]] std::uint64_t cycle() override;
  // RegisterBus
  std::uint32_t read32(std::uint32_t addr) override;
  void write32(std::uint32_t addr, std::uint32_t value) override;
  [[nodiscard]] std::string describe() const override;

  [[nodiscard]] const MacStats& mac_stats() const;
  [[nodiscard]] std::uint32_t tenants() const { return cfg_.tenants; }
  [[nodiscard]] NicBackend backend() const { return cfg_.backend; }
  [[nodiscard]] const NicConfig& config() const { return cfg_; }

 private:
  NicModel(const NicConfig& cfg, std::unique_ptr<NicCore> core);

  NicConfig cfg_;
  std::unique_ptr<NicCore> core_;
};

}  // namespace nicsched::sim
