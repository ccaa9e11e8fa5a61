// bench_sim: simulation speed of the Verilated nicsched_top (tools/bench_sim.sh writes
// the results into docs/simulation.md).
//
//   bench_sim scenario FILE --cycles N     cycles/s of a scenario (workloads, host model,
//                                          metrics included), single thread
//   bench_sim scaling --cycles N           the same for generated 4/8/16/64-tenant scenarios
//   bench_sim emit DIR                     the Icarus comparison's stimulus: register writes
//                                          (regs.hex) and looping TX frames (beats.hex)
//   bench_sim replay DIR --cycles N        that stimulus on the Verilated 8-tenant top
//   bench_sim control FILE --steps K --interval C   control steps/s as an agent makes them: step C
//                                          cycles, read a telemetry snapshot, apply a policy
//   --backend model (scenario, scaling, replay, control): the same on the reference-model backend
//   --stepping cycle (scenario, scaling, control; model backend): the reference model stepped
//                                          cycle by cycle instead of event to event
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <charconv>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include "nic_core.hpp"
#include "nic_io.hpp"
#include "nicsched/fileio/file.hpp"
#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/host/telemetry.hpp"
#include "nicsched/sim/scenario_policy.hpp"
#include "nicsched/sim/simulation.hpp"
#include "nicsched/version.hpp"

namespace nicsched::sim {
void register_bench_variants();
}

namespace {

using namespace nicsched;
// CPU time of this (single-threaded) process: on a shared machine, wall time would
// measure the other jobs too.
struct Clock {
  using time_point = double;
  static time_point now() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }
};

double seconds_since(Clock::time_point t0) { return Clock::now() - t0; }

struct Speed {
  std::uint64_t cycles;
  double seconds;
  [[nodiscard]] double rate() const { return static_cast<double>(cycles) / seconds; }
};

Speed time_scenario(sim::Scenario s, std::uint64_t cycles, sim::NicBackend backend, refmodel::Stepping stepping) {
  s.backend = backend;
  sim::SimOptions o;
  o.model_stepping = stepping;
  o.baseline = "fair";
  o.cycles = cycles;
  sim::Simulation simulation(s, o);
  simulation.step(std::min<std::uint64_t>(cycles / 10, 20000));  // warm-up: buffers grown, queues filling
  const std::uint64_t c0 = simulation.cycle();
  const auto t0 = Clock::now();
  simulation.step(cycles);
  return {simulation.cycle() - c0, seconds_since(t0)};
}

// Control steps per CPU second: what the agent's NicEnv does each step, through nicsched::host.
Speed time_control(sim::Scenario s, std::uint64_t steps, std::uint64_t interval, sim::NicBackend backend,
                   refmodel::Stepping stepping) {
  s.backend = backend;
  sim::SimOptions o;
  o.model_stepping = stepping;
  o.baseline = "fair";
  sim::Simulation simulation(s, o);
  const auto caps = host::discover(simulation);
  host::Policy p = host::read_policy(simulation, caps);
  p.classifier.reset();
  p.default_action.reset();
  simulation.step(20000);  // warm-up: queues filling
  const auto t0 = Clock::now();
  for (std::uint64_t i = 0; i < steps; ++i) {
    simulation.step(interval);
    const host::Telemetry t = host::read_snapshot(simulation, caps);
    p.tenants[i % caps.tenants].weight = 1000 + static_cast<std::uint32_t>(t.queues[0].tx_pkts % 1000);
    host::apply_policy(simulation, caps, p);
  }
  return {steps, seconds_since(t0)};
}

// N DDP tenants that together offer ~80 % of the link, windows sharing the buffer.
sim::Scenario generated(std::uint32_t tenants) {
  const double comm_ms = 14.0;  // resnet50 burst (175 MB) at 100 Gbit/s
  const double compute_ms = comm_ms * (tenants / 0.8 - 1.0);
  const std::uint32_t window = std::max<std::uint32_t>(2048, std::min<std::uint32_t>(32768, 262144 / tenants / 2));
  std::string y = fmt::format("name: generated-{}\nseed: 1\nscale: 1000\nduration_s: 100\nnic: {{tenants: {}}}\ntenants:\n",
                              tenants, tenants);
  for (std::uint32_t i = 0; i < tenants; ++i) {
    y += fmt::format("  - {{name: t{}, type: ddp, model: resnet50, compute_ms: {:.3f}, start_ms: {:.3f}, "
                     "jitter: 0.05, window_bytes: {}}}\n",
                     i, compute_ms, (comm_ms + compute_ms) * i / tenants, window);
  }
  return sim::parse_scenario(y, fmt::format("generated-{}.yaml", tenants));
}

// A RegisterBus that forwards to the model and records every write.
class RecordingBus final : public drivers::RegisterBus {
 public:
  explicit RecordingBus(drivers::RegisterBus& inner) : inner_(inner) {}
  std::uint32_t read32(std::uint32_t a) override { return inner_.read32(a); }
  void write32(std::uint32_t a, std::uint32_t v) override {
    writes.emplace_back(a, v);
    inner_.write32(a, v);
  }
  [[nodiscard]] std::string describe() const override { return "recording:" + inner_.describe(); }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> writes;

 private:
  drivers::RegisterBus& inner_;
};

// Loops a fixed list of TX frames as fast as the NIC takes them.
class LoopSource final : public sim::FrameSource {
 public:
  explicit LoopSource(std::vector<std::vector<std::uint8_t>> frames) : frames_(std::move(frames)) {}
  bool next_frame(sim::Direction dir, std::uint64_t, std::vector<std::uint8_t>& frame) override {
    if (dir != sim::Direction::kTx) return false;
    frame = frames_[next_];
    next_ = (next_ + 1) % frames_.size();
    return true;
  }

 private:
  std::vector<std::vector<std::uint8_t>> frames_;
  std::size_t next_ = 0;
};

class CountSink final : public sim::FrameSink {
 public:
  void frame_out(const sim::OutFrame& f) override {
    ++frames;
    bytes += f.len;
  }
  std::uint64_t frames = 0, bytes = 0;
};

// The default scenario's tenants, one bulk frame each (and a control frame for DDP).
std::vector<std::vector<std::uint8_t>> stimulus_frames(const sim::Scenario& s) {
  sim::FrameBuilder fb;
  std::vector<std::vector<std::uint8_t>> out;
  std::uint64_t id = 1;
  for (const auto& t : s.tenants) {
    const sim::FlowId bulk{t.vlan, sim::kDscpBulk, 40000, t.port};
    std::vector<std::uint8_t> f(1518);
    fb.build(f.data(), 1518, bulk, {id++, 0, 1518, static_cast<std::uint8_t>(t.index), 1});
    out.push_back(f);
    if (t.control.enabled) {
      const sim::FlowId ctl{t.vlan, sim::kDscpControl, 40000, t.port};
      std::vector<std::uint8_t> c(128);
      fb.build(c.data(), 128, ctl, {id++, 0, 128, static_cast<std::uint8_t>(t.index), 0});
      out.push_back(c);
    }
  }
  return out;
}

void write_hex(const std::filesystem::path& dir, const sim::Scenario& s) {
  sim::NicConfig nc;
  sim::NicModel nic(nc);
  RecordingBus rec(nic);
  const auto caps = host::discover(nic);
  auto p = sim::with_scenario_classifier(sim::baseline_policy("fair", s, caps), s);
  host::apply_policy(rec, caps, p);
  std::filesystem::create_directories(dir);
  std::ofstream regs(dir / "regs.hex");
  for (const auto& [a, v] : rec.writes) regs << fmt::format("{:04x}{:08x}\n", a, v);
  std::ofstream beats(dir / "beats.hex");
  std::size_t n = 0;
  for (const auto& f : stimulus_frames(s)) {
    for (std::size_t off = 0; off < f.size(); off += 64) {
      const std::size_t len = std::min<std::size_t>(64, f.size() - off);
      const bool last = off + len >= f.size();
      const std::uint64_t keep = len >= 64 ? ~0ULL : ((1ULL << len) - 1);
      std::string data;
      for (int b = 63; b >= 0; --b) {
        data += fmt::format("{:02x}", static_cast<std::size_t>(b) < len ? f[off + static_cast<std::size_t>(b)] : 0);
      }
      beats << fmt::format("{:x}{:016x}{}\n", last ? 1 : 0, keep, data);
      ++n;
    }
  }
  std::ofstream meta(dir / "stimulus.vh");
  meta << fmt::format("`define NREGS {}\n`define NBEATS {}\n", rec.writes.size(), n);
}

Speed replay(const std::filesystem::path& dir, std::uint64_t cycles, const sim::Scenario& s,
             sim::NicBackend backend) {
  sim::NicConfig nc;
  nc.backend = backend;
  sim::NicModel nic(nc);
  const std::filesystem::path regs_file = dir / "regs.hex";
  std::error_code ec;
  if (!std::filesystem::exists(regs_file, ec)) throw sim::SimError(regs_file.string() + ": missing; run `bench_sim emit` first");
  std::string text;
  try {
    text = fileio::read_text_file(regs_file, "the register stimulus file");
  } catch (const fileio::FileError& e) {
    throw sim::SimError(e.what());
  }
  std::istringstream lines(text);
  std::string line;
  for (std::size_t n = 1; std::getline(lines, line); ++n) {
    // "AAAAVVVVVVVV": address and value in hex, as write_hex writes them
    std::uint32_t addr = 0;
    std::uint32_t value = 0;
    const char* b = line.data();
    const char* e = b + line.size();
    if (line.size() != 12 || std::from_chars(b, b + 4, addr, 16).ptr != b + 4 ||
        std::from_chars(b + 4, e, value, 16).ptr != e) {
      throw sim::SimError(fmt::format("{}:{}: expected 4 hex digits of address and 8 of value, got '{}'",
                                      regs_file.string(), n, line));
    }
    nic.write32(addr, value);
  }
  LoopSource src(stimulus_frames(s));
  CountSink sink;
  nic.attach(&src, &sink);
  nic.notify_pending(sim::Direction::kTx);
  const std::uint64_t c0 = nic.cycle();
  const auto t0 = Clock::now();
  nic.step(cycles);
  const Speed sp{nic.cycle() - c0, seconds_since(t0)};
  std::cerr << fmt::format("replay: {} frames ({} bytes) left on the wire\n", sink.frames, sink.bytes);
  return sp;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_sim: simulation speed of the Verilated nicsched_top"};
  app.set_version_flag("--version", std::string("bench_sim ") + nicsched::kVersion);
  app.require_subcommand(1);
  std::uint64_t cycles = 2000000;
  std::string file;
  std::string dir;
  std::string backend = "rtl";
  auto* sc = app.add_subcommand("scenario", "cycles/s of a scenario");
  sc->add_option("file", file)->required();
  sc->add_option("--cycles", cycles);
  auto* scal = app.add_subcommand("scaling", "cycles/s with 4, 8, 16, 64 tenants");
  scal->add_option("--cycles", cycles);
  std::uint64_t steps = 500;
  std::uint64_t interval = 2000;
  auto* ctl = app.add_subcommand("control", "control steps/s (step, snapshot, policy write)");
  ctl->add_option("file", file)->required();
  ctl->add_option("--steps", steps);
  ctl->add_option("--interval", interval, "cycles per step");
  auto* em = app.add_subcommand("emit", "write the Icarus comparison's stimulus");
  em->add_option("dir", dir)->required();
  em->add_option("--scenario", file)->required();
  auto* rp = app.add_subcommand("replay", "run that stimulus on the Verilated top");
  rp->add_option("dir", dir)->required();
  rp->add_option("--scenario", file)->required();
  rp->add_option("--cycles", cycles);
  for (auto* sub : {sc, scal, rp, ctl}) {
    sub->add_option("--backend", backend, "rtl (Verilated top) or model (reference model)")
        ->check(CLI::IsMember({"rtl", "model"}));
  }
  std::string stepping_name = "event";
  for (auto* sub : {sc, scal, ctl}) {
    sub->add_option("--stepping", stepping_name, "model backend: event (event to event) or cycle (per cycle)")
        ->check(CLI::IsMember({"event", "cycle"}));
  }
  CLI11_PARSE(app, argc, argv);
  try {
    nicsched::sim::register_bench_variants();
    const auto be = nicsched::sim::parse_backend(backend);
    const auto stepping = stepping_name == "cycle" ? refmodel::Stepping::kPerCycle : refmodel::Stepping::kEvent;
    if (sc->parsed()) {
      const auto s = nicsched::sim::load_scenario(file);
      const Speed sp = time_scenario(s, cycles, be, stepping);
      std::cout << fmt::format("scenario {} backend {} tenants {} cycles {} seconds {:.3f} cycles_per_second {:.0f}\n",
                               s.name, backend, s.nic_tenants, sp.cycles, sp.seconds, sp.rate());
    } else if (scal->parsed()) {
      for (std::uint32_t n : {4U, 8U, 16U, 64U}) {
        const Speed sp = time_scenario(generated(n), cycles, be, stepping);
        std::cout << fmt::format("tenants {} cycles {} seconds {:.3f} cycles_per_second {:.0f}\n", n, sp.cycles,
                                 sp.seconds, sp.rate());
      }
    } else if (ctl->parsed()) {
      const Speed sp = time_control(nicsched::sim::load_scenario(file), steps, interval, be, stepping);
      std::cout << fmt::format("control backend {} interval {} steps {} seconds {:.3f} steps_per_second {:.0f}\n",
                               backend, interval, sp.cycles, sp.seconds, sp.rate());
    } else if (em->parsed()) {
      write_hex(dir, nicsched::sim::load_scenario(file));
    } else {
      const Speed sp = replay(dir, cycles, nicsched::sim::load_scenario(file), be);
      std::cout << fmt::format("replay cycles {} seconds {:.3f} cycles_per_second {:.0f}\n", sp.cycles, sp.seconds,
                               sp.rate());
    }
  } catch (const std::exception& e) {
    std::cerr << "bench_sim: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
