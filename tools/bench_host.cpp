// bench_host: register-bus figures for docs/nicctl.md. For each transport and tenant
// count: single-register reads per second, the time of one telemetry snapshot
// (read_snapshot), and the time of one policy commit (apply_policy: shadow writes, COMMIT,
// read-back).
//
//   bench_host [--seconds S]            built-in targets: a stand-in CSR block (the one the
//                                       host tests use) in process, behind SimServer over TCP
//                                       and a Unix socket; a file standing in for a PCIe BAR
//                                       and for the XDMA user device (reads only)
//   bench_host --target URI [--label L] a live target, e.g. nicsim serve (sim://, unix://)
//
// Output: Markdown table rows on stdout.
#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <iostream>
#include <thread>

#include "stand_in_nic.hpp"  // nicsched::testsupport: the stand-in CSR block
#include "nicsched/cli/parse.hpp"
#include "nicsched/drivers/open_bus.hpp"
#include "nicsched/drivers/sim_server.hpp"
#include "nicsched/host/discovery.hpp"
#include "nicsched/host/policy.hpp"
#include "nicsched/host/telemetry.hpp"

namespace {

using namespace nicsched;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Figures {
  double reads_per_s = 0;
  double snapshot_ms = 0;
  double commit_ms = -1;  // < 0: not measured
};

// Runs f repeatedly for about `seconds`; returns (iterations, elapsed seconds).
std::pair<std::uint64_t, double> repeat(double seconds, const std::function<void()>& f) {
  const auto start = Clock::now();
  std::uint64_t n = 0;
  double elapsed = 0;
  do {
    f();
    ++n;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  } while (elapsed < seconds);
  return {n, elapsed};
}

Figures measure(drivers::RegisterBus& bus, double seconds, bool commit) {
  const host::Capabilities caps = host::discover(bus);
  Figures f;
  volatile std::uint32_t sink = 0;
  auto [reads, t_reads] = repeat(seconds, [&] {
    for (int i = 0; i < 16; ++i) sink = sink + bus.read32(regmap::SCRATCH::kOffset);
  });
  f.reads_per_s = static_cast<double>(reads * 16) / t_reads;
  auto [snaps, t_snaps] = repeat(seconds, [&] { (void)host::read_snapshot(bus, caps); });
  f.snapshot_ms = t_snaps / static_cast<double>(snaps) * 1e3;
  if (commit) {
    host::Policy p = host::default_policy(caps);
    std::uint32_t w = 1000;
    auto [commits, t_commits] = repeat(seconds, [&] {
      for (auto& t : p.tenants) t.weight = w;
      w = w == 1000 ? 2000 : 1000;
      (void)host::apply_policy(bus, caps, p);
    });
    f.commit_ms = t_commits / static_cast<double>(commits) * 1e3;
  }
  return f;
}

void row(const std::string& transport, std::uint32_t tenants, const Figures& f) {
  std::cout << fmt::format("| {} | {} | {:.0f} | {:.3f} | {} |\n", transport, tenants, f.reads_per_s, f.snapshot_ms,
                           f.commit_ms < 0 ? std::string("n/a (no CSR block behind a file)") : fmt::format("{:.3f}", f.commit_ms));
  std::cout.flush();
}

// A file laid out like the register space, with ID/VERSION/CAPS filled in so that
// discovery works; everything else reads as written (no CSR behaviour).
void make_bar_file(const fs::path& p, std::uint32_t tenants) {
  test::StandInNic::Params params;
  params.tenants = tenants;
  test::StandInNic nic(params);
  std::vector<std::uint32_t> words(drivers::kRegisterSpaceBytes / 4, 0);
  for (std::uint32_t a = 0; a < 16; a += 4) words[a / 4] = nic.read32(a);
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(words.data()),
                                          static_cast<std::streamsize>(words.size() * 4));
}

void builtin(double seconds) {
  for (std::uint32_t tenants : {8u, 64u}) {
    test::StandInNic::Params params;
    params.tenants = tenants;
    params.cls_entries = tenants == 64 ? 64 : 16;
    {
      test::StandInNic nic(params);
      row("in-process (stand-in CSR, no transport)", tenants, measure(nic, seconds, true));
    }
    {
      test::StandInNic nic(params);
      drivers::ServerOptions o;
      o.handle_signals = false;
      o.unix_path = fmt::format("/tmp/bench-host-{}.sock", ::getpid());
      drivers::SimServer server(nic, o);
      std::thread th([&] { server.run(); });
      {
        auto tcp = drivers::open_bus(fmt::format("sim://127.0.0.1:{}", server.tcp_port()));
        row("sim:// TCP loopback (SimServer + stand-in CSR)", tenants, measure(*tcp, seconds, true));
        auto ux = drivers::open_bus("unix://" + o.unix_path);
        row("unix:// (SimServer + stand-in CSR)", tenants, measure(*ux, seconds, true));
      }
      server.stop();
      th.join();
    }
    {
      const fs::path root = fs::temp_directory_path() / fmt::format("bench-host-sysfs-{}", ::getpid());
      const fs::path dev = root / "bus/pci/devices/0000:03:00.0";
      fs::create_directories(dev);
      make_bar_file(dev / "resource0", tenants);
      drivers::BusOptions bo;
      bo.sysfs_root = root.string();
      auto pcie = drivers::open_bus("pcie://0000:03:00.0/bar0", bo);
      row("pcie:// mmap of a file standing in for the BAR", tenants, measure(*pcie, seconds, false));
      auto xdma = drivers::open_bus("xdma://" + (dev / "resource0").string());
      row("xdma:// pread/pwrite on a file standing in for the device", tenants, measure(*xdma, seconds, false));
      fs::remove_all(root);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_default_logger(spdlog::stderr_color_mt("bench_host"));
  spdlog::set_level(spdlog::level::warn);
  CLI::App app{"bench_host: register-bus reads/s, snapshot and policy-commit time"};
  double seconds = 1.0;
  std::string target;
  std::string label;
  app.add_option("--seconds", seconds, "Time per measurement")->capture_default_str();
  app.add_option("--target", target, "Measure this live target instead of the built-in ones");
  app.add_option("--label", label, "Transport column for --target (default: the URI)");
  if (const auto rc = nicsched::cli::parse_or_exit(app, argc, argv)) return *rc;
  try {
    if (!target.empty()) {
      auto bus = drivers::open_bus(target);
      const auto caps = host::discover(*bus);
      row(label.empty() ? target : label, caps.tenants, measure(*bus, seconds, true));
    } else {
      builtin(seconds);
    }
  } catch (const std::exception& e) {
    std::cerr << "bench_host: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
