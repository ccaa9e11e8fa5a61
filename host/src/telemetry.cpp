#include "nicsched/host/telemetry.hpp"

#include <fmt/format.h>

#include "gathered.hpp"
#include "nicsched/host/errors.hpp"
#include "nicsched/nic/codec.hpp"
#include "nicsched/regmap.hpp"

namespace nicsched::host {

namespace rm = nicsched::regmap;

namespace {

constexpr std::uint32_t words_through(std::uint32_t first_offset, std::uint32_t last_offset, std::uint32_t last_width) {
  return (last_offset + last_width / 8 - first_offset) / 4;
}

}  // namespace

Telemetry read_snapshot(drivers::RegisterBus& bus, const Capabilities& caps) {
  // One gather behind the SNAPSHOT write, in address order: CONFIG_GEN, CYCLE (2 words),
  // CRYPTO_BUSY (GLOBAL holds other registers between them), then each element of PARSER,
  // CRYPTO_STATS and QUEUE_STATS from its first register to its last.
  constexpr std::uint32_t kParserWords = words_through(rm::PRS_FRAMES::kBase, rm::PRS_BUF_DROP::kBase, 64);
  constexpr std::uint32_t kCryptoWords = words_through(rm::CR_TX_BUSY::kBase, rm::CR_SLOTS_HELD::kBase, 32);
  constexpr std::uint32_t kQueueWords = words_through(rm::Q_ENQ_PKTS::kBase, rm::Q_DEPTH_PKTS::kBase, 32);
  Gathered g;
  g.add(rm::CONFIG_GEN::kOffset, 1);
  g.add(rm::CYCLE::kOffset, 2);
  g.add(rm::CRYPTO_BUSY::kOffset, 1);
  for (std::uint32_t d = 0; d < rm::PRS_FRAMES::kMaxCount; ++d) g.add(rm::PRS_FRAMES::offset(d), kParserWords);
  for (std::uint32_t t = 0; t < caps.tenants; ++t) g.add(rm::CR_TX_BUSY::offset(t), kCryptoWords);
  for (std::uint32_t q = 0; q < caps.queues(); ++q) g.add(rm::Q_ENQ_PKTS::offset(q), kQueueWords);
  for (std::uint32_t i = 0; i < caps.sources; ++i) g.add(rm::SRC_SPOOF::offset(i), 2);
  bus.write_then_read(rm::SNAPSHOT::kOffset, rm::SNAPSHOT::GO.set(0, 1), g.ranges(), g.words());
  return nic::decode_telemetry([&g](std::uint32_t addr) { return g.at(addr); }, caps.tenants, {.sources = caps.sources});
}

namespace {
std::uint64_t delta(std::uint64_t before, std::uint64_t after) { return after >= before ? after - before : after; }
double ratio(double num, double den) { return den > 0 ? num / den : 0.0; }
}  // namespace

Rates compute_rates(const Telemetry& before, const Telemetry& after, const Capabilities& caps, double clock_hz) {
  if (before.queues.size() != caps.queues() || after.queues.size() != caps.queues() ||
      before.crypto.size() != caps.tenants || after.crypto.size() != caps.tenants) {
    throw HostError("compute_rates: snapshots do not match the capabilities (tenant/queue counts differ)");
  }
  if (clock_hz <= 0) throw HostError(fmt::format("compute_rates: clock {} Hz is not positive", clock_hz));
  Rates r;
  r.cycles = delta(before.cycle, after.cycle);
  r.seconds = static_cast<double>(r.cycles) / clock_hz;
  r.tenants.resize(caps.tenants);
  double total_tx_bytes = 0;
  std::vector<double> tx_bytes(caps.tenants, 0.0);
  for (std::uint32_t t = 0; t < caps.tenants; ++t) {
    TenantRates& tr = r.tenants[t];
    double tx = 0, txp = 0, enq = 0, drops = 0;
    double lat[2] = {0, 0};
    for (std::uint32_t cls = 0; cls < caps.classes; ++cls) {
      const QueueCounters& a = before.queues[t * caps.classes + cls];
      const QueueCounters& b = after.queues[t * caps.classes + cls];
      tx += static_cast<double>(delta(a.tx_bytes, b.tx_bytes));
      txp += static_cast<double>(delta(a.tx_pkts, b.tx_pkts));
      enq += static_cast<double>(delta(a.enq_bytes, b.enq_bytes));
      drops += static_cast<double>(delta(a.drop_pkts, b.drop_pkts));
      if (cls < 2) {
        lat[cls] = ratio(static_cast<double>(delta(a.lat_sum, b.lat_sum)),
                         static_cast<double>(delta(a.lat_count, b.lat_count)));
      }
    }
    const CryptoCounters& ca = before.crypto[t];
    const CryptoCounters& cb = after.crypto[t];
    const double wait = static_cast<double>(delta(ca.tx_wait, cb.tx_wait) + delta(ca.rx_wait, cb.rx_wait));
    const double cbytes = static_cast<double>(delta(ca.tx_bytes, cb.tx_bytes) + delta(ca.rx_bytes, cb.rx_bytes));
    tr.tx_gbps = ratio(tx * 8, r.seconds) / 1e9;
    tr.tx_pps = ratio(txp, r.seconds);
    tr.enq_gbps = ratio(enq * 8, r.seconds) / 1e9;
    tr.drop_pps = ratio(drops, r.seconds);
    tr.control_lat_cycles = lat[0];
    tr.bulk_lat_cycles = lat[1];
    tr.crypto_wait_frac = ratio(wait, static_cast<double>(r.cycles));
    tr.crypto_gbps = ratio(cbytes * 8, r.seconds) / 1e9;
    tx_bytes[t] = tx;
    total_tx_bytes += tx;
  }
  for (std::uint32_t t = 0; t < caps.tenants; ++t) r.tenants[t].tx_share = ratio(tx_bytes[t], total_tx_bytes);
  r.link_gbps = ratio(total_tx_bytes * 8, r.seconds) / 1e9;
  return r;
}

}  // namespace nicsched::host
