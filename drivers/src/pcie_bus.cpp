// pcie://DDDD:BB:DD.F/barN: the BAR mapped into this process, either through the sysfs
// resource file or, for a device bound to vfio-pci, through its VFIO region.
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/vfio.h>
#include <spdlog/spdlog.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "local_buses.hpp"

namespace nicsched::drivers::detail {

namespace fs = std::filesystem;

namespace {

std::string errno_text(int err) { return std::strerror(err); }

// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      if (fd_ >= 0) ::close(fd_);
      fd_ = o.fd_;
      o.fd_ = -1;
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  [[nodiscard]] int get() const { return fd_; }

 private:
  int fd_ = -1;
};

// A register window mapped into memory. Accesses are single 32-bit volatile loads and
// stores, as PCIe needs.
class MappedBus final : public RegisterBus {
 public:
  MappedBus(std::string uri, std::vector<Fd> fds, void* base, std::size_t map_bytes,
            std::uint64_t window, bool writable, std::string write_denied_reason)
      : uri_(std::move(uri)), fds_(std::move(fds)), base_(static_cast<std::uint8_t*>(base)),
        map_bytes_(map_bytes), window_(window), writable_(writable),
        write_denied_reason_(std::move(write_denied_reason)) {}
  ~MappedBus() override { ::munmap(base_, map_bytes_); }
  MappedBus(const MappedBus&) = delete;
  MappedBus& operator=(const MappedBus&) = delete;

  std::uint32_t read32(std::uint32_t addr) override {
    check_access(uri_, "read32", addr, 1, window_);
    return *word(addr);
  }
  void write32(std::uint32_t addr, std::uint32_t value) override {
    check_access(uri_, "write32", addr, 1, window_);
    check_writable(addr);
    *word(addr) = value;
  }
  void read_block(std::uint32_t addr, std::span<std::uint32_t> out) override {
    check_access(uri_, "read_block", addr, out.size(), window_);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = *word(static_cast<std::uint32_t>(addr + 4 * i));
  }
  [[nodiscard]] std::string describe() const override { return uri_; }

 private:
  volatile std::uint32_t* word(std::uint32_t addr) {
    return reinterpret_cast<volatile std::uint32_t*>(base_ + addr);
  }
  void check_writable(std::uint32_t addr) const {
    if (!writable_) {
      throw BusError(fmt::format("{}: write32 at 0x{:04x} refused: the BAR is mapped read-only ({})",
                                 uri_, addr, write_denied_reason_));
    }
  }

  std::string uri_;
  std::vector<Fd> fds_;
  std::uint8_t* base_;
  std::size_t map_bytes_;
  std::uint64_t window_;
  bool writable_;
  std::string write_denied_reason_;
};

// Opens read-write, or read-only where writing is not permitted; says which.
struct OpenResult {
  Fd fd;
  bool writable = true;
  std::string denied;
};

OpenResult open_rw_or_ro(const std::string& uri, const std::string& path, const char* what) {
  OpenResult r;
  int fd = ::open(path.c_str(), O_RDWR | O_SYNC | O_CLOEXEC);
  if (fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS)) {
    r.denied = fmt::format("no write permission on {}: {}; run as root or grant write access", path,
                           errno_text(errno));
    fd = ::open(path.c_str(), O_RDONLY | O_SYNC | O_CLOEXEC);
    r.writable = false;
  }
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) throw BusError(fmt::format("{}: {} {} does not exist", uri, what, path));
    if (err == EACCES || err == EPERM) {
      throw BusError(fmt::format("{}: permission denied opening {} {}: run as root or grant access",
                                 uri, what, path));
    }
    throw BusError(fmt::format("{}: cannot open {} {}: {}", uri, what, path, errno_text(err)));
  }
  r.fd = Fd(fd);
  if (!r.writable) spdlog::warn("{}: {}", uri, r.denied);
  return r;
}

std::unique_ptr<RegisterBus> map_resource_file(const std::string& uri, const std::string& path,
                                               const BusOptions& options) {
  OpenResult f = open_rw_or_ro(uri, path, "BAR resource file");
  struct stat st {};
  if (::fstat(f.fd.get(), &st) != 0) {
    throw BusError(fmt::format("{}: cannot stat {}: {}", uri, path, errno_text(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    throw BusError(fmt::format("{}: {} is not a resource file (a regular file in sysfs)", uri, path));
  }
  const auto bar_bytes = static_cast<std::uint64_t>(st.st_size);
  if (bar_bytes == 0) {
    throw BusError(fmt::format("{}: {} has size 0: the BAR is not assigned (or is an I/O BAR)", uri, path));
  }
  std::uint64_t window = options.window_bytes ? options.window_bytes : std::min(bar_bytes, kRegisterSpaceBytes);
  if (window > bar_bytes) {
    throw BusError(fmt::format("{}: register window of {} bytes is larger than the BAR ({} bytes)", uri,
                               window, bar_bytes));
  }
  const int prot = PROT_READ | (f.writable ? PROT_WRITE : 0);
  void* base = ::mmap(nullptr, window, prot, MAP_SHARED, f.fd.get(), 0);
  if (base == MAP_FAILED) {
    throw BusError(fmt::format("{}: mmap of {} ({} bytes) failed: {}", uri, path, window, errno_text(errno)));
  }
  std::vector<Fd> fds;
  fds.push_back(std::move(f.fd));
  spdlog::debug("{}: mapped {} bytes of {}", uri, window, path);
  return std::make_unique<MappedBus>(uri, std::move(fds), base, static_cast<std::size_t>(window), window,
                                     f.writable, f.denied);
}

// The device is bound to vfio-pci: map the BAR through its VFIO device region.
std::unique_ptr<RegisterBus> map_vfio_region(const std::string& uri, const fs::path& dev_dir,
                                             const std::string& bdf, unsigned bar,
                                             const BusOptions& options) {
  std::error_code ec;
  const fs::path group_link = fs::read_symlink(dev_dir / "iommu_group", ec);
  if (ec) throw BusError(fmt::format("{}: device bound to vfio-pci but {} is unreadable: {}", uri,
                                     (dev_dir / "iommu_group").string(), ec.message()));
  const std::string group = group_link.filename().string();
  Fd container(::open("/dev/vfio/vfio", O_RDWR | O_CLOEXEC));
  if (container.get() < 0) throw BusError(fmt::format("{}: cannot open /dev/vfio/vfio: {}", uri, errno_text(errno)));
  if (::ioctl(container.get(), VFIO_GET_API_VERSION) != VFIO_API_VERSION) {
    throw BusError(fmt::format("{}: /dev/vfio/vfio speaks an unknown VFIO API version", uri));
  }
  const std::string group_path = "/dev/vfio/" + group;
  Fd group_fd(::open(group_path.c_str(), O_RDWR | O_CLOEXEC));
  if (group_fd.get() < 0) {
    throw BusError(fmt::format("{}: cannot open VFIO group {}: {}", uri, group_path, errno_text(errno)));
  }
  vfio_group_status status{};
  status.argsz = sizeof(status);
  if (::ioctl(group_fd.get(), VFIO_GROUP_GET_STATUS, &status) != 0 ||
      (status.flags & VFIO_GROUP_FLAGS_VIABLE) == 0) {
    throw BusError(fmt::format("{}: VFIO group {} is not viable: bind every device of the group to vfio-pci",
                               uri, group));
  }
  int container_fd = container.get();
  if (::ioctl(group_fd.get(), VFIO_GROUP_SET_CONTAINER, &container_fd) != 0) {
    throw BusError(fmt::format("{}: VFIO_GROUP_SET_CONTAINER failed: {}", uri, errno_text(errno)));
  }
  if (::ioctl(container.get(), VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU) != 0 &&
      ::ioctl(container.get(), VFIO_SET_IOMMU, VFIO_TYPE1_IOMMU) != 0) {
    throw BusError(fmt::format("{}: VFIO_SET_IOMMU failed: {}", uri, errno_text(errno)));
  }
  Fd device(::ioctl(group_fd.get(), VFIO_GROUP_GET_DEVICE_FD, bdf.c_str()));
  if (device.get() < 0) {
    throw BusError(fmt::format("{}: VFIO_GROUP_GET_DEVICE_FD({}) failed: {}", uri, bdf, errno_text(errno)));
  }
  vfio_region_info region{};
  region.argsz = sizeof(region);
  region.index = VFIO_PCI_BAR0_REGION_INDEX + bar;
  if (::ioctl(device.get(), VFIO_DEVICE_GET_REGION_INFO, &region) != 0) {
    throw BusError(fmt::format("{}: VFIO_DEVICE_GET_REGION_INFO(bar{}) failed: {}", uri, bar, errno_text(errno)));
  }
  if (region.size == 0) throw BusError(fmt::format("{}: BAR {} is not implemented by the device", uri, bar));
  if ((region.flags & VFIO_REGION_INFO_FLAG_MMAP) == 0) {
    throw BusError(fmt::format("{}: VFIO says BAR {} cannot be mmapped", uri, bar));
  }
  const bool writable = (region.flags & VFIO_REGION_INFO_FLAG_WRITE) != 0;
  const std::uint64_t window =
      options.window_bytes ? options.window_bytes : std::min<std::uint64_t>(region.size, kRegisterSpaceBytes);
  if (window > region.size) {
    throw BusError(fmt::format("{}: register window of {} bytes is larger than the BAR ({} bytes)", uri,
                               window, region.size));
  }
  void* base = ::mmap(nullptr, window, PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, device.get(),
                      static_cast<off_t>(region.offset));
  if (base == MAP_FAILED) {
    throw BusError(fmt::format("{}: mmap of VFIO region bar{} failed: {}", uri, bar, errno_text(errno)));
  }
  std::vector<Fd> fds;
  fds.push_back(std::move(device));
  fds.push_back(std::move(group_fd));
  fds.push_back(std::move(container));
  return std::make_unique<MappedBus>(uri, std::move(fds), base, static_cast<std::size_t>(window), window,
                                     writable, "VFIO region is not writable");
}

}  // namespace

std::unique_ptr<RegisterBus> open_pcie(const std::string& uri, const std::string& bdf, unsigned bar,
                                       const BusOptions& options) {
  std::string root = options.sysfs_root;
  if (root.empty()) {
    const char* env = std::getenv("NICSCHED_SYSFS_ROOT");
    root = env && *env ? env : "/sys";
  }
  const fs::path dev_dir = fs::path(root) / "bus" / "pci" / "devices" / bdf;
  std::error_code ec;
  if (!fs::exists(dev_dir, ec)) {
    throw BusError(fmt::format("{}: no PCI device {} ({} does not exist; see lspci -D)", uri, bdf,
                               dev_dir.string()));
  }
  const fs::path driver = fs::read_symlink(dev_dir / "driver", ec);
  if (!ec && driver.filename() == "vfio-pci") {
    spdlog::debug("{}: device is bound to vfio-pci; mapping through VFIO", uri);
    return map_vfio_region(uri, dev_dir, bdf, bar, options);
  }
  return map_resource_file(uri, (dev_dir / fmt::format("resource{}", bar)).string(), options);
}

}  // namespace nicsched::drivers::detail
