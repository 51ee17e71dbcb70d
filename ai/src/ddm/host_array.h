// HostArray<T>: the grow-only arrays that hold the matcher's packed regions (ddm.cpp). On a GPU variant
// the memory is page-locked (gpu::ddm_host_alloc), so the device copies at every match read it directly
// with no staging copy; otherwise it is ordinary heap memory. Growth keeps the contents and at least
// doubles the capacity; a failed growth changes nothing and comes back as a Status. Not thread-safe;
// distinct elements may be written from several threads.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "warpmind/core/status.h"

#if WARPMIND_HAVE_CUDA
#include "ddm/ddm_device.h"
#endif

namespace warpmind::ddm {

template <class T>
class HostArray {
  static_assert(std::is_trivially_copyable_v<T>, "HostArray copies its elements as bytes");

 public:
  HostArray() = default;
  HostArray(const HostArray&) = delete;
  HostArray& operator=(const HostArray&) = delete;
  ~HostArray() { release(data_); }

  // Page-locked memory (a CUDA build only). Only before the first growth: later calls are ignored.
  void use_pinned(bool pinned) {
    if (!data_) pinned_ = pinned;
  }

  // Room for n elements; the contents stay.
  Status reserve(std::size_t n) {
    if (n <= cap_) return Status::Ok();
    std::size_t grown = cap_ < 1024 ? 1024 : cap_ * 2;
    if (grown < n) grown = n;
    T* p = nullptr;
    const std::size_t bytes = grown * sizeof(T);
#if WARPMIND_HAVE_CUDA
    if (pinned_) {
      void* raw = nullptr;
      if (Status st = gpu::ddm_host_alloc(bytes, &raw); !st.ok()) return st.context("ddm: page-locked regions");
      p = static_cast<T*>(raw);
    }
#endif
    if (!p) {
      if (pinned_) return Status::OutOfMemory("ddm: page-locked regions");
      p = static_cast<T*>(std::malloc(bytes));
      if (!p) return Status::OutOfMemory("ddm: regions (" + std::to_string(bytes) + " bytes)");
    }
    if (size_) std::memcpy(static_cast<void*>(p), static_cast<const void*>(data_), size_ * sizeof(T));
    release(data_);
    data_ = p;
    cap_ = grown;
    return Status::Ok();
  }
  // Needs room reserved for it.
  void push_back(const T& v) { data_[size_++] = v; }
  // Drops the elements from n on (n <= size()).
  void shrink_to(std::size_t n) { size_ = n; }
  // Exchanges the two arrays' memory (and how it was allocated).
  void swap(HostArray& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(cap_, o.cap_);
    std::swap(pinned_, o.pinned_);
  }

  std::size_t size() const { return size_; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }

 private:
  void release(T* p) {
    if (!p) return;
#if WARPMIND_HAVE_CUDA
    if (pinned_) {
      gpu::ddm_host_free(p);
      return;
    }
#endif
    std::free(p);
  }

  T* data_ = nullptr;
  std::size_t size_ = 0, cap_ = 0;
  bool pinned_ = false;
};

}  // namespace warpmind::ddm
