// A grow-only device buffer: capacity is kept across ticks so steady-state work allocates nothing.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <utility>

#include "core/check.cuh"

namespace warpmind::gpu {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(ptr_); }

  // Ensures room for n elements; contents are not preserved when it grows. `zero` clears new storage.
  Status reserve(std::size_t n, bool zero = false) {
    if (n <= cap_) return Status::Ok();
    cudaFree(ptr_);
    ptr_ = nullptr;
    cap_ = 0;
    const std::size_t grown = n + n / 4;
    WM_CUDA(cudaMalloc(&ptr_, grown * sizeof(T)));
    if (zero) WM_CUDA(cudaMemset(ptr_, 0, grown * sizeof(T)));
    cap_ = grown;
    return Status::Ok();
  }
  T* get() const { return ptr_; }
  std::size_t capacity() const { return cap_; }
  void swap(DeviceBuffer& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(cap_, o.cap_);
  }

 private:
  T* ptr_ = nullptr;
  std::size_t cap_ = 0;
};

// A grow-only page-locked host buffer: host <-> device copies through it run at full DMA speed (a
// pageable copy is staged by the driver, slower and synchronous).
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { cudaFreeHost(ptr_); }

  Status reserve(std::size_t bytes) {
    if (bytes <= cap_) return Status::Ok();
    cudaFreeHost(ptr_);
    ptr_ = nullptr;
    cap_ = 0;
    const std::size_t grown = bytes + bytes / 4;
    WM_CUDA(cudaMallocHost(&ptr_, grown));
    cap_ = grown;
    return Status::Ok();
  }
  void* get() const { return ptr_; }

  // Copies host bytes to the device, queued on `stream` (the host buffer may be reused at once).
  Status upload(void* device, const void* host, std::size_t bytes, cudaStream_t stream) {
    if (bytes == 0) return Status::Ok();
    Status err = reserve(bytes);
    if (!err.ok()) return err;
    WM_CUDA(cudaStreamSynchronize(stream));  // an earlier copy may still read the staging
    std::memcpy(ptr_, host, bytes);
    WM_CUDA(cudaMemcpyAsync(device, ptr_, bytes, cudaMemcpyHostToDevice, stream));
    return Status::Ok();
  }
  // Copies device bytes to the host after the work queued on `stream`; returns when they are there.
  Status download(void* host, const void* device, std::size_t bytes, cudaStream_t stream) {
    if (bytes == 0) return Status::Ok();
    Status err = reserve(bytes);
    if (!err.ok()) return err;
    WM_CUDA(cudaMemcpyAsync(ptr_, device, bytes, cudaMemcpyDeviceToHost, stream));
    WM_CUDA(cudaStreamSynchronize(stream));
    std::memcpy(host, ptr_, bytes);
    return Status::Ok();
  }

 private:
  void* ptr_ = nullptr;
  std::size_t cap_ = 0;
};

}  // namespace warpmind::gpu
