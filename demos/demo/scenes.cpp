// The one registry of the demo's scenes (scene.h): their names, labels and factories, read by both
// make_scene() and the scene selector of the window (app.cpp).
#include "scene.h"

#include <memory>
#include <span>
#include <string>

namespace warpmind::demos {

namespace {

// In the order of the scene selector; the labels are the names.
constexpr SceneInfo kScenes[] = {
    {"battle", "battle", make_battle_scene},        // scene_battle.cpp
    {"crowd", "crowd", make_crowd_scene},           // scene_crowd.cpp
    {"field", "field", make_field_scene},           // scene_field.cpp
    {"nav", "nav", make_nav_scene},                 // scene_nav.cpp
    {"aoi", "aoi", make_aoi_scene},                 // scene_aoi.cpp
    {"regions", "regions", make_regions_scene},     // scene_regions.cpp
    {"chess", "chess", make_chess_scene},           // scene_chess.cpp
    {"connect6", "connect6", make_connect6_scene},  // scene_connect6.cpp
};

}  // namespace

std::span<const SceneInfo> scene_registry() { return kScenes; }

std::unique_ptr<Scene> make_scene(const std::string& name, const AppOptions& o) {
  for (const SceneInfo& s : kScenes)
    if (name == s.name) return s.make(o);
  return make_battle_scene(o);  // an unknown name
}

}  // namespace warpmind::demos
