// Workload generators: burst sizes, periods, progress accounting, arrivals and departures.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "nicsched/sim/scenario.hpp"
#include "nicsched/sim/workload.hpp"
#include "nicsched/sim/error.hpp"
#include "nicsched/sim/pcap_io.hpp"

#include <sys/stat.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>

using namespace nicsched::sim;

namespace {

struct Msg {
  std::uint32_t tenant;
  Flow flow;
  std::uint64_t bytes;
  std::uint32_t frame;
  std::uint64_t created;
};

struct RecordingSink : TrafficSink {
  std::vector<Msg> msgs;
  int cancels = 0;
  void send(std::uint32_t tenant, Flow flow, std::uint64_t bytes, std::uint32_t frame, std::uint64_t created) override {
    msgs.push_back({tenant, flow, bytes, frame, created});
  }
  void send_raw(std::uint32_t, Direction, const std::vector<std::uint8_t>&, std::uint64_t) override {}
  void cancel(std::uint32_t) override { ++cancels; }
};

// What `w` sends from cycle 0 until cycle `until`, waking it whenever it asks.
RecordingSink sends_until(Workload& w, std::uint64_t until) {
  RecordingSink sink;
  std::uint64_t now = 0;
  while (now < until) {
    w.wake(now, sink);
    now = w.next_wakeup();
  }
  return sink;
}

TenantSpec ddp_spec() {
  const Scenario s = parse_scenario(
      "name: t\nduration_s: 1\ntenants:\n"
      "  - {name: a, type: ddp, model_mb: 8, compute_ms: 40, workers: 4, start_ms: 4,\n"
      "     control: {period_us: 10, bytes: 128, deadline_us: 2}}\n",
      "t.yaml");
  return s.tenants[0];
}

}  // namespace

TEST_CASE("DDP: compute then a burst of 2(N-1)/N x model and the iteration ends when it is delivered",
          "[workload]") {
  const TenantSpec spec = ddp_spec();
  // 8 MB, 4 workers: 2*3/4*8 MB = 12 MB real -> 12000 bytes at scale 1000.
  REQUIRE(spec.burst_bytes == 12000);
  REQUIRE(spec.compute_cycles == 10000);  // 40 ms / 1000 = 40 us at 250 MHz
  REQUIRE(spec.start_cycle == 1000);
  DdpWorkload w(spec, 1);
  RecordingSink sink;
  CHECK(w.progress().phase == Phase::kNotArrived);
  CHECK(w.next_wakeup() == 1000);

  w.wake(1000, sink);  // arrives: compute starts, first control frame goes
  CHECK(w.progress().phase == Phase::kCompute);
  REQUIRE(sink.msgs.size() == 1);
  CHECK(sink.msgs[0].flow == Flow::kControl);
  CHECK(sink.msgs[0].frame == 128);
  CHECK(w.next_wakeup() == 3500);  // next control frame (10 us) before the compute ends

  std::uint64_t now = 3500;
  while (w.progress().phase == Phase::kCompute) {
    now = w.next_wakeup();
    w.wake(now, sink);
  }
  CHECK(now == 11000);  // compute of exactly 10000 cycles (no jitter)
  CHECK(w.progress().phase == Phase::kCommunicate);
  // The burst goes out at the end of the compute phase (with the control frame due then).
  const auto burst_it = std::find_if(sink.msgs.begin(), sink.msgs.end(), [](const Msg& m) { return m.flow == Flow::kBulkTx; });
  REQUIRE(burst_it != sink.msgs.end());
  const Msg burst = *burst_it;
  CHECK(burst.created == 11000);
  CHECK(burst.bytes == 12000);
  CHECK(burst.frame == 1518);
  // Control frames at 1000, 3500, 6000, 8500, 11000.
  int controls = 0;
  for (const auto& m : sink.msgs) controls += m.flow == Flow::kControl ? 1 : 0;
  CHECK(controls == 5);

  w.on_delivered(Flow::kBulkTx, 3000, 12000, sink);
  CHECK(w.progress().phase_fraction == Approx(0.25));
  CHECK(w.progress().units() == Approx(0.25));
  w.on_delivered(Flow::kControl, 0, 12000, sink);  // control does not move the burst
  CHECK(w.progress().phase_fraction == Approx(0.25));
  w.on_delivered(Flow::kBulkTx, 9000, 14000, sink);
  CHECK(w.progress().completed == 1);
  REQUIRE(w.iteration_cycles().size() == 1);
  CHECK(w.iteration_cycles()[0] == 13000);  // 1000 .. 14000
  REQUIRE(w.compute_cycles().size() == 1);
  CHECK(w.compute_cycles()[0] == 10000);  // 1000 .. 11000; the other 3000 cycles are the burst
  CHECK(w.progress().phase == Phase::kCompute);
  CHECK(w.progress().delivered_bytes == 12000);
  CHECK(w.progress().offered_bytes == 12000);
}

TEST_CASE("DDP: a tenant that leaves stops sending and cancels what is queued", "[workload]") {
  TenantSpec spec = ddp_spec();
  spec.stop_cycle = 5000;
  DdpWorkload w(spec, 1);
  RecordingSink sink;
  w.wake(1000, sink);
  CHECK(w.next_wakeup() <= 5000);
  w.wake(5000, sink);
  CHECK(w.progress().phase == Phase::kLeft);
  CHECK(sink.cancels == 1);
  CHECK(w.next_wakeup() == kNever);
}

TEST_CASE("DDP: jitter varies the compute time around its mean, and each iteration records its own", "[workload]") {
  TenantSpec spec = ddp_spec();
  spec.jitter = 0.2;
  spec.control.enabled = false;
  DdpWorkload w(spec, 7);
  RecordingSink sink;
  std::uint64_t now = spec.start_cycle;
  double sum = 0;
  std::uint64_t lo = ~0ULL, hi = 0, last = 0;
  for (int i = 0; i < 200; ++i) {
    w.wake(now, sink);  // arrival or compute start
    const std::uint64_t start = now;
    now = w.next_wakeup();
    w.wake(now, sink);  // compute done, burst sent
    const std::uint64_t c = now - start;
    sum += static_cast<double>(c);
    REQUIRE(w.compute_cycles().size() == static_cast<std::size_t>(i));
    if (i > 0) CHECK(w.compute_cycles()[static_cast<std::size_t>(i) - 1] == last);
    last = c;
    lo = std::min(lo, c);
    hi = std::max(hi, c);
    w.on_delivered(Flow::kBulkTx, spec.burst_bytes, now, sink);
  }
  CHECK(sum / 200 == Approx(10000).epsilon(0.05));
  CHECK(lo < 9000);
  CHECK(hi > 11000);
  CHECK(w.progress().completed == 200);
}

TEST_CASE("FL: download, train, upload with the expansion factor", "[workload]") {
  const Scenario s = parse_scenario(
      "name: t\nduration_s: 1\ntenants:\n"
      "  - {name: f, type: fl, update_mb: 10, train_ms: 20, expansion: 2.5}\n",
      "t.yaml");
  const TenantSpec& spec = s.tenants[0];
  CHECK(spec.download_bytes == 10000);
  CHECK(spec.upload_bytes == 25000);
  FlWorkload w(spec, 1);
  RecordingSink sink;
  w.wake(0, sink);
  CHECK(w.progress().phase == Phase::kDownload);
  REQUIRE(sink.msgs.size() == 1);
  CHECK(sink.msgs[0].flow == Flow::kBulkRx);
  CHECK(sink.msgs[0].bytes == 10000);
  w.on_delivered(Flow::kBulkRx, 10000, 800, sink);
  CHECK(w.progress().phase == Phase::kTrain);
  CHECK(w.next_wakeup() == 800 + 5000);
  w.wake(5800, sink);
  CHECK(w.progress().phase == Phase::kUpload);
  CHECK(sink.msgs.back().flow == Flow::kBulkTx);
  CHECK(sink.msgs.back().bytes == 25000);
  w.on_delivered(Flow::kBulkTx, 12500, 6000, sink);
  CHECK(w.progress().phase_fraction == Approx(0.5));
  w.on_delivered(Flow::kBulkTx, 12500, 7000, sink);
  CHECK(w.progress().completed == 1);
  CHECK(w.iteration_cycles().at(0) == 7000);
  CHECK(w.compute_cycles().at(0) == 5000);  // 800 .. 5800: the rest of the round is transfer
  CHECK(w.progress().phase == Phase::kDownload);  // next round started
}

TEST_CASE("background: constant rate offers rate x time", "[workload]") {
  const Scenario s = parse_scenario(
      "name: t\nduration_s: 1\ntenants:\n  - {name: b, type: background, rate_gbps: 10, packet_bytes: 1000}\n",
      "t.yaml");
  BackgroundWorkload w(s.tenants[0], 1, s.clock_mhz);
  // 10 Gbit/s at 250 MHz = 40 bits/cycle: a 1000-byte frame every 200 cycles.
  const RecordingSink sink = sends_until(w, 100000);
  CHECK(sink.msgs.size() == 500);
  CHECK(sink.msgs[1].created - sink.msgs[0].created == 200);
}

TEST_CASE("background: Poisson has the mean rate, on/off sends only while on", "[workload]") {
  const Scenario s = parse_scenario(
      "name: t\nduration_s: 1\ntenants:\n"
      "  - {name: p, type: background, pattern: poisson, rate_gbps: 10, packet_bytes: 1000}\n"
      "  - {name: o, type: background, pattern: onoff, rate_gbps: 10, packet_bytes: 1000, on_ms: 40, off_ms: 120}\n",
      "t.yaml");
  {
    BackgroundWorkload w(s.tenants[0], 3, s.clock_mhz);
    const RecordingSink sink = sends_until(w, 2000000);
    CHECK(static_cast<double>(sink.msgs.size()) == Approx(10000).epsilon(0.05));
  }
  {
    BackgroundWorkload w(s.tenants[1], 3, s.clock_mhz);
    const RecordingSink sink = sends_until(w, 400000);  // on 10000 cycles, off 30000
    for (const auto& m : sink.msgs) CHECK(m.created % 40000 < 10000);
    CHECK(static_cast<double>(sink.msgs.size()) == Approx(500).epsilon(0.02));  // 10 periods x 50
  }
}

TEST_CASE("pcap: frames written by PcapWriter replay at their timestamps", "[workload]") {
  const auto file = std::filesystem::temp_directory_path() / ("nicsim-test-" + std::to_string(::getpid()) + ".pcap");
  {
    PcapWriter w(file, 250.0);
    std::vector<std::uint8_t> f(100, 0xAB);
    w.write(0, f.data(), 100);        // t = 0
    w.write(2500, f.data(), 100);     // t = 10 us
    w.write(5000, f.data(), 60);      // t = 20 us
    CHECK(w.frames() == 3);
  }
  const auto frames = read_pcap(file);
  REQUIRE(frames.size() == 3);
  CHECK(frames[1].time_s - frames[0].time_s == Approx(10e-6));
  CHECK(frames[2].bytes.size() == 60);

  const Scenario s = parse_scenario("name: t\nduration_s: 1\ntenants:\n  - {name: p, type: pcap, file: " + file.string() +
                                        ", speed: 2, start_ms: 4}\n",
                                    "t.yaml");
  PcapWorkload w(s.tenants[0], 1, s.clock_mhz);
  RecordingSink sink;
  struct RawSink : RecordingSink {
    std::vector<std::uint64_t> at;
    void send_raw(std::uint32_t, Direction, const std::vector<std::uint8_t>&, std::uint64_t created) override {
      at.push_back(created);
    }
  } raw;
  std::uint64_t now = w.next_wakeup();
  CHECK(now == 1000);  // 4 ms real / 1000 at 250 MHz
  while (now != kNever) {
    w.wake(now, raw);
    now = w.next_wakeup();
  }
  // Twice as fast: 10 us apart becomes 5 us = 1250 cycles.
  CHECK(raw.at == std::vector<std::uint64_t>{1000, 2250, 3500});
  CHECK(w.progress().phase == Phase::kLeft);
  std::filesystem::remove(file);
}

namespace {

// The message read_pcap fails with (SimError), or "" when it reads the file.
std::string pcap_error(const std::filesystem::path& file) {
  try {
    (void)read_pcap(file);
  } catch (const SimError& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST_CASE("pcap: a device, a FIFO and a directory are refused, naming the file, without reading them", "[workload]") {
  using Catch::Contains;
  CHECK_THAT(pcap_error("/dev/urandom"), Contains("/dev/urandom") && Contains("character device, not a regular file"));
  const auto dir = std::filesystem::temp_directory_path() / ("nicsim-pcap-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto fifo = dir / "capture.pcap";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THAT(pcap_error(fifo), Contains(fifo.string()) && Contains("a FIFO, not a regular file"));  // no writer: would block
  CHECK_THAT(pcap_error(dir), Contains(dir.string()) && Contains("a directory"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("pcap: a capture over kMaxCaptureBytes is refused by its size before it is read", "[workload]") {
  const auto file = std::filesystem::temp_directory_path() / ("nicsim-big-" + std::to_string(::getpid()) + ".pcap");
  { std::ofstream(file) << "x"; }
  std::filesystem::resize_file(file, kMaxCaptureBytes + 1);  // sparse: no disk used
  const std::string err = pcap_error(file);
  std::filesystem::remove(file);
  CHECK_THAT(err, Catch::Contains(file.string()) && Catch::Contains("over the limit of 256 MiB"));
}

TEST_CASE("pcap: a capture that is not Ethernet is refused with its link type", "[workload]") {
  const auto file = std::filesystem::temp_directory_path() / ("nicsim-raw-" + std::to_string(::getpid()) + ".pcap");
  {
    // pcap file header, little endian: magic, version 2.4, zone, sigfigs, snaplen 65535, link type 105 (802.11)
    const unsigned char header[24] = {0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                      0xff, 0xff, 0, 0, 105, 0, 0, 0};
    std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(header), sizeof header);
  }
  const std::string err = pcap_error(file);
  std::filesystem::remove(file);
  CHECK_THAT(err, Catch::Contains(file.string()) && Catch::Contains("not Ethernet (link type 105)"));
}
