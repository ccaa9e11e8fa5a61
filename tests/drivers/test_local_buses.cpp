// pcie:// and xdma:// against plain files standing in for the BAR / the XDMA user device
// (no card here): the URI handling, the mapping itself (checked through the file's
// bytes), bounds, alignment and permission checks.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "nicsched/drivers/open_bus.hpp"

using namespace nicsched;
namespace fs = std::filesystem;

namespace {

// A fake sysfs tree: <root>/bus/pci/devices/0000:03:00.0/resource0 (a file standing in
// for the BAR) and a plain file standing in for /dev/xdma0_user.
class FakeBarFiles {
 public:
  explicit FakeBarFiles(std::size_t bar_bytes = 64 * 1024) {
    root_ = fs::temp_directory_path() / ("nicsched-fake-sysfs-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(counter_++));
    dev_ = root_ / "bus" / "pci" / "devices" / "0000:03:00.0";
    fs::create_directories(dev_);
    make_file(dev_ / "resource0", bar_bytes);
    make_file(root_ / "xdma0_user", bar_bytes);
    // Traversable by an unprivileged user, for the permission test.
    for (fs::path p = dev_; p != root_.parent_path(); p = p.parent_path()) {
      fs::permissions(p, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                             fs::perms::others_read | fs::perms::others_exec);
    }
  }
  ~FakeBarFiles() { fs::remove_all(root_); }
  FakeBarFiles(const FakeBarFiles&) = delete;
  FakeBarFiles& operator=(const FakeBarFiles&) = delete;

  [[nodiscard]] drivers::BusOptions options() const {
    drivers::BusOptions o;
    o.sysfs_root = root_.string();
    return o;
  }
  [[nodiscard]] fs::path bar() const { return dev_ / "resource0"; }
  [[nodiscard]] fs::path xdma() const { return root_ / "xdma0_user"; }
  [[nodiscard]] const fs::path& root() const { return root_; }

  // The file's bytes at `offset`, read independently of the transport.
  static std::uint32_t word_in_file(const fs::path& file, std::uint32_t offset) {
    const int fd = ::open(file.c_str(), O_RDONLY);
    std::uint32_t v = 0;
    REQUIRE(::pread(fd, &v, 4, offset) == 4);
    ::close(fd);
    return v;
  }
  static void put_word_in_file(const fs::path& file, std::uint32_t offset, std::uint32_t v) {
    const int fd = ::open(file.c_str(), O_RDWR);
    REQUIRE(::pwrite(fd, &v, 4, offset) == 4);
    ::close(fd);
  }

 private:
  static void make_file(const fs::path& p, std::size_t bytes) {
    std::ofstream(p, std::ios::binary) << std::string(bytes, '\0');
    fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                           fs::perms::others_read);
  }
  static inline int counter_ = 0;
  fs::path root_;
  fs::path dev_;
};

// Runs `f` with the effective uid of an unprivileged user when this test runs as root
// (root ignores file modes), so that a mode of 0644 really denies writing.
template <class F>
void as_unprivileged(F&& f) {
  const bool root = ::geteuid() == 0;
  if (root) REQUIRE(::seteuid(65534) == 0);
  try {
    f();
  } catch (...) {
    if (root) (void)::seteuid(0);
    throw;
  }
  if (root) REQUIRE(::seteuid(0) == 0);
}

}  // namespace

TEST_CASE("pcie (file standing in for the BAR): words land at their offsets in the BAR", "[pcie]") {
  FakeBarFiles files;
  auto bus = drivers::open_bus("pcie://0000:03:00.0/bar0", files.options());
  CHECK(bus->describe() == "pcie://0000:03:00.0/bar0");
  bus->write32(0x1004, 0xDEADBEEF);
  CHECK(FakeBarFiles::word_in_file(files.bar(), 0x1004) == 0xDEADBEEF);
  FakeBarFiles::put_word_in_file(files.bar(), 0xFFFC, 0x12345678);
  CHECK(bus->read32(0xFFFC) == 0x12345678);
  FakeBarFiles::put_word_in_file(files.bar(), 0x2000, 1);
  FakeBarFiles::put_word_in_file(files.bar(), 0x2004, 2);
  std::vector<std::uint32_t> out(3);
  bus->read_block(0x2000, out);
  CHECK(out == std::vector<std::uint32_t>{1, 2, 0});
  CHECK(bus->read64(0x2000) == ((std::uint64_t{2} << 32) | 1));
}

TEST_CASE("pcie (file standing in for the BAR): out-of-window and unaligned accesses name URI and address", "[pcie]") {
  FakeBarFiles files(4096);  // a 4 KiB BAR: the window is the BAR
  auto bus = drivers::open_bus("pcie://0000:03:00.0/bar0", files.options());
  CHECK(bus->read32(0xFFC) == 0);
  CHECK_THROWS_WITH(bus->read32(0x1000), Catch::Contains("pcie://0000:03:00.0/bar0") &&
                                             Catch::Contains("0x1000") && Catch::Contains("outside"));
  CHECK_THROWS_WITH(bus->write32(0x0102, 1), Catch::Contains("0x0102") && Catch::Contains("aligned"));
  std::vector<std::uint32_t> out(2);
  CHECK_THROWS_WITH(bus->read_block(0xFFC, out), Catch::Contains("0x0ffc") && Catch::Contains("2 words"));
  CHECK_THROWS_AS(bus->read32(0xFFFFFFFC), drivers::BusError);
}

TEST_CASE("pcie (file standing in for the BAR): without write permission reads work and writes are refused", "[pcie]") {
  FakeBarFiles files;
  FakeBarFiles::put_word_in_file(files.bar(), 0x10, 99);
  as_unprivileged([&] {
    auto bus = drivers::open_bus("pcie://0000:03:00.0/bar0", files.options());
    CHECK(bus->read32(0x10) == 99);
    CHECK_THROWS_WITH(bus->write32(0x10, 1), Catch::Contains("0x0010") && Catch::Contains("read-only") &&
                                                 Catch::Contains("permission"));
  });
  CHECK(FakeBarFiles::word_in_file(files.bar(), 0x10) == 99);
}

TEST_CASE("pcie (file standing in for the BAR): a missing device or BAR is named", "[pcie]") {
  FakeBarFiles files;
  CHECK_THROWS_WITH(drivers::open_bus("pcie://0000:04:00.0/bar0", files.options()),
                    Catch::Contains("no PCI device 0000:04:00.0"));
  CHECK_THROWS_WITH(drivers::open_bus("pcie://0000:03:00.0/bar2", files.options()),
                    Catch::Contains("resource2") && Catch::Contains("does not exist"));
}

TEST_CASE("pcie (file standing in for the BAR): NICSCHED_SYSFS_ROOT points the transport at the stand-in", "[pcie]") {
  FakeBarFiles files;
  FakeBarFiles::put_word_in_file(files.bar(), 0x0, 0x4E534348);
  ::setenv("NICSCHED_SYSFS_ROOT", files.root().c_str(), 1);
  auto bus = drivers::open_bus("pcie://0000:03:00.0/bar0");
  ::unsetenv("NICSCHED_SYSFS_ROOT");
  CHECK(bus->read32(0x0) == 0x4E534348);
}

TEST_CASE("xdma (plain file standing in for the user device): pread/pwrite at register offsets", "[xdma]") {
  FakeBarFiles files;
  const std::string uri = "xdma://" + files.xdma().string();
  auto bus = drivers::open_bus(uri);
  CHECK(bus->describe() == uri);
  bus->write32(0x40, 0xA5A5A5A5);
  CHECK(FakeBarFiles::word_in_file(files.xdma(), 0x40) == 0xA5A5A5A5);
  for (std::uint32_t i = 0; i < 8; ++i) FakeBarFiles::put_word_in_file(files.xdma(), 0x4000 + 4 * i, 100 + i);
  std::vector<std::uint32_t> out(8);
  bus->read_block(0x4000, out);
  for (std::uint32_t i = 0; i < 8; ++i) CHECK(out[i] == 100 + i);
  CHECK_THROWS_WITH(bus->read32(0x10000), Catch::Contains(uri) && Catch::Contains("0x10000"));
  CHECK_THROWS_WITH(bus->write32(0x41, 0), Catch::Contains("aligned"));
}

TEST_CASE("xdma (plain file standing in for the user device): missing device and write permission", "[xdma]") {
  FakeBarFiles files;
  CHECK_THROWS_WITH(drivers::open_bus("xdma:///nonexistent/xdma9_user"),
                    Catch::Contains("/nonexistent/xdma9_user") && Catch::Contains("xdma driver"));
  as_unprivileged([&] {
    auto bus = drivers::open_bus("xdma://" + files.xdma().string());
    CHECK(bus->read32(0x0) == 0);
    CHECK_THROWS_WITH(bus->write32(0x0, 1), Catch::Contains("read-only"));
  });
}

TEST_CASE("open_bus: malformed URIs are refused with what was expected", "[uri]") {
  CHECK_THROWS_AS(drivers::open_bus("localhost:5555"), drivers::UriError);
  CHECK_THROWS_WITH(drivers::open_bus("tcp://localhost:5555"), Catch::Contains("unknown scheme 'tcp'"));
  CHECK_THROWS_WITH(drivers::open_bus("sim://localhost"), Catch::Contains("HOST:PORT"));
  CHECK_THROWS_WITH(drivers::open_bus("sim://localhost:0"), Catch::Contains("1..65535"));
  CHECK_THROWS_WITH(drivers::open_bus("sim://localhost:99999"), Catch::Contains("1..65535"));
  CHECK_THROWS_WITH(drivers::open_bus("unix://tmp/x.sock"), Catch::Contains("absolute path"));
  CHECK_THROWS_WITH(drivers::open_bus("pcie://03:00.0/bar0"), Catch::Contains("DDDD:BB:DD.F"));
  CHECK_THROWS_WITH(drivers::open_bus("pcie://0000:03:00.0/bar6"), Catch::Contains("DDDD:BB:DD.F"));
  CHECK_THROWS_WITH(drivers::open_bus("xdma://dev/xdma0_user"), Catch::Contains("absolute"));
}

TEST_CASE("pcie (file standing in for the BAR): a device bound to vfio-pci is opened through VFIO", "[pcie]") {
  FakeBarFiles files;
  const fs::path dev = files.root() / "bus" / "pci" / "devices" / "0000:03:00.0";
  fs::create_directories(files.root() / "bus" / "pci" / "drivers" / "vfio-pci");
  fs::create_directories(files.root() / "kernel" / "iommu_groups" / "98765");
  fs::create_directory_symlink(files.root() / "bus" / "pci" / "drivers" / "vfio-pci", dev / "driver");
  fs::create_directory_symlink(files.root() / "kernel" / "iommu_groups" / "98765", dev / "iommu_group");
  // No VFIO here (or no group 98765): the error shows the VFIO path was taken, not the
  // resource file, and names the URI.
  CHECK_THROWS_WITH(drivers::open_bus("pcie://0000:03:00.0/bar0", files.options()),
                    Catch::Contains("pcie://0000:03:00.0/bar0") && Catch::Contains("/dev/vfio/"));
}
