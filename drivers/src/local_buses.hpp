// Transports to a card in this machine (PCIe BAR mmap, VFIO, XDMA user device).
// Internal to nicsched::drivers; reached through open_bus().
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nicsched/drivers/open_bus.hpp"

namespace nicsched::drivers::detail {

// Throws BusError naming the URI, the operation and the address when `count` words from
// `addr` are unaligned or run past `window` bytes.
void check_access(const std::string& uri, const char* op, std::uint32_t addr, std::size_t count,
                  std::uint64_t window);

std::unique_ptr<RegisterBus> open_pcie(const std::string& uri, const std::string& bdf, unsigned bar,
                                       const BusOptions& options);
std::unique_ptr<RegisterBus> open_xdma(const std::string& uri, const std::string& path,
                                       const BusOptions& options);

}  // namespace nicsched::drivers::detail
