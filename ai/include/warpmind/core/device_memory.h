// Device memory a caller owns, for handing data that already lives on the GPU to the library
// (e.g. FieldLayers::build_device) and for benchmarks and demos that keep state on the device.
// All calls fail cleanly with Unavailable on a CPU context.
#pragma once

#include <cstddef>

#include "warpmind/core/context.h"

namespace warpmind {

class DeviceBytes {
 public:
  DeviceBytes() = default;
  ~DeviceBytes();
  DeviceBytes(DeviceBytes&& o) noexcept : ptr_(o.ptr_), size_(o.size_) {
    o.ptr_ = nullptr;
    o.size_ = 0;
  }
  DeviceBytes& operator=(DeviceBytes&& o) noexcept;
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;

  Status allocate(Context& ctx, std::size_t bytes);
  Status upload(Context& ctx, const void* host, std::size_t bytes);    // bytes <= size(); synchronous
  Status download(Context& ctx, void* host, std::size_t bytes) const;  // synchronous
  void* get() const { return ptr_; }
  std::size_t size() const { return size_; }

 private:
  void* ptr_ = nullptr;
  std::size_t size_ = 0;
};

// Times work queued on the context's stream with device events (CUDA contexts only).
class GpuTimer {
 public:
  ~GpuTimer();
  Status start(Context& ctx);
  Status stop(Context& ctx, float& ms);  // waits for the work queued since start()

 private:
  void* begin_ = nullptr;
  void* end_ = nullptr;
};

}  // namespace warpmind
