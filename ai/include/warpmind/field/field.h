// warpmind::field::FieldLayers — potential-field layers over a world rectangle, built every tick.
//
// What goes in: a world rectangle sampled by a W x H grid, a list of charge kinds (charge.h), and one or
// more named layers. A layer says which entity *group* exerts which kind in it, e.g. for an RTS:
//   layer "team0": group 1 (enemy units) -> attack, group 0 (own units) -> own_unit, group 2 -> obstacle
//   layer "team1": group 0 -> attack, group 1 -> own_unit, group 2 -> obstacle
// build(entities) computes every layer in one call.
//
// What comes out, exactly (the definition every variant meets bit for bit, see docs/field.md):
//   an entity at world (x, y) sits in cell (floor((x - x0) / cw), floor((y - y0) / ch)), cw = width/W;
//   cell c receives u(d) from it, d = sqrt((dx*cw)^2 + (dy*ch)^2) for the cell offset (dx, dy);
//   each contribution is rounded to a multiple of 2^-10 — q = u * 1024 (exact in float) rounded to the
//   nearest integer, ties to even (std::lrint in the default rounding mode on the host,
//   __float2int_rn on the device): 2.5 * 2^-10 -> 2, 3.5 * 2^-10 -> 4, -2.5 * 2^-10 -> -2,
//   0.5 * 2^-10 -> 0 — and summed exactly in 64-bit integers;
//   the cell's value is that sum as the nearest float.
// So CPU and GPU, every variant, every thread count and entity order give identical fields — a lockstep
// game can rely on it — and the memory-copy "stamp" is an exact method, not an approximation.
// Entities outside the world still charge the cells they reach. An entity whose group has no rule in a
// layer contributes nothing to that layer (a group no layer uses is valid and simply ignored); only a
// group >= kMaxGroups (64) is an error.
//
// Variants (FieldVariant) compute the same field at different costs; Auto: gpu-binned on a CUDA context,
// cpu-stamp on a CPU one.
// Cost: the stamp and binned variants do work proportional to the cells inside the entities' cut-offs;
// the naive ones to cells x entities. No heap allocation per build once capacities have grown.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "warpmind/core/context.h"
#include "warpmind/core/geometry.h"
#include "warpmind/field/charge.h"

namespace warpmind::field {

inline constexpr int kFixedPointBits = 10;  // contributions are multiples of 2^-10
inline constexpr std::uint32_t kMaxGroups = 64;
inline constexpr int kMaxKinds = 16;
inline constexpr int kMaxCellsPerSide = 32768;
inline constexpr int kMaxKernelRadiusCells = 4096;  // a kind's cut-off, in cells, at this resolution

enum class FieldVariant {
  Auto,
  CpuNaive,      // every cell sums every entity (the seed's Algorithm 1), multi-threaded over rows
  CpuStamp,      // precomputed charge table stamped at each entity (the seed's memory copy), by row bands
  GpuNaive,      // one thread per cell, all entities, 12-byte records (the seed's Algorithm 3)
  GpuCoalesced,  // as GpuNaive with 16-byte records (the seed's coalesced variant)
  GpuShared,     // entity records tiled through shared memory (the seed's Algorithm 4)
  GpuBinned,     // entities binned to 32x32-cell tiles, each tile gathers its entities' precomputed tables
};
const char* variant_name(FieldVariant v);
bool parse_variant(std::string_view name, FieldVariant& out);
bool is_gpu_variant(FieldVariant v);

using warpmind::Vec2;
using warpmind::WorldRect;

struct Entity {              // 16 bytes, the same layout in host and device memory
  float x = 0.0f, y = 0.0f;  // world units   [Limit: finite]
  std::uint32_t group = 0;   // [Limit: < kMaxGroups]
  std::uint32_t reserved = 0;
};
static_assert(sizeof(Entity) == 16);

struct LayerRule {
  std::uint32_t group;  // entities of this group ...
  std::uint32_t kind;   // ... exert config.kinds[kind] in this layer
};

struct LayerSpec {
  std::string name;
  std::vector<LayerRule> rules;  // at most one rule per group
};

struct FieldConfig {
  WorldRect world;
  int width = 256, height = 256;  // cells   [Limit: 1..kMaxCellsPerSide]
  std::vector<ChargeKind> kinds;  // [Limit: 1..kMaxKinds]
  std::vector<LayerSpec> layers;  // [Limit: >= 1]
  FieldVariant variant = FieldVariant::Auto;
};

struct MoveChoice {
  int cell_x = 0, cell_y = 0;  // the chosen cell
  Vec2 target;                 // its centre in world units
  float value = 0.0f;          // the field there
};

// A layer in device memory, for renderers and for chaining GPU stages without host copies.
struct DeviceField {
  const float* data = nullptr;  // row-major, `width` floats per row; nullptr on CPU variants
  int width = 0, height = 0;
  void* stream = nullptr;  // cudaStream_t the data is produced on
};

// Not thread-safe: one thread at a time per object. The Context must outlive it.
class FieldLayers {
 public:
  // Checks the config (world, resolution, kinds and their size at this resolution, layer rules) and
  // allocates. Fails with Unavailable when a GPU variant is asked for on a CPU context.
  static Status create(Context& ctx, const FieldConfig& config, std::unique_ptr<FieldLayers>& out);
  ~FieldLayers();

  // Builds every layer from host entities. Rejects non-finite positions and groups >= kMaxGroups, naming
  // the first bad entity ("entity 3: group 64 out of range (< 64)"); on error the previous layers stay as
  // they were. Entities of a group < kMaxGroups without a rule in a layer are accepted and ignored there.
  // CPU variants: blocks until the layers are built. GPU variants: stream-ordered — the entities are
  // copied (the span may be reused at once) and the kernels queued on the context's stream; it returns
  // before they finish. Every later call on this object, and any work queued on ctx.stream() after it,
  // sees the new layers; other streams must wait for ctx.stream() (or call ctx.synchronize()).
  Status build(std::span<const Entity> entities);
  // GPU variants only: entities already in device memory (no validation: an entity with a non-finite
  // position or a group >= kMaxGroups contributes nothing). Stream-ordered like build(); the entities
  // must stay allocated until the stream has run it.
  Status build_device(const Entity* device_entities, std::size_t count);
  // GPU variants: build_device() of `fixed` entities (device memory, fixed_count records) followed by one
  // entity {points[i].x, points[i].y, groups[i], 0} per point (device memory: n points, n group bytes) —
  // units whose positions and groups already live on the device (a crowd's positions, a combat module's
  // teams). The records are assembled on the device; the same checks and ordering as build_device().
  Status build_device_points(const Entity* device_fixed, std::size_t fixed_count, const Vec2* device_points,
                             const std::uint8_t* device_groups, std::size_t n);

  FieldVariant variant() const { return variant_; }
  const FieldConfig& config() const { return config_; }
  int layer_count() const { return static_cast<int>(config_.layers.size()); }
  int layer_index(std::string_view name) const;  // -1 when there is no such layer

  // Copies a layer (W*H floats, row-major) to the host; blocks until it is there.
  Status read(int layer, std::span<float> out) const;
  // The largest |value| of a layer (0 for an all-zero layer), e.g. a heat map's colour range when the
  // layer itself stays in device memory; GPU variants reduce on the device and copy back one float.
  // Blocks until it is known.
  Status max_abs(int layer, float& out) const;
  // GPU variants: the layer in device memory. The pointer stays valid until this object is destroyed
  // (the layers are allocated once, at create()); its contents are those of the last build in stream
  // order: read them on ctx.stream() (or after synchronizing it). CPU variants: data is nullptr.
  DeviceField device_layer(int layer) const;

  // Batched queries for many units at once, on the variant's backend. A point outside the world is
  // clamped to the nearest border cell. A point with a non-finite coordinate (NaN, ±inf) is an error:
  // Invalid naming the first one ("sample: point 3 (nan, 1.000000) is not finite"), nothing written.
  //   sample:    the value of the cell containing each point.
  //   best_move: the best cell of the window x window block centred on the point's cell (window odd,
  //              3 = the 8 neighbours and the cell itself; cells off the grid are skipped); ties go to the
  //              first in row-major order, so the choice is deterministic.
  //   gradient:  central differences in value per world unit (one-sided on the border).
  // These block until the results are in `values` / `out`.
  Status sample(int layer, std::span<const Vec2> points, std::span<float> values);
  Status best_move(int layer, std::span<const Vec2> points, int window, std::span<MoveChoice> out);
  Status gradient(int layer, std::span<const Vec2> points, std::span<Vec2> out);
  // GPU variants: the same queries on `n` points and results in device memory (e.g. a crowd's
  // device_positions() in, proposals out), queued on the context's stream after the build and returning
  // at once — field to crowd without a host copy. The arguments are checked (layer, window; null pointers
  // with n > 0); the points are not, and a non-finite point gives a defined non-result instead: sample
  // NaN, gradient (NaN, NaN), best_move cell (-1, -1) with the point itself as target and a NaN value —
  // so a unit with a broken position proposes a non-finite move, which the crowd's step_device() turns
  // into that unit's own OutOfWorld. Unavailable on a CPU variant. The device arrays must stay allocated
  // until the stream has run the query.
  Status sample_device(int layer, const Vec2* device_points, std::size_t n, float* device_values);
  Status best_move_device(int layer, const Vec2* device_points, std::size_t n, int window, MoveChoice* device_out);
  Status gradient_device(int layer, const Vec2* device_points, std::size_t n, Vec2* device_out);

  // Steering: each point p steps towards the centre c of the best cell of its window (best_move) on
  // layer layer_of[i]: with (dx, dy) = c - p and d = sqrt(dx*dx + dy*dy) (float, every operation rounded,
  // no fused multiply-add), out[i] = p + (dx / d * step, dy / d * step) when d > step, else c itself —
  // identical on every variant. heading[i] (optional: an empty span, or null on the device) becomes
  // atan2(dy, dx) where (dx, dy) != (0, 0) and is left as it was otherwise; it is the host's std::atan2 or
  // the device's atan2f, which may differ in the last bits. A layer index past the last leaves its
  // point where it is (and its heading). step: finite, >= 0. A non-finite point: steer() rejects it
  // (as the queries above); steer_device() leaves it where it is, heading unchanged. steer() blocks; steer_device() runs on
  // device arrays (n points, n layer bytes, n results, n headings) queued on the context's stream, like
  // the other device queries (GPU variants only).
  Status steer(std::span<const Vec2> points, std::span<const std::uint8_t> layer_of, int window, float step,
               std::span<Vec2> out, std::span<float> heading);
  Status steer_device(const Vec2* device_points, const std::uint8_t* device_layer_of, std::size_t n, int window,
                      float step, Vec2* device_out, float* device_heading);

  struct Impl;

 private:
  FieldLayers() = default;
  Context* ctx_ = nullptr;
  FieldConfig config_;
  FieldVariant variant_ = FieldVariant::Auto;
  std::unique_ptr<Impl> impl_;
};

// The work any exact method must do for these entities: the number of (cell, charge) pairs with the cell
// inside the charge's cut-off, over every layer (the distance rule and the grid of FieldConfig). The
// benchmarks print it beside their times; it allocates, so it is not for a game's tick.
std::uint64_t count_evaluations(const FieldConfig& config, std::span<const Entity> entities);

}  // namespace warpmind::field
