// Negamax without pruning, the whole tree on the device, for any game given as rules:
//
//   struct Rules {
//     __device__ int count(const Pos&) const;             // children of a position (0: the game is over)
//     __device__ int expand(const Pos&, Pos* out) const;  // writes them in the search's order, returns how many
//     __device__ int leaf(const Pos&, int ply) const;     // a horizon node's value (terminal or evaluated)
//     __device__ int terminal(const Pos&, int ply) const; // a node without children above the horizon
//   };
//
// Rules may instead work a warp per node (a whole warp computes one node's children or value, for games
// whose move generation is long for one thread): they then declare
//     static constexpr bool kWarpPerNode = true;  using Scratch = ...;  (shared memory of one warp)
//     __device__ int count_warp(const Pos&, Scratch&, int lane) const;          // every lane returns it
//     __device__ void expand_warp(const Pos&, Pos* out, Scratch&, int lane) const;
//     __device__ int leaf_warp(const Pos&, int ply, Scratch&, int lane) const;  // every lane returns it
// beside terminal().
//
// One-thread rules may also search the last plies of every tree by alpha-beta, one thread a horizon node
// (search/alphabeta.h: far fewer nodes than the full width), declaring
//     static constexpr int kMaxTail = ...;  (the most plies they search so)
//     __device__ int tail(const Pos&, int plies, int ply, int alpha, int beta, std::uint64_t& nodes) const;
// (fail-soft in the window (alpha, beta)). In two passes: the first child of every node above the horizon
// with the full window, then its siblings with the window (-inf, first child's value) — a sibling that
// does not come out below it cannot be its parent's best child, and is cut off early.
//
// Level by level: count the children of every node (one thread a node), scan, write them (copy-make);
// then score the horizon and reduce the values back up, value = max over the children of -child (the
// negamax of the serial search). One launch per level and pass, whatever the tree's width: the host
// sees only the root's value and its children's values. run_many() does the same for a batch of roots
// at once (the subtrees under a host search's horizon): the host sees one value per root.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/buffer.cuh"
#include "core/check.cuh"
#include "core/primitives.cuh"
#include "search/alphabeta.h"
#include "search/game_device.h"

namespace warpmind::gpu {

namespace minimax_detail {

// The parent of child j: offset[p] <= j < offset[p + 1] (binary search over the n + 1 offsets).
__device__ inline unsigned long long parent_of(const unsigned long long* offset, unsigned long long n,
                                               unsigned long long j) {
  unsigned long long lo = 0, hi = n;
  while (hi - lo > 1) {
    const unsigned long long mid = (lo + hi) / 2;
    if (offset[mid] <= j)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

constexpr int kThreads = 128;
inline unsigned blocks(unsigned long long n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

template <class Pos, class R>
__global__ void k_count(R rules, const Pos* __restrict__ pos, unsigned long long n,
                        unsigned long long* __restrict__ count) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) count[i] = static_cast<unsigned long long>(rules.count(pos[i]));
}

template <class Pos, class R>
__global__ void k_expand(R rules, const Pos* __restrict__ pos, unsigned long long n,
                         const unsigned long long* __restrict__ offset, Pos* __restrict__ out) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) (void)rules.expand(pos[i], out + offset[i]);
}

template <class Pos, class R>
__global__ void k_leaf(R rules, const Pos* __restrict__ pos, unsigned long long n, int ply, int* __restrict__ value) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) value[i] = rules.leaf(pos[i], ply);
}

// Horizon nodes searched `plies` more plies by the rules' alpha-beta; the nodes below them are added to
// *nodes (one atomic per warp). With parents (n_parents > 0, offset: their children's), pass 0 searches
// every parent's first child with the full window, pass 1 the other children with the window (-inf, the
// first child's value), which only decides whether a child comes out below its first sibling; without,
// every node with the full window.
template <class Pos, class R>
__global__ void k_tail(R rules, const Pos* __restrict__ pos, unsigned long long n,
                       const unsigned long long* __restrict__ offset, unsigned long long n_parents, int pass, int plies,
                       int ply, int* __restrict__ value, unsigned long long* __restrict__ nodes) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::uint64_t visited = 0;
  constexpr int kInf = search::kAlphaBetaInfinity;
  if (n_parents == 0) {
    if (i < n) value[i] = rules.tail(pos[i], plies, ply, -kInf, kInf, visited);
  } else if (pass == 0) {  // a thread per parent
    if (i < n_parents && offset[i] < offset[i + 1])
      value[offset[i]] = rules.tail(pos[offset[i]], plies, ply, -kInf, kInf, visited);
  } else if (i < n) {  // a thread per child: its parent's first child
    const unsigned long long first = offset[parent_of(offset, n_parents, i)];
    if (i != first) value[i] = rules.tail(pos[i], plies, ply, -kInf, value[first], visited);
  }
  unsigned long long c = visited;
  for (int d = 16; d > 0; d >>= 1) c += __shfl_down_sync(0xffffffffu, c, d);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(nodes, c);
}

// The first child of every parent (a parent without children: itself, whose search ends at once), for the
// first pass's own search (see LevelMinimax::search).
template <class Pos>
__global__ void k_first_children(const Pos* __restrict__ parent, const Pos* __restrict__ child,
                                 unsigned long long parents, const unsigned long long* __restrict__ offset,
                                 Pos* __restrict__ out) {
  const unsigned long long p = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p < parents) out[p] = offset[p] < offset[p + 1] ? child[offset[p]] : parent[p];
}

template <class Pos>
__global__ void k_scatter_first(unsigned long long parents, const unsigned long long* __restrict__ offset,
                                const int* __restrict__ first, int* __restrict__ value) {
  const unsigned long long p = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p < parents && offset[p] < offset[p + 1]) value[offset[p]] = first[p];
}

// best[i] = the index among root i's children of the first with the largest -value (-1: no child).
static __global__ void k_best(unsigned long long n, const unsigned long long* __restrict__ offset,
                              const int* __restrict__ child, int* __restrict__ best) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned long long a = offset[i], b = offset[i + 1];
  int at = -1, worst = 0;
  for (unsigned long long j = a; j < b; ++j)
    if (at < 0 || child[j] < worst) {
      worst = child[j];
      at = static_cast<int>(j - a);
    }
  best[i] = at;
}

template <class R, class = void>
struct MaxTail : std::integral_constant<int, 0> {};
template <class R>
struct MaxTail<R, std::void_t<decltype(R::kMaxTail)>> : std::integral_constant<int, R::kMaxTail> {};

template <class R, class = void>
struct WarpPerNode : std::false_type {};
template <class R>
struct WarpPerNode<R, std::void_t<decltype(R::kWarpPerNode)>> : std::bool_constant<R::kWarpPerNode> {};

constexpr int kWarpsPerBlock = 4;
inline unsigned warp_blocks(unsigned long long n) {
  return static_cast<unsigned>((n + kWarpsPerBlock - 1) / kWarpsPerBlock);
}

// One warp per node: i is the same for all its lanes, so whole warps leave together.
template <class Pos, class R>
__global__ void k_count_warp(R rules, const Pos* __restrict__ pos, unsigned long long n,
                             unsigned long long* __restrict__ count) {
  __shared__ typename R::Scratch scratch[kWarpsPerBlock];
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (i >= n) return;
  const int c = rules.count_warp(pos[i], scratch[threadIdx.x / 32], lane);
  if (lane == 0) count[i] = static_cast<unsigned long long>(c);
}

template <class Pos, class R>
__global__ void k_expand_warp(R rules, const Pos* __restrict__ pos, unsigned long long n,
                              const unsigned long long* __restrict__ offset, Pos* __restrict__ out) {
  __shared__ typename R::Scratch scratch[kWarpsPerBlock];
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (i >= n) return;
  rules.expand_warp(pos[i], out + offset[i], scratch[threadIdx.x / 32], static_cast<int>(threadIdx.x % 32));
}

template <class Pos, class R>
__global__ void k_leaf_warp(R rules, const Pos* __restrict__ pos, unsigned long long n, int ply,
                            int* __restrict__ value) {
  __shared__ typename R::Scratch scratch[kWarpsPerBlock];
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (i >= n) return;
  const int v = rules.leaf_warp(pos[i], ply, scratch[threadIdx.x / 32], lane);
  if (lane == 0) value[i] = v;
}

template <class Pos, class R>
__global__ void k_reduce(R rules, const Pos* __restrict__ pos, unsigned long long n,
                         const unsigned long long* __restrict__ offset, const int* __restrict__ child, int ply,
                         int* __restrict__ value) {
  const unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned long long a = offset[i], b = offset[i + 1];
  if (a == b) {
    value[i] = rules.terminal(pos[i], ply);
    return;
  }
  // max over the children of -child, written as -(min over the children): the form
  // "best = max(best, -child[j])" in this loop was compiled to max(best, child[j]) past the first
  // child (nvcc 13.0, sm_90; ChessGpu.DeviceResidentMinimaxEqualsTheSerialNegamax catches it).
  int worst = child[a];
  for (unsigned long long j = a + 1; j < b; ++j) worst = min(worst, child[j]);
  value[i] = -worst;
}

}  // namespace minimax_detail

template <class Pos>
class LevelMinimax {
 public:
  // `budget_bytes`: the most device memory the tree may take (positions, counts, offsets, values).
  template <class R>
  Status run(const R& rules, const Pos& root, int depth, cudaStream_t s, std::size_t budget_bytes,
             MinimaxOutcome& out) {
    Status err;
    if (!(err = search(rules, &root, 1, depth, 0, s, budget_bytes)).ok()) return err;
    WM_CUDA(cudaMemcpyAsync(&out.value, levels_[0]->value.get(), sizeof(int), cudaMemcpyDeviceToHost, s));
    std::vector<int> root_children(depth > 0 ? sizes_[1] : 0);
    if (!root_children.empty())
      WM_CUDA(cudaMemcpyAsync(root_children.data(), levels_[1]->value.get(), root_children.size() * sizeof(int),
                              cudaMemcpyDeviceToHost, s));
    WM_CUDA(cudaStreamSynchronize(s));
    out.ms = elapsed_ms();
    out.best = -1;
    for (std::size_t i = 0; i < root_children.size(); ++i)
      if (out.best < 0 || -root_children[i] > -root_children[static_cast<std::size_t>(out.best)])
        out.best = static_cast<int>(i);
    out.nodes = nodes();
    return Status::Ok();
  }

  // Many roots at once, each `ply` plies below a search's root (terminal scores count from there):
  // values[i] = the negamax value of roots[i] to `depth` more plies, the last `tail` of them (0..depth,
  // at most the rules' kMaxTail) by alpha-beta in one thread per node; best (when not null): best[i] = the
  // index of roots[i]'s first best child in the rules' order (-1: none; needs depth - tail >= 1).
  // nodes += every node of the trees, the roots and the alpha-beta's included; ms += device time. A batch
  // whose trees do not fit `budget_bytes` is split in halves (one root that does not fit is an error).
  template <class R>
  Status run_many(const R& rules, const Pos* roots, std::size_t n, int depth, int ply, cudaStream_t s,
                  std::size_t budget_bytes, int* values, std::uint64_t& nodes_out, double& ms, int tail = 0,
                  int* best = nullptr) {
    if (n == 0) return Status::Ok();
    if (tail < 0 || tail > depth || tail > minimax_detail::MaxTail<R>::value)
      return Status::Invalid("minimax: these rules search at most " +
                             std::to_string(minimax_detail::MaxTail<R>::value) + " plies by alpha-beta");
    if (best && depth - tail < 1) return Status::Invalid("minimax: the best child needs a breadth-first ply");
    Status err = search(rules, roots, n, depth - tail, ply, s, budget_bytes, tail);
    if (!err.ok()) {
      if (!over_budget_ || n == 1) return err;
      const std::size_t half = n / 2;
      if (!(err = run_many(rules, roots, half, depth, ply, s, budget_bytes, values, nodes_out, ms, tail, best)).ok())
        return err;
      return run_many(rules, roots + half, n - half, depth, ply, s, budget_bytes, values + half, nodes_out, ms, tail,
                      best ? best + half : nullptr);
    }
    WM_CUDA(cudaMemcpyAsync(values, levels_[0]->value.get(), n * sizeof(int), cudaMemcpyDeviceToHost, s));
    if (best) {
      WM_RETURN_IF_ERROR(best_.reserve(n));
      minimax_detail::k_best<<<minimax_detail::blocks(n), minimax_detail::kThreads, 0, s>>>(
          n, levels_[0]->offset.get(), levels_[1]->value.get(), best_.get());
      WM_CUDA_LAUNCH(k_best);
      WM_CUDA(cudaMemcpyAsync(best, best_.get(), n * sizeof(int), cudaMemcpyDeviceToHost, s));
    }
    unsigned long long tail_nodes = 0;
    if (tail > 0)
      WM_CUDA(cudaMemcpyAsync(&tail_nodes, tail_nodes_.get(), sizeof tail_nodes, cudaMemcpyDeviceToHost, s));
    WM_CUDA(cudaStreamSynchronize(s));
    ms += elapsed_ms();
    nodes_out += nodes() + tail_nodes;
    return Status::Ok();
  }

 private:
  // Builds the trees of roots[0..n) level by level and reduces their values into levels_[0]->value.
  // tail > 0: the horizon's values by the rules' alpha-beta of `tail` plies, its nodes added to
  // *tail_counter (null: tail_nodes_, zeroed first). In two passes: each parent's first child, then the
  // rest with the window below it (k_tail); with two plies or more the first pass is itself a search of
  // the first children, one ply breadth-first with the alpha-beta below (inner_), so that it is not a
  // thread a tree. roots_on_device: `roots` is device memory.
  template <class R>
  Status search(const R& rules, const Pos* roots, std::size_t n_roots, int depth, int ply, cudaStream_t s,
                std::size_t budget_bytes, int tail = 0, unsigned long long* tail_counter = nullptr,
                bool roots_on_device = false) {
    using namespace minimax_detail;
    constexpr bool kWarp = WarpPerNode<R>::value;
    over_budget_ = false;
    if (depth < 0 || depth > 32) return Status::Invalid("minimax: depth must be 0..32");
    if (ply < 0 || ply > 1000) return Status::Invalid("minimax: ply must be 0..1000");
    while (levels_.size() < static_cast<std::size_t>(depth) + 1) levels_.push_back(std::make_unique<Level>());
    if (!ev_[0]) {
      for (cudaEvent_t& e : ev_) WM_CUDA(cudaEventCreate(&e));
    }
    Status err;
    sizes_.assign(static_cast<std::size_t>(depth) + 1, 0);
    sizes_[0] = n_roots;
    const std::size_t per_node = sizeof(Pos) + 2 * sizeof(unsigned long long) + sizeof(int);
    std::size_t used = per_node * n_roots;
    if (used > budget_bytes) {
      over_budget_ = true;
      return Status::Invalid("minimax: the roots do not fit the memory budget");
    }
    if (!(err = levels_[0]->pos.reserve(n_roots)).ok()) return err;
    WM_CUDA(cudaEventRecord(ev_[0], s));
    extra_nodes_ = 0;
    WM_CUDA(cudaMemcpyAsync(levels_[0]->pos.get(), roots, n_roots * sizeof(Pos),
                            roots_on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice, s));
    for (int l = 0; l < depth; ++l) {
      Level& here = *levels_[static_cast<std::size_t>(l)];
      const unsigned long long n = sizes_[static_cast<std::size_t>(l)];
      if (!(err = here.count.reserve(n + 1)).ok()) return err;
      if (!(err = here.offset.reserve(n + 1)).ok()) return err;
      if constexpr (kWarp) {
        if (n) {
          k_count_warp<Pos, R>
              <<<warp_blocks(n), kWarpsPerBlock * 32, 0, s>>>(rules, here.pos.get(), n, here.count.get());
          WM_CUDA_LAUNCH(k_count_warp);
        }
      } else if (n) {
        k_count<Pos, R><<<blocks(n), kThreads, 0, s>>>(rules, here.pos.get(), n, here.count.get());
        WM_CUDA_LAUNCH(k_count);
      }
      WM_CUDA(cudaMemsetAsync(here.count.get() + n, 0, sizeof(unsigned long long), s));
      unsigned long long children = 0;
      if (!(err = exclusive_scan(here.count.get(), here.offset.get(), n + 1, temp_, s, &children)).ok()) return err;
      used += children * per_node;
      if (used > budget_bytes) {
        over_budget_ = true;
        return Status::Invalid("minimax: the tree does not fit the memory budget (" + std::to_string(children) +
                               " nodes at ply " + std::to_string(l + 1) + ")");
      }
      Level& next = *levels_[static_cast<std::size_t>(l) + 1];
      if (!(err = next.pos.reserve(std::max<unsigned long long>(children, 1))).ok()) return err;
      if constexpr (kWarp) {
        if (n) {
          k_expand_warp<Pos, R><<<warp_blocks(n), kWarpsPerBlock * 32, 0, s>>>(rules, here.pos.get(), n,
                                                                               here.offset.get(), next.pos.get());
          WM_CUDA_LAUNCH(k_expand_warp);
        }
      } else if (n) {
        k_expand<Pos, R><<<blocks(n), kThreads, 0, s>>>(rules, here.pos.get(), n, here.offset.get(), next.pos.get());
        WM_CUDA_LAUNCH(k_expand);
      }
      sizes_[static_cast<std::size_t>(l) + 1] = children;
    }
    Level& horizon = *levels_[static_cast<std::size_t>(depth)];
    const unsigned long long leaves = sizes_[static_cast<std::size_t>(depth)];
    if (!(err = horizon.value.reserve(std::max<unsigned long long>(leaves, 1))).ok()) return err;
    if (tail > 0) {  // run_many checked that the rules search so many plies
      if constexpr (MaxTail<R>::value > 0) {
        if (!tail_counter) {
          WM_RETURN_IF_ERROR(tail_nodes_.reserve(1));
          WM_CUDA(cudaMemsetAsync(tail_nodes_.get(), 0, sizeof(unsigned long long), s));
          tail_counter = tail_nodes_.get();
        }
        // The horizon's parents (none when the horizon is the roots) and their children's offsets.
        const unsigned long long parents = depth > 0 ? sizes_[static_cast<std::size_t>(depth) - 1] : 0;
        const Level* above = depth > 0 ? levels_[static_cast<std::size_t>(depth) - 1].get() : nullptr;
        const unsigned long long* offset = above ? above->offset.get() : nullptr;
        int pass = 0;
        if (parents && leaves && tail >= 2) {  // pass 0 as a search of its own
          if (!inner_) inner_ = std::make_unique<LevelMinimax>();
          WM_RETURN_IF_ERROR(first_.reserve(parents));
          k_first_children<Pos>
              <<<blocks(parents), kThreads, 0, s>>>(above->pos.get(), horizon.pos.get(), parents, offset, first_.get());
          WM_CUDA_LAUNCH(k_first_children);
          const Status inner =
              inner_->search(rules, first_.get(), parents, 1, ply + depth, s,
                             budget_bytes > used ? budget_bytes - used : 0, tail - 1, tail_counter, true);
          if (!inner.ok()) {
            over_budget_ = inner_->over_budget_;
            return inner;
          }
          k_scatter_first<Pos><<<blocks(parents), kThreads, 0, s>>>(parents, offset, inner_->levels_[0]->value.get(),
                                                                    horizon.value.get());
          WM_CUDA_LAUNCH(k_scatter_first);
          extra_nodes_ += inner_->nodes() - parents;  // its roots are this search's horizon nodes
          pass = 1;
        }
        for (; pass < (parents ? 2 : 1) && leaves; ++pass) {
          const unsigned long long threads = parents && pass == 0 ? parents : leaves;
          k_tail<Pos, R><<<blocks(threads), kThreads, 0, s>>>(rules, horizon.pos.get(), leaves, offset, parents, pass,
                                                              tail, ply + depth, horizon.value.get(), tail_counter);
          WM_CUDA_LAUNCH(k_tail);
        }
      }
    } else if constexpr (kWarp) {
      if (leaves) {
        k_leaf_warp<Pos, R><<<warp_blocks(leaves), kWarpsPerBlock * 32, 0, s>>>(rules, horizon.pos.get(), leaves,
                                                                                ply + depth, horizon.value.get());
        WM_CUDA_LAUNCH(k_leaf_warp);
      }
    } else if (leaves) {
      k_leaf<Pos, R>
          <<<blocks(leaves), kThreads, 0, s>>>(rules, horizon.pos.get(), leaves, ply + depth, horizon.value.get());
      WM_CUDA_LAUNCH(k_leaf);
    }
    for (int l = depth - 1; l >= 0; --l) {
      Level& here = *levels_[static_cast<std::size_t>(l)];
      const unsigned long long n = sizes_[static_cast<std::size_t>(l)];
      if (!(err = here.value.reserve(std::max<unsigned long long>(n, 1))).ok()) return err;
      if (n) {
        k_reduce<Pos, R><<<blocks(n), kThreads, 0, s>>>(rules, here.pos.get(), n, here.offset.get(),
                                                        levels_[static_cast<std::size_t>(l) + 1]->value.get(), ply + l,
                                                        here.value.get());
        WM_CUDA_LAUNCH(k_reduce);
      }
    }
    WM_CUDA(cudaEventRecord(ev_[1], s));
    return Status::Ok();
  }

  double elapsed_ms() const {
    float ms = 0;
    return cudaEventElapsedTime(&ms, ev_[0], ev_[1]) == cudaSuccess ? ms : 0.0;
  }
  std::uint64_t nodes() const {
    std::uint64_t total = extra_nodes_;
    for (unsigned long long n : sizes_) total += n;
    return total;
  }

 public:
  ~LevelMinimax() {
    for (cudaEvent_t e : ev_)
      if (e) cudaEventDestroy(e);
  }

 private:
  struct Level {
    DeviceBuffer<Pos> pos;
    DeviceBuffer<unsigned long long> count, offset;
    DeviceBuffer<int> value;
  };
  std::vector<std::unique_ptr<Level>> levels_;
  std::vector<unsigned long long> sizes_;
  bool over_budget_ = false;
  DeviceBuffer<unsigned char> temp_;
  DeviceBuffer<int> best_;
  DeviceBuffer<unsigned long long> tail_nodes_;
  std::unique_ptr<LevelMinimax> inner_;  // the first pass's search (see search())
  DeviceBuffer<Pos> first_;              // its roots: the first children
  std::uint64_t extra_nodes_ = 0;        // its nodes below its roots
  cudaEvent_t ev_[2] = {};
};

}  // namespace warpmind::gpu
