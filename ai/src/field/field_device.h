// The interface the field's kernels implement (gpu/src/field/field.cu), host-only. ai/src/field/field.cpp
// builds a FieldSetup from FieldLayers' config (the charge tables are made on the host) and owns one
// FieldDevice; points and moves are the public Vec2 and MoveChoice, in device or host memory as each call
// says.
//
// The definition of a field (snap to cells, distance, rounding, exact integer sums) is the one in
// ai/include/warpmind/field/field.h; the charge tables are computed on the host and uploaded as they are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "field/field_rules.h"
#include "warpmind/core/status.h"
#include "warpmind/field/field.h"

namespace warpmind::gpu {

inline constexpr int kFieldTile = 32;  // binned variant: tiles of 32 x 32 cells

// A charge kind as the kernels use it: its profile (evaluated per cell by the naive, coalesced and shared
// kernels) and where its host-made table lies (read by the binned kernel).
struct FieldKind {
  field::ChargeProfile profile;
  int rx, ry;        // table reach in cells; the table has (rx + 2) * (ry + 2) entries
  int table_offset;  // into the concatenated tables
};

struct FieldGrid {
  float x0, y0, cell_w, cell_h;
  int width, height;
};

struct FieldLayerMap {
  std::int16_t kind_of_group[field::kMaxGroups];  // -1: the group exerts nothing in this layer
  std::int32_t max_abs_q;                         // largest |table entry| of the kinds used
  std::int32_t max_tiles_per_instance;            // bound on tiles one charge can touch
};

enum class FieldKernel { Naive, Coalesced, Shared, Binned };

struct FieldSetup {
  FieldKernel kernel;
  FieldGrid grid;
  std::vector<FieldKind> kinds;
  std::vector<std::int32_t> tables;
  std::vector<FieldLayerMap> layers;
};

// Device state of one set of layers. Not thread-safe; all work goes to the stream given at creation.
class FieldDevice {
 public:
  static Status create(void* stream, const FieldSetup& setup, std::unique_ptr<FieldDevice>& out);
  ~FieldDevice();

  // entities: 16-byte records {float x, y; uint32 group, reserved} in device memory.
  Status build(const void* device_entities, std::size_t count);
  // build() from `fixed` entity records (device, nf of them) followed by one record {x, y, group, 0}
  // per point (device: n float pairs and n group bytes), assembled on the device.
  Status build_points(const void* fixed, std::size_t nf, const float* points, const std::uint8_t* groups,
                      std::size_t n);
  // Copies host entities to a device staging buffer first (on the stream, from pageable memory).
  Status build_from_host(const void* host_entities, std::size_t count);

  const float* layer(int i) const;
  Status download(int layer, float* host) const;  // synchronous
  Status max_abs(int layer, float& out) const;    // the largest |value| of a layer; synchronous

  // Synchronous batched queries (upload points, one kernel, download results).
  Status sample(int layer, const Vec2* points, std::size_t n, float* out);
  Status best_move(int layer, const Vec2* points, std::size_t n, int window, field::MoveChoice* out);
  Status gradient(int layer, const Vec2* points, std::size_t n, Vec2* out);
  // The same queries on points and results already in device memory: queued on the stream, no copies,
  // no wait.
  Status sample_device(int layer, const Vec2* points, std::size_t n, float* out);
  Status best_move_device(int layer, const Vec2* points, std::size_t n, int window, field::MoveChoice* out);
  Status gradient_device(int layer, const Vec2* points, std::size_t n, Vec2* out);
  // rules::steer for each point on layer layer_of[i] (a byte a point; one past the last layer: the
  // point stays and its heading is left), heading[i] = atan2f(dy, dx) where d > 0 (heading may be null).
  Status steer_device(const Vec2* points, const std::uint8_t* layer_of, std::size_t n, int window, float step,
                      Vec2* out, float* heading);

  struct Impl;

 private:
  FieldDevice() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::gpu
