// Plain 2D types shared by the modules.
#pragma once

namespace warpmind {

struct Vec2 {
  float x = 0.0f, y = 0.0f;
};

// An axis-aligned world rectangle [x0, x0 + width) x [y0, y0 + height), world units.
struct WorldRect {
  float x0 = 0.0f, y0 = 0.0f;
  float width = 256.0f, height = 256.0f;  // [Limit: > 0]
};

}  // namespace warpmind
