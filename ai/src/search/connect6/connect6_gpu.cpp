// The Connect6 GPU batch backend (contract in connect6.h), dispatched to gpu/src/search/connect6.cu.
#include "warpmind/search/connect6.h"
#include "warpmind/search/hybrid.h"

#if WARPMIND_HAVE_CUDA
#include "search/connect6/connect6_device.h"
#endif

namespace warpmind::search::connect6 {

struct GpuBatch::Impl {
  Connect6Game game;
  Status error;  // the first device error (ok while none)
#if WARPMIND_HAVE_CUDA
  std::unique_ptr<gpu::Connect6Device> device;
  std::vector<rules::C6Pos> in;
  std::vector<rules::C6Turn> turns;
  std::vector<int> counts;
  void pack(const std::vector<const Board*>& boards) {
    in.resize(boards.size());
    for (std::size_t i = 0; i < boards.size(); ++i) in[i] = rules::from_board(*boards[i]);
  }
#endif
};

Status GpuBatch::create(Context& ctx, std::unique_ptr<GpuBatch>& out, Connect6Game game) {
  if (!ctx.cuda()) return Status::Unavailable("the GPU batch backend needs the CUDA backend");
  std::unique_ptr<GpuBatch> b(new GpuBatch());
  b->impl_ = std::make_unique<Impl>();
  WM_RETURN_IF_ERROR(b->set_game(game));
#if WARPMIND_HAVE_CUDA
  const Status err = gpu::Connect6Device::create(ctx.stream(), b->impl_->device);
  if (!err.ok()) return err.context("connect6");
#endif
  out = std::move(b);
  return Status::Ok();
}

GpuBatch::~GpuBatch() = default;

const Status& GpuBatch::error() const { return impl_->error; }

const Connect6Game& GpuBatch::game() const { return impl_->game; }

Status GpuBatch::set_game(Connect6Game game) {
  if (game.width < 1 || game.width > 128) return Status::Invalid("connect6 GPU batch: width must be 1..128");
  impl_->game = game;
  return Status::Ok();
}

Status GpuBatch::minimax(const Board& b, int depth, MinimaxResult& out) {
  if (depth < 0 || depth > 32) return Status::Invalid("minimax: depth must be 0..32");
#if WARPMIND_HAVE_CUDA
  gpu::MinimaxOutcome o;
  const Status err = impl_->device->minimax(rules::from_board(b), depth, impl_->game.width, o);
  if (!err.ok()) return err.context("connect6");
  out = MinimaxResult{};
  out.value = o.value;
  out.nodes = o.nodes;
  out.ms = o.ms;
  std::vector<Turn> children;
  impl_->game.children(b, children);
  if (o.best >= 0 && static_cast<std::size_t>(o.best) < children.size()) {
    out.best = children[static_cast<std::size_t>(o.best)];
    out.has_move = true;
  }
  return Status::Ok();
#else
  (void)b;
  (void)depth;
  (void)out;
  return Status::Unavailable("GPU minimax: built without CUDA");
#endif
}

void GpuBatch::leaves(const std::vector<const Board*>& in, int ply, std::vector<int>& values) {
  values.resize(in.size());
#if WARPMIND_HAVE_CUDA
  Impl& im = *impl_;
  if (im.error.ok()) {
    im.pack(in);
    const Status err = im.device->leaf_values(im.in.data(), im.in.size(), ply, values.data());
    if (err.ok()) return;
    im.error = err.context("connect6");
  }
#endif
  for (std::size_t i = 0; i < in.size(); ++i) values[i] = search::leaf_value<Connect6Game>(*in[i], ply);
}

void GpuBatch::subtrees(const std::vector<const Board*>& in, int ply, int plies, std::vector<int>& values,
                        std::uint64_t& nodes, double& device_ms) {
  values.resize(in.size());
#if WARPMIND_HAVE_CUDA
  Impl& im = *impl_;
  if (im.error.ok()) {
    im.pack(in);
    std::uint64_t n = 0;
    double ms = 0;
    const Status err = im.device->subtrees(im.in.data(), im.in.size(), plies, im.game.width, ply, values.data(), n, ms);
    if (err.ok()) {
      nodes += n;
      device_ms += ms;
      return;
    }
    im.error = err.context("connect6");
  }
#else
  (void)device_ms;
#endif
  for (std::size_t i = 0; i < in.size(); ++i) values[i] = search::subtree_value(impl_->game, *in[i], ply, plies, nodes);
}

void GpuBatch::leaves(const std::vector<const Board*>& in, std::vector<int>& values) {
  values.resize(in.size());
#if WARPMIND_HAVE_CUDA
  Impl& im = *impl_;
  if (im.error.ok()) {
    im.pack(in);
    const Status err = im.device->evaluate(im.in.data(), im.in.size(), values.data());
    if (err.ok()) return;
    im.error = err.context("connect6");
  }
#endif
  for (std::size_t i = 0; i < in.size(); ++i) values[i] = Connect6Game::evaluate(*in[i]);
}

void GpuBatch::branches(const std::vector<const Board*>& in, std::vector<std::vector<Turn>>& turns) {
  turns.resize(in.size());
#if WARPMIND_HAVE_CUDA
  Impl& im = *impl_;
  if (im.error.ok()) {
    im.pack(in);
    im.turns.resize(in.size() * rules::kMaxTurns);
    im.counts.resize(in.size());
    const Status err =
        im.device->branches(im.in.data(), im.in.size(), im.game.width, im.turns.data(), im.counts.data());
    if (err.ok()) {  // packed: board i's turns follow those of 0..i-1
      const rules::C6Turn* t = im.turns.data();
      for (std::size_t i = 0; i < in.size(); ++i) {
        turns[i].resize(static_cast<std::size_t>(im.counts[i]));
        for (int k = 0; k < im.counts[i]; ++k, ++t) turns[i][static_cast<std::size_t>(k)] = {t->a, t->b};
      }
      return;
    }
    im.error = err.context("connect6");
  }
#endif
  for (std::size_t i = 0; i < in.size(); ++i) impl_->game.children(*in[i], turns[i]);
}

}  // namespace warpmind::search::connect6
