// CryptoSlots: see crypto_slots.hpp.
#include "nicsched/refmodel/crypto_slots.hpp"

#include <algorithm>
#include <limits>
#include <string>

namespace nicsched::refmodel {
namespace {

const char* dir_name(Direction d) { return d == Direction::kTx ? "TX" : "RX"; }

}  // namespace

CryptoSlots::CryptoSlots(int slots, int tenants)
    : slots_(static_cast<std::size_t>(slots)), held_(static_cast<std::size_t>(tenants), 0) {
  if (slots < 1) throw ModelError("crypto slots: " + std::to_string(slots) + " slots, at least 1");
  for (auto& b : busy_) b.assign(static_cast<std::size_t>(tenants), 0);
}

bool CryptoSlots::lenient(std::uint32_t tenant, std::uint32_t quota) const {
  return free_slots() >= 1 && held_.at(tenant) + 1 <= quota;
}

bool CryptoSlots::can_claim_now(Direction d, std::uint32_t tenant, std::uint32_t quota) const {
  const std::uint32_t need = d == turn_ ? 1 : 2;
  return free_slots() >= static_cast<int>(need) && held_.at(tenant) + need <= quota;
}

bool CryptoSlots::can_claim(Direction d, std::uint32_t tenant, std::uint32_t quota) const {
  return claims_.empty() && can_claim_now(d, tenant, quota);
}

bool CryptoSlots::leaves(const Slot& s) const {
  if (s.state != State::kDone) return false;
  return std::none_of(slots_.begin(), slots_.end(), [&](const Slot& o) {
    return o.state != State::kFree && o.dir == s.dir && o.key == s.key && o.claim_seq < s.claim_seq;
  });
}

std::optional<std::uint64_t> CryptoSlots::offered(Direction d) const {
  const Slot* first = nullptr;
  for (const Slot& s : slots_) {
    if (s.dir != d || s.taken || !leaves(s)) continue;
    if (first == nullptr || s.done_seq < first->done_seq) first = &s;
  }
  if (first == nullptr) return std::nullopt;
  return first->tag;
}

bool CryptoSlots::may_leave(Direction d, std::uint64_t tag) const {
  return std::any_of(slots_.begin(), slots_.end(),
                     [&](const Slot& s) { return s.dir == d && s.tag == tag && !s.taken && leaves(s); });
}

bool CryptoSlots::starves(Direction d, std::uint32_t tenant, std::uint32_t quota) const {
  return d != turn_ && lenient(tenant, quota) && !can_claim_now(d, tenant, quota);
}

std::uint64_t CryptoSlots::cycles_to_hold_end() const {
  std::uint64_t n = std::numeric_limits<std::uint64_t>::max();
  for (const Slot& s : slots_) {
    if (s.state == State::kHold) n = std::min(n, s.hold_left);
  }
  return n;
}

void CryptoSlots::want(Direction d, std::uint32_t tenant, std::uint32_t quota) {
  if (starves(d, tenant, quota)) other_starved_ = true;
}

void CryptoSlots::claim(Direction d, std::uint32_t tenant, std::uint32_t quota, std::uint64_t tag,
                        std::uint32_t key, std::uint64_t hold_cycles) {
  std::uint32_t tenant_claims = 1;
  for (const Claim& c : claims_) {
    if (c.slot.dir == d) {
      throw ModelError(std::string("crypto slots: a second ") + dir_name(d) + " claim in one clock");
    }
    if (c.slot.tenant == tenant) ++tenant_claims;
  }
  if (free_slots() < static_cast<int>(claims_.size()) + 1 || held_.at(tenant) + tenant_claims > quota) {
    throw ModelError(std::string("crypto slots: ") + dir_name(d) + " claim for tenant " +
                     std::to_string(tenant) + ": no free slot or quota unit left for it (" +
                     std::to_string(free_slots()) + " free, " + std::to_string(held_.at(tenant)) +
                     " held of quota " + std::to_string(quota) + ")");
  }
  Claim c;
  c.slot.state = State::kHold;
  c.slot.dir = d;
  c.slot.tenant = tenant;
  c.slot.key = key;
  c.slot.tag = tag;
  c.hold = hold_cycles;
  claims_.push_back(c);
}

void CryptoSlots::take(Direction d, std::uint64_t tag) {
  for (Slot& s : slots_) {
    if (s.dir == d && s.tag == tag && !s.taken && leaves(s)) {
      s.taken = true;
      return;
    }
  }
  throw ModelError(std::string("crypto slots: ") + dir_name(d) + " take of tag " +
                   std::to_string(tag) + ": no done frame with that tag may leave");
}

std::vector<std::uint64_t> CryptoSlots::clock() {
  // Not in a clock with a claim: the wants saw the pool without it (see the header).
  if (other_starved_ && claims_.empty()) turn_ = turn_ == Direction::kTx ? Direction::kRx : Direction::kTx;
  other_starved_ = false;
  std::vector<std::uint64_t> ended;
  for (Slot& s : slots_) {
    if (s.taken) {
      --held_[s.tenant];
      --held_total_;
      s = Slot{};
    } else if (s.state == State::kHold && --s.hold_left == 0) {
      --busy_[static_cast<std::size_t>(s.dir)][s.tenant];
      s.state = State::kDone;
      s.done_seq = next_done_++;
      ended.push_back(s.tag);
    }
  }
  // can_claim() saw a free slot for every claim of the clock (two when both directions claim).
  for (Claim& c : claims_) {
    auto it = std::find_if(slots_.begin(), slots_.end(), [](const Slot& s) { return s.state == State::kFree; });
    if (it == slots_.end()) throw ModelError("crypto slots: more claims than free slots (model bug)");
    Slot& s = *it;
    s = c.slot;
    s.claim_seq = next_claim_++;
    s.hold_left = c.hold;
    if (c.hold == 0) {
      s.state = State::kDone;
      s.done_seq = next_done_++;
      ended.push_back(s.tag);
    } else {
      ++busy_[static_cast<std::size_t>(s.dir)][s.tenant];
    }
    ++held_[s.tenant];
    ++held_total_;
  }
  claims_.clear();
  return ended;
}

void CryptoSlots::advance(std::uint64_t cycles) {
  if (!claims_.empty() || other_starved_ || cycles >= cycles_to_hold_end()) {
    throw ModelError("crypto slots: advance(" + std::to_string(cycles) +
                     ") over a claim, a starved want or the end of a hold (caller's bug)");
  }
  for (Slot& s : slots_) {
    if (s.taken) throw ModelError("crypto slots: advance() over a take (caller's bug)");
    if (s.state == State::kHold) s.hold_left -= cycles;
  }
}

}  // namespace nicsched::refmodel
