// rtl.desc_fifo.*: nicsched_desc_fifo against a C++ queue every clock: head and count, push
// and pop in one clock (also full), one clock from a push into an empty FIFO to its head;
// depth 1, 3 (the path's) and 4, under every mix of push and pop rates.
#include <catch2/catch.hpp>

#include <cstdint>
#include <deque>
#include <random>
#include <string>

#include "Vdesc_fifo_d1_w8.h"
#include "Vdesc_fifo_d3_w64.h"
#include "Vdesc_fifo_d4_w40.h"
#include "core_tb.hpp"
#include "run_case.hpp"

namespace {

using namespace nicsched::coretest;

template <class Model>
struct FifoBench {
  Testbench<Model> tb;
  unsigned depth;
  unsigned width;
  std::deque<std::uint64_t> model;
  std::mt19937_64 rng;

  FifoBench(const std::string& trace, unsigned depth_, unsigned width_, std::uint64_t seed)
      : tb(trace), depth(depth_), width(width_), rng(seed) {
    tb->push_i = 0;
    tb->pop_i = 0;
    tb.reset();
  }
  [[nodiscard]] std::uint64_t mask() const { return width >= 64 ? ~0ULL : (1ULL << width) - 1; }

  /// Checks head and count against the queue, then drives one clock.
  void step(bool want_push, bool want_pop) {
    tb->eval();
    const auto count = get_bits(tb->count_o, 0, 32);
    check(count == model.size(),
          fmt::format("cycle {}: count_o {} but {} entries held", tb.cycle(), count, model.size()));
    if (!model.empty()) {
      const auto head = get_bits(tb->head_o, 0, width);
      check(head == model.front(),
            fmt::format("cycle {}: head_o {:#x} but the oldest entry is {:#x}", tb.cycle(), head, model.front()));
    }
    // the caller's rules: pop only a held entry, push only into room (a pop in the same
    // clock makes room)
    const bool pop = want_pop && !model.empty();
    const bool push = want_push && model.size() - (pop ? 1 : 0) < depth;
    const std::uint64_t data = rng() & mask();
    tb->pop_i = pop ? 1 : 0;
    tb->push_i = push ? 1 : 0;
    put(tb->data_i, data);
    tb->eval();
    const auto next = get_bits(tb->count_next_o, 0, 32);
    const auto want = model.size() - (pop ? 1 : 0) + (push ? 1 : 0);
    check(next == want, fmt::format("cycle {}: count_next_o {} but {} entries after this clock's pop {} and push {}",
                                    tb.cycle(), next, want, pop, push));
    tb.tick();
    if (pop) model.pop_front();
    if (push) model.push_back(data);
  }

  /// Push and pop with the given probabilities for `cycles` clocks.
  void random(double p_push, double p_pop, unsigned cycles) {
    std::bernoulli_distribution push_d(p_push), pop_d(p_pop);
    for (unsigned i = 0; i < cycles; ++i) step(push_d(rng), pop_d(rng));
  }
};

template <class Model>
void random_mix(const std::string& name, unsigned depth, unsigned width, std::uint64_t seed) {
  run_case(name, [&](const std::string& trace) {
    FifoBench<Model> b(trace, depth, width, seed);
    for (const double p_push : {0.1, 0.5, 0.9, 1.0}) {
      for (const double p_pop : {0.1, 0.5, 0.9, 1.0}) b.random(p_push, p_pop, 2000);
    }
    b.random(0.0, 1.0, 2 * depth);  // drained
    b.step(false, false);
  });
}

template <class Model>
void full_and_latency(const std::string& name, unsigned depth, unsigned width) {
  run_case(name, [&](const std::string& trace) {
    FifoBench<Model> b(trace, depth, width, 7);
    // a push into an empty FIFO is its head one clock later
    b.step(true, false);
    b.tb->eval();
    check(get_bits(b.tb->count_o, 0, 32) == 1, "a push into an empty FIFO: count_o not 1 the next clock");
    // fill it, then push and pop together for a while: it stays full, in order
    for (unsigned i = 1; i < depth; ++i) b.step(true, false);
    check(b.model.size() == depth, "the bench did not fill the FIFO");
    for (unsigned i = 0; i < 4 * depth; ++i) {
      b.step(true, true);
      check(b.model.size() == depth, "push and pop on a full FIFO changed its count");
    }
    for (unsigned i = 0; i < depth; ++i) b.step(false, true);
    b.step(false, false);
  });
}

}  // namespace

TEST_CASE("head and count follow a queue under every mix of push and pop rates") {
  random_mix<Vdesc_fifo_d1_w8>("desc_fifo_d1_random", 1, 8, 11);
  random_mix<Vdesc_fifo_d3_w64>("desc_fifo_d3_random", 3, 64, 12);
  random_mix<Vdesc_fifo_d4_w40>("desc_fifo_d4_random", 4, 40, 13);
}

TEST_CASE("a push into an empty FIFO is the head the next clock, and a full FIFO takes a push with a pop") {
  full_and_latency<Vdesc_fifo_d1_w8>("desc_fifo_d1_full", 1, 8);
  full_and_latency<Vdesc_fifo_d3_w64>("desc_fifo_d3_full", 3, 64);
  full_and_latency<Vdesc_fifo_d4_w40>("desc_fifo_d4_full", 4, 40);
}
