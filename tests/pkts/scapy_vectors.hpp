// Scapy-built test vectors: a pcap written by one of the tests/pkts/*.py scripts and the JSON
// table the same script wrote beside it (one entry per packet, in pcap order, each with at
// least its name and length). Read by the parser's pcap bench (test_pkts.cpp) and the
// top-level host-frame bench (tests/rtl_top/test_top_scapy.cpp).
#pragma once

#include <pcap/pcap.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "nicsched/refmodel/parser.hpp"

namespace nicsched::test {

struct ScapyVector {
  std::string name;
  std::vector<std::uint8_t> frame;
  nlohmann::json scapy;  // the packet's entry of the JSON table
};

/// Every packet of a pcap, whole (a packet captured shorter than it was is an error).
inline std::vector<std::vector<std::uint8_t>> read_pcap_frames(const std::string& path) {
  char err[PCAP_ERRBUF_SIZE] = {};
  pcap_t* p = pcap_open_offline(path.c_str(), err);
  if (!p) throw std::runtime_error(fmt::format("{}: cannot open pcap: {}", path, err));
  std::vector<std::vector<std::uint8_t>> frames;
  pcap_pkthdr* hdr = nullptr;
  const u_char* data = nullptr;
  int rc = 0;
  while ((rc = pcap_next_ex(p, &hdr, &data)) == 1) {
    if (hdr->caplen != hdr->len) {
      pcap_close(p);
      throw std::runtime_error(fmt::format("{}: packet {} captured {} of {} bytes", path, frames.size(), hdr->caplen, hdr->len));
    }
    frames.emplace_back(data, data + hdr->caplen);
  }
  const std::string why = rc == -1 ? pcap_geterr(p) : "";
  pcap_close(p);
  if (rc == -1) throw std::runtime_error(fmt::format("{}: read error: {}", path, why));
  return frames;
}

/// The pcap's packets paired with the JSON table's entries; throws naming the file when the
/// two disagree (count, or an entry's length).
inline std::vector<ScapyVector> load_scapy_vectors(const std::string& pcap_path, const std::string& json_path) {
  const auto frames = read_pcap_frames(pcap_path);
  std::ifstream in(json_path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open", json_path));
  const nlohmann::json table = nlohmann::json::parse(in);
  if (!table.is_array() || table.size() != frames.size()) {
    throw std::runtime_error(fmt::format("{}: {} entries for {} packets in {}", json_path,
                                         table.is_array() ? table.size() : 0, frames.size(), pcap_path));
  }
  std::vector<ScapyVector> vectors;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    vectors.push_back({table[i].at("name").get<std::string>(), frames[i], table[i]});
    if (table[i].at("length").get<std::size_t>() != frames[i].size()) {
      throw std::runtime_error(fmt::format("{}: entry {} length differs from the pcap", json_path, i));
    }
  }
  return vectors;
}

/// A drop reason as the scripts name it: none, runt, truncated, bad_ihl, unknown_ethertype.
inline refmodel::ParseDrop drop_reason_named(const std::string& s, const std::string& where) {
  using refmodel::ParseDrop;
  static const std::map<std::string, ParseDrop> kNames = {
      {"none", ParseDrop::kNone}, {"runt", ParseDrop::kRunt}, {"truncated", ParseDrop::kTruncated},
      {"bad_ihl", ParseDrop::kBadIhl}, {"unknown_ethertype", ParseDrop::kUnknownEtype}};
  const auto it = kNames.find(s);
  if (it == kNames.end()) throw std::runtime_error(fmt::format("{}: unknown drop reason '{}'", where, s));
  return it->second;
}

/// The IP fields Scapy dissected (keys dscp, proto, sport, dport) into `f`.
inline void put_scapy_ip_fields(const nlohmann::json& j, refmodel::ParsedFrame& f) {
  f.dscp = j.at("dscp").get<std::uint8_t>();
  f.protocol = j.at("proto").get<std::uint8_t>();
  f.src_port = j.at("sport").get<std::uint16_t>();
  f.dst_port = j.at("dport").get<std::uint16_t>();
}

}  // namespace nicsched::test
