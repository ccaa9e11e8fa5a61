// The Verilated variants built into nicsched::sim: 8 tenants (with FST tracing) and 16.
#include "Vnicsched_top.h"
#include "Vnicsched_top_t16.h"
#include "nic_core.hpp"

namespace nicsched::sim {

std::unique_ptr<NicCore> make_core_t8(const NicConfig& cfg) { return std::make_unique<CoreImpl<Vnicsched_top>>(cfg); }
std::unique_ptr<NicCore> make_core_t16(const NicConfig& cfg) {
  return std::make_unique<CoreImpl<Vnicsched_top_t16>>(cfg);
}

}  // namespace nicsched::sim
