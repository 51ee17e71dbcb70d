// CUDA region matching (contract: ai/include/warpmind/ddm/ddm.h). Overlap tests are comparisons only,
// so the pairs equal the CPU variants' exactly.
//
// gpu-region (the seed's region-based matching): one thread per publication; the block walks the
// subscriptions in tiles of 256 staged in shared memory. A count pass, an exclusive scan, and a write
// pass in which every thread writes its pairs in ascending subscription order: the output is sorted
// without a sort.
//
// gpu-grid (the seed's grid-based matching, without atomics): every subscription counts the cells it
// covers; a scan gives offsets; it writes (cell, subscription) entries; a stable radix sort by cell and
// a start table give each cell's list. Each publication visits its cells and tests their subscriptions,
// reporting a pair only in the cell holding the intersection's lower corner (max of the lower bounds,
// which lies in both boxes), so no pair is reported twice. Regions covering more than `wide` cells are
// kept out of the lists: wide subscriptions are tested by every publication, wide publications test
// every subscription. Pairs are written as 64-bit keys (publication << 32 | subscription), count /
// scan / write, then radix-sorted.

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/buffer.cuh"
#include "core/check.cuh"
#include "core/primitives.cuh"
#include "ddm/ddm_device.h"
#include "ddm/ddm_rules.h"

namespace warpmind::gpu {
namespace {

constexpr int kThreads = 256;
constexpr int kTile = 256;  // == kThreads

template <int D>
struct BoxD {
  float lo[D], hi[D];
};

template <int D>
__device__ __forceinline__ bool overlap_d(const BoxD<D>& a, const BoxD<D>& b) {
  return ddm::rules::overlaps<D>(a.lo, a.hi, b.lo, b.hi);
}

template <int D>
__device__ __forceinline__ bool empty_d(const BoxD<D>& a) {
#pragma unroll
  for (int k = 0; k < D; ++k)
    if (!(a.lo[k] < a.hi[k])) return true;
  return false;
}

__device__ __forceinline__ int cell_d(float v, const DdmGrid& g, int k) {
  const int c = static_cast<int>(floorf(__fdiv_rn(__fsub_rn(v, g.origin[k]), g.cell[k])));
  return c < 0 ? 0 : (c > g.cells[k] - 1 ? g.cells[k] - 1 : c);
}

// The cells a box covers, per axis [lo, hi], and their number.
template <int D>
struct Span {
  int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  unsigned long long count = 1;
};

template <int D>
__device__ __forceinline__ Span<D> span_d(const BoxD<D>& b, const DdmGrid& g) {
  Span<D> s;
#pragma unroll
  for (int k = 0; k < D; ++k) {
    s.lo[k] = cell_d(b.lo[k], g, k);
    s.hi[k] = cell_d(b.hi[k], g, k);
    s.count *= static_cast<unsigned long long>(s.hi[k] - s.lo[k] + 1);
  }
  return s;
}

__device__ __forceinline__ unsigned cell_key(int x, int y, int z, const DdmGrid& g) {
  return (static_cast<unsigned>(z) * g.cells[1] + static_cast<unsigned>(y)) * g.cells[0] + static_cast<unsigned>(x);
}

struct PairRec {
  unsigned publication, subscription;
};

// ---- changes between two sorted pair lists ------------------------------------------------------

__device__ __forceinline__ bool pair_less(const PairRec& a, const PairRec& b) {
  return a.publication != b.publication ? a.publication < b.publication : a.subscription < b.subscription;
}

// flag[i] = 1 when a[i] is not in b (b sorted, no duplicates): a binary search per element.
__global__ void k_missing(const PairRec* __restrict__ a, unsigned long long n, const PairRec* __restrict__ b,
                          unsigned long long m, unsigned long long* __restrict__ flag) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const PairRec x = a[i];
  unsigned long long lo = 0, hi = m;
  while (lo < hi) {
    const unsigned long long mid = lo + (hi - lo) / 2;
    if (pair_less(b[mid], x))
      lo = mid + 1;
    else
      hi = mid;
  }
  flag[i] = !(lo < m && b[lo].publication == x.publication && b[lo].subscription == x.subscription);
}

// The flagged records of a (n) then b (m), in order, to out[offset[i]] (offset: exclusive sum of the flags).
__global__ void k_compact(const PairRec* __restrict__ a, unsigned long long n, const PairRec* __restrict__ b,
                          unsigned long long m, const unsigned long long* __restrict__ flag,
                          const unsigned long long* __restrict__ offset, PairRec* __restrict__ out) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n + m && flag[i]) out[offset[i]] = i < n ? a[i] : b[i - n];
}

// ---- gpu-region ----------------------------------------------------------------------------------

template <int D, bool kWrite>
__global__ void __launch_bounds__(kThreads)
    k_region(const BoxD<D>* __restrict__ pubs, unsigned np, const BoxD<D>* __restrict__ subs, unsigned ns,
             const unsigned* __restrict__ pub_id, const unsigned* __restrict__ sub_id,
             unsigned long long* __restrict__ count, const unsigned long long* __restrict__ offset,
             PairRec* __restrict__ out) {
  __shared__ BoxD<D> tile[kTile];
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool active = i < np;
  BoxD<D> p{};
  if (active) p = pubs[i];
  unsigned long long c = 0, o = (kWrite && active) ? offset[i] : 0;
  const unsigned pid = (kWrite && active) ? pub_id[i] : 0;
  for (unsigned base = 0; base < ns; base += kTile) {
    __syncthreads();
    if (base + threadIdx.x < ns) tile[threadIdx.x] = subs[base + threadIdx.x];
    __syncthreads();
    const unsigned t = min(static_cast<unsigned>(kTile), ns - base);
    if (active)
      for (unsigned k = 0; k < t; ++k)
        if (overlap_d<D>(p, tile[k])) {
          if (kWrite)
            out[o++] = {pid, sub_id[base + k]};
          else
            ++c;
        }
  }
  if (!kWrite && active) count[i] = c;
}

// ---- gpu-grid ------------------------------------------------------------------------------------

// Entries per subscription (0 for an empty box or a wide one) and the wide flag.
template <int D>
__global__ void k_sub_cells(const BoxD<D>* __restrict__ subs, unsigned ns, DdmGrid g, unsigned* __restrict__ count,
                            unsigned char* __restrict__ wide) {
  const unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= ns) return;
  const BoxD<D> b = subs[j];
  unsigned c = 0;
  bool w = false;
  if (!empty_d<D>(b)) {
    const Span<D> s = span_d<D>(b, g);
    w = s.count > g.wide;
    c = w ? 0u : static_cast<unsigned>(s.count);
  }
  count[j] = c;
  wide[j] = w ? 1 : 0;
}

template <int D>
__global__ void k_sub_write(const BoxD<D>* __restrict__ subs, unsigned ns, DdmGrid g,
                            const unsigned* __restrict__ count, const unsigned* __restrict__ offset,
                            unsigned* __restrict__ key, unsigned* __restrict__ val) {
  const unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= ns || count[j] == 0) return;
  const Span<D> s = span_d<D>(subs[j], g);
  unsigned o = offset[j];
  for (int z = s.lo[2]; z <= s.hi[2]; ++z)
    for (int y = s.lo[1]; y <= s.hi[1]; ++y)
      for (int x = s.lo[0]; x <= s.hi[0]; ++x) {
        key[o] = cell_key(x, y, z, g);
        val[o] = j;
        ++o;
      }
}

__global__ void k_iota(unsigned* __restrict__ v, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = i;
}

template <int D, bool kWrite>
__global__ void k_grid(const BoxD<D>* __restrict__ pubs, unsigned np, const BoxD<D>* __restrict__ subs, unsigned ns,
                       const unsigned* __restrict__ pub_id, const unsigned* __restrict__ sub_id, DdmGrid g,
                       const unsigned* __restrict__ start, const unsigned* __restrict__ entry_sub,
                       const unsigned* __restrict__ wide_subs, unsigned n_wide, unsigned long long* __restrict__ count,
                       const unsigned long long* __restrict__ offset, unsigned long long* __restrict__ out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= np) return;
  const BoxD<D> p = pubs[i];
  unsigned long long c = 0, o = kWrite ? offset[i] : 0;
  const unsigned long long pid = kWrite ? static_cast<unsigned long long>(pub_id[i]) << 32 : 0;
  const auto emit = [&](unsigned j) {
    if (kWrite)
      out[o++] = pid | sub_id[j];
    else
      ++c;
  };
  if (!empty_d<D>(p)) {
    const Span<D> s = span_d<D>(p, g);
    if (s.count > g.wide) {  // a wide publication: every subscription
      for (unsigned j = 0; j < ns; ++j)
        if (overlap_d<D>(p, subs[j])) emit(j);
    } else {
      for (int z = s.lo[2]; z <= s.hi[2]; ++z)
        for (int y = s.lo[1]; y <= s.hi[1]; ++y)
          for (int x = s.lo[0]; x <= s.hi[0]; ++x) {
            const unsigned key = cell_key(x, y, z, g);
            for (unsigned k = start[key], e = start[key + 1]; k < e; ++k) {
              const unsigned j = entry_sub[k];
              const BoxD<D> b = subs[j];
              if (!overlap_d<D>(p, b)) continue;
              // Report in the cell of the intersection's lower corner only.
              bool here = cell_d(fmaxf(p.lo[0], b.lo[0]), g, 0) == x;
              if (D > 1) here = here && cell_d(fmaxf(p.lo[1], b.lo[1]), g, 1) == y;
              if (D > 2) here = here && cell_d(fmaxf(p.lo[D > 2 ? 2 : 0], b.lo[D > 2 ? 2 : 0]), g, 2) == z;
              if (here) emit(j);
            }
          }
      for (unsigned w = 0; w < n_wide; ++w) {
        const unsigned j = wide_subs[w];
        if (overlap_d<D>(p, subs[j])) emit(j);
      }
    }
  }
  if (!kWrite) count[i] = c;
}

__global__ void k_unpack(const unsigned long long* __restrict__ key, unsigned long long n, PairRec* __restrict__ out) {
  const unsigned long long j = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < n) out[j] = {static_cast<unsigned>(key[j] >> 32), static_cast<unsigned>(key[j])};
}

}  // namespace

struct DdmDevice::Impl {
  cudaStream_t stream = nullptr;
  DdmKernel kernel{};
  int dims = 2;
  DeviceBuffer<float> pub_boxes, sub_boxes;
  DeviceBuffer<unsigned> pub_id, sub_id;
  DeviceBuffer<unsigned long long> count, offset, keys, keys_sorted;
  DeviceBuffer<PairRec> pairs;
  unsigned long long total = 0;
  // match_changes: the pairs set aside by keep(), the changes (appeared then disappeared), their flags
  DeviceBuffer<PairRec> kept, changes;
  unsigned long long kept_total = 0, n_appeared = 0, n_disappeared = 0;
  DeviceBuffer<unsigned long long> flag, flag_offset;
  int id_bits = 64;  // bits of the (publication << 32 | subscription) keys that can be set
  // gpu-grid
  DeviceBuffer<unsigned> sub_count, sub_offset, entry_cell, entry_sub, entry_cell_sorted, entry_sub_sorted, start, iota,
      wide_list, wide_count;
  DeviceBuffer<unsigned char> wide;
  DeviceBuffer<unsigned char> temp;
  cudaEvent_t ev[3] = {};
  PinnedBuffer pin;  // the downloads' staging
  // The ids on the device are those of ids_version (np and ns of them) when ids_current: match() then
  // uploads the boxes only.
  bool ids_current = false;
  std::uint64_t ids_version = 0;
  std::size_t ids_np = 0, ids_ns = 0;

  ~Impl() {
    for (cudaEvent_t e : ev)
      if (e) cudaEventDestroy(e);
  }
  template <int D>
  Status run(unsigned np, unsigned ns, const DdmGrid& g);
};

template <int D>
Status DdmDevice::Impl::run(unsigned np, unsigned ns, const DdmGrid& g) {
  cudaStream_t s = stream;
  Status err;
  const auto* pubs = reinterpret_cast<const BoxD<D>*>(pub_boxes.get());
  const auto* subs = reinterpret_cast<const BoxD<D>*>(sub_boxes.get());
  if (!(err = count.reserve(std::size_t{np} + 1)).ok()) return err;
  if (!(err = offset.reserve(std::size_t{np} + 1)).ok()) return err;
  if (kernel == DdmKernel::Region) {
    if (np > 0) {
      k_region<D, false><<<blocks_for<kThreads>(np), kThreads, 0, s>>>(pubs, np, subs, ns, nullptr, nullptr,
                                                                       count.get(), nullptr, nullptr);
      WM_CUDA_LAUNCH(k_region);
    }
    WM_CUDA(cudaMemsetAsync(count.get() + np, 0, sizeof(unsigned long long), s));
    if (!(err = exclusive_scan(count.get(), offset.get(), std::size_t{np} + 1, temp, stream, &total)).ok()) return err;
    if (!(err = pairs.reserve(std::max<unsigned long long>(total, 1))).ok()) return err;
    if (np > 0) {
      k_region<D, true><<<blocks_for<kThreads>(np), kThreads, 0, s>>>(pubs, np, subs, ns, pub_id.get(), sub_id.get(),
                                                                      nullptr, offset.get(), pairs.get());
      WM_CUDA_LAUNCH(k_region);
    }
    return Status::Ok();
  }
  // gpu-grid: subscriptions into cell lists.
  if (static_cast<unsigned long long>(ns) * g.wide > static_cast<unsigned long long>(INT32_MAX))
    return Status::Invalid("gpu-grid: too many subscriptions for the cell lists (subscriptions x wide >= 2^31)");
  const std::size_t scap = std::size_t{ns} + 1;
  for (DeviceBuffer<unsigned>* b : {&sub_count, &sub_offset, &iota, &wide_list})
    if (!(err = b->reserve(scap)).ok()) return err;
  if (!(err = wide.reserve(scap)).ok()) return err;
  if (!(err = wide_count.reserve(1)).ok()) return err;
  const unsigned cells = static_cast<unsigned>(g.cells[0]) * g.cells[1] * g.cells[2];
  if (!(err = start.reserve(std::size_t{cells} + 1)).ok()) return err;
  if (ns > 0) {
    k_sub_cells<D><<<blocks_for<kThreads>(ns), kThreads, 0, s>>>(subs, ns, g, sub_count.get(), wide.get());
    WM_CUDA_LAUNCH(k_sub_cells);
  }
  WM_CUDA(cudaMemsetAsync(sub_count.get() + ns, 0, sizeof(unsigned), s));
  unsigned entries = 0;
  if (!(err = exclusive_scan(sub_count.get(), sub_offset.get(), scap, temp, stream, &entries)).ok()) return err;
  const std::size_t ecap = std::max<std::size_t>(entries, 1);
  for (DeviceBuffer<unsigned>* b : {&entry_cell, &entry_sub, &entry_cell_sorted, &entry_sub_sorted})
    if (!(err = b->reserve(ecap)).ok()) return err;
  if (ns > 0) {
    k_sub_write<D><<<blocks_for<kThreads>(ns), kThreads, 0, s>>>(subs, ns, g, sub_count.get(), sub_offset.get(),
                                                                 entry_cell.get(), entry_sub.get());
    WM_CUDA_LAUNCH(k_sub_write);
  }
  WM_RETURN_IF_ERROR(sort_pairs(entry_cell.get(), entry_cell_sorted.get(), entry_sub.get(), entry_sub_sorted.get(),
                                entries, temp, s, 0, bits_for(cells)));
  k_run_starts<<<blocks_for<kThreads>(std::size_t{cells} + 1), kThreads, 0, s>>>(entries, cells,
                                                                                 entry_cell_sorted.get(), start.get());
  WM_CUDA_LAUNCH(k_run_starts);
  // The wide subscriptions, in index order.
  unsigned n_wide = 0;
  if (ns > 0) {
    k_iota<<<blocks_for<kThreads>(ns), kThreads, 0, s>>>(iota.get(), ns);
    WM_CUDA_LAUNCH(k_iota);
    WM_RETURN_IF_ERROR(select_flagged(iota.get(), wide.get(), wide_list.get(), wide_count.get(), ns, temp, s));
    WM_CUDA(cudaMemcpyAsync(&n_wide, wide_count.get(), sizeof(unsigned), cudaMemcpyDeviceToHost, s));
    WM_CUDA(cudaStreamSynchronize(s));
  }
  // Publications: count, scan, write keys, sort, unpack.
  if (np > 0) {
    k_grid<D, false><<<blocks_for<kThreads>(np), kThreads, 0, s>>>(pubs, np, subs, ns, nullptr, nullptr, g, start.get(),
                                                                   entry_sub_sorted.get(), wide_list.get(), n_wide,
                                                                   count.get(), nullptr, nullptr);
    WM_CUDA_LAUNCH(k_grid);
  }
  WM_CUDA(cudaMemsetAsync(count.get() + np, 0, sizeof(unsigned long long), s));
  if (!(err = exclusive_scan(count.get(), offset.get(), std::size_t{np} + 1, temp, stream, &total)).ok()) return err;
  if (total > static_cast<unsigned long long>(INT32_MAX))
    return Status::Invalid("gpu-grid: more than 2^31 - 1 pairs (its sort is limited to that); use gpu-region");
  const std::size_t pcap = std::max<unsigned long long>(total, 1);
  for (DeviceBuffer<unsigned long long>* b : {&keys, &keys_sorted})
    if (!(err = b->reserve(pcap)).ok()) return err;
  if (!(err = pairs.reserve(pcap)).ok()) return err;
  if (np > 0) {
    k_grid<D, true><<<blocks_for<kThreads>(np), kThreads, 0, s>>>(pubs, np, subs, ns, pub_id.get(), sub_id.get(), g,
                                                                  start.get(), entry_sub_sorted.get(), wide_list.get(),
                                                                  n_wide, nullptr, offset.get(), keys.get());
    WM_CUDA_LAUNCH(k_grid);
  }
  WM_RETURN_IF_ERROR(sort_keys(keys.get(), keys_sorted.get(), total, temp, s, 0, id_bits));
  if (total > 0) {
    k_unpack<<<blocks_for<kThreads>(total), kThreads, 0, s>>>(keys_sorted.get(), total, pairs.get());
    WM_CUDA_LAUNCH(k_unpack);
  }
  return Status::Ok();
}

Status DdmDevice::create(void* stream, DdmKernel kernel, int dims, std::unique_ptr<DdmDevice>& out) {
  if (dims != 2 && dims != 3) return Status::Invalid("ddm: 2 or 3 dimensions");
  std::unique_ptr<DdmDevice> d(new DdmDevice());
  d->impl_ = std::make_unique<Impl>();
  Impl& im = *d->impl_;
  im.stream = static_cast<cudaStream_t>(stream);
  im.kernel = kernel;
  im.dims = dims;
  for (cudaEvent_t& e : im.ev) WM_CUDA(cudaEventCreate(&e));
  out = std::move(d);
  return Status::Ok();
}

DdmDevice::~DdmDevice() = default;

// Portable: page-locked for every device's context, whichever thread (and current device) allocates it.
// A failed allocation is taken off the runtime's last error, so no later launch check reports it again.
Status ddm_host_alloc(std::size_t bytes, void** out) {
  *out = nullptr;
  void* p = nullptr;
  const cudaError_t e = cudaHostAlloc(&p, bytes, cudaHostAllocPortable);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return cuda_status(e, "cudaHostAlloc", __FILE__, __LINE__);
  }
  *out = p;
  return Status::Ok();
}

void ddm_host_free(void* p) {
  if (p) cudaFreeHost(p);
}

Status DdmDevice::match(const DdmRegions& r, const DdmGrid& grid, std::size_t& pairs, DdmTimes& times) {
  Impl& im = *impl_;
  cudaStream_t s = im.stream;
  const std::size_t np = r.np, ns = r.ns;
  if (np >= (std::size_t{1} << 31) || ns >= (std::size_t{1} << 31))
    return Status::Invalid("ddm: at most 2^31 - 1 regions of a kind");
  if (grid.cells[0] < 1 || grid.cells[1] < 1 || grid.cells[2] < 1 ||
      static_cast<double>(grid.cells[0]) * grid.cells[1] * grid.cells[2] >= 4294967295.0)
    return Status::Invalid("ddm: bad grid");
  for (int k = 0; k < 3; ++k)
    if (!(grid.cell[k] > 0) || !std::isfinite(grid.cell[k]) || !std::isfinite(grid.origin[k]))
      return Status::Invalid("ddm: bad grid");
  im.id_bits = 32 + bits_for(np > 0 ? static_cast<unsigned long long>(r.pub_ids[np - 1]) + 1 : 1);
  const std::size_t box_floats = 2 * static_cast<std::size_t>(im.dims);
  // The ids are still on the device when they have not changed since the last successful match and their
  // buffers were not reallocated (a buffer that grows loses its contents).
  bool ids_current = im.ids_current && im.ids_version == r.ids_version && im.ids_np == np && im.ids_ns == ns;
  im.ids_current = false;  // until this match has succeeded
  const unsigned* pub_id_before = im.pub_id.get();
  const unsigned* sub_id_before = im.sub_id.get();
  Status err;
  if (!(err = im.pub_boxes.reserve(std::max<std::size_t>(np, 1) * box_floats)).ok()) return err;
  if (!(err = im.sub_boxes.reserve(std::max<std::size_t>(ns, 1) * box_floats)).ok()) return err;
  if (!(err = im.pub_id.reserve(std::max<std::size_t>(np, 1))).ok()) return err;
  if (!(err = im.sub_id.reserve(std::max<std::size_t>(ns, 1))).ok()) return err;
  ids_current = ids_current && im.pub_id.get() == pub_id_before && im.sub_id.get() == sub_id_before;
  // Boxes (and changed ids) straight from the caller's memory: page-locked there, so no staging copy.
  const std::size_t bytes[4] = {np * box_floats * sizeof(float), ns * box_floats * sizeof(float),
                                ids_current ? 0 : np * sizeof(unsigned), ids_current ? 0 : ns * sizeof(unsigned)};
  const void* src[4] = {r.pub_boxes, r.sub_boxes, r.pub_ids, r.sub_ids};
  void* dst[4] = {im.pub_boxes.get(), im.sub_boxes.get(), im.pub_id.get(), im.sub_id.get()};
  WM_CUDA(cudaEventRecord(im.ev[0], s));
  for (int k = 0; k < 4; ++k)
    if (bytes[k]) WM_CUDA(cudaMemcpyAsync(dst[k], src[k], bytes[k], cudaMemcpyHostToDevice, s));
  WM_CUDA(cudaEventRecord(im.ev[1], s));
  err = im.dims == 2 ? im.run<2>(static_cast<unsigned>(np), static_cast<unsigned>(ns), grid)
                     : im.run<3>(static_cast<unsigned>(np), static_cast<unsigned>(ns), grid);
  if (!err.ok()) return err;
  WM_CUDA(cudaEventRecord(im.ev[2], s));
  WM_CUDA(cudaStreamSynchronize(s));
  float up = 0, run = 0;
  WM_CUDA(cudaEventElapsedTime(&up, im.ev[0], im.ev[1]));
  WM_CUDA(cudaEventElapsedTime(&run, im.ev[1], im.ev[2]));
  times.upload = up;
  times.match = run;
  pairs = im.total;
  im.ids_current = true;
  im.ids_version = r.ids_version;
  im.ids_np = np;
  im.ids_ns = ns;
  return Status::Ok();
}

Status DdmDevice::download(const std::uint32_t** out, DdmTimes& times) {
  Impl& im = *impl_;
  cudaStream_t s = im.stream;
  const std::size_t bytes = im.total * sizeof(PairRec);
  Status err = im.pin.reserve(std::max<std::size_t>(bytes, 1));
  if (!err.ok()) return err;
  WM_CUDA(cudaEventRecord(im.ev[0], s));
  if (bytes) WM_CUDA(cudaMemcpyAsync(im.pin.get(), im.pairs.get(), bytes, cudaMemcpyDeviceToHost, s));
  WM_CUDA(cudaEventRecord(im.ev[1], s));
  WM_CUDA(cudaStreamSynchronize(s));
  float ms = 0;
  WM_CUDA(cudaEventElapsedTime(&ms, im.ev[0], im.ev[1]));
  times.download = ms;
  *out = static_cast<const std::uint32_t*>(im.pin.get());
  return Status::Ok();
}

void DdmDevice::keep() {
  Impl& im = *impl_;
  im.kept.swap(im.pairs);
  im.kept_total = im.total;
  im.total = 0;
}

void DdmDevice::unkeep() {
  Impl& im = *impl_;
  im.pairs.swap(im.kept);
  im.total = im.kept_total;
}

Status DdmDevice::diff(std::size_t& appeared, std::size_t& disappeared) {
  Impl& im = *impl_;
  cudaStream_t s = im.stream;
  Status err;
  // Flags of the new pairs missing from the kept ones (appeared), then of the kept ones missing from the
  // new (disappeared), and a trailing 0: one scan places both lists, disappeared after appeared, and one
  // read-back gives both sizes.
  const unsigned long long n = im.total, m = im.kept_total;
  if (!(err = im.flag.reserve(n + m + 1)).ok()) return err;
  if (!(err = im.flag_offset.reserve(n + m + 1)).ok()) return err;
  if (!(err = im.changes.reserve(std::max<unsigned long long>(n + m, 1))).ok()) return err;
  WM_CUDA(cudaEventRecord(im.ev[0], s));
  if (n > 0) {
    k_missing<<<blocks_for<kThreads>(n), kThreads, 0, s>>>(im.pairs.get(), n, im.kept.get(), m, im.flag.get());
    WM_CUDA_LAUNCH(k_missing);
  }
  if (m > 0) {
    k_missing<<<blocks_for<kThreads>(m), kThreads, 0, s>>>(im.kept.get(), m, im.pairs.get(), n, im.flag.get() + n);
    WM_CUDA_LAUNCH(k_missing);
  }
  WM_CUDA(cudaMemsetAsync(im.flag.get() + n + m, 0, sizeof(unsigned long long), s));
  if (!(err = exclusive_scan(im.flag.get(), im.flag_offset.get(), n + m + 1, im.temp, s)).ok()) return err;
  unsigned long long found[2] = {0, 0};  // appeared, appeared + disappeared
  WM_CUDA(cudaMemcpyAsync(&found[0], im.flag_offset.get() + n, sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
  WM_CUDA(
      cudaMemcpyAsync(&found[1], im.flag_offset.get() + n + m, sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
  WM_CUDA(cudaStreamSynchronize(s));
  if (n + m > 0) {
    k_compact<<<blocks_for<kThreads>(n + m), kThreads, 0, s>>>(im.pairs.get(), n, im.kept.get(), m, im.flag.get(),
                                                               im.flag_offset.get(), im.changes.get());
    WM_CUDA_LAUNCH(k_compact);
  }
  // The compaction's end; download_changes() waits for it and adds the diff's device time to times.match.
  WM_CUDA(cudaEventRecord(im.ev[1], s));
  im.n_appeared = found[0];
  im.n_disappeared = found[1] - found[0];
  appeared = im.n_appeared;
  disappeared = im.n_disappeared;
  return Status::Ok();
}

Status DdmDevice::download_changes(const std::uint32_t** appeared, const std::uint32_t** disappeared, DdmTimes& times) {
  Impl& im = *impl_;
  cudaStream_t s = im.stream;
  const std::size_t n = im.n_appeared + im.n_disappeared, bytes = n * sizeof(PairRec);
  Status err = im.pin.reserve(std::max<std::size_t>(bytes, 1));
  if (!err.ok()) return err;
  if (bytes) WM_CUDA(cudaMemcpyAsync(im.pin.get(), im.changes.get(), bytes, cudaMemcpyDeviceToHost, s));
  WM_CUDA(cudaEventRecord(im.ev[2], s));
  WM_CUDA(cudaStreamSynchronize(s));
  float diff_ms = 0, ms = 0;
  WM_CUDA(cudaEventElapsedTime(&diff_ms, im.ev[0], im.ev[1]));  // diff()'s
  WM_CUDA(cudaEventElapsedTime(&ms, im.ev[1], im.ev[2]));
  times.match += diff_ms;
  times.download += ms;
  const auto* pin = static_cast<const std::uint32_t*>(im.pin.get());
  *appeared = pin;
  *disappeared = pin + 2 * im.n_appeared;
  return Status::Ok();
}

}  // namespace warpmind::gpu
