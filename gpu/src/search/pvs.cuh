// Alpha-beta by levels on the device, the eldest brother first: many searches at once (search_many), each
// node carrying its window, for one-thread rules with an alpha-beta tail (minimax.cuh's contract:
// count, expand, leaf, terminal, kMaxTail and tail(); and, below the roots, the alpha-beta's order:
//   __device__ int search_children(const Pos&, int from, int to, Pos* out) const;
//       // how many children; writes those in [from, min(to, count)) in the alpha-beta's order
// ).
//
// solve(nodes with windows (alpha, beta), r plies) gives each node a fail-soft value in its window:
//   r = 0: the leaf value; r <= the tail: the rules' alpha-beta, a thread a node;
//   else: the first child of each node is solved with the window (-beta, -alpha) — all first children at
//   once, a recursive solve; a node whose first child reaches beta is done (cut off), the others' younger
//   children are then solved with the window (-beta, -max(alpha, best)), and each node's value is the
//   max of -child over what was searched. At the roots every child is made at once, in the game's order
//   (the best move's tie rule), and the younger ones are solved together; below them a child is made
//   only when it is searched, and the younger children of the nodes not yet cut off are searched in
//   rounds: the second alone, the third and fourth together, then the rest. This is sequential alpha-beta except that a node's younger children do not see each
//   other's values, only the eldest's: the values stay fail-soft correct (each child's window is at least
//   as wide as the sequential search would give it), and with the full window at the roots they are the
//   negamax values. The cost is 2^(r - tail) solves, each a few launches and two host reads of a count.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/buffer.cuh"
#include "core/check.cuh"
#include "core/primitives.cuh"
#include "search/alphabeta.h"
#include "search/minimax.cuh"

namespace warpmind::gpu {

namespace pvs_detail {

using minimax_detail::parent_of;

template <class Pos, class R>
__global__ void k_leaves(R rules, const Pos* __restrict__ pos, unsigned long long n, int ply, int* __restrict__ value) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) value[i] = rules.leaf(pos[i], ply);
}

template <class Pos, class R>
__global__ void k_tails(R rules, const Pos* __restrict__ pos, const int* __restrict__ alpha,
                        const int* __restrict__ beta, unsigned long long n, int plies, int ply, int* __restrict__ value,
                        unsigned long long* __restrict__ nodes) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::uint64_t visited = 0;
  if (i < n) value[i] = rules.tail(pos[i], plies, ply, alpha[i], beta[i], visited);
  unsigned long long c = visited;
  for (int d = 16; d > 0; d >>= 1) c += __shfl_down_sync(0xffffffffu, c, d);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(nodes, c);
}

// The first child of each node with its window (a node without children: itself, which ends at once).
template <class Pos>
__global__ void k_firsts(const Pos* __restrict__ pos, const int* __restrict__ alpha, const int* __restrict__ beta,
                         unsigned long long n, const unsigned long long* __restrict__ offset,
                         const Pos* __restrict__ child, Pos* __restrict__ fpos, int* __restrict__ fa,
                         int* __restrict__ fb) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fpos[i] = offset[i] < offset[i + 1] ? child[offset[i]] : pos[i];
  fa[i] = -beta[i];
  fb[i] = -alpha[i];
}

// After the first children: value = -first (or terminal), done when cut off or without more children;
// the window's alpha for the younger children; cval of the first children.
template <class Pos, class R>
__global__ void k_after_first(R rules, const Pos* __restrict__ pos, const int* __restrict__ alpha,
                              const int* __restrict__ beta, unsigned long long n,
                              const unsigned long long* __restrict__ offset, const int* __restrict__ fval, int ply,
                              int* __restrict__ value, int* __restrict__ next_alpha, unsigned char* __restrict__ done,
                              int* __restrict__ cval) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned long long a = offset[i], b = offset[i + 1];
  if (a == b) {
    value[i] = rules.terminal(pos[i], ply);
    done[i] = 1;
    return;
  }
  const int best = -fval[i];
  cval[a] = fval[i];
  value[i] = best;
  next_alpha[i] = best > alpha[i] ? best : alpha[i];
  done[i] = best >= beta[i] || b - a == 1;
}

// flag[j] = 1 for a younger child of a node not done (flag[children] = 0, the scan's total); the younger
// children's cval start at INT_MAX (never the best), the searched ones get theirs in k_rest_fold.
template <class Pos>
__global__ void k_rest_flags(unsigned long long n, const unsigned long long* __restrict__ offset,
                             const unsigned char* __restrict__ done, unsigned long long children,
                             unsigned* __restrict__ flag, int* __restrict__ cval) {
  const unsigned long long j = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j > children) return;
  if (j == children) {
    flag[j] = 0;
    return;
  }
  const unsigned long long p = parent_of(offset, n, j);
  if (j == offset[p]) {
    flag[j] = 0;
    return;
  }
  flag[j] = done[p] ? 0u : 1u;
  cval[j] = INT_MAX;
}

template <class T>
__global__ void k_fill(T* __restrict__ p, unsigned long long n, T v) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}

template <class Pos>
__global__ void k_rest_gather(const Pos* __restrict__ child, unsigned long long n,
                              const unsigned long long* __restrict__ offset, const unsigned* __restrict__ flag,
                              const unsigned* __restrict__ rank, unsigned long long children,
                              const int* __restrict__ beta, const int* __restrict__ next_alpha, Pos* __restrict__ rpos,
                              int* __restrict__ ra, int* __restrict__ rb, unsigned long long* __restrict__ rchild) {
  const unsigned long long j = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= children || !flag[j]) return;
  const unsigned long long p = parent_of(offset, n, j), k = rank[j];
  rpos[k] = child[j];
  ra[k] = -beta[p];
  rb[k] = -next_alpha[p];
  rchild[k] = j;
}

// value[parent] = max(value, -rest); cval of the younger children.
template <class Pos>
__global__ void k_rest_fold(unsigned long long rn, const unsigned long long* __restrict__ rchild,
                            const int* __restrict__ rval, unsigned long long n,
                            const unsigned long long* __restrict__ offset, int* __restrict__ value,
                            int* __restrict__ cval) {
  const unsigned long long k = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= rn) return;
  const unsigned long long j = rchild[k];
  cval[j] = rval[k];
  atomicMax(value + parent_of(offset, n, j), -rval[k]);
}

// Below the roots: count[i] = node i's children, fpos[i] = its eldest (itself when it has none, whose
// search ends at once) with the window (-beta, -alpha); `made` += the eldest children made.
template <class Pos, class R>
__global__ void k_eldest(R rules, const Pos* __restrict__ pos, const int* __restrict__ alpha,
                         const int* __restrict__ beta, unsigned long long n, unsigned long long* __restrict__ count,
                         Pos* __restrict__ fpos, int* __restrict__ fa, int* __restrict__ fb,
                         unsigned long long* __restrict__ made) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned long long c = 0;
  if (i < n) {
    const int k = rules.search_children(pos[i], 0, 1, fpos + i);
    if (k == 0) fpos[i] = pos[i];
    count[i] = static_cast<unsigned long long>(k);
    fa[i] = -beta[i];
    fb[i] = -alpha[i];
    c = k > 0;
  }
  for (int d = 16; d > 0; d >>= 1) c += __shfl_down_sync(0xffffffffu, c, d);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(made, c);
}

// After the eldest children: value = -eldest (terminal without children), the younger children's
// alpha, and done (cut off, or no more children).
template <class Pos, class R>
__global__ void k_after_eldest(R rules, const Pos* __restrict__ pos, const int* __restrict__ alpha,
                               const int* __restrict__ beta, unsigned long long n,
                               const unsigned long long* __restrict__ count, const int* __restrict__ fval, int ply,
                               int* __restrict__ value, int* __restrict__ next_alpha,
                               unsigned char* __restrict__ done) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (count[i] == 0) {
    value[i] = rules.terminal(pos[i], ply);
    done[i] = 1;
    return;
  }
  const int best = -fval[i];
  value[i] = best;
  next_alpha[i] = best > alpha[i] ? best : alpha[i];
  done[i] = best >= beta[i] || count[i] == 1;
}

// A round of younger children: take[i] = how many node i searches now, children [from, from + take)
// (none when done; at most `width`); take[n] = 0 (the scan's total).
__global__ inline void k_round_take(unsigned long long n, const unsigned long long* __restrict__ count,
                                    const unsigned char* __restrict__ done, unsigned long long from,
                                    unsigned long long width, unsigned long long* __restrict__ take) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i > n) return;
  take[i] = i == n || done[i] ? 0 : (count[i] - from < width ? count[i] - from : width);
}

// The round's children of node i at roffset[i], each with the window (-beta, -next_alpha).
template <class Pos, class R>
__global__ void k_round_make(R rules, const Pos* __restrict__ pos, const int* __restrict__ beta,
                             const int* __restrict__ next_alpha, unsigned long long n, unsigned long long from,
                             const unsigned long long* __restrict__ roffset, Pos* __restrict__ rpos,
                             int* __restrict__ ra, int* __restrict__ rb) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned long long a = roffset[i], b = roffset[i + 1];
  if (a == b) return;
  (void)rules.search_children(pos[i], static_cast<int>(from), static_cast<int>(from + (b - a)), rpos + a);
  for (unsigned long long j = a; j < b; ++j) {
    ra[j] = -beta[i];
    rb[j] = -next_alpha[i];
  }
}

// value[parent] = max(value, -child) over the round's children.
__global__ inline void k_round_fold(unsigned long long rn, const int* __restrict__ rval, unsigned long long n,
                                    const unsigned long long* __restrict__ roffset, int* __restrict__ value) {
  const unsigned long long k = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < rn) atomicMax(value + parent_of(roffset, n, k), -rval[k]);
}

// After a round that searched children up to `searched`: the next alpha, and done (cut off or no more).
__global__ inline void k_round_after(unsigned long long n, const int* __restrict__ value, const int* __restrict__ alpha,
                                     const int* __restrict__ beta, const unsigned long long* __restrict__ count,
                                     unsigned long long searched, int* __restrict__ next_alpha,
                                     unsigned char* __restrict__ done) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n || done[i]) return;
  next_alpha[i] = value[i] > alpha[i] ? value[i] : alpha[i];
  done[i] = value[i] >= beta[i] || count[i] <= searched;
}

}  // namespace pvs_detail

template <class Pos>
class WindowedSearch {
 public:
  // values[i] (device) = the negamax value of roots[i] (host) searched `depth` plies (1..), the last `tail`
  // (1..rules' kMaxTail, < depth) by the rules' alpha-beta a thread a node; best[i] = the index of its
  // first best child in the rules' order (-1: none). nodes += every node visited, ms += device time.
  template <class R>
  Status run(const R& rules, const Pos* roots, std::size_t n, int depth, int tail, cudaStream_t s, int* values,
             int* best, std::uint64_t& nodes, double& ms) {
    if (n == 0) return Status::Ok();
    if (depth < 1 || depth > 32) return Status::Invalid("windowed search: depth must be 1..32");
    if (tail < 0 || tail >= depth || tail > minimax_detail::MaxTail<R>::value)
      return Status::Invalid("windowed search: tail must be 0.." + std::to_string(depth - 1));
    if (!ev_[0]) {
      for (cudaEvent_t& e : ev_) WM_CUDA(cudaEventCreate(&e));
    }
    tail_ = tail;
    visited_ = 0;
    (void)cudaGetLastError();  // a failed allocation of an earlier call would read as this call's launch error
    WM_RETURN_IF_ERROR(root_pos_.reserve(n));
    WM_RETURN_IF_ERROR(root_alpha_.reserve(n));
    WM_RETURN_IF_ERROR(root_beta_.reserve(n));
    WM_RETURN_IF_ERROR(root_value_.reserve(n));
    WM_RETURN_IF_ERROR(best_.reserve(n));
    WM_RETURN_IF_ERROR(device_nodes_.reserve(1));
    WM_CUDA(cudaEventRecord(ev_[0], s));
    WM_CUDA(cudaMemcpyAsync(root_pos_.get(), roots, n * sizeof(Pos), cudaMemcpyHostToDevice, s));
    fill(root_alpha_.get(), n, -search::kAlphaBetaInfinity, s);
    fill(root_beta_.get(), n, search::kAlphaBetaInfinity, s);
    WM_CUDA_LAUNCH(k_fill);
    WM_CUDA(cudaMemsetAsync(device_nodes_.get(), 0, sizeof(unsigned long long), s));
    WM_RETURN_IF_ERROR(
        solve(rules, 0, root_pos_.get(), root_alpha_.get(), root_beta_.get(), n, depth, 0, root_value_.get(), s));
    Level& top = *levels_[0];  // the roots' children and their values (cval)
    minimax_detail::k_best<<<blocks(n), kThreads, 0, s>>>(n, top.offset.get(), top.cval.get(), best_.get());
    WM_CUDA_LAUNCH(k_best);
    WM_CUDA(cudaMemcpyAsync(values, root_value_.get(), n * sizeof(int), cudaMemcpyDeviceToHost, s));
    WM_CUDA(cudaMemcpyAsync(best, best_.get(), n * sizeof(int), cudaMemcpyDeviceToHost, s));
    unsigned long long device_nodes = 0;
    WM_CUDA(cudaMemcpyAsync(&device_nodes, device_nodes_.get(), sizeof device_nodes, cudaMemcpyDeviceToHost, s));
    WM_CUDA(cudaEventRecord(ev_[1], s));
    WM_CUDA(cudaStreamSynchronize(s));
    float t = 0;
    WM_CUDA(cudaEventElapsedTime(&t, ev_[0], ev_[1]));
    ms += t;
    nodes += n + visited_ + device_nodes;
    return Status::Ok();
  }

  ~WindowedSearch() {
    for (cudaEvent_t e : ev_)
      if (e) cudaEventDestroy(e);
  }

 private:
  static constexpr int kThreads = minimax_detail::kThreads;
  static unsigned blocks(unsigned long long n) { return minimax_detail::blocks(n); }

  // One solve's buffers (a solve at recursion depth k uses levels_[k]; its two sub-solves run one after
  // the other at k + 1).
  struct Level {
    DeviceBuffer<unsigned long long> count, offset, rchild;
    DeviceBuffer<Pos> child, fpos, rpos;
    DeviceBuffer<int> fa, fb, fval, next_alpha, cval, ra, rb, rval;
    DeviceBuffer<unsigned char> done;
    DeviceBuffer<unsigned> flag, rank;
  };

  static void fill(int* p, std::size_t n, int v, cudaStream_t s) {
    pvs_detail::k_fill<int><<<blocks(n), kThreads, 0, s>>>(p, n, v);
  }

  // At most this many nodes are expanded at once below the roots (their children, some 35 each in chess,
  // take ~100 bytes apiece with their buffers): a larger set is solved in slices, one after the other
  // (its nodes are independent, each with its own window).
  static constexpr unsigned long long kSlice = 1ull << 20;

  template <class R>
  Status solve(const R& rules, std::size_t k, const Pos* pos, const int* alpha, const int* beta, unsigned long long n,
               int r, int ply, int* value, cudaStream_t s) {
    using namespace pvs_detail;
    if (n == 0) return Status::Ok();
    if (k > 0 && n > kSlice && r > tail_) {
      for (unsigned long long a = 0; a < n; a += kSlice)
        WM_RETURN_IF_ERROR(
            solve(rules, k, pos + a, alpha + a, beta + a, std::min(kSlice, n - a), r, ply, value + a, s));
      return Status::Ok();
    }
    if (r == 0) {
      k_leaves<Pos, R><<<blocks(n), kThreads, 0, s>>>(rules, pos, n, ply, value);
      WM_CUDA_LAUNCH(k_leaves);
      return Status::Ok();
    }
    if constexpr (minimax_detail::MaxTail<R>::value > 0) {
      if (r <= tail_) {
        k_tails<Pos, R><<<blocks(n), kThreads, 0, s>>>(rules, pos, alpha, beta, n, r, ply, value, device_nodes_.get());
        WM_CUDA_LAUNCH(k_tails);
        return Status::Ok();
      }
    }
    while (levels_.size() <= k) levels_.push_back(std::make_unique<Level>());
    if (k > 0) return solve_below(rules, k, pos, alpha, beta, n, r, ply, value, s);
    Level& L = *levels_[k];
    WM_RETURN_IF_ERROR(L.count.reserve(n + 1));
    WM_RETURN_IF_ERROR(L.offset.reserve(n + 1));
    minimax_detail::k_count<Pos, R><<<blocks(n), kThreads, 0, s>>>(rules, pos, n, L.count.get());
    WM_CUDA_LAUNCH(k_count);
    WM_CUDA(cudaMemsetAsync(L.count.get() + n, 0, sizeof(unsigned long long), s));
    unsigned long long children = 0;
    WM_RETURN_IF_ERROR(exclusive_scan(L.count.get(), L.offset.get(), n + 1, temp_, s, &children));
    if (children >= (1ull << 32)) return Status::OutOfMemory("windowed search: a level of over 4 G nodes");
    WM_RETURN_IF_ERROR(L.child.reserve(std::max<unsigned long long>(children, 1)));
    WM_RETURN_IF_ERROR(L.cval.reserve(std::max<unsigned long long>(children, 1)));
    // The roots' children, all of them, in the game's order: the result's tie rule.
    minimax_detail::k_expand<Pos, R><<<blocks(n), kThreads, 0, s>>>(rules, pos, n, L.offset.get(), L.child.get());
    WM_CUDA_LAUNCH(k_expand);
    visited_ += children;
    // The eldest children, all at once.
    WM_RETURN_IF_ERROR(L.fpos.reserve(n));
    WM_RETURN_IF_ERROR(L.fa.reserve(n));
    WM_RETURN_IF_ERROR(L.fb.reserve(n));
    WM_RETURN_IF_ERROR(L.fval.reserve(n));
    WM_RETURN_IF_ERROR(L.next_alpha.reserve(n));
    WM_RETURN_IF_ERROR(L.done.reserve(n));
    k_firsts<Pos><<<blocks(n), kThreads, 0, s>>>(pos, alpha, beta, n, L.offset.get(), L.child.get(), L.fpos.get(),
                                                 L.fa.get(), L.fb.get());
    WM_CUDA_LAUNCH(k_firsts);
    WM_RETURN_IF_ERROR(solve(rules, k + 1, L.fpos.get(), L.fa.get(), L.fb.get(), n, r - 1, ply + 1, L.fval.get(), s));
    k_after_first<Pos, R><<<blocks(n), kThreads, 0, s>>>(rules, pos, alpha, beta, n, L.offset.get(), L.fval.get(), ply,
                                                         value, L.next_alpha.get(), L.done.get(), L.cval.get());
    WM_CUDA_LAUNCH(k_after_first);
    // The younger children of the nodes not cut off, together, with the eldest's bound.
    WM_RETURN_IF_ERROR(L.flag.reserve(children + 1));
    WM_RETURN_IF_ERROR(L.rank.reserve(children + 1));
    k_rest_flags<Pos><<<blocks(children + 1), kThreads, 0, s>>>(n, L.offset.get(), L.done.get(), children, L.flag.get(),
                                                                L.cval.get());
    WM_CUDA_LAUNCH(k_rest_flags);
    unsigned rest = 0;
    WM_RETURN_IF_ERROR(exclusive_scan(L.flag.get(), L.rank.get(), children + 1, temp_, s, &rest));
    if (rest == 0) return Status::Ok();
    WM_RETURN_IF_ERROR(L.rpos.reserve(rest));
    WM_RETURN_IF_ERROR(L.ra.reserve(rest));
    WM_RETURN_IF_ERROR(L.rb.reserve(rest));
    WM_RETURN_IF_ERROR(L.rval.reserve(rest));
    WM_RETURN_IF_ERROR(L.rchild.reserve(rest));
    k_rest_gather<Pos><<<blocks(children), kThreads, 0, s>>>(L.child.get(), n, L.offset.get(), L.flag.get(),
                                                             L.rank.get(), children, beta, L.next_alpha.get(),
                                                             L.rpos.get(), L.ra.get(), L.rb.get(), L.rchild.get());
    WM_CUDA_LAUNCH(k_rest_gather);
    WM_RETURN_IF_ERROR(
        solve(rules, k + 1, L.rpos.get(), L.ra.get(), L.rb.get(), rest, r - 1, ply + 1, L.rval.get(), s));
    k_rest_fold<Pos>
        <<<blocks(rest), kThreads, 0, s>>>(rest, L.rchild.get(), L.rval.get(), n, L.offset.get(), value, L.cval.get());
    WM_CUDA_LAUNCH(k_rest_fold);
    return Status::Ok();
  }

  // solve() below the roots (k > 0): the eldest children made and solved first, then the younger ones in
  // rounds — the second child alone, the third and fourth together, then all the rest — each round made
  // only for the nodes not yet cut off, with the window of what the rounds before found.
  static unsigned long long round_width(unsigned long long from) { return from < 2 ? 1 : from < 4 ? 2 : ~0ull; }
  template <class R>
  Status solve_below(const R& rules, std::size_t k, const Pos* pos, const int* alpha, const int* beta,
                     unsigned long long n, int r, int ply, int* value, cudaStream_t s) {
    using namespace pvs_detail;
    Level& L = *levels_[k];
    WM_RETURN_IF_ERROR(L.count.reserve(n + 1));
    WM_RETURN_IF_ERROR(L.offset.reserve(n + 1));
    WM_RETURN_IF_ERROR(L.rchild.reserve(n + 1));
    WM_RETURN_IF_ERROR(L.fpos.reserve(n));
    WM_RETURN_IF_ERROR(L.fa.reserve(n));
    WM_RETURN_IF_ERROR(L.fb.reserve(n));
    WM_RETURN_IF_ERROR(L.fval.reserve(n));
    WM_RETURN_IF_ERROR(L.next_alpha.reserve(n));
    WM_RETURN_IF_ERROR(L.done.reserve(n));
    k_eldest<Pos, R><<<blocks(n), kThreads, 0, s>>>(rules, pos, alpha, beta, n, L.count.get(), L.fpos.get(), L.fa.get(),
                                                    L.fb.get(), device_nodes_.get());
    WM_CUDA_LAUNCH(k_eldest);
    WM_RETURN_IF_ERROR(solve(rules, k + 1, L.fpos.get(), L.fa.get(), L.fb.get(), n, r - 1, ply + 1, L.fval.get(), s));
    k_after_eldest<Pos, R><<<blocks(n), kThreads, 0, s>>>(rules, pos, alpha, beta, n, L.count.get(), L.fval.get(), ply,
                                                          value, L.next_alpha.get(), L.done.get());
    WM_CUDA_LAUNCH(k_after_eldest);
    // The rounds of younger children: rchild = how many each node takes, offset = where they go.
    for (unsigned long long from = 1;;) {
      const unsigned long long width = round_width(from);
      k_round_take<<<blocks(n + 1), kThreads, 0, s>>>(n, L.count.get(), L.done.get(), from, width, L.rchild.get());
      WM_CUDA_LAUNCH(k_round_take);
      unsigned long long made = 0;
      WM_RETURN_IF_ERROR(exclusive_scan(L.rchild.get(), L.offset.get(), n + 1, temp_, s, &made));
      if (made == 0) return Status::Ok();
      if (made >= (1ull << 32)) return Status::OutOfMemory("windowed search: a level of over 4 G nodes");
      WM_RETURN_IF_ERROR(L.rpos.reserve(made));
      WM_RETURN_IF_ERROR(L.ra.reserve(made));
      WM_RETURN_IF_ERROR(L.rb.reserve(made));
      WM_RETURN_IF_ERROR(L.rval.reserve(made));
      k_round_make<Pos, R><<<blocks(n), kThreads, 0, s>>>(rules, pos, beta, L.next_alpha.get(), n, from, L.offset.get(),
                                                          L.rpos.get(), L.ra.get(), L.rb.get());
      WM_CUDA_LAUNCH(k_round_make);
      visited_ += made;
      WM_RETURN_IF_ERROR(
          solve(rules, k + 1, L.rpos.get(), L.ra.get(), L.rb.get(), made, r - 1, ply + 1, L.rval.get(), s));
      k_round_fold<<<blocks(made), kThreads, 0, s>>>(made, L.rval.get(), n, L.offset.get(), value);
      WM_CUDA_LAUNCH(k_round_fold);
      if (width == ~0ull) return Status::Ok();  // every child is in
      from += width;
      k_round_after<<<blocks(n), kThreads, 0, s>>>(n, value, alpha, beta, L.count.get(), from, L.next_alpha.get(),
                                                   L.done.get());
      WM_CUDA_LAUNCH(k_round_after);
    }
  }

  std::vector<std::unique_ptr<Level>> levels_;
  DeviceBuffer<Pos> root_pos_;
  DeviceBuffer<int> root_alpha_, root_beta_, root_value_, best_;
  DeviceBuffer<unsigned long long> device_nodes_;  // nodes counted on the device: the tails', the eldest made
  DeviceBuffer<unsigned char> temp_;
  int tail_ = 0;
  std::uint64_t visited_ = 0;  // children made by the levels, but the eldest below the roots (device_nodes_)
  cudaEvent_t ev_[2] = {};
};

}  // namespace warpmind::gpu
