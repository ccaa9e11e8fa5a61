// Words of one gather (RegisterBus::read_ranges / write_then_read), looked up by register
// address, so that the register codec (nicsched/nic/codec.hpp) can decode them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "nicsched/drivers/register_bus.hpp"

namespace nicsched::host {

class Gathered {
 public:
  // Ranges must be added in address order and must not overlap.
  void add(std::uint32_t addr, std::uint32_t words) {
    ranges_.push_back({addr, words});
    first_.push_back(words_.size());
    words_.resize(words_.size() + words);
  }
  [[nodiscard]] const std::vector<drivers::BlockRange>& ranges() const { return ranges_; }
  // Where the gather puts the words: one per word of every range, in order.
  [[nodiscard]] std::vector<std::uint32_t>& words() { return words_; }
  // The word at byte address `addr`, which lies in one of the ranges.
  [[nodiscard]] std::uint32_t at(std::uint32_t addr) const {
    const auto after = std::upper_bound(ranges_.begin(), ranges_.end(), addr,
                                        [](std::uint32_t a, const drivers::BlockRange& r) { return a < r.addr; });
    const auto k = static_cast<std::size_t>(after - ranges_.begin()) - 1;
    return words_[first_[k] + (addr - ranges_[k].addr) / 4];
  }

 private:
  std::vector<drivers::BlockRange> ranges_;
  std::vector<std::size_t> first_;  // index in words_ of each range's first word
  std::vector<std::uint32_t> words_;
};

}  // namespace nicsched::host
