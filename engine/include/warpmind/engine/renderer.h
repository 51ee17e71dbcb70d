// warpmind::engine::OffscreenRenderer — draws a frame (a scalar field as a heat map, filled triangles,
// units as discs, lines; in that order) into an offscreen Vulkan image and reads it back as RGBA8. Works on any Vulkan 1.2 device, Mesa's
// software rasteriser (lavapipe) included, so frames render with no GPU and no display.
//
// The engine knows nothing of ai/: a demo hands it plain arrays. Not thread-safe; one frame at a time.
// Resources grow with the largest field and unit count seen and are reused (no allocation per frame
// once grown).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace warpmind::engine {

struct Rect {
  float x0 = 0.0f, y0 = 0.0f, x1 = 1.0f, y1 = 1.0f;  // world units, y up
};

struct UnitInstance {        // 20 bytes, the vertex layout of the disc pipeline
  float x = 0.0f, y = 0.0f;  // centre, world units
  float radius = 0.5f;
  std::uint32_t rgba = 0xffffffffu;  // R in the lowest byte
  float facing = kNoFacing;          // radians (0 = +x, counter-clockwise); kNoFacing: no marker
  static constexpr float kNoFacing = 1000.0f;
};
static_assert(sizeof(UnitInstance) == 20);

struct LineVertex {          // 12 bytes; segments are consecutive pairs
  float x = 0.0f, y = 0.0f;  // world units
  std::uint32_t rgba = 0xffffffffu;
};
static_assert(sizeof(LineVertex) == 12);

struct Frame {
  Rect camera;                  // the world rectangle shown
  const float* heat = nullptr;  // row-major heat_w x heat_h values, row 0 = lowest y; nullptr: none
  int heat_w = 0, heat_h = 0;
  Rect heat_area;                         // world rectangle the heat values cover
  float heat_lo = -1.0f, heat_hi = 1.0f;  // colour ramp range (diverging, 0 in the middle when symmetric)
  const UnitInstance* units = nullptr;
  std::size_t unit_count = 0;
  const LineVertex* fills = nullptr;  // filled triangles (board squares, shapes) over the heat map and under
  std::size_t fill_vertex_count = 0;  // the units, alpha-blended; three vertices each
  const LineVertex* lines = nullptr;  // debug lines over the units (grid cells, rectangles, ...)
  std::size_t line_vertex_count = 0;  // even
  // The heat values are in the renderer's shared heat buffer (SharedHeat) instead of at `heat`;
  // heat_w x heat_h must be the size it was made for.
  bool heat_shared = false;
};

// A device buffer of w * h floats exported by the renderer's Vulkan device (an opaque POSIX file
// descriptor, VK_KHR_external_memory_fd) for a compute API on the same GPU to import and write the heat
// values into — no host copy. `device_uuid` identifies the Vulkan device (match it with CUDA's). The
// renderer owns the memory; the importer owns `fd` once it has imported it (close it otherwise).
// Writes must not overlap a frame in flight: call wait_idle() on the renderer first.
struct SharedHeat {
  int fd = -1;
  std::size_t bytes = 0;  // size of the allocation (>= w * h * 4)
  int w = 0, h = 0;
  std::uint8_t device_uuid[16] = {};
};

// Checks a frame's contract; empty when fine.
std::string check_frame(const Frame& f);

class OffscreenRenderer {
 public:
  // Picks the first Vulkan device with a graphics queue (prefers a discrete GPU). Returns an empty
  // string on success, else why no renderer could be made (no loader, no device, ...).
  static std::string create(int width, int height, std::unique_ptr<OffscreenRenderer>& out);
  ~OffscreenRenderer();

  // Renders and reads back width * height * 4 bytes, row 0 at the top of the image.
  std::string render(const Frame& frame, std::vector<std::uint8_t>& rgba);

  int width() const;
  int height() const;
  const std::string& device_name() const;
  int validation_messages() const;  // validation-layer warnings and errors so far (0 when it is off)
  // Exports a heat buffer of w x h floats (see SharedHeat); fails when the device cannot export memory.
  std::string share_heat(int w, int h, SharedHeat& out);
  void wait_idle();

  struct Impl;

 private:
  OffscreenRenderer() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::engine
