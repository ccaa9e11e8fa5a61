// bench_rtl: RTL figures of nicsched_top (8 tenants, 512-bit data), measured cycle by
// cycle on the Verilated model and printed as a Markdown table (tools/bench_rtl.sh puts
// it into docs/rtl.md):
//   - 64-byte frames back to back from 8 tenants, MAC always ready: frames per clock out
//     of m_axis_tx, with the queues preloaded (scheduler alone) and with frames streamed
//     in at the same time (whole datapath); and from one tenant's queue alone, preloaded;
//   - idle latency of one frame, from its tlast accepted on s_axis_tx to its first beat
//     on m_axis_tx, and enqueue-to-egress as the queue telemetry counts it (Q_LAT_SUM /
//     Q_LAT_COUNT), without and with encryption (engine 16 bytes/clock, 32 clocks).
#include <cstdint>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "Vnicsched_top.h"
#include "top_bench.hpp"

namespace {

using namespace nicsched::coretest;
namespace rm = nicsched::regmap;
using Bench = TopBench<Vnicsched_top, 8, 16, 512>;

struct Rate {
  std::uint64_t frames = 0;
  std::uint64_t cycles = 0;
};

/// Frames per clock with the bulk queues of tenants 0..tenants-1 preloaded, from the first
/// frame out to the last.
Rate back_to_back_preloaded(unsigned tenants, unsigned frames_per_tenant) {
  Bench b({}, bfm::StallPattern::none(), bfm::StallPattern::none(), 1);
  b.set_flows(b.all_flows());
  for (unsigned t = 0; t < 8; ++t) {
    b.set_tenant(t, 0, 1500);
    b.set_limits(t, 16384, 1 << 20);
  }
  b.set_mode(rm::ArbMode::kSpDwrr, false);  // queues fill, nothing leaves
  b.commit();
  std::uint64_t id = 0;
  for (unsigned i = 0; i < frames_per_tenant; ++i) {
    for (unsigned t = 0; t < tenants; ++t) b.send(false, id++, 2 * t + 1, 64);
  }
  while (!b.tx_src.idle()) b.tick();
  b.run(50);
  b.set_mode(rm::ArbMode::kSpDwrr, true);
  b.commit();
  const std::uint64_t total = std::uint64_t{tenants} * frames_per_tenant;
  std::uint64_t first = 0, last = 0;
  while (b.tx_sink.frames().size() < total) {
    b.tick();
    if (b.tb.cycle() > 10'000'000) throw std::runtime_error("preloaded frames did not all leave");
  }
  first = b.tx_sink.frames().front().first_cycle;
  last = b.tx_sink.frames().back().last_cycle;
  return {total, last - first + 1};
}

/// Frames per clock in steady state with 64-byte frames streamed in round robin.
Rate back_to_back_streaming(unsigned frames) {
  Bench b({}, bfm::StallPattern::none(), bfm::StallPattern::none(), 2);
  b.set_flows(b.all_flows());
  for (unsigned t = 0; t < 8; ++t) b.set_tenant(t, 0, 1500);
  b.set_mode(rm::ArbMode::kSpDwrr);
  b.commit();
  std::uint64_t id = 0;
  for (unsigned i = 0; i < frames; ++i) b.send(false, id++, 2 * (i % 8) + 1, 64);
  while (b.tx_sink.frames().size() < frames) {
    b.tick();
    if (b.tb.cycle() > 10'000'000) throw std::runtime_error("streamed frames did not all leave");
  }
  // skip the first and last 10% (pipeline fill and drain)
  const auto& f = b.tx_sink.frames();
  const std::size_t lo = frames / 10, hi = frames - frames / 10;
  return {hi - lo, f[hi - 1].last_cycle - f[lo].first_cycle + 1};
}

struct Latency {
  std::uint64_t end_to_end = 0;  // tlast in on s_axis_tx to first beat out
  double queue = 0;              // Q_LAT_SUM / Q_LAT_COUNT
};

Latency idle_latency(bool crypto, unsigned len) {
  Bench b({}, bfm::StallPattern::none(), bfm::StallPattern::none(), 3);
  b.set_flows(b.all_flows(crypto ? std::vector<unsigned>{0} : std::vector<unsigned>{}));
  b.set_tenant(0, 0, 1500);
  b.set_mode(rm::ArbMode::kSpDwrr);
  b.set_engine(16, 32);
  b.commit();
  b.run(100);
  // cycle of the tlast handshake on s_axis_tx, seen where the sinks sample theirs
  std::uint64_t tlast_in = 0;
  b.tb.on_sample([&b, &tlast_in](std::uint64_t c) {
    if (b.tb->s_axis_tx_tvalid && b.tb->s_axis_tx_tready && b.tb->s_axis_tx_tlast) tlast_in = c;
  });
  b.send(false, 1, 1, len);
  while (b.tx_sink.frames().empty()) {
    b.tick();
    if (b.tb.cycle() > 100000) throw std::runtime_error("idle frame did not leave");
  }
  b.snapshot();
  const double sum = static_cast<double>(b.read64(rm::Q_LAT_SUM::offset(1)));
  const double cnt = static_cast<double>(b.read64(rm::Q_LAT_COUNT::offset(1)));
  return {b.tx_sink.frames().front().first_cycle - tlast_in, cnt > 0 ? sum / cnt : -1.0};
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Verilated::commandArgs(argc, argv);
    const Rate pre = back_to_back_preloaded(8, 500);  // 4000 of the 4095 cells
    const Rate one = back_to_back_preloaded(1, 4000);
    const Rate str = back_to_back_streaming(8000);
    const Latency plain64 = idle_latency(false, 64);
    const Latency crypt64 = idle_latency(true, 64);
    const Latency plain1500 = idle_latency(false, 1500);
    const Latency crypt1500 = idle_latency(true, 1500);
    std::cout << "| figure | value |\n| --- | --- |\n";
    std::cout << fmt::format("| 64-byte frames from 8 tenants, queues preloaded, MAC always ready | {:.3f} frames/clock ({} frames in {} clocks) |\n",
                             static_cast<double>(pre.frames) / static_cast<double>(pre.cycles), pre.frames, pre.cycles);
    std::cout << fmt::format("| 64-byte frames from 1 tenant (one queue), queue preloaded, MAC always ready | {:.3f} frames/clock ({} frames in {} clocks) |\n",
                             static_cast<double>(one.frames) / static_cast<double>(one.cycles), one.frames, one.cycles);
    std::cout << fmt::format("| 64-byte frames from 8 tenants streamed through ingress, MAC always ready | {:.3f} frames/clock ({} frames in {} clocks) |\n",
                             static_cast<double>(str.frames) / static_cast<double>(str.cycles), str.frames, str.cycles);
    auto lat_row = [](const char* what, const Latency& l) {
      return fmt::format("| idle latency, {} | {} clocks tlast-in to first beat out; {:.0f} clocks enqueue-to-egress (Q_LAT) |\n",
                         what, l.end_to_end, l.queue);
    };
    std::cout << lat_row("64-byte frame, no crypto", plain64);
    std::cout << lat_row("64-byte frame, encrypted (16 B/clock, latency 32: hold 36)", crypt64);
    std::cout << lat_row("1500-byte frame, no crypto", plain1500);
    std::cout << lat_row("1500-byte frame, encrypted (hold 94 + 32 = 126)", crypt1500);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "bench_rtl: " << e.what() << '\n';
    return 1;
  }
}
