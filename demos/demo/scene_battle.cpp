// The battle scene: two armies through the field, decision, crowd and combat stages (battle.h), the
// field of one team as the heat map.
#include "scene.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "battle.h"

namespace warpmind::demos {

namespace {

class BattleScene : public Scene {
 public:
  explicit BattleScene(const AppOptions& o) : cfg_(o.battle) {}
  const char* name() const override { return "battle"; }
  Status reset(Context& ctx) override {
    battle_.reset();
    return Battle::create(ctx, cfg_, battle_);
  }
  Status step(Context&) override { return battle_->tick(); }
  bool finished() const override { return !battle_ || battle_->winner() >= 0; }
  bool panel() override {
    bool dirty = false;
    int units = static_cast<int>(cfg_.units_per_army);
    if (ImGui::SliderInt("units per army", &units, 500, 50000, "%d", ImGuiSliderFlags_Logarithmic)) {
      cfg_.units_per_army = static_cast<std::size_t>(units);
      dirty = true;
    }
    dirty |= ImGui::SliderInt("field resolution", &cfg_.field_resolution, 64, 2048);
    dirty |= combo("field variant", cfg_.field_variant, kFieldVariants, field::variant_name);
    dirty |= combo("crowd variant", cfg_.crowd_variant, kCrowdVariants, crowd::variant_name);
    dirty |= combo("tie-break", cfg_.crowd_rule, kRules, crowd::rule_name);
    dirty |= ImGui::SliderFloat("unit radius", &cfg_.unit_radius, 0.25f, 1.5f);
    if (ImGui::CollapsingHeader("charges and combat")) {
      dirty |= ImGui::SliderFloat("weapon range", &cfg_.weapon_range, 1.0f, 20.0f);
      dirty |= ImGui::SliderFloat("sight", &cfg_.sight, 0.0f, 120.0f);
      dirty |= ImGui::SliderFloat("start gap", &cfg_.start_gap, 4.0f, 100.0f);
      dirty |= ImGui::SliderFloat("damage", &cfg_.damage, 1.0f, 50.0f);
      dirty |= ImGui::SliderInt("cooldown ticks", &cfg_.cooldown_ticks, 0, 20);
      dirty |= ImGui::SliderFloat("step per tick", &cfg_.step, 0.05f, 1.0f);
    }
    if (ImGui::CollapsingHeader("navigation", ImGuiTreeNodeFlags_DefaultOpen)) {
      dirty |= ImGui::Checkbox("walk around walls by navigation fields", &cfg_.nav);
      dirty |= ImGui::SliderInt("fields every N ticks", &cfg_.nav_every, 1, 64);
      dirty |= ImGui::Checkbox("straight to waypoints (else the 8 directions)", &cfg_.nav_straight);
      dirty |= ImGui::SliderFloat("potential field within (beyond weapon range)", &cfg_.nav_margin, 0.0f, 60.0f);
      dirty |= combo("nav variant", cfg_.nav_variant, kNavVariants, nav::variant_name);
      ImGui::Checkbox("show the shown team's flow arrows", &arrows_);
    }
    ImGui::SliderInt("layer shown", &layer_, 0, 1, layer_ ? "team 1" : "team 0");
    if (battle_) {
      ImGui::TextWrapped("map %d x %d, field %s, crowd %s", battle_->map(), battle_->map(),
                         field::variant_name(battle_->layers().variant()),
                         crowd::variant_name(battle_->solver().variant()));
      if (cfg_.nav) ImGui::TextWrapped("%zu units walking by the navigation fields", battle_->nav_walkers());
      ImGui::TextWrapped("alive %zu vs %zu, tick %lld%s", battle_->alive(0), battle_->alive(1), battle_->ticks(),
                         battle_->winner() < 0 ? "" : (battle_->winner() == 2 ? "  draw" : "  battle over"));
    }
    return dirty;
  }
  void frame(SceneFrame& f, bool grid) override {
    if (!battle_) return;
    const float m = static_cast<float>(battle_->map());
    f.world = {0, 0, m, m};
    heat_frame(battle_->layers(), layer_, cfg_.field_resolution, f);
    const auto& pos = battle_->positions();
    f.units.resize(pos.size());
    for (std::size_t i = 0; i < pos.size(); ++i) {
      const float life = std::clamp(battle_->hp()[i] / cfg_.hp, 0.25f, 1.0f);
      const auto shade = [&](int v) { return static_cast<int>(static_cast<float>(v) * life); };
      f.units[i] = {
          pos[i].x, pos[i].y, cfg_.unit_radius,
          battle_->teams()[i] == 0 ? rgba(shade(64), shade(224), shade(255)) : rgba(shade(255), shade(112), shade(255)),
          battle_->facing()[i]};
    }
    if (arrows_) flow_arrows(f, battle_->nav_direction(layer_), 128, 128, m / 128.0f, 4, rgba(255, 255, 255, 150));
    if (grid) grid_lines(f, m / 16.0f);
  }
  void stages(std::vector<Stage>& out) const override {
    if (!battle_) return;
    const BattleTimes& t = battle_->last_times();
    out = {{"field", t.field_ms},
           {"decisions", t.decisions_ms},
           {"crowd", t.crowd_ms},
           {"combat", t.combat_ms},
           {"nav", t.nav_ms}};
  }
  std::string summary() const override {
    if (!battle_) return "battle: not running";
    return "battle: " + std::to_string(battle_->alive(0)) + " vs " + std::to_string(battle_->alive(1)) + ", tick " +
           std::to_string(battle_->ticks()) + ", winner " + std::to_string(battle_->winner());
  }
  const Battle* battle() const { return battle_.get(); }

 private:
  BattleConfig cfg_;
  std::unique_ptr<Battle> battle_;
  int layer_ = 0;
  bool arrows_ = true;
};

}  // namespace

std::unique_ptr<Scene> make_battle_scene(const AppOptions& o) { return std::make_unique<BattleScene>(o); }

}  // namespace warpmind::demos
