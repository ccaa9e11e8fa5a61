// rtl.top.*: the end-to-end mixed-traffic check of nicsched_top at the parameter point the
// simulator's models do not cover: 4 tenants (2-bit tenant ids, 8 classifier rows) with 64-bit
// data (frames split over many beats) and a 64 KiB buffer. The 8- and 16-tenant, 512-bit runs
// are in test_top.cpp, on the simulator's models. One model for both axes: each Verilated top
// is a minute of a clean build.
#include <catch2/catch.hpp>

#include "Vtop_t4_w64.h"
#include "mixed_run.hpp"

using namespace nicsched::coretest;

TEST_CASE("mixed tenants TX and RX at 4 tenants with 64-bit data") {
  mixed_run<Vtop_t4_w64, 4, 8, 64>("top_mixed_t4_w64", bfm::StallPattern::random(0.2), bfm::StallPattern::random(0.4), 7,
                                   600);
}
