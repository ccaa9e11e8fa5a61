// Long-random fuzzer of the parser RTL against the reference parser and, with --dut ingress /
// ingress_tx, of the parser and classifier together (nicsched_ingress, as nicsched_top has it
// on RX / on TX) against the reference model's parser and classifier.
//
// Arbitrary bytes (random frames of 0..--max-len bytes, mutated valid packets, headers with
// planted ethertypes/IHL/length fields), random tkeep on the last beat (any length, and
// sometimes an extra empty tlast beat), random idle/backpressure patterns and
// CTRL.BAD_TO_DEFAULT per batch. Each batch checks: nothing hangs, every frame leaves
// exactly once and unchanged, its fields and verdict equal the reference parser's, and the
// counter pulses equal the reference tally. With --dut ingress each batch also draws a random
// classifier table (16 entries: values, masks, valid bits, actions), DEFAULT_ACTION and
// CTRL.BAD_TO_DEFAULT, and every frame's verdict (drop reason, tenant, class, crypto op)
// must equal the reference classifier's (refmodel::classify over refmodel::parse_frame); on
// TX (--dut ingress_tx: runts under 14 bytes, kept frames under 60 bytes leave zero-padded to
// 60) also the padded bytes.
// A failing batch is rerun with an FST waveform and the command to rerun it alone is printed.
//
// Usage: fuzz_parser [--dut parser|ingress|ingress_tx] [--width 512|64] [--seed S] [--batches N]
//                    [--frames N] [--max-len N] [--batch B]     (only batch B)
// Exit: 0 all batches passed, 1 a batch failed, 2 bad arguments.
#include <charconv>
#include <map>
#include <iostream>
#include <optional>

#include "Vingress_tx_w512.h"
#include "Vingress_tx_w64.h"
#include "Vingress_w512.h"
#include "Vingress_w64.h"
#include "Vparser_w512.h"
#include "Vparser_w64.h"
#include "ingress_bench.hpp"

using namespace nicsched;
using namespace nicsched::test;

namespace {

struct Options {
  std::string dut = "parser";  // parser | ingress (parser + classifier, RX) | ingress_tx (the same, TX)
  std::string width = "512";
  std::uint64_t seed = 1;
  std::uint64_t batches = 20;
  std::uint64_t frames = 500;
  std::size_t max_len = 9700;
  std::optional<std::uint64_t> only_batch;
};

std::size_t random_length(std::mt19937_64& rng, std::size_t max_len) {
  const auto r = rng() % 10;
  const std::size_t cap = r < 5 ? 128 : (r < 8 ? 1600 : max_len);
  return static_cast<std::size_t>(rng() % (std::min(cap, max_len) + 1));
}

std::vector<std::uint8_t> fuzz_frame(std::mt19937_64& rng, std::size_t max_len) {
  std::vector<std::uint8_t> f;
  switch (rng() % 4) {
    case 0: {  // arbitrary bytes
      f.resize(random_length(rng, max_len));
      for (auto& b : f) b = static_cast<std::uint8_t>(rng());
      break;
    }
    case 1: {  // arbitrary bytes behind a planted header start the parser recognises
      f.resize(std::max<std::size_t>(random_length(rng, max_len), 14 + rng() % 80));
      for (auto& b : f) b = static_cast<std::uint8_t>(rng());
      static constexpr std::uint16_t kTypes[] = {0x0800, 0x86DD, 0x8100};
      std::size_t at = 12;
      for (int tags = 0; tags < 2 && at + 2 <= f.size(); ++tags) {
        const std::uint16_t t = kTypes[rng() % 3];
        f[at] = static_cast<std::uint8_t>(t >> 8);
        f[at + 1] = static_cast<std::uint8_t>(t & 0xFF);
        if (t != 0x8100) {
          if (at + 2 < f.size()) f[at + 2] = static_cast<std::uint8_t>((t == 0x0800 ? 0x40 : 0x60) | (rng() % 16));
          break;
        }
        at += 4;
      }
      break;
    }
    case 2: {  // a valid packet with a few bytes changed, then cut or extended
      f = sim::build_packet(random_spec(rng));
      const unsigned flips = 1 + static_cast<unsigned>(rng() % 4);
      for (unsigned i = 0; i < flips && !f.empty(); ++i) {
        f[rng() % std::min<std::size_t>(f.size(), 90)] = static_cast<std::uint8_t>(rng());
      }
      if (rng() % 2) f.resize(std::min(max_len, random_length(rng, max_len)), static_cast<std::uint8_t>(rng()));
      break;
    }
    default: f = random_frame(rng); break;
  }
  if (f.size() > max_len) f.resize(max_len);
  return f;
}

bfm::StallPattern random_pattern(std::mt19937_64& rng) {
  switch (rng() % 3) {
    case 0: return bfm::StallPattern::none();
    case 1: return bfm::StallPattern::random(static_cast<double>(rng() % 90) / 100.0);
    default: return bfm::StallPattern::bursty(static_cast<double>(1 + rng() % 20) / 100.0, 1 + static_cast<unsigned>(rng() % 64));
  }
}

struct BatchResult {
  std::uint64_t frames = 0;
  std::uint64_t bytes = 0;
  Counts counts;
  // --dut ingress: how the reference classified the kept frames
  std::uint64_t by_entry = 0;    // a table entry matched
  std::uint64_t by_default = 0;  // DEFAULT_ACTION (no entry matched, or a non-IP frame kept)
};

template <class Model>
BatchResult run_batch(const Options& o, std::uint64_t batch, const std::string& trace) {
  std::mt19937_64 rng(o.seed * 0x9E3779B97F4A7C15ULL + batch);
  const auto idle = random_pattern(rng);
  const auto bp = random_pattern(rng);
  const bool bad_to_default = rng() % 2;
  StreamHarness<Model, ParsedFrame> h(trace, idle, bp, rng(), [](const Model& m) { return read_parser_fields(m); });
  h.dut().bad_to_default_i = bad_to_default ? 1 : 0;
  h.reset();
  std::vector<std::vector<std::uint8_t>> frames;
  BatchResult r;
  for (std::uint64_t i = 0; i < o.frames; ++i) {
    frames.push_back(fuzz_frame(rng, o.max_len));
    r.bytes += frames.back().size();
    h.send(frames.back(), rng() % 8 == 0);
  }
  h.drain(50000);
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const ParsedFrame ref = refmodel::parse_frame(frames[i], bad_to_default);
    r.counts.add(ref);
    const ParsedFrame rtl = h.out(i).meta;
    expect(rtl == ref, fmt::format("frame {} ({} bytes: {}): RTL {} reference {}", i, frames[i].size(),
                                   hex_prefix(frames[i]), to_string(rtl), to_string(ref)));
  }
  expect(h.counts() == r.counts, fmt::format("counters: RTL {} reference {}", h.counts().str(), r.counts.str()));
  r.frames = frames.size();
  return r;
}

// Parser and classifier together under a random table: every verdict equals the reference's.
// `tx`: the model is the TX configuration (14-byte runts, padding to 60).
template <class Model, bool tx>
BatchResult run_ingress_batch(const Options& o, std::uint64_t batch, const std::string& trace) {
  const std::uint32_t min_frame = tx ? refmodel::kMinHostFrameBytes : refmodel::kMinFrameBytes;
  std::mt19937_64 rng(o.seed * 0x9E3779B97F4A7C15ULL + batch);
  const auto idle = random_pattern(rng);
  const auto bp = random_pattern(rng);
  ClassifierConfig cfg = random_config(rng, kIngressEntries);
  std::vector<std::vector<std::uint8_t>> frames;
  std::vector<ParsedFrame> kept;
  for (std::uint64_t i = 0; i < o.frames; ++i) {
    frames.push_back(fuzz_frame(rng, o.max_len));
    const ParsedFrame f = refmodel::parse_frame(frames.back(), cfg.bad_to_default, min_frame);
    if (f.drop == ParseDrop::kNone && !f.to_default) kept.push_back(f);
  }
  // Half the entries take their values from a frame of the batch (masks stay random), so that
  // entries match, overlap and compete for the first match instead of mostly missing.
  for (auto& e : cfg.classifier) {
    if (kept.empty() || rng() % 2 == 0) continue;
    const ParsedFrame& f = kept[rng() % kept.size()];
    e.vlan = f.vlan_id;
    e.dscp = f.dscp;
    e.proto = f.protocol;
    e.port = f.dst_port;
  }
  // the same table with another DEFAULT_ACTION: a frame whose result moves with it took the default
  ClassifierConfig other_default = cfg;
  other_default.default_action.tenant = (cfg.default_action.tenant + 1) % 64;
  IngressBench<Model> b(trace, idle, bp, rng(), cfg, min_frame, tx ? refmodel::kMinFrameBytes : 0);
  BatchResult r;
  for (const auto& f : frames) {
    r.bytes += f.size();
    const ParsedFrame ref = refmodel::parse_frame(f, cfg.bad_to_default, min_frame);
    r.counts.add(ref);
    if (ref.drop == ParseDrop::kNone) {
      const bool by_default = refmodel::classify(ref, cfg) != refmodel::classify(ref, other_default);
      r.by_default += by_default;
      r.by_entry += !by_default;
    }
    b.send(f, rng() % 8 == 0);
  }
  b.finish(50000);
  r.frames = o.frames;
  return r;
}

int fuzz(const Options& o, BatchResult (*run_one)(const Options&, std::uint64_t, const std::string&)) {
  std::uint64_t frames = 0, bytes = 0, failed = 0, passed = 0, by_entry = 0, by_default = 0;
  Counts total;
  const std::uint64_t first = o.only_batch.value_or(0);
  const std::uint64_t last = o.only_batch ? *o.only_batch + 1 : o.batches;
  for (std::uint64_t b = first; b < last; ++b) {
    BatchResult r;
    const std::string name = fmt::format("fuzz_parser.{}.w{}.seed{}.batch{}", o.dut, o.width, o.seed, b);
    const std::string err = run_traced(name, [&](const std::string& trace) { r = run_one(o, b, trace); });
    if (!err.empty()) {
      ++failed;
      std::cerr << name << " FAILED: " << err << "\n  rerun: fuzz_parser --dut " << o.dut << " --width " << o.width
                << " --seed " << o.seed
                << " --frames " << o.frames << " --max-len " << o.max_len << " --batch " << b << '\n';
      continue;
    }
    ++passed;
    frames += r.frames;
    bytes += r.bytes;
    total.frames += r.counts.frames;
    total.runt += r.counts.runt;
    total.truncated += r.counts.truncated;
    total.bad_ihl += r.counts.bad_ihl;
    total.unknown_etype += r.counts.unknown_etype;
    by_entry += r.by_entry;
    by_default += r.by_default;
  }
  std::cout << fmt::format("fuzz_parser {} width {} seed {}: {} passed, {} failed; {} frames, {} bytes ({})", o.dut,
                           o.width, o.seed, passed, failed, frames, bytes, total.str());
  if (o.dut != "parser") {
    std::cout << fmt::format("; {} random tables; kept frames classified by a table entry {}, by DEFAULT_ACTION {}",
                             passed, by_entry, by_default);
  }
  std::cout << '\n';
  return failed == 0 ? 0 : 1;
}

std::optional<std::uint64_t> number(const char* s) {
  std::uint64_t v = 0;
  const char* end = s + std::strlen(s);
  const auto [p, ec] = std::from_chars(s, end, v);
  if (ec != std::errc{} || p != end) return std::nullopt;
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) {
      std::cerr << "fuzz_parser: " << arg << " needs a value\n";
      return 2;
    }
    const char* val = argv[++i];
    const auto n = number(val);
    if (arg == "--width" || arg == "--dut") {
      (arg == "--width" ? o.width : o.dut) = val;
      continue;
    }
    if (!n) {
      std::cerr << "fuzz_parser: " << arg << " expects a number, got '" << val << "'\n";
      return 2;
    }
    if (arg == "--seed") o.seed = *n;
    else if (arg == "--batches") o.batches = *n;
    else if (arg == "--frames") o.frames = *n;
    else if (arg == "--max-len") o.max_len = static_cast<std::size_t>(*n);
    else if (arg == "--batch") o.only_batch = *n;
    else {
      std::cerr << "fuzz_parser: unknown option " << arg << '\n';
      return 2;
    }
  }
  using RunBatch = BatchResult (*)(const Options&, std::uint64_t, const std::string&);
  const std::map<std::string, std::map<std::string, RunBatch>> runs = {
      {"parser", {{"512", run_batch<Vparser_w512>}, {"64", run_batch<Vparser_w64>}}},
      {"ingress", {{"512", run_ingress_batch<Vingress_w512, false>}, {"64", run_ingress_batch<Vingress_w64, false>}}},
      {"ingress_tx", {{"512", run_ingress_batch<Vingress_tx_w512, true>}, {"64", run_ingress_batch<Vingress_tx_w64, true>}}},
  };
  if (!runs.count(o.dut)) {
    std::cerr << "fuzz_parser: --dut must be parser, ingress or ingress_tx, not '" << o.dut << "'\n";
    return 2;
  }
  if (const auto it = runs.at(o.dut).find(o.width); it != runs.at(o.dut).end()) return fuzz(o, it->second);
  std::cerr << "fuzz_parser: --width must be 512 or 64, not '" << o.width << "'\n";
  return 2;
}
