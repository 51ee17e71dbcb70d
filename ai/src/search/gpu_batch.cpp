// GpuBatch<G> (contract in search/gpu_batch.h), once for every game: positions packed into the game's
// device rules (DeviceGame<G>, <game>/<game>_device.h), the batch kernels (GameDevice<R>, implemented in
// gpu/src/search/), and the CPU computing a batch instead whenever the device cannot. Without CUDA every
// batch runs on the CPU and create() reports that the backend is unavailable.
#include "warpmind/search/gpu_batch.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "search/chess/chess_device.h"
#include "search/connect6/connect6_device.h"

namespace warpmind::search {

template <Game G>
struct GpuBatch<G>::Impl {
  using D = DeviceGame<G>;
  using R = typename D::Rules;
  G game;
  Status error;          // the first device error (ok while none)
  int subtree_tail = 0;  // set_subtree_tail's
#if WARPMIND_HAVE_CUDA
  std::unique_ptr<gpu::GameDevice<R>> device;
  std::vector<typename R::Pos> in;
  std::vector<typename R::Move> moves;
  std::vector<int> counts, values, best;
  void pack(const std::vector<const State*>& states) {
    in.resize(states.size());
    for (std::size_t i = 0; i < states.size(); ++i) in[i] = D::pack(*states[i]);
  }
  // Runs one batch on the device unless an earlier one failed; false (the error kept) when it cannot.
  template <class Run>
  bool on_device(const std::vector<const State*>& states, Run&& run) {
    if (!error.ok()) return false;
    pack(states);
    const Status err = run();
    if (err.ok()) return true;
    error = err.context(D::kName);
    return false;
  }
#endif
};

template <Game G>
Status GpuBatch<G>::create(Context& ctx, std::unique_ptr<GpuBatch>& out, G game) {
  if (!ctx.cuda()) return Status::Unavailable("the GPU batch backend needs the CUDA backend");
  WM_RETURN_IF_ERROR(DeviceGame<G>::check(game));
  std::unique_ptr<GpuBatch> b(new GpuBatch());
  b->impl_ = std::make_unique<Impl>();
  b->impl_->game = game;
#if WARPMIND_HAVE_CUDA
  const Status err = gpu::GameDevice<typename Impl::R>::create(ctx.stream(), b->impl_->device);
  if (!err.ok()) return err.context(DeviceGame<G>::kName);
#endif
  out = std::move(b);
  return Status::Ok();
}

template <Game G>
GpuBatch<G>::~GpuBatch() = default;

template <Game G>
const G& GpuBatch<G>::game() const {
  return impl_->game;
}

template <Game G>
Status GpuBatch<G>::set_game(G game) {
  WM_RETURN_IF_ERROR(DeviceGame<G>::check(game));
  impl_->game = game;
  return Status::Ok();
}

template <Game G>
const Status& GpuBatch<G>::error() const {
  return impl_->error;
}

template <Game G>
void GpuBatch<G>::leaves(const std::vector<const State*>& in, int ply, std::vector<int>& values) {
  values.resize(in.size());
#if WARPMIND_HAVE_CUDA
  Impl& im = *impl_;
  if (im.on_device(in, [&] { return im.device->leaf_values(im.in.data(), im.in.size(), ply, values.data()); })) return;
#endif
  for (std::size_t i = 0; i < in.size(); ++i) values[i] = leaf_value<G>(*in[i], ply);
}

template <Game G>
void GpuBatch<G>::leaves(const std::vector<const State*>& in, std::vector<int>& values) {
  values.resize(in.size());
#if WARPMIND_HAVE_CUDA
  Impl& im = *impl_;
  if (im.on_device(in, [&] { return im.device->leaf_values(im.in.data(), im.in.size(), -1, values.data()); })) return;
#endif
  for (std::size_t i = 0; i < in.size(); ++i) values[i] = G::evaluate(*in[i]);
}

template <Game G>
void GpuBatch<G>::branches(const std::vector<const State*>& in, std::vector<std::vector<Move>>& moves) {
  moves.resize(in.size());
#if WARPMIND_HAVE_CUDA
  Impl& im = *impl_;
  const bool done = im.on_device(in, [&] {
    im.moves.resize(in.size() * Impl::R::kMaxMoves);
    im.counts.resize(in.size());
    return im.device->branches(im.in.data(), im.in.size(), Impl::D::params(im.game), im.moves.data(), im.counts.data());
  });
  if (done) {  // packed: position i's moves follow those of 0..i-1
    const auto* m = im.moves.data();
    for (std::size_t i = 0; i < in.size(); ++i) {
      moves[i].resize(static_cast<std::size_t>(im.counts[i]));
      for (Move& out : moves[i]) out = Impl::D::unpack(*m++);
    }
    return;
  }
#endif
  for (std::size_t i = 0; i < in.size(); ++i) impl_->game.children(*in[i], moves[i]);
}

template <Game G>
void GpuBatch<G>::subtrees(const std::vector<const State*>& in, int ply, int plies, std::vector<int>& values,
                           std::uint64_t& nodes, double& device_ms) {
  values.resize(in.size());
#if WARPMIND_HAVE_CUDA
  Impl& im = *impl_;
  std::uint64_t n = 0;
  double ms = 0;
  if (im.on_device(in, [&] {
        const int tail = std::min({im.subtree_tail, plies, max_tail()});
        return im.device->subtrees(im.in.data(), im.in.size(), plies, ply, Impl::D::params(im.game), values.data(), n,
                                   ms, 0, tail);
      })) {
    nodes += n;
    device_ms += ms;
    return;
  }
#else
  (void)device_ms;
#endif
  for (std::size_t i = 0; i < in.size(); ++i) values[i] = subtree_value(impl_->game, *in[i], ply, plies, nodes);
}

template <Game G>
void GpuBatch<G>::set_subtree_tail(int tail) {
  impl_->subtree_tail = std::max(tail, 0);
}

template <Game G>
Status GpuBatch<G>::minimax(const State& root, int depth, MinimaxResult<Move>& out) {
  if (depth < 0 || depth > 32) return Status::Invalid("minimax: depth must be 0..32");
#if WARPMIND_HAVE_CUDA
  using D = typename Impl::D;
  gpu::MinimaxOutcome o;
  const Status err = impl_->device->minimax(D::pack(root), depth, D::params(impl_->game), o);
  if (!err.ok()) return err.context(D::kName);
  out = MinimaxResult<Move>{};
  out.value = o.value;
  out.nodes = o.nodes;
  out.ms = o.ms;
  std::vector<Move> children;
  impl_->game.children(root, children);
  if (o.best >= 0 && static_cast<std::size_t>(o.best) < children.size()) {
    out.best = children[static_cast<std::size_t>(o.best)];
    out.has_move = true;
  }
  return Status::Ok();
#else
  (void)root;
  (void)out;
  return Status::Unavailable("GPU minimax: built without CUDA");
#endif
}

template <Game G>
int GpuBatch<G>::max_tail() {
#if WARPMIND_HAVE_CUDA
  return gpu::GameDevice<typename Impl::R>::tail_plies();
#else
  return 0;
#endif
}

template <Game G>
Status GpuBatch<G>::search_many(std::span<const State> positions, int depth, std::span<TableMove<Move>> out,
                                SearchManyStats* stats, int tail) {
  if (depth < 1 || depth > kSearchManyMaxDepth)
    return Status::Invalid("search_many: depth must be 1.." + std::to_string(kSearchManyMaxDepth) + ", got " +
                           std::to_string(depth));
  if (out.size() != positions.size())
    return Status::Invalid("search_many: " + std::to_string(out.size()) + " results for " +
                           std::to_string(positions.size()) + " positions");
  const int most = std::min(depth - 1, max_tail());
  if (tail < -1 || tail > most)
    return Status::Invalid("search_many: tail must be -1.." + std::to_string(most) + " at depth " +
                           std::to_string(depth) + ", got " + std::to_string(tail));
  if (tail < 0) tail = 0;
#if WARPMIND_HAVE_CUDA
  using D = typename Impl::D;
  Impl& im = *impl_;
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t n = positions.size();
  im.in.resize(n);
  for (std::size_t i = 0; i < n; ++i) im.in[i] = D::pack(positions[i]);
  im.values.resize(n);
  im.best.resize(n);
  im.moves.resize(n * Impl::R::kMaxMoves);
  im.counts.resize(n);
  std::uint64_t nodes = 0;
  double ms = 0;
  const auto params = D::params(im.game);
  Status err =
      im.device->search_many(im.in.data(), n, depth, tail, params, im.values.data(), im.best.data(), nodes, ms);
  // the moves of every position in the search's order, whose index `best` is
  if (err.ok()) err = im.device->branches(im.in.data(), n, params, im.moves.data(), im.counts.data());
  if (!err.ok()) return err.context(D::kName);
  std::size_t at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    TableMove<Move>& r = out[i];
    r.value = im.values[i];
    r.has_move = im.best[i] >= 0 && im.best[i] < im.counts[i];
    r.best = r.has_move ? D::unpack(im.moves[at + static_cast<std::size_t>(im.best[i])]) : Move{};
    at += static_cast<std::size_t>(im.counts[i]);
  }
  if (stats) {
    stats->nodes = nodes;
    stats->ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    stats->device_ms = ms;
  }
  return Status::Ok();
#else
  (void)stats;
  return Status::Unavailable("GPU search_many: built without CUDA");
#endif
}

template class GpuBatch<chess::ChessGame>;
template class GpuBatch<connect6::Connect6Game>;

}  // namespace warpmind::search
