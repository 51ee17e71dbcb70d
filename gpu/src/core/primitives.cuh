// The CUDA support layer shared by the modules' kernels: CUB's two-step calls (size the temporary
// storage, grow `temp`, run) wrapped once — exclusive scan, radix sort of keys or (key, value) pairs,
// selection by flags — plus run-start tables over sorted keys and packing of padded rows. Every call is
// queued on `stream` and returns a Status (OutOfMemory when `temp` cannot grow); error checking and launch
// checks are in check.cuh, grow-only buffers in buffer.cuh.
#pragma once

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <string>

#include "core/buffer.cuh"
#include "core/check.cuh"

namespace warpmind::gpu {

// Exclusive sum of `items` values on `stream` (CUB, temporary storage in `temp`); with `total`, the
// last output (the sum of all but the last input: pass a trailing 0 to get the grand total) is read
// back, which waits for the stream.
template <class T>
Status exclusive_scan(const T* in, T* out, std::size_t items, DeviceBuffer<unsigned char>& temp, cudaStream_t stream,
                      T* total = nullptr) {
  std::size_t bytes = 0;
  WM_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, items, stream));
  Status err = temp.reserve(std::max<std::size_t>(bytes, 1));
  if (!err.ok()) return err;
  WM_CUDA(cub::DeviceScan::ExclusiveSum(temp.get(), bytes, in, out, items, stream));
  if (total) {
    WM_CUDA(cudaMemcpyAsync(total, out + items - 1, sizeof(T), cudaMemcpyDeviceToHost, stream));
    WM_CUDA(cudaStreamSynchronize(stream));
  }
  return Status::Ok();
}

// Bits that hold every key < keys (at least 1): the end bit of a radix sort over such keys.
inline int bits_for(unsigned long long keys) {
  int b = 1;
  while (b < 64 && (1ull << b) < keys) ++b;
  return b;
}

// Blocks of `threads` threads covering n items.
inline unsigned blocks_of(std::size_t n, int threads) {
  return static_cast<unsigned>((n + static_cast<std::size_t>(threads) - 1) / static_cast<std::size_t>(threads));
}
// The same for a file's own block size: blocks_for<kThreads>(n).
template <int Threads>
inline unsigned blocks_for(std::size_t n) {
  return blocks_of(n, Threads);
}

// CUB counts items in int here: more than 2^31 - 1 is refused (InvalidArgument) rather than truncated.
inline Status cub_items(std::size_t n, const char* what, int& out) {
  if (n > static_cast<std::size_t>(INT_MAX))
    return Status::Invalid(std::string(what) + ": more than 2^31 - 1 items in one call");
  out = static_cast<int>(n);
  return Status::Ok();
}

// Stable LSD radix sort of n (key, value) pairs by key bits [begin_bit, end_bit): keys_in / values_in to
// keys_out / values_out (the inputs are left as they were). Pairs with equal keys keep their order.
template <class K, class V>
Status sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::size_t n,
                  DeviceBuffer<unsigned char>& temp, cudaStream_t stream, int begin_bit = 0,
                  int end_bit = static_cast<int>(sizeof(K) * 8)) {
  int items = 0;
  WM_RETURN_IF_ERROR(cub_items(n, "sort_pairs", items));
  std::size_t bytes = 0;
  WM_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, keys_out, values_in, values_out, items, begin_bit,
                                          end_bit, stream));
  WM_RETURN_IF_ERROR(temp.reserve(std::max<std::size_t>(bytes, 1)));
  WM_CUDA(cub::DeviceRadixSort::SortPairs(temp.get(), bytes, keys_in, keys_out, values_in, values_out, items, begin_bit,
                                          end_bit, stream));
  return Status::Ok();
}

// The same for keys alone.
template <class K>
Status sort_keys(const K* keys_in, K* keys_out, std::size_t n, DeviceBuffer<unsigned char>& temp, cudaStream_t stream,
                 int begin_bit = 0, int end_bit = static_cast<int>(sizeof(K) * 8)) {
  int items = 0;
  WM_RETURN_IF_ERROR(cub_items(n, "sort_keys", items));
  std::size_t bytes = 0;
  WM_CUDA(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys_in, keys_out, items, begin_bit, end_bit, stream));
  WM_RETURN_IF_ERROR(temp.reserve(std::max<std::size_t>(bytes, 1)));
  WM_CUDA(cub::DeviceRadixSort::SortKeys(temp.get(), bytes, keys_in, keys_out, items, begin_bit, end_bit, stream));
  return Status::Ok();
}

// out = the in[i] whose flags[i] is non-zero, in order; *count (device) their number.
template <class T, class F>
Status select_flagged(const T* in, const F* flags, T* out, unsigned* count, std::size_t n,
                      DeviceBuffer<unsigned char>& temp, cudaStream_t stream) {
  int items = 0;
  WM_RETURN_IF_ERROR(cub_items(n, "select_flagged", items));
  std::size_t bytes = 0;
  WM_CUDA(cub::DeviceSelect::Flagged(nullptr, bytes, in, flags, out, count, items, stream));
  WM_RETURN_IF_ERROR(temp.reserve(std::max<std::size_t>(bytes, 1)));
  WM_CUDA(cub::DeviceSelect::Flagged(temp.get(), bytes, in, flags, out, count, items, stream));
  return Status::Ok();
}

// start[b] = the first of the n sorted keys that is >= b, for b = 0..runs (runs + 1 threads): the start
// of every key's run, empty runs included. One binary search a thread, so no thread walks a long stretch
// of empty runs.
// The first of the n sorted keys that is >= v (n when none is).
__device__ __forceinline__ unsigned lower_bound(const unsigned* __restrict__ sorted_keys, unsigned n, unsigned v) {
  unsigned lo = 0, hi = n;
  while (lo < hi) {
    const unsigned mid = lo + (hi - lo) / 2;
    if (sorted_keys[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

template <class T>
static __global__ void k_run_starts(unsigned n, unsigned runs, const unsigned* __restrict__ sorted_keys,
                                    T* __restrict__ start) {
  const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b <= runs) start[b] = lower_bound(sorted_keys, n, b);
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
Status pack_rows(const T* padded, unsigned stride, int* counts, int* offset, unsigned rows, T* packed,
                 DeviceBuffer<unsigned char>& temp, cudaStream_t stream, int* host_counts, T* host_packed) {
  WM_CUDA(cudaMemsetAsync(counts + rows, 0, sizeof(int), stream));
  int total = 0;
  Status err = exclusive_scan(counts, offset, std::size_t{rows} + 1, temp, stream, &total);
  if (!err.ok()) return err;
  const unsigned long long slots = static_cast<unsigned long long>(rows) * stride;
  k_pack_rows<<<static_cast<unsigned>((slots + 255) / 256), 256, 0, stream>>>(padded, stride, counts, offset, rows,
                                                                              packed);
  WM_CUDA_LAUNCH(k_pack_rows);
  WM_CUDA(cudaMemcpyAsync(host_counts, counts, rows * sizeof(int), cudaMemcpyDeviceToHost, stream));
  if (total > 0)
    WM_CUDA(cudaMemcpyAsync(host_packed, packed, static_cast<std::size_t>(total) * sizeof(T), cudaMemcpyDeviceToHost,
                            stream));
  WM_CUDA(cudaStreamSynchronize(stream));
  return Status::Ok();
}

}  // namespace warpmind::gpu
