// The windowed warpmind-demo: scenes (the battle, crowd-only, field-only, AOI-world, DDM regions and chess scenes) driven by a small
// panel framework in the style of RecastDemo's tools — each scene adds its own ImGui panel, the app adds
// the common ones (backend, simulation controls, per-stage timing plots) and the camera.
#pragma once

#include <cstdint>
#include <string>

#include "battle.h"
#include "warpmind/core/context.h"

namespace warpmind::engine {
class Window;
}

namespace warpmind::demos {

struct AppOptions {
  std::string scene = "battle";  // battle | crowd | field | aoi | regions | chess | connect6
  Backend backend = Backend::Auto;
  BattleConfig battle;           // the battle's settings; its unit count and seed size the other scenes too
  std::string fen, moves;        // chess: the starting position and moves played from it
  int frames = 0;                // 0: until the window closes
  std::string out = "out/demo";  // screenshots and the final stats
  bool interop = true;           // CUDA builds: the heat map from device memory into Vulkan when one GPU does both
  int cuda_device = 0;           // the CUDA device the context uses
  std::string connect;           // aoi: watch the warpmind-server at HOST:PORT instead of simulating (observer.h)
  std::string observer_key;      // ... sending it this observer key (--observer-key-file)
  std::string server_key;        // ... taking only this public key from it (--server-key; empty: any)
  std::string crowd_layout = "lattice";  // crowd: lattice | bottleneck | corridor | crossing (Avoid but lattice)
  std::string nav_map;                   // nav: a Moving AI map (.map or .map.gz) instead of a generated one
};

// Runs the window until it is closed (or `frames` frames); returns the process exit status.
int run_window(const AppOptions& options, engine::Window& window);

}  // namespace warpmind::demos
