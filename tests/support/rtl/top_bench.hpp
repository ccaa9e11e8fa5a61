// TopBench: nicsched_top with its AXI4-Lite master, TX/RX AXI4-Stream sources and sinks,
// register helpers (regmap.hpp) and a classifier set-up that maps 802.1Q VLAN IDs to
// (tenant, class, crypto). Used by the rtl.top.* tests and by tools/bench_rtl.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core_tb.hpp"
#include "nicsched/regmap.hpp"
#include "nicsched/sim/bfm/axil_master.hpp"
#include "nicsched/sim/bfm/axis.hpp"
#include "nicsched/sim/packet.hpp"

namespace nicsched::coretest {

namespace bfm = nicsched::sim::bfm;
namespace rm = nicsched::regmap;

/// What a frame is classified as (by its VLAN ID, see TopBench::vlan_for).
struct Flow {
  unsigned tenant = 0;
  unsigned cls = 1;      // 0 control, 1 bulk
  bool crypto = false;   // classified ENCRYPT: encrypted on TX, decrypted on RX
};

/// egress_user_t on tuser: {crypto_op[1:0], cls, tenant[5:0]}.
struct EgressUser {
  unsigned tenant = 0;
  unsigned cls = 0;
  unsigned op = 0;
  static EgressUser decode(std::uint64_t u) {
    return {static_cast<unsigned>(u & 0x3F), static_cast<unsigned>((u >> 6) & 1U), static_cast<unsigned>((u >> 7) & 3U)};
  }
};

struct SentPacket {
  std::uint64_t id = 0;
  Flow flow;
  std::vector<std::uint8_t> bytes;
  std::uint64_t cycle = 0;  // cycle its tlast was pushed into the source queue
};

template <class Model, unsigned kTenants, unsigned kEntries, unsigned kDataBits>
class TopBench {
 public:
  static constexpr unsigned kQueues = kTenants * 2;
  static constexpr unsigned kBeatBytes = kDataBits / 8;
  using DataT = std::remove_reference_t<decltype(std::declval<Model>().s_axis_tx_tdata)>;
  using KeepT = std::remove_reference_t<decltype(std::declval<Model>().s_axis_tx_tkeep)>;
  using Sink = bfm::AxisSink<DataT, KeepT, std::uint64_t>;
  using Source = bfm::AxisSource<DataT, KeepT>;

  Testbench<Model> tb;
  bfm::AxilMaster<Model> axil;
  Source tx_src, rx_src;
  Sink tx_sink, rx_sink;
  std::vector<Flow> flows;  // index: classifier entry = VLAN ID - 1

  TopBench(const std::string& trace, bfm::StallPattern idle, bfm::StallPattern backpressure, std::uint64_t seed)
      : tb(trace),
        axil(tb.dut()),
        tx_src(tb->s_axis_tx_tdata, tb->s_axis_tx_tkeep, tb->s_axis_tx_tvalid, tb->s_axis_tx_tready, tb->s_axis_tx_tlast, idle, seed),
        rx_src(tb->s_axis_rx_tdata, tb->s_axis_rx_tkeep, tb->s_axis_rx_tvalid, tb->s_axis_rx_tready, tb->s_axis_rx_tlast, idle, seed + 1),
        tx_sink(tb->m_axis_tx_tdata, tb->m_axis_tx_tkeep, tb->m_axis_tx_tvalid, tb->m_axis_tx_tready, tb->m_axis_tx_tlast, backpressure, seed + 2),
        rx_sink(tb->m_axis_rx_tdata, tb->m_axis_rx_tkeep, tb->m_axis_rx_tvalid, tb->m_axis_rx_tready, tb->m_axis_rx_tlast, backpressure, seed + 3) {
    tx_sink.on_last([this] { return static_cast<std::uint64_t>(tb->m_axis_tx_tuser); });
    rx_sink.on_last([this] { return static_cast<std::uint64_t>(tb->m_axis_rx_tuser); });
    tb.on_sample([this](std::uint64_t c) {
      axil.sample();
      tx_src.sample();
      rx_src.sample();
      check_tuser(c);
      tx_sink.sample(c);
      rx_sink.sample(c);
    });
    tb.on_drive([this] {
      axil.drive();
      tx_src.drive();
      rx_src.drive();
      tx_sink.drive();
      rx_sink.drive();
    });
    tb.reset();
    // the queue managers build their free lists after reset (one clock per cell: at most
    // 8192 cells in the configurations benched); the ingress buffers a few beats meanwhile
    run(8300);
    check(tb->s_axis_tx_tready && tb->s_axis_rx_tready, "s_axis_*_tready low after the initialisation");
  }

  void tick() { tb.tick(); }
  void run(std::uint64_t n) { for (std::uint64_t i = 0; i < n; ++i) tick(); }

  // ---------------------------------------------------------------- registers
  void write(std::uint32_t addr, std::uint32_t v) {
    const auto r = axil.write32(addr, v, [this] { tick(); });
    check(r == bfm::AxilResp::kOkay, fmt::format("write 0x{:04x} answered {}", addr, bfm::to_string(r)));
  }
  std::uint32_t read(std::uint32_t addr) {
    const auto r = axil.read32(addr, [this] { tick(); });
    check(r.resp == bfm::AxilResp::kOkay, fmt::format("read 0x{:04x} answered {}", addr, bfm::to_string(r.resp)));
    return r.data;
  }
  std::uint64_t read64(std::uint32_t addr) {
    const std::uint64_t lo = read(addr);
    const std::uint64_t hi = read(addr + 4);
    return lo | (hi << 32);
  }
  void commit() { write(rm::COMMIT::kOffset, 1); }
  void snapshot() { write(rm::SNAPSHOT::kOffset, 1); }

  /// Classifier: entry e matches VLAN ID e + 1 exactly and gives flows[e].
  void set_flows(const std::vector<Flow>& f) {
    check(f.size() <= kEntries, "more flows than classifier entries");
    flows = f;
    for (unsigned e = 0; e < f.size(); ++e) {
      write(rm::CLS_VLAN::offset(e), rm::CLS_VLAN::MASK.set(rm::CLS_VLAN::VALUE.set(0, e + 1), 0xFFF));
      write(rm::CLS_DSCP_PROTO::offset(e), 0);
      write(rm::CLS_PORT::offset(e), 0);
      std::uint32_t a = rm::CLS_ACTION::VALID.set(0, 1);
      a = rm::CLS_ACTION::TENANT.set(a, f[e].tenant);
      a = rm::CLS_ACTION::CLASS.set(a, f[e].cls);
      a = rm::CLS_ACTION::CRYPTO_OP.set(a, f[e].crypto ? 1 : 0);
      write(rm::CLS_ACTION::offset(e), a);
    }
  }
  /// Every (tenant, class) a flow; tenants in `crypto_tenants` are encrypted/decrypted.
  std::vector<Flow> all_flows(const std::vector<unsigned>& crypto_tenants = {}) const {
    std::vector<Flow> f;
    for (unsigned t = 0; t < kTenants && f.size() + 2 <= kEntries; ++t) {
      bool c = false;
      for (unsigned x : crypto_tenants) c = c || x == t;
      f.push_back({t, 0, c});
      f.push_back({t, 1, c});
    }
    return f;
  }
  void set_tenant(unsigned t, unsigned prio, unsigned quantum, unsigned quota = 4, bool rate_en = false,
                  bool enable = true) {
    std::uint32_t c = rm::T_CTRL::ENABLE.set(0, enable ? 1 : 0);
    c = rm::T_CTRL::PRIORITY.set(c, prio);
    c = rm::T_CTRL::CRYPTO_QUOTA.set(c, quota);
    c = rm::T_CTRL::RATE_EN.set(c, rate_en ? 1 : 0);
    write(rm::T_CTRL::offset(t), c);
    write(rm::T_WEIGHT::offset(t), quantum);
  }
  void set_limits(unsigned t, unsigned ctrl_bytes, unsigned bulk_bytes) {
    write(rm::T_QLIMIT_CTRL::offset(t), ctrl_bytes);
    write(rm::T_QLIMIT_BULK::offset(t), bulk_bytes);
  }
  void set_mode(rm::ArbMode m, bool enable = true) {
    write(rm::CTRL::kOffset, rm::CTRL::ARB_MODE.set(rm::CTRL::ENABLE.set(0, enable ? 1 : 0), m));
  }
  void set_engine(unsigned bytes_per_cycle, unsigned latency) {
    write(rm::CRYPTO_ENGINE::kOffset,
          rm::CRYPTO_ENGINE::LATENCY.set(rm::CRYPTO_ENGINE::BYTES_PER_CYCLE.set(0, bytes_per_cycle), latency));
  }

  // ---------------------------------------------------------------- traffic
  /// A valid IPv4/UDP frame of `len` bytes (>= 64) on VLAN flow_index + 1, payload tagged with id.
  static std::vector<std::uint8_t> make_frame(std::uint64_t id, unsigned flow_index, unsigned len) {
    sim::PacketSpec s;
    s.vlan_id = static_cast<std::uint16_t>(flow_index + 1);
    const unsigned headers = 14 + 4 + 20 + 8;
    s.payload_bytes = len > headers ? len - headers : 0;
    auto b = sim::build_packet(s);
    const auto tag = frame_bytes(id, static_cast<unsigned>(s.payload_bytes));
    for (std::size_t i = 0; i < tag.size() && headers + i < b.size(); ++i) b[headers + i] = tag[i];
    return b;
  }

  SentPacket send(bool rx, std::uint64_t id, unsigned flow_index, unsigned len) {
    SentPacket p{id, flows.at(flow_index), make_frame(id, flow_index, len), tb.cycle()};
    (rx ? rx_src : tx_src).push_bytes(p.bytes);
    return p;
  }

  // ---------------------------------------------------------------- checks
  /// tuser must be constant within a frame (checked at every handshake).
  void check_tuser(std::uint64_t c) {
    check_one(c, tb->m_axis_tx_tvalid, tb->m_axis_tx_tready, tb->m_axis_tx_tlast, tb->m_axis_tx_tuser, tx_user_);
    check_one(c, tb->m_axis_rx_tvalid, tb->m_axis_rx_tready, tb->m_axis_rx_tlast, tb->m_axis_rx_tuser, rx_user_);
  }

 private:
  template <class U>
  static void check_one(std::uint64_t c, CData valid, CData ready, CData last, U user, std::optional<std::uint64_t>& held) {
    if (!(valid && ready)) return;
    const auto u = static_cast<std::uint64_t>(user);
    if (held) check(*held == u, fmt::format("cycle {}: tuser changed inside a frame", c));
    if (last) {
      held.reset();
    } else {
      held = u;
    }
  }
  std::optional<std::uint64_t> tx_user_, rx_user_;
};

/// Matches frames out of one direction against what went in: each frame leaves once,
/// intact, with the right tuser, in FIFO order within its (tenant, class) queue.
class DeliveryChecker {
 public:
  DeliveryChecker(std::string dir, unsigned crypto_op) : dir_(std::move(dir)), op_(crypto_op) {}

  void sent(const SentPacket& p) { expected_[p.flow.tenant * 2 + p.flow.cls].push_back(p); }

  template <class Frames>
  void collect(Frames& frames) {
    for (auto& f : frames) {
      const auto u = EgressUser::decode(f.meta);
      const unsigned q = u.tenant * 2 + u.cls;
      auto bytes = bfm::kept_bytes(f.beats);
      auto& exp = expected_[q];
      // frames may be dropped (counted by telemetry): skip to the one that arrived
      bool found = false;
      while (!exp.empty()) {
        SentPacket p = exp.front();
        exp.pop_front();
        if (p.bytes == bytes) {
          check(u.op == (p.flow.crypto ? op_ : 0U),
                fmt::format("{}: frame {} has crypto op {} on tuser", dir_, p.id, u.op));
          ++delivered_[q];
          delivered_bytes_[q] += bytes.size();
          latency_sum_ += f.first_cycle - p.cycle;
          found = true;
          break;
        }
        ++missing_[q];
      }
      check(found, fmt::format("{}: a frame of {} bytes on queue {} (tenant {}) matches no frame sent to it, in order",
                               dir_, bytes.size(), q, u.tenant));
    }
    frames.clear();
  }
  /// Frames never seen, per queue (the rest of the expected lists count as missing).
  std::map<unsigned, std::uint64_t> missing_total() const {
    auto m = missing_;
    for (const auto& [q, e] : expected_) m[q] += e.size();
    return m;
  }
  std::map<unsigned, std::uint64_t> delivered_, delivered_bytes_, missing_;
  std::uint64_t latency_sum_ = 0;

 private:
  std::string dir_;
  unsigned op_;
  std::map<unsigned, std::deque<SentPacket>> expected_;
};

}  // namespace nicsched::coretest
