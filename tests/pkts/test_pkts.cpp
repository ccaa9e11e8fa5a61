// Real packets: frames built by Scapy (tests/pkts/make_pkts.py) are read from a pcap with
// libpcap and fed through the parser RTL; each frame's fields and verdict must equal what
// Scapy reported for it (JSON written by the same script) and what the reference parser
// says, under random idle/backpressure, with CTRL.BAD_TO_DEFAULT off and on.
//
// Usage: test_rtl_pkts --width 512|64 PCAP JSON      (exit 0 pass, 1 fail, 2 usage/input)
#include <iostream>

#include "Vparser_w512.h"
#include "Vparser_w64.h"
#include "ingress_bench.hpp"
#include "scapy_vectors.hpp"

using namespace nicsched;
using namespace nicsched::test;

namespace {

using Vector = ScapyVector;

// What the NIC must report for a vector, from Scapy's fields and the expected verdict.
ParsedFrame expected(const Vector& v, bool bad_to_default, const std::string& where) {
  const auto& j = v.scapy;
  ParsedFrame f;
  f.length = j.at("length").get<std::uint16_t>();
  f.drop = drop_reason_named(j.at("drop").get<std::string>(), where);
  if (f.drop == ParseDrop::kUnknownEtype && bad_to_default) {
    f.drop = ParseDrop::kNone;
    f.to_default = true;
    f.vlan_id = j.at("vlan").get<std::uint16_t>();
  } else if (f.drop == ParseDrop::kNone) {
    f.vlan_id = j.at("vlan").get<std::uint16_t>();
    put_scapy_ip_fields(j, f);
  }
  return f;
}

template <class Model>
bool run(const std::vector<Vector>& vectors, const std::string& label) {
  bool ok = true;
  std::uint64_t seed = 1;
  for (bool bad_to_default : {false, true}) {
    const std::string name = fmt::format("rtl.parser.pcap.{}.bad_to_default{}", label, int{bad_to_default});
    const std::string err = run_traced(name, [&](const std::string& trace) {
      StreamHarness<Model, ParsedFrame> h(trace, bfm::StallPattern::random(0.25), bfm::StallPattern::random(0.25),
                                          ++seed, [](const Model& m) { return read_parser_fields(m); });
      h.dut().bad_to_default_i = bad_to_default ? 1 : 0;
      h.reset();
      for (const auto& v : vectors) h.send(v.frame);
      h.drain(20000);
      Counts want;
      for (std::size_t i = 0; i < vectors.size(); ++i) {
        const auto& v = vectors[i];
        const std::string where = fmt::format("packet {} '{}'", i, v.name);
        const ParsedFrame rtl = h.out(i).meta;
        const ParsedFrame scapy = expected(v, bad_to_default, where);
        const ParsedFrame ref = refmodel::parse_frame(v.frame, bad_to_default);
        want.add(scapy);
        expect(rtl == scapy, fmt::format("{}: RTL {} Scapy {}", where, to_string(rtl), to_string(scapy)));
        expect(ref == scapy, fmt::format("{}: reference {} Scapy {}", where, to_string(ref), to_string(scapy)));
      }
      expect(h.counts() == want, fmt::format("counters: RTL {} expected {}", h.counts().str(), want.str()));
    });
    if (!err.empty()) {
      std::cerr << name << ": FAILED: " << err << '\n';
      ok = false;
    } else {
      std::cout << name << ": " << vectors.size() << " packets passed\n";
    }
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5 || std::string(argv[1]) != "--width") {
    std::cerr << "usage: test_rtl_pkts --width 512|64 PCAP JSON\n";
    return 2;
  }
  const std::string width = argv[2];
  std::vector<Vector> vectors;
  try {
    vectors = load_scapy_vectors(argv[3], argv[4]);
  } catch (const std::exception& e) {
    std::cerr << "test_rtl_pkts: " << e.what() << '\n';
    return 2;
  }
  if (width == "512") return run<Vparser_w512>(vectors, "w512") ? 0 : 1;
  if (width == "64") return run<Vparser_w64>(vectors, "w64") ? 0 : 1;
  std::cerr << "test_rtl_pkts: --width must be 512 or 64, not '" << width << "'\n";
  return 2;
}
