// Perft on the GPU (contract in chess_search.h), dispatched to gpu/src/search/chess.cu. Without CUDA it
// reports that the backend is unavailable.
#include "search/chess/chess_device.h"
#include "search/chess/chess_sliders.h"
#include "warpmind/search/chess_search.h"

namespace warpmind::search::chess {

struct GpuPerft::Impl {
#if WARPMIND_HAVE_CUDA
  std::unique_ptr<gpu::ChessPerftDevice> device;
#endif
};

Status GpuPerft::create(Context& ctx, std::unique_ptr<GpuPerft>& out) {
  if (!ctx.cuda()) return Status::Unavailable("GPU perft needs the CUDA backend");
  std::unique_ptr<GpuPerft> p(new GpuPerft());
  p->impl_ = std::make_unique<Impl>();
#if WARPMIND_HAVE_CUDA
  const Status err = gpu::ChessPerftDevice::create(ctx.stream(), rules::host_slider_words(), p->impl_->device);
  if (!err.ok()) return err.context("chess perft");
#endif
  out = std::move(p);
  return Status::Ok();
}

GpuPerft::~GpuPerft() = default;

Status GpuPerft::run(const Position& p, int depth, std::uint64_t& nodes, double* ms, bool transposition_table,
                     std::uint64_t* reused) {
  if (depth < 0 || depth > 20) return Status::Invalid("perft: depth must be 0..20");
#if WARPMIND_HAVE_CUDA
  double t = 0;
  const Status err = impl_->device->perft(rules::from_position(p), depth, nodes, t, 0, transposition_table, reused);
  if (!err.ok()) return err.context("chess perft");
  if (ms) *ms = t;
  return Status::Ok();
#else
  (void)p;
  (void)nodes;
  (void)ms;
  (void)transposition_table;
  (void)reused;
  return Status::Unavailable("GPU perft: built without CUDA");
#endif
}

Status perft_gpu(Context& ctx, const Position& p, int depth, std::uint64_t& nodes, double* ms) {
  if (!ctx.cuda()) return Status::Unavailable("GPU perft needs the CUDA backend");
  if (depth < 0 || depth > 20) return Status::Invalid("perft: depth must be 0..20");
  std::unique_ptr<GpuPerft> device;
  WM_RETURN_IF_ERROR(GpuPerft::create(ctx, device));
  return device->run(p, depth, nodes, ms);
}

}  // namespace warpmind::search::chess
