// The navigation scene: a generated map (open ground, rooms or a maze), goals and walls placed with the
// mouse, the field of the goal set (nav.h's goal_set_field: the walk to the nearest goal) as the heat map
// with its flow arrows, and units walking down it by nav::steer.
#include "scene.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "warpmind/core/random.h"
#include "warpmind/nav/generate.h"
#include "warpmind/nav/grid.h"
#include "warpmind/nav/nav.h"

namespace warpmind::demos {

namespace {

// Left click: a goal (or, in wall mode, a 3 x 3 block toggled between wall and ground); right click
// removes the nearest goal. The field is computed again whenever the goals or the walls change.
class NavScene : public Scene {
 public:
  explicit NavScene(const AppOptions& o) : seed_(static_cast<int>(o.battle.seed % 100000)) {}
  const char* name() const override { return "nav"; }
  Status reset(Context& ctx) override {
    ctx_ = &ctx;
    const nav::MapKind kinds[] = {nav::MapKind::Open, nav::MapKind::Rooms, nav::MapKind::Maze};
    WM_RETURN_IF_ERROR(nav::generate_map(kinds[kind_], side_, side_, static_cast<std::uint64_t>(seed_), grid_));
    SplitMix64 rng(static_cast<std::uint64_t>(seed_) + 7);
    goals_.clear();
    for (int tries = 0; goals_.empty() && tries < 100000; ++tries) {
      const int x = static_cast<int>(rng.next() % static_cast<std::uint64_t>(side_));
      const int y = static_cast<int>(rng.next() % static_cast<std::uint64_t>(side_));
      if (grid_.passable(x, y)) goals_.push_back({x, y});
    }
    units_.clear();
    for (int tries = 0; static_cast<int>(units_.size()) < unit_count_ && tries < 1000000; ++tries) {
      const float x = rng.uniform(0.0f, static_cast<float>(side_)), y = rng.uniform(0.0f, static_cast<float>(side_));
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
    WM_RETURN_IF_ERROR(nav::steer(grid_, dist_, dir_, units_, steer_, left_));
    arrived_ = 0;
    for (std::size_t i = 0; i < units_.size(); ++i) {
      if (steer_[i].x == 0.0f && steer_[i].y == 0.0f) {
        arrived_ += left_[i] == 0.0f;
        continue;
      }
      units_[i].x += steer_[i].x * speed_;
      units_[i].y += steer_[i].y * speed_;
      facing_[i] = std::atan2(steer_[i].y, steer_[i].x);
    }
    steer_ms_ = ms_since(t0);
    return Status::Ok();
  }
  bool panel() override {
    const char* kinds[] = {"open ground", "rooms", "maze"};
    bool reset = ImGui::Combo("map", &kind_, kinds, 3);
    reset |= ImGui::SliderInt("map side (cells)", &side_, 32, 1024, "%d", ImGuiSliderFlags_Logarithmic);
    reset |= ImGui::SliderInt("map seed", &seed_, 1, 1000);
    reset |= ImGui::SliderInt("units", &unit_count_, 0, 20000, "%d", ImGuiSliderFlags_Logarithmic);
    const char* modes[] = {"places a goal", "toggles a wall block"};
    ImGui::Combo("left click", &mode_, modes, 2);
    ImGui::TextWrapped("right click removes the nearest goal");
    if (combo("nav variant", variant_, kNavVariants, nav::variant_name)) dirty_ = true;
    ImGui::SliderFloat("unit speed (cells a tick)", &speed_, 0.05f, 1.0f);
    ImGui::SliderInt("an arrow every N cells", &arrow_every_, 1, 32);
    ImGui::TextWrapped("%zu goals, %zu cells reached; field %.3f ms (%s%s); %zu of %zu units at a goal", goals_.size(),
                       static_cast<std::size_t>(stats_.settled), stats_.ms, nav::variant_name(variant_),
                       stats_.device_ms > 0 ? ", device" : "", arrived_, units_.size());
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
    const float side = static_cast<float>(grid_.width);
    f.world = {0, 0, side, side};
    // The heat map: the walk to the nearest goal on one side of the ramp (0 at a goal), walls at the other
    // end, cells no goal can be reached from at the middle.
    float far = 1.0f;
    for (float d : dist_)
      if (std::isfinite(d)) far = std::max(far, d);
    f.heat_device = nullptr;
    f.heat_w = grid_.width;
    f.heat_h = grid_.height;
    f.heat.resize(grid_.cells());
    for (std::size_t c = 0; c < grid_.cells(); ++c)
      f.heat[c] = grid_.cost[c] == nav::kBlocked ? far : (std::isfinite(dist_[c]) ? -far + dist_[c] : 0.0f);
    f.heat_range = far;
    const int every = std::max(arrow_every_, grid_.width / 64);
    flow_arrows(f, dir_, grid_.width, grid_.height, 1.0f, every, rgba(255, 255, 255, 170));
    f.units.clear();
    for (const nav::Cell& g : goals_) f.units.push_back({g.x + 0.5f, g.y + 0.5f, 1.5f, rgba(255, 220, 60), 0.0f});
    for (std::size_t i = 0; i < units_.size(); ++i)
      f.units.push_back({units_[i].x, units_[i].y, 0.4f, rgba(64, 224, 255), facing_[i]});
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
  Status compute() {
    dist_.resize(grid_.cells());
    dir_.resize(grid_.cells());
    const auto t0 = Clock::now();
    WM_RETURN_IF_ERROR(nav::goal_set_field(*ctx_, grid_, goals_, dist_, dir_, &stats_, variant_));
    field_ms_ = ms_since(t0);
    dirty_ = false;
    return Status::Ok();
  }

  Context* ctx_ = nullptr;
  int kind_ = 1, side_ = 128, seed_ = 1, unit_count_ = 600, mode_ = 0, arrow_every_ = 4;
  float speed_ = 0.25f;
  nav::NavVariant variant_ = nav::NavVariant::Auto;
  nav::Grid grid_;
  std::vector<nav::Cell> goals_;
  std::vector<float> dist_, left_, facing_;
  std::vector<std::int8_t> dir_;
  std::vector<Vec2> units_, steer_;
  nav::FieldStats stats_;
  std::size_t arrived_ = 0;
  bool dirty_ = false;
  double field_ms_ = 0, steer_ms_ = 0;
};

}  // namespace

std::unique_ptr<Scene> make_nav_scene(const AppOptions& o) { return std::make_unique<NavScene>(o); }

}  // namespace warpmind::demos
