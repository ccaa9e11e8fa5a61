// Reading captures for replay and writing what leaves the NIC (libpcap, Ethernet link type).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

struct pcap;
struct pcap_dumper;

namespace nicsched::sim {

struct CapturedFrame {
  double time_s = 0;                // capture timestamp
  std::vector<std::uint8_t> bytes;  // the frame as captured (Ethernet, no FCS)
};

// The largest capture a replay reads: 256 MiB. A replay holds the whole capture in memory, so
// the limit bounds that; a larger capture can be cut (`editcap -c N`, `tcpdump -r IN -c N -w OUT`).
inline constexpr std::uint64_t kMaxCaptureBytes = std::uint64_t{256} << 20;

// Every frame of an Ethernet capture. SimError naming the file when it cannot be read, is not a
// regular file (a FIFO, a device, a directory: refused before it is opened for reading), is
// larger than kMaxCaptureBytes (refused before a byte is read) or is not Ethernet.
[[nodiscard]] std::vector<CapturedFrame> read_pcap(const std::filesystem::path& file);

// Writes frames with timestamps derived from the simulated clock.
class PcapWriter {
 public:
  PcapWriter(const std::filesystem::path& file, double clock_mhz);
  ~PcapWriter();
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;
  // Refuses with SimError: a second writer of the same capture would interleave its frames
  // with this one's (Simulation::fork of a run that writes pcap_out).
  [[nodiscard]] std::unique_ptr<PcapWriter> clone() const;
  void write(std::uint64_t cycle, const std::uint8_t* data, std::uint32_t len);
  [[nodiscard]] std::uint64_t frames() const { return frames_; }

 private:
  std::filesystem::path file_;
  pcap* handle_ = nullptr;
  pcap_dumper* dumper_ = nullptr;
  double clock_mhz_;
  std::uint64_t frames_ = 0;
};

}  // namespace nicsched::sim
