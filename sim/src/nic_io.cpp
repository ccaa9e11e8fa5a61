// The run metrics' narrow telemetry read through the generated register map.
#include "nic_io.hpp"

#include "nicsched/regmap.hpp"

namespace nicsched::sim::nic_io {

namespace rm = nicsched::regmap;

MetricCounters metric_counters(drivers::RegisterBus& bus, const host::Capabilities& caps) {
  bus.write32(rm::SNAPSHOT::kOffset, rm::SNAPSHOT::GO.set(0, 1));
  MetricCounters m;
  m.cycle = bus.read64(rm::CYCLE::kOffset);
  m.drop_pkts.resize(caps.queues());
  for (std::uint32_t q = 0; q < caps.queues(); ++q) m.drop_pkts[q] = bus.read64(rm::Q_DROP_PKTS::offset(q));
  m.crypto_busy.resize(caps.tenants);
  m.crypto_wait.resize(caps.tenants);
  for (std::uint32_t i = 0; i < caps.tenants; ++i) {
    m.crypto_busy[i] = bus.read64(rm::CR_TX_BUSY::offset(i)) + bus.read64(rm::CR_RX_BUSY::offset(i));
    m.crypto_wait[i] = bus.read64(rm::CR_TX_WAIT::offset(i)) + bus.read64(rm::CR_RX_WAIT::offset(i));
  }
  m.spoofed.resize(caps.sources);
  for (std::uint32_t s = 0; s < caps.sources; ++s) m.spoofed[s] = bus.read64(rm::SRC_SPOOF::offset(s));
  return m;
}

}  // namespace nicsched::sim::nic_io
