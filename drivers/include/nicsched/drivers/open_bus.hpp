// open_bus: a RegisterBus chosen by URI.
//
//   sim://HOST:PORT          nicsim serve over TCP (SimClient; also SimControl + metrics)
//   unix:///PATH             nicsim serve over a Unix socket (SimClient)
//   pcie://DDDD:BB:DD.F/barN PCIe BAR N of that device: mmap of
//                            <sysfs_root>/bus/pci/devices/DDDD:BB:DD.F/resourceN, or, when the
//                            device is bound to vfio-pci, the BAR region of its VFIO device
//   xdma:///dev/xdma0_user   the Xilinx XDMA driver's AXI-Lite user device (pread/pwrite)
//
// The result can be dynamic_cast to SimControl / SimTarget / SimClient where the transport
// is a simulator. Errors throw BusError naming the URI.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "nicsched/drivers/register_bus.hpp"

namespace nicsched::drivers {

// The URI itself is wrong (unknown scheme, bad PCI address, ...).
class UriError : public BusError {
 public:
  using BusError::BusError;
};

struct BusOptions {
  // Socket transports: most time one request may take before it fails with a timeout.
  std::chrono::milliseconds timeout{5000};
  // Socket transports: a STEP may take long in lock-step mode; its own limit.
  std::chrono::milliseconds step_timeout{120000};
  // Socket transports: connection attempts (first connect and each reconnect), and the
  // pause between them.
  int connect_attempts = 3;
  std::chrono::milliseconds reconnect_backoff{200};
  // Name the client gives in HELLO (shown in the server's log and in "NIC held by" errors).
  // Empty: the program's name and process id, e.g. "nicagent pid 4242".
  std::string client_name;
  // Socket transports: the shared secret of a server started with --secret-file. Empty:
  // open_bus reads the file named by the environment variable NICSCHED_SECRET_FILE, if set.
  std::string secret;
  // pcie://: where sysfs is. Tests point this at a directory tree whose
  // bus/pci/devices/<BDF>/resourceN is a plain file standing in for the BAR. The
  // environment variable NICSCHED_SYSFS_ROOT overrides the default "/sys".
  std::string sysfs_root;
  // pcie:// and xdma://: size of the register window. 0: for pcie:// the BAR (resource
  // file) size, for xdma:// the map's 64 KiB address space; a plain file stands in with
  // its own size.
  std::uint64_t window_bytes = 0;
};

// The register space the map spans (16-bit AXI4-Lite address).
inline constexpr std::uint64_t kRegisterSpaceBytes = 64 * 1024;

[[nodiscard]] std::unique_ptr<RegisterBus> open_bus(const std::string& uri,
                                                    const BusOptions& options = {});

}  // namespace nicsched::drivers
