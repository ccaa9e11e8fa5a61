// nicctl set: change one tenant's settings (read, modify, validate, COMMIT).
#include <fmt/format.h>

#include <iostream>

#include "commands.hpp"

namespace nicsched::nicctl {

namespace {

std::uint32_t bytes_option(const std::string& name, const std::string& text) {
  std::uint64_t v = 0;
  try {
    v = host::parse_bytes(text);
  } catch (const host::HostError& e) {
    throw host::PolicyError(fmt::format("{}: {}", name, e.what()), "command line", 0, name);
  }
  if (v > 0xFFFFFFFFULL) throw host::PolicyError(fmt::format("{}: {} does not fit 32 bits", name, v), "command line", 0, name);
  return static_cast<std::uint32_t>(v);
}

}  // namespace

int cmd_set(const Global& g, const SetOptions& o) {
  if (o.enable && o.disable) throw UsageError("set: --enable and --disable exclude each other");
  if (!o.priority && !o.weight && !o.crypto_quota && !o.rate && !o.burst && !o.qlimit_control && !o.qlimit_bulk &&
      !o.control_rate && !o.control_burst && !o.enable && !o.disable) {
    throw UsageError("set: nothing to set (give --priority, --weight, --rate, --burst, --crypto-quota, --qlimit-control, "
                     "--qlimit-bulk, --control-rate, --control-burst, --enable or --disable)");
  }
  Session s = connect(g);
  if (o.tenant >= s.caps.tenants) {
    throw host::PolicyError(fmt::format("set: tenant {} does not exist (allowed: 0..{}: the NIC has {} tenants)", o.tenant,
                                        s.caps.tenants - 1, s.caps.tenants),
                            "command line", 0, "TENANT");
  }
  host::Policy p = host::read_policy(*s.bus, s.caps);
  p.classifier.reset();  // leave the table and the default action as they are
  p.default_action.reset();
  host::TenantPolicy& t = p.tenants[o.tenant];
  if (o.priority) t.priority = *o.priority;
  if (o.weight) t.weight = *o.weight;
  if (o.crypto_quota) t.crypto_quota = *o.crypto_quota;
  if (o.enable) t.enable = true;
  if (o.disable) t.enable = false;
  if (o.rate) {
    if (*o.rate == "off" || *o.rate == "none") {
      t.rate_limited = false;
      t.rate_bytes_per_kcycle = 0;
    } else {
      try {
        t.rate_bytes_per_kcycle = host::parse_rate(*o.rate, g.clock_mhz);
      } catch (const host::HostError& e) {
        throw host::PolicyError(fmt::format("--rate: {}", e.what()), "command line", 0, "--rate");
      }
      t.rate_limited = true;
    }
  }
  if (o.burst) t.burst_bytes = bytes_option("--burst", *o.burst);
  if (o.qlimit_control) t.qlimit_control_bytes = bytes_option("--qlimit-control", *o.qlimit_control);
  if (o.qlimit_bulk) t.qlimit_bulk_bytes = bytes_option("--qlimit-bulk", *o.qlimit_bulk);
  if (o.control_rate) {
    try {
      t.ctrl_rate_bytes_per_kcycle = host::parse_rate(*o.control_rate, g.clock_mhz);
    } catch (const host::HostError& e) {
      throw host::PolicyError(fmt::format("--control-rate: {}", e.what()), "command line", 0, "--control-rate");
    }
  }
  if (o.control_burst) t.ctrl_burst_bytes = bytes_option("--control-burst", *o.control_burst);
  const host::ApplyResult r = host::apply_policy(*s.bus, s.caps, p);
  std::cout << fmt::format("tenant {}: committed (config generation {})\n", o.tenant, r.config_gen);
  return kOk;
}

}  // namespace nicsched::nicctl
