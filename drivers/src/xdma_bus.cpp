// xdma:///dev/xdma0_user: the Xilinx XDMA driver's AXI4-Lite user device. A pread or
// pwrite at offset A is an AXI-Lite access at address A.
#include <fcntl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "local_buses.hpp"

namespace nicsched::drivers::detail {

namespace {

class XdmaBus final : public RegisterBus {
 public:
  XdmaBus(std::string uri, std::string path, int fd, std::uint64_t window, bool writable, std::string denied)
      : uri_(std::move(uri)), path_(std::move(path)), fd_(fd), window_(window), writable_(writable),
        denied_(std::move(denied)) {}
  ~XdmaBus() override { ::close(fd_); }
  XdmaBus(const XdmaBus&) = delete;
  XdmaBus& operator=(const XdmaBus&) = delete;

  std::uint32_t read32(std::uint32_t addr) override {
    std::uint32_t v = 0;
    read_block(addr, std::span<std::uint32_t>(&v, 1));
    return v;
  }

  void write32(std::uint32_t addr, std::uint32_t value) override {
    check_access(uri_, "write32", addr, 1, window_);
    if (!writable_) {
      throw BusError(fmt::format("{}: write32 at 0x{:04x} refused: {} is open read-only ({})", uri_, addr,
                                 path_, denied_));
    }
    const ssize_t n = ::pwrite(fd_, &value, sizeof(value), addr);
    if (n != static_cast<ssize_t>(sizeof(value))) {
      throw BusError(fmt::format("{}: write32 at 0x{:04x} failed: {}", uri_, addr,
                                 n < 0 ? std::strerror(errno) : "short write"));
    }
  }

  // One pread for the whole block: the XDMA user device turns it into consecutive
  // 32-bit AXI-Lite reads.
  void read_block(std::uint32_t addr, std::span<std::uint32_t> out) override {
    check_access(uri_, out.size() == 1 ? "read32" : "read_block", addr, out.size(), window_);
    const std::size_t bytes = out.size() * sizeof(std::uint32_t);
    const ssize_t n = ::pread(fd_, out.data(), bytes, addr);
    if (n != static_cast<ssize_t>(bytes)) {
      throw BusError(fmt::format("{}: read of {} bytes at 0x{:04x} failed: {}", uri_, bytes, addr,
                                 n < 0 ? std::strerror(errno) : "short read"));
    }
  }

  [[nodiscard]] std::string describe() const override { return uri_; }

 private:
  std::string uri_;
  std::string path_;
  int fd_;
  std::uint64_t window_;
  bool writable_;
  std::string denied_;
};

}  // namespace

std::unique_ptr<RegisterBus> open_xdma(const std::string& uri, const std::string& path,
                                       const BusOptions& options) {
  bool writable = true;
  std::string denied;
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS)) {
    denied = fmt::format("no write permission on {}: {}; run as root or grant write access", path,
                         std::strerror(errno));
    writable = false;
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) {
      throw BusError(fmt::format("{}: {} does not exist (is the xdma driver loaded?)", uri, path));
    }
    if (err == EACCES || err == EPERM) {
      throw BusError(fmt::format("{}: permission denied opening {}: run as root or grant access", uri, path));
    }
    throw BusError(fmt::format("{}: cannot open {}: {}", uri, path, std::strerror(err)));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    throw BusError(fmt::format("{}: cannot stat {}: {}", uri, path, std::strerror(err)));
  }
  std::uint64_t window = options.window_bytes;
  if (window == 0) {
    window = S_ISREG(st.st_mode) ? std::min(static_cast<std::uint64_t>(st.st_size), kRegisterSpaceBytes)
                                 : kRegisterSpaceBytes;
  }
  if (window == 0) {
    ::close(fd);
    throw BusError(fmt::format("{}: {} is empty: no register window", uri, path));
  }
  if (!writable) spdlog::warn("{}: {}", uri, denied);
  return std::make_unique<XdmaBus>(uri, path, fd, window, writable, denied);
}

}  // namespace nicsched::drivers::detail
