// warpmind::demos::BoardPicture — what a board scene hands the renderer: the board's area, its filled
// shapes, discs and line segments, in world units (the board's squares or cells are 1 x 1, a1 / A1 at the
// origin, y up). The tables draw into it (ChessTable::draw, Connect6Table::draw).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "warpmind/core/geometry.h"
#include "warpmind/engine/renderer.h"

namespace warpmind::demos {

struct BoardPicture {
  WorldRect area;                           // the board with its coordinate margin
  std::vector<engine::LineVertex> fills;    // squares, highlights (triangles)
  std::vector<engine::UnitInstance> discs;  // pieces, stones
  std::vector<engine::LineVertex> lines;    // letters, coordinates, arrows (segments)
  void clear() {
    fills.clear();
    discs.clear();
    lines.clear();
  }
  void quad(float x0, float y0, float x1, float y1, std::uint32_t rgba);
  void segment(float x0, float y0, float x1, float y1, std::uint32_t rgba);
  void arrow(float x0, float y0, float x1, float y1, std::uint32_t rgba);
};

inline void BoardPicture::quad(float x0, float y0, float x1, float y1, std::uint32_t c) {
  for (const engine::LineVertex& v :
       {engine::LineVertex{x0, y0, c}, engine::LineVertex{x1, y0, c}, engine::LineVertex{x1, y1, c},
        engine::LineVertex{x0, y0, c}, engine::LineVertex{x1, y1, c}, engine::LineVertex{x0, y1, c}})
    fills.push_back(v);
}

inline void BoardPicture::segment(float x0, float y0, float x1, float y1, std::uint32_t c) {
  lines.push_back({x0, y0, c});
  lines.push_back({x1, y1, c});
}

inline void BoardPicture::arrow(float x0, float y0, float x1, float y1, std::uint32_t c) {
  const float dx = x1 - x0, dy = y1 - y0, len = std::sqrt(dx * dx + dy * dy);
  if (len <= 0) return;
  const float ux = dx / len, uy = dy / len, w = 0.08f, head = 0.3f;
  // A shaft of two triangles and a triangular head, filled.
  const float sx = x1 - ux * head, sy = y1 - uy * head;
  for (const engine::LineVertex& v :
       {engine::LineVertex{x0 - uy * w, y0 + ux * w, c}, engine::LineVertex{x0 + uy * w, y0 - ux * w, c},
        engine::LineVertex{sx + uy * w, sy - ux * w, c}, engine::LineVertex{x0 - uy * w, y0 + ux * w, c},
        engine::LineVertex{sx + uy * w, sy - ux * w, c}, engine::LineVertex{sx - uy * w, sy + ux * w, c},
        engine::LineVertex{sx - uy * 2.5f * w, sy + ux * 2.5f * w, c},
        engine::LineVertex{sx + uy * 2.5f * w, sy - ux * 2.5f * w, c}, engine::LineVertex{x1, y1, c}})
    fills.push_back(v);
}

}  // namespace warpmind::demos
