#pragma once
// A page-aligned heap buffer whose every page is written once at construction, so that no
// page fault or first-touch zero-page mapping lands inside a timed loop.
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>

namespace mxconform::bench {

inline constexpr std::size_t kPageBytes = 4096;

template <typename T>
class AlignedBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "the buffer is filled with memset");

 public:
  AlignedBuffer() = default;
  // `count` elements, every byte set to `fill`; the start is kPageBytes-aligned. Throws
  // std::bad_alloc.
  explicit AlignedBuffer(std::size_t count, unsigned char fill = 0) : count_(count) {
    const std::size_t bytes = (count * sizeof(T) + kPageBytes - 1) / kPageBytes * kPageBytes;
    storage_.reset(static_cast<T*>(std::aligned_alloc(kPageBytes, bytes == 0 ? kPageBytes : bytes)));
    if (!storage_) throw std::bad_alloc();
    std::memset(storage_.get(), fill, bytes);
  }

  T* data() { return storage_.get(); }
  const T* data() const { return storage_.get(); }
  std::size_t size() const { return count_; }
  std::size_t size_bytes() const { return count_ * sizeof(T); }

 private:
  struct Free {
    void operator()(T* pointer) const { std::free(pointer); }
  };
  std::unique_ptr<T[], Free> storage_;
  std::size_t count_ = 0;
};

}  // namespace mxconform::bench
