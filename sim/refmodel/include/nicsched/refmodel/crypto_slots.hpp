// CryptoSlots: the reference model of the crypto slot pool (nicsched_crypto_slots), clock by
// clock, used by RefModel and by the rtl.crypto bench. Written from docs/rtl.md ("Crypto
// slots") and the module header, not from the RTL:
// - `slots` slots shared by TX and RX. can_claim() in clock c allows a claim in clock c+1
//   (the paths' registered grant, issue 16): by tenant t in direction d when d has the
//   turn, a slot is free and t holds fewer than its quota (TX and RX together); the
//   other direction needs two free slots and t two below its quota. It is false in a
//   clock with a claim of either direction (claim() called before it in that clock), so
//   between the permission and its claim slots are only released: both directions'
//   claims fit, even if the turn passed at the edge between.
// - The turn (TX after reset) passes to the other direction at the edge of a clock in
//   which that direction wanted a slot for a tenant (want()) that a free slot and the
//   quota would allow, but the turn alone kept it from (can_claim() false without the
//   rule for a clock with a claim); never at the edge of a clock with a claim (the free
//   slots it saw do not count the claim landing at that edge).
// - A claim at the edge of clock c holds its slot in clocks c+1 .. c+H (H = the hold
//   cycles, crypto_hold_cycles()); from c+H+1 the frame is done and waits in its slot
//   until it is taken; the slot is free from the clock after the take.
// - A done frame may leave once no older frame (claimed before it) of its direction and
//   key (the queue) still holds a slot. offered() gives, per direction, the one that
//   leaves first: of those that may leave, the first whose hold ended (the RTL's choice
//   among them is its own; the bench accepts any that may_leave()).
//
// Use, per clock: claim() what the permissions of the clock before allowed, read the
// outputs (can_claim, offered, held, busy), call want() for every tenant with an
// otherwise eligible crypto head, take() what this clock does, then clock().
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "nicsched/refmodel/types.hpp"

namespace nicsched::refmodel {

class CryptoSlots {
 public:
  CryptoSlots(int slots, int tenants);

  // ---- this clock, from the state before the edge
  [[nodiscard]] int slots() const { return static_cast<int>(slots_.size()); }
  [[nodiscard]] int held_total() const { return held_total_; }  // slots not free
  [[nodiscard]] int free_slots() const { return slots() - held_total(); }
  [[nodiscard]] std::uint32_t held(std::uint32_t tenant) const { return held_.at(tenant); }  // hold or done
  [[nodiscard]] std::uint32_t busy(Direction d, std::uint32_t tenant) const {  // in hold
    return busy_[static_cast<std::size_t>(d)].at(tenant);
  }
  [[nodiscard]] Direction turn() const { return turn_; }
  [[nodiscard]] bool can_claim(Direction d, std::uint32_t tenant, std::uint32_t quota) const;
  [[nodiscard]] std::optional<std::uint64_t> offered(Direction d) const;
  [[nodiscard]] bool may_leave(Direction d, std::uint64_t tag) const;

  // want(d, tenant, quota) in this clock would pass the turn at its edge.
  [[nodiscard]] bool starves(Direction d, std::uint32_t tenant, std::uint32_t quota) const;
  // Clocks until the first hold ends (its slot is done after that many edges); the
  // maximum when no slot is in its hold.
  [[nodiscard]] std::uint64_t cycles_to_hold_end() const;

  // ---- inputs of this clock's edge
  // Tenant `tenant` of direction d has a crypto head that waits for a slot only.
  void want(Direction d, std::uint32_t tenant, std::uint32_t quota);
  // At most one claim per direction and clock, allowed by can_claim() of the clock before
  // (the caller's part; `quota` is the tenant's quota then); call it before this clock's
  // can_claim(). Throws ModelError when no free slot or quota unit is left for it (a
  // caller's bug).
  void claim(Direction d, std::uint32_t tenant, std::uint32_t quota, std::uint64_t tag,
             std::uint32_t key, std::uint64_t hold_cycles);
  // The output takes frame `tag` (one that may leave); throws ModelError otherwise.
  void take(Direction d, std::uint64_t tag);

  // The clock edge. Returns the tags whose hold ended (done from the next clock).
  std::vector<std::uint64_t> clock();
  // `cycles` clock edges without a claim, a take or a want that starves(), none ending a
  // hold (cycles < cycles_to_hold_end()): as clock() that many times.
  void advance(std::uint64_t cycles);

 private:
  enum class State : std::uint8_t { kFree, kHold, kDone };
  struct Slot {
    State state = State::kFree;
    Direction dir = Direction::kTx;
    std::uint32_t tenant = 0;
    std::uint32_t key = 0;
    std::uint64_t tag = 0;
    std::uint64_t hold_left = 0;   // clocks of hold still to come
    std::uint64_t claim_seq = 0;   // order of claims
    std::uint64_t done_seq = 0;    // order in which holds ended
    bool taken = false;            // taken this clock: free at the edge
  };
  struct Claim {
    Slot slot;
    std::uint64_t hold = 0;
  };

  [[nodiscard]] bool lenient(std::uint32_t tenant, std::uint32_t quota) const;
  [[nodiscard]] bool can_claim_now(Direction d, std::uint32_t tenant, std::uint32_t quota) const;
  [[nodiscard]] bool leaves(const Slot& s) const;

  std::vector<Slot> slots_;
  // Counts of the slots' states, kept by clock() (the outputs are read several times a clock).
  int held_total_ = 0;
  std::vector<std::uint32_t> held_;                 // per tenant
  std::array<std::vector<std::uint32_t>, 2> busy_;  // per direction and tenant
  Direction turn_ = Direction::kTx;
  bool other_starved_ = false;       // this clock: the direction without the turn
  std::vector<Claim> claims_;        // this clock
  std::uint64_t next_claim_ = 0;
  std::uint64_t next_done_ = 0;
};

}  // namespace nicsched::refmodel
