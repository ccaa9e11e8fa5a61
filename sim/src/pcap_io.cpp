// libpcap wrappers.
#include "nicsched/sim/pcap_io.hpp"

#include <pcap/pcap.h>

#include <array>

#include "nicsched/sim/error.hpp"

namespace nicsched::sim {

std::vector<CapturedFrame> read_pcap(const std::filesystem::path& file) {
  std::array<char, PCAP_ERRBUF_SIZE> err{};
  pcap_t* p = pcap_open_offline(file.c_str(), err.data());
  if (p == nullptr) throw SimError(file.string() + ": cannot read capture: " + err.data());
  if (pcap_datalink(p) != DLT_EN10MB) {
    pcap_close(p);
    throw SimError(file.string() + ": capture is not Ethernet (link type " + std::to_string(pcap_datalink(p)) + ")");
  }
  std::vector<CapturedFrame> out;
  pcap_pkthdr* hdr = nullptr;
  const u_char* data = nullptr;
  int rc = 0;
  while ((rc = pcap_next_ex(p, &hdr, &data)) == 1) {
    CapturedFrame f;
    f.time_s = static_cast<double>(hdr->ts.tv_sec) + static_cast<double>(hdr->ts.tv_usec) * 1e-6;
    f.bytes.assign(data, data + hdr->caplen);
    out.push_back(std::move(f));
  }
  if (rc == PCAP_ERROR) {
    const std::string msg = pcap_geterr(p);
    pcap_close(p);
    throw SimError(file.string() + ": " + msg);
  }
  pcap_close(p);
  return out;
}

PcapWriter::PcapWriter(const std::filesystem::path& file, double clock_mhz) : clock_mhz_(clock_mhz) {
  handle_ = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO);
  if (handle_ == nullptr) throw SimError(file.string() + ": cannot create a pcap handle");
  dumper_ = pcap_dump_open(handle_, file.c_str());
  if (dumper_ == nullptr) {
    const std::string msg = pcap_geterr(handle_);
    pcap_close(handle_);
    throw SimError(file.string() + ": cannot write capture: " + msg);
  }
}

PcapWriter::~PcapWriter() {
  if (dumper_ != nullptr) pcap_dump_close(dumper_);
  if (handle_ != nullptr) pcap_close(handle_);
}

void PcapWriter::write(std::uint64_t cycle, const std::uint8_t* data, std::uint32_t len) {
  const auto ns = static_cast<std::uint64_t>(static_cast<double>(cycle) * 1e3 / clock_mhz_);
  pcap_pkthdr hdr{};
  hdr.ts.tv_sec = static_cast<time_t>(ns / 1000000000ULL);
  // With nanosecond precision the usec field carries nanoseconds.
  hdr.ts.tv_usec = static_cast<suseconds_t>(ns % 1000000000ULL);
  hdr.caplen = len;
  hdr.len = len;
  pcap_dump(reinterpret_cast<u_char*>(dumper_), &hdr, data);
  ++frames_;
}

}  // namespace nicsched::sim
