// CUDA chess perft by breadth-first levels (contract in ai/src/search/chess/chess_device.h). The rules are
// chess_rules.h, the perft generator chess_movegen.h and its table-driven count chess_sliders.h, all
// compiled for the device here and for the host by the tests.
//
// Plain perft: level k holds positions; one thread per position counts its legal moves, a CUB scan turns
// the counts into offsets, and a second pass writes the children (copy-make, 72 bytes each) into level
// k+1. The last two plies are not written: one thread per position two plies above the leaves lists its
// legal moves and, for each, counts the child's legal moves without generating them, and the counts are
// summed (warp shuffles, one atomic per warp). Lists and counts take checks, pins and the king's danger from
// magic-bitboard tables (chess_sliders.h, 897 KB copied to the device once, read through the read-only
// cache). A level whose children would not fit in the memory budget is processed in halves, depth first,
// so any depth runs in bounded memory.
//
// With the transposition table, every level computes each position's own count (the leaves below it):
//   1. probe the table (key: a 128-bit hash of the position's 72 bytes and the depth left) — a hit is the
//      count; a level's children are probed as they are made, and only the misses written;
//   2. the misses' equal positions are merged (radix sort by a 32-bit hash, runs of byte-equal positions);
//   3. each distinct miss is counted: two plies left by the two-ply kernel, else its children are written
//      (in slices that fit the budget), counted one level down, and each position's children's counts
//      summed;
//   4. the distinct misses go into the table, and every position takes its count.
// The table (buckets of four 16-byte entries in device memory) keeps a count with its depth; an insert
// takes an empty entry, else replaces the shallowest entry no deeper than its own. Entries are written
// without locks: an entry holds key ^ data beside data, so a torn or mixed write fails the key test and
// reads as a miss. The counts stay exact whatever is evicted; a false hit needs two positions to agree
// on 64 key bits and the bucket's bits at once.
#include <algorithm>
#include <vector>

#include "core/buffer.cuh"
#include "core/check.cuh"
#include "core/primitives.cuh"
#include "search/chess/chess_device.h"
#include "search/chess/chess_movegen.h"
#include "search/chess/chess_sliders.h"

namespace warpmind::gpu {

namespace chess = search::chess::rules;

namespace {

using chess::DPos;
using u64 = unsigned long long;
constexpr int kThreads = 128;
constexpr u64 kCountMask = (1ull << 56) - 1;  // an entry's data: count | depth << 56

// Legal moves counted with the slider tables (chess_sliders.h), the device's copy.
struct TableCount {
  chess::SliderTables t;
  __device__ int operator()(const DPos& p) const { return chess::count_moves(p, t); }
};

// An en passant square no pawn of the side to move attacks changes nothing below the position: cleared,
// so that positions reached by different move orders compare equal.
__device__ __forceinline__ void canonical_ep(DPos& q) {
  if (q.ep == chess::kNoSquare) return;
  const chess::Bits pawns = q.piece[chess::kPawn] & chess::side_bits(q, q.side);
  if (!(chess::pawn_attacks(q.side ^ 1, chess::bit(q.ep)) & pawns)) q.ep = chess::kNoSquare;
}

// Positions by index: in[rep[i]], or in[i] where rep is null.
__device__ __forceinline__ const DPos& at(const DPos* in, const unsigned* rep, u64 i) { return in[rep ? rep[i] : i]; }

__global__ void k_count(TableCount count, const DPos* __restrict__ in, const unsigned* __restrict__ rep, u64 n,
                        u64* __restrict__ counts) {
  const u64 i = static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) counts[i] = static_cast<u64>(count(at(in, rep, i)));
  if (i == n) counts[n] = 0;  // the scan's trailing zero
}

// The children of in[0..n), position i's from out[offset[i]] on.
__global__ void k_expand(TableCount count, const DPos* __restrict__ in, u64 n, const u64* __restrict__ offset,
                         DPos* __restrict__ out) {
  const u64 i = static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const DPos p = in[i];
  u64 o = offset[i];
  chess::for_each_legal(p, count.t, [&](std::uint32_t m) { out[o++] = chess::apply(p, m); });
}

__device__ void add_warp_total(u64 c, u64* total) {
  for (int d = 16; d > 0; d >>= 1) c += __shfl_down_sync(0xffffffffu, c, d);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(total, c);
}

// Perft 1 of every position, summed into *total.
__global__ void k_leaf_sum(TableCount count, const DPos* __restrict__ in, u64 n, u64* __restrict__ total) {
  const u64 i = static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
  add_warp_total(i < n ? static_cast<u64>(count(in[i])) : 0, total);
}

// Perft 2 of positions 0..n: into out[i], or (out null) summed into *total. The position's legal moves
// are listed, then each child's moves counted; the list keeps the warp together over the counts, which
// are most of the work. Eight blocks an SM (64 registers a thread): the counts wait on table loads, and
// more warps hide them.
__global__ void __launch_bounds__(kThreads, 8)
    k_perft2(TableCount count, const DPos* __restrict__ in, const unsigned* __restrict__ rep, u64 n,
             u64* __restrict__ out, u64* __restrict__ total) {
  const u64 i = static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
  u64 c = 0;
  if (i < n) {
    const DPos p = at(in, rep, i);
    std::uint32_t moves[chess::kMaxLegalMoves];
    int k = 0;
    chess::for_each_legal(p, count.t, [&](std::uint32_t m) { moves[k++] = m; });
    for (int j = 0; j < k; ++j) c += static_cast<u64>(count(chess::apply(p, moves[j])));
  }
  if (out) {
    if (i < n) out[i] = c;
  } else {
    add_warp_total(c, total);
  }
}

// ---- the transposition table ---------------------------------------------------------------------------

__device__ __forceinline__ u64 mix64(u64 x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

// Two independent 64-bit hashes of the position's 72 bytes and the depth left: `a` picks the bucket (low
// bits) and the merge's sort key (high 32 bits), `key` is what an entry must match.
struct Hash {
  u64 a, key;
};
__device__ __forceinline__ Hash hash_of(const DPos& p, int depth) {
  const u64* w = reinterpret_cast<const u64*>(&p);
  u64 a = 0x243f6a8885a308d3ull + static_cast<u64>(depth), b = 0x13198a2e03707344ull ^ static_cast<u64>(depth) << 40;
#pragma unroll
  for (int k = 0; k < 9; ++k) {
    a = mix64(a ^ w[k]) + static_cast<u64>(k);
    b = (b ^ w[k]) * 0x9fb21c651e98df25ull;
    b ^= b >> 28;
  }
  return {a, mix64(b) | 1};  // never 0: an empty entry (0, 0) matches no key
}

struct Table {
  ulonglong2* entry = nullptr;  // buckets of 4: {key ^ data, data}
  u64 mask = 0;                 // buckets - 1
};

// The leaves below level position i (q) from the table: a hit's count into val[i] (miss[i] = 0); a miss
// sets miss[i] = 1 and keeps the merge's sort key and the hash for the insert. Returns whether it missed.
struct Probe {
  Table t;
  int depth;
  u64* val;
  unsigned *miss, *sort_key;
  ulonglong2* hash;
  __device__ bool operator()(const DPos& q, u64 i) const {
    const Hash h = hash_of(q, depth);
    const ulonglong2* b = t.entry + (h.a & t.mask) * 4;
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      const ulonglong2 e = b[s];
      if ((e.x ^ e.y) == h.key && static_cast<int>(e.y >> 56) == depth) {
        val[i] = e.y & kCountMask;
        miss[i] = 0;
        return false;
      }
    }
    miss[i] = 1;
    sort_key[i] = static_cast<unsigned>(h.a >> 32);
    hash[i] = make_ulonglong2(h.a, h.key);
    return true;
  }
};

// Probes positions 0..n (miss[n] = 0: the scan's trailing zero).
__global__ void k_probe(Probe probe, const DPos* __restrict__ in, u64 n) {
  const u64 i = static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) probe(in[i], i);
  if (i == n) probe.miss[n] = 0;
}

// k_expand and k_probe at once: the children of positions 0..n probed as they are made, and only the
// misses written (a hit's place in `out` stays unwritten). n + 1 threads: the last one writes the scan's
// trailing zero.
__global__ void k_expand_probe(TableCount count, Probe probe, const DPos* __restrict__ in,
                               const unsigned* __restrict__ rep, u64 n, const u64* __restrict__ offset, u64 base,
                               DPos* __restrict__ out) {
  const u64 i = static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i > n) return;
  if (i == n) {
    probe.miss[offset[n] - base] = 0;
    return;
  }
  const DPos p = at(in, rep, i);
  u64 o = offset[i] - base;
  chess::for_each_legal(p, count.t, [&](std::uint32_t m) {
    DPos q = chess::apply(p, m);
    canonical_ep(q);
    if (probe(q, o)) out[o] = q;
    ++o;
  });
}

// The misses in order: mi[j] = the j-th missed position; key[j] its sort key, index[j] = j.
__global__ void k_misses(const unsigned* __restrict__ at, u64 n, const unsigned* __restrict__ sort_key,
                         unsigned* __restrict__ mi, unsigned* __restrict__ key, unsigned* __restrict__ index) {
  const u64 i = static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n || at[i + 1] == at[i]) return;
  const unsigned j = at[i];
  mi[j] = static_cast<unsigned>(i);
  key[j] = sort_key[i];
  index[j] = j;
}

// head[s] = 1 where sorted miss s starts a run of equal positions (its key and all 72 bytes equal to the
// one before; equal keys of different positions only split a run, so merging stays exact).
__global__ void k_heads(const DPos* __restrict__ in, const unsigned* __restrict__ mi, const unsigned* __restrict__ key,
                        const unsigned* __restrict__ index, u64 k, unsigned* __restrict__ head) {
  const u64 s = static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s > k) return;
  if (s == k) {
    head[s] = 0;  // the scan's trailing zero
    return;
  }
  unsigned h = s == 0 || key[s] != key[s - 1];
  if (!h) {
    const u64* a = reinterpret_cast<const u64*>(in + mi[index[s]]);
    const u64* b = reinterpret_cast<const u64*>(in + mi[index[s - 1]]);
    for (int w = 0; w < 9 && !h; ++w) h = a[w] != b[w];
  }
  head[s] = h;
}

// The distinct misses: rep[g] = the position that stands for run g (the first of the run).
__global__ void k_unique(const unsigned* __restrict__ mi, const unsigned* __restrict__ index,
                         const unsigned* __restrict__ head, const unsigned* __restrict__ run_start, u64 k,
                         unsigned* __restrict__ rep) {
  const u64 s = static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s < k && head[s]) rep[run_start[s]] = mi[index[s]];
}

// uval[i] = the sum of position i's children's counts (child_val, from offset[i] - base on).
__global__ void k_gather(const u64* __restrict__ offset, u64 base, u64 n, const u64* __restrict__ child_val,
                         u64* __restrict__ uval) {
  const u64 i = static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  u64 c = 0;
  for (u64 o = offset[i] - base, e = offset[i + 1] - base; o < e; ++o) c += child_val[o];
  uval[i] = c;
}

// Stores the distinct misses' counts (a count of 2^56 or more is not stored); hash: the probe's.
__global__ void k_insert(Table t, const ulonglong2* __restrict__ hash, const unsigned* __restrict__ rep,
                         const u64* __restrict__ uval, u64 m, int depth) {
  const u64 g = static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= m || uval[g] > kCountMask) return;
  const ulonglong2 hh = hash[rep[g]];
  const Hash h{hh.x, hh.y};
  ulonglong2* b = t.entry + (h.a & t.mask) * 4;
  int slot = 0, shallowest = 256;  // the first empty entry, else the first of the shallowest
  for (int s = 0; s < 4; ++s) {
    const ulonglong2 e = b[s];
    if ((e.x ^ e.y) == h.key && static_cast<int>(e.y >> 56) == depth) return;  // already there
    const int d = e.x == 0 && e.y == 0 ? -1 : static_cast<int>(e.y >> 56);
    if (d < shallowest) slot = s, shallowest = d;
  }
  if (shallowest > depth) return;  // every entry deeper: kept
  const u64 data = uval[g] | static_cast<u64>(depth) << 56;
  b[slot] = make_ulonglong2(h.key ^ data, data);
}

// Every missed position takes its run's count: sorted miss s belongs to run run_start[s] + head[s] - 1
// (without the merge, index null: miss s is run s).
__global__ void k_scatter(const unsigned* __restrict__ mi, const unsigned* __restrict__ index,
                          const unsigned* __restrict__ head, const unsigned* __restrict__ run_start,
                          const u64* __restrict__ uval, u64 k, u64* __restrict__ val) {
  const u64 s = static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= k) return;
  if (index)
    val[mi[index[s]]] = uval[run_start[s] + head[s] - 1];
  else
    val[mi[s]] = uval[s];
}

}  // namespace

// One level's buffers. Plain perft: pos, count, offset. With the table also: val (each position's count),
// miss / at (the probe's misses and their scan; reused as the merge's heads and run starts), sort_key
// (reused as rep, the distinct misses), hash (the misses' hashes), mi, key, key_sorted, index,
// index_sorted and uval.
struct Level {
  DeviceBuffer<DPos> pos;
  DeviceBuffer<u64> count, offset, val, uval;
  DeviceBuffer<unsigned> miss, at, sort_key, mi, key, key_sorted, index, index_sorted;
  DeviceBuffer<ulonglong2> hash;
  std::size_t bytes() const {
    std::size_t b = pos.capacity() * sizeof(DPos) + hash.capacity() * sizeof(ulonglong2);
    for (auto* x : {&count, &offset, &val, &uval}) b += x->capacity() * sizeof(u64);
    for (auto* x : {&miss, &at, &sort_key, &mi, &key, &key_sorted, &index, &index_sorted})
      b += x->capacity() * sizeof(unsigned);
    return b;
  }
};

struct ChessPerftDevice::Impl {
  cudaStream_t stream = nullptr;
  std::vector<std::unique_ptr<Level>> levels;
  DeviceBuffer<u64> total;
  DeviceBuffer<unsigned char> temp;
  DeviceBuffer<chess::Bits> slider_words;  // chess_sliders.h's tables, copied once
  Table table;
  std::size_t table_buckets = 0;  // allocated (exactly: the table is the largest buffer)
  bool last_table = false;        // the last run's kind
  TableCount count;
  std::size_t budget = 0;    // bytes of children one level may hold at once
  std::uint64_t reused = 0;  // positions whose count came from the table or an equal position, this run
  cudaEvent_t ev[2] = {};

  ~Impl() {
    for (cudaEvent_t e : ev)
      if (e) cudaEventDestroy(e);
    cudaFree(table.entry);
  }
  Level& level(std::size_t k) {
    while (levels.size() <= k) levels.push_back(std::make_unique<Level>());
    return *levels[k];
  }
  Status read(const u64* at, u64& out) {
    WM_CUDA(cudaMemcpyAsync(&out, at, sizeof out, cudaMemcpyDeviceToHost, stream));
    WM_CUDA(cudaStreamSynchronize(stream));
    return Status::Ok();
  }
  // l.count[i] = the legal moves of in[rep ? rep[i] : i] for i < n, l.offset their exclusive scan; children:
  // the sum.
  Status count_children(Level& l, const DPos* in, const unsigned* rep, u64 n, u64& children) {
    WM_RETURN_IF_ERROR(l.count.reserve(n + 1));
    WM_RETURN_IF_ERROR(l.offset.reserve(n + 1));
    k_count<<<blocks_for<kThreads>(n + 1), kThreads, 0, stream>>>(count, in, rep, n, l.count.get());
    WM_CUDA_LAUNCH(k_count);
    return exclusive_scan(l.count.get(), l.offset.get(), n + 1, temp, stream, &children);
  }
  Status plain(std::size_t k, const DPos* in, u64 n, int depth);
  Status counted(std::size_t k, const DPos* in, u64 n, int depth, bool probed = false);
  Status reserve_probe(Level& l, u64 n) {
    WM_RETURN_IF_ERROR(l.val.reserve(std::max<u64>(n, 1)));
    WM_RETURN_IF_ERROR(l.hash.reserve(std::max<u64>(n, 1)));
    for (auto* b : {&l.miss, &l.at, &l.sort_key, &l.mi}) WM_RETURN_IF_ERROR(b->reserve(n + 1));
    return Status::Ok();
  }
  Probe probe_into(Level& l, int depth) const {
    return Probe{table, depth, l.val.get(), l.miss.get(), l.sort_key.get(), l.hash.get()};
  }
  Status expand_slices(std::size_t k, const DPos* in, const unsigned* rep, u64 a, u64 b, u64 oa, u64 ob, int depth);
  std::size_t held() const {  // bytes the level buffers hold
    std::size_t b = 0;
    for (const auto& l : levels) b += l->bytes();
    return b;
  }
};

// Adds the leaves `depth` (>= 1) plies below in[0..n) to total, level k's buffers holding their counts
// and offsets. A level whose children would not fit in the budget is expanded in halves, depth first.
Status ChessPerftDevice::Impl::plain(std::size_t k, const DPos* in, u64 n, int depth) {
  cudaStream_t s = stream;
  if (n == 0) return Status::Ok();
  if (depth == 1) {
    k_leaf_sum<<<blocks_for<kThreads>(n), kThreads, 0, s>>>(count, in, n, total.get());
    WM_CUDA_LAUNCH(k_leaf_sum);
    return Status::Ok();
  }
  if (depth == 2) {
    k_perft2<<<blocks_for<kThreads>(n), kThreads, 0, s>>>(count, in, nullptr, n, nullptr, total.get());
    WM_CUDA_LAUNCH(k_perft2);
    return Status::Ok();
  }
  Level& here = level(k);
  u64 children = 0;
  WM_RETURN_IF_ERROR(count_children(here, in, nullptr, n, children));
  constexpr std::size_t per_child = sizeof(DPos) + 2 * sizeof(u64);  // its position, count and offset
  if (children * per_child > budget && n > 1) {
    const u64 half = n / 2;
    WM_RETURN_IF_ERROR(plain(k, in, half, depth));
    return plain(k, in + half, n - half, depth);
  }
  Level& next = level(k + 1);
  WM_RETURN_IF_ERROR(next.pos.reserve(std::max<u64>(children, 1)));
  k_expand<<<blocks_for<kThreads>(n), kThreads, 0, s>>>(count, in, n, here.offset.get(), next.pos.get());
  WM_CUDA_LAUNCH(k_expand);
  return plain(k + 1, next.pos.get(), children, depth - 1);
}

// Bytes a child takes at a level of the table's perft: its position, hash, count and the count of its run,
// its count and offset as a parent, and the probe's and the merge's words.
constexpr std::size_t kTableBytesPerChild = sizeof(DPos) + sizeof(ulonglong2) + 4 * sizeof(u64) + 8 * sizeof(unsigned);

// Level k's val[0..n) = the leaves `depth` (>= 2) plies below each of in[0..n). probed: the table was
// probed as the level was written (k_expand_probe; only the misses are in `in`).
Status ChessPerftDevice::Impl::counted(std::size_t k, const DPos* in, u64 n, int depth, bool probed) {
  cudaStream_t s = stream;
  Level& here = level(k);
  if (n == 0) return Status::Ok();
  if (n >= (1ull << 31)) return Status::Invalid("perft: a level slice of 2^31 positions or more");
  // 1. the table
  if (!probed) {
    WM_RETURN_IF_ERROR(reserve_probe(here, n));
    k_probe<<<blocks_for<kThreads>(n + 1), kThreads, 0, s>>>(probe_into(here, depth), in, n);
    WM_CUDA_LAUNCH(k_probe);
  }
  unsigned misses = 0;
  WM_RETURN_IF_ERROR(exclusive_scan(here.miss.get(), here.at.get(), n + 1, temp, s, &misses));
  reused += n - misses;
  if (misses == 0) return Status::Ok();
  const u64 km = misses;
  for (auto* b : {&here.key, &here.key_sorted, &here.index, &here.index_sorted}) WM_RETURN_IF_ERROR(b->reserve(km));
  k_misses<<<blocks_for<kThreads>(n), kThreads, 0, s>>>(here.at.get(), n, here.sort_key.get(), here.mi.get(),
                                                        here.key.get(), here.index.get());
  WM_CUDA_LAUNCH(k_misses);
  // 2. the misses' equal positions merged (a few thousand or more: below that, sorting costs more than it
  // saves); rep[g]: the position standing for distinct miss g
  unsigned* head = here.miss.get();  // the probe's words are done with
  unsigned* run_start = here.at.get();
  const unsigned* rep = here.mi.get();
  const unsigned* sorted = nullptr;
  unsigned distinct = misses;
  if (km >= 4096) {
    sorted = here.index_sorted.get();
    WM_RETURN_IF_ERROR(
        sort_pairs(here.key.get(), here.key_sorted.get(), here.index.get(), here.index_sorted.get(), km, temp, s));
    k_heads<<<blocks_for<kThreads>(km + 1), kThreads, 0, s>>>(in, here.mi.get(), here.key_sorted.get(), sorted, km,
                                                              head);
    WM_CUDA_LAUNCH(k_heads);
    WM_RETURN_IF_ERROR(exclusive_scan(head, run_start, km + 1, temp, s, &distinct));
    k_unique<<<blocks_for<kThreads>(km), kThreads, 0, s>>>(here.mi.get(), sorted, head, run_start, km,
                                                           here.sort_key.get());
    WM_CUDA_LAUNCH(k_unique);
    rep = here.sort_key.get();
  }
  const u64 m = distinct;
  reused += km - m;
  WM_RETURN_IF_ERROR(here.uval.reserve(m));
  // 3. the distinct misses counted
  if (depth == 2) {
    k_perft2<<<blocks_for<kThreads>(m), kThreads, 0, s>>>(count, in, rep, m, here.uval.get(), nullptr);
    WM_CUDA_LAUNCH(k_perft2);
  } else {
    u64 children = 0;
    WM_RETURN_IF_ERROR(count_children(here, in, rep, m, children));
    WM_RETURN_IF_ERROR(expand_slices(k, in, rep, 0, m, 0, children, depth));
  }
  // 4. into the table, and every position's count
  k_insert<<<blocks_for<kThreads>(m), kThreads, 0, s>>>(table, here.hash.get(), rep, here.uval.get(), m, depth);
  WM_CUDA_LAUNCH(k_insert);
  k_scatter<<<blocks_for<kThreads>(km), kThreads, 0, s>>>(here.mi.get(), sorted, head, run_start, here.uval.get(), km,
                                                          here.val.get());
  WM_CUDA_LAUNCH(k_scatter);
  return Status::Ok();
}

// Level k's uval[a..b) from the children of its distinct misses a..b (in[rep[g]], offsets oa..ob): written
// at level k+1 and counted there, in halves while they would not fit in the budget.
Status ChessPerftDevice::Impl::expand_slices(std::size_t k, const DPos* in, const unsigned* rep, u64 a, u64 b, u64 oa,
                                             u64 ob, int depth) {
  cudaStream_t s = stream;
  Level& here = level(k);
  const u64 children = ob - oa;
  if (b - a > 1 && (children * kTableBytesPerChild > budget || children >= (1ull << 31))) {
    const u64 mid = a + (b - a) / 2;
    u64 om = 0;
    WM_RETURN_IF_ERROR(read(here.offset.get() + mid, om));
    WM_RETURN_IF_ERROR(expand_slices(k, in, rep, a, mid, oa, om, depth));
    return expand_slices(k, in, rep, mid, b, om, ob, depth);
  }
  Level& next = level(k + 1);
  WM_RETURN_IF_ERROR(next.pos.reserve(std::max<u64>(children, 1)));
  WM_RETURN_IF_ERROR(reserve_probe(next, children));
  k_expand_probe<<<blocks_for<kThreads>(b - a + 1), kThreads, 0, s>>>(count, probe_into(next, depth - 1), in, rep + a,
                                                                      b - a, here.offset.get() + a, oa, next.pos.get());
  WM_CUDA_LAUNCH(k_expand_probe);
  WM_RETURN_IF_ERROR(counted(k + 1, next.pos.get(), children, depth - 1, true));
  k_gather<<<blocks_for<kThreads>(b - a), kThreads, 0, s>>>(here.offset.get() + a, oa, b - a, next.val.get(),
                                                            here.uval.get() + a);
  WM_CUDA_LAUNCH(k_gather);
  return Status::Ok();
}

Status ChessPerftDevice::create(void* stream, const chess::Bits* slider_words, std::unique_ptr<ChessPerftDevice>& out) {
  std::unique_ptr<ChessPerftDevice> d(new ChessPerftDevice());
  d->impl_ = std::make_unique<Impl>();
  Impl& im = *d->impl_;
  im.stream = static_cast<cudaStream_t>(stream);
  for (cudaEvent_t& e : im.ev) WM_CUDA(cudaEventCreate(&e));
  WM_RETURN_IF_ERROR(im.total.reserve(1));
  WM_RETURN_IF_ERROR(im.slider_words.reserve(chess::SliderTables::kWords));
  // On the run's stream, waited for: a plain copy from pageable memory may still be in flight when it
  // returns, and the stream does not wait for the legacy default stream.
  WM_CUDA(cudaMemcpyAsync(im.slider_words.get(), slider_words, chess::SliderTables::kWords * sizeof(chess::Bits),
                          cudaMemcpyHostToDevice, im.stream));
  WM_CUDA(cudaStreamSynchronize(im.stream));
  im.count = TableCount{chess::slider_tables_at(im.slider_words.get())};
  out = std::move(d);
  return Status::Ok();
}

ChessPerftDevice::~ChessPerftDevice() = default;

Status ChessPerftDevice::perft(const DPos& root, int depth, std::uint64_t& nodes, double& ms, std::size_t budget_bytes,
                               bool transposition_table, std::uint64_t* reused) {
  Impl& im = *impl_;
  cudaStream_t s = im.stream;
  if (depth < 0 || depth > 20) return Status::Invalid("perft: depth must be 0..20");
  if (depth == 0) {
    nodes = 1;
    ms = 0;
    if (reused) *reused = 0;
    return Status::Ok();
  }
  const bool table = transposition_table && depth >= 3;  // below that there is nothing to reuse
  if (table != im.last_table) {  // the other kind's buffers are sized for it: freed, for this kind to take the memory
    im.levels.clear();
    if (!table) {
      cudaFree(im.table.entry);
      im.table = {};
      im.table_buckets = 0;
    }
    im.last_table = table;
  }
  // The memory this object holds counts as free: its level buffers are reused, its table too.
  std::size_t free_bytes = 0, total_bytes = 0;
  WM_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t avail = free_bytes + im.held() + im.table_buckets * 64;
  if (table) {
    // 2^(3 depth - 1) buckets of 64 bytes, at most 2^29 (32 GiB) and 45% of that memory; the table grows,
    // never shrinks, and a run clears and uses the part it needs.
    std::size_t buckets = std::size_t{1} << std::clamp(3 * depth - 1, 6, 29);
    while (buckets > 64 && buckets * 64 > avail / 20 * 9) buckets /= 2;
    if (im.table_buckets < buckets) {
      cudaFree(im.table.entry);
      im.table = {};
      if (free_bytes + im.table_buckets * 64 < buckets * 64 + (std::size_t{1} << 30)) im.levels.clear();  // room
      im.table_buckets = 0;
      WM_CUDA(cudaMalloc(&im.table.entry, buckets * 64));
      im.table_buckets = buckets;
    }
    im.table.mask = buckets - 1;
  }
  // Plain: a level's children may take a share of the memory such that every level fits at once. With the
  // table, a level's buffers take about 1.25 x kTableBytesPerChild a child (buffers grow by a quarter), and
  // the d - 8 deepest levels (at least 2), plus one for the levels above, may be full.
  const std::size_t rest = avail - im.table_buckets * 64;
  const std::size_t full_levels = static_cast<std::size_t>(std::max(2, depth - 8)) + 1;
  im.budget = budget_bytes ? budget_bytes
              : table      ? std::max<std::size_t>(rest / 10 * 7 / full_levels, std::size_t{1} << 20)
                           : std::max<std::size_t>(rest / 2 / static_cast<std::size_t>(depth), std::size_t{1} << 20);
  Level& top = im.level(0);
  WM_RETURN_IF_ERROR(top.pos.reserve(1));
  WM_CUDA(cudaMemcpyAsync(top.pos.get(), &root, sizeof root, cudaMemcpyHostToDevice, s));
  WM_CUDA(cudaEventRecord(im.ev[0], s));
  im.reused = 0;
  if (table) {
    WM_CUDA(cudaMemsetAsync(im.table.entry, 0, (im.table.mask + 1) * 64, s));
    WM_RETURN_IF_ERROR(im.counted(0, top.pos.get(), 1, depth));
    WM_CUDA(cudaMemcpyAsync(im.total.get(), top.val.get(), sizeof(u64), cudaMemcpyDeviceToDevice, s));
  } else {
    WM_CUDA(cudaMemsetAsync(im.total.get(), 0, sizeof(u64), s));
    WM_RETURN_IF_ERROR(im.plain(0, top.pos.get(), 1, depth));
  }
  WM_CUDA(cudaEventRecord(im.ev[1], s));
  u64 total = 0;
  WM_CUDA(cudaMemcpyAsync(&total, im.total.get(), sizeof total, cudaMemcpyDeviceToHost, s));
  WM_CUDA(cudaStreamSynchronize(s));
  float t = 0;
  WM_CUDA(cudaEventElapsedTime(&t, im.ev[0], im.ev[1]));
  nodes = total;
  ms = t;
  if (reused) *reused = im.reused;
  return Status::Ok();
}

}  // namespace warpmind::gpu
