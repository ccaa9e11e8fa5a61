// Config <-> register map, through the generated header (no address written by hand).
#include "nicsched/refmodel/registers.hpp"

#include "nicsched/regmap.hpp"

namespace nicsched::refmodel {
namespace rm = nicsched::regmap;

std::vector<RegWrite> config_writes(const Config& cfg, const Params& p) {
  cfg.validate(p);
  std::vector<RegWrite> w;
  std::uint32_t ctrl = 0;
  ctrl = rm::CTRL::ENABLE.set(ctrl, cfg.enable ? 1U : 0U);
  ctrl = rm::CTRL::ARB_MODE.set(ctrl, static_cast<std::uint32_t>(cfg.mode));
  ctrl = rm::CTRL::BAD_TO_DEFAULT.set(ctrl, cfg.bad_to_default ? 1U : 0U);
  w.push_back({rm::CTRL::kOffset, ctrl});
  std::uint32_t eng = 0;
  eng = rm::CRYPTO_ENGINE::BYTES_PER_CYCLE.set(eng, cfg.engine_bytes_per_cycle);
  eng = rm::CRYPTO_ENGINE::LATENCY.set(eng, cfg.engine_latency);
  w.push_back({rm::CRYPTO_ENGINE::kOffset, eng});
  std::uint32_t def = 0;
  def = rm::DEFAULT_ACTION::TENANT.set(def, cfg.default_action.tenant);
  def = rm::DEFAULT_ACTION::CLASS.set(def, cfg.default_action.cls);
  def = rm::DEFAULT_ACTION::CRYPTO_OP.set(def, static_cast<std::uint32_t>(cfg.default_action.op));
  w.push_back({rm::DEFAULT_ACTION::kOffset, def});
  for (std::uint32_t t = 0; t < static_cast<std::uint32_t>(p.num_tenants); ++t) {
    const TenantConfig& tc = cfg.tenants[t];
    std::uint32_t tctrl = 0;
    tctrl = rm::T_CTRL::ENABLE.set(tctrl, tc.enable ? 1U : 0U);
    tctrl = rm::T_CTRL::PRIORITY.set(tctrl, tc.priority);
    tctrl = rm::T_CTRL::CRYPTO_QUOTA.set(tctrl, tc.crypto_quota);
    tctrl = rm::T_CTRL::RATE_EN.set(tctrl, tc.rate_en ? 1U : 0U);
    w.push_back({rm::T_CTRL::offset(t), tctrl});
    w.push_back({rm::T_WEIGHT::offset(t), rm::T_WEIGHT::QUANTUM.set(0, tc.quantum)});
    w.push_back({rm::T_RATE::offset(t), rm::T_RATE::BYTES_PER_KCYCLE.set(0, tc.rate_bytes_per_kcycle)});
    w.push_back({rm::T_BURST::offset(t), rm::T_BURST::BYTES.set(0, tc.burst_bytes)});
    w.push_back({rm::T_QLIMIT_CTRL::offset(t), rm::T_QLIMIT_CTRL::BYTES.set(0, tc.qlimit_ctrl)});
    w.push_back({rm::T_QLIMIT_BULK::offset(t), rm::T_QLIMIT_BULK::BYTES.set(0, tc.qlimit_bulk)});
  }
  for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(p.num_cls_entries); ++i) {
    const ClsEntry& e = cfg.classifier[i];
    std::uint32_t vlan = 0;
    vlan = rm::CLS_VLAN::VALUE.set(vlan, e.vlan);
    vlan = rm::CLS_VLAN::MASK.set(vlan, e.vlan_mask);
    std::uint32_t dp = 0;
    dp = rm::CLS_DSCP_PROTO::DSCP.set(dp, e.dscp);
    dp = rm::CLS_DSCP_PROTO::DSCP_MASK.set(dp, e.dscp_mask);
    dp = rm::CLS_DSCP_PROTO::PROTO.set(dp, e.proto);
    dp = rm::CLS_DSCP_PROTO::PROTO_MASK.set(dp, e.proto_mask);
    std::uint32_t port = 0;
    port = rm::CLS_PORT::VALUE.set(port, e.port);
    port = rm::CLS_PORT::MASK.set(port, e.port_mask);
    std::uint32_t act = 0;
    act = rm::CLS_ACTION::VALID.set(act, e.valid ? 1U : 0U);
    act = rm::CLS_ACTION::TENANT.set(act, e.action.tenant);
    act = rm::CLS_ACTION::CLASS.set(act, e.action.cls);
    act = rm::CLS_ACTION::CRYPTO_OP.set(act, static_cast<std::uint32_t>(e.action.op));
    w.push_back({rm::CLS_VLAN::offset(i), vlan});
    w.push_back({rm::CLS_DSCP_PROTO::offset(i), dp});
    w.push_back({rm::CLS_PORT::offset(i), port});
    w.push_back({rm::CLS_ACTION::offset(i), act});
  }
  return w;
}

Counters read_counters(const std::function<std::uint32_t(std::uint32_t)>& read32, const Params& p) {
  auto r64 = [&](std::uint32_t addr) {
    const std::uint64_t lo = read32(addr);
    const std::uint64_t hi = read32(addr + 4);
    return (hi << 32) | lo;
  };
  Counters c;
  c.cycle = r64(rm::CYCLE::kOffset);
  c.config_gen = read32(rm::CONFIG_GEN::kOffset);
  c.crypto_busy = rm::CRYPTO_BUSY::SLOTS.get(read32(rm::CRYPTO_BUSY::kOffset));
  const std::uint32_t status = read32(rm::STATUS::kOffset);
  c.tx_buf_full = rm::STATUS::TX_BUF_FULL.get(status) != 0;
  c.rx_buf_full = rm::STATUS::RX_BUF_FULL.get(status) != 0;
  for (std::uint32_t d = 0; d < 2; ++d) {
    ParserCounters& pc = c.parser[d];
    pc.frames = r64(rm::PRS_FRAMES::offset(d));
    pc.runt = r64(rm::PRS_RUNT::offset(d));
    pc.truncated = r64(rm::PRS_TRUNCATED::offset(d));
    pc.bad_ihl = r64(rm::PRS_BAD_IHL::offset(d));
    pc.unknown_etype = r64(rm::PRS_UNKNOWN_ETYPE::offset(d));
    pc.buf_drop = r64(rm::PRS_BUF_DROP::offset(d));
  }
  const auto nt = static_cast<std::uint32_t>(p.num_tenants);
  c.crypto.resize(nt);
  for (std::uint32_t t = 0; t < nt; ++t) {
    CryptoCounters& cc = c.crypto[t];
    cc.tx_busy = r64(rm::CR_TX_BUSY::offset(t));
    cc.tx_wait = r64(rm::CR_TX_WAIT::offset(t));
    cc.tx_bytes = r64(rm::CR_TX_BYTES::offset(t));
    cc.tx_pkts = r64(rm::CR_TX_PKTS::offset(t));
    cc.rx_busy = r64(rm::CR_RX_BUSY::offset(t));
    cc.rx_wait = r64(rm::CR_RX_WAIT::offset(t));
    cc.rx_bytes = r64(rm::CR_RX_BYTES::offset(t));
    cc.rx_pkts = r64(rm::CR_RX_PKTS::offset(t));
    cc.slots_held = read32(rm::CR_SLOTS_HELD::offset(t));
  }
  c.queues.resize(nt * kNumClasses);
  for (std::uint32_t q = 0; q < nt * kNumClasses; ++q) {
    QueueCounters& qc = c.queues[q];
    qc.enq_pkts = r64(rm::Q_ENQ_PKTS::offset(q));
    qc.enq_bytes = r64(rm::Q_ENQ_BYTES::offset(q));
    qc.tx_pkts = r64(rm::Q_TX_PKTS::offset(q));
    qc.tx_bytes = r64(rm::Q_TX_BYTES::offset(q));
    qc.drop_pkts = r64(rm::Q_DROP_PKTS::offset(q));
    qc.drop_bytes = r64(rm::Q_DROP_BYTES::offset(q));
    qc.lat_sum = r64(rm::Q_LAT_SUM::offset(q));
    qc.lat_count = r64(rm::Q_LAT_COUNT::offset(q));
    qc.lat_max = read32(rm::Q_LAT_MAX::offset(q));
    qc.depth_bytes = read32(rm::Q_DEPTH::offset(q));
    qc.depth_hwm = read32(rm::Q_DEPTH_HWM::offset(q));
    qc.depth_pkts = read32(rm::Q_DEPTH_PKTS::offset(q));
  }
  return c;
}

}  // namespace nicsched::refmodel
