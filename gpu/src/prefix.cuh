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
std::string exclusive_scan(const T* in, T* out, std::size_t items, DeviceBuffer<unsigned char>& temp,
                           cudaStream_t stream, T* total = nullptr) {
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
    if (sorted_keys[mid] < b)
      lo = mid + 1;
    else
      hi = mid;
  }
  start[b] = lo;
}

// Rows of a padded table (row i: counts[i] values at padded[i * stride]) packed one after the other:
// row i to packed[offset[i] ...]. One thread per value slot of the table.
//
// pack_rows() runs it for the rows' counts on the device (rows + 1 ints, the last one free): it scans
// them into `offset` (rows + 1), packs, and copies the counts and the packed values to the host.
template <class T>
static __global__ void k_pack_rows(const T* __restrict__ padded, unsigned stride, const int* __restrict__ counts,
                                   const int* __restrict__ offset, unsigned rows, T* __restrict__ packed) {
  const unsigned long long j = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const unsigned i = static_cast<unsigned>(j / stride), k = static_cast<unsigned>(j % stride);
  if (i < rows && k < static_cast<unsigned>(counts[i])) packed[offset[i] + k] = padded[j];
}

template <class T>
std::string pack_rows(const T* padded, unsigned stride, int* counts, int* offset, unsigned rows, T* packed,
                      DeviceBuffer<unsigned char>& temp, cudaStream_t stream, int* host_counts, T* host_packed) {
  WM_CUDA(cudaMemsetAsync(counts + rows, 0, sizeof(int), stream));
  int total = 0;
  std::string err = exclusive_scan(counts, offset, std::size_t{rows} + 1, temp, stream, &total);
  if (!err.empty()) return err;
  const unsigned long long slots = static_cast<unsigned long long>(rows) * stride;
  k_pack_rows<<<static_cast<unsigned>((slots + 255) / 256), 256, 0, stream>>>(padded, stride, counts, offset, rows,
                                                                              packed);
  WM_CUDA_LAUNCH(k_pack_rows);
  WM_CUDA(cudaMemcpyAsync(host_counts, counts, rows * sizeof(int), cudaMemcpyDeviceToHost, stream));
  if (total > 0)
    WM_CUDA(cudaMemcpyAsync(host_packed, packed, static_cast<std::size_t>(total) * sizeof(T), cudaMemcpyDeviceToHost,
                            stream));
  WM_CUDA(cudaStreamSynchronize(stream));
  return {};
}

}  // namespace warpmind::gpu
