// nicsched_ingress bench (parser + classifier) at 512 and 64 bits: a realistic table with
// hand-worked expected results, random tables and frames under the idle x backpressure
// matrix, a table change between bursts, full throughput and latency; every frame checked
// against the reference model (ingress_reference: nicsched::refmodel parser + classifier) and the counter pulses against its tally.
#include <catch2/catch.hpp>

#include "Vingress_w512.h"
#include "Vingress_w64.h"
#include "ingress_case.hpp"

using namespace nicsched;
using namespace nicsched::test;

namespace {

// A table as a deployment would write it:
//   0: UDP dport 4791 (RoCEv2) with DSCP 46      -> tenant 1, control
//   1: UDP dport 4791                            -> tenant 1, bulk
//   2: VLAN 200 (any L4)                         -> tenant 2, bulk, encrypt
//   3: TCP dport 29500..29503 (mask 0xFFFC)      -> tenant 3, bulk, decrypt
//   default                                      -> tenant 0, bulk
ClassifierConfig deployment_table(bool bad_to_default) {
  ClassifierConfig cfg;
  cfg.bad_to_default = bad_to_default;
  cfg.default_action = {0, 1, CryptoOp{0}};
  nic::ClassifierEntry e;
  e.valid = true;
  e.proto = 17; e.proto_mask = 0xFF; e.port = 4791; e.port_mask = 0xFFFF; e.dscp = 46; e.dscp_mask = 0x3F;
  e.action.tenant = 1; e.action.cls = 0;
  cfg.classifier.push_back(e);
  e.dscp_mask = 0; e.action.cls = 1;
  cfg.classifier.push_back(e);
  e = {};
  e.valid = true; e.vlan = 200; e.vlan_mask = 0xFFF; e.action.tenant = 2; e.action.cls = 1; e.action.crypto_op = CryptoOp{1};
  cfg.classifier.push_back(e);
  e = {};
  e.valid = true; e.proto = 6; e.proto_mask = 0xFF; e.port = 29500; e.port_mask = 0xFFFC;
  e.action.tenant = 3; e.action.cls = 1; e.action.crypto_op = CryptoOp{2};
  cfg.classifier.push_back(e);
  return cfg;
}

template <class Model>
void deployment(const std::string& name) {
  for (bool bad_to_default : {false, true}) {
    run_case(fmt::format("{}.bad_to_default{}", name, int{bad_to_default}), [&](const std::string& trace) {
      const ClassifierConfig cfg = deployment_table(bad_to_default);
      IngressBench<Model> b(trace, bfm::StallPattern::random(0.3), bfm::StallPattern::random(0.3), 5, cfg);
      std::vector<IngressMeta> want;
      auto add = [&](const sim::PacketSpec& s, IngressMeta m) {
        b.send(sim::build_packet(s));
        want.push_back(m);
      };
      sim::PacketSpec s;
      s.dst_port = 4791; s.dscp = 46;
      add(s, meta(1, 0, 0));                                   // RoCE control
      s.l3 = sim::L3Kind::ipv6;
      add(s, meta(1, 0, 0));                                   // same over IPv6
      s.dscp = 10;
      add(s, meta(1, 1, 0));                                   // RoCE bulk
      s.ipv4_option_words = 3; s.l3 = sim::L3Kind::ipv4; s.vlan_id = 200;
      add(s, meta(1, 1, 0));                                   // entry 1 before entry 2
      s.dst_port = 53;
      add(s, meta(2, 1, 1));                                   // VLAN 200: encrypt
      s = {};
      s.protocol = sim::kProtoTcp; s.dst_port = 29502; s.payload_bytes = 1400;
      add(s, meta(3, 1, 2));                                   // TCP 29500..29503: decrypt
      s.dst_port = 29504;
      add(s, meta(0, 1, 0));                                   // miss
      s.dst_port = 29501; s.frag_offset = 10;
      add(s, meta(0, 1, 0));                                   // non-first fragment: port 0, miss
      s = {};
      s.l3 = sim::L3Kind::raw; s.ethertype = 0x0806; s.vlan_id = 200;
      add(s, bad_to_default ? meta(0, 1, 0) : meta(0, 0, 0, ParseDrop::kUnknownEtype));  // ARP
      s = {};
      auto runt = sim::build_packet(s);
      runt.resize(40);
      b.send(runt);
      want.push_back(meta(0, 0, 0, ParseDrop::kRunt));
      const auto got = b.finish();
      for (std::size_t i = 0; i < want.size(); ++i) {
        expect(got[i] == want[i], fmt::format("case {}: got {} expected {}", i, to_string(got[i]), to_string(want[i])));
      }
    });
  }
}

template <class Model>
void random_matrix(const std::string& name, std::size_t frames_per_run) {
  run_stall_matrix(name, 300, [&](const std::string& trace, const bfm::StallPattern& idle, const bfm::StallPattern& bp,
                                  std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    ClassifierConfig cfg = random_config(rng, kIngressEntries);
    // Copy some entries' values from the traffic so that every entry sees hits.
    IngressBench<Model> b(trace, idle, bp, seed, cfg);
    for (std::size_t i = 0; i < frames_per_run; ++i) b.send(random_frame(rng), rng() % 16 == 0);
    b.finish();
  });
}

// Two bursts with different tables, written while the pipeline is empty (as a COMMIT
// between bursts would).
template <class Model>
void table_change(const std::string& name) {
  run_case(name, [&](const std::string& trace) {
    std::mt19937_64 rng(77);
    IngressBench<Model> b(trace, bfm::StallPattern::none(), bfm::StallPattern::random(0.2), 77,
                          deployment_table(false));
    for (int i = 0; i < 100; ++i) b.send(sim::build_packet(random_spec(rng)));
    b.harness().drain(20000);
    b.configure(random_config(rng, kIngressEntries));
    for (int i = 0; i < 100; ++i) b.send(sim::build_packet(random_spec(rng)));
    b.finish();
  });
}

// One beat per clock and a fixed latency (parser 2 + classifier 2) with the sink ready.
template <class Model>
void full_throughput(const std::string& name) {
  run_case(name, [&](const std::string& trace) {
    std::mt19937_64 rng(9);
    IngressBench<Model> b(trace, bfm::StallPattern::none(), bfm::StallPattern::none(), 9, deployment_table(true));
    auto& h = b.harness();
    constexpr unsigned kBpb = IngressBench<Model>::Harness::kBytesPerBeat;
    std::uint64_t beats = 0;
    for (int i = 0; i < 300; ++i) {
      sim::PacketSpec s = random_spec(rng);
      s.payload_bytes %= 200;
      const auto f = sim::build_packet(s);
      beats += (f.size() + kBpb - 1) / kBpb;
      b.send(f);
    }
    const std::uint64_t start = h.tb().cycle();
    b.finish();
    const auto& out = h.frames();
    expect(out.front().first_cycle == start + 1 + 4,
           fmt::format("first beat out at cycle {}, expected {}", out.front().first_cycle, start + 5));
    expect(out.back().last_cycle - out.front().first_cycle + 1 == beats,
           fmt::format("{} beats took {} cycles", beats, out.back().last_cycle - out.front().first_cycle + 1));
  });
}

}  // namespace

#define NICSCHED_INGRESS_TESTS(Model, W)                                                             \
  TEST_CASE(W ".deployment_table") { deployment<Model>("rtl.ingress." W ".deployment_table"); }       \
  TEST_CASE(W ".random_matrix") { random_matrix<Model>("rtl.ingress." W ".random_matrix", 300); }     \
  TEST_CASE(W ".table_change") { table_change<Model>("rtl.ingress." W ".table_change"); }             \
  TEST_CASE(W ".full_throughput") { full_throughput<Model>("rtl.ingress." W ".full_throughput"); }

NICSCHED_INGRESS_TESTS(Vingress_w512, "w512")
NICSCHED_INGRESS_TESTS(Vingress_w64, "w64")
