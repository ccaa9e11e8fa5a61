// Writes packets made by nicsched::sim::build_packet (random PacketSpecs covering every
// option) to a pcap, and the specs to JSON, for check_builder.py to dissect with Scapy.
//
// Usage: write_builder_pkts COUNT SEED OUT.pcap OUT.json   (exit 0 ok, 2 usage/IO error)
#include <pcap/pcap.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "ingress_bench.hpp"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: write_builder_pkts COUNT SEED OUT.pcap OUT.json\n";
    return 2;
  }
  const unsigned long count = std::stoul(argv[1]);
  std::mt19937_64 rng(std::stoull(argv[2]));
  pcap_t* dead = pcap_open_dead(DLT_EN10MB, 65535);
  pcap_dumper_t* dump = pcap_dump_open(dead, argv[3]);
  if (!dump) {
    std::cerr << "write_builder_pkts: " << argv[3] << ": " << pcap_geterr(dead) << '\n';
    pcap_close(dead);
    return 2;
  }
  nlohmann::json specs = nlohmann::json::array();
  for (unsigned long i = 0; i < count; ++i) {
    const nicsched::sim::PacketSpec s = nicsched::test::random_spec(rng);
    const auto frame = nicsched::sim::build_packet(s);
    pcap_pkthdr hdr{};
    hdr.caplen = hdr.len = static_cast<bpf_u_int32>(frame.size());
    pcap_dump(reinterpret_cast<u_char*>(dump), &hdr, frame.data());
    const char* l3 = s.l3 == nicsched::sim::L3Kind::ipv4 ? "ipv4" : (s.l3 == nicsched::sim::L3Kind::ipv6 ? "ipv6" : "raw");
    specs.push_back({{"vlan", s.vlan_id ? nlohmann::json(*s.vlan_id) : nlohmann::json(nullptr)},
                     {"pcp", s.vlan_pcp}, {"l3", l3}, {"ethertype", s.ethertype}, {"dscp", s.dscp},
                     {"ttl", s.ttl}, {"option_words", s.ipv4_option_words}, {"frag_offset", s.frag_offset},
                     {"mf", s.more_fragments}, {"protocol", s.protocol}, {"sport", s.src_port},
                     {"dport", s.dst_port}, {"payload", s.payload_bytes}, {"pad", s.pad_to_min},
                     {"length", frame.size()}});
  }
  pcap_dump_close(dump);
  pcap_close(dead);
  std::ofstream out(argv[4]);
  out << specs.dump(1) << '\n';
  if (!out) {
    std::cerr << "write_builder_pkts: " << argv[4] << ": write failed\n";
    return 2;
  }
  return 0;
}
