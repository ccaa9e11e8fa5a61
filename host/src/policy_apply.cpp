// Policy <-> registers: encode into shadow writes, apply with one COMMIT, read back.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/regmap.hpp"

namespace nicsched::host {

namespace rm = nicsched::regmap;

namespace {

struct NamedWrite {
  drivers::RegWrite w;
  std::string name;  // "T_WEIGHT[3]"
};

std::uint32_t b(bool v) { return v ? 1U : 0U; }

std::uint32_t encode_action_default(const ClassifierAction& a) {
  std::uint32_t v = 0;
  v = rm::DEFAULT_ACTION::TENANT.set(v, a.tenant);
  v = rm::DEFAULT_ACTION::CLASS.set(v, a.cls);
  v = rm::DEFAULT_ACTION::CRYPTO_OP.set(v, static_cast<std::uint32_t>(a.crypto_op));
  return v;
}

std::vector<NamedWrite> encode(const Policy& p, const Capabilities& caps, std::uint32_t ctrl_now) {
  std::vector<NamedWrite> out;
  auto add = [&](std::uint32_t addr, std::uint32_t value, std::string name) { out.push_back({{addr, value}, std::move(name)}); };

  // CTRL fields the policy does not describe (BAD_TO_DEFAULT) keep their current value.
  std::uint32_t ctrl = ctrl_now;
  ctrl = rm::CTRL::ENABLE.set(ctrl, b(p.enable));
  ctrl = rm::CTRL::ARB_MODE.set(ctrl, static_cast<std::uint32_t>(p.arb_mode));
  add(rm::CTRL::kOffset, ctrl, "CTRL");
  std::uint32_t ce = 0;
  ce = rm::CRYPTO_ENGINE::BYTES_PER_CYCLE.set(ce, p.crypto_bytes_per_cycle);
  ce = rm::CRYPTO_ENGINE::LATENCY.set(ce, p.crypto_latency);
  add(rm::CRYPTO_ENGINE::kOffset, ce, "CRYPTO_ENGINE");
  if (p.default_action) add(rm::DEFAULT_ACTION::kOffset, encode_action_default(*p.default_action), "DEFAULT_ACTION");

  for (std::uint32_t t = 0; t < caps.tenants; ++t) {
    const TenantPolicy& tp = p.tenants[t];
    std::uint32_t tc = 0;
    tc = rm::T_CTRL::ENABLE.set(tc, b(tp.enable));
    tc = rm::T_CTRL::PRIORITY.set(tc, tp.priority);
    tc = rm::T_CTRL::CRYPTO_QUOTA.set(tc, tp.crypto_quota);
    tc = rm::T_CTRL::RATE_EN.set(tc, b(tp.rate_limited));
    add(rm::T_CTRL::offset(t), tc, fmt::format("T_CTRL[{}]", t));
    add(rm::T_WEIGHT::offset(t), rm::T_WEIGHT::QUANTUM.set(0, tp.weight), fmt::format("T_WEIGHT[{}]", t));
    add(rm::T_RATE::offset(t), rm::T_RATE::BYTES_PER_KCYCLE.set(0, tp.rate_bytes_per_kcycle), fmt::format("T_RATE[{}]", t));
    add(rm::T_BURST::offset(t), rm::T_BURST::BYTES.set(0, tp.burst_bytes), fmt::format("T_BURST[{}]", t));
    add(rm::T_QLIMIT_CTRL::offset(t), rm::T_QLIMIT_CTRL::BYTES.set(0, tp.qlimit_control_bytes),
        fmt::format("T_QLIMIT_CTRL[{}]", t));
    add(rm::T_QLIMIT_BULK::offset(t), rm::T_QLIMIT_BULK::BYTES.set(0, tp.qlimit_bulk_bytes),
        fmt::format("T_QLIMIT_BULK[{}]", t));
  }
  if (p.classifier) {
    for (std::uint32_t i = 0; i < caps.cls_entries; ++i) {
      ClassifierEntry e;
      bool valid = false;
      if (i < p.classifier->size()) {
        e = (*p.classifier)[i];
        valid = true;
      }
      std::uint32_t vlan = 0, dp = 0, port = 0, act = 0;
      if (valid) {
        vlan = rm::CLS_VLAN::MASK.set(rm::CLS_VLAN::VALUE.set(0, e.vlan), e.vlan_mask);
        dp = rm::CLS_DSCP_PROTO::DSCP.set(dp, e.dscp);
        dp = rm::CLS_DSCP_PROTO::DSCP_MASK.set(dp, e.dscp_mask);
        dp = rm::CLS_DSCP_PROTO::PROTO.set(dp, e.proto);
        dp = rm::CLS_DSCP_PROTO::PROTO_MASK.set(dp, e.proto_mask);
        port = rm::CLS_PORT::MASK.set(rm::CLS_PORT::VALUE.set(0, e.port), e.port_mask);
        act = rm::CLS_ACTION::VALID.set(act, 1);
        act = rm::CLS_ACTION::TENANT.set(act, e.action.tenant);
        act = rm::CLS_ACTION::CLASS.set(act, e.action.cls);
        act = rm::CLS_ACTION::CRYPTO_OP.set(act, static_cast<std::uint32_t>(e.action.crypto_op));
      }
      add(rm::CLS_VLAN::offset(i), vlan, fmt::format("CLS_VLAN[{}]", i));
      add(rm::CLS_DSCP_PROTO::offset(i), dp, fmt::format("CLS_DSCP_PROTO[{}]", i));
      add(rm::CLS_PORT::offset(i), port, fmt::format("CLS_PORT[{}]", i));
      add(rm::CLS_ACTION::offset(i), act, fmt::format("CLS_ACTION[{}]", i));
    }
  }
  return out;
}

}  // namespace

ApplyResult apply_policy(drivers::RegisterBus& bus, const Capabilities& caps, const Policy& policy) {
  validate_policy(policy, caps);  // before anything is written
  const std::uint32_t ctrl_now = bus.read32(rm::CTRL::kOffset);
  const std::uint32_t gen_before = rm::CONFIG_GEN::COUNT.get(bus.read32(rm::CONFIG_GEN::kOffset));
  const std::vector<NamedWrite> named = encode(policy, caps, ctrl_now);
  std::vector<drivers::RegWrite> writes;
  writes.reserve(named.size());
  for (const NamedWrite& n : named) writes.push_back(n.w);

  try {
    bus.write_batch(writes);
  } catch (const drivers::BusError& e) {
    throw drivers::BusError(fmt::format("{} (no COMMIT was written: the active configuration is unchanged, "
                                        "but shadow registers may hold part of the new policy)", e.what()));
  }
  bus.write32(rm::COMMIT::kOffset, rm::COMMIT::GO.set(0, 1));

  // Read back: every shadow register we wrote, in one gather where the transport can.
  std::vector<drivers::BlockRange> ranges;
  for (const auto& w : writes) ranges.push_back({w.addr, 1});
  std::vector<std::uint32_t> back(writes.size());
  bus.read_ranges(ranges, back);
  for (std::size_t i = 0; i < writes.size(); ++i) {
    if (back[i] != writes[i].value) {
      throw ReadBackMismatch(fmt::format("{}: read-back of {} at 0x{:04x}: wrote 0x{:08x}, read 0x{:08x}",
                                         bus.describe(), named[i].name, writes[i].addr, writes[i].value, back[i]));
    }
  }
  const std::uint32_t gen_after = rm::CONFIG_GEN::COUNT.get(bus.read32(rm::CONFIG_GEN::kOffset));
  if (gen_after == gen_before) {
    throw ReadBackMismatch(fmt::format("{}: COMMIT was not applied: CONFIG_GEN stayed at {}", bus.describe(), gen_after));
  }
  if (gen_after != gen_before + 1) {
    spdlog::warn("{}: CONFIG_GEN went from {} to {}: another client committed at the same time", bus.describe(),
                 gen_before, gen_after);
  }
  spdlog::debug("{}: policy committed ({} shadow writes, CONFIG_GEN {})", bus.describe(), writes.size(), gen_after);
  return {gen_after, writes.size()};
}

Policy read_policy(drivers::RegisterBus& bus, const Capabilities& caps) {
  // Gather: CTRL, CRYPTO_ENGINE, DEFAULT_ACTION, per tenant T_CTRL..T_QLIMIT_BULK, per
  // classifier entry CLS_VLAN..CLS_ACTION.
  constexpr std::uint32_t kTenantWords = (rm::T_QLIMIT_BULK::kBase - rm::T_CTRL::kBase) / 4 + 1;
  constexpr std::uint32_t kClsWords = (rm::CLS_ACTION::kBase - rm::CLS_VLAN::kBase) / 4 + 1;
  std::vector<drivers::BlockRange> ranges = {
      {rm::CTRL::kOffset, 1}, {rm::CRYPTO_ENGINE::kOffset, 1}, {rm::DEFAULT_ACTION::kOffset, 1}};
  for (std::uint32_t t = 0; t < caps.tenants; ++t) ranges.push_back({rm::T_CTRL::offset(t), kTenantWords});
  for (std::uint32_t i = 0; i < caps.cls_entries; ++i) ranges.push_back({rm::CLS_VLAN::offset(i), kClsWords});
  std::size_t total = 0;
  for (const auto& r : ranges) total += r.count;
  std::vector<std::uint32_t> w(total);
  bus.read_ranges(ranges, w);

  Policy p = default_policy(caps);
  std::size_t at = 0;
  const std::uint32_t ctrl = w[at++];
  p.enable = rm::CTRL::ENABLE.get(ctrl) != 0;
  p.arb_mode = static_cast<ArbMode>(rm::CTRL::ARB_MODE.get(ctrl));
  const std::uint32_t ce = w[at++];
  p.crypto_bytes_per_cycle = rm::CRYPTO_ENGINE::BYTES_PER_CYCLE.get(ce);
  p.crypto_latency = rm::CRYPTO_ENGINE::LATENCY.get(ce);
  const std::uint32_t da = w[at++];
  p.default_action = ClassifierAction{rm::DEFAULT_ACTION::TENANT.get(da), rm::DEFAULT_ACTION::CLASS.get(da),
                                      static_cast<CryptoOp>(rm::DEFAULT_ACTION::CRYPTO_OP.get(da))};
  auto word = [&](std::size_t base, std::uint32_t reg_base, std::uint32_t first_base) {
    return w[base + (reg_base - first_base) / 4];
  };
  for (std::uint32_t t = 0; t < caps.tenants; ++t) {
    TenantPolicy& tp = p.tenants[t];
    const std::size_t base = at;
    const std::uint32_t first = rm::T_CTRL::kBase;
    const std::uint32_t tc = word(base, rm::T_CTRL::kBase, first);
    tp.enable = rm::T_CTRL::ENABLE.get(tc) != 0;
    tp.priority = rm::T_CTRL::PRIORITY.get(tc);
    tp.crypto_quota = rm::T_CTRL::CRYPTO_QUOTA.get(tc);
    tp.rate_limited = rm::T_CTRL::RATE_EN.get(tc) != 0;
    tp.weight = rm::T_WEIGHT::QUANTUM.get(word(base, rm::T_WEIGHT::kBase, first));
    tp.rate_bytes_per_kcycle = rm::T_RATE::BYTES_PER_KCYCLE.get(word(base, rm::T_RATE::kBase, first));
    tp.burst_bytes = rm::T_BURST::BYTES.get(word(base, rm::T_BURST::kBase, first));
    tp.qlimit_control_bytes = rm::T_QLIMIT_CTRL::BYTES.get(word(base, rm::T_QLIMIT_CTRL::kBase, first));
    tp.qlimit_bulk_bytes = rm::T_QLIMIT_BULK::BYTES.get(word(base, rm::T_QLIMIT_BULK::kBase, first));
    at += kTenantWords;
  }
  std::vector<ClassifierEntry> entries;
  for (std::uint32_t i = 0; i < caps.cls_entries; ++i) {
    const std::size_t base = at;
    at += kClsWords;
    const std::uint32_t first = rm::CLS_VLAN::kBase;
    const std::uint32_t act = word(base, rm::CLS_ACTION::kBase, first);
    if (rm::CLS_ACTION::VALID.get(act) == 0) continue;
    ClassifierEntry e;
    const std::uint32_t vlan = word(base, rm::CLS_VLAN::kBase, first);
    const std::uint32_t dp = word(base, rm::CLS_DSCP_PROTO::kBase, first);
    const std::uint32_t port = word(base, rm::CLS_PORT::kBase, first);
    e.vlan = rm::CLS_VLAN::VALUE.get(vlan);
    e.vlan_mask = rm::CLS_VLAN::MASK.get(vlan);
    e.dscp = rm::CLS_DSCP_PROTO::DSCP.get(dp);
    e.dscp_mask = rm::CLS_DSCP_PROTO::DSCP_MASK.get(dp);
    e.proto = rm::CLS_DSCP_PROTO::PROTO.get(dp);
    e.proto_mask = rm::CLS_DSCP_PROTO::PROTO_MASK.get(dp);
    e.port = rm::CLS_PORT::VALUE.get(port);
    e.port_mask = rm::CLS_PORT::MASK.get(port);
    e.action = {rm::CLS_ACTION::TENANT.get(act), rm::CLS_ACTION::CLASS.get(act),
                static_cast<CryptoOp>(rm::CLS_ACTION::CRYPTO_OP.get(act))};
    entries.push_back(e);
  }
  p.classifier = std::move(entries);
  return p;
}

}  // namespace nicsched::host
