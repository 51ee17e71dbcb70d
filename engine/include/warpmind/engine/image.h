// Images for people: scalar grids as colour heat maps, written as PNG. No dependency on ai/; the demo
// engine's renderer uses the same colour ramps on the GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace warpmind::engine {

enum class ColorRamp {
  Diverging,   // negative blue, zero dark, positive red-yellow: for potentials that attract and repel
  Sequential,  // dark to bright: for magnitudes
};

struct HeatRange {
  float lo = 0.0f, hi = 0.0f;  // lo == hi: derive from the data (symmetric around 0 for Diverging)
};

// Colours a row-major w x h grid into RGBA8, row 0 of the grid at the bottom of the image.
// NaN cells come out magenta. Returns the range used.
HeatRange heatmap_rgba(const float* values, int w, int h, HeatRange range, ColorRamp ramp,
                       std::vector<std::uint8_t>& rgba);

// Writes RGBA8 pixels as a PNG. Returns an empty string or the reason it failed.
std::string write_png(const std::string& path, int w, int h, const std::uint8_t* rgba);

}  // namespace warpmind::engine
