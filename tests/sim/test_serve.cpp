// nicsim serve's server side: a Simulation behind the drivers' SimServer, reached by the
// SimClient over TCP and over a Unix socket.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>
#include <unistd.h>

#include "nicsched/drivers/sim_client.hpp"
#include "nicsched/drivers/sim_server.hpp"
#include "nicsched/regmap.hpp"
#include "nicsched/sim/simulation.hpp"

using namespace nicsched;
namespace rm = nicsched::regmap;

namespace {

struct Served {
  sim::Simulation simulation;
  drivers::SimServer server;
  std::thread thread;
  Served(drivers::ServerOptions so)
      : simulation(sim::load_scenario(std::string(NICSCHED_SOURCE_DIR) + "/sim/scenarios/default.yaml"), {}),
        server(simulation, std::move(so)),
        thread([this] { server.run(); }) {}
  ~Served() {
    server.stop();
    thread.join();
  }
};

void exercise(drivers::SimClient& c) {
  CHECK(c.read32(rm::ID::kOffset) == 0x4E534348U);
  CHECK(rm::CAPS0::TENANTS.get(c.read32(rm::CAPS0::kOffset)) == 8);
  const std::uint64_t c0 = c.cycle();
  c.step(20000);
  CHECK(c.cycle() >= c0 + 20000);
  const auto j = nlohmann::json::parse(c.metrics_json());
  CHECK(j.at("scenario") == "default");
  CHECK(j.at("cycles").get<std::uint64_t>() >= 20000);
  CHECK_THROWS_AS(c.read32(0xFFFC), drivers::BusError);
  CHECK(c.read32(rm::ID::kOffset) == 0x4E534348U);  // still serving after an error
}

}  // namespace

TEST_CASE("serve: lock-step over TCP", "[serve]") {
  drivers::ServerOptions so;
  so.tcp_address = "127.0.0.1";
  so.tcp_port = 0;
  so.handle_signals = false;
  so.initial_mode = drivers::proto::Mode::kLockStep;
  Served s(so);
  auto c = drivers::SimClient::connect_tcp("127.0.0.1", s.server.tcp_port());
  exercise(*c);
}

TEST_CASE("serve: lock-step over a Unix socket", "[serve]") {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("nicsim-test-" + std::to_string(getpid()) + ".sock")).string();
  drivers::ServerOptions so;
  so.tcp_address.reset();
  so.unix_path = path;
  so.handle_signals = false;
  so.initial_mode = drivers::proto::Mode::kLockStep;
  {
    Served s(so);
    auto c = drivers::SimClient::connect_unix(path);
    exercise(*c);
  }
  std::filesystem::remove(path);
}
