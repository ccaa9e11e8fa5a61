// libpcap wrappers.
#include "nicsched/sim/pcap_io.hpp"

#include <pcap/pcap.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "nicsched/fileio/file.hpp"
#include "nicsched/sim/error.hpp"

namespace nicsched::sim {
namespace {

// libpcap's file format: a 24-byte file header, then a 16-byte header before each record.
constexpr std::uint64_t kPcapFileHeaderBytes = 24;
constexpr std::uint64_t kPcapRecordHeaderBytes = 16;

}  // namespace

std::vector<CapturedFrame> read_pcap(const std::filesystem::path& file) {
  const std::string name = file.string();
  int fd = -1;
  try {
    fd = fileio::open_readable_file(file, kMaxCaptureBytes, "the capture file");
  } catch (const fileio::FileError& e) {
    throw SimError(e.what());
  }
  FILE* stream = ::fdopen(fd, "rb");
  if (stream == nullptr) {
    const int err = errno;
    ::close(fd);
    throw SimError(name + ": cannot read the capture file: " + std::strerror(err));
  }
  std::array<char, PCAP_ERRBUF_SIZE> err{};
  pcap_t* p = pcap_fopen_offline(stream, err.data());
  if (p == nullptr) {
    std::fclose(stream);  // pcap_fopen_offline leaves it open when it fails
    throw SimError(name + ": cannot read capture: " + err.data());
  }
  const int link = pcap_datalink(p);
  if (link != DLT_EN10MB) {
    pcap_close(p);
    throw SimError(name + ": capture is not Ethernet (link type " + std::to_string(link) + ")");
  }
  std::vector<CapturedFrame> out;
  std::uint64_t bytes = kPcapFileHeaderBytes;
  pcap_pkthdr* hdr = nullptr;
  const u_char* data = nullptr;
  int rc = 0;
  while ((rc = pcap_next_ex(p, &hdr, &data)) == 1) {
    bytes += kPcapRecordHeaderBytes + hdr->caplen;
    if (bytes > kMaxCaptureBytes) {  // it grew since it was opened
      pcap_close(p);
      throw SimError(name + ": the capture file grew over the limit of " + std::to_string(kMaxCaptureBytes >> 20) +
                     " MiB while it was read");
    }
    CapturedFrame f;
    f.time_s = static_cast<double>(hdr->ts.tv_sec) + static_cast<double>(hdr->ts.tv_usec) * 1e-6;
    f.bytes.assign(data, data + hdr->caplen);
    out.push_back(std::move(f));
  }
  if (rc == PCAP_ERROR) {
    const std::string msg = pcap_geterr(p);
    pcap_close(p);
    throw SimError(name + ": " + msg);
  }
  pcap_close(p);
  return out;
}

PcapWriter::PcapWriter(const std::filesystem::path& file, double clock_mhz) : file_(file), clock_mhz_(clock_mhz) {
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

std::unique_ptr<PcapWriter> PcapWriter::clone() const {
  throw SimError(file_.string() + ": a simulation that writes its frames to a capture (pcap_out) cannot be forked: "
                 "the copy would write into the same file");
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
