// warpmind::engine::OffscreenRenderer — draws a frame (a scalar field as a heat map, units as discs)
// into an offscreen Vulkan image and reads it back as RGBA8. Works on any Vulkan 1.2 device, Mesa's
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

struct UnitInstance {  // 16 bytes, the vertex layout of the disc pipeline
  float x = 0.0f, y = 0.0f;  // centre, world units
  float radius = 0.5f;
  std::uint32_t rgba = 0xffffffffu;  // R in the lowest byte
};
static_assert(sizeof(UnitInstance) == 16);

struct LineVertex {  // 12 bytes; segments are consecutive pairs
  float x = 0.0f, y = 0.0f;  // world units
  std::uint32_t rgba = 0xffffffffu;
};
static_assert(sizeof(LineVertex) == 12);

struct Frame {
  Rect camera;                    // the world rectangle shown
  const float* heat = nullptr;    // row-major heat_w x heat_h values, row 0 = lowest y; nullptr: none
  int heat_w = 0, heat_h = 0;
  Rect heat_area;                 // world rectangle the heat values cover
  float heat_lo = -1.0f, heat_hi = 1.0f;  // colour ramp range (diverging, 0 in the middle when symmetric)
  const UnitInstance* units = nullptr;
  std::size_t unit_count = 0;
  const LineVertex* lines = nullptr;  // debug lines over the units (grid cells, rectangles, ...)
  std::size_t line_vertex_count = 0;  // even
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

  struct Impl;

 private:
  OffscreenRenderer() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::engine
