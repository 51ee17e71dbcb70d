#include "warpmind/engine/image.h"

#include <algorithm>
#include <cmath>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

namespace warpmind::engine {

namespace {

struct Rgb {
  float r, g, b;
};

Rgb lerp(Rgb a, Rgb b, float t) { return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t}; }

// Piecewise-linear ramp through evenly spaced stops, t in [0, 1].
template <std::size_t N>
Rgb ramp_at(const Rgb (&stops)[N], float t) {
  t = std::clamp(t, 0.0f, 1.0f) * static_cast<float>(N - 1);
  const std::size_t i = std::min(static_cast<std::size_t>(t), N - 2);
  return lerp(stops[i], stops[i + 1], t - static_cast<float>(i));
}

constexpr Rgb kDiverging[] = {
    {0.05f, 0.20f, 0.60f}, {0.20f, 0.55f, 0.95f}, {0.06f, 0.06f, 0.08f}, {0.90f, 0.30f, 0.10f}, {1.00f, 0.90f, 0.35f}};
constexpr Rgb kSequential[] = {
    {0.02f, 0.02f, 0.06f}, {0.35f, 0.05f, 0.45f}, {0.85f, 0.25f, 0.20f}, {1.00f, 0.85f, 0.30f}};

}  // namespace

HeatRange heatmap_rgba(const float* values, int w, int h, HeatRange range, ColorRamp ramp,
                       std::vector<std::uint8_t>& rgba) {
  const std::size_t n = static_cast<std::size_t>(w) * h;
  if (range.lo == range.hi) {
    float lo = 0.0f, hi = 0.0f;
    for (std::size_t i = 0; i < n; ++i)
      if (std::isfinite(values[i])) {
        lo = std::min(lo, values[i]);
        hi = std::max(hi, values[i]);
      }
    if (ramp == ColorRamp::Diverging) {
      const float m = std::max({-lo, hi, 1e-6f});
      range = {-m, m};
    } else {
      range = {lo, hi > lo ? hi : lo + 1.0f};
    }
  }
  rgba.resize(n * 4);
  const float inv = 1.0f / (range.hi - range.lo);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float v = values[static_cast<std::size_t>(y) * w + x];
      Rgb c{1.0f, 0.0f, 1.0f};
      if (std::isfinite(v)) {
        const float t = (v - range.lo) * inv;
        c = ramp == ColorRamp::Diverging ? ramp_at(kDiverging, t) : ramp_at(kSequential, t);
      }
      std::uint8_t* p = &rgba[(static_cast<std::size_t>(h - 1 - y) * w + x) * 4];
      p[0] = static_cast<std::uint8_t>(std::lround(c.r * 255.0f));
      p[1] = static_cast<std::uint8_t>(std::lround(c.g * 255.0f));
      p[2] = static_cast<std::uint8_t>(std::lround(c.b * 255.0f));
      p[3] = 255;
    }
  return range;
}

std::string write_png(const std::string& path, int w, int h, const std::uint8_t* rgba) {
  if (w <= 0 || h <= 0) return "write_png: empty image";
  if (!stbi_write_png(path.c_str(), w, h, 4, rgba, w * 4)) return "cannot write PNG '" + path + "'";
  return {};
}

}  // namespace warpmind::engine
