// rtl.top.*: the end-to-end mixed-traffic check of nicsched_top at 4 tenants and with 64-bit
// data (the 8- and 16-tenant, 512-bit runs are in test_top.cpp, on the simulator's models).
#include <catch2/catch.hpp>

#include "Vtop_t4.h"
#include "Vtop_t8_w64.h"
#include "mixed_run.hpp"

using namespace nicsched::coretest;

TEST_CASE("mixed tenants TX and RX at 4 tenants") {
  mixed_run<Vtop_t4, 4, 8, 512>("top_mixed_t4", bfm::StallPattern::random(0.2), bfm::StallPattern::random(0.5), 7, 800);
}

TEST_CASE("mixed tenants TX and RX with 64-bit data") {
  mixed_run<Vtop_t8_w64, 8, 16, 64>("top_mixed_t8_w64", bfm::StallPattern::random(0.2), bfm::StallPattern::random(0.3), 9, 400);
}

