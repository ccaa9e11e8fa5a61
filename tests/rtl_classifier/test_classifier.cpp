// nicsched_classifier bench: first-match priority, each field's value/mask, invalid
// entries, misses, drop and default pass-through, random tables and fields under the idle
// x backpressure matrix, checked against the reference classifier (nicsched::refmodel::classify)
// and, in the directed tests, against the result the spec gives for the table written.
#include <catch2/catch.hpp>

#include "Vclassifier_w512_e64.h"
#include "Vclassifier_w64_e16.h"
#include "ingress_case.hpp"

using namespace nicsched;
using namespace nicsched::test;

namespace {

// Parser fields on the classifier's sideband ports, packed into AxisBeat::user.
std::uint64_t pack_fields(const ParsedFrame& f) {
  return std::uint64_t{f.vlan_id} | (std::uint64_t{f.dscp} << 12) | (std::uint64_t{f.protocol} << 18) |
         (std::uint64_t{f.dst_port} << 26) | (static_cast<std::uint64_t>(f.drop) << 42) |
         (std::uint64_t{f.to_default} << 45);
}

template <class Model>
void drive_fields(Model& m, std::uint64_t u) {
  m.s_prs_vlan_i = static_cast<std::uint16_t>(u & 0xFFF);
  m.s_prs_dscp_i = static_cast<std::uint8_t>((u >> 12) & 0x3F);
  m.s_prs_proto_i = static_cast<std::uint8_t>((u >> 18) & 0xFF);
  m.s_prs_dport_i = static_cast<std::uint16_t>((u >> 26) & 0xFFFF);
  m.s_prs_drop_i = static_cast<std::uint8_t>((u >> 42) & 7);
  m.s_prs_default_i = static_cast<std::uint8_t>((u >> 45) & 1);
}

template <class Model>
class ClassifierBench {
 public:
  using Harness = StreamHarness<Model, IngressMeta>;
  ClassifierBench(const std::string& trace, bfm::StallPattern idle, bfm::StallPattern bp, std::uint64_t seed,
                  const ClassifierConfig& cfg, unsigned entries)
      : h_(trace, idle, bp, seed, [](const Model& m) { return read_ingress_meta(m); }), rng_(seed) {
    apply_classifier_config(h_.dut(), cfg, entries);
    // Non-last beats carry random fields: the classifier must only use the tlast beat's.
    h_.source().on_beat([this](const bfm::AxisBeat& b) { drive_fields(h_.dut(), b.last ? b.user : rng_()); });
    forbid_tuser_before_last(h_);
    h_.reset();
  }
  void send(const ParsedFrame& f) {
    fields_.push_back(f);
    std::vector<std::uint8_t> bytes(1 + rng_() % 200);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng_());
    h_.send(bytes, rng_() % 16 == 0, pack_fields(f));
  }
  // Every frame out unchanged with the reference's metadata; returns what the RTL gave.
  std::vector<IngressMeta> finish(const ClassifierConfig& cfg) {
    h_.drain();
    std::vector<IngressMeta> got;
    for (std::size_t i = 0; i < fields_.size(); ++i) {
      const IngressMeta m = h_.out(i).meta;
      const IngressMeta ref = classify_meta(fields_[i], cfg);
      expect(m == ref, fmt::format("frame {} fields {}: RTL {} reference {}", i, to_string(fields_[i]),
                                   to_string(m), to_string(ref)));
      got.push_back(m);
    }
    return got;
  }

 private:
  Harness h_;
  std::mt19937_64 rng_;
  std::vector<ParsedFrame> fields_;
};

ParsedFrame fields(std::uint16_t vlan, std::uint8_t dscp, std::uint8_t proto, std::uint16_t dport) {
  return {.vlan_id = vlan, .dscp = dscp, .protocol = proto, .dst_port = dport};
}

nic::ClassifierEntry entry_for(std::uint8_t tenant, std::uint8_t cls, std::uint8_t op) {
  nic::ClassifierEntry e;
  e.valid = true;
  e.action.tenant = tenant;
  e.action.cls = cls;
  e.action.crypto_op = CryptoOp{op};
  return e;
}

// Entries 0..k-1 are valid but miss (VLAN mismatch), entries k.. match everything: entry k
// wins, for every k; with all entries missing, the default action.
template <class Model>
void first_match_wins(const std::string& name, unsigned entries) {
  for (unsigned k = 0; k <= entries; ++k) {
    run_case(fmt::format("{}.k{}", name, k), [&](const std::string& trace) {
      ClassifierConfig cfg;
      cfg.default_action = {63, 1, CryptoOp{2}};
      for (unsigned i = 0; i < entries; ++i) {
        auto e = entry_for(static_cast<std::uint8_t>(i), static_cast<std::uint8_t>(i & 1), static_cast<std::uint8_t>(i % 3));
        if (i < k) {
          e.vlan = 5;
          e.vlan_mask = 0xFFF;
        }
        cfg.classifier.push_back(e);
      }
      ClassifierBench<Model> b(trace, bfm::StallPattern::none(), bfm::StallPattern::none(), k, cfg, entries);
      b.send(fields(7, 0, 17, 80));
      const auto got = b.finish(cfg);
      const IngressMeta want = k < entries ? meta(static_cast<std::uint8_t>(k), static_cast<std::uint8_t>(k & 1), static_cast<std::uint8_t>(k % 3)) : meta(63, 1, 2);
      expect(got[0] == want, fmt::format("k {}: got {} expected {}", k, to_string(got[0]), to_string(want)));
    });
  }
}

// One field at a time: entry 3 matches on that field's value under a mask; frames that
// match, differ only in masked-out bits, or differ in a masked bit.
template <class Model>
void field_masks(const std::string& name, unsigned entries) {
  run_case(name, [&](const std::string& trace) {
    ClassifierConfig cfg;
    cfg.default_action = {9, 1, CryptoOp{0}};
    cfg.classifier.assign(entries, nic::ClassifierEntry::reset());
    cfg.classifier.at(3) = entry_for(21, 0, 1);
    const IngressMeta hit = meta(21, 0, 1), miss = meta(9, 1, 0);
    for (int field = 0; field < 4; ++field) {
      ClassifierConfig c = cfg;
      auto& en = c.classifier[3];
      ParsedFrame base = fields(0xABC, 0x2E, 17, 4791);
      switch (field) {
        case 0: en.vlan = 0xABC; en.vlan_mask = 0xFF0; break;
        case 1: en.dscp = 0x2E; en.dscp_mask = 0x3C; break;
        case 2: en.proto = 17; en.proto_mask = 0xFE; break;
        case 3: en.port = 4791; en.port_mask = 0xFFF0; break;
      }
      ClassifierBench<Model> b(trace, bfm::StallPattern::none(), bfm::StallPattern::none(),
                               static_cast<std::uint64_t>(7 + field), c, entries);
      ParsedFrame low = base, high = base;
      switch (field) {
        case 0: low.vlan_id ^= 0x00F; high.vlan_id ^= 0x100; break;
        case 1: low.dscp ^= 0x03; high.dscp ^= 0x20; break;
        case 2: low.protocol ^= 0x01; high.protocol ^= 0x10; break;
        case 3: low.dst_port ^= 0x000F; high.dst_port ^= 0x8000; break;
      }
      b.send(base);
      b.send(low);
      b.send(high);
      const auto got = b.finish(c);
      expect(got[0] == hit, fmt::format("field {}: exact value missed", field));
      expect(got[1] == hit, fmt::format("field {}: difference in masked-out bits missed", field));
      expect(got[2] == miss, fmt::format("field {}: difference in a masked bit hit", field));
    }
    // An entry that would match but is not valid never hits.
    ClassifierConfig c = cfg;
    c.classifier[3].valid = false;
    ClassifierBench<Model> b(trace, bfm::StallPattern::none(), bfm::StallPattern::none(), 11, c, entries);
    b.send(fields(1, 2, 3, 4));
    expect(b.finish(c)[0] == miss, "an invalid entry hit");
  });
}

// Drop reasons pass through with zero tenant/class/op; the parser's default flag forces
// DEFAULT_ACTION; crypto op 3 reads as none.
template <class Model>
void drop_default_op(const std::string& name, unsigned entries) {
  run_case(name, [&](const std::string& trace) {
    ClassifierConfig cfg;
    cfg.default_action = {12, 0, CryptoOp{3}};
    cfg.classifier.assign(entries, entry_for(30, 1, 1));
    cfg.classifier[0].action.crypto_op = CryptoOp{3};
    ClassifierBench<Model> b(trace, bfm::StallPattern::random(0.3), bfm::StallPattern::random(0.3), 12, cfg, entries);
    std::vector<IngressMeta> want;
    for (ParseDrop d : {ParseDrop::kRunt, ParseDrop::kTruncated, ParseDrop::kBadIhl, ParseDrop::kUnknownEtype}) {
      ParsedFrame f = fields(1, 1, 1, 1);
      f.drop = d;
      b.send(f);
      want.push_back(meta(0, 0, 0, d));
    }
    ParsedFrame f = fields(1, 1, 1, 1);
    f.to_default = true;
    b.send(f);
    want.push_back(meta(12, 0, 0));
    b.send(fields(1, 1, 1, 1));
    want.push_back(meta(30, 1, 0));
    const auto got = b.finish(cfg);
    for (std::size_t i = 0; i < want.size(); ++i) {
      expect(got[i] == want[i], fmt::format("case {}: got {} expected {}", i, to_string(got[i]), to_string(want[i])));
    }
  });
}

// Random tables and random fields (half of them copied from a table entry, so that hits
// are common) under the idle x backpressure matrix.
template <class Model>
void random_matrix(const std::string& name, unsigned entries) {
  run_stall_matrix(name, 200, [&](const std::string& trace, const bfm::StallPattern& idle, const bfm::StallPattern& bp,
                                  std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const ClassifierConfig cfg = random_config(rng, entries);
    ClassifierBench<Model> b(trace, idle, bp, seed, cfg, entries);
    for (int i = 0; i < 400; ++i) {
      ParsedFrame f = fields(static_cast<std::uint16_t>(rng() & 0xFFF), static_cast<std::uint8_t>(rng() & 0x3F),
                             static_cast<std::uint8_t>(rng()), static_cast<std::uint16_t>(rng()));
      if (rng() % 2) {
        const auto& e = cfg.classifier[rng() % entries];
        f = fields(static_cast<std::uint16_t>(e.vlan), static_cast<std::uint8_t>(e.dscp),
                   static_cast<std::uint8_t>(e.proto), static_cast<std::uint16_t>(e.port));
        if (rng() % 4 == 0) f.dst_port ^= static_cast<std::uint16_t>(1U << (rng() % 16));
      }
      if (rng() % 10 == 0) f.drop = static_cast<ParseDrop>(1 + rng() % 4);
      else if (rng() % 10 == 0) f.to_default = true;
      b.send(f);
    }
    b.finish(cfg);
  });
}

}  // namespace

#define NICSCHED_CLASSIFIER_TESTS(Model, W, N)                                                             \
  TEST_CASE(W ".first_match_wins") { first_match_wins<Model>("rtl.classifier." W ".first_match_wins", N); } \
  TEST_CASE(W ".field_masks") { field_masks<Model>("rtl.classifier." W ".field_masks", N); }                \
  TEST_CASE(W ".drop_default_op") { drop_default_op<Model>("rtl.classifier." W ".drop_default_op", N); }    \
  TEST_CASE(W ".random_matrix") { random_matrix<Model>("rtl.classifier." W ".random_matrix", N); }

NICSCHED_CLASSIFIER_TESTS(Vclassifier_w64_e16, "w64_e16", 16)
NICSCHED_CLASSIFIER_TESTS(Vclassifier_w512_e64, "w512_e64", 64)
