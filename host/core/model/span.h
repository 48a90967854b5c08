// A view of contiguous elements (C++17 has no std::span): what the CPU references, the check and
// the hash read and write, whether the elements live in a std::vector or in host memory the
// backends transfer from directly (host_memory.h).
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace cuvk {

template <typename T>
class Span {
 public:
  Span() = default;
  Span(T* data, std::size_t size) : data_(data), size_(size) {}
  // From a container with data() and size() (a std::vector, another Span), e.g. Span<const float>
  // from a std::vector<float>.
  template <typename C, typename = std::enable_if_t<!std::is_same_v<std::decay_t<C>, Span>>,
            typename = decltype(std::declval<C&>().data())>
  Span(C&& c) : data_(c.data()), size_(c.size()) {}  // NOLINT: implicit, as std::span's

  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) const { return data_[i]; }
  T* begin() const { return data_; }
  T* end() const { return data_ + size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace cuvk
