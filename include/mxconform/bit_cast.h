#pragma once
// std::bit_cast for C++17: the bits of one trivially copyable type as another of the same size.
#include <cstring>
#include <type_traits>

namespace mxconform {

template <class To, class From>
To bit_cast(const From& from) {
  static_assert(sizeof(To) == sizeof(From) && std::is_trivially_copyable_v<To> && std::is_trivially_copyable_v<From>);
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

}  // namespace mxconform
