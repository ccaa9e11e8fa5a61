// Policy <-> registers: encode into shadow writes, apply with one COMMIT, read back.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "gathered.hpp"
#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/nic/codec.hpp"
#include "nicsched/regmap.hpp"

namespace nicsched::host {

namespace rm = nicsched::regmap;

namespace {

// The shadow writes of a policy: the register codec's encoding of the configuration it
// describes, CRYPTO_ENGINE left out (NIC setup, not policy). CTRL fields the policy does not describe (BAD_TO_DEFAULT) keep their current
// value; an absent default action or classifier is not written; a present classifier
// fills the table from entry 0 and leaves the rest as after reset (invalid).
std::vector<nic::RegWrite> encode(const Policy& p, const Capabilities& caps, std::uint32_t ctrl_now) {
  nic::Config c;
  c.enable = p.enable;
  c.arb_mode = p.arb_mode;
  c.control_level = p.control_level;
  c.bad_to_default = rm::CTRL::BAD_TO_DEFAULT.get(ctrl_now) != 0;
  if (p.default_action) c.default_action = *p.default_action;
  c.tenants = p.tenants;  // validate_policy: one per tenant of the NIC
  if (p.classifier) {
    c.classifier = *p.classifier;
    c.classifier.resize(caps.cls_entries, nic::ClassifierEntry::reset());
  }
  // CRYPTO_ENGINE is not the policy's: the NIC keeps the engine its bring-up set.
  std::vector<nic::RegWrite> w = nic::encode_config(
      c, {.crypto_engine = false, .default_action = p.default_action.has_value(), .classifier = p.classifier.has_value()});
  // TX identity: every SRC_BIND of the NIC (a NIC without sources has no TX_IDENTITY either;
  // validate_policy refuses source mode there).
  if (p.tx_identity && caps.sources > 0) {
    nic::TxIdentityConfig id = *p.tx_identity;
    id.sources.resize(caps.sources);
    const std::vector<nic::RegWrite> t = nic::encode_tx_identity(id);
    w.insert(w.end(), t.begin(), t.end());
  }
  return w;
}

}  // namespace

ApplyResult apply_policy(drivers::RegisterBus& bus, const Capabilities& caps, const Policy& policy) {
  validate_policy(policy, caps);  // before anything is written
  const std::uint32_t ctrl_now = bus.read32(rm::CTRL::kOffset);
  const std::uint32_t gen_before = rm::CONFIG_GEN::COUNT.get(bus.read32(rm::CONFIG_GEN::kOffset));
  const std::vector<nic::RegWrite> encoded = encode(policy, caps, ctrl_now);
  std::vector<drivers::RegWrite> writes;
  writes.reserve(encoded.size());
  for (const nic::RegWrite& w : encoded) writes.push_back({w.addr, w.value});

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
                                         bus.describe(), nic::register_name(writes[i].addr), writes[i].addr, writes[i].value, back[i]));
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
  // One gather, in address order: CTRL, CRYPTO_ENGINE (decoded, not part of a Policy), DEFAULT_ACTION, TX_IDENTITY
  // (a NIC with sources), per tenant T_CTRL..T_CTRL_BURST, per classifier entry CLS_VLAN..CLS_ACTION, SRC_BIND per
  // source; then the codec decodes the words.
  constexpr std::uint32_t kTenantWords = (rm::T_CTRL_BURST::kBase - rm::T_CTRL::kBase) / 4 + 1;
  constexpr std::uint32_t kClsWords = (rm::CLS_ACTION::kBase - rm::CLS_VLAN::kBase) / 4 + 1;
  Gathered g;
  g.add(rm::CTRL::kOffset, 1);
  g.add(rm::CRYPTO_ENGINE::kOffset, 1);
  g.add(rm::DEFAULT_ACTION::kOffset, 1);
  if (caps.sources > 0) g.add(rm::TX_IDENTITY::kOffset, 1);
  for (std::uint32_t t = 0; t < caps.tenants; ++t) g.add(rm::T_CTRL::offset(t), kTenantWords);
  for (std::uint32_t i = 0; i < caps.cls_entries; ++i) g.add(rm::CLS_VLAN::offset(i), kClsWords);
  if (caps.sources > 0) {
    for (std::uint32_t s = 0; s < caps.sources; ++s) g.add(rm::SRC_BIND::offset(s), 1);
  }
  bus.read_ranges(g.ranges(), g.words());
  const nic::Config c =
      nic::decode_config([&g](std::uint32_t addr) { return g.at(addr); }, caps.tenants, caps.cls_entries);

  Policy p = default_policy(caps);
  p.enable = c.enable;
  p.arb_mode = c.arb_mode;
  p.control_level = c.control_level;
  p.default_action = c.default_action;
  p.tenants = c.tenants;
  std::vector<ClassifierEntry> entries;
  for (const ClassifierEntry& e : c.classifier) {
    if (e.valid) entries.push_back(e);
  }
  p.classifier = std::move(entries);
  if (caps.sources > 0) {
    p.tx_identity = nic::decode_tx_identity([&g](std::uint32_t addr) { return g.at(addr); }, caps.sources);
  } else {
    p.tx_identity = nic::TxIdentityConfig{};  // header-only: the NIC has no source table
  }
  return p;
}

}  // namespace nicsched::host
