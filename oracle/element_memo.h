#pragma once
// A memo of the oracle's per-element results. The exact path (decode, prescale, narrow in
// Boost.Multiprecision rationals) is a pure function of a few small fields: the input dtype and
// code, the block's E8M0 byte, the element kind and the knobs that reach the element. A
// certification asks the same question many times (the same cases for every backend and every
// profile pair, tensors whose blocks share scales), so each answer is computed once per thread by
// the exact path and then looked up. Nothing here computes a value: a miss calls the exact path,
// and a key holds every field the result depends on, packed without overlap.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>

namespace mxconform::oracle {

// Packs fields into a key: each add() takes `bits` bits above the previous field's. A value that
// does not fit its bits, or fields past 64 bits, are a logic error: two keys never alias.
class MemoKey {
 public:
  MemoKey& add(std::uint64_t value, int bits) {
    if (bits <= 0 || used_ + bits > 64 || (bits < 64 && value >> bits != 0)) {
      throw std::logic_error("oracle: a memo key field does not fit");
    }
    key_ |= value << used_;
    used_ += bits;
    return *this;
  }
  std::uint64_t value() const { return key_; }

 private:
  std::uint64_t key_ = 0;
  int used_ = 0;
};

// While true on a thread, its memos neither look up nor store: every result comes from the exact
// path. For the test that compares the two (tests/oracle_memo_test.cpp).
inline thread_local bool memo_bypassed = false;

// Direct-mapped: a slot holds the last key that hashed to it, so memory stays bounded (a campaign
// over every pattern and scale byte replaces entries instead of growing), and a lookup is a
// compare. One per thread and call site (thread_local): no locks.
class ElementMemo {
 public:
  template <class Compute>
  std::uint32_t get(std::uint64_t key, Compute&& compute) {
    if (memo_bypassed) return compute();
    if (!slots_) slots_ = std::make_unique<Slot[]>(kSlots);
    Slot& slot = slots_[index(key)];
    if (slot.filled && slot.key == key) return slot.value;
    slot.value = compute();
    slot.key = key;
    slot.filled = true;
    return slot.value;
  }

 private:
  static constexpr int kSlotBits = 18;  // 2^18 slots of 16 bytes: 4 MiB a memo
  static constexpr std::size_t kSlots = std::size_t{1} << kSlotBits;
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t value = 0;
    bool filled = false;
  };
  static std::size_t index(std::uint64_t key) {
    constexpr std::uint64_t kGoldenRatio = 0x9e37'79b9'7f4a'7c15;  // Fibonacci hashing
    return static_cast<std::size_t>((key * kGoldenRatio) >> (64 - kSlotBits));
  }
  std::unique_ptr<Slot[]> slots_;
};

}  // namespace mxconform::oracle
