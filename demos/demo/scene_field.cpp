// The field scene: charges placed with the mouse and the field they build, alone.
#include "scene.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "warpmind/core/random.h"
#include "warpmind/field/field.h"

namespace warpmind::demos {

namespace {

// Charges placed with the mouse (left: the selected kind, right: remove the nearest); the field is
// rebuilt every tick.
class FieldScene : public Scene {
 public:
  explicit FieldScene(const AppOptions& o) : resolution_(std::min(o.battle.field_resolution, 1024)) {
    SplitMix64 rng(o.battle.seed);  // a few charges to start with
    for (std::uint32_t i = 0; i < 12; ++i)
      entities_.push_back({rng.uniform(8, kWorld - 8), rng.uniform(8, kWorld - 8), i % 3, 0});
  }
  const char* name() const override { return "field"; }
  Status reset(Context& ctx) override {
    layers_.reset();
    field::FieldConfig fc;
    fc.world = {0, 0, kWorld, kWorld};
    fc.width = fc.height = resolution_;
    fc.kinds = {field::attack(range_, 100.0f, falloff_), field::own_unit(repel_), field::obstacle(1.5f, -300.0f)};
    fc.layers = {{"field", {{0, 0}, {1, 1}, {2, 2}}}};
    fc.variant = variant_;
    return field::FieldLayers::create(ctx, fc, layers_);
  }
  Status step(Context&) override {
    const auto t0 = Clock::now();
    WM_RETURN_IF_ERROR(layers_->build(entities_));
    build_ms_ = ms_since(t0);
    return Status::Ok();
  }
  bool panel() override {
    const char* kinds[] = {"attractor (enemy)", "repeller (friend)", "obstacle"};
    ImGui::Combo("left click places", &kind_, kinds, 3);
    bool dirty = ImGui::SliderInt("resolution", &resolution_, 32, 1024);
    dirty |= combo("field variant", variant_, kFieldVariants, field::variant_name);
    dirty |= ImGui::SliderFloat("attack range", &range_, 1.0f, 40.0f);
    dirty |= ImGui::SliderFloat("attack falloff", &falloff_, 5.0f, 120.0f);
    dirty |= ImGui::SliderFloat("repel radius", &repel_, 0.5f, 10.0f);
    ImGui::TextWrapped("%zu charges; %s", entities_.size(), layers_ ? field::variant_name(layers_->variant()) : "");
    if (ImGui::Button("clear")) entities_.clear();
    return dirty;
  }
  void click(Vec2 p, int button) override {
    if (p.x < 0 || p.y < 0 || p.x >= kWorld || p.y >= kWorld) return;
    if (button == 0) {
      entities_.push_back({p.x, p.y, static_cast<std::uint32_t>(kind_), 0});
    } else if (!entities_.empty()) {
      std::size_t best = 0;
      float bd = INFINITY;
      for (std::size_t i = 0; i < entities_.size(); ++i) {
        const float dx = entities_[i].x - p.x, dy = entities_[i].y - p.y;
        if (dx * dx + dy * dy < bd) {
          bd = dx * dx + dy * dy;
          best = i;
        }
      }
      entities_.erase(entities_.begin() + static_cast<std::ptrdiff_t>(best));
    }
  }
  void frame(SceneFrame& f, bool grid) override {
    if (!layers_) return;
    f.world = {0, 0, kWorld, kWorld};
    heat_frame(*layers_, 0, resolution_, f);
    f.units.clear();
    const std::uint32_t colour[3] = {rgba(255, 120, 80), rgba(90, 200, 255), rgba(200, 200, 200)};
    for (const field::Entity& e : entities_) f.units.push_back({e.x, e.y, 0.8f, colour[e.group % 3]});
    if (grid) grid_lines(f, kWorld / 32.0f);  // the gpu-binned tiles at resolution 1024
  }
  void stages(std::vector<Stage>& out) const override { out = {{"field", build_ms_}}; }
  std::string summary() const override { return "field: " + std::to_string(entities_.size()) + " charges"; }

 private:
  static constexpr float kWorld = 128.0f;
  int resolution_, kind_ = 0;
  float range_ = 6.0f, falloff_ = 60.0f, repel_ = 4.0f;
  field::FieldVariant variant_ = field::FieldVariant::Auto;
  std::unique_ptr<field::FieldLayers> layers_;
  std::vector<field::Entity> entities_;
  double build_ms_ = 0;
};

}  // namespace

std::unique_ptr<Scene> make_field_scene(const AppOptions& o) { return std::make_unique<FieldScene>(o); }

}  // namespace warpmind::demos
