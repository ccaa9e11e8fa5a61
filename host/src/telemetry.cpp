#include "nicsched/host/telemetry.hpp"

#include <fmt/format.h>

#include "nicsched/host/errors.hpp"
#include "nicsched/regmap.hpp"

namespace nicsched::host {

namespace rm = nicsched::regmap;

namespace {

// Words [first, last] of one element of an array block, located by register names.
struct Span {
  std::uint32_t base = 0;   // byte address of the range's first word
  std::uint32_t words = 0;  // words in the range
  std::size_t at = 0;       // index of the first word in the snapshot buffer
};

constexpr std::uint32_t words_through(std::uint32_t first_offset, std::uint32_t last_offset, std::uint32_t last_width) {
  return (last_offset + last_width / 8 - first_offset) / 4;
}

// Field values, by register base address relative to the range.
class Words {
 public:
  Words(const std::vector<std::uint32_t>& buf, const Span& s) : buf_(buf), s_(s) {}
  [[nodiscard]] std::uint32_t w32(std::uint32_t reg_base, std::uint32_t element_base) const {
    return buf_[s_.at + (reg_base - element_base) / 4];
  }
  [[nodiscard]] std::uint64_t w64(std::uint32_t reg_base, std::uint32_t element_base) const {
    return static_cast<std::uint64_t>(w32(reg_base, element_base)) |
           (static_cast<std::uint64_t>(w32(reg_base + 4, element_base)) << 32);
  }

 private:
  const std::vector<std::uint32_t>& buf_;
  const Span& s_;
};

}  // namespace

Telemetry read_snapshot(drivers::RegisterBus& bus, const Capabilities& caps) {
  // The ranges: global counters, parser (2), crypto (per tenant), queues (per queue).
  constexpr std::uint32_t kGlobalFirst = rm::CONFIG_GEN::kOffset;
  constexpr std::uint32_t kGlobalWords = words_through(rm::CONFIG_GEN::kOffset, rm::CRYPTO_BUSY::kOffset, 32);
  constexpr std::uint32_t kParserWords = words_through(rm::PRS_FRAMES::kBase, rm::PRS_BUF_DROP::kBase, 64);
  constexpr std::uint32_t kCryptoWords = words_through(rm::CR_TX_BUSY::kBase, rm::CR_SLOTS_HELD::kBase, 32);
  constexpr std::uint32_t kQueueWords = words_through(rm::Q_ENQ_PKTS::kBase, rm::Q_DEPTH_PKTS::kBase, 32);

  // GLOBAL from CONFIG_GEN to CRYPTO_BUSY holds only mapped registers except the words
  // between them; read only what exists: CONFIG_GEN, CYCLE (2 words), CRYPTO_BUSY.
  std::vector<drivers::BlockRange> ranges;
  std::vector<Span> spans;
  std::size_t total = 0;
  auto add = [&](std::uint32_t base, std::uint32_t words) {
    ranges.push_back({base, words});
    spans.push_back({base, words, total});
    total += words;
  };
  static_assert(kGlobalWords > 0);
  add(kGlobalFirst, 1);
  add(rm::CYCLE::kOffset, 2);
  add(rm::CRYPTO_BUSY::kOffset, 1);
  for (std::uint32_t d = 0; d < rm::PRS_FRAMES::kMaxCount; ++d) add(rm::PRS_FRAMES::offset(d), kParserWords);
  for (std::uint32_t t = 0; t < caps.tenants; ++t) add(rm::CR_TX_BUSY::offset(t), kCryptoWords);
  for (std::uint32_t q = 0; q < caps.queues(); ++q) add(rm::Q_ENQ_PKTS::offset(q), kQueueWords);

  std::vector<std::uint32_t> buf(total);
  bus.write_then_read(rm::SNAPSHOT::kOffset, rm::SNAPSHOT::GO.set(0, 1), ranges, buf);

  Telemetry t;
  std::size_t i = 0;
  t.config_gen = rm::CONFIG_GEN::COUNT.get(buf[spans[i++].at]);
  {
    const Span& s = spans[i++];
    t.cycle = static_cast<std::uint64_t>(buf[s.at]) | (static_cast<std::uint64_t>(buf[s.at + 1]) << 32);
  }
  t.crypto_busy_slots = rm::CRYPTO_BUSY::SLOTS.get(buf[spans[i++].at]);
  for (std::uint32_t d = 0; d < rm::PRS_FRAMES::kMaxCount; ++d) {
    const Span& s = spans[i++];
    const Words w(buf, s);
    const std::uint32_t e = rm::PRS_FRAMES::offset(d);
    ParserCounters& p = t.parser.at(d);
    p.frames = w.w64(rm::PRS_FRAMES::offset(d), e);
    p.runt = w.w64(rm::PRS_RUNT::offset(d), e);
    p.truncated = w.w64(rm::PRS_TRUNCATED::offset(d), e);
    p.bad_ihl = w.w64(rm::PRS_BAD_IHL::offset(d), e);
    p.unknown_etype = w.w64(rm::PRS_UNKNOWN_ETYPE::offset(d), e);
    p.buf_drop = w.w64(rm::PRS_BUF_DROP::offset(d), e);
  }
  t.crypto.resize(caps.tenants);
  for (std::uint32_t n = 0; n < caps.tenants; ++n) {
    const Words w(buf, spans[i++]);
    const std::uint32_t e = rm::CR_TX_BUSY::offset(n);
    CryptoCounters& c = t.crypto[n];
    c.tx_busy = w.w64(rm::CR_TX_BUSY::offset(n), e);
    c.tx_wait = w.w64(rm::CR_TX_WAIT::offset(n), e);
    c.tx_bytes = w.w64(rm::CR_TX_BYTES::offset(n), e);
    c.tx_pkts = w.w64(rm::CR_TX_PKTS::offset(n), e);
    c.rx_busy = w.w64(rm::CR_RX_BUSY::offset(n), e);
    c.rx_wait = w.w64(rm::CR_RX_WAIT::offset(n), e);
    c.rx_bytes = w.w64(rm::CR_RX_BYTES::offset(n), e);
    c.rx_pkts = w.w64(rm::CR_RX_PKTS::offset(n), e);
    c.slots_held = rm::CR_SLOTS_HELD::COUNT.get(w.w32(rm::CR_SLOTS_HELD::offset(n), e));
  }
  t.queues.resize(caps.queues());
  for (std::uint32_t q = 0; q < caps.queues(); ++q) {
    const Words w(buf, spans[i++]);
    const std::uint32_t e = rm::Q_ENQ_PKTS::offset(q);
    QueueCounters& c = t.queues[q];
    c.enq_pkts = w.w64(rm::Q_ENQ_PKTS::offset(q), e);
    c.enq_bytes = w.w64(rm::Q_ENQ_BYTES::offset(q), e);
    c.tx_pkts = w.w64(rm::Q_TX_PKTS::offset(q), e);
    c.tx_bytes = w.w64(rm::Q_TX_BYTES::offset(q), e);
    c.drop_pkts = w.w64(rm::Q_DROP_PKTS::offset(q), e);
    c.drop_bytes = w.w64(rm::Q_DROP_BYTES::offset(q), e);
    c.lat_sum = w.w64(rm::Q_LAT_SUM::offset(q), e);
    c.lat_count = w.w64(rm::Q_LAT_COUNT::offset(q), e);
    c.lat_max = rm::Q_LAT_MAX::CYCLES.get(w.w32(rm::Q_LAT_MAX::offset(q), e));
    c.depth_bytes = rm::Q_DEPTH::BYTES.get(w.w32(rm::Q_DEPTH::offset(q), e));
    c.depth_hwm = rm::Q_DEPTH_HWM::BYTES.get(w.w32(rm::Q_DEPTH_HWM::offset(q), e));
    c.depth_pkts = rm::Q_DEPTH_PKTS::COUNT.get(w.w32(rm::Q_DEPTH_PKTS::offset(q), e));
  }
  return t;
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
