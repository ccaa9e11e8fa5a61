// rtl.top.scapy_tx_rx: the held-out host-frame check of issue 18. Frames a host hands its
// NIC, built by Scapy (tests/pkts/make_host_frames.py: ARP, minimal UDP/TCP/ICMP, LLDP, PTP
// on 0x88F7 and over UDP 319/320, QinQ, 802.1Q), unpadded and padded, go through the whole
// nicsched_top on both paths:
//   TX (from the host): every frame of 14 bytes or more leaves once, padded with zeros to the
//     length Scapy pads it to (60), with the class the classifier table written here gives an
//     IP frame, and DEFAULT_ACTION as the register map resets it (CTRL.BAD_TO_DEFAULT = 1
//     from reset, nothing written to either) for the others; shorter frames are runts;
//   RX (from the MAC): frames under 60 bytes are dropped and counted as runts, the others
//     leave unchanged, classified the same way.
// What each frame must become comes from how it was made (the script's JSON: Scapy's
// dissection and lengths) and the reference classifier (refmodel::classify) over Scapy's
// fields; the reference parser (refmodel::parse_frame) must agree with Scapy on every frame.
// The counters are checked too: PRS_* per direction, and per queue the packets and the wire
// bytes (a padded frame counts 60).
//
// Usage: test_rtl_top_scapy PCAP JSON      (exit 0 pass, 1 fail, 2 usage/input)
#include <deque>
#include <iostream>
#include <map>

#include "Vnicsched_top.h"
#include "nicsched/nic/codec.hpp"
#include "nicsched/refmodel/parser.hpp"
#include "scapy_vectors.hpp"
#include "top_bench.hpp"

using namespace nicsched;
using namespace nicsched::coretest;
using nicsched::test::ScapyVector;
using refmodel::ParsedFrame;
using refmodel::ParseDrop;

namespace {

constexpr unsigned kTenants = 8;
constexpr unsigned kEntries = 16;

/// The classifier table the bench writes: PTP event and general messages over UDP (ports
/// 319 / 320) to tenant 2, VLAN 7 to tenant 5, other UDP to tenant 1, TCP to tenant 3,
/// ICMP to tenant 4. Everything else (IP frames of other protocols, non-IP frames) takes
/// DEFAULT_ACTION, left at its reset value, as are CTRL and the rest of the configuration.
nic::Config host_frame_config() {
  nic::Config c = nic::Config::reset_values(kTenants, kEntries);
  struct Row {
    std::uint32_t proto, port, vlan;  // to match; 0: any
    std::uint32_t tenant, cls;
  };
  const Row rows[] = {
      {17, 319, 0, 2, 0},  // PTP event messages over UDP
      {17, 320, 0, 2, 1},  // PTP general messages over UDP
      {0, 0, 7, 5, 0},     // VLAN 7
      {17, 0, 0, 1, 1},    // other UDP
      {6, 0, 0, 3, 1},     // TCP
      {1, 0, 0, 4, 0},     // ICMP
  };
  for (std::size_t i = 0; i < std::size(rows); ++i) {
    const Row& r = rows[i];
    nic::ClassifierEntry e;
    e.proto = r.proto;
    e.proto_mask = r.proto != 0 ? 0xFF : 0;
    e.port = r.port;
    e.port_mask = r.port != 0 ? 0xFFFF : 0;
    e.vlan = r.vlan;
    e.vlan_mask = r.vlan != 0 ? 0xFFF : 0;
    e.valid = true;
    e.action = {r.tenant, r.cls, nic::CryptoOp::kNone};
    c.classifier.at(i) = e;
  }
  return c;
}

/// What the parser must report for a frame on one path, from the script's JSON.
ParsedFrame scapy_view(const ScapyVector& v, bool tx, bool bad_to_default) {
  const auto& j = v.scapy;
  ParsedFrame f;
  f.length = static_cast<std::uint16_t>(v.frame.size());
  f.drop = test::drop_reason_named(j.at(tx ? "tx_drop" : "rx_drop").get<std::string>(), v.name);
  if (f.drop != ParseDrop::kNone) return f;
  if (!j.at("ip").get<bool>()) {
    if (!bad_to_default) {
      f.drop = ParseDrop::kUnknownEtype;
      return f;
    }
    f.to_default = true;
  } else {
    test::put_scapy_ip_fields(j, f);
  }
  f.vlan_id = j.at("vlan").get<std::uint16_t>();
  return f;
}

/// One frame as it must leave: its name, queue and bytes on the wire.
struct Leaving {
  std::string name;
  nic::ClassifierAction action;
  std::vector<std::uint8_t> wire;
};

/// Per direction: the frames expected on each queue in order, and the parser counters.
struct PathExpectation {
  std::map<unsigned, std::deque<Leaving>> by_queue;
  nic::ParserCounters counters;
  std::uint64_t kept = 0;
};

PathExpectation expect_path(const std::vector<ScapyVector>& vectors, bool tx, const nic::Config& cfg) {
  PathExpectation p;
  for (const auto& v : vectors) {
    const ParsedFrame want = scapy_view(v, tx, cfg.bad_to_default);
    const ParsedFrame ref = refmodel::parse_frame(v.frame, cfg.bad_to_default,
                                                  tx ? refmodel::kMinHostFrameBytes : refmodel::kMinFrameBytes);
    check(ref == want, fmt::format("{} '{}': the reference parser says {}, Scapy {}", tx ? "TX" : "RX", v.name,
                                   refmodel::to_string(ref), refmodel::to_string(want)));
    ++p.counters.frames;
    p.counters.runt += want.drop == ParseDrop::kRunt;
    p.counters.unknown_etype += want.drop == ParseDrop::kUnknownEtype || want.to_default;
    if (want.drop != ParseDrop::kNone) continue;
    Leaving out{v.name, refmodel::classify(want, cfg), v.frame};
    if (tx) out.wire.resize(v.scapy.at("tx_wire_length").get<std::size_t>(), 0);  // zero padding
    check(out.wire.size() >= v.frame.size(), fmt::format("TX '{}': wire length below the frame's", v.name));
    p.by_queue[out.action.tenant * 2 + out.action.cls].push_back(std::move(out));
    ++p.kept;
  }
  return p;
}

/// Matches what left one path against the expectation: each frame on its queue, in order,
/// byte for byte, with no crypto op. Returns the frames and bytes per queue that left.
template <class Frames>
void collect(const char* dir, Frames& frames, PathExpectation& p, std::map<unsigned, std::uint64_t>& pkts,
             std::map<unsigned, std::uint64_t>& bytes) {
  for (auto& f : frames) {
    const auto u = EgressUser::decode(f.meta);
    const unsigned q = u.tenant * 2 + u.cls;
    const auto got = bfm::kept_bytes(f.beats);
    auto& exp = p.by_queue[q];
    if (exp.empty() || exp.front().wire != got) {
      std::string which = "no frame sent";
      for (const auto& [eq, list] : p.by_queue) {
        for (const auto& l : list) {
          if (l.wire == got) which = fmt::format("'{}' (expected on queue {})", l.name, eq);
        }
      }
      check(false, fmt::format("{}: a frame of {} bytes left on queue {} (tenant {} class {}); it is {}; the next "
                               "frame expected there is {}",
                               dir, got.size(), q, u.tenant, u.cls, which,
                               exp.empty() ? std::string("none") : fmt::format("'{}' ({} bytes)", exp.front().name,
                                                                               exp.front().wire.size())));
    }
    if (u.op != 0) check(false, fmt::format("{} '{}': crypto op {} on tuser", dir, exp.front().name, u.op));
    exp.pop_front();
    ++pkts[q];
    bytes[q] += got.size();
  }
  frames.clear();
}

void run(const std::vector<ScapyVector>& vectors, const std::string& name, bfm::StallPattern idle,
         bfm::StallPattern bp, std::uint64_t seed) {
  namespace rm = nicsched::regmap;
  const auto err = run_traced(name, [&](const std::string& trace) {
    TopBench<Vnicsched_top, kTenants, kEntries, 512> b(trace, idle, bp, seed);
    // non-IP frames take the default class the register map names, from reset
    check(b.read(rm::CTRL::kOffset) == rm::CTRL::kReset, "CTRL is not at its reset value");
    check(b.read(rm::DEFAULT_ACTION::kOffset) == rm::DEFAULT_ACTION::kReset, "DEFAULT_ACTION is not at its reset value");
    const nic::Config cfg = host_frame_config();
    check(cfg.bad_to_default, "CTRL.BAD_TO_DEFAULT resets to 0");
    for (const auto& w : nic::encode_config(cfg)) {
      if (w.addr >= rm::CLS_VLAN::kBase) b.write(w.addr, w.value);  // the table only
    }
    b.commit();

    PathExpectation tx = expect_path(vectors, true, cfg);
    PathExpectation rx = expect_path(vectors, false, cfg);
    for (const auto& v : vectors) {
      b.tx_src.push_bytes(v.frame);
      b.rx_src.push_bytes(v.frame);
    }
    std::map<unsigned, std::uint64_t> pkts, bytes;
    unsigned quiet = 0;
    while (quiet < 3000) {
      b.tick();
      const bool busy = !b.tx_src.idle() || !b.rx_src.idle() || !b.tx_sink.frames().empty() ||
                        !b.rx_sink.frames().empty() || b.tx_sink.mid_frame() || b.rx_sink.mid_frame();
      collect("TX", b.tx_sink.frames(), tx, pkts, bytes);
      collect("RX", b.rx_sink.frames(), rx, pkts, bytes);
      quiet = busy ? 0 : quiet + 1;
      check(b.tb.cycle() < 2'000'000, "did not drain");
    }
    for (auto* p : {&tx, &rx}) {
      for (const auto& [q, list] : p->by_queue) {
        if (!list.empty()) {
          check(false, fmt::format("{}: '{}' never left (queue {})", p == &tx ? "TX" : "RX", list.front().name, q));
        }
      }
    }

    b.snapshot();
    for (unsigned d = 0; d < 2; ++d) {
      const auto& want = (d == 0 ? tx : rx).counters;
      const char* dir = d == 0 ? "TX" : "RX";
      check(b.read64(rm::PRS_FRAMES::offset(d)) == want.frames, fmt::format("PRS_FRAMES[{}]", dir));
      check(b.read64(rm::PRS_RUNT::offset(d)) == want.runt,
            fmt::format("PRS_RUNT[{}] = {}, {} runts sent", dir, b.read64(rm::PRS_RUNT::offset(d)), want.runt));
      check(b.read64(rm::PRS_UNKNOWN_ETYPE::offset(d)) == want.unknown_etype,
            fmt::format("PRS_UNKNOWN_ETYPE[{}] = {}, {} non-IP frames kept", dir,
                        b.read64(rm::PRS_UNKNOWN_ETYPE::offset(d)), want.unknown_etype));
      check(b.read64(rm::PRS_TRUNCATED::offset(d)) == 0 && b.read64(rm::PRS_BAD_IHL::offset(d)) == 0 &&
                b.read64(rm::PRS_BUF_DROP::offset(d)) == 0,
            fmt::format("{}: truncated, bad IHL or buffer drops counted", dir));
    }
    for (unsigned q = 0; q < 2 * kTenants; ++q) {
      const std::uint64_t n = pkts.count(q) ? pkts.at(q) : 0;
      const std::uint64_t wire = bytes.count(q) ? bytes.at(q) : 0;
      check(b.read64(rm::Q_ENQ_PKTS::offset(q)) == n && b.read64(rm::Q_TX_PKTS::offset(q)) == n,
            fmt::format("queue {}: Q_ENQ_PKTS {} Q_TX_PKTS {}, {} frames left", q, b.read64(rm::Q_ENQ_PKTS::offset(q)),
                        b.read64(rm::Q_TX_PKTS::offset(q)), n));
      check(b.read64(rm::Q_ENQ_BYTES::offset(q)) == wire && b.read64(rm::Q_TX_BYTES::offset(q)) == wire,
            fmt::format("queue {}: Q_ENQ_BYTES {} Q_TX_BYTES {}, {} wire bytes left", q,
                        b.read64(rm::Q_ENQ_BYTES::offset(q)), b.read64(rm::Q_TX_BYTES::offset(q)), wire));
      check(b.read64(rm::Q_DROP_PKTS::offset(q)) == 0, fmt::format("queue {}: tail drops", q));
    }
    std::cout << fmt::format("{}: {} frames per path; TX {} left ({} non-IP on DEFAULT_ACTION), {} runts; RX {} "
                             "left ({} non-IP), {} runts\n",
                             name, vectors.size(), tx.kept, tx.counters.unknown_etype, tx.counters.runt, rx.kept,
                             rx.counters.unknown_etype, rx.counters.runt);
  });
  if (!err.empty()) throw std::runtime_error(name + ": " + err);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: test_rtl_top_scapy PCAP JSON\n";
    return 2;
  }
  std::vector<ScapyVector> vectors;
  try {
    vectors = test::load_scapy_vectors(argv[1], argv[2]);
  } catch (const std::exception& e) {
    std::cerr << "test_rtl_top_scapy: " << e.what() << '\n';
    return 2;
  }
  try {
    run(vectors, "rtl.top.scapy_tx_rx.no_stalls", bfm::StallPattern::none(), bfm::StallPattern::none(), 1);
    run(vectors, "rtl.top.scapy_tx_rx.stalls", bfm::StallPattern::random(0.3), bfm::StallPattern::random(0.5), 2);
  } catch (const std::exception& e) {
    std::cerr << "FAILED: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
