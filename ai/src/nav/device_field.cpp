// DeviceNavField (warpmind/nav/device_field.h): the GPU's goal-set field left in device memory
// (gpu::NavDevice) and its steering query (gpu::nav_steer).
#include "warpmind/nav/device_field.h"

#include <chrono>
#include <string>
#include <vector>

#include "nav/changes.h"

#if WARPMIND_HAVE_CUDA
#include "nav/nav_device.h"
#endif

namespace warpmind::nav {

namespace {

#if WARPMIND_HAVE_CUDA
// A device run's figures as FieldStats (when asked for), the call's time since t0.
void report(const gpu::NavRun& run, std::chrono::steady_clock::time_point t0, FieldStats* stats) {
  if (!stats) return;
  *stats = FieldStats{};
  stats->settled = run.reached;
  stats->device_ms = run.device_ms;
  stats->tiles_relaxed = run.relaxed;
  stats->ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
#endif

}  // namespace

struct DeviceNavField::Impl {
  Context* ctx = nullptr;
  Grid grid;
  bool computed = false;
  std::vector<Cell> goals;           // the last compute()'s
  std::vector<std::uint32_t> cells;  // the goals as cell indices, then an update's changed cells; reused
  std::vector<std::uint8_t> costs;   // an update's new costs
#if WARPMIND_HAVE_CUDA
  std::unique_ptr<gpu::NavDevice> device;
#endif
};

DeviceNavField::DeviceNavField(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DeviceNavField::~DeviceNavField() = default;

Status DeviceNavField::create(Context& ctx, const Grid& grid, std::unique_ptr<DeviceNavField>& out) {
  if (!ctx.cuda()) return Status::Unavailable("nav device field: needs the CUDA backend");
  WM_RETURN_IF_ERROR(check_grid(grid));
  auto impl = std::make_unique<Impl>();
  impl->ctx = &ctx;
  impl->grid = grid;
#if WARPMIND_HAVE_CUDA
  if (Status st = gpu::NavDevice::create(ctx.stream(), impl->device); !st.ok()) return st.context("nav device field");
#endif
  out.reset(new DeviceNavField(std::move(impl)));
  return Status::Ok();
}

Status DeviceNavField::set_grid(const Grid& grid) {
  WM_RETURN_IF_ERROR(check_grid(grid));
  impl_->grid = grid;
  impl_->computed = false;
  return Status::Ok();
}

Status DeviceNavField::compute(std::span<const Cell> goals, FieldStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  Impl& im = *impl_;
  const Grid& g = im.grid;
  for (std::size_t i = 0; i < goals.size(); ++i)
    if (!g.passable(goals[i].x, goals[i].y))
      return Status::Invalid("nav device field: goal " + std::to_string(i) + " is not a passable cell of the grid");
#if WARPMIND_HAVE_CUDA
  im.cells.resize(goals.size());
  for (std::size_t i = 0; i < goals.size(); ++i)
    im.cells[i] = static_cast<std::uint32_t>(g.index(goals[i].x, goals[i].y));
  const std::size_t first[2] = {0, goals.size()};
  gpu::NavRun run;
  im.computed = false;
  if (Status st = im.device->fields_on_device(g.cost.data(), g.width, g.height, im.cells.data(), first, 1, run);
      !st.ok())
    return st.context("nav device field");
  im.computed = true;
  im.goals.assign(goals.begin(), goals.end());
  report(run, t0, stats);
  return Status::Ok();
#else
  (void)t0;
  (void)stats;
  return Status::Unavailable("nav device field: this build has no CUDA");
#endif
}

Status DeviceNavField::update(std::span<const CellChange> changes, FieldStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  Impl& im = *impl_;
  Grid& g = im.grid;
  if (!im.computed) return Status::Invalid("nav device field: no field computed on this grid yet");
  std::vector<std::size_t> changed;
  WM_RETURN_IF_ERROR(detail::apply_changes(
      g, changes, im.goals.size(), [&](std::size_t i) { return im.goals[i]; }, "nav device field", changed));
  im.cells.assign(changed.begin(), changed.end());
  im.costs.resize(changed.size());
  for (std::size_t i = 0; i < changed.size(); ++i) im.costs[i] = g.cost[changed[i]];
#if WARPMIND_HAVE_CUDA
  gpu::NavRun run;
  if (Status st = im.device->update_on_device(im.cells.data(), im.costs.data(), im.cells.size(), run); !st.ok()) {
    im.computed = false;
    return st.context("nav device field");
  }
  report(run, t0, stats);
  return Status::Ok();
#else
  (void)t0;
  (void)stats;
  return Status::Unavailable("nav device field: this build has no CUDA");
#endif
}

Status DeviceNavField::steer_device(const Vec2* device_positions, std::size_t n, Vec2* device_steer,
                                    float* device_dist) const {
  if (!impl_->computed) return Status::Invalid("nav device field: no field computed on this grid yet");
  if (n && (!device_positions || !device_steer || !device_dist))
    return Status::Invalid("nav device field: null device array");
#if WARPMIND_HAVE_CUDA
  static_assert(sizeof(Vec2) == 2 * sizeof(float));
  return gpu::nav_steer(impl_->ctx->stream(), impl_->device->device_distance(), impl_->device->device_direction(),
                        impl_->grid.width, impl_->grid.height, reinterpret_cast<const float*>(device_positions), n,
                        reinterpret_cast<float*>(device_steer), device_dist);
#else
  return Status::Unavailable("nav device field: this build has no CUDA");
#endif
}

Status DeviceNavField::read(std::span<float> distance, std::span<std::int8_t> direction) const {
  const std::size_t cells = impl_->grid.cells();
  if (distance.size() != cells || direction.size() != cells)
    return Status::Invalid("nav device field: read needs " + std::to_string(cells) + " distances and directions");
  if (!impl_->computed) return Status::Invalid("nav device field: no field computed on this grid yet");
#if WARPMIND_HAVE_CUDA
  return impl_->device->download(distance.data(), direction.data(), cells);
#else
  return Status::Unavailable("nav device field: this build has no CUDA");
#endif
}

const Grid& DeviceNavField::grid() const { return impl_->grid; }
const float* DeviceNavField::device_distance() const {
#if WARPMIND_HAVE_CUDA
  return impl_->computed ? impl_->device->device_distance() : nullptr;
#else
  return nullptr;
#endif
}
const std::int8_t* DeviceNavField::device_direction() const {
#if WARPMIND_HAVE_CUDA
  return impl_->computed ? impl_->device->device_direction() : nullptr;
#else
  return nullptr;
#endif
}

}  // namespace warpmind::nav
