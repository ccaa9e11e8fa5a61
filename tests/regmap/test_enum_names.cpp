// regmap.*: the generated name tables of the map's enumerated fields
// (nicsched/regmap.hpp) give the names rtl/regmap/nicsched.yaml writes, both ways.
#include <catch2/catch.hpp>

#include "nicsched/regmap.hpp"

namespace rm = nicsched::regmap;

// Usable at compile time.
static_assert(rm::to_string(rm::ArbMode::kDwrr) == "DWRR");
static_assert(rm::parse_crypto_op("ENCRYPT") == rm::CryptoOp::kEncrypt);

TEST_CASE("ARB_MODE: every YAML name maps to its value and back") {
  CHECK(rm::to_string(rm::ArbMode::kFifo) == "FIFO");
  CHECK(rm::to_string(rm::ArbMode::kSp) == "SP");
  CHECK(rm::to_string(rm::ArbMode::kDwrr) == "DWRR");
  CHECK(rm::to_string(rm::ArbMode::kSpDwrr) == "SP_DWRR");
  CHECK(rm::parse_arb_mode("FIFO") == rm::ArbMode::kFifo);
  CHECK(rm::parse_arb_mode("SP") == rm::ArbMode::kSp);
  CHECK(rm::parse_arb_mode("DWRR") == rm::ArbMode::kDwrr);
  CHECK(rm::parse_arb_mode("SP_DWRR") == rm::ArbMode::kSpDwrr);
  CHECK(rm::kArbModeNames.size() == 4);
}

TEST_CASE("CRYPTO_OP: every YAML name maps to its value and back, value 3 has no name") {
  CHECK(rm::to_string(rm::CryptoOp::kNone) == "NONE");
  CHECK(rm::to_string(rm::CryptoOp::kEncrypt) == "ENCRYPT");
  CHECK(rm::to_string(rm::CryptoOp::kDecrypt) == "DECRYPT");
  CHECK(rm::to_string(static_cast<rm::CryptoOp>(3)) == "?");
  CHECK(rm::parse_crypto_op("NONE") == rm::CryptoOp::kNone);
  CHECK(rm::parse_crypto_op("DECRYPT") == rm::CryptoOp::kDecrypt);
}

TEST_CASE("parse_<field> takes the map's names exactly") {
  CHECK_FALSE(rm::parse_arb_mode("fifo").has_value());
  CHECK_FALSE(rm::parse_arb_mode("SP-DWRR").has_value());
  CHECK_FALSE(rm::parse_arb_mode("").has_value());
  CHECK_FALSE(rm::parse_crypto_op("ENCRYPT ").has_value());
}
