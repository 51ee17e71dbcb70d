// A grow-only device buffer: capacity is kept across ticks so steady-state work allocates nothing.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "check.cuh"

namespace warpmind::gpu {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(ptr_); }

  // Ensures room for n elements; contents are not preserved when it grows. `zero` clears new storage.
  std::string reserve(std::size_t n, bool zero = false) {
    if (n <= cap_) return {};
    cudaFree(ptr_);
    ptr_ = nullptr;
    cap_ = 0;
    const std::size_t grown = n + n / 4;
    WM_CUDA(cudaMalloc(&ptr_, grown * sizeof(T)));
    if (zero) WM_CUDA(cudaMemset(ptr_, 0, grown * sizeof(T)));
    cap_ = grown;
    return {};
  }
  T* get() const { return ptr_; }
  std::size_t capacity() const { return cap_; }

 private:
  T* ptr_ = nullptr;
  std::size_t cap_ = 0;
};

}  // namespace warpmind::gpu
