// The navigation scene: a generated map (open ground, rooms or a maze) or a Moving AI map read from a file
// (assets/maps/movingai holds ten real ones; gzip too), goals and walls placed with the mouse, the field of
// the goal set (nav.h's goal_set_field: the walk to the nearest goal) for the units' size class
// (clearance.h) as the heat map with its flow arrows — or the clearance, or the cells in sight of the
// first goal (sight.h) — and units walking down it by the field's 8 directions or straight to their
// waypoints (sight.h), standing still or heading for the nearest reachable cell where no goal can be
// reached (nav.h's Unreachable).
#include "scene.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "output.h"
#include "warpmind/core/random.h"
#include "warpmind/nav/clearance.h"
#include "warpmind/nav/generate.h"
#include "warpmind/nav/grid.h"
#include "warpmind/nav/nav.h"
#include "warpmind/nav/sight.h"

namespace warpmind::demos {

namespace {

// Left click: a goal (or, in wall mode, a 3 x 3 block toggled between wall and ground); right click
// removes the nearest goal. The field is computed again whenever the goals, the walls or the settings
// change.
class NavScene : public Scene {
 public:
  explicit NavScene(const AppOptions& o) : seed_(static_cast<int>(o.battle.seed % 100000)) {
    std::snprintf(path_, sizeof path_, "%s",
                  o.nav_map.empty() ? "assets/maps/movingai/Caldera.map.gz" : o.nav_map.c_str());
    from_file_ = !o.nav_map.empty();
  }
  const char* name() const override { return "nav"; }
  Status reset(Context& ctx) override {
    ctx_ = &ctx;
    if (from_file_) {
      std::string text;
      const std::string err = read_file(path_, text);
      nav::Grid g;
      const Status st = err.empty() ? nav::read_moving_ai(text, g) : Status::Invalid(err);
      if (!st.ok()) {
        load_error_ = st.message();
        from_file_ = false;
      } else {
        load_error_.clear();
        grid_ = std::move(g);
      }
    }
    if (!from_file_) {
      const nav::MapKind kinds[] = {nav::MapKind::Open, nav::MapKind::Rooms, nav::MapKind::Maze};
      WM_RETURN_IF_ERROR(nav::generate_map(kinds[kind_], side_, side_, static_cast<std::uint64_t>(seed_), grid_));
    }
    SplitMix64 rng(static_cast<std::uint64_t>(seed_) + 7);
    goals_.clear();
    for (int tries = 0; goals_.empty() && tries < 100000; ++tries) {
      const int x = static_cast<int>(rng.next() % static_cast<std::uint64_t>(grid_.width));
      const int y = static_cast<int>(rng.next() % static_cast<std::uint64_t>(grid_.height));
      if (grid_.passable(x, y)) goals_.push_back({x, y});
    }
    units_.clear();
    for (int tries = 0; static_cast<int>(units_.size()) < unit_count_ && tries < 1000000; ++tries) {
      const float x = rng.uniform(0.0f, static_cast<float>(grid_.width));
      const float y = rng.uniform(0.0f, static_cast<float>(grid_.height));
      if (grid_.passable(static_cast<int>(x), static_cast<int>(y))) units_.push_back({x, y});
    }
    facing_.assign(units_.size(), 0.0f);
    steer_.resize(units_.size());
    left_.resize(units_.size());
    return compute();
  }
  Status step(Context&) override {
    field_ms_ = 0;
    if (dirty_) WM_RETURN_IF_ERROR(compute());
    const auto t0 = Clock::now();
    if (straight_)
      WM_RETURN_IF_ERROR(nav::steer_to_waypoints(class_grid_, dist_, way_, units_, steer_, left_));
    else
      WM_RETURN_IF_ERROR(nav::steer(class_grid_, dist_, dir_, units_, steer_, left_));
    arrived_ = 0;
    for (std::size_t i = 0; i < units_.size(); ++i) {
      if (steer_[i].x == 0.0f && steer_[i].y == 0.0f) {
        arrived_ += left_[i] == 0.0f;
        continue;
      }
      const float step = left_[i] < speed_ ? std::max(left_[i], 0.02f) : speed_;  // no overshoot at a goal
      units_[i].x += steer_[i].x * step;
      units_[i].y += steer_[i].y * step;
      facing_[i] = std::atan2(steer_[i].y, steer_[i].x);
    }
    steer_ms_ = ms_since(t0);
    return Status::Ok();
  }
  bool panel() override {
    const char* sources[] = {"generated", "Moving AI file"};
    int source = from_file_ ? 1 : 0;
    bool reset = false;
    if (ImGui::Combo("map source", &source, sources, 2)) {
      from_file_ = source == 1;
      reset = true;
    }
    if (from_file_) {
      ImGui::InputText("map file", path_, sizeof path_);
      reset |= ImGui::Button("load");
    } else {
      const char* kinds[] = {"open ground", "rooms", "maze"};
      reset |= ImGui::Combo("map", &kind_, kinds, 3);
      reset |= ImGui::SliderInt("map side (cells)", &side_, 32, 1024, "%d", ImGuiSliderFlags_Logarithmic);
      reset |= ImGui::SliderInt("map seed", &seed_, 1, 1000);
    }
    if (!load_error_.empty()) ImGui::TextWrapped("map not loaded: %s", load_error_.c_str());
    reset |= ImGui::SliderInt("units", &unit_count_, 0, 20000, "%d", ImGuiSliderFlags_Logarithmic);
    const char* modes[] = {"places a goal", "toggles a wall block"};
    ImGui::Combo("left click", &mode_, modes, 2);
    ImGui::TextWrapped("right click removes the nearest goal");
    if (combo("nav variant", variant_, kNavVariants, nav::variant_name)) dirty_ = true;
    dirty_ |= ImGui::SliderInt("unit size class", &size_class_, 1, 6);
    ImGui::TextWrapped("class %d: a unit covers %d x %d cells and no gap narrower lets it through", size_class_,
                       2 * size_class_ - 1, 2 * size_class_ - 1);
    dirty_ |= ImGui::Checkbox("straight to waypoints (else the 8 directions)", &straight_);
    dirty_ |= ImGui::Checkbox("no way to a goal: walk to the nearest cell", &nearest_);
    const char* overlays[] = {"walking distance", "clearance", "cells in sight of the first goal"};
    dirty_ |= ImGui::Combo("heat map", &overlay_, overlays, 3);
    ImGui::SliderFloat("unit speed (cells a tick)", &speed_, 0.05f, 1.0f);
    ImGui::SliderInt("an arrow every N cells", &arrow_every_, 1, 32);
    ImGui::TextWrapped(
        "%d x %d cells; %zu goals (%zu reachable by the class), %zu cells reached; field %.3f ms (%s%s); "
        "%zu of %zu units at a goal",
        grid_.width, grid_.height, goals_.size(), class_goals_.size(), static_cast<std::size_t>(stats_.settled),
        stats_.ms, nav::variant_name(variant_), stats_.device_ms > 0 ? ", device" : "", arrived_, units_.size());
    if (ImGui::Button("clear goals")) {
      goals_.clear();
      dirty_ = true;
    }
    return reset;
  }
  void click(Vec2 p, int button) override {
    const int x = static_cast<int>(std::floor(p.x)), y = static_cast<int>(std::floor(p.y));
    if (!grid_.inside(x, y)) return;
    if (button == 1) {
      if (goals_.empty()) return;
      auto nearest = std::min_element(goals_.begin(), goals_.end(), [&](const nav::Cell& a, const nav::Cell& b) {
        return (a.x - x) * (a.x - x) + (a.y - y) * (a.y - y) < (b.x - x) * (b.x - x) + (b.y - y) * (b.y - y);
      });
      goals_.erase(nearest);
    } else if (mode_ == 0) {
      if (!grid_.passable(x, y)) return;
      goals_.push_back({x, y});
    } else {  // a 3 x 3 block: walls where it was ground, ground where it was wall; goals stay open
      const std::uint8_t to = grid_.passable(x, y) ? nav::kBlocked : 1;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          if (!grid_.inside(x + dx, y + dy)) continue;
          const bool goal = std::any_of(goals_.begin(), goals_.end(),
                                        [&](const nav::Cell& g) { return g.x == x + dx && g.y == y + dy; });
          if (!goal) grid_.cost[grid_.index(x + dx, y + dy)] = to;
        }
    }
    dirty_ = true;
  }
  void frame(SceneFrame& f, bool grid) override {
    f.world = {0, 0, static_cast<float>(grid_.width), static_cast<float>(grid_.height)};
    f.heat_device = nullptr;
    f.heat_w = grid_.width;
    f.heat_h = grid_.height;
    f.heat.resize(grid_.cells());
    float far = 1.0f;
    if (overlay_ == 0) {
      // The walk to the nearest goal on one side of the ramp (0 at a goal), walls at the other end, cells no
      // goal can be reached from at the middle.
      for (float d : dist_)
        if (std::isfinite(d)) far = std::max(far, d);
      for (std::size_t c = 0; c < grid_.cells(); ++c)
        f.heat[c] = class_grid_.cost[c] == nav::kBlocked ? far : (std::isfinite(dist_[c]) ? -far + dist_[c] : 0.0f);
    } else if (overlay_ == 1) {  // clearance: walls at one end, the widest ground at the other
      for (std::uint16_t c : clear_) far = std::max(far, static_cast<float>(c));
      for (std::size_t c = 0; c < grid_.cells(); ++c) f.heat[c] = far - 2.0f * static_cast<float>(clear_[c]);
    } else {  // in sight of the first goal at one end, walls at the other
      for (std::size_t c = 0; c < grid_.cells(); ++c)
        f.heat[c] = class_grid_.cost[c] == nav::kBlocked ? 1.0f : (!visible_.empty() && visible_[c] ? -1.0f : 0.0f);
    }
    f.heat_range = far;
    const int every = std::max(arrow_every_, std::max(grid_.width, grid_.height) / 64);
    flow_arrows(f, dir_, grid_.width, grid_.height, 1.0f, every, rgba(255, 255, 255, 170));
    f.units.clear();
    for (const nav::Cell& g : goals_) f.units.push_back({g.x + 0.5f, g.y + 0.5f, 1.5f, rgba(255, 220, 60), 0.0f});
    const float radius = std::max(0.4f, static_cast<float>(size_class_) - 0.5f);
    for (std::size_t i = 0; i < units_.size(); ++i)
      f.units.push_back({units_[i].x, units_[i].y, radius, rgba(64, 224, 255), facing_[i]});
    if (grid) grid_lines(f, 32.0f);  // the GPU's tiles
  }
  void stages(std::vector<Stage>& out) const override { out = {{"field", field_ms_}, {"steer", steer_ms_}}; }
  std::string summary() const override {
    return "nav: " + std::to_string(goals_.size()) + " goals, " + std::to_string(arrived_) + " of " +
           std::to_string(units_.size()) + " units at a goal";
  }
  std::string stats() const override {
    return "\"nav_goals\": " + std::to_string(goals_.size()) +
           ", \"nav_cells_reached\": " + std::to_string(stats_.settled) +
           ", \"nav_field_ms\": " + std::to_string(stats_.ms) + ", \"nav_units_arrived\": " + std::to_string(arrived_);
  }

 private:
  // The class's grid, its goals (those its units fit on), the field, the waypoints and the overlay.
  Status compute() {
    const auto t0 = Clock::now();
    WM_RETURN_IF_ERROR(nav::class_grid(grid_, size_class_, class_grid_));
    class_goals_.clear();
    for (const nav::Cell& g : goals_)
      if (class_grid_.passable(g.x, g.y)) class_goals_.push_back(g);
    dist_.resize(grid_.cells());
    dir_.resize(grid_.cells());
    nav::FieldOptions o;
    o.variant = variant_;
    o.unreachable = nearest_ ? nav::Unreachable::NearestCell : nav::Unreachable::Infinity;
    WM_RETURN_IF_ERROR(nav::goal_set_field(*ctx_, class_grid_, class_goals_, dist_, dir_, o, &stats_));
    if (straight_) {
      way_.resize(grid_.cells());
      WM_RETURN_IF_ERROR(nav::waypoints(*ctx_, class_grid_, dist_, dir_, way_));
    }
    if (overlay_ == 1) {
      clear_.resize(grid_.cells());
      WM_RETURN_IF_ERROR(nav::clearance(*ctx_, grid_, clear_));
    } else {
      clear_.assign(grid_.cells(), 0);
    }
    visible_.clear();
    if (overlay_ == 2 && !class_goals_.empty()) {
      visible_.resize(grid_.cells());
      WM_RETURN_IF_ERROR(nav::sight(*ctx_, class_grid_, class_goals_[0], visible_));
    }
    field_ms_ = ms_since(t0);
    dirty_ = false;
    return Status::Ok();
  }

  Context* ctx_ = nullptr;
  int kind_ = 1, side_ = 128, seed_ = 1, unit_count_ = 600, mode_ = 0, arrow_every_ = 4, size_class_ = 1, overlay_ = 0;
  bool from_file_ = false, straight_ = true, nearest_ = false;
  char path_[512] = {};
  std::string load_error_;
  float speed_ = 0.25f;
  nav::NavVariant variant_ = nav::NavVariant::Auto;
  nav::Grid grid_, class_grid_;
  std::vector<nav::Cell> goals_, class_goals_;
  std::vector<float> dist_, left_, facing_;
  std::vector<std::int8_t> dir_;
  std::vector<std::uint32_t> way_;
  std::vector<std::uint16_t> clear_;
  std::vector<std::uint8_t> visible_;
  std::vector<Vec2> units_, steer_;
  nav::FieldStats stats_;
  std::size_t arrived_ = 0;
  bool dirty_ = false;
  double field_ms_ = 0, steer_ms_ = 0;
};

}  // namespace

std::unique_ptr<Scene> make_nav_scene(const AppOptions& o) { return std::make_unique<NavScene>(o); }

}  // namespace warpmind::demos
