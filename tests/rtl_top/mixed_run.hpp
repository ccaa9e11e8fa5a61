// mixed_run: the end-to-end check of nicsched_top shared by test_top.cpp and
// test_top_sweep.cpp (mixed tenants on TX and RX, crypto and plain, every frame accounted).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "run_case.hpp"
#include "top_bench.hpp"

namespace nicsched::coretest {

/// Frames in, frames out: every frame leaves exactly once, intact and in per-queue order,
/// or is counted as dropped by the queue's telemetry; the counters match what happened.
template <class Model, unsigned kT, unsigned kE, unsigned kW>
inline void mixed_run(const std::string& name, bfm::StallPattern idle, bfm::StallPattern bp, std::uint64_t seed,
               unsigned frames_per_dir) {
  run_case(name, [&](const std::string& trace) {
    TopBench<Model, kT, kE, kW> b(trace, idle, bp, seed);
    std::mt19937_64 rng(seed);
    const std::vector<unsigned> crypto_tenants{1, kT - 1};
    b.set_flows(b.all_flows(crypto_tenants));
    for (unsigned t = 0; t < kT; ++t) {
      b.set_tenant(t, t % 4, 1500 + 500 * (t % 3), 1 + t % 4);
      b.set_limits(t, 6000, 20000);
    }
    b.set_mode(nicsched::regmap::ArbMode::kSpDwrr);
    b.set_engine(16, 20);
    b.commit();
    DeliveryChecker tx("TX", 1), rx("RX", 2);
    const auto nflows = static_cast<unsigned>(b.flows.size());
    std::uniform_int_distribution<unsigned> flow_d(0, nflows - 1);
    std::uniform_int_distribution<unsigned> len_d(64, 1518);
    unsigned sent_tx = 0, sent_rx = 0;
    std::uint64_t id = 0;
    while (sent_tx < frames_per_dir || sent_rx < frames_per_dir) {
      if (b.tx_src.idle() && sent_tx < frames_per_dir) {
        const unsigned f = flow_d(rng);
        tx.sent(b.send(false, id++, f, (f % 2 == 0) ? 64 + len_d(rng) % 200 : len_d(rng)));
        ++sent_tx;
      }
      if (b.rx_src.idle() && sent_rx < frames_per_dir) {
        const unsigned f = flow_d(rng);
        rx.sent(b.send(true, id++, f, (f % 2 == 0) ? 64 + len_d(rng) % 200 : len_d(rng)));
        ++sent_rx;
      }
      b.tick();
      tx.collect(b.tx_sink.frames());
      rx.collect(b.rx_sink.frames());
    }
    // drain: nothing left anywhere
    unsigned quiet = 0;
    while (quiet < 3000) {
      b.tick();
      const bool busy = !b.tx_src.idle() || !b.rx_src.idle() || !b.tx_sink.frames().empty() ||
                        !b.rx_sink.frames().empty() || b.tx_sink.mid_frame() || b.rx_sink.mid_frame();
      tx.collect(b.tx_sink.frames());
      rx.collect(b.rx_sink.frames());
      quiet = busy ? 0 : quiet + 1;
      check(b.tb.cycle() < 5'000'000, "did not drain");
    }
    // telemetry: per queue, both directions together
    b.snapshot();
    namespace rm = nicsched::regmap;
    const auto tx_missing = tx.missing_total();
    const auto rx_missing = rx.missing_total();
    std::uint64_t delivered_total = 0;
    for (unsigned q = 0; q < 2 * kT; ++q) {
      const std::uint64_t delivered = tx.delivered_[q] + rx.delivered_[q];
      const std::uint64_t missing = (tx_missing.count(q) ? tx_missing.at(q) : 0) + (rx_missing.count(q) ? rx_missing.at(q) : 0);
      delivered_total += delivered;
      const auto enq = b.read64(rm::Q_ENQ_PKTS::offset(q));
      const auto out = b.read64(rm::Q_TX_PKTS::offset(q));
      const auto drop = b.read64(rm::Q_DROP_PKTS::offset(q));
      const auto out_bytes = b.read64(rm::Q_TX_BYTES::offset(q));
      check(out == delivered, fmt::format("queue {}: Q_TX_PKTS {} but {} frames left", q, out, delivered));
      check(enq == delivered, fmt::format("queue {}: Q_ENQ_PKTS {} but {} frames left (all drained)", q, enq, delivered));
      check(drop == missing, fmt::format("queue {}: Q_DROP_PKTS {} but {} frames never left", q, drop, missing));
      check(out_bytes == tx.delivered_bytes_[q] + rx.delivered_bytes_[q], fmt::format("queue {}: Q_TX_BYTES", q));
      check(b.read(rm::Q_DEPTH::offset(q)) == 0, fmt::format("queue {}: Q_DEPTH not 0 after drain", q));
      check(b.read64(rm::Q_LAT_COUNT::offset(q)) == delivered, fmt::format("queue {}: Q_LAT_COUNT", q));
    }
    check(b.read64(rm::PRS_FRAMES::offset(0)) == frames_per_dir, "PRS_FRAMES[TX]");
    check(b.read64(rm::PRS_FRAMES::offset(1)) == frames_per_dir, "PRS_FRAMES[RX]");
    check(delivered_total > frames_per_dir, "most frames delivered");
    std::uint64_t crypto_tx = 0, crypto_rx = 0;
    for (unsigned t : crypto_tenants) {
      crypto_tx += tx.delivered_[2 * t] + tx.delivered_[2 * t + 1];
      crypto_rx += rx.delivered_[2 * t] + rx.delivered_[2 * t + 1];
    }
    std::uint64_t cr_tx = 0, cr_rx = 0;
    for (unsigned t = 0; t < kT; ++t) {
      cr_tx += b.read64(rm::CR_TX_PKTS::offset(t));
      cr_rx += b.read64(rm::CR_RX_PKTS::offset(t));
      check(b.read(rm::CR_SLOTS_HELD::offset(t)) == 0, "slots held after drain");
    }
    check(cr_tx == crypto_tx, fmt::format("CR_TX_PKTS {} but {} encrypted frames left", cr_tx, crypto_tx));
    check(cr_rx == crypto_rx, fmt::format("CR_RX_PKTS {} but {} decrypted frames left", cr_rx, crypto_rx));
    check(crypto_tx > 0 && crypto_rx > 0, "crypto frames were part of the run");
  });
  INFO(name);
}


}  // namespace nicsched::coretest
