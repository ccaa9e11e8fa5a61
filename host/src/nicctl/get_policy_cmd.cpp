// nicctl get-policy: the NIC's configuration as a policy file load-policy accepts.
#include <fmt/format.h>

#include <iostream>

#include "commands.hpp"

namespace nicsched::nicctl {

int cmd_get_policy(const Global& g, const std::string& out_file) {
  Session s = connect(g);
  const host::Policy p = host::read_policy(*s.bus, s.caps);
  const std::string yaml = host::policy_to_yaml(p, s.caps, g.clock_mhz, "read from " + s.bus->describe() + " by nicctl get-policy");
  if (out_file.empty()) {
    std::cout << yaml;
  } else {
    host::save_policy(out_file, p, s.caps, g.clock_mhz);
    std::cerr << fmt::format("wrote {}\n", out_file);
  }
  return kOk;
}

}  // namespace nicsched::nicctl
