// ClonePtr<T>: an owning pointer to a polymorphic T whose copy is a deep copy, made by
// T's `std::unique_ptr<T> clone() const` (or a derived class's, through the virtual), or
// by the const member function given as kCopy (ClonePtr<sim::Simulation,
// &sim::Simulation::fork>).
// A class that holds its parts through ClonePtr can keep its copy constructor defaulted,
// so a field added later is copied without anyone remembering to (sim::Simulation::fork,
// the guarded baselines). A null ClonePtr copies to null; clone() may throw to refuse a
// copy (a Verilated NIC, an open pcap file), and the copy then throws the same.
#pragma once

#include <memory>
#include <utility>

namespace nicsched {

template <class T, auto kCopy = &T::clone>
class ClonePtr {
 public:
  ClonePtr() = default;
  ClonePtr(std::unique_ptr<T> p) : p_(std::move(p)) {}  // NOLINT(google-explicit-constructor): as unique_ptr
  ClonePtr(const ClonePtr& o) : p_(copy(o.p_)) {}
  ClonePtr(ClonePtr&&) noexcept = default;
  ClonePtr& operator=(const ClonePtr& o) {
    if (this != &o) p_ = copy(o.p_);
    return *this;
  }
  ClonePtr& operator=(ClonePtr&&) noexcept = default;
  ~ClonePtr() = default;

  [[nodiscard]] T* get() const { return p_.get(); }
  T& operator*() const { return *p_; }
  T* operator->() const { return p_.get(); }
  explicit operator bool() const { return static_cast<bool>(p_); }

 private:
  static std::unique_ptr<T> copy(const std::unique_ptr<T>& p) { return p ? ((*p).*kCopy)() : nullptr; }
  std::unique_ptr<T> p_;
};

}  // namespace nicsched
