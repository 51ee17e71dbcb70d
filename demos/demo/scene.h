// The windowed demo's scenes (app.h): the Scene interface and what a scene hands the renderer, the one
// registry of the scenes (scenes.cpp; each scene in its scene_<name>.cpp exposes a factory) and the
// drawing and ImGui helpers several scenes use.
#pragma once

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "app.h"
#include "warpmind/core/context.h"
#include "warpmind/core/geometry.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/engine/renderer.h"
#include "warpmind/field/field.h"
#include "warpmind/nav/nav.h"

namespace warpmind::demos {

using Clock = std::chrono::steady_clock;
inline double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

inline std::uint32_t rgba(int r, int g, int b, int a = 255) {
  return static_cast<std::uint32_t>(r) | (static_cast<std::uint32_t>(g) << 8) | (static_cast<std::uint32_t>(b) << 16) |
         (static_cast<std::uint32_t>(a) << 24);
}

// What a scene hands the renderer each frame (buffers reused across frames).
struct SceneFrame {
  WorldRect world;
  std::vector<float> heat;
  int heat_w = 0, heat_h = 0;
  float heat_range = 1.0f;  // symmetric ramp [-range, range]
  // In: the app can take this frame's heat map from device memory (a CUDA context whose GPU also
  // renders). Out: a scene whose heat map is in device memory then sets heat_device (heat_w x heat_h
  // floats, ready in the order of heat_stream, a cudaStream_t) and leaves `heat` empty; otherwise it
  // fills `heat` and sets heat_device to nullptr.
  bool device_heat_ok = false;
  const float* heat_device = nullptr;
  void* heat_stream = nullptr;
  std::vector<engine::UnitInstance> units;
  std::vector<engine::LineVertex> fills;  // triangles
  std::vector<engine::LineVertex> lines;
  void line(float x0, float y0, float x1, float y1, std::uint32_t c) {
    lines.push_back({x0, y0, c});
    lines.push_back({x1, y1, c});
  }
  void rect(float x0, float y0, float x1, float y1, std::uint32_t c) {
    line(x0, y0, x1, y0, c);
    line(x1, y0, x1, y1, c);
    line(x1, y1, x0, y1, c);
    line(x0, y1, x0, y0, c);
  }
};

struct Stage {
  const char* name;
  double ms;
};

// A demo scene: its own settings panel, a simulation step, what to draw.
class Scene {
 public:
  virtual ~Scene() = default;
  virtual const char* name() const = 0;
  virtual Status reset(Context& ctx) = 0;  // (re)builds from the settings
  virtual Status step(Context& ctx) = 0;   // one tick
  virtual bool panel() = 0;                // ImGui controls; true when a reset is needed
  virtual void click(Vec2, int) {}
  virtual bool finished() const { return false; }
  virtual void frame(SceneFrame& out, bool grid) = 0;
  virtual void stages(std::vector<Stage>& out) const = 0;  // the last tick's per-stage times
  virtual std::string summary() const = 0;                 // one line for stats and the title bar
  virtual std::string stats() const { return {}; }         // more stats.json fields ("\"key\": value, ..."), or none
};

// ---- the scene registry ----------------------------------------------------------------------------

// A scene of the demo: its name (AppOptions::scene), the label the scene selector shows, its factory.
struct SceneInfo {
  const char* name;
  const char* label;
  std::unique_ptr<Scene> (*make)(const AppOptions&);
};

// Every scene, each once, in the order of the scene selector (scenes.cpp).
std::span<const SceneInfo> scene_registry();

// The scene called `name` (the registry's); the battle for an unknown name.
std::unique_ptr<Scene> make_scene(const std::string& name, const AppOptions& o);

// The factories, one in each scene_<name>.cpp.
std::unique_ptr<Scene> make_battle_scene(const AppOptions& o);
std::unique_ptr<Scene> make_crowd_scene(const AppOptions& o);
std::unique_ptr<Scene> make_field_scene(const AppOptions& o);
std::unique_ptr<Scene> make_nav_scene(const AppOptions& o);
std::unique_ptr<Scene> make_aoi_scene(const AppOptions& o);
std::unique_ptr<Scene> make_regions_scene(const AppOptions& o);
std::unique_ptr<Scene> make_chess_scene(const AppOptions& o);
std::unique_ptr<Scene> make_connect6_scene(const AppOptions& o);

// ---- helpers several scenes use --------------------------------------------------------------------

// A field layer as the frame's heat map: from device memory when the app takes it from there and the
// layer is on the device (the colour range by a reduction on the device, no layer copy), else read to
// the host. The range is at least 1.
inline void heat_frame(const field::FieldLayers& layers, int layer, int resolution, SceneFrame& f) {
  f.heat_w = f.heat_h = resolution;
  const field::DeviceField dev = layers.device_layer(layer);
  float hi = 0.0f;
  if (f.device_heat_ok && dev.data) {
    f.heat.clear();
    f.heat_device = dev.data;
    f.heat_stream = dev.stream;
    if (!layers.max_abs(layer, hi).ok()) hi = 0.0f;
  } else {
    f.heat_device = nullptr;
    f.heat.resize(static_cast<std::size_t>(resolution) * resolution);
    if (!layers.read(layer, f.heat).ok()) f.heat.assign(f.heat.size(), 0.0f);
    for (float v : f.heat) hi = std::max(hi, std::fabs(v));
  }
  f.heat_range = std::max(1.0f, hi);
}

// Flow arrows of a navigation field (nav.h's directions, a w x h grid whose cell is `cell` world units):
// one arrow in the centre of every `every`-th cell of every `every`-th row that has a direction.
inline void flow_arrows(SceneFrame& f, std::span<const std::int8_t> dir, int w, int h, float cell, int every,
                        std::uint32_t colour) {
  if (dir.size() != static_cast<std::size_t>(w) * static_cast<std::size_t>(h)) return;
  constexpr int kDx[8] = {1, 1, 0, -1, -1, -1, 0, 1}, kDy[8] = {0, 1, 1, 1, 0, -1, -1, -1};
  const float len = 0.4f * cell * static_cast<float>(every);
  for (int y = every / 2; y < h; y += every)
    for (int x = every / 2; x < w; x += every) {
      const int k = dir[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)];
      if (k < 0 || k > 7) continue;
      const float n = (k & 1) ? 0.70710677f : 1.0f, ux = static_cast<float>(kDx[k]) * n,
                  uy = static_cast<float>(kDy[k]) * n;
      const float cx = f.world.x0 + (static_cast<float>(x) + 0.5f) * cell,
                  cy = f.world.y0 + (static_cast<float>(y) + 0.5f) * cell;
      const float tx = cx + ux * len, ty = cy + uy * len;
      f.line(cx - ux * len, cy - uy * len, tx, ty, colour);
      f.line(tx, ty, tx - (ux - uy * 0.5f) * len * 0.5f, ty - (uy + ux * 0.5f) * len * 0.5f, colour);  // the head
      f.line(tx, ty, tx - (ux + uy * 0.5f) * len * 0.5f, ty - (uy - ux * 0.5f) * len * 0.5f, colour);
    }
}

inline void grid_lines(SceneFrame& f, float step) {
  const std::uint32_t c = rgba(255, 255, 255, 40);
  for (float x = f.world.x0; x <= f.world.x0 + f.world.width + 1e-3f; x += step)
    f.line(x, f.world.y0, x, f.world.y0 + f.world.height, c);
  for (float y = f.world.y0; y <= f.world.y0 + f.world.height + 1e-3f; y += step)
    f.line(f.world.x0, y, f.world.x0 + f.world.width, y, c);
}

template <class Enum, std::size_t N>
bool combo(const char* label, Enum& value, const Enum (&options)[N], const char* (*name)(Enum)) {
  bool changed = false;
  if (ImGui::BeginCombo(label, name(value))) {
    for (Enum o : options)
      if (ImGui::Selectable(name(o), o == value)) {
        changed = o != value;
        value = o;
      }
    ImGui::EndCombo();
  }
  return changed;
}

// What the settings combos of the battle, crowd and field scenes offer.
inline constexpr field::FieldVariant kFieldVariants[] = {
    field::FieldVariant::Auto,     field::FieldVariant::CpuNaive,     field::FieldVariant::CpuStamp,
    field::FieldVariant::GpuNaive, field::FieldVariant::GpuCoalesced, field::FieldVariant::GpuShared,
    field::FieldVariant::GpuBinned};
inline constexpr crowd::CrowdVariant kCrowdVariants[] = {crowd::CrowdVariant::Auto, crowd::CrowdVariant::CpuReference,
                                                         crowd::CrowdVariant::GpuSort, crowd::CrowdVariant::GpuTiled,
                                                         crowd::CrowdVariant::GpuStaticGrid};
inline constexpr nav::NavVariant kNavVariants[] = {nav::NavVariant::Auto, nav::NavVariant::Cpu, nav::NavVariant::Gpu};
inline constexpr crowd::CrowdRule kRules[] = {crowd::CrowdRule::Strict, crowd::CrowdRule::LowestIdWins};

}  // namespace warpmind::demos
