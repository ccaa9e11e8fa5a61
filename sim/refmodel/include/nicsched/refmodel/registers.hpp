// The reference model's data in register terms (rtl/regmap/nicsched.yaml through the
// generated nicsched/regmap.hpp): the shadow writes that express a Config (a COMMIT then
// applies them), and the counters read back from a SNAPSHOT. Used by the regression to
// program the RTL exactly as it programs the model, and to read the RTL's counters into
// the model's Counters for comparison.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "nicsched/refmodel/types.hpp"

namespace nicsched::refmodel {

struct RegWrite {
  std::uint32_t addr = 0;
  std::uint32_t value = 0;
};

// Every shadowed register of `cfg` (global, per tenant, per classifier entry), in address
// order; COMMIT is not included.
std::vector<RegWrite> config_writes(const Config& cfg, const Params& p);

// Reads every counter through `read32` (which must read the latched SNAPSHOT copy: the
// caller writes SNAPSHOT.GO first). 64-bit counters read LO then HI.
Counters read_counters(const std::function<std::uint32_t(std::uint32_t)>& read32, const Params& p);

}  // namespace nicsched::refmodel
