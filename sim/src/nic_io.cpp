// Register-level configuration and telemetry through the generated register map.
#include "nic_io.hpp"

#include <fmt/format.h>

#include "nicsched/host/policy.hpp"
#include "nicsched/regmap.hpp"
#include "nicsched/sim/error.hpp"

namespace nicsched::sim::nic_io {

namespace rm = nicsched::regmap;

host::Capabilities discover(drivers::RegisterBus& bus) {
  host::Capabilities c;
  c.id = bus.read32(rm::ID::kOffset);
  if (c.id != rm::ID::kReset) {
    throw SimError(fmt::format("{}: ID reads 0x{:08X}, not a nicsched NIC", bus.describe(), c.id));
  }
  const std::uint32_t v = bus.read32(rm::VERSION::kOffset);
  c.version_major = rm::VERSION::MAJOR.get(v);
  c.version_minor = rm::VERSION::MINOR.get(v);
  const std::uint32_t c0 = bus.read32(rm::CAPS0::kOffset);
  c.tenants = rm::CAPS0::TENANTS.get(c0);
  c.classes = rm::CAPS0::CLASSES.get(c0);
  c.prio_levels = rm::CAPS0::PRIO_LEVELS.get(c0);
  c.crypto_slots = rm::CAPS0::CRYPTO_SLOTS.get(c0);
  c.cls_entries = rm::CAPS0::CLS_ENTRIES.get(c0);
  const std::uint32_t c1 = bus.read32(rm::CAPS1::kOffset);
  c.data_bytes = rm::CAPS1::DATA_BYTES.get(c1);
  c.buffer_kib = rm::CAPS1::BUFFER_KIB.get(c1);
  return c;
}

void apply(drivers::RegisterBus& bus, const host::Capabilities& caps, const host::Policy& p) {
  if (p.tenants.size() != caps.tenants) {
    throw SimError(fmt::format("policy has {} tenants, the NIC {}", p.tenants.size(), caps.tenants));
  }
  const std::size_t n_entries = p.classifier ? p.classifier->size() : 0;
  if (n_entries > caps.cls_entries) {
    throw SimError(fmt::format("policy has {} classifier entries, the NIC {}", n_entries, caps.cls_entries));
  }
  std::uint32_t ctrl = 0;
  ctrl = rm::CTRL::ENABLE.set(ctrl, p.enable ? 1U : 0U);
  ctrl = rm::CTRL::ARB_MODE.set(ctrl, static_cast<std::uint32_t>(p.arb_mode));
  bus.write32(rm::CTRL::kOffset, ctrl);
  std::uint32_t eng = 0;
  eng = rm::CRYPTO_ENGINE::BYTES_PER_CYCLE.set(eng, p.crypto_bytes_per_cycle);
  eng = rm::CRYPTO_ENGINE::LATENCY.set(eng, p.crypto_latency);
  bus.write32(rm::CRYPTO_ENGINE::kOffset, eng);
  for (std::uint32_t i = 0; i < caps.tenants; ++i) {
    const host::TenantPolicy& t = p.tenants[i];
    if (t.priority >= caps.prio_levels) {
      throw SimError(fmt::format("tenant {}: priority {} beyond the NIC's {} levels", i, t.priority, caps.prio_levels));
    }
    std::uint32_t tc = 0;
    tc = rm::T_CTRL::ENABLE.set(tc, t.enable ? 1U : 0U);
    tc = rm::T_CTRL::PRIORITY.set(tc, t.priority);
    tc = rm::T_CTRL::CRYPTO_QUOTA.set(tc, t.crypto_quota);
    tc = rm::T_CTRL::RATE_EN.set(tc, t.rate_limited ? 1U : 0U);
    bus.write32(rm::T_CTRL::offset(i), tc);
    bus.write32(rm::T_WEIGHT::offset(i), rm::T_WEIGHT::QUANTUM.set(0, t.weight));
    bus.write32(rm::T_RATE::offset(i), rm::T_RATE::BYTES_PER_KCYCLE.set(0, t.rate_bytes_per_kcycle));
    bus.write32(rm::T_BURST::offset(i), rm::T_BURST::BYTES.set(0, t.burst_bytes));
    bus.write32(rm::T_QLIMIT_CTRL::offset(i), rm::T_QLIMIT_CTRL::BYTES.set(0, t.qlimit_control_bytes));
    bus.write32(rm::T_QLIMIT_BULK::offset(i), rm::T_QLIMIT_BULK::BYTES.set(0, t.qlimit_bulk_bytes));
  }
  if (p.classifier) {
    for (std::uint32_t e = 0; e < caps.cls_entries; ++e) {
      if (e >= p.classifier->size()) {
        bus.write32(rm::CLS_ACTION::offset(e), 0);  // invalid
        continue;
      }
      const host::ClassifierEntry& c = (*p.classifier)[e];
      std::uint32_t vlan = 0;
      vlan = rm::CLS_VLAN::VALUE.set(vlan, c.vlan);
      vlan = rm::CLS_VLAN::MASK.set(vlan, c.vlan_mask);
      std::uint32_t dp = 0;
      dp = rm::CLS_DSCP_PROTO::DSCP.set(dp, c.dscp);
      dp = rm::CLS_DSCP_PROTO::DSCP_MASK.set(dp, c.dscp_mask);
      dp = rm::CLS_DSCP_PROTO::PROTO.set(dp, c.proto);
      dp = rm::CLS_DSCP_PROTO::PROTO_MASK.set(dp, c.proto_mask);
      std::uint32_t port = 0;
      port = rm::CLS_PORT::VALUE.set(port, c.port);
      port = rm::CLS_PORT::MASK.set(port, c.port_mask);
      std::uint32_t act = 0;
      act = rm::CLS_ACTION::VALID.set(act, 1);
      act = rm::CLS_ACTION::TENANT.set(act, c.action.tenant);
      act = rm::CLS_ACTION::CLASS.set(act, c.action.cls);
      act = rm::CLS_ACTION::CRYPTO_OP.set(act, static_cast<std::uint32_t>(c.action.crypto_op));
      bus.write32(rm::CLS_VLAN::offset(e), vlan);
      bus.write32(rm::CLS_DSCP_PROTO::offset(e), dp);
      bus.write32(rm::CLS_PORT::offset(e), port);
      bus.write32(rm::CLS_ACTION::offset(e), act);
    }
  }
  if (p.default_action) {
    std::uint32_t d = 0;
    d = rm::DEFAULT_ACTION::TENANT.set(d, p.default_action->tenant);
    d = rm::DEFAULT_ACTION::CLASS.set(d, p.default_action->cls);
    d = rm::DEFAULT_ACTION::CRYPTO_OP.set(d, static_cast<std::uint32_t>(p.default_action->crypto_op));
    bus.write32(rm::DEFAULT_ACTION::kOffset, d);
  }
  bus.write32(rm::COMMIT::kOffset, rm::COMMIT::GO.set(0, 1));
}

host::Policy load_policy(const std::filesystem::path& file, const host::Capabilities& caps) {
  return host::load_policy(file.string(), caps);
}

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
  return m;
}

}  // namespace nicsched::sim::nic_io
