// nicctl load-policy: validate a policy file in full, then write and COMMIT it at once.
#include <fmt/format.h>

#include <iostream>

#include "commands.hpp"

namespace nicsched::nicctl {

int cmd_load_policy(const Global& g, const std::string& file, bool dry_run) {
  // The file first: a device, a FIFO or an oversized file is refused before anything else.
  const std::string text = host::read_policy_file(file);
  Session s = connect(g);
  const host::Policy p = host::parse_policy(text, file, s.caps);  // validated in full; throws before any write
  if (dry_run) {
    std::cout << fmt::format("{}: valid for {} ({} tenants, {}); nothing written\n", file, s.bus->describe(),
                             s.caps.tenants,
                             p.classifier ? fmt::format("{} classifier entries", p.classifier->size())
                                          : std::string("classifier table untouched"));
    return kOk;
  }
  const host::ApplyResult r = host::apply_policy(*s.bus, s.caps, p);
  std::cout << fmt::format("{}: committed to {} ({} registers, config generation {})\n", file, s.bus->describe(),
                           r.writes, r.config_gen);
  return kOk;
}

}  // namespace nicsched::nicctl
