// nicsched_parser bench: directed header combinations and error reasons, every frame
// length, random frames under the idle x backpressure matrix, full throughput; each frame
// checked against the reference parser (nicsched::refmodel::parse_frame) and, for directed
// frames, against the fields the packet was built with.
#include <catch2/catch.hpp>

#include "Vparser_w128.h"
#include "Vparser_w512.h"
#include "Vparser_w64.h"
#include "ingress_case.hpp"

using namespace nicsched;
using namespace nicsched::test;

namespace {

template <class Model>
using ParserHarness = StreamHarness<Model, ParsedFrame>;

template <class Model>
std::unique_ptr<ParserHarness<Model>> make_harness(const std::string& trace, bfm::StallPattern idle,
                                                   bfm::StallPattern bp, std::uint64_t seed,
                                                   bool bad_to_default) {
  auto h = std::make_unique<ParserHarness<Model>>(trace, idle, bp, seed,
                                                  [](const Model& m) { return read_parser_fields(m); });
  h->dut().bad_to_default_i = bad_to_default ? 1 : 0;
  h->reset();
  return h;
}

// Checks every frame out of the harness against the reference parser and the counters
// against the reference tally; `expected` (optional) holds fields known from how each
// frame was built.
template <class Model>
void check_all(ParserHarness<Model>& h, const std::vector<std::vector<std::uint8_t>>& frames,
               bool bad_to_default, const std::vector<std::optional<ParsedFrame>>& expected = {}) {
  Counts want;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const auto& out = h.out(i);
    const ParsedFrame ref = refmodel::parse_frame(frames[i], bad_to_default);
    want.add(ref);
    expect(out.meta == ref, fmt::format("frame {} ({} bytes: {}): RTL {} reference {}", i, frames[i].size(),
                                        hex_prefix(frames[i]), to_string(out.meta), to_string(ref)));
    if (i < expected.size() && expected[i]) {
      expect(ref == *expected[i], fmt::format("frame {}: reference {} but built as {}", i, to_string(ref),
                                              to_string(*expected[i])));
    }
  }
  expect(h.counts() == want, fmt::format("counters: RTL {} reference {}", h.counts().str(), want.str()));
}

// What a well-formed packet built from `s` must parse to.
ParsedFrame expected_fields(const sim::PacketSpec& s, std::size_t length) {
  ParsedFrame f;
  f.length = static_cast<std::uint16_t>(length);
  f.vlan_id = s.vlan_id.value_or(0);
  f.dscp = s.dscp;
  f.protocol = s.protocol;
  const bool l4 = (s.protocol == sim::kProtoUdp || s.protocol == sim::kProtoTcp) &&
                  (s.l3 == sim::L3Kind::ipv6 || s.frag_offset == 0);
  if (l4) {
    f.src_port = s.src_port;
    f.dst_port = s.dst_port;
  }
  return f;
}

// Every header combination: tag or not, IPv4 with 0..10 option words or IPv6, UDP / TCP /
// other protocols, first and non-first fragments, DSCP values, payload sizes across the
// beat boundaries.
template <class Model>
void directed_headers(const std::string& name) {
  run_case(name, [&](const std::string& trace) {
    auto h = make_harness<Model>(trace, bfm::StallPattern::none(), bfm::StallPattern::none(), 1, false);
    std::vector<std::vector<std::uint8_t>> frames;
    std::vector<std::optional<ParsedFrame>> expected;
    unsigned n = 0;
    for (int tagged = 0; tagged < 2; ++tagged) {
      for (int l3 = 0; l3 < 12; ++l3) {  // 0..10: IPv4 with l3 option words, 11: IPv6
        for (std::uint8_t proto : {sim::kProtoUdp, sim::kProtoTcp, std::uint8_t{1}, std::uint8_t{50}}) {
          for (int frag = 0; frag < 3; ++frag) {  // none, first (MF), non-first
            if (l3 == 11 && frag != 0) continue;
            sim::PacketSpec s;
            if (tagged) s.vlan_id = static_cast<std::uint16_t>((n * 389) % 4096);
            s.l3 = l3 == 11 ? sim::L3Kind::ipv6 : sim::L3Kind::ipv4;
            s.ipv4_option_words = l3 == 11 ? 0 : static_cast<std::size_t>(l3);
            s.protocol = proto;
            s.dscp = static_cast<std::uint8_t>((n * 7) % 64);
            s.frag_offset = frag == 2 ? static_cast<std::uint16_t>(1 + n % 100) : 0;
            s.more_fragments = frag == 1;
            s.src_port = static_cast<std::uint16_t>(1000 + n);
            s.dst_port = static_cast<std::uint16_t>(60000 - n);
            s.payload_bytes = (n * 13) % 150;
            const auto f = sim::build_packet(s);
            frames.push_back(f);
            expected.push_back(expected_fields(s, f.size()));
            h->send(f);
            ++n;
          }
        }
      }
    }
    h->drain();
    check_all(*h, frames, false, expected);
  });
}

// One frame per drop reason (and the kept unknown ethertype), with the reason each must get.
struct ErrorCase {
  const char* what;
  std::vector<std::uint8_t> frame;
  ParseDrop reason;
};

std::vector<ErrorCase> error_cases() {
  std::vector<ErrorCase> cases;
  auto udp = [](std::size_t payload, bool tagged) {
    sim::PacketSpec s;
    if (tagged) s.vlan_id = 100;
    s.payload_bytes = payload;
    return s;
  };
  for (std::size_t len : {0UL, 1UL, 13UL, 14UL, 59UL}) {
    auto f = sim::build_packet(udp(18, false));
    f.resize(len);
    cases.push_back({"runt", f, ParseDrop::kRunt});
  }
  {
    auto f = sim::build_packet(udp(18, false));
    cases.push_back({"60 bytes exactly", f, ParseDrop::kNone});
  }
  for (bool tagged : {false, true}) {
    const std::size_t l3 = tagged ? 18 : 14;
    auto f = sim::build_packet(udp(100, tagged));
    f.resize(f.size() - 1);  // one byte short of the IP total length
    cases.push_back({"IPv4 total length past the frame end", f, ParseDrop::kTruncated});

    f = sim::build_packet(udp(100, tagged));
    f[l3 + 2] = 0;
    f[l3 + 3] = 19;  // total length < 20-byte header
    cases.push_back({"IPv4 total length below the header length", f, ParseDrop::kTruncated});

    sim::PacketSpec s = udp(0, tagged);
    s.ipv4_option_words = 10;  // 60-byte header, total = 68
    f = sim::build_packet(s);
    f[l3 + 2] = 0;
    f[l3 + 3] = 60 + 7;  // UDP header would need 8 bytes
    cases.push_back({"IPv4 UDP header cut by the total length", f, ParseDrop::kTruncated});

    s = udp(0, tagged);
    s.protocol = sim::kProtoTcp;
    f = sim::build_packet(s);
    f[l3 + 3] = static_cast<std::uint8_t>(f[l3 + 3] - 1);  // TCP needs 20 bytes
    cases.push_back({"IPv4 TCP header cut by the total length", f, ParseDrop::kTruncated});

    s = udp(0, tagged);
    s.protocol = sim::kProtoTcp;
    s.frag_offset = 3;
    f = sim::build_packet(s);
    cases.push_back({"IPv4 non-first TCP fragment without L4 header", f, ParseDrop::kNone});

    s = udp(0, tagged);
    s.ipv4_option_words = 10;
    f = sim::build_packet(s);
    f.resize(60);  // header (l3 + 60 bytes) runs past the end of a 60-byte frame
    cases.push_back({"IPv4 header longer than the frame", f, ParseDrop::kTruncated});

    s = udp(100, tagged);
    s.l3 = sim::L3Kind::ipv6;
    f = sim::build_packet(s);
    f.resize(f.size() - 1);
    cases.push_back({"IPv6 payload length past the frame end", f, ParseDrop::kTruncated});

    s = udp(0, tagged);
    s.l3 = sim::L3Kind::ipv6;
    s.protocol = sim::kProtoTcp;
    f = sim::build_packet(s);
    f[l3 + 5] = 19;
    cases.push_back({"IPv6 TCP header cut by the payload length", f, ParseDrop::kTruncated});

    for (std::uint8_t ihl = 0; ihl < 5; ++ihl) {
      f = sim::build_packet(udp(40, tagged));
      f[l3] = static_cast<std::uint8_t>(0x40 | ihl);
      cases.push_back({"IPv4 IHL below 5", f, ParseDrop::kBadIhl});
    }
    f = sim::build_packet(udp(40, tagged));
    f[l3] = 0x65;
    cases.push_back({"IPv4 ethertype with version 6", f, ParseDrop::kBadIhl});
    s = udp(40, tagged);
    s.l3 = sim::L3Kind::ipv6;
    f = sim::build_packet(s);
    f[l3] = static_cast<std::uint8_t>(0x40 | (f[l3] & 0x0F));
    cases.push_back({"IPv6 ethertype with version 4", f, ParseDrop::kBadIhl});

    for (std::uint16_t et : {std::uint16_t{0x0806}, std::uint16_t{0x88A8}, std::uint16_t{0x8100},
                              std::uint16_t{0x86DE}, std::uint16_t{0x0000}}) {
      s = udp(40, tagged);
      s.l3 = sim::L3Kind::raw;
      s.ethertype = et;
      cases.push_back({"unknown ethertype", sim::build_packet(s), ParseDrop::kUnknownEtype});
    }
  }
  return cases;
}

template <class Model>
void directed_errors(const std::string& name) {
  for (bool bad_to_default : {false, true}) {
    run_case(name + (bad_to_default ? ".bad_to_default" : ""), [&](const std::string& trace) {
      auto h = make_harness<Model>(trace, bfm::StallPattern::none(), bfm::StallPattern::none(), 2,
                                   bad_to_default);
      const auto cases = error_cases();
      std::vector<std::vector<std::uint8_t>> frames;
      for (const auto& c : cases) {
        frames.push_back(c.frame);
        h->send(c.frame);
      }
      h->drain();
      check_all(*h, frames, bad_to_default);
      for (std::size_t i = 0; i < cases.size(); ++i) {
        const ParsedFrame& got = h->frames()[i].meta;
        ParseDrop want = cases[i].reason;
        if (want == ParseDrop::kUnknownEtype && bad_to_default) {
          want = ParseDrop::kNone;
          expect(got.to_default, fmt::format("case {} ({}): not sent to the default class", i, cases[i].what));
        }
        expect(got.drop == want, fmt::format("case {} ({}): drop {} expected {}", i, cases[i].what,
                                             to_string(got.drop), to_string(want)));
      }
    });
  }
}

// Every length 0..200 and lengths around beat boundaries up to jumbo, as random bytes and
// as a valid packet cut to that length; some frames end with an empty tlast beat.
template <class Model>
void every_length(const std::string& name) {
  run_case(name, [&](const std::string& trace) {
    auto h = make_harness<Model>(trace, bfm::StallPattern::random(0.2), bfm::StallPattern::random(0.2), 3, false);
    std::mt19937_64 rng(3);
    std::vector<std::size_t> lengths;
    for (std::size_t l = 0; l <= 200; ++l) lengths.push_back(l);
    for (std::size_t l : {255UL, 256UL, 257UL, 511UL, 512UL, 513UL, 1500UL, 1514UL, 1518UL, 4096UL, 9000UL, 9599UL,
                          9600UL, 9700UL}) {
      lengths.push_back(l);
    }
    std::vector<std::vector<std::uint8_t>> frames;
    for (std::size_t len : lengths) {
      sim::PacketSpec s;
      s.vlan_id = static_cast<std::uint16_t>(len % 4096);
      s.payload_bytes = std::min<std::size_t>(len > 46 ? len - 46 : 0, 9000);
      auto f = sim::build_packet(s);
      f.resize(len, 0x5A);
      frames.push_back(f);
      h->send(f, len % 7 == 0);
      std::vector<std::uint8_t> r(len);
      for (auto& b : r) b = static_cast<std::uint8_t>(rng());
      frames.push_back(r);
      h->send(r);
    }
    h->drain(20000);
    check_all(*h, frames, false);
  });
}

// Random frames under every pairing of input idle and output backpressure patterns.
template <class Model>
void random_matrix(const std::string& name, std::size_t frames_per_run) {
  run_stall_matrix(name, 100, [&](const std::string& trace, const bfm::StallPattern& idle, const bfm::StallPattern& bp,
                                  std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const bool bad_to_default = (seed & 1) != 0;
    auto h = make_harness<Model>(trace, idle, bp, seed, bad_to_default);
    std::vector<std::vector<std::uint8_t>> frames;
    for (std::size_t i = 0; i < frames_per_run; ++i) {
      frames.push_back(random_frame(rng));
      h->send(frames.back(), rng() % 16 == 0);
    }
    h->drain(20000);
    check_all(*h, frames, bad_to_default);
  });
}

// Back-to-back frames with the sink always ready: one beat per clock, no bubble between
// frames, first beat out `latency` clocks after it went in.
template <class Model>
void full_throughput(const std::string& name, unsigned latency) {
  run_case(name, [&](const std::string& trace) {
    auto h = make_harness<Model>(trace, bfm::StallPattern::none(), bfm::StallPattern::none(), 4, false);
    std::mt19937_64 rng(4);
    std::vector<std::vector<std::uint8_t>> frames;
    std::uint64_t beats = 0;
    for (int i = 0; i < 200; ++i) {
      sim::PacketSpec s = random_spec(rng);
      s.payload_bytes %= 300;
      frames.push_back(sim::build_packet(s));
      h->send(frames.back());
      beats += (frames.back().size() + ParserHarness<Model>::kBytesPerBeat - 1) / ParserHarness<Model>::kBytesPerBeat;
    }
    const std::uint64_t start = h->tb().cycle();
    h->drain();
    check_all(*h, frames, false);
    const auto& out = h->frames();
    // The source offers its first beat in the cycle after `start`.
    expect(out.front().first_cycle == start + 1 + latency,
           fmt::format("first beat out at cycle {}, expected {}", out.front().first_cycle, start + 1 + latency));
    expect(out.back().last_cycle - out.front().first_cycle + 1 == beats,
           fmt::format("{} beats took {} cycles", beats, out.back().last_cycle - out.front().first_cycle + 1));
  });
}

}  // namespace

#define NICSCHED_PARSER_TESTS(Model, W)                                                     \
  TEST_CASE(W ".directed_headers") { directed_headers<Model>("rtl.parser." W ".directed_headers"); } \
  TEST_CASE(W ".directed_errors") { directed_errors<Model>("rtl.parser." W ".directed_errors"); }    \
  TEST_CASE(W ".every_length") { every_length<Model>("rtl.parser." W ".every_length"); }             \
  TEST_CASE(W ".random_matrix") { random_matrix<Model>("rtl.parser." W ".random_matrix", 300); }     \
  TEST_CASE(W ".full_throughput") { full_throughput<Model>("rtl.parser." W ".full_throughput", 2); }

NICSCHED_PARSER_TESTS(Vparser_w512, "w512")
NICSCHED_PARSER_TESTS(Vparser_w64, "w64")
NICSCHED_PARSER_TESTS(Vparser_w128, "w128")  // a width between the two the top uses
