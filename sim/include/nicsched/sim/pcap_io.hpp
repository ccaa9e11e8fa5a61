// Reading captures for replay and writing what leaves the NIC (libpcap, Ethernet link type).
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

struct pcap;
struct pcap_dumper;

namespace nicsched::sim {

struct CapturedFrame {
  double time_s = 0;                // capture timestamp
  std::vector<std::uint8_t> bytes;  // the frame as captured (Ethernet, no FCS)
};

// Every frame of an Ethernet capture; SimError naming the file on failure.
[[nodiscard]] std::vector<CapturedFrame> read_pcap(const std::filesystem::path& file);

// Writes frames with timestamps derived from the simulated clock.
class PcapWriter {
 public:
  PcapWriter(const std::filesystem::path& file, double clock_mhz);
  ~PcapWriter();
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;
  void write(std::uint64_t cycle, const std::uint8_t* data, std::uint32_t len);
  [[nodiscard]] std::uint64_t frames() const { return frames_; }

 private:
  pcap* handle_ = nullptr;
  pcap_dumper* dumper_ = nullptr;
  double clock_mhz_;
  std::uint64_t frames_ = 0;
};

}  // namespace nicsched::sim
