// warpmind::engine::stroke_text — labels drawn as line segments: a small stroke font (digits, the
// letters A-Z in capitals — lower case is drawn as upper case — and - + . : / ( ) =) that the renderer
// draws with its line pipeline, so text needs no font file and no texture and renders the same on every
// Vulkan device, lavapipe included.
//
// A glyph sits in a cell `height` tall and 0.75 * height wide (the advance), its strokes within the
// left two thirds of it; unknown characters advance without drawing. (x, y) is the bottom-left corner of the
// first cell, world units, y up.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "warpmind/engine/renderer.h"

namespace warpmind::engine {

// Appends the text's segments (vertex pairs) to `out`.
void stroke_text(std::string_view text, float x, float y, float height, std::uint32_t rgba,
                 std::vector<LineVertex>& out);
// The width the text takes: its length times the advance.
float stroke_text_width(std::string_view text, float height);

}  // namespace warpmind::engine
