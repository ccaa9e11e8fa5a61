// Test-bench support shared by the parser, classifier and ingress benches (and the pcap
// and fuzz benches): a Testbench owning one Verilated model, FST-on-failure runs, random
// frames, classifier configuration onto the flattened CSR ports, and harnesses that push
// frames through a DUT and check every frame against the reference model.
#pragma once

#include <bit>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "nicsched/sim/bfm/axis.hpp"
#include "nicsched/sim/bfm/testbench.hpp"
#include "nicsched/nic/types.hpp"
#include "nicsched/refmodel/parser.hpp"
#include "nicsched/sim/packet.hpp"

namespace nicsched::test {

namespace bfm = nicsched::sim::bfm;
using nic::CryptoOp;
using refmodel::ParsedFrame;
using refmodel::ParseDrop;
// The classifier's configuration ports carry the CSR's CLASSIFIER entries, DEFAULT_ACTION
// and CTRL.BAD_TO_DEFAULT: the part of the configuration the ingress sees.
using ClassifierConfig = nic::Config;

/// nicsched_pkg::ingress_meta_t, the ingress's tuser: what the reference model's parser
/// and classifier decide for a frame, in the RTL's field widths.
struct IngressMeta {
  ParseDrop drop = ParseDrop::kNone;
  std::uint8_t crypto_op = 0;
  std::uint8_t cls = 0;
  std::uint8_t tenant = 0;
  bool operator==(const IngressMeta&) const = default;
  /// The packed SystemVerilog layout {drop[2:0], crypto_op[1:0], cls, tenant[5:0]}.
  [[nodiscard]] std::uint16_t pack() const {
    return static_cast<std::uint16_t>((static_cast<unsigned>(drop) << 9) | ((crypto_op & 3U) << 7) |
                                      ((cls & 1U) << 6) | (tenant & 0x3FU));
  }
  static IngressMeta unpack(std::uint16_t bits) {
    IngressMeta m;
    m.drop = static_cast<ParseDrop>((bits >> 9) & 7U);
    m.crypto_op = static_cast<std::uint8_t>((bits >> 7) & 3U);
    m.cls = static_cast<std::uint8_t>((bits >> 6) & 1U);
    m.tenant = static_cast<std::uint8_t>(bits & 0x3FU);
    return m;
  }
};
/// The ingress metadata a test expects: a frame for `tenant`, class `cls`, crypto op `op`,
/// or dropped for `d`.
inline IngressMeta meta(std::uint8_t tenant, std::uint8_t cls, std::uint8_t op, ParseDrop d = ParseDrop::kNone) {
  return {.drop = d, .crypto_op = op, .cls = cls, .tenant = tenant};
}
inline std::string to_string(const IngressMeta& m) {
  return fmt::format("{{drop {} crypto {} class {} tenant {}}}", refmodel::to_string(m.drop), m.crypto_op, m.cls,
                     m.tenant);
}

/// The reference classifier's result for parsed fields `f` (drop reason only when dropped).
inline IngressMeta classify_meta(const ParsedFrame& f, const ClassifierConfig& cfg) {
  IngressMeta m;
  if (f.drop != ParseDrop::kNone) {
    m.drop = f.drop;
    return m;
  }
  const nic::ClassifierAction a = refmodel::classify(f, cfg);
  m.tenant = static_cast<std::uint8_t>(a.tenant & 0x3FU);
  m.cls = static_cast<std::uint8_t>(a.cls & 1U);
  m.crypto_op = static_cast<std::uint8_t>(a.crypto_op);
  return m;
}

/// The reference ingress: parser, then classifier (runt threshold of the direction: 60 bytes
/// from the MAC, refmodel::kMinHostFrameBytes from the host).
inline IngressMeta ingress_reference(std::span<const std::uint8_t> frame, const ClassifierConfig& cfg,
                                     std::uint32_t min_frame_bytes = refmodel::kMinFrameBytes) {
  return classify_meta(refmodel::parse_frame(frame, cfg.bad_to_default, min_frame_bytes), cfg);
}

/// A check in a bench failed; the message says what and where.
class TestFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void expect(bool ok, const std::string& what) {
  if (!ok) throw TestFailure(what);
}

// The Verilated test bench, waveform-on-failure runner and port bit access are shared
// with the core benches (nicsched/sim/bfm/testbench.hpp).
using bfm::get_bits;
using bfm::run_traced;
using bfm::set_bits;
using bfm::Testbench;
using bfm::trace_path_for;

/// Writes a classifier configuration onto a model with the CSR-named configuration ports.
template <class Model>
void apply_classifier_config(Model& m, const ClassifierConfig& cfg, unsigned num_entries) {
  if (cfg.classifier.size() > num_entries) {
    throw std::invalid_argument(fmt::format("classifier config has {} entries, the DUT {}",
                                            cfg.classifier.size(), num_entries));
  }
  for (unsigned i = 0; i < num_entries; ++i) {
    const nic::ClassifierEntry e = i < cfg.classifier.size() ? cfg.classifier[i] : nic::ClassifierEntry::reset();
    set_bits(m.cls_vlan_value_i, i * 12, 12, e.vlan);
    set_bits(m.cls_vlan_mask_i, i * 12, 12, e.vlan_mask);
    set_bits(m.cls_dscp_proto_dscp_i, i * 6, 6, e.dscp);
    set_bits(m.cls_dscp_proto_dscp_mask_i, i * 6, 6, e.dscp_mask);
    set_bits(m.cls_dscp_proto_proto_i, i * 8, 8, e.proto);
    set_bits(m.cls_dscp_proto_proto_mask_i, i * 8, 8, e.proto_mask);
    set_bits(m.cls_port_value_i, i * 16, 16, e.port);
    set_bits(m.cls_port_mask_i, i * 16, 16, e.port_mask);
    set_bits(m.cls_action_valid_i, i, 1, e.valid ? 1 : 0);
    set_bits(m.cls_action_tenant_i, i * 6, 6, e.action.tenant);
    set_bits(m.cls_action_class_i, i, 1, e.action.cls);
    set_bits(m.cls_action_crypto_op_i, i * 2, 2, static_cast<std::uint32_t>(e.action.crypto_op));
  }
  m.default_action_tenant_i = static_cast<std::uint8_t>(cfg.default_action.tenant);
  m.default_action_class_i = static_cast<std::uint8_t>(cfg.default_action.cls);
  m.default_action_crypto_op_i = static_cast<std::uint8_t>(cfg.default_action.crypto_op);
}

// ------------------------------------------------------------------------------------
// Random traffic
// ------------------------------------------------------------------------------------

/// A random packet description covering every header combination the parser knows.
inline sim::PacketSpec random_spec(std::mt19937_64& rng) {
  auto pick = [&rng](unsigned n) { return static_cast<unsigned>(std::uniform_int_distribution<unsigned>(0, n - 1)(rng)); };
  sim::PacketSpec s;
  if (pick(2)) s.vlan_id = static_cast<std::uint16_t>(pick(4096));
  s.vlan_pcp = static_cast<std::uint8_t>(pick(8));
  const unsigned l3 = pick(10);
  s.l3 = l3 < 5 ? sim::L3Kind::ipv4 : (l3 < 9 ? sim::L3Kind::ipv6 : sim::L3Kind::raw);
  static constexpr std::uint16_t kOtherTypes[] = {0x0806, 0x88A8, 0x8100, 0x88CC, 0x0000, 0xFFFF};
  s.ethertype = kOtherTypes[pick(6)];
  s.dscp = static_cast<std::uint8_t>(pick(64));
  s.ipv4_option_words = pick(3) == 0 ? pick(11) : 0;
  if (pick(6) == 0) s.frag_offset = static_cast<std::uint16_t>(pick(4) == 0 ? 0 : 1 + pick(8190));
  s.more_fragments = pick(2) == 0;
  static constexpr std::uint8_t kProtos[] = {sim::kProtoUdp, sim::kProtoUdp, sim::kProtoTcp,
                                             sim::kProtoTcp, 1, 47, 50, 58};
  s.protocol = kProtos[pick(8)];
  s.src_port = static_cast<std::uint16_t>(pick(65536));
  s.dst_port = static_cast<std::uint16_t>(pick(4) == 0 ? 4791 + pick(4) : pick(65536));
  const unsigned size_class = pick(20);
  s.payload_bytes = size_class == 0 ? 8000 + pick(1500) : (size_class < 4 ? pick(1500) : pick(120));
  s.pad_to_min = pick(8) != 0;
  return s;
}

/// A random frame: mostly well-formed packets, some cut short, padded, with a corrupted
/// header byte or length field, and some random bytes.
inline std::vector<std::uint8_t> random_frame(std::mt19937_64& rng) {
  auto pick = [&rng](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  const std::size_t kind = pick(20);
  if (kind == 0) {
    std::vector<std::uint8_t> f(pick(200));
    for (auto& b : f) b = static_cast<std::uint8_t>(pick(256));
    return f;
  }
  std::vector<std::uint8_t> f = sim::build_packet(random_spec(rng));
  switch (kind) {
    case 1:
    case 2: f.resize(pick(f.size())); break;                         // cut short
    case 3: f.resize(f.size() + 1 + pick(100), 0); break;            // Ethernet padding
    case 4:
    case 5: f[12 + pick(std::min<std::size_t>(f.size() - 12, 60))] = static_cast<std::uint8_t>(pick(256)); break;
    case 6: {                                                        // version / IHL byte
      const std::size_t l3 = (f[12] == 0x81 && f[13] == 0x00) ? 18 : 14;
      f[l3] = static_cast<std::uint8_t>(pick(256));
      break;
    }
    case 7: {                                                        // IP length field
      const std::size_t l3 = (f[12] == 0x81 && f[13] == 0x00) ? 18 : 14;
      const std::size_t at = l3 + ((f[l3] >> 4) == 6 ? 4 : 2);
      f[at] = static_cast<std::uint8_t>(pick(3));
      f[at + 1] = static_cast<std::uint8_t>(pick(256));
      break;
    }
    default: break;
  }
  return f;
}

/// A random classifier table: entries with random values and masks that often hit.
inline ClassifierConfig random_config(std::mt19937_64& rng, unsigned num_entries) {
  auto pick = [&rng](unsigned n) { return std::uniform_int_distribution<unsigned>(0, n - 1)(rng); };
  auto mask = [&](unsigned bits) -> std::uint32_t {
    const unsigned m = pick(4);
    const std::uint32_t all = (1U << bits) - 1;
    return m == 0 ? 0 : (m == 1 ? all : (pick(1U << bits) & all));
  };
  ClassifierConfig cfg;
  cfg.bad_to_default = pick(2) == 0;
  cfg.default_action = {pick(64), pick(2), static_cast<CryptoOp>(pick(4))};
  cfg.classifier.resize(num_entries);
  for (auto& e : cfg.classifier) {
    e.valid = pick(4) != 0;
    e.vlan = static_cast<std::uint16_t>(pick(4) == 0 ? 0 : pick(4096));
    e.vlan_mask = static_cast<std::uint16_t>(mask(12));
    e.dscp = static_cast<std::uint8_t>(pick(64));
    e.dscp_mask = static_cast<std::uint8_t>(mask(6));
    static constexpr std::uint8_t kProtos[] = {6, 17, 1, 0};
    e.proto = kProtos[pick(4)];
    e.proto_mask = static_cast<std::uint8_t>(mask(8));
    e.port = static_cast<std::uint16_t>(pick(2) == 0 ? 4791 + pick(4) : pick(65536));
    e.port_mask = static_cast<std::uint16_t>(mask(16));
    e.action = {pick(64), pick(2), static_cast<CryptoOp>(pick(4))};
  }
  return cfg;
}

/// Counter pulses seen (or expected) per reason.
struct Counts {
  std::uint64_t frames = 0, runt = 0, truncated = 0, bad_ihl = 0, unknown_etype = 0;
  bool operator==(const Counts&) const = default;
  void add(const ParsedFrame& f) {
    ++frames;
    runt += f.drop == ParseDrop::kRunt;
    truncated += f.drop == ParseDrop::kTruncated;
    bad_ihl += f.drop == ParseDrop::kBadIhl;
    unknown_etype += f.drop == ParseDrop::kUnknownEtype || f.to_default;
  }
  [[nodiscard]] std::string str() const {
    return fmt::format("frames {} runt {} truncated {} bad_ihl {} unknown_etype {}", frames, runt,
                       truncated, bad_ihl, unknown_etype);
  }
};

template <class Model>
void sample_counts(const Model& m, Counts& c) {
  c.frames += m.cnt_frames_o;
  c.runt += m.cnt_runt_o;
  c.truncated += m.cnt_truncated_o;
  c.bad_ihl += m.cnt_bad_ihl_o;
  c.unknown_etype += m.cnt_unknown_etype_o;
}

/// The idle x backpressure matrix: every pairing of these patterns on input and output.
inline std::vector<bfm::StallPattern> stall_patterns() {
  return {bfm::StallPattern::none(), bfm::StallPattern::random(0.3),
          bfm::StallPattern::bursty(0.05, 24)};
}

// ------------------------------------------------------------------------------------
// Harness: frames into a DUT with s_axis/m_axis ports, everything checked on the way out
// ------------------------------------------------------------------------------------

/// Pushes frames through a DUT with s_axis_* / m_axis_* and cnt_*_o ports; `read_meta`
/// samples the DUT's sideband on each tlast beat. Checks every frame comes out once,
/// unchanged, in order.
template <class Model, class Meta>
class StreamHarness {
 public:
  using DataT = std::remove_cvref_t<decltype(std::declval<Model&>().s_axis_tdata)>;
  using KeepT = std::remove_cvref_t<decltype(std::declval<Model&>().s_axis_tkeep)>;
  static constexpr unsigned kBytesPerBeat = bfm::AxisSource<DataT, KeepT>::kBytesPerBeat;

  StreamHarness(const std::string& trace, bfm::StallPattern idle, bfm::StallPattern backpressure,
                std::uint64_t seed, std::function<Meta(const Model&)> read_meta)
      : tb_(trace),
        src_(tb_.dut().s_axis_tdata, tb_.dut().s_axis_tkeep, tb_.dut().s_axis_tvalid,
             tb_.dut().s_axis_tready, tb_.dut().s_axis_tlast, idle, seed * 2 + 1),
        sink_(tb_.dut().m_axis_tdata, tb_.dut().m_axis_tkeep, tb_.dut().m_axis_tvalid,
              tb_.dut().m_axis_tready, tb_.dut().m_axis_tlast, backpressure, seed * 2 + 2) {
    Model& m = tb_.dut();
    sink_.on_last([&m, read_meta]() { return read_meta(m); });
    tb_.on_sample([this](std::uint64_t cycle) {
      src_.sample();
      sink_.sample(cycle);
      if constexpr (requires { tb_.dut().cnt_frames_o; }) sample_counts(tb_.dut(), counts_);
      if constexpr (requires { tb_.dut().m_axis_tcount; }) check_beat_count(cycle);
    });
    tb_.on_drive([this]() {
      src_.drive();
      // a DUT that takes each beat's byte count beside its tkeep (as the parser hands it on)
      if constexpr (requires { tb_.dut().s_axis_tcount; }) {
        tb_.dut().s_axis_tcount = static_cast<std::remove_cvref_t<decltype(tb_.dut().s_axis_tcount)>>(
            std::popcount(static_cast<std::uint64_t>(tb_.dut().s_axis_tkeep)));
      }
      sink_.drive();
    });
  }

  Testbench<Model>& tb() { return tb_; }
  Model& dut() { return tb_.dut(); }
  bfm::AxisSource<DataT, KeepT>& source() { return src_; }
  const Counts& counts() const { return counts_; }

  void reset() {
    tb_.reset(4);
    sink_.drive();
    tb_.dut().eval();
  }

  /// Queues one frame; `user` goes to every beat's sideband (see AxisSource::on_beat).
  void send(const std::vector<std::uint8_t>& bytes, bool empty_last_beat = false, std::uint64_t user = 0) {
    auto beats = bfm::beats_from_bytes(bytes, kBytesPerBeat, empty_last_beat);
    for (auto& b : beats) b.user = user;
    sent_.push_back(beats);
    src_.push(std::move(beats));
  }

  /// Clocks until every queued frame has come out; fails (hang) past `max_idle_cycles`
  /// cycles without a beat moving.
  void drain(std::uint64_t max_idle_cycles = 2000) {
    std::uint64_t idle = 0;
    std::size_t last_out = 0;
    std::uint64_t last_sent = 0;
    while (sink_.frames().size() < sent_.size()) {
      tb_.tick();
      if (sink_.frames().size() != last_out || src_.beats_sent() != last_sent) {
        idle = 0;
        last_out = sink_.frames().size();
        last_sent = src_.beats_sent();
      } else if (++idle > max_idle_cycles) {
        throw TestFailure(fmt::format("hang: {} of {} frames out, no beat moved for {} cycles (cycle {})",
                                      sink_.frames().size(), sent_.size(), max_idle_cycles, tb_.cycle()));
      }
    }
    for (int i = 0; i < 8; ++i) tb_.tick();  // nothing more may come out
    expect(sink_.frames().size() == sent_.size() && !sink_.mid_frame(),
           fmt::format("{} frames out for {} sent", sink_.frames().size(), sent_.size()));
  }

  /// Checks frame i came out unchanged and returns its sideband.
  const bfm::AxisFrame<Meta>& out(std::size_t i) {
    const auto& f = sink_.frames().at(i);
    std::string why;
    expect(bfm::same_beats(sent_.at(i), f.beats, &why),
           fmt::format("frame {} changed on the way through: {}", i, why));
    return f;
  }
  [[nodiscard]] std::size_t sent() const { return sent_.size(); }
  std::vector<bfm::AxisFrame<Meta>>& frames() { return sink_.frames(); }
  const std::vector<bfm::AxisBeat>& sent_beats(std::size_t i) const { return sent_.at(i); }

 private:
  // Every beat that leaves carries its byte count: the number of its tkeep lanes.
  void check_beat_count(std::uint64_t cycle) {
    const Model& m = tb_.dut();
    if (!(m.m_axis_tvalid && m.m_axis_tready)) return;
    const auto keep = static_cast<std::uint64_t>(m.m_axis_tkeep);
    if (static_cast<unsigned>(m.m_axis_tcount) != static_cast<unsigned>(std::popcount(keep))) {
      throw TestFailure(fmt::format("beat with tkeep {:#x} leaves with byte count {} at cycle {}", keep,
                                    static_cast<unsigned>(m.m_axis_tcount), cycle));
    }
  }

  Testbench<Model> tb_;
  bfm::AxisSource<DataT, KeepT> src_;
  bfm::AxisSink<DataT, KeepT, Meta> sink_;
  std::vector<std::vector<bfm::AxisBeat>> sent_;
  Counts counts_;
};

/// Fails the bench (TestFailure) when the DUT drives a non-zero m_axis_tuser with a beat that
/// is not the frame's last: ingress_meta_t rides on the tlast beat only.
template <class Model, class Meta>
void forbid_tuser_before_last(StreamHarness<Model, Meta>& h) {
  h.tb().on_sample([&h](std::uint64_t cycle) {
    const Model& m = h.dut();
    if (m.m_axis_tvalid && m.m_axis_tready && !m.m_axis_tlast && m.m_axis_tuser != 0) {
      throw TestFailure(fmt::format("tuser {:#x} on a non-last beat at cycle {}", m.m_axis_tuser, cycle));
    }
  });
}

/// Parser fields as the RTL reports them on the tlast beat.
template <class Model>
ParsedFrame read_parser_fields(const Model& m) {
  ParsedFrame f;
  f.length = m.m_prs_len_o;
  f.vlan_id = m.m_prs_vlan_o;
  f.dscp = m.m_prs_dscp_o;
  f.protocol = m.m_prs_proto_o;
  f.src_port = m.m_prs_sport_o;
  f.dst_port = m.m_prs_dport_o;
  f.drop = static_cast<ParseDrop>(m.m_prs_drop_o);
  f.to_default = m.m_prs_default_o != 0;
  return f;
}

template <class Model>
IngressMeta read_ingress_meta(const Model& m) {
  return IngressMeta::unpack(static_cast<std::uint16_t>(m.m_axis_tuser));
}

/// Bytes of frame i as sent (kept lanes).
inline std::string hex_prefix(const std::vector<std::uint8_t>& b, std::size_t n = 48) {
  std::string s;
  for (std::size_t i = 0; i < b.size() && i < n; ++i) s += fmt::format("{:02x}", b[i]);
  if (b.size() > n) s += "...";
  return s;
}

/// Classifier entries of the Verilated ingress models (Vingress_w*: NumClsEntries=16).
inline constexpr unsigned kIngressEntries = 16;

/// nicsched_ingress (parser + classifier) under a classifier table: every frame sent must
/// leave once, unchanged, with the reference model's ingress_meta_t (ingress_reference),
/// and the counter pulses must equal the reference parser's tally; tuser is zero on every
/// beat but the last. The model's MinFrameBytes / PadFrameBytes are given: RX (the
/// default) 60 / 0; TX 14 / 60, where a kept frame under 60 bytes must leave zero-padded to 60.
template <class Model>
class IngressBench {
 public:
  using Harness = StreamHarness<Model, IngressMeta>;
  IngressBench(const std::string& trace, bfm::StallPattern idle, bfm::StallPattern bp, std::uint64_t seed,
               const ClassifierConfig& cfg, std::uint32_t min_frame_bytes = refmodel::kMinFrameBytes,
               std::uint32_t pad_frame_bytes = 0)
      : h_(trace, idle, bp, seed, [](const Model& m) { return read_ingress_meta(m); }),
        min_frame_(min_frame_bytes),
        pad_frame_(pad_frame_bytes) {
    configure(cfg);
    forbid_tuser_before_last(h_);
    h_.reset();
  }
  /// Applies a table (between bursts, with the pipeline empty).
  void configure(const ClassifierConfig& cfg) {
    cfg_ = cfg;
    apply_classifier_config(h_.dut(), cfg, kIngressEntries);
    h_.dut().ctrl_bad_to_default_i = cfg.bad_to_default ? 1 : 0;
  }
  void send(const std::vector<std::uint8_t>& f, bool empty_last = false) {
    frames_.push_back(f);
    want_.push_back(ingress_reference(f, cfg_, min_frame_));
    counts_.add(refmodel::parse_frame(f, cfg_.bad_to_default, min_frame_));
    h_.send(f, empty_last);
  }
  /// Drains and checks every frame; the RTL's ingress_meta_t per frame.
  std::vector<IngressMeta> finish(std::uint64_t max_idle_cycles = 20000) {
    h_.drain(max_idle_cycles);
    std::vector<IngressMeta> got;
    for (std::size_t i = 0; i < frames_.size(); ++i) {
      const auto& out = h_.frames().at(i);
      if (want_[i].drop == ParseDrop::kNone && frames_[i].size() < pad_frame_) {
        std::vector<std::uint8_t> wire = frames_[i];
        wire.resize(pad_frame_, 0);
        expect(bfm::kept_bytes(out.beats) == wire,
               fmt::format("frame {} ({} bytes: {}) left as {} bytes ({}), not zero-padded to {}", i, frames_[i].size(),
                           hex_prefix(frames_[i]), bfm::kept_bytes(out.beats).size(),
                           hex_prefix(bfm::kept_bytes(out.beats), 64), pad_frame_));
      } else {
        (void)h_.out(i);  // unchanged
      }
      const IngressMeta m = out.meta;
      expect(m == want_[i], fmt::format("frame {} ({} bytes: {}): RTL {} reference {}", i, frames_[i].size(),
                                        hex_prefix(frames_[i]), to_string(m), to_string(want_[i])));
      got.push_back(m);
    }
    expect(h_.counts() == counts_, fmt::format("counters: RTL {} reference {}", h_.counts().str(), counts_.str()));
    return got;
  }
  Harness& harness() { return h_; }

 private:
  Harness h_;
  std::uint32_t min_frame_;
  std::uint32_t pad_frame_;
  ClassifierConfig cfg_;
  std::vector<std::vector<std::uint8_t>> frames_;
  std::vector<IngressMeta> want_;
  Counts counts_;
};

}  // namespace nicsched::test
