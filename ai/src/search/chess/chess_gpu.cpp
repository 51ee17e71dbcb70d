// The chess GPU entry points (contract in chess_search.h): the hybrid search's batch backend and perft,
// dispatched to gpu/src/search/chess.cu. Without CUDA they report that the backend is unavailable.
#include "warpmind/search/chess_search.h"
#include "warpmind/search/hybrid.h"

#if WARPMIND_HAVE_CUDA
#include "search/chess/chess_device.h"
#endif

namespace warpmind::search::chess {

struct GpuBatch::Impl {
  Status error;  // the first device error (ok while none)
#if WARPMIND_HAVE_CUDA
  std::unique_ptr<gpu::ChessDevice> device;
  std::vector<rules::DPos> in;
  std::vector<std::uint32_t> moves;
  std::vector<int> counts;
  void pack(const std::vector<const Position*>& positions) {
    in.resize(positions.size());
    for (std::size_t i = 0; i < positions.size(); ++i) in[i] = rules::from_position(*positions[i]);
  }
#endif
};

Status GpuBatch::create(Context& ctx, std::unique_ptr<GpuBatch>& out) {
  if (!ctx.cuda()) return Status::Unavailable("the GPU batch backend needs the CUDA backend");
  std::unique_ptr<GpuBatch> b(new GpuBatch());
  b->impl_ = std::make_unique<Impl>();
#if WARPMIND_HAVE_CUDA
  const Status err = gpu::ChessDevice::create(ctx.stream(), b->impl_->device);
  if (!err.ok()) return err.context("chess");
#endif
  out = std::move(b);
  return Status::Ok();
}

GpuBatch::~GpuBatch() = default;

const Status& GpuBatch::error() const { return impl_->error; }

void GpuBatch::leaves(const std::vector<const Position*>& in, int ply, std::vector<int>& values) {
  values.resize(in.size());
#if WARPMIND_HAVE_CUDA
  Impl& im = *impl_;
  if (im.error.ok()) {
    im.pack(in);
    const Status err = im.device->leaf_values(im.in.data(), im.in.size(), ply, values.data());
    if (err.ok()) return;
    im.error = err.context("chess");
  }
#endif
  for (std::size_t i = 0; i < in.size(); ++i) values[i] = search::leaf_value<ChessGame>(*in[i], ply);
}

void GpuBatch::subtrees(const std::vector<const Position*>& in, int ply, int plies, std::vector<int>& values,
                        std::uint64_t& nodes, double& device_ms) {
  values.resize(in.size());
#if WARPMIND_HAVE_CUDA
  Impl& im = *impl_;
  if (im.error.ok()) {
    im.pack(in);
    std::uint64_t n = 0;
    double ms = 0;
    const Status err = im.device->subtrees(im.in.data(), im.in.size(), plies, ply, values.data(), n, ms);
    if (err.ok()) {
      nodes += n;
      device_ms += ms;
      return;
    }
    im.error = err.context("chess");
  }
#else
  (void)device_ms;
#endif
  for (std::size_t i = 0; i < in.size(); ++i) values[i] = search::subtree_value(ChessGame{}, *in[i], ply, plies, nodes);
}

void GpuBatch::leaves(const std::vector<const Position*>& in, std::vector<int>& values) {
  values.resize(in.size());
#if WARPMIND_HAVE_CUDA
  Impl& im = *impl_;
  if (im.error.ok()) {
    im.pack(in);
    const Status err = im.device->evaluate(im.in.data(), im.in.size(), values.data());
    if (err.ok()) return;
    im.error = err.context("chess");
  }
#endif
  for (std::size_t i = 0; i < in.size(); ++i) values[i] = evaluate(*in[i]);
}

void GpuBatch::branches(const std::vector<const Position*>& in, std::vector<std::vector<Move>>& moves) {
  moves.resize(in.size());
#if WARPMIND_HAVE_CUDA
  Impl& im = *impl_;
  if (im.error.ok()) {
    im.pack(in);
    im.moves.resize(in.size() * rules::kMaxMoves);
    im.counts.resize(in.size());
    const Status err = im.device->branches(im.in.data(), im.in.size(), im.moves.data(), im.counts.data());
    if (err.ok()) {  // packed: position i's moves follow those of 0..i-1
      const std::uint32_t* m = im.moves.data();
      for (std::size_t i = 0; i < in.size(); ++i) {
        moves[i].resize(static_cast<std::size_t>(im.counts[i]));
        for (int k = 0; k < im.counts[i]; ++k) moves[i][static_cast<std::size_t>(k)].bits = *m++;
      }
      return;
    }
    im.error = err.context("chess");
  }
#endif
  for (std::size_t i = 0; i < in.size(); ++i) ChessGame::children(*in[i], moves[i]);
}

Status GpuBatch::perft(const Position& p, int depth, std::uint64_t& nodes, double* ms, bool merge_transpositions,
                       std::uint64_t* merged) {
  if (depth < 0 || depth > 20) return Status::Invalid("perft: depth must be 0..20");
#if WARPMIND_HAVE_CUDA
  double t = 0;
  const Status err = impl_->device->perft(rules::from_position(p), depth, nodes, t, 0, merge_transpositions, merged);
  if (!err.ok()) return err.context("chess");
  if (ms) *ms = t;
  return Status::Ok();
#else
  (void)p;
  (void)nodes;
  (void)ms;
  (void)merge_transpositions;
  (void)merged;
  return Status::Unavailable("GPU perft: built without CUDA");
#endif
}

Status GpuBatch::minimax(const Position& p, int depth, MinimaxResult& out) {
  if (depth < 0 || depth > 32) return Status::Invalid("minimax: depth must be 0..32");
#if WARPMIND_HAVE_CUDA
  gpu::MinimaxOutcome o;
  const Status err = impl_->device->minimax(rules::from_position(p), depth, o);
  if (!err.ok()) return err.context("chess");
  out = MinimaxResult{};
  out.value = o.value;
  out.nodes = o.nodes;
  out.ms = o.ms;
  std::vector<Move> children;
  ChessGame::children(p, children);
  if (o.best >= 0 && static_cast<std::size_t>(o.best) < children.size()) {
    out.best = children[static_cast<std::size_t>(o.best)];
    out.has_move = true;
  }
  return Status::Ok();
#else
  (void)p;
  (void)out;
  return Status::Unavailable("GPU minimax: built without CUDA");
#endif
}

Status perft_gpu(Context& ctx, const Position& p, int depth, std::uint64_t& nodes, double* ms) {
  if (!ctx.cuda()) return Status::Unavailable("GPU perft needs the CUDA backend");
  if (depth < 0 || depth > 20) return Status::Invalid("perft: depth must be 0..20");
  std::unique_ptr<GpuBatch> device;
  WM_RETURN_IF_ERROR(GpuBatch::create(ctx, device));
  return device->perft(p, depth, nodes, ms);
}

}  // namespace warpmind::search::chess
