// Simulation: a short default-scenario run gives sane metrics; tenant identity goes
// through the RTL; arrivals, baselines, determinism.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/regmap.hpp"
#include "nicsched/sim/error.hpp"
#include "nicsched/sim/scenario_policy.hpp"
#include "nicsched/sim/simulation.hpp"

using namespace nicsched;
using namespace nicsched::sim;
namespace rm = nicsched::regmap;

namespace {

Scenario scenario(const char* name) {
  return load_scenario(std::string(NICSCHED_SOURCE_DIR) + "/sim/scenarios/" + name);
}

}  // namespace

TEST_CASE("a short default-scenario run produces sane metrics", "[simulation]") {
  const Scenario s = scenario("default.yaml");
  const std::uint64_t cycles = 400000;
  SimOptions o;
  o.baseline = "fair";
  o.cycles = cycles;
  o.solo = solo_baselines(s, {}, cycles, 3);
  Simulation sim(s, o);
  sim.run_to_end();
  CHECK(sim.cycle() >= cycles);
  CHECK(sim.integrity_errors() == 0);
  CHECK(sim.misattributed() == 0);
  CHECK(sim.frames_checked() > 500);
  const RunMetrics m = sim.metrics();
  REQUIRE(m.tenants.size() == s.tenants.size());
  CHECK(m.link_utilisation_tx > 0.05);
  CHECK(m.link_utilisation_tx <= 1.0);
  const TenantMetrics& resnet = m.tenants[0];
  CHECK(resnet.name == "resnet50");
  CHECK(resnet.completed >= 2);
  REQUIRE(resnet.iter_mean_us.has_value());
  REQUIRE(resnet.solo_iter_mean_us.has_value());
  // Alone, an iteration is compute (120 us) plus the 175 kB burst at line rate (14 us).
  CHECK(*resnet.solo_iter_mean_us == Approx(134.0).epsilon(0.1));
  CHECK(*resnet.iter_mean_us >= *resnet.solo_iter_mean_us * 0.9);
  REQUIRE(resnet.slowdown.has_value());
  CHECK(*resnet.slowdown > 0.9);
  CHECK(resnet.control_delivered > 0);
  REQUIRE(resnet.control_p50_us.has_value());
  CHECK(*resnet.control_p50_us > 0.0);
  CHECK(*resnet.control_p99_us >= *resnet.control_p50_us);
  // The FL client downloads with decryption: crypto slots were busy for it.
  CHECK(m.tenants[4].crypto_busy_cycles > 0);
  CHECK(m.crypto_utilisation > 0.0);
  REQUIRE(m.jain.has_value());
  CHECK(*m.jain > 0.0);
  CHECK(*m.jain <= 1.0);
  const auto j = nlohmann::json::parse(sim.metrics_json());
  CHECK(j.at("tenants").size() == s.tenants.size());
}

TEST_CASE("every tenant's delivered payload went through its own NIC queue", "[simulation]") {
  const Scenario s = scenario("default.yaml");
  SimOptions o;
  o.cycles = 200000;
  Simulation sim(s, o);
  sim.run_to_end();
  // Frames that left, per tenant, from the NIC's own counters (SNAPSHOT), against the
  // payload the workloads saw delivered: frame bytes = payload + 46 per frame.
  // The snapshot is taken in some clock of the register write, which takes simulated
  // clocks, during which frames keep leaving and arriving: the delivered payload is read
  // before the write (every frame delivered then had left: counted) and after it (frames
  // counted are delivered by then, but for the frames on their way).
  std::vector<std::uint64_t> before(sim.tenant_count()), after(sim.tenant_count());
  for (std::size_t i = 0; i < sim.tenant_count(); ++i) before[i] = sim.tenant(i).progress().delivered_bytes;
  sim.write32(rm::SNAPSHOT::kOffset, 1);
  for (std::size_t i = 0; i < sim.tenant_count(); ++i) after[i] = sim.tenant(i).progress().delivered_bytes;
  for (std::size_t i = 0; i < sim.tenant_count(); ++i) {
    const auto& t = sim.tenant(i);
    if (t.spec.kind != WorkloadKind::kDdp) continue;
    const std::uint64_t pkts = sim.read64(rm::Q_TX_PKTS::offset(2 * t.spec.index + 1));
    const std::uint64_t bytes = sim.read64(rm::Q_TX_BYTES::offset(2 * t.spec.index + 1));
    INFO(t.spec.name);
    CHECK(bytes >= before[i] + 46 * pkts);
    CHECK(bytes + 2 * 1518 > after[i] + 46 * pkts);  // at most the frames being sent
    CHECK(bytes - (before[i] + 46 * pkts) < 2 * 1518 + (after[i] - before[i]));
  }
}

TEST_CASE("tenants arrive and leave when the scenario says", "[simulation]") {
  Scenario s = scenario("arrivals.yaml");
  SimOptions o;
  // resnet50 arrives at 2000 ms real = 2 ms simulated = 500000 cycles.
  o.cycles = 480000;
  Simulation sim(s, o);
  sim.run_to_end();
  CHECK(sim.tenant(1).progress().phase == Phase::kNotArrived);
  CHECK(sim.tenant(1).progress().offered_bytes == 0);
  CHECK(sim.tenant(0).progress().offered_bytes > 0);
  sim.step(60000);
  CHECK(sim.tenant(1).progress().phase != Phase::kNotArrived);
  CHECK(sim.tenant(1).progress().offered_bytes > 0);
}

TEST_CASE("the sp baseline writes the scenario's priorities", "[simulation]") {
  const Scenario s = scenario("default.yaml");
  SimOptions o;
  o.baseline = "sp";
  o.cycles = 1000;
  Simulation sim(s, o);
  for (const auto& t : s.tenants) {
    const std::uint32_t w = sim.read32(rm::T_CTRL::offset(t.index));
    CHECK(rm::T_CTRL::PRIORITY.get(w) == t.priority);
  }
  CHECK(rm::CTRL::ARB_MODE.decode(sim.read32(rm::CTRL::kOffset)) == rm::ArbMode::kSpDwrr);
}

TEST_CASE("the fair baseline is the controllers' fair: DWRR, every quantum the register's reset", "[simulation]") {
  Scenario s = scenario("default.yaml");
  s.backend = NicBackend::kModel;
  SimOptions o;
  o.baseline = "fair";
  o.cycles = 1000;
  Simulation sim(s, o);
  CHECK(rm::CTRL::ARB_MODE.decode(sim.read32(rm::CTRL::kOffset)) == rm::ArbMode::kDwrr);
  for (std::uint32_t t = 0; t < sim.capabilities().tenants; ++t) {
    CHECK(rm::T_WEIGHT::QUANTUM.get(sim.read32(rm::T_WEIGHT::offset(t))) ==
          rm::T_WEIGHT::QUANTUM.get(rm::T_WEIGHT::kReset));
  }
  CHECK(sim.metrics().policy == "fair");
}

TEST_CASE("only the static baselines can stand for a whole run", "[simulation]") {
  const Scenario s = scenario("default.yaml");
  host::Capabilities caps;
  caps.tenants = s.nic_tenants;
  caps.prio_levels = 4;
  caps.crypto_slots = s.crypto_slots;
  caps.classes = 2;
  CHECK(baseline_policy("sp", s, caps).arb_mode == host::ArbMode::kSpDwrr);
  // las decides from telemetry: one decision before the first cycle would not be las.
  CHECK_THROWS_WITH(baseline_policy("las", s, caps), Catch::Contains("las") && Catch::Contains("fifo, fair, sp"));
  Scenario on_model = s;
  on_model.backend = NicBackend::kModel;
  SimOptions o;
  o.baseline = "las";
  CHECK_THROWS_AS(Simulation(on_model, o), SimError);
}

TEST_CASE("a policy never changes the crypto engine the scenario's NIC has", "[simulation]") {
  // heavy_crypto.yaml: 4 B/cycle, latency 64 (not the register's reset 16 / 32). A policy file
  // (which cannot name the engine) and an in-memory policy both leave the engine as set up.
  const auto file = std::filesystem::temp_directory_path() / "nicsched_test_engine_policy.yaml";
  for (const NicBackend backend : {NicBackend::kModel, NicBackend::kRtl}) {
    Scenario s = scenario("heavy_crypto.yaml");
    REQUIRE(s.crypto_bytes_per_cycle == 4);
    REQUIRE(s.crypto_latency == 64);
    s.backend = backend;
    for (const bool from_file : {true, false}) {
      INFO((backend == NicBackend::kModel ? "model" : "rtl") << (from_file ? ", policy file" : ", in-memory policy"));
      SimOptions o;
      o.cycles = 20000;
      host::Capabilities caps;
      caps.tenants = s.nic_tenants;
      caps.prio_levels = 4;
      caps.crypto_slots = s.crypto_slots;
      caps.classes = 2;
      if (from_file) {
        std::ofstream(file) << host::policy_to_yaml(host::default_policy(caps), caps);
        o.policy_file = file;
      } else {
        o.policy = host::default_policy(caps);
      }
      Simulation sim(s, o);
      const std::uint32_t eng = sim.read32(rm::CRYPTO_ENGINE::kOffset);
      CHECK(rm::CRYPTO_ENGINE::BYTES_PER_CYCLE.get(eng) == 4);
      CHECK(rm::CRYPTO_ENGINE::LATENCY.get(eng) == 64);
      // A later policy commit (as a controller's) keeps it too.
      const host::Capabilities nic_caps = host::discover(sim);
      host::Policy p = host::read_policy(sim, nic_caps);
      p.arb_mode = host::ArbMode::kFifo;
      (void)host::apply_policy(sim, nic_caps, p);
      CHECK(sim.read32(rm::CRYPTO_ENGINE::kOffset) == eng);
      sim.run_to_end();
      CHECK(sim.integrity_errors() == 0);
    }
  }
  std::filesystem::remove(file);
}

TEST_CASE("the same scenario and seed give the same run", "[simulation]") {
  const Scenario s = scenario("ddp_incompatible.yaml");
  auto once = [&] {
    SimOptions o;
    o.cycles = 150000;
    Simulation sim(s, o);
    sim.run_to_end();
    std::vector<std::uint64_t> v;
    for (std::size_t i = 0; i < sim.tenant_count(); ++i) v.push_back(sim.tenant(i).progress().delivered_bytes);
    return v;
  };
  CHECK(once() == once());
}

TEST_CASE("the hosts keep sending while a controller reads registers (control latency does not depend on it)",
          "[simulation]") {
  // On the RTL backend a register access clocks the NIC for a few cycles. A controller that
  // reads hundreds of registers per decision must not hold the workloads back: a control
  // message due during the reads leaves as soon as without them (issue 16: under nicagent
  // eval the RTL backend showed ~9.5 us control p99 for every controller, 0.4 us without).
  // Here the reads take most of the time (1000 per 500 cycles of stepping), so a message
  // that waited for the next step would be late by microseconds in the median. The tail is
  // not that sharp: the reads move the clocks at which messages meet the bursts, and with
  // five clocks a read (the CSR's read stage 0) one tenant's p99 moved 2.08 -> 2.35 us
  // (p50 0.46 -> 0.44 us) while one read per step leaves it at 2.08; the fault this guards
  // against gave ~9.5 us.
  const Scenario s = scenario("default.yaml");
  struct Latency {
    double p50, p99;
  };
  auto control_latency = [&](int reads_per_step) {
    SimOptions o;
    o.baseline = "fair";
    o.cycles = 300000;
    Simulation sim(s, o);
    while (!sim.finished()) {
      sim.step(500);
      for (int i = 0; i < reads_per_step; ++i) (void)sim.read32(rm::ID::kOffset);  // read-only: no NIC state changes
    }
    std::vector<Latency> per_tenant;
    for (const auto& t : sim.metrics().tenants) {
      if (t.control_p50_us && t.control_p99_us) per_tenant.push_back({*t.control_p50_us, *t.control_p99_us});
    }
    return per_tenant;
  };
  const auto quiet = control_latency(0);
  const auto busy = control_latency(1000);
  REQUIRE(quiet.size() >= 3);  // default: three DDP jobs send control messages
  REQUIRE(busy.size() == quiet.size());
  for (std::size_t i = 0; i < quiet.size(); ++i) {
    INFO("control tenant " << i << ": p50 " << quiet[i].p50 << " -> " << busy[i].p50 << " us, p99 " << quiet[i].p99
                           << " -> " << busy[i].p99 << " us");
    CHECK(busy[i].p50 <= quiet[i].p50 + 0.05);
    CHECK(busy[i].p99 <= quiet[i].p99 + 0.5);
  }
}

TEST_CASE("solo baselines: the cache is read back, and one that is not a regular file or is too big is ignored unread",
          "[simulation]") {
  const Scenario s = scenario("default.yaml");
  const auto dir = std::filesystem::temp_directory_path() / ("nicsched-solo-cache-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::uint64_t cycles = 20000;
  const auto computed = solo_baselines(s, dir, cycles, 1);
  REQUIRE(computed.size() == s.tenants.size());
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files.push_back(e.path());
  REQUIRE(files.size() == 1);
  const auto cache = files.front();
  auto rates = [](const std::vector<std::optional<SoloResult>>& v) {
    std::vector<double> r;
    for (const auto& x : v) r.push_back(x ? x->progress_rate : -1.0);
    return r;
  };
  {  // a cache with other figures is what comes back: it was read
    nlohmann::json j;
    j["tenants"] = nlohmann::json::array();
    for (std::size_t i = 0; i < s.tenants.size(); ++i) j["tenants"].push_back({{"iter_mean_cycles", nullptr}, {"progress_rate", 0.5}});
    std::ofstream(cache) << j.dump();
  }
  CHECK(rates(solo_baselines(s, dir, cycles, 1)) == std::vector<double>(s.tenants.size(), 0.5));
  // a FIFO with no writer in its place: refused without blocking, recomputed (and cached again)
  std::filesystem::remove(cache);
  REQUIRE(::mkfifo(cache.c_str(), 0600) == 0);
  CHECK(rates(solo_baselines(s, dir, cycles, 1)) == rates(computed));
  CHECK(std::filesystem::is_regular_file(cache));
  // a cache over the size limit (sparse): refused by its size, recomputed
  std::filesystem::resize_file(cache, 300'000'000);
  CHECK(rates(solo_baselines(s, dir, cycles, 1)) == rates(computed));
  CHECK(std::filesystem::file_size(cache) < 1'000'000);
  std::filesystem::remove_all(dir);
}
