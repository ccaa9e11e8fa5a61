// The benchmark's extra Verilated variants: 4 and 64 tenants.
#include "Vnicsched_top_t4.h"
#include "Vnicsched_top_t64.h"
#include "nic_core.hpp"

namespace nicsched::sim {

std::unique_ptr<NicCore> make_core_t4(const NicConfig& cfg) { return std::make_unique<CoreImpl<Vnicsched_top_t4>>(cfg); }
std::unique_ptr<NicCore> make_core_t64(const NicConfig& cfg) {
  return std::make_unique<CoreImpl<Vnicsched_top_t64>>(cfg);
}

void register_bench_variants() {
  register_nic_variant(4, &make_core_t4);
  register_nic_variant(64, &make_core_t64);
}

}  // namespace nicsched::sim
