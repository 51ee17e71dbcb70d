// Scans and start tables shared by the CUDA modules.
#pragma once

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <string>

#include "buffer.cuh"
#include "check.cuh"

namespace warpmind::gpu {

// Exclusive sum of `items` values on `stream` (CUB, temporary storage in `temp`); with `total`, the
// last output (the sum of all but the last input: pass a trailing 0 to get the grand total) is read
// back, which waits for the stream.
template <class T>
std::string exclusive_scan(const T* in, T* out, std::size_t items, DeviceBuffer<unsigned char>& temp, cudaStream_t stream,
                           T* total = nullptr) {
  std::size_t bytes = 0;
  WM_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, items, stream));
  std::string err = temp.reserve(std::max<std::size_t>(bytes, 1));
  if (!err.empty()) return err;
  WM_CUDA(cub::DeviceScan::ExclusiveSum(temp.get(), bytes, in, out, items, stream));
  if (total) {
    WM_CUDA(cudaMemcpyAsync(total, out + items - 1, sizeof(T), cudaMemcpyDeviceToHost, stream));
    WM_CUDA(cudaStreamSynchronize(stream));
  }
  return {};
}

// start[b] = the first of the n sorted keys that is >= b, for b = 0..runs (runs + 1 threads): the start
// of every key's run, empty runs included. One binary search a thread, so no thread walks a long stretch
// of empty runs.
template <class T>
static __global__ void k_run_starts(unsigned n, unsigned runs, const unsigned* __restrict__ sorted_keys,
                                    T* __restrict__ start) {
  const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b > runs) return;
  unsigned lo = 0, hi = n;
  while (lo < hi) {
    const unsigned mid = lo + (hi - lo) / 2;
    if (sorted_keys[mid] < b) lo = mid + 1;
    else hi = mid;
  }
  start[b] = lo;
}

}  // namespace warpmind::gpu
