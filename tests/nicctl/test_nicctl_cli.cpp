// The nicctl binary against a SimServer in this process serving the stand-in CSR block
// (tests/support/stand_in_nic.hpp): exit codes, one-line errors, and that a refused policy
// writes nothing at all (counted at the stand-in). Needs no nicsim.
#include <catch2/catch.hpp>
#include <thread>

#include "nicsched/drivers/sim_server.hpp"
#include "nicsched/version.hpp"
#include "run_nicctl.hpp"
#include "stand_in_nic.hpp"

using namespace nicsched;
using test::nicctl;
using test::Result;
using Catch::Contains;

namespace {

const std::string kTestDir = NICCTL_TEST_DIR;

class StandInServer {
 public:
  StandInServer() {
    drivers::ServerOptions o;
    o.handle_signals = false;
    server_ = std::make_unique<drivers::SimServer>(nic_, o);
    thread_ = std::thread([this] { server_->run(); });
  }
  ~StandInServer() {
    server_->stop();
    thread_.join();
  }
  StandInServer(const StandInServer&) = delete;
  StandInServer& operator=(const StandInServer&) = delete;
  [[nodiscard]] std::string uri() const { return fmt::format("sim://127.0.0.1:{}", server_->tcp_port()); }
  // Only read while no nicctl runs (the server thread is idle then).
  test::StandInNic& nic() { return nic_; }

 private:
  test::StandInNic nic_;
  std::unique_ptr<drivers::SimServer> server_;
  std::thread thread_;
};

}  // namespace

TEST_CASE("cli: --version prints the project version", "[cli]") {
  const Result r = nicctl("", "--version");
  CHECK(r.rc == 0);
  CHECK_THAT(r.out, Contains(nicsched::kVersion));
}

TEST_CASE("cli: usage errors exit 2 with one line on stderr", "[cli]") {
  const Result none = nicctl("", "info");
  CHECK(none.rc == 2);
  CHECK_THAT(none.err, Contains("NICSCHED_TARGET"));
  CHECK(std::count(none.err.begin(), none.err.end(), '\n') == 1);
  const Result bad_uri = nicctl("tcp://localhost:1", "info");
  CHECK(bad_uri.rc == 2);
  CHECK_THAT(bad_uri.err, Contains("unknown scheme 'tcp'"));
  CHECK(nicctl("sim://localhost:1", "frobnicate").rc == 2);
  CHECK(nicctl("sim://localhost:1", "set").rc == 2);  // TENANT missing
}

TEST_CASE("cli: a target nobody listens on exits 3 with the URI in one line", "[cli]") {
  std::string uri;
  { StandInServer gone; uri = gone.uri(); }
  const Result r = nicctl(uri, "stats");
  CHECK(r.rc == 3);
  CHECK_THAT(r.err, Catch::StartsWith("nicctl: " + uri) && Contains("cannot connect"));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("cli: an invalid policy file exits 5 and not one register is written", "[cli]") {
  StandInServer srv;
  const Result r = nicctl(srv.uri(), "load-policy " + kTestDir + "/bad_priority.yaml");
  CHECK(r.rc == 5);
  CHECK_THAT(r.err, Contains("bad_priority.yaml:7: tenants[0].priority") && Contains("allowed: 0..3"));
  CHECK(srv.nic().writes() == 0);
  CHECK(srv.nic().config_gen() == 0);
}

TEST_CASE("cli: load-policy commits once, get-policy gives it back, and that output loads again", "[cli]") {
  StandInServer srv;
  const std::string policy = std::string(NICSCHED_POLICY_DIR) + "/ddp-priority.yaml";
  CHECK(nicctl(srv.uri(), "load-policy --dry-run " + policy).rc == 0);
  CHECK(srv.nic().writes() == 0);
  const Result load = nicctl(srv.uri(), "load-policy " + policy);
  REQUIRE(load.rc == 0);
  CHECK_THAT(load.out, Contains("config generation 1"));
  CHECK(srv.nic().config_gen() == 1);
  CHECK(srv.nic().active(regmap::T_RATE::offset(6)) == 5120);  // 10 Gbit/s at 250 MHz
  const Result get = nicctl(srv.uri(), "get-policy");
  REQUIRE(get.rc == 0);
  CHECK_THAT(get.out, Contains("rate_bytes_per_kcycle: 5120"));
  const std::string again = std::filesystem::temp_directory_path() / fmt::format("nicctl-again-{}.yaml", ::getpid());
  std::ofstream(again) << get.out;
  CHECK(nicctl(srv.uri(), "load-policy " + again).rc == 0);
  CHECK(srv.nic().config_gen() == 2);
  CHECK(nicctl(srv.uri(), "get-policy").out == get.out);
  std::filesystem::remove(again);
}

TEST_CASE("cli: info, stats --json, dump-regs and reset-counters on the stand-in", "[cli]") {
  StandInServer srv;
  srv.nic().set_live(regmap::Q_TX_BYTES::offset(5), 123456789);
  const Result info = nicctl(srv.uri(), "info --json");
  REQUIRE(info.rc == 0);
  CHECK_THAT(info.out, Contains("\"tenants\": 8"));
  const Result stats = nicctl(srv.uri(), "stats --json -i 0");
  REQUIRE(stats.rc == 0);
  CHECK_THAT(stats.out, Contains("\"tx_bytes\": 123456789"));  // tenant 2, bulk queue (q = 5)
  const Result dump = nicctl(srv.uri(), "dump-regs --snapshot");
  REQUIRE(dump.rc == 0);
  CHECK_THAT(dump.out, Contains("Q_TX_BYTES[5]") && Contains("123456789"));
  REQUIRE(nicctl(srv.uri(), "reset-counters").rc == 0);
  CHECK_THAT(nicctl(srv.uri(), "dump-regs --snapshot").out, !Contains("123456789"));
}

TEST_CASE("cli: classifier add --crypto, list and get-policy spell the op as policy files do", "[cli]") {
  StandInServer srv;
  const Result add = nicctl(srv.uri(), "classifier add --dscp 46 --tenant 1 --crypto decrypt");
  REQUIRE(add.rc == 0);
  CHECK_THAT(add.out, Contains("-> tenant 1 bulk decrypt"));
  CHECK(regmap::CLS_ACTION::CRYPTO_OP.decode(
            static_cast<std::uint32_t>(srv.nic().active(regmap::CLS_ACTION::offset(0)))) == regmap::CryptoOp::kDecrypt);
  const Result list = nicctl(srv.uri(), "classifier list --json");
  REQUIRE(list.rc == 0);
  CHECK_THAT(list.out, Contains("\"crypto\": \"decrypt\"") && Contains("\"crypto\": \"none\""));  // entry, default
  CHECK_THAT(nicctl(srv.uri(), "get-policy").out, Contains("crypto: decrypt}"));
  // Only the policy-file spelling: the register map's upper-case name is a usage error.
  CHECK(nicctl(srv.uri(), "classifier add --tenant 1 --crypto DECRYPT").rc == 2);
}
