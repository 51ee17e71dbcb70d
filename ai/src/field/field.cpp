// FieldLayers: validation, the CPU variants (naive, stamp), CPU queries, and dispatch to gpu/.
#include "core/names.h"
#include "warpmind/field/field.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>

#include "field_math.h"
#include "warpmind/core/device_memory.h"

#if WARPMIND_HAVE_CUDA
#include "field/field_device.h"
#endif

namespace warpmind::field {

using detail::Grid;
using detail::Instance;
using detail::KindTable;

namespace {

constexpr warpmind::detail::Named<FieldVariant> kVariants[] = {
    {FieldVariant::Auto, "auto"},
    {FieldVariant::CpuNaive, "cpu-naive"},
    {FieldVariant::CpuStamp, "cpu-stamp"},
    {FieldVariant::GpuNaive, "gpu-naive"},
    {FieldVariant::GpuCoalesced, "gpu-coalesced"},
    {FieldVariant::GpuShared, "gpu-shared"},
    {FieldVariant::GpuBinned, "gpu-binned"},
};

}  // namespace

const char* variant_name(FieldVariant v) { return warpmind::detail::name_of(kVariants, v); }
bool parse_variant(std::string_view name, FieldVariant& out) {
  return warpmind::detail::parse_name(kVariants, name, out);
}

bool is_gpu_variant(FieldVariant v) {
  return v == FieldVariant::GpuNaive || v == FieldVariant::GpuCoalesced || v == FieldVariant::GpuShared ||
         v == FieldVariant::GpuBinned;
}

struct FieldLayers::Impl {
  Grid grid{};
  std::vector<KindTable> tables;
  std::vector<std::vector<int>> group_maps;  // per layer
  // CPU variants
  std::vector<std::vector<float>> layers;  // per layer, W*H
  std::vector<std::int64_t> acc;           // W*H exact sums, reused by every layer
  std::vector<Instance> instances;         // reused
#if WARPMIND_HAVE_CUDA
  std::unique_ptr<gpu::FieldDevice> device;
  DeviceBytes steer_points, steer_out, steer_layers, steer_heading;  // steer() on a GPU variant
#endif
};

namespace {

Status validate(const FieldConfig& c) {
  const auto finite = [](float v) { return std::isfinite(v); };
  if (!finite(c.world.x0) || !finite(c.world.y0) || !finite(c.world.width) || !finite(c.world.height) ||
      c.world.width <= 0.0f || c.world.height <= 0.0f)
    return Status::Invalid("world: x0, y0 must be finite and width, height finite and > 0");
  if (c.width < 1 || c.height < 1 || c.width > kMaxCellsPerSide || c.height > kMaxCellsPerSide)
    return Status::Invalid("resolution: width and height must be in 1.." + std::to_string(kMaxCellsPerSide) + ", got " +
                           std::to_string(c.width) + "x" + std::to_string(c.height));
  if (c.kinds.empty() || c.kinds.size() > static_cast<std::size_t>(kMaxKinds))
    return Status::Invalid("kinds: need 1.." + std::to_string(kMaxKinds) + ", got " + std::to_string(c.kinds.size()));
  const Grid g = detail::make_grid(c);
  for (std::size_t i = 0; i < c.kinds.size(); ++i) {
    const ChargeKind& k = c.kinds[i];
    const std::string where = "kinds[" + std::to_string(i) + "] '" + k.name + "': ";
    if (k.segments < 1 || k.segments > ChargeKind::kMaxSegments)
      return Status::Invalid(where + "has no valid segments (bad parameters?)");
    std::vector<ChargeSegment> segs;
    for (int s = 0; s < k.segments; ++s) segs.push_back({k.end[s], k.slope[s], k.intercept[s]});
    ChargeKind checked;
    WM_RETURN_IF_ERROR(make_charge_kind(k.name, segs, checked));
    if (detail::reach(k.cutoff(), g.cw) > kMaxKernelRadiusCells ||
        detail::reach(k.cutoff(), g.ch) > kMaxKernelRadiusCells)
      return Status::Invalid(where + "cut-off " + std::to_string(k.cutoff()) + " spans more than " +
                             std::to_string(kMaxKernelRadiusCells) + " cells at this resolution");
  }
  if (c.layers.empty()) return Status::Invalid("layers: need at least one layer");
  for (std::size_t l = 0; l < c.layers.size(); ++l) {
    const LayerSpec& layer = c.layers[l];
    const std::string where = "layers[" + std::to_string(l) + "] '" + layer.name + "': ";
    if (layer.name.empty()) return Status::Invalid(where + "name must not be empty");
    for (std::size_t m = 0; m < l; ++m)
      if (c.layers[m].name == layer.name) return Status::Invalid(where + "duplicate layer name");
    std::vector<bool> seen(kMaxGroups, false);
    for (const LayerRule& r : layer.rules) {
      if (r.group >= kMaxGroups)
        return Status::Invalid(where + "group " + std::to_string(r.group) + " out of range (< 64)");
      if (r.kind >= c.kinds.size())
        return Status::Invalid(where + "kind index " + std::to_string(r.kind) + " out of range");
      if (seen[r.group]) return Status::Invalid(where + "group " + std::to_string(r.group) + " has two rules");
      seen[r.group] = true;
    }
  }
  return Status::Ok();
}

// ---- CPU variants --------------------------------------------------------------------------------

// Cells [row_begin, row_end) of one layer, every instance evaluated at every cell (Algorithm 1).
void naive_rows(const FieldConfig& c, const Grid& g, const std::vector<Instance>& inst, int row_begin, int row_end,
                std::int64_t* acc) {
  for (int y = row_begin; y < row_end; ++y)
    for (int x = 0; x < g.width; ++x) {
      std::int64_t sum = 0;
      for (const Instance& i : inst) {
        const ChargeKind& k = c.kinds[i.kind];
        sum += detail::quantize(detail::kind_value(k, detail::cell_distance(x - i.ix, y - i.iy, g)));
      }
      acc[static_cast<std::size_t>(y) * g.width + x] = sum;
    }
}

// Cells [row_begin, row_end) of one layer, each instance's table added where it overlaps (memory copy).
void stamp_rows(const Grid& g, const std::vector<KindTable>& tables, const std::vector<Instance>& inst, int row_begin,
                int row_end, std::int64_t* acc) {
  std::fill(acc + static_cast<std::size_t>(row_begin) * g.width, acc + static_cast<std::size_t>(row_end) * g.width,
            std::int64_t{0});
  for (const Instance& i : inst) {
    const KindTable& t = tables[i.kind];
    const int y0 = std::max(row_begin, i.iy - t.ry), y1 = std::min(row_end - 1, i.iy + t.ry);
    const int x0 = std::max(0, i.ix - t.rx), x1 = std::min(g.width - 1, i.ix + t.rx);
    if (y0 > y1 || x0 > x1) continue;
    for (int y = y0; y <= y1; ++y) {
      const std::int32_t* row = t.q.data() + static_cast<std::size_t>(std::abs(y - i.iy)) * t.pitch();
      std::int64_t* out = acc + static_cast<std::size_t>(y) * g.width;
      const int mid = std::clamp(i.ix, x0, x1 + 1);
      for (int x = x0; x < mid; ++x) out[x] += row[i.ix - x];
      for (int x = mid; x <= x1; ++x) out[x] += row[x - i.ix];
    }
  }
}

}  // namespace

Status FieldLayers::create(Context& ctx, const FieldConfig& config, std::unique_ptr<FieldLayers>& out) {
  WM_RETURN_IF_ERROR(validate(config));
  FieldVariant v = config.variant;
  if (v == FieldVariant::Auto) v = ctx.cuda() ? FieldVariant::GpuBinned : FieldVariant::CpuStamp;
  if (is_gpu_variant(v) && !ctx.cuda())
    return Status::Unavailable(std::string("variant ") + variant_name(v) + " needs the CUDA backend (" +
                               (ctx.fallback_reason().empty() ? "context is cpu" : ctx.fallback_reason()) + ")");

  std::unique_ptr<FieldLayers> f(new FieldLayers());
  f->ctx_ = &ctx;
  f->config_ = config;
  f->variant_ = v;
  f->impl_ = std::make_unique<Impl>();
  Impl& im = *f->impl_;
  im.grid = detail::make_grid(config);
  for (const ChargeKind& k : config.kinds) im.tables.push_back(detail::make_table(k, im.grid));
  for (const LayerSpec& l : config.layers) im.group_maps.push_back(detail::group_map(l));
  const std::size_t cells = static_cast<std::size_t>(config.width) * config.height;

  if (!is_gpu_variant(v)) {
    try {
      im.layers.assign(config.layers.size(), std::vector<float>(cells, 0.0f));
      im.acc.assign(cells, 0);
    } catch (const std::bad_alloc&) {
      return {StatusCode::OutOfMemory, "field: cannot allocate " + std::to_string(cells) + " cells per layer"};
    }
  } else {
#if WARPMIND_HAVE_CUDA
    gpu::FieldSetup s;
    s.kernel = v == FieldVariant::GpuNaive       ? gpu::FieldKernel::Naive
               : v == FieldVariant::GpuCoalesced ? gpu::FieldKernel::Coalesced
               : v == FieldVariant::GpuShared    ? gpu::FieldKernel::Shared
                                                 : gpu::FieldKernel::Binned;
    s.grid = {im.grid.x0, im.grid.y0, im.grid.cw, im.grid.ch, im.grid.width, im.grid.height};
    for (std::size_t k = 0; k < config.kinds.size(); ++k) {
      gpu::FieldKind gk{};
      gk.profile = config.kinds[k];
      gk.rx = im.tables[k].rx;
      gk.ry = im.tables[k].ry;
      gk.table_offset = static_cast<int>(s.tables.size());
      s.tables.insert(s.tables.end(), im.tables[k].q.begin(), im.tables[k].q.end());
      s.kinds.push_back(gk);
    }
    const auto tiles_along = [](int reach) { return (2 * reach + 1 + gpu::kFieldTile - 1) / gpu::kFieldTile + 1; };
    for (std::size_t l = 0; l < config.layers.size(); ++l) {
      gpu::FieldLayerMap m{};
      m.max_abs_q = 0;
      m.max_tiles_per_instance = 0;
      for (std::uint32_t gidx = 0; gidx < kMaxGroups; ++gidx) {
        const int k = im.group_maps[l][gidx];
        m.kind_of_group[gidx] = static_cast<std::int16_t>(k);
        if (k < 0) continue;
        m.max_abs_q = std::max(m.max_abs_q, im.tables[k].max_abs_q);
        m.max_tiles_per_instance =
            std::max(m.max_tiles_per_instance, tiles_along(im.tables[k].rx) * tiles_along(im.tables[k].ry));
      }
      s.layers.push_back(m);
    }
    Status err = gpu::FieldDevice::create(ctx.stream(), s, im.device);
    if (!err.ok()) return err.context("field");
#endif
  }
  out = std::move(f);
  return Status::Ok();
}

FieldLayers::~FieldLayers() = default;

int FieldLayers::layer_index(std::string_view name) const {
  for (std::size_t i = 0; i < config_.layers.size(); ++i)
    if (config_.layers[i].name == name) return static_cast<int>(i);
  return -1;
}

Status FieldLayers::build(std::span<const Entity> entities) {
  for (std::size_t i = 0; i < entities.size(); ++i) {
    const Entity& e = entities[i];
    if (!std::isfinite(e.x) || !std::isfinite(e.y))
      return Status::Invalid("entity " + std::to_string(i) + ": position is not finite");
    if (e.group >= kMaxGroups)
      return Status::Invalid("entity " + std::to_string(i) + ": group " + std::to_string(e.group) +
                             " out of range (< 64)");
  }
  Impl& im = *impl_;
  if (is_gpu_variant(variant_)) {
#if WARPMIND_HAVE_CUDA
    Status err = im.device->build_from_host(entities.data(), entities.size());
    if (!err.ok()) return err.context("field build");
#endif
    return Status::Ok();
  }
  const Grid& g = im.grid;
  const int band = std::max(1, std::min(64, g.height / static_cast<int>(ctx_->pool().size() * 4) + 1));
  const int bands = (g.height + band - 1) / band;
  for (std::size_t l = 0; l < config_.layers.size(); ++l) {
    detail::make_instances(im.group_maps[l], entities, g, im.instances);
    float* dst = im.layers[l].data();
    ctx_->pool().parallel_for(static_cast<std::size_t>(bands), [&](std::size_t b0, std::size_t b1, unsigned) {
      for (std::size_t b = b0; b < b1; ++b) {
        const int r0 = static_cast<int>(b) * band, r1 = std::min(g.height, r0 + band);
        if (variant_ == FieldVariant::CpuNaive)
          naive_rows(config_, g, im.instances, r0, r1, im.acc.data());
        else
          stamp_rows(g, im.tables, im.instances, r0, r1, im.acc.data());
        for (std::size_t c = static_cast<std::size_t>(r0) * g.width; c < static_cast<std::size_t>(r1) * g.width; ++c)
          dst[c] = detail::dequantize(im.acc[c]);
      }
    });
  }
  return Status::Ok();
}

Status FieldLayers::build_device(const Entity* device_entities, std::size_t count) {
  if (!is_gpu_variant(variant_))
    return Status::Invalid(std::string("build_device needs a GPU variant, this one is ") + variant_name(variant_));
#if WARPMIND_HAVE_CUDA
  Status err = impl_->device->build(device_entities, count);
  if (!err.ok()) return err.context("field build");
#else
  (void)device_entities;
  (void)count;
#endif
  return Status::Ok();
}

Status FieldLayers::build_device_points(const Entity* device_fixed, std::size_t fixed_count, const Vec2* device_points,
                                        const std::uint8_t* device_groups, std::size_t n) {
  if (!is_gpu_variant(variant_))
    return Status::Invalid(std::string("build_device_points needs a GPU variant, this one is ") +
                           variant_name(variant_));
  if ((fixed_count > 0 && !device_fixed) || (n > 0 && (!device_points || !device_groups)))
    return Status::Invalid("build_device_points: null device pointer");
#if WARPMIND_HAVE_CUDA
  Status err = impl_->device->build_points(device_fixed, fixed_count, reinterpret_cast<const float*>(device_points),
                                           device_groups, n);
  if (!err.ok()) return err.context("field build");
#endif
  return Status::Ok();
}

Status FieldLayers::read(int layer, std::span<float> out) const {
  if (layer < 0 || layer >= layer_count()) return Status::Invalid("read: no layer " + std::to_string(layer));
  const std::size_t cells = static_cast<std::size_t>(config_.width) * config_.height;
  if (out.size() < cells)
    return Status::Invalid("read: output holds " + std::to_string(out.size()) + " floats, layer has " +
                           std::to_string(cells));
  if (is_gpu_variant(variant_)) {
#if WARPMIND_HAVE_CUDA
    Status err = impl_->device->download(layer, out.data());
    if (!err.ok()) return err.context("read");
#endif
    return Status::Ok();
  }
  std::memcpy(out.data(), impl_->layers[layer].data(), cells * sizeof(float));
  return Status::Ok();
}

Status FieldLayers::max_abs(int layer, float& out) const {
  if (layer < 0 || layer >= layer_count()) return Status::Invalid("max_abs: no layer " + std::to_string(layer));
  if (is_gpu_variant(variant_)) {
#if WARPMIND_HAVE_CUDA
    Status err = impl_->device->max_abs(layer, out);
    if (!err.ok()) return err.context("max_abs");
#endif
    return Status::Ok();
  }
  float m = 0.0f;
  for (float v : impl_->layers[layer]) m = std::max(m, std::fabs(v));
  out = m;
  return Status::Ok();
}

DeviceField FieldLayers::device_layer(int layer) const {
  DeviceField d;
  d.width = config_.width;
  d.height = config_.height;
#if WARPMIND_HAVE_CUDA
  if (is_gpu_variant(variant_) && layer >= 0 && layer < layer_count()) {
    d.data = impl_->device->layer(layer);
    d.stream = ctx_->stream();
  }
#else
  (void)layer;
#endif
  return d;
}

// ---- queries -------------------------------------------------------------------------------------

namespace {

// A layer for the shared query rules.
rules::LayerView view_of(const float* f, const detail::Grid& g) {
  return {f, g.x0, g.y0, g.cw, g.ch, g.width, g.height};
}

// A non-finite point is an error of the host queries (the first one is named; nothing is written).
Status check_points(std::span<const Vec2> points, const char* what) {
  for (std::size_t i = 0; i < points.size(); ++i)
    if (!rules::finite_point(points[i]))
      return Status::Invalid(std::string(what) + ": point " + std::to_string(i) + " (" + std::to_string(points[i].x) +
                             ", " + std::to_string(points[i].y) + ") is not finite");
  return Status::Ok();
}

Status check_query(const FieldLayers& f, int layer, std::span<const Vec2> points, std::size_t out, const char* what) {
  if (layer < 0 || layer >= f.layer_count())
    return Status::Invalid(std::string(what) + ": no layer " + std::to_string(layer));
  if (out < points.size())
    return Status::Invalid(std::string(what) + ": output holds " + std::to_string(out) + " results for " +
                           std::to_string(points.size()) + " points");
  return check_points(points, what);
}

}  // namespace

Status FieldLayers::sample(int layer, std::span<const Vec2> points, std::span<float> values) {
  WM_RETURN_IF_ERROR(check_query(*this, layer, points, values.size(), "sample"));
  if (is_gpu_variant(variant_)) {
#if WARPMIND_HAVE_CUDA
    Status err = impl_->device->sample(layer, points.data(), points.size(), values.data());
    if (!err.ok()) return err.context("sample");
#endif
    return Status::Ok();
  }
  const auto v = view_of(impl_->layers[layer].data(), impl_->grid);
  ctx_->pool().parallel_for(
      points.size(),
      [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t i = b; i < e; ++i) values[i] = rules::sample(v, points[i]);
      },
      4096);
  return Status::Ok();
}

Status FieldLayers::best_move(int layer, std::span<const Vec2> points, int window, std::span<MoveChoice> out) {
  WM_RETURN_IF_ERROR(check_query(*this, layer, points, out.size(), "best_move"));
  if (window < 1 || window % 2 == 0 || window > 63)
    return Status::Invalid("best_move: window must be odd and in 1..63, got " + std::to_string(window));
  if (is_gpu_variant(variant_)) {
#if WARPMIND_HAVE_CUDA
    Status err = impl_->device->best_move(layer, points.data(), points.size(), window, out.data());
    if (!err.ok()) return err.context("best_move");
#endif
    return Status::Ok();
  }
  const auto v = view_of(impl_->layers[layer].data(), impl_->grid);
  ctx_->pool().parallel_for(
      points.size(),
      [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t i = b; i < e; ++i) {
          out[i] = rules::best_move(v, points[i], window / 2);
        }
      },
      1024);
  return Status::Ok();
}

Status FieldLayers::gradient(int layer, std::span<const Vec2> points, std::span<Vec2> out) {
  WM_RETURN_IF_ERROR(check_query(*this, layer, points, out.size(), "gradient"));
  if (is_gpu_variant(variant_)) {
#if WARPMIND_HAVE_CUDA
    Status err = impl_->device->gradient(layer, points.data(), points.size(), out.data());
    if (!err.ok()) return err.context("gradient");
#endif
    return Status::Ok();
  }
  const auto v = view_of(impl_->layers[layer].data(), impl_->grid);
  ctx_->pool().parallel_for(
      points.size(),
      [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t i = b; i < e; ++i) out[i] = rules::gradient(v, points[i]);
      },
      4096);
  return Status::Ok();
}

namespace {

// The device queries' common checks: a GPU variant, the layer, pointers for n > 0.
Status check_device_query(const FieldLayers& f, int layer, std::size_t n, const void* points, const void* out,
                          const char* what) {
  if (!is_gpu_variant(f.variant()))
    return Status::Unavailable(std::string(what) + ": device queries need a GPU variant");
  if (layer < 0 || layer >= f.layer_count())
    return Status::Invalid(std::string(what) + ": no layer " + std::to_string(layer));
  if (n > 0 && (!points || !out)) return Status::Invalid(std::string(what) + ": null device pointer");
  return Status::Ok();
}

}  // namespace

Status FieldLayers::sample_device(int layer, const Vec2* device_points, std::size_t n, float* device_values) {
  WM_RETURN_IF_ERROR(check_device_query(*this, layer, n, device_points, device_values, "sample_device"));
#if WARPMIND_HAVE_CUDA
  return impl_->device->sample_device(layer, device_points, n, device_values).context("sample_device");
#else
  return Status::Ok();
#endif
}

Status FieldLayers::best_move_device(int layer, const Vec2* device_points, std::size_t n, int window,
                                     MoveChoice* device_out) {
  WM_RETURN_IF_ERROR(check_device_query(*this, layer, n, device_points, device_out, "best_move_device"));
  if (window < 1 || window % 2 == 0 || window > 63)
    return Status::Invalid("best_move_device: window must be odd and in 1..63, got " + std::to_string(window));
#if WARPMIND_HAVE_CUDA
  return impl_->device->best_move_device(layer, device_points, n, window, device_out).context("best_move_device");
#else
  return Status::Ok();
#endif
}

Status FieldLayers::steer(std::span<const Vec2> points, std::span<const std::uint8_t> layer_of, int window, float step,
                          std::span<Vec2> out, std::span<float> heading) {
  const std::size_t n = points.size();
  if (layer_of.size() != n || out.size() < n || (!heading.empty() && heading.size() < n))
    return Status::Invalid("steer: " + std::to_string(n) + " points need as many layer indices, results and headings");
  if (window < 1 || window % 2 == 0 || window > 63)
    return Status::Invalid("steer: window must be odd and in 1..63, got " + std::to_string(window));
  if (!std::isfinite(step) || !(step >= 0)) return Status::Invalid("steer: step must be finite and >= 0");
  WM_RETURN_IF_ERROR(check_points(points, "steer"));
  const int layers = layer_count();
  if (is_gpu_variant(variant_)) {
#if WARPMIND_HAVE_CUDA
    // Through device copies: points, layers (and headings) up, results down.
    Impl& im = *impl_;
    Status err;
    const auto fit = [&](DeviceBytes& d, std::size_t bytes) {
      if (err.ok() && d.size() < bytes) err = d.allocate(*ctx_, bytes);
    };
    fit(im.steer_points, n * sizeof(Vec2));
    fit(im.steer_out, n * sizeof(Vec2));
    fit(im.steer_layers, n);
    if (!heading.empty()) fit(im.steer_heading, n * sizeof(float));
    if (err.ok() && n > 0) err = im.steer_points.upload(*ctx_, points.data(), n * sizeof(Vec2));
    if (err.ok() && n > 0) err = im.steer_layers.upload(*ctx_, layer_of.data(), n);
    if (err.ok() && n > 0 && !heading.empty()) err = im.steer_heading.upload(*ctx_, heading.data(), n * sizeof(float));
    if (err.ok())
      err = steer_device(static_cast<const Vec2*>(im.steer_points.get()),
                         static_cast<const std::uint8_t*>(im.steer_layers.get()), n, window, step,
                         static_cast<Vec2*>(im.steer_out.get()),
                         heading.empty() ? nullptr : static_cast<float*>(im.steer_heading.get()));
    if (err.ok() && n > 0) err = im.steer_out.download(*ctx_, out.data(), n * sizeof(Vec2));
    if (err.ok() && n > 0 && !heading.empty())
      err = im.steer_heading.download(*ctx_, heading.data(), n * sizeof(float));
    return err.ok() ? err : err.context("steer");
#endif
    return Status::Ok();
  }
  ctx_->pool().parallel_for(
      n,
      [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t i = b; i < e; ++i) {
          if (layer_of[i] >= layers) {
            out[i] = points[i];
            continue;
          }
          const auto v = view_of(impl_->layers[layer_of[i]].data(), impl_->grid);
          float dx = 0, dy = 0;
          out[i] = rules::steer(v, points[i], window / 2, step, dx, dy);
          if (!heading.empty() && (dx != 0.0f || dy != 0.0f)) heading[i] = std::atan2(dy, dx);
        }
      },
      4096);
  return Status::Ok();
}

Status FieldLayers::steer_device(const Vec2* device_points, const std::uint8_t* device_layer_of, std::size_t n,
                                 int window, float step, Vec2* device_out, float* device_heading) {
  WM_RETURN_IF_ERROR(check_device_query(*this, 0, n, device_points, device_out, "steer_device"));
  if (n > 0 && !device_layer_of) return Status::Invalid("steer_device: null device pointer");
  if (window < 1 || window % 2 == 0 || window > 63)
    return Status::Invalid("steer_device: window must be odd and in 1..63, got " + std::to_string(window));
  if (!std::isfinite(step) || !(step >= 0)) return Status::Invalid("steer_device: step must be finite and >= 0");
#if WARPMIND_HAVE_CUDA
  return impl_->device->steer_device(device_points, device_layer_of, n, window, step, device_out, device_heading)
      .context("steer_device");
#else
  (void)device_heading;
  return Status::Ok();
#endif
}

Status FieldLayers::gradient_device(int layer, const Vec2* device_points, std::size_t n, Vec2* device_out) {
  WM_RETURN_IF_ERROR(check_device_query(*this, layer, n, device_points, device_out, "gradient_device"));
#if WARPMIND_HAVE_CUDA
  return impl_->device->gradient_device(layer, device_points, n, device_out).context("gradient_device");
#else
  return Status::Ok();
#endif
}

}  // namespace warpmind::field
