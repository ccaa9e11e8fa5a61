// rtl.queues.*: nicsched_queues (shared cell buffer, per-queue FIFOs, byte limits, tail
// drop) against a reference model of the queue rules, under the idle x backpressure
// matrix, at 4/8/16 tenants and 512/64-bit data. The bench plays the egress side: it
// dequeues heads, reads their cells through the read port and gives the cells back.
#include <catch2/catch.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "Vqueues_t16_w64.h"
#include "Vqueues_t4_w512.h"
#include "Vqueues_t8_w512.h"
#include "core_tb.hpp"
#include "nicsched/sim/bfm/axis.hpp"
#include "run_case.hpp"

namespace {

using namespace nicsched::coretest;
namespace bfm = nicsched::sim::bfm;

struct Meta {
  unsigned tenant = 0;
  unsigned cls = 0;
  unsigned op = 0;
  unsigned drop = 0;
  [[nodiscard]] std::uint64_t pack() const {
    // ingress_meta_t: {drop[2:0], crypto_op[1:0], cls, tenant[5:0]}
    return (std::uint64_t{drop} << 9) | (std::uint64_t{op} << 7) | (std::uint64_t{cls} << 6) | tenant;
  }
};

struct SentFrame {
  std::uint64_t id;
  Meta meta;
  std::vector<std::uint8_t> bytes;
};

enum class Outcome { accept, drop_parse, drop_limit, drop_buf };

/// The queue rules from the spec: one FIFO per (tenant, class), a frame is tail-dropped
/// when the bytes already queued plus its own would pass the queue's limit, frames with
/// a parser drop reason never enter, and a frame that finds no free cell in the shared
/// buffer (capacity cells of beat_bytes; a cell is held from enqueue until the frame has
/// been read out) is dropped whole.
struct QueueModel {
  QueueModel(unsigned queues, unsigned capacity_cells, unsigned beat_bytes)
      : fifo(queues), bytes(queues, 0), limit(queues, 0), capacity(capacity_cells), beat(beat_bytes) {}
  std::vector<std::deque<SentFrame>> fifo;
  std::vector<std::uint64_t> bytes;
  std::vector<std::uint64_t> limit;
  std::uint64_t capacity;
  unsigned beat;
  std::uint64_t cells_used = 0;

  [[nodiscard]] std::uint64_t cells(const SentFrame& f) const { return (f.bytes.size() + beat - 1) / beat; }

  Outcome offer(const SentFrame& f, unsigned num_tenants) {
    if (f.meta.drop != 0) return Outcome::drop_parse;
    if (cells_used + cells(f) > capacity) return Outcome::drop_buf;
    if (f.meta.tenant >= num_tenants) return Outcome::drop_limit;
    const unsigned q = f.meta.tenant * 2 + f.meta.cls;
    if (bytes[q] + f.bytes.size() > limit[q]) return Outcome::drop_limit;
    bytes[q] += f.bytes.size();
    cells_used += cells(f);
    fifo[q].push_back(f);
    return Outcome::accept;
  }
  SentFrame take(unsigned q) {
    SentFrame f = fifo[q].front();
    fifo[q].pop_front();
    bytes[q] -= f.bytes.size();
    return f;
  }
  void release(const SentFrame& f) { cells_used -= cells(f); }
};

template <class Model, unsigned kTenants, unsigned kDataBits, unsigned kBufferBytes>
struct QueuesBench {
  static constexpr unsigned kQueues = kTenants * 2;
  static constexpr unsigned kBeatBytes = kDataBits / 8;
  static constexpr unsigned kCells = kBufferBytes / kBeatBytes;
  static constexpr unsigned kCellW = [] { unsigned w = 0; while ((1U << w) < kCells) ++w; return w; }();
  static constexpr unsigned kLenW = 16;
  static constexpr unsigned kTsW = 32;

  Testbench<Model> tb;
  bfm::AxisSource<std::remove_reference_t<decltype(std::declval<Model>().s_axis_tdata)>,
                  std::remove_reference_t<decltype(std::declval<Model>().s_axis_tkeep)>> src;
  QueueModel model{kQueues, kCells - 1, kBeatBytes};
  std::deque<SentFrame> in_flight;  // pushed into the source, tlast not yet seen
  std::mt19937_64 rng;
  bfm::StallGenerator reader_stall;
  bool reader_enabled = true;

  // egress emulation
  bool reading = false;
  SentFrame cur;
  unsigned cur_head = 0, cur_beats = 0, cur_issued = 0, cur_len = 0;
  unsigned last_next = 0;
  bool read_pending = false;
  std::vector<std::uint8_t> got;
  bool deq_now = false;
  unsigned deq_q = 0;

  std::uint64_t accepted = 0, dropped_limit = 0, dropped_buf = 0, dropped_parse = 0, delivered = 0;
  std::map<Outcome, std::uint64_t> outcomes;

  QueuesBench(const std::string& trace, bfm::StallPattern idle, bfm::StallPattern stall, std::uint64_t seed)
      : tb(trace),
        src(tb->s_axis_tdata, tb->s_axis_tkeep, tb->s_axis_tvalid, tb->s_axis_tready, tb->s_axis_tlast, idle, seed),
        rng(seed), reader_stall(stall, seed + 7) {
    src.on_beat([this](const bfm::AxisBeat& b) {
      set_bits(tb->s_axis_tuser, 0, 12, b.user);
      // the beat's byte count beside its tkeep, as the ingress hands it over (contiguous
      // lanes: the count is the number of kept lanes; the model's CountIsKeep_A checks it)
      tb->s_axis_tcount = static_cast<std::remove_reference_t<decltype(tb->s_axis_tcount)>>(std::popcount(b.keep));
    });
    tb.on_sample([this](std::uint64_t c) { sample(c); });
    tb.on_drive([this] { drive(); });
    tb.reset();
    // the free list is built in kCells clocks after reset
    for (unsigned i = 0; i < kCells + 2; ++i) tb.tick();
    check(tb->s_axis_tready == 1, "s_axis_tready stays low after the initialisation");
  }

  void set_limit(unsigned q, std::uint64_t bytes) {
    model.limit[q] = bytes;
    write_rtl_limit(q, bytes);
  }

  // the RTL's limit alone (the model's stays as it is)
  void write_rtl_limit(unsigned q, std::uint64_t bytes) { set_bits(tb->qlimit_i, q * 24, 24, bytes); }

  void push(std::uint64_t id, Meta m, unsigned len) {
    SentFrame f{id, m, frame_bytes(id, len)};
    auto beats = bfm::beats_from_bytes(f.bytes, kBeatBytes);
    for (auto& b : beats) b.user = b.last ? m.pack() : 0;
    src.push(std::move(beats));
    in_flight.push_back(std::move(f));
  }

  void sample(std::uint64_t cyc) {
    src.sample();
    // registered occupancy equals the model before this clock's events, and every queue
    // the model holds frames in shows a valid head (also in the clock after a dequeue)
    for (unsigned q = 0; q < kQueues; ++q) {
      check(get_bits(tb->head_valid_o, q, 1) == (model.fifo[q].empty() ? 0U : 1U),
            fmt::format("cycle {}: queue {} head valid {} but the model holds {} frames", cyc, q,
                        get_bits(tb->head_valid_o, q, 1), model.fifo[q].size()));
      check(get_bits(tb->head_second_o, q, 1) == (model.fifo[q].size() >= 2 ? 1U : 0U),
            fmt::format("cycle {}: queue {} 'two or more frames' {} but the model holds {} frames", cyc, q,
                        get_bits(tb->head_second_o, q, 1), model.fifo[q].size()));
      const auto b = get_bits(tb->q_bytes_o, q * 32, 32);
      const auto p = get_bits(tb->q_pkts_o, q * 32, 32);
      check(b == model.bytes[q], fmt::format("cycle {}: queue {} holds {} bytes, model {}", cyc, q, b, model.bytes[q]));
      check(p == model.fifo[q].size(), fmt::format("cycle {}: queue {} holds {} frames, model {}", cyc, q, p, model.fifo[q].size()));
    }
    if (tb->ev_valid_o) {
      check(!in_flight.empty(), fmt::format("cycle {}: a frame ended that was never sent", cyc));
      SentFrame f = in_flight.front();
      in_flight.pop_front();
      check(get_bits(tb->ev_len_o, 0, 16) == f.bytes.size(),
            fmt::format("cycle {}: frame {} length {} reported as {}", cyc, f.id, f.bytes.size(), get_bits(tb->ev_len_o, 0, 16)));
      Outcome want = model.offer(f, kTenants);
      Outcome got_o = tb->ev_accept_o ? Outcome::accept
                      : tb->ev_drop_limit_o ? Outcome::drop_limit
                      : tb->ev_drop_buf_o ? Outcome::drop_buf : Outcome::drop_parse;
      check(int(tb->ev_accept_o) + int(tb->ev_drop_limit_o) + int(tb->ev_drop_buf_o) <= 1,
            fmt::format("cycle {}: more than one outcome for frame {}", cyc, f.id));
      check(want == got_o, fmt::format("cycle {}: frame {} (tenant {} class {} drop {} len {}) outcome {} but model says {}",
                                       cyc, f.id, f.meta.tenant, f.meta.cls, f.meta.drop, f.bytes.size(),
                                       int(got_o), int(want)));
      ++outcomes[got_o];
    }
    if (deq_now) {
      check(get_bits(tb->head_valid_o, deq_q, 1) == 1, fmt::format("cycle {}: dequeue of an empty head", cyc));
      check(!model.fifo[deq_q].empty(), fmt::format("cycle {}: head valid on queue {} the model has empty", cyc, deq_q));
      cur = model.take(deq_q);
      cur_head = static_cast<unsigned>(get_bits(tb->head_cell_o, deq_q * kCellW, kCellW));
      cur_len = static_cast<unsigned>(get_bits(tb->head_len_o, deq_q * kLenW, kLenW));
      check(cur_len == cur.bytes.size(), fmt::format("cycle {}: head of queue {} says {} bytes, frame {} has {}",
                                                     cyc, deq_q, cur_len, cur.id, cur.bytes.size()));
      check(get_bits(tb->head_op_o, deq_q * 2, 2) == cur.meta.op, fmt::format("cycle {}: crypto op lost", cyc));
    }
  }

  void finish_frame() {
    got.resize(cur_len);
    check(got == cur.bytes, fmt::format("frame {} (queue {}) read back corrupted", cur.id, cur.meta.tenant * 2 + cur.meta.cls));
    ++delivered;
    reading = false;
  }

  // Back-to-back reader for one-beat frames: dequeues a head in every clock one is valid
  // (queue `prefer_q` first, else the lowest), reads its cell and frees it in the same
  // clock, and checks the data the clock after.
  bool fast_reader = false;
  int prefer_q = -1;
  std::vector<std::uint64_t> deq_cycles;  // clock of every dequeue
  std::vector<unsigned> deq_queues;

  void drive_fast() {
    if (deq_now) {  // dequeued in the clock that just ended: its cell's data is out now
      deq_now = false;
      check(cur_len <= kBeatBytes, "the back-to-back reader takes one-beat frames only");
      got.clear();
      for (unsigned l = 0; l < cur_len; ++l) got.push_back(static_cast<std::uint8_t>(get_bits(tb->rd_data_o, l * 8, 8)));
      check(got == cur.bytes, fmt::format("frame {} read back corrupted", cur.id));
      model.release(cur);
      ++delivered;
    }
    tb->rd_en_i = 0;
    tb->free_valid_i = 0;
    tb->deq_oh_i = 0;
    if (!reader_enabled) return;
    int q = -1;
    if (prefer_q >= 0 && get_bits(tb->head_valid_o, static_cast<unsigned>(prefer_q), 1)) q = prefer_q;
    for (unsigned i = 0; i < kQueues && q < 0; ++i) {
      if (get_bits(tb->head_valid_o, i, 1)) q = static_cast<int>(i);
    }
    if (q < 0) return;
    deq_q = static_cast<unsigned>(q);
    deq_now = true;
    deq_cycles.push_back(tb.cycle() + 1);
    deq_queues.push_back(deq_q);
    const auto cell = static_cast<unsigned>(get_bits(tb->head_cell_o, deq_q * kCellW, kCellW));
    put(tb->deq_oh_i, 1U << deq_q);
    tb->rd_en_i = 1;
    put(tb->rd_cell_i, cell);
    tb->free_valid_i = 1;
    put(tb->free_head_i, cell);
    put(tb->free_tail_i, cell);
  }

  void drive() {
    src.drive();
    if (fast_reader) {
      drive_fast();
      return;
    }
    // result of last clock's read
    if (read_pending) {
      for (unsigned l = 0; l < kBeatBytes; ++l) got.push_back(static_cast<std::uint8_t>(get_bits(tb->rd_data_o, l * 8, 8)));
      last_next = static_cast<unsigned>(get_bits(tb->rd_next_o, 0, kCellW));
      read_pending = false;
      if (cur_issued == cur_beats) finish_frame();
    }
    tb->rd_en_i = 0;
    tb->free_valid_i = 0;
    tb->deq_oh_i = 0;
    if (deq_now) {
      deq_now = false;
      reading = true;
      got.clear();
      cur_beats = (cur_len + kBeatBytes - 1) / kBeatBytes;
      cur_issued = 0;
    }
    const bool stalled = reader_stall.next();
    if (reading && cur_issued < cur_beats && !stalled) {
      const unsigned cell = cur_issued == 0 ? cur_head : last_next;
      tb->rd_en_i = 1;
      put(tb->rd_cell_i, cell);
      ++cur_issued;
      read_pending = true;
      if (cur_issued == cur_beats) {
        model.release(cur);
        tb->free_valid_i = 1;
        put(tb->free_head_i, cur_head);
        put(tb->free_tail_i, cell);
      }
    }
    if (!reading && !read_pending && reader_enabled && !stalled) {
      std::vector<unsigned> ready;
      for (unsigned q = 0; q < kQueues; ++q) {
        if (get_bits(tb->head_valid_o, q, 1)) ready.push_back(q);
      }
      if (!ready.empty()) {
        deq_q = ready[std::uniform_int_distribution<std::size_t>(0, ready.size() - 1)(rng)];
        deq_now = true;
        put(tb->deq_oh_i, 1U << deq_q);
      }
    }
  }

  void run_until_drained(std::uint64_t limit_cycles) {
    std::uint64_t n = 0;
    while (!(src.idle() && in_flight.empty() && !reading && !deq_now && all_empty())) {
      tb.tick();
      check(++n < limit_cycles, fmt::format("not drained after {} clocks", limit_cycles));
    }
  }
  void tick() { tb.tick(); }
  bool all_empty() const {
    for (const auto& f : model.fifo) {
      if (!f.empty()) return false;
    }
    return true;
  }
};

template <class Bench>
void random_traffic(Bench& b, std::uint64_t frames, double parse_drop_p, std::mt19937_64& rng) {
  // limits small enough that the buffer never fills: every drop is a tail drop
  const unsigned per_queue_cells = (Bench::kCells - 1 - 2 * (1600 / Bench::kBeatBytes + 1)) / Bench::kQueues;
  const unsigned limit = std::max(128U, static_cast<unsigned>(per_queue_cells / (1.0 / Bench::kBeatBytes + 1.0 / 60.0)) - 64);
  for (unsigned q = 0; q < Bench::kQueues; ++q) {
    b.set_limit(q, std::uniform_int_distribution<unsigned>(limit / 4, limit)(rng));
  }
  // a few hot queues get most of the traffic, so limits are reached
  std::uniform_int_distribution<unsigned> len_d(60, 600);
  for (std::uint64_t i = 0; i < frames; ++i) {
    Meta m;
    const bool hot = std::uniform_real_distribution<>(0, 1)(rng) < 0.6;
    m.tenant = hot ? 0 : std::uniform_int_distribution<unsigned>(0, Bench::kQueues / 2 - 1)(rng);
    m.cls = std::uniform_int_distribution<unsigned>(0, 1)(rng);
    m.op = std::uniform_int_distribution<unsigned>(0, 2)(rng);
    m.drop = std::uniform_real_distribution<>(0, 1)(rng) < parse_drop_p ? std::uniform_int_distribution<unsigned>(1, 4)(rng) : 0;
    b.push(i, m, len_d(rng));
  }
  b.run_until_drained(frames * 200 + 10000);
}

template <class Model, unsigned kTenants, unsigned kDataBits, unsigned kBufferBytes>
void matrix_test(const std::string& name) {
  using B = QueuesBench<Model, kTenants, kDataBits, kBufferBytes>;
  const std::array<bfm::StallPattern, 3> idles{bfm::StallPattern::none(), bfm::StallPattern::random(0.3),
                                               bfm::StallPattern::bursty(0.1, 20)};
  const std::array<bfm::StallPattern, 3> stalls{bfm::StallPattern::none(), bfm::StallPattern::random(0.5),
                                                bfm::StallPattern::bursty(0.05, 60)};
  std::uint64_t seed = 11;
  for (const auto& idle : idles) {
    for (const auto& stall : stalls) {
      ++seed;
      const std::string run = fmt::format("{}_idle-{}_stall-{}", name, idle.name(), stall.name());
      std::uint64_t accepted = 0, limit_drops = 0;
      run_case(run, [&](const std::string& trace) {
        B b(trace, idle, stall, seed);
        std::mt19937_64 rng(seed);
        random_traffic(b, 1500, 0.08, rng);
        check(b.delivered == b.outcomes[Outcome::accept], "accepted frames not all delivered");
        check(b.outcomes[Outcome::drop_buf] == 0, "buffer-full drop in a run sized never to fill");
        accepted = b.outcomes[Outcome::accept];
        limit_drops = b.outcomes[Outcome::drop_limit];
      });
      INFO(run);
      CHECK(accepted > 500);  // the run exercised both outcomes
      if (stall.mode != bfm::StallPattern::Mode::none) CHECK(limit_drops > 0);
    }
  }
}

}  // namespace

TEST_CASE("frames leave intact in per-queue order, tail drop as the model says (8 tenants, 512 bit)") {
  matrix_test<Vqueues_t8_w512, 8, 512, 65536>("queues_t8_w512");
}

TEST_CASE("frames leave intact in per-queue order, tail drop as the model says (4 tenants, 512 bit)") {
  matrix_test<Vqueues_t4_w512, 4, 512, 65536>("queues_t4_w512");
}

TEST_CASE("frames leave intact in per-queue order, tail drop as the model says (16 tenants, 64 bit)") {
  matrix_test<Vqueues_t16_w64, 16, 64, 65536>("queues_t16_w64");
}

TEST_CASE("a queue takes frames exactly up to its byte limit") {
  run_case("queues_limit", [](const std::string& trace) {
    QueuesBench<Vqueues_t8_w512, 8, 512, 65536> b(trace, bfm::StallPattern::none(), bfm::StallPattern::none(), 3);
    b.reader_enabled = false;
    for (unsigned q = 0; q < 16; ++q) b.set_limit(q, 1000);
    for (unsigned i = 0; i < 20; ++i) b.push(i, Meta{2, 1, 0, 0}, 64);  // queue 5
    for (unsigned i = 0; i < 200; ++i) b.tick();
    // 15 * 64 = 960 fits, a 16th would make 1024 > 1000
    check(b.outcomes[Outcome::accept] == 15, fmt::format("accepted {}", b.outcomes[Outcome::accept]));
    check(b.outcomes[Outcome::drop_limit] == 5, fmt::format("dropped {}", b.outcomes[Outcome::drop_limit]));
    check(get_bits(b.tb->q_bytes_o, 5 * 32, 32) == 960, "queue 5 should hold 960 bytes");
    // a frame of exactly the remaining 40 bytes fits (limit inclusive)
    b.push(100, Meta{2, 1, 0, 0}, 40);
    for (unsigned i = 0; i < 20; ++i) b.tick();
    check(get_bits(b.tb->q_bytes_o, 5 * 32, 32) == 1000, "a frame that reaches the limit exactly is taken");
    b.reader_enabled = true;
    b.run_until_drained(10000);
    check(b.delivered == 16, "all taken frames leave");
  });
}

TEST_CASE("a flood on one queue never drops a frame of another queue within its limit") {
  run_case("queues_flood", [](const std::string& trace) {
    QueuesBench<Vqueues_t8_w512, 8, 512, 65536> b(trace, bfm::StallPattern::none(), bfm::StallPattern::random(0.7), 5);
    for (unsigned q = 0; q < 16; ++q) b.set_limit(q, 3000);
    b.set_limit(0, 40000);  // the flooding queue may take most of the buffer (not all)
    std::mt19937_64 rng(5);
    for (unsigned i = 0; i < 3000; ++i) {
      if (i % 10 == 0) {
        b.push(i, Meta{3, 0, 0, 0}, 64);  // queue 6: a trickle well within its limit
      } else {
        b.push(i, Meta{0, 0, 0, 0}, std::uniform_int_distribution<unsigned>(500, 1500)(rng));
      }
    }
    b.run_until_drained(3000 * 400);
    check(b.outcomes[Outcome::drop_limit] > 0, "the flood was never tail-dropped: the test did not flood");
    check(b.model.limit[6] == 3000, "limit");
    // every trickle frame was accepted (the model would have flagged any other outcome)
    check(b.delivered == b.outcomes[Outcome::accept], "accepted frames lost");
  });
}

TEST_CASE("frames with a parser drop reason never enter and their cells come back") {
  run_case("queues_parse_drop", [](const std::string& trace) {
    QueuesBench<Vqueues_t4_w512, 4, 512, 65536> b(trace, bfm::StallPattern::none(), bfm::StallPattern::none(), 9);
    b.reader_enabled = false;
    for (unsigned q = 0; q < 8; ++q) b.set_limit(q, 0xFFFFFF);
    // 5000 dropped frames of 8 cells: far more cells than the buffer has (1024)
    for (unsigned i = 0; i < 5000; ++i) b.push(i, Meta{1, 1, 0, 1 + i % 4}, 500);
    b.run_until_drained(5000 * 20);
    check(b.outcomes[Outcome::drop_parse] == 5000, "every frame with a reason is dropped");
    // the buffer still takes (1024 - 1) / 8 = 127 such frames
    for (unsigned i = 0; i < 130; ++i) b.push(10000 + i, Meta{1, 1, 0, 0}, 500);
    for (unsigned i = 0; i < 130 * 8 + 50; ++i) b.tick();
    check(b.outcomes[Outcome::accept] == 127, fmt::format("accepted {} of 130 after the drops", b.outcomes[Outcome::accept]));
    check(b.outcomes[Outcome::drop_buf] == 3, "the rest found no cell");
    b.reader_enabled = true;
    b.run_until_drained(100000);
    check(b.delivered == 127, "accepted frames leave intact");
  });
}

TEST_CASE("a full buffer drops whole frames and every cell is reusable afterwards") {
  run_case("queues_buffer_full", [](const std::string& trace) {
    QueuesBench<Vqueues_t16_w64, 16, 64, 65536> b(trace, bfm::StallPattern::none(), bfm::StallPattern::none(), 13);
    b.reader_enabled = false;
    for (unsigned q = 0; q < 32; ++q) b.set_limit(q, 0xFFFFFF);
    // 8192 cells of 8 bytes; frames of 100 bytes take 13 cells: (8192 - 1) / 13 = 630 fit
    for (int round = 0; round < 2; ++round) {
      const std::uint64_t before = b.outcomes[Outcome::accept];
      const std::uint64_t drops_before = b.outcomes[Outcome::drop_buf];
      for (unsigned i = 0; i < 700; ++i) b.push(static_cast<unsigned>(round) * 1000 + i, Meta{i % 16, i % 2, 0, 0}, 100);
      for (unsigned i = 0; i < 700 * 13 + 100; ++i) b.tick();
      check(b.outcomes[Outcome::accept] - before == 630, fmt::format("round {}: {} frames fit", round, b.outcomes[Outcome::accept] - before));
      check(b.outcomes[Outcome::drop_buf] - drops_before == 70, "the rest are dropped for want of a cell");
      b.reader_enabled = true;
      b.run_until_drained(200000);
      b.reader_enabled = false;
    }
    check(b.delivered == 1260, "both rounds delivered in full");
  });
}

TEST_CASE("a backlogged queue is dequeued on consecutive clocks, a preferred queue is never skipped") {
  // Two queues hold 200 one-beat frames each; the reader dequeues in every clock a head is
  // valid, queue 5 first. The model holds frames in queue 5 until its 200th dequeue, so
  // (checked every clock) its head is valid all along: 200 dequeues of queue 5 in 200
  // consecutive clocks, then queue 2's 200 in the next 200, no queue-2 frame in between
  // (what a strict-priority arbiter above the queues relies on).
  run_case("queues_back_to_back", [](const std::string& trace) {
    QueuesBench<Vqueues_t8_w512, 8, 512, 65536> b(trace, bfm::StallPattern::none(), bfm::StallPattern::none(), 17);
    b.reader_enabled = false;
    b.fast_reader = true;
    b.prefer_q = 5;
    for (unsigned q = 0; q < 16; ++q) b.set_limit(q, 0xFFFFFF);
    std::mt19937_64 rng(17);
    for (unsigned i = 0; i < 400; ++i) {
      const Meta m = i % 2 == 0 ? Meta{2, 1, 0, 0} : Meta{1, 0, 0, 0};  // queues 5 and 2
      b.push(i, m, std::uniform_int_distribution<unsigned>(60, 64)(rng));
    }
    for (unsigned i = 0; i < 500; ++i) b.tick();
    check(b.outcomes[Outcome::accept] == 400, "all 400 frames queued");
    b.reader_enabled = true;
    b.run_until_drained(2000);
    check(b.delivered == 400, fmt::format("{} of 400 frames read back", b.delivered));
    check(b.deq_cycles.size() == 400, fmt::format("{} dequeues", b.deq_cycles.size()));
    check(b.deq_cycles.back() - b.deq_cycles.front() == 399,
          fmt::format("400 dequeues took {} clocks", b.deq_cycles.back() - b.deq_cycles.front() + 1));
    for (std::size_t i = 0; i < b.deq_queues.size(); ++i) {
      check(b.deq_queues[i] == (i < 200 ? 5U : 2U), fmt::format("dequeue {} from queue {}", i, b.deq_queues[i]));
    }
  });
}

TEST_CASE("a frame's head is valid two clocks after its tlast into the queues") {
  // The queues' latency (docs/rtl.md, "Timing"): a frame whose tlast is accepted in clock c
  // is admitted in c + 1 (the input stage) and is a valid head from c + 2 on, whatever its
  // length and queue, into an idle queue. The reference model's ingress_latency where it
  // stands for the RTL is compared with this figure (docs/journal/2026-11-28-line-rate-3.md).
  run_case("queues_head_latency", [](const std::string& trace) {
    constexpr std::uint64_t kHeadLatency = 2;
    QueuesBench<Vqueues_t8_w512, 8, 512, 65536> b(trace, bfm::StallPattern::none(), bfm::StallPattern::none(), 23);
    b.reader_enabled = false;
    for (unsigned q = 0; q < 16; ++q) b.set_limit(q, 0xFFFFFF);
    std::uint64_t tlast_at = 0, head_at = 0;
    unsigned queue = 0;
    bool seen_tlast = false, seen_head = false;
    b.tb.on_sample([&](std::uint64_t c) {
      if (b.tb->s_axis_tvalid && b.tb->s_axis_tready && b.tb->s_axis_tlast) {
        tlast_at = c;
        seen_tlast = true;
      }
      if (seen_tlast && !seen_head && get_bits(b.tb->head_valid_o, queue, 1) == 1) {
        head_at = c;
        seen_head = true;
      }
    });
    const std::array<std::pair<Meta, unsigned>, 4> frames{{{Meta{0, 0, 0, 0}, 64},
                                                           {Meta{3, 1, 0, 0}, 60},
                                                           {Meta{5, 0, 1, 0}, 200},
                                                           {Meta{7, 1, 0, 0}, 1500}}};
    std::uint64_t id = 0;
    for (const auto& [meta, len] : frames) {
      queue = meta.tenant * 2 + meta.cls;
      seen_tlast = seen_head = false;
      b.push(id++, meta, len);
      for (unsigned i = 0; i < 64 && !seen_head; ++i) b.tick();
      check(seen_tlast && seen_head, fmt::format("frame {} ({} bytes, queue {}): no valid head", id, len, queue));
      check(head_at - tlast_at == kHeadLatency,
            fmt::format("frame {} ({} bytes, queue {}): tlast in clock {}, head valid from clock {}: {} clocks, not {}",
                        id, len, queue, tlast_at, head_at, head_at - tlast_at, kHeadLatency));
    }
  });
}

TEST_CASE("a frame is judged by the limit in force when its tlast entered the queues") {
  // The input stage takes the frame's length plus its queue's limit (docs/rtl.md, "Admission
  // from flops"), so a limit changed in the clock between a frame's tlast and its admission
  // applies from the next frame on. Raised there: the frame is dropped as the old limit says;
  // lowered there: it is taken as the old limit says. The bench's model keeps the old limit
  // until the frame's outcome, so its check of every outcome pins the rule.
  run_case("queues_limit_at_tlast", [](const std::string& trace) {
    QueuesBench<Vqueues_t8_w512, 8, 512, 65536> b(trace, bfm::StallPattern::none(), bfm::StallPattern::none(), 29);
    b.reader_enabled = false;
    for (unsigned q = 0; q < 16; ++q) b.set_limit(q, 1000);
    const Meta q5{2, 1, 0, 0};  // queue 5
    std::uint64_t id = 0;
    for (; id < 15; ++id) b.push(id, q5, 64);
    for (unsigned i = 0; i < 200; ++i) b.tick();
    check(get_bits(b.tb->q_bytes_o, 5 * 32, 32) == 960, "queue 5 should hold 960 bytes");
    // next_limit is written to qlimit_i right after the edge that takes the next tlast, so
    // it is the limit of the whole clock that admits that frame
    std::uint64_t next_limit = 0;
    bool armed = false, at_edge = false, written = false;
    // (after the bench's own sample and drive, which check every outcome against the
    // model's limit: the old one until the outcome of the frame in question)
    b.tb.on_sample([&](std::uint64_t) {
      const bool tlast = b.tb->s_axis_tvalid && b.tb->s_axis_tready && b.tb->s_axis_tlast;
      const bool outcome = b.tb->ev_valid_o != 0;
      if (outcome && written) {
        b.model.limit[5] = next_limit;  // from the next frame on
        written = false;
      }
      if (tlast && armed) {
        armed = false;
        at_edge = true;
      }
    });
    b.tb.on_drive([&] {
      if (at_edge) {
        b.write_rtl_limit(5, next_limit);
        at_edge = false;
        written = true;
      }
    });
    auto frame_with_limit_change = [&](std::uint64_t limit, std::uint64_t want_bytes, const char* what) {
      next_limit = limit;
      armed = true;
      b.push(id++, q5, 64);
      for (unsigned i = 0; i < 40; ++i) b.tick();
      check(!armed && !at_edge && !written, fmt::format("{}: the limit was never changed", what));
      check(get_bits(b.tb->q_bytes_o, 5 * 32, 32) == want_bytes,
            fmt::format("{}: queue 5 holds {} bytes, not {}", what, get_bits(b.tb->q_bytes_o, 5 * 32, 32), want_bytes));
    };
    frame_with_limit_change(2000, 960, "limit raised to 2000 after the tlast of a frame past 1000");
    check(b.outcomes[Outcome::drop_limit] == 1, "the frame past the old limit is dropped");
    b.push(id++, q5, 64);  // the raised limit holds for the next frame: 1024 <= 2000
    for (unsigned i = 0; i < 40; ++i) b.tick();
    check(get_bits(b.tb->q_bytes_o, 5 * 32, 32) == 1024, "the next frame is taken under the raised limit");
    frame_with_limit_change(1000, 1088, "limit lowered to 1000 after the tlast of a frame within 2000");
    b.reader_enabled = true;
    b.run_until_drained(10000);
    check(b.delivered == 17, fmt::format("{} frames left, 17 were taken", b.delivered));
  });
}
