// The windowed demo (app.h). [SECTION] scenes   [SECTION] the app: camera, panels, frame loop
#include "app.h"

#include <GLFW/glfw3.h>  // key codes for ImGui::IsKeyPressed (Dear ImGui 1.86 uses the GLFW backend's codes)
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <memory>
#include <vector>

#include "../common/args.h"
#include "battle.h"
#include "chess_table.h"
#include "connect6_table.h"
#include "warpmind/aoi/aoi.h"
#include "warpmind/aoi/scenario.h"
#include "warpmind/core/random.h"
#include "warpmind/ddm/ddm.h"
#include "warpmind/ddm/scenario.h"
#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/crowd/scenario.h"
#include "warpmind/engine/image.h"
#include "warpmind/engine/renderer.h"
#include "warpmind/engine/window.h"
#include "warpmind/field/field.h"

namespace warpmind::demos {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::uint32_t rgba(int r, int g, int b, int a = 255) {
  return static_cast<std::uint32_t>(r) | (static_cast<std::uint32_t>(g) << 8) | (static_cast<std::uint32_t>(b) << 16) |
         (static_cast<std::uint32_t>(a) << 24);
}

// What a scene hands the renderer each frame (buffers reused across frames).
struct SceneFrame {
  WorldRect world;
  std::vector<float> heat;
  int heat_w = 0, heat_h = 0;
  float heat_range = 1.0f;  // symmetric ramp [-range, range]
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
};

// ---- [SECTION] scenes ----------------------------------------------------------------------------

void grid_lines(SceneFrame& f, float step) {
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

constexpr field::FieldVariant kFieldVariants[] = {field::FieldVariant::Auto,         field::FieldVariant::CpuNaive,
                                                  field::FieldVariant::CpuStamp,     field::FieldVariant::GpuNaive,
                                                  field::FieldVariant::GpuCoalesced, field::FieldVariant::GpuShared,
                                                  field::FieldVariant::GpuBinned};
constexpr crowd::CrowdVariant kCrowdVariants[] = {crowd::CrowdVariant::Auto, crowd::CrowdVariant::CpuReference,
                                                  crowd::CrowdVariant::GpuSort, crowd::CrowdVariant::GpuTiled,
                                                  crowd::CrowdVariant::GpuStaticGrid};
constexpr crowd::CrowdRule kRules[] = {crowd::CrowdRule::Strict, crowd::CrowdRule::LowestIdWins};

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
    ImGui::SliderInt("layer shown", &layer_, 0, 1, layer_ ? "team 1" : "team 0");
    if (battle_) {
      ImGui::TextWrapped("map %d x %d, field %s, crowd %s", battle_->map(), battle_->map(),
                         field::variant_name(battle_->layers().variant()),
                         crowd::variant_name(battle_->solver().variant()));
      ImGui::TextWrapped("alive %zu vs %zu, tick %lld%s", battle_->alive(0), battle_->alive(1), battle_->ticks(),
                         battle_->winner() < 0 ? "" : (battle_->winner() == 2 ? "  draw" : "  battle over"));
    }
    return dirty;
  }
  void frame(SceneFrame& f, bool grid) override {
    if (!battle_) return;
    const float m = static_cast<float>(battle_->map());
    f.world = {0, 0, m, m};
    const field::FieldLayers& layers = battle_->layers();
    f.heat_w = f.heat_h = cfg_.field_resolution;
    f.heat.resize(static_cast<std::size_t>(f.heat_w) * f.heat_h);
    if (!layers.read(layer_, f.heat).ok()) f.heat.assign(f.heat.size(), 0.0f);
    float hi = 1.0f;
    for (float v : f.heat) hi = std::max(hi, std::fabs(v));
    f.heat_range = hi;
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
    if (grid) grid_lines(f, m / 16.0f);
  }
  void stages(std::vector<Stage>& out) const override {
    if (!battle_) return;
    const BattleTimes& t = battle_->last_times();
    out = {{"field", t.field_ms}, {"decisions", t.decisions_ms}, {"crowd", t.crowd_ms}, {"combat", t.combat_ms}};
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
};

// Agents on a jittered lattice walk to the clicked goal (or jitter at random) through the crowd solver;
// colour shows the last verdict.
class CrowdScene : public Scene {
 public:
  explicit CrowdScene(const AppOptions& o)
      : agents_(static_cast<int>(std::min<std::size_t>(o.battle.units_per_army * 2, 200000))), seed_(o.battle.seed) {}
  const char* name() const override { return "crowd"; }
  Status reset(Context& ctx) override {
    solver_.reset();
    crowd::CrowdConfig c;
    c.world = crowd::lattice_world(static_cast<std::size_t>(agents_), radius_, 1.6f);
    c.radius = radius_;
    c.rule = rule_;
    c.variant = variant_;
    pos_ = crowd::lattice_start(static_cast<std::size_t>(agents_), radius_, 1.6f, c, seed_);
    goal_ = {c.world.x0 + c.world.width / 2, c.world.y0 + c.world.height / 2};
    WM_RETURN_IF_ERROR(crowd::CrowdSolver::create(ctx, c, solver_));
    verdicts_.assign(pos_.size(), crowd::Verdict::Stayed);
    tick_ = 0;
    return solver_->reset(pos_);
  }
  Status step(Context& ctx) override {
    const auto t0 = Clock::now();
    const crowd::MoveSpec moves{goal_mode_ ? crowd::MoveSpec::Kind::Goal : crowd::MoveSpec::Kind::Random, step_, seed_,
                                goal_};
    crowd::make_proposals(moves, ctx.pool(), pos_, tick_++, proposals_);
    propose_ms_ = ms_since(t0);
    const auto t1 = Clock::now();
    WM_RETURN_IF_ERROR(solver_->step(proposals_));
    WM_RETURN_IF_ERROR(solver_->read_positions(pos_));
    WM_RETURN_IF_ERROR(solver_->read_verdicts(verdicts_));
    crowd_ms_ = ms_since(t1);
    return Status::Ok();
  }
  bool panel() override {
    bool dirty = ImGui::SliderInt("agents", &agents_, 100, 200000, "%d", ImGuiSliderFlags_Logarithmic);
    dirty |= ImGui::SliderFloat("radius", &radius_, 0.25f, 2.0f);
    dirty |= combo("crowd variant", variant_, kCrowdVariants, crowd::variant_name);
    dirty |= combo("tie-break", rule_, kRules, crowd::rule_name);
    ImGui::Checkbox("walk to the goal (left click sets it)", &goal_mode_);
    ImGui::SliderFloat("step", &step_, 0.05f, 2.0f);
    if (solver_) {
      const crowd::StepStats& s = solver_->last_stats();
      ImGui::TextWrapped("%s: moved %zu, collisions %zu, blocked %zu", crowd::variant_name(solver_->variant()), s.moved,
                         s.collisions, s.out_of_world + s.blocked);
    }
    return dirty;
  }
  void click(Vec2 p, int button) override {
    if (button == 0) goal_ = p;
  }
  void frame(SceneFrame& f, bool grid) override {
    if (!solver_) return;
    f.world = solver_->config().world;
    f.heat.clear();
    f.heat_w = f.heat_h = 0;
    f.units.resize(pos_.size());
    for (std::size_t i = 0; i < pos_.size(); ++i)
      f.units[i] = {pos_[i].x, pos_[i].y, radius_,
                    verdicts_[i] == crowd::Verdict::Moved       ? rgba(90, 220, 120)
                    : verdicts_[i] == crowd::Verdict::Collision ? rgba(240, 90, 70)
                                                                : rgba(150, 150, 170)};
    const float r = 2.0f * radius_;
    f.rect(goal_.x - r, goal_.y - r, goal_.x + r, goal_.y + r, rgba(255, 230, 90));
    if (grid) grid_lines(f, std::max(2.0f * radius_, f.world.width / 64.0f));
  }
  void stages(std::vector<Stage>& out) const override { out = {{"proposals", propose_ms_}, {"crowd", crowd_ms_}}; }
  std::string summary() const override {
    return "crowd: " + std::to_string(pos_.size()) + " agents, tick " + std::to_string(tick_) + ", overlaps " +
           std::to_string(crowd::count_overlaps(pos_, radius_));
  }

 private:
  int agents_;
  std::uint64_t seed_;
  float radius_ = 0.5f, step_ = 0.4f;
  bool goal_mode_ = true;
  crowd::CrowdRule rule_ = crowd::CrowdRule::LowestIdWins;
  crowd::CrowdVariant variant_ = crowd::CrowdVariant::Auto;
  std::unique_ptr<crowd::CrowdSolver> solver_;
  std::vector<Vec2> pos_, proposals_;
  std::vector<crowd::Verdict> verdicts_;
  Vec2 goal_;
  std::uint64_t tick_ = 0;
  double propose_ms_ = 0, crowd_ms_ = 0;
};

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
    f.heat_w = f.heat_h = resolution_;
    f.heat.resize(static_cast<std::size_t>(resolution_) * resolution_);
    if (!layers_->read(0, f.heat).ok()) f.heat.assign(f.heat.size(), 0.0f);
    float hi = 1.0f;
    for (float v : f.heat) hi = std::max(hi, std::fabs(v));
    f.heat_range = hi;
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

// Players of an MMO world moving and fighting through the AOI tick: the bucket grid, a selected
// player's area of interest, the notifications it receives this tick (lines to their subjects) and its
// enter (green) and leave (red) events.
class AoiScene : public Scene {
 public:
  explicit AoiScene(const AppOptions& o)
      : clients_(static_cast<int>(std::min<std::size_t>(o.battle.units_per_army * 4, 200000))), seed_(o.battle.seed) {}
  const char* name() const override { return "aoi"; }
  Status reset(Context& ctx) override {
    world_.reset();
    aoi::AoiConfig c;
    c.world = {0, 0, static_cast<float>(map_), static_cast<float>(map_)};
    c.aoi = c.max_move = c.attack_range = aoi_;
    c.max_move = aoi_ * 0.3f;
    c.shape = shape_;
    c.variant = variant_;
    WM_RETURN_IF_ERROR(aoi::AoiWorld::create(ctx, c, world_));
    is_gpu_ = world_->variant() == aoi::AoiVariant::GpuSeed || world_->variant() == aoi::AoiVariant::GpuFast;
    WM_RETURN_IF_ERROR(
        world_->reset(aoi::generate_players(static_cast<std::size_t>(clients_), c.world, hot_spots_, seed_)));
    tick_ = 0;
    selected_ = 0;
    result_ = {};
    return Status::Ok();
  }
  Status step(Context& ctx) override {
    aoi::CommandSpec spec;
    spec.attack_share = attack_share_;
    spec.seed = seed_;
    aoi::make_commands(spec, world_->config(), ctx.pool(), world_->players().size(), tick_++, commands_);
    return world_->tick(commands_, result_);
  }
  bool panel() override {
    bool dirty = ImGui::SliderInt("clients", &clients_, 100, 200000, "%d", ImGuiSliderFlags_Logarithmic);
    dirty |= ImGui::SliderInt("map size", &map_, 100, 5000);
    dirty |= ImGui::SliderFloat("AOI size", &aoi_, 2.0f, 100.0f);
    dirty |= ImGui::SliderInt("hot spots", &hot_spots_, 0, 16);
    const aoi::AoiShape shapes[] = {aoi::AoiShape::Square, aoi::AoiShape::Circle};
    dirty |= combo("AOI shape", shape_, shapes, aoi::shape_name);
    const aoi::AoiVariant variants[] = {aoi::AoiVariant::Auto, aoi::AoiVariant::CpuGrid, aoi::AoiVariant::CpuFast,
                                        aoi::AoiVariant::GpuSeed, aoi::AoiVariant::GpuFast};
    dirty |= combo("AOI variant", variant_, variants, aoi::variant_name);
    ImGui::SliderFloat("attack share", &attack_share_, 0.0f, 1.0f);
    if (world_) {
      std::size_t rejected = 0;
      for (std::size_t k : result_.rejected) rejected += k;
      ImGui::TextWrapped("%s: %zu updates, %zu notifications, %zu entered, %zu left, %zu rejected",
                         aoi::variant_name(world_->variant()), result_.updates.size(), result_.notifications.size(),
                         result_.entered.size(), result_.left.size(), rejected);
      ImGui::TextWrapped("selected player %u (left click selects): %zu notifications this tick", selected_, mine_);
    }
    return dirty;
  }
  void click(Vec2 p, int button) override {
    if (button != 0 || !world_) return;
    float best = INFINITY;
    const auto players = world_->players();
    for (std::uint32_t i = 0; i < players.size(); ++i) {
      const float dx = players[i].x - p.x, dy = players[i].y - p.y;
      if (dx * dx + dy * dy < best) {
        best = dx * dx + dy * dy;
        selected_ = i;
      }
    }
  }
  void frame(SceneFrame& f, bool grid) override {
    if (!world_) return;
    const aoi::AoiConfig& c = world_->config();
    f.world = c.world;
    f.heat.clear();
    f.heat_w = f.heat_h = 0;
    const auto players = world_->players();
    f.units.resize(players.size());
    const float r = std::max(0.3f, c.aoi * 0.12f);
    for (std::size_t i = 0; i < players.size(); ++i) {
      const float life = std::clamp(static_cast<float>(players[i].hp) / 100.0f, 0.0f, 1.0f);
      f.units[i] = {players[i].x, players[i].y, r,
                    rgba(static_cast<int>(255 * (1 - life)), static_cast<int>(80 + 175 * life), 90)};
    }
    if (selected_ >= players.size()) return;
    const aoi::Player& me = players[selected_];
    f.units.push_back({me.x, me.y, r * 2.5f, rgba(255, 240, 80)});  // drawn last: on top
    if (grid) grid_lines(f, c.aoi);
    // The selected player's AOI.
    const std::uint32_t yellow = rgba(255, 230, 90, 220);
    if (c.shape == aoi::AoiShape::Square) {
      const float bx = std::floor((me.x - c.world.x0) / c.aoi), by = std::floor((me.y - c.world.y0) / c.aoi);
      f.rect(c.world.x0 + (bx - 1) * c.aoi, c.world.y0 + (by - 1) * c.aoi, c.world.x0 + (bx + 2) * c.aoi,
             c.world.y0 + (by + 2) * c.aoi, yellow);
    } else {
      for (int k = 0; k < 48; ++k) {
        const float a0 = 6.2831853f * k / 48, a1 = 6.2831853f * (k + 1) / 48;
        f.line(me.x + c.aoi * std::cos(a0), me.y + c.aoi * std::sin(a0), me.x + c.aoi * std::cos(a1),
               me.y + c.aoi * std::sin(a1), yellow);
      }
    }
    // Notifications to the selected player this tick: a line to each subject (sorted by receiver, so
    // they are one run).
    const auto& n = result_.notifications;
    auto lo = std::lower_bound(n.begin(), n.end(), selected_,
                               [](const aoi::Notification& a, std::uint32_t r) { return a.receiver < r; });
    mine_ = 0;
    for (auto it = lo; it != n.end() && it->receiver == selected_; ++it, ++mine_)
      if (it->subject != selected_ && (it == lo || std::prev(it)->subject != it->subject))
        f.line(me.x, me.y, players[it->subject].x, players[it->subject].y, rgba(120, 180, 255, 200));
    for (const aoi::VisibilityEvent& e : result_.entered)
      if (e.receiver == selected_) f.line(me.x, me.y, players[e.other].x, players[e.other].y, rgba(80, 255, 80));
    for (const aoi::VisibilityEvent& e : result_.left)
      if (e.receiver == selected_) f.line(me.x, me.y, players[e.other].x, players[e.other].y, rgba(255, 60, 60));
  }
  void stages(std::vector<Stage>& out) const override {
    out = {{"upload", result_.ms_upload},          {"logic", result_.ms_logic},
           {"bucket sort", result_.ms_sort},       {"range query", result_.ms_query - (is_gpu_ ? 0 : result_.ms_sort)},
           {"enter/leave", result_.ms_visibility}, {"download", result_.ms_download}};
  }
  std::string summary() const override {
    return "aoi: " + std::to_string(world_ ? world_->players().size() : 0) + " players, tick " + std::to_string(tick_) +
           ", " + std::to_string(result_.notifications.size()) + " notifications";
  }

 private:
  bool is_gpu_ = false;  // GPU times per stage: the sort is not inside the query
  int clients_, map_ = 1000, hot_spots_ = 3;
  float aoi_ = 20.0f, attack_share_ = 0.2f;
  std::uint64_t seed_;
  aoi::AoiShape shape_ = aoi::AoiShape::Square;
  aoi::AoiVariant variant_ = aoi::AoiVariant::Auto;
  std::unique_ptr<aoi::AoiWorld> world_;
  std::vector<aoi::Command> commands_;
  aoi::TickResult result_;
  std::uint32_t selected_ = 0;
  std::size_t mine_ = 0;
  std::uint64_t tick_ = 0;
};

// Publication (blue) and subscription (orange) rectangles moving over the space through the region
// matcher: regions in some overlapping pair drawn bright, the selected one yellow and its matches green.
class RegionsScene : public Scene {
 public:
  explicit RegionsScene(const AppOptions& o) : seed_(o.battle.seed) {}
  const char* name() const override { return "regions"; }
  Status reset(Context& ctx) override {
    matcher_.reset();
    WM_RETURN_IF_ERROR(ddm::RegionMatcher<2>::create(ctx, {variant_, cell_}, matcher_));
    ddm::GenerateSpec g;
    g.regions = static_cast<std::size_t>(regions_count_);
    g.space = kSpace;
    g.alpha = use_alpha_ ? alpha_ : 0.0f;
    g.size = use_alpha_ ? 0.0f : size_;
    g.hotspot = hotspot_;
    g.seed = seed_;
    regions_ = ddm::generate_regions<2>(g);
    for (const auto& r : regions_) {
      ddm::RegionId id;
      WM_RETURN_IF_ERROR(matcher_->add(r.kind, r.box, id));
    }
    step_ = 0;
    selected_ = 0;
    const auto t0 = Clock::now();
    WM_RETURN_IF_ERROR(matcher_->match(pairs_));
    match_ms_ = ms_since(t0);
    return Status::Ok();
  }
  Status step(Context&) override {
    ddm::move_regions<2>(regions_, seed_, step_++);
    // Keep the regions in the space: wrap the ones that left it.
    for (auto& r : regions_)
      for (int k = 0; k < 2; ++k) {
        const float w = r.box.hi[k] - r.box.lo[k];
        if (r.box.hi[k] <= 0) r.box.lo[k] += kSpace, r.box.hi[k] = r.box.lo[k] + w;
        if (r.box.lo[k] >= kSpace) r.box.lo[k] -= kSpace, r.box.hi[k] = r.box.lo[k] + w;
      }
    const auto t0 = Clock::now();
    for (std::size_t i = 0; i < regions_.size(); ++i)
      WM_RETURN_IF_ERROR(matcher_->update(static_cast<ddm::RegionId>(i), regions_[i].box));
    WM_RETURN_IF_ERROR(matcher_->match_changes(appeared_, disappeared_));
    match_ms_ = ms_since(t0);
    std::vector<ddm::Pair> kept;
    std::set_difference(pairs_.begin(), pairs_.end(), disappeared_.begin(), disappeared_.end(),
                        std::back_inserter(kept));
    pairs_.clear();
    std::merge(kept.begin(), kept.end(), appeared_.begin(), appeared_.end(), std::back_inserter(pairs_));
    return Status::Ok();
  }
  bool panel() override {
    bool dirty = ImGui::SliderInt("regions", &regions_count_, 100, 50000, "%d", ImGuiSliderFlags_Logarithmic);
    dirty |= ImGui::Checkbox("size from alpha", &use_alpha_);
    if (use_alpha_)
      dirty |= ImGui::SliderFloat("alpha", &alpha_, 0.01f, 100.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
    else
      dirty |= ImGui::SliderFloat("side", &size_, 1.0f, 500.0f, "%.0f", ImGuiSliderFlags_Logarithmic);
    dirty |= ImGui::Checkbox("hot spots (the seed's 3)", &hotspot_);
    const ddm::DdmVariant variants[] = {ddm::DdmVariant::Auto, ddm::DdmVariant::CpuBrute, ddm::DdmVariant::CpuSort,
                                        ddm::DdmVariant::GpuRegion, ddm::DdmVariant::GpuGrid};
    dirty |= combo("DDM variant", variant_, variants, ddm::variant_name);
    dirty |= ImGui::SliderFloat("gpu-grid cell (drawn with grid lines)", &cell_, 10.0f, 1000.0f, "%.0f",
                                ImGuiSliderFlags_Logarithmic);
    if (matcher_) {
      ImGui::TextWrapped("%s: %zu pairs; last step +%zu -%zu", ddm::variant_name(matcher_->variant()), pairs_.size(),
                         appeared_.size(), disappeared_.size());
      ImGui::TextWrapped("region %u (%s, left click selects) matches:", selected_,
                         selected_ < regions_.size() && regions_[selected_].kind == ddm::RegionKind::Publication
                             ? "publication"
                             : "subscription");
      std::string list;
      int shown = 0;
      for (const ddm::Pair& q : pairs_)
        if ((q.publication == selected_ || q.subscription == selected_) && shown++ < 24)
          list += std::to_string(q.publication == selected_ ? q.subscription : q.publication) + " ";
      ImGui::TextWrapped("%s", list.empty() ? "(none)" : list.c_str());
    }
    return dirty;
  }
  void click(Vec2 p, int button) override {
    if (button != 0) return;
    float best = INFINITY;
    for (std::uint32_t i = 0; i < regions_.size(); ++i) {
      const auto& b = regions_[i].box;
      if (p.x >= b.lo[0] && p.x < b.hi[0] && p.y >= b.lo[1] && p.y < b.hi[1]) {
        const float area = (b.hi[0] - b.lo[0]) * (b.hi[1] - b.lo[1]);
        if (area < best) best = area, selected_ = i;
      }
    }
  }
  void frame(SceneFrame& f, bool grid) override {
    f.world = {0, 0, kSpace, kSpace};
    f.heat.clear();
    f.heat_w = f.heat_h = 0;
    f.units.clear();
    involved_.assign(regions_.size(), 0);
    for (const ddm::Pair& q : pairs_) involved_[q.publication] = involved_[q.subscription] = 1;
    if (grid) grid_lines(f, cell_);
    for (std::uint32_t i = 0; i < regions_.size(); ++i) {
      const bool pub = regions_[i].kind == ddm::RegionKind::Publication;
      const int a = involved_[i] ? 255 : 90;
      const auto& b = regions_[i].box;
      f.rect(b.lo[0], b.lo[1], b.hi[0], b.hi[1], pub ? rgba(90, 160, 255, a) : rgba(255, 160, 60, a));
    }
    if (selected_ < regions_.size()) {
      for (const ddm::Pair& q : pairs_)
        if (q.publication == selected_ || q.subscription == selected_) {
          const auto& b = regions_[q.publication == selected_ ? q.subscription : q.publication].box;
          f.rect(b.lo[0], b.lo[1], b.hi[0], b.hi[1], rgba(80, 255, 80));
        }
      const auto& b = regions_[selected_].box;
      f.rect(b.lo[0], b.lo[1], b.hi[0], b.hi[1], rgba(255, 240, 80));
    }
  }
  void stages(std::vector<Stage>& out) const override { out = {{"match", match_ms_}}; }
  std::string summary() const override {
    return "regions: " + std::to_string(regions_.size()) + " regions, " + std::to_string(pairs_.size()) + " pairs";
  }

 private:
  static constexpr float kSpace = 10000.0f;
  int regions_count_ = 4000;
  bool use_alpha_ = false, hotspot_ = true;
  float alpha_ = 1.0f, size_ = 100.0f, cell_ = 100.0f;
  std::uint64_t seed_;
  ddm::DdmVariant variant_ = ddm::DdmVariant::Auto;
  std::unique_ptr<ddm::RegionMatcher<2>> matcher_;
  std::vector<ddm::Region<2>> regions_;
  std::vector<ddm::Pair> pairs_, appeared_, disappeared_;
  std::vector<std::uint8_t> involved_;
  std::uint32_t selected_ = 0;
  int step_ = 0;
  double match_ms_ = 0;
};

// ---- the board scenes' shared panels ----

// The computer: which search, where the hybrid's batches run and its tunables, time, depth, threads,
// the pace of computer-against-computer games.
void ai_panel(AiSettings& ai, int& depth, int depth_max, const char* depth_label) {
  int kind = ai.search == AiSearch::Hybrid ? 1 : 0;
  const char* kinds[] = {"alpha-beta", "hybrid"};
  if (ImGui::Combo("search", &kind, kinds, 2)) ai.search = kind ? AiSearch::Hybrid : AiSearch::AlphaBeta;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "alpha-beta: the engine's search on the CPU threads; hybrid: the node-based search, batches on the GPU or the "
        "CPU");
  if (ai.search == AiSearch::Hybrid) {
    int b = ai.backend == Backend::Cpu ? 1 : ai.backend == Backend::Cuda ? 2 : 0;
    const char* backends[] = {"auto", "cpu", "cuda"};
    if (ImGui::Combo("batches on", &b, backends, 3))
      ai.backend = b == 1 ? Backend::Cpu : b == 2 ? Backend::Cuda : Backend::Auto;
  }
  ImGui::SliderInt("ms per move", &ai.time_ms, 0, 20000, "%d", ImGuiSliderFlags_Logarithmic);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("without a clock; 0: the depth alone. With a clock, the clock decides");
  ImGui::SliderInt(depth_label, &depth, 1, depth_max);
  ImGui::SliderInt("threads", &ai.threads, 1, 64);
  ImGui::SliderInt("pace (ms)", &ai.pace_ms, 0, 5000);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("computer against computer: at least this long between moves");
  if (ai.search == AiSearch::Hybrid && ImGui::TreeNode("hybrid tunables")) {
    search::HybridOptions& h = ai.hybrid;
    ImGui::SliderInt("Lmin", &h.l_min, 1, 4096, "%d", ImGuiSliderFlags_Logarithmic);
    ImGui::SliderInt("Lmax", &h.l_max, 1, 65536, "%d", ImGuiSliderFlags_Logarithmic);
    ImGui::SliderInt("Bmin", &h.b_min, 1, 4096, "%d", ImGuiSliderFlags_Logarithmic);
    ImGui::SliderInt("Bmax", &h.b_max, 1, 65536, "%d", ImGuiSliderFlags_Logarithmic);
    h.l_max = std::max(h.l_max, h.l_min);
    h.b_max = std::max(h.b_max, h.b_min);
    ImGui::Checkbox("pruning", &h.pruning);
    ImGui::SameLine();
    ImGui::Checkbox("first child first", &h.first_child_first);
    ImGui::SliderInt("CUT nodes one by one", &h.cut_one_by_one, 1, 256, "%d", ImGuiSliderFlags_Logarithmic);
    ImGui::TreePop();
  }
}

// What the search reports as it goes: depth, score, nodes and their rate; the hybrid's batches and
// the share of the nodes computed in batches (on the GPU when it runs there).
void thinking_lines(const Thinking& th, const char* score_unit) {
  if (th.depth == 0) {
    ImGui::TextDisabled(th.active ? "thinking..." : "the computer has not searched yet");
    return;
  }
  ImGui::TextWrapped("%s depth %d  score %+d %s", th.active ? "thinking:" : "last search:", th.depth, th.score,
                     score_unit);
  ImGui::TextWrapped("%llu nodes in %lld ms, %.0f k nodes/s", static_cast<unsigned long long>(th.nodes),
                     static_cast<long long>(th.time_ms),
                     th.time_ms > 0 ? static_cast<double>(th.nodes) / static_cast<double>(th.time_ms) : 0.0);
  if (th.search == AiSearch::Hybrid) {
    const search::HybridStats& h = th.hybrid;
    const double batched = static_cast<double>(h.batched_leaves + h.batched_branches);
    ImGui::TextWrapped(
        "hybrid on the %s: leaf batches %llu (mean %.0f), branch batches %llu (mean %.0f)", th.on_gpu ? "GPU" : "CPU",
        static_cast<unsigned long long>(h.leaf_batches),
        h.leaf_batches ? static_cast<double>(h.batched_leaves) / static_cast<double>(h.leaf_batches) : 0.0,
        static_cast<unsigned long long>(h.branch_batches),
        h.branch_batches ? static_cast<double>(h.batched_branches) / static_cast<double>(h.branch_batches) : 0.0);
    ImGui::TextWrapped("%.0f%% of the nodes in batches%s; %llu pruned",
                       h.computed() ? 100.0 * batched / static_cast<double>(h.computed()) : 0.0,
                       th.on_gpu ? " (the GPU's share)" : "", static_cast<unsigned long long>(h.pruned));
  }
  if (!th.backend_note.empty()) ImGui::TextWrapped("%s", th.backend_note.c_str());
}

// Both clocks (the running one marked) and the time control, applied by a button.
void clock_panel(const GameClock& clock, const char* (&sides)[2], int& base_s, int& increment_s, bool& apply) {
  if (clock.control().on())
    for (int side = 0; side < 2; ++side) {
      if (side) ImGui::SameLine(0, 24);
      ImGui::Text("%s%s %s", clock.running() == side ? "> " : "  ", sides[side],
                  clock_text(clock.left_ms(side)).c_str());
    }
  else
    ImGui::TextDisabled("no clock");
  ImGui::InputInt("base (s, 0: none)", &base_s);
  ImGui::InputInt("increment (s)", &increment_s);
  base_s = std::clamp(base_s, 0, 36000);
  increment_s = std::clamp(increment_s, 0, 600);
  apply = ImGui::Button("set the clocks");
}

// The evaluation over the game, one point per move, clamped to +-range.
void eval_graph(const std::vector<int>& evals, const char* label, float range) {
  std::vector<float> v(evals.begin(), evals.end());
  for (float& x : v) x = std::clamp(x, -range, range);
  if (v.empty()) v.push_back(0);
  ImGui::PlotLines(label, v.data(), static_cast<int>(v.size()), 0, nullptr, -range, range, ImVec2(0, 60));
}

// A path, save and load buttons; the result in `note`.
template <class Save, class Load>
void record_buttons(char (&path)[512], std::string& note, Save save, Load load) {
  ImGui::InputText("file", path, sizeof path);
  if (ImGui::Button("save")) {
    const std::string err = write_file(path, save());
    note = err.empty() ? std::string("saved ") + path : err;
  }
  ImGui::SameLine();
  if (ImGui::Button("load")) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    if (in) text << in.rdbuf();
    if (!in)
      note = std::string("cannot read ") + path;
    else if (text.str().size() > (8u << 20))
      note = std::string(path) + " is larger than 8 MiB";
    else {
      const Status st = load(text.str());
      note = st.ok() ? std::string("loaded ") + path : st.message();
    }
  }
  if (!note.empty()) {
    ImGui::SameLine();
    ImGui::TextWrapped("%s", note.c_str());
  }
}

// Chess against the computer (or two people, or the computer against itself): the board drawn by the
// engine, moves by clicks (chess_table.h), the computer's search on its own thread.
class ChessScene : public Scene {
 public:
  explicit ChessScene(const AppOptions& o) {
    if (!table_.start(o.fen, o.moves).ok()) (void)table_.start("", "");  // the start position cannot fail
    std::snprintf(fen_, sizeof fen_, "%s", o.fen.c_str());
    std::snprintf(moves_, sizeof moves_, "%s", o.moves.c_str());
    std::snprintf(path_, sizeof path_, "%s/game.pgn", o.out.c_str());
  }
  const char* name() const override { return "chess"; }
  Status reset(Context&) override { return Status::Ok(); }
  Status step(Context&) override {
    const auto t0 = Clock::now();
    table_.update();
    update_ms_ = ms_since(t0);
    return Status::Ok();
  }
  bool panel() override {
    namespace chess = search::chess;
    ImGui::TextWrapped("%s", table_.status().c_str());
    const char* who[] = {"person", "computer"};
    for (chess::Color c : {chess::White, chess::Black}) {
      int p = table_.player(c) == Player::Computer ? 1 : 0;
      if (ImGui::Combo(c == chess::White ? "White" : "Black", &p, who, 2))
        table_.set_player(c, p ? Player::Computer : Player::Person);
    }
    if (ImGui::Button("new game")) (void)table_.start("", "");
    ImGui::SameLine();
    if (ImGui::Button("undo")) table_.undo();
    ImGui::SameLine();
    if (ImGui::Button("redo")) table_.redo();
    ImGui::SameLine();
    if (ImGui::Button("flip")) flipped_ = !flipped_;
    ImGui::SameLine();
    if (ImGui::Button("move now")) table_.move_now();
    if (table_.promotion_pending()) {
      ImGui::Text("promote to:");
      const std::pair<const char*, chess::PieceType> pieces[] = {
          {"queen", chess::Queen}, {"rook", chess::Rook}, {"bishop", chess::Bishop}, {"knight", chess::Knight}};
      for (const auto& [label, piece] : pieces) {
        ImGui::SameLine();
        if (ImGui::Button(label)) table_.promote(piece);
      }
    }
    const ChessThinking th = table_.thinking_info();
    if (ImGui::TreeNodeEx("computer", ImGuiTreeNodeFlags_DefaultOpen)) {
      ai_panel(table_.ai(), table_.ai().depth, 64, "depth (plies)");
      thinking_lines(th, "cp");
      if (!th.pv.empty()) {
        std::string pv;
        for (const chess::Move& m : th.pv) pv += chess::move_to_uci(m) + " ";
        ImGui::TextWrapped("pv %s", pv.c_str());
      }
      eval_graph(table_.evaluations(), "eval (White, cp)", 800.0f);
      ImGui::TreePop();
    }
    if (ImGui::TreeNode("clock")) {
      const char* sides[2] = {"White", "Black"};
      bool apply = false;
      clock_panel(table_.clock(), sides, base_s_, increment_s_, apply);
      if (apply) table_.set_time_control({base_s_ * 1000LL, increment_s_ * 1000LL});
      ImGui::TreePop();
    }
    if (ImGui::TreeNode("position and records")) {
      ImGui::InputText("FEN", fen_, sizeof fen_);
      ImGui::InputText("moves", moves_, sizeof moves_);
      if (ImGui::Button("start from FEN and moves")) (void)table_.start(fen_, moves_);  // the status says why it fails
      ImGui::SameLine();
      if (ImGui::Button("copy FEN")) ImGui::SetClipboardText(table_.fen().c_str());
      ImGui::SameLine();
      if (ImGui::Button("copy PGN")) ImGui::SetClipboardText(table_.pgn().c_str());
      record_buttons(
          path_, note_, [&] { return table_.pgn(); }, [&](const std::string& text) { return table_.load_pgn(text); });
      ImGui::TextWrapped("moves: %s", table_.moves_text().c_str());
      ImGui::TreePop();
    }
    return false;
  }
  void click(Vec2 at, int button) override {
    if (button == 0) table_.click(ChessTable::square_at(at, flipped_));
  }
  void frame(SceneFrame& f, bool) override {
    table_.draw(picture_, flipped_);
    f.world = picture_.area;
    f.heat.clear();
    f.heat_w = f.heat_h = 0;
    f.units = picture_.discs;
    f.fills = picture_.fills;
    f.lines.insert(f.lines.end(), picture_.lines.begin(), picture_.lines.end());
  }
  void stages(std::vector<Stage>& out) const override { out = {{"update", update_ms_}}; }
  std::string summary() const override { return table_.fen() + "; " + table_.status(); }

 private:
  ChessTable table_;
  BoardPicture picture_;
  bool flipped_ = false;
  double update_ms_ = 0;
  char fen_[128] = {}, moves_[2048] = {}, path_[512] = {};
  std::string note_;
  int base_s_ = 300, increment_s_ = 2;
};

// Connect6 against the computer: the 19 x 19 grid drawn by the engine, two clicks a turn
// (connect6_table.h), the computer's search on its own thread.
class Connect6Scene : public Scene {
 public:
  explicit Connect6Scene(const AppOptions& o) {
    if (!table_.start(o.moves).ok()) (void)table_.start("");
    std::snprintf(moves_, sizeof moves_, "%s", o.moves.c_str());
    std::snprintf(path_, sizeof path_, "%s/game.c6", o.out.c_str());
  }
  const char* name() const override { return "connect6"; }
  Status reset(Context&) override { return Status::Ok(); }
  Status step(Context&) override {
    const auto t0 = Clock::now();
    table_.update();
    update_ms_ = ms_since(t0);
    return Status::Ok();
  }
  bool panel() override {
    namespace c6 = search::connect6;
    ImGui::TextWrapped("%s", table_.status().c_str());
    const char* who[] = {"person", "computer"};
    for (c6::Stone c : {c6::BlackStone, c6::WhiteStone}) {
      int p = table_.player(c) == Player::Computer ? 1 : 0;
      if (ImGui::Combo(c == c6::BlackStone ? "Black" : "White", &p, who, 2))
        table_.set_player(c, p ? Player::Computer : Player::Person);
    }
    if (ImGui::Button("new game")) (void)table_.start("");
    ImGui::SameLine();
    if (ImGui::Button("undo")) table_.undo();
    ImGui::SameLine();
    if (ImGui::Button("redo")) table_.redo();
    ImGui::SameLine();
    if (ImGui::Button("move now")) table_.move_now();
    const Connect6Thinking th = table_.thinking_info();
    if (ImGui::TreeNodeEx("computer", ImGuiTreeNodeFlags_DefaultOpen)) {
      Connect6Ai& ai = table_.ai();
      ai_panel(ai, ai.depth, 8, "depth (turns)");
      ImGui::SliderInt("width (pairs)", &ai.width, 1, 128);
      if (ai.search == AiSearch::AlphaBeta) ImGui::SliderInt("threat depth (turns)", &ai.vcf_depth, 0, 6);
      thinking_lines(th, "");
      if (th.best.a >= 0)
        ImGui::TextWrapped("%s %s%s", th.active ? "best so far (ghost stones):" : "played:",
                           c6::turn_name(th.best, c6::Notation::Letters).c_str(), th.forced ? " (forced)" : "");
      eval_graph(table_.evaluations(), "eval (Black)", 3000.0f);
      ImGui::TreePop();
    }
    if (ImGui::TreeNode("clock")) {
      const char* sides[2] = {"Black", "White"};
      bool apply = false;
      clock_panel(table_.clock(), sides, base_s_, increment_s_, apply);
      if (apply) table_.set_time_control({base_s_ * 1000LL, increment_s_ * 1000LL});
      ImGui::TreePop();
    }
    if (ImGui::TreeNode("turns and records")) {
      ImGui::InputText("turns", moves_, sizeof moves_);
      if (ImGui::Button("start from turns")) (void)table_.start(moves_);  // the status line says why when it fails
      ImGui::SameLine();
      if (ImGui::Button("copy turns")) ImGui::SetClipboardText(table_.turns_text().c_str());
      record_buttons(
          path_, note_, [&] { return table_.record(); },
          [&](const std::string& text) { return table_.load_record(text); });
      ImGui::TextWrapped("turns: %s", table_.turns_text().c_str());
      ImGui::TreePop();
    }
    return false;
  }
  void click(Vec2 at, int button) override {
    if (button == 0) table_.click(Connect6Table::cell_at(at));
  }
  void frame(SceneFrame& f, bool) override {
    table_.draw(picture_);
    f.world = picture_.area;
    f.heat.clear();
    f.heat_w = f.heat_h = 0;
    f.units = picture_.discs;
    f.fills = picture_.fills;
    f.lines.insert(f.lines.end(), picture_.lines.begin(), picture_.lines.end());
  }
  void stages(std::vector<Stage>& out) const override { out = {{"update", update_ms_}}; }
  std::string summary() const override { return table_.turns_text() + "; " + table_.status(); }

 private:
  Connect6Table table_;
  BoardPicture picture_;
  double update_ms_ = 0;
  char moves_[4096] = {}, path_[512] = {};
  std::string note_;
  int base_s_ = 300, increment_s_ = 5;
};

std::unique_ptr<Scene> make_scene(const std::string& name, const AppOptions& o) {
  if (name == "chess") return std::make_unique<ChessScene>(o);
  if (name == "connect6") return std::make_unique<Connect6Scene>(o);
  if (name == "regions") return std::make_unique<RegionsScene>(o);
  if (name == "aoi") return std::make_unique<AoiScene>(o);
  if (name == "crowd") return std::make_unique<CrowdScene>(o);
  if (name == "field") return std::make_unique<FieldScene>(o);
  return std::make_unique<BattleScene>(o);
}

// ---- [SECTION] the app: camera, panels, frame loop -----------------------------------------------

struct Camera {
  float cx = 64, cy = 64, span = 128;  // centre and visible height in world units
  // The whole world in view, in the part of a width x height window right of the panel (`panel`
  // pixels; ignored when that would leave less than 40% of the width).
  void fit(const WorldRect& w, int width, int height, float panel = 400.0f) {
    const float fw = static_cast<float>(std::max(width, 1)), fh = static_cast<float>(std::max(height, 1));
    if (fw - panel < 0.4f * fw) panel = 0;
    const float scale = std::max(w.width / (fw - panel), w.height / fh) * 1.05f;  // world units per pixel
    span = scale * fh;
    cx = w.x0 + w.width / 2 - panel / 2 * scale;
    cy = w.y0 + w.height / 2;
  }
  engine::Rect rect(int width, int height) const {
    const float aspect = static_cast<float>(width) / static_cast<float>(std::max(height, 1));
    return {cx - span * aspect / 2, cy - span / 2, cx + span * aspect / 2, cy + span / 2};
  }
  Vec2 world(float px, float py, int width, int height) const {
    const engine::Rect r = rect(width, height);
    return {r.x0 + px / static_cast<float>(width) * (r.x1 - r.x0),
            r.y1 - py / static_cast<float>(height) * (r.y1 - r.y0)};
  }
};

// The last `kHistory` values of a stage, for ImGui::PlotLines.
constexpr int kHistory = 240;
struct History {
  std::vector<float> v = std::vector<float>(kHistory, 0.0f);
  int at = 0;
  void add(double x) {
    v[static_cast<std::size_t>(at)] = static_cast<float>(x);
    at = (at + 1) % kHistory;
  }
};

}  // namespace

int run_window(const AppOptions& o, engine::Window& window) {
  std::error_code ec;
  std::filesystem::create_directories(o.out, ec);
  Backend backend = o.backend;
  std::unique_ptr<Context> ctx;
  const auto open_context = [&]() -> Status {
    ContextOptions co;
    co.backend = backend;
    ctx.reset();
    return Context::create(co, ctx);
  };
  Status st = open_context();
  if (!st.ok()) {
    std::fprintf(stderr, "warpmind-demo: %s\n", st.message().c_str());
    return 1;
  }
  const char* scene_names[] = {"battle", "crowd", "field", "aoi", "regions", "chess", "connect6"};
  constexpr int kScenes = 7;
  int scene_index = 0;
  for (int k = 0; k < kScenes; ++k)
    if (o.scene == scene_names[k]) scene_index = k;
  std::unique_ptr<Scene> scene = make_scene(scene_names[scene_index], o);
  st = scene->reset(*ctx);
  if (!st.ok()) {
    std::fprintf(stderr, "warpmind-demo: %s\n", st.message().c_str());
    return 1;
  }
  SceneFrame sf;
  Camera cam;
  scene->frame(sf, false);
  cam.fit(sf.world, window.width(), window.height());
  bool paused = false, single = false, grid = false, shot = false, scene_shot = false;
  std::vector<std::uint8_t> pixels;
  AppOptions opts = o;      // the seed can change from the panel
  float heat_range = 0.0f;  // colour range of the heat map; 0: the largest |value| of the frame
  int speed = 1, frames = 0, shots = 0;
  std::string message;
  std::vector<Stage> stages;
  std::vector<History> history;
  History render_history;
  double render_ms = 0;
  std::unique_ptr<engine::OffscreenRenderer> offscreen;  // "scene only" screenshots: without the UI

  while (!window.should_close() && (o.frames == 0 || frames < o.frames)) {
    window.begin_frame();
    ImGuiIO& io = ImGui::GetIO();
    const int w = std::max(window.width(), 1), h = std::max(window.height(), 1);
    // Camera and clicks (when ImGui does not want the mouse).
    if (!io.WantCaptureMouse) {
      const float sx = io.DisplaySize.x > 0 ? static_cast<float>(w) / io.DisplaySize.x : 1.0f;
      const float sy = io.DisplaySize.y > 0 ? static_cast<float>(h) / io.DisplaySize.y : 1.0f;
      const Vec2 at = cam.world(io.MousePos.x * sx, io.MousePos.y * sy, w, h);
      if (io.MouseWheel != 0.0f) {
        const float k = std::pow(0.85f, io.MouseWheel);
        cam.cx = at.x + (cam.cx - at.x) * k;
        cam.cy = at.y + (cam.cy - at.y) * k;
        cam.span *= k;
      }
      if (ImGui::IsMouseDragging(ImGuiMouseButton_Middle) || ImGui::IsMouseDragging(ImGuiMouseButton_Right, 2.0f)) {
        cam.cx -= io.MouseDelta.x * sx / static_cast<float>(h) * cam.span;
        cam.cy += io.MouseDelta.y * sy / static_cast<float>(h) * cam.span;
      }
      if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) scene->click(at, 0);
      if (ImGui::IsMouseReleased(ImGuiMouseButton_Right) && io.MouseDragMaxDistanceSqr[ImGuiMouseButton_Right] < 4.0f)
        scene->click(at, 1);
    }
    if (!io.WantCaptureKeyboard) {
      if (ImGui::IsKeyPressed(GLFW_KEY_SPACE)) paused = !paused;
      if (ImGui::IsKeyPressed(GLFW_KEY_N)) single = true;
      if (ImGui::IsKeyPressed(GLFW_KEY_F12) || ImGui::IsKeyPressed(GLFW_KEY_P)) shot = true;
      if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE)) window.request_close();
    }

    // Panels.
    bool reset = false;
    ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(390, 0), ImGuiCond_FirstUseEver);
    ImGui::Begin("warpmind");
    ImGui::PushItemWidth(-ImGui::GetFontSize() * 12.5f);  // room on the right for the labels
    if (ImGui::Combo("scene", &scene_index, scene_names, kScenes)) {
      scene = make_scene(scene_names[scene_index], opts);
      reset = true;
    }
    int seed = static_cast<int>(opts.battle.seed);
    if (ImGui::InputInt("seed", &seed) && seed >= 0) {
      opts.battle.seed = static_cast<std::uint64_t>(seed);
      scene = make_scene(scene_names[scene_index], opts);
      reset = true;
    }
    int b = backend == Backend::Cpu ? 1 : (backend == Backend::Cuda ? 2 : 0);
    const char* backends[] = {"auto", "cpu", "cuda"};
    if (ImGui::Combo("backend", &b, backends, 3)) {
      backend = b == 1 ? Backend::Cpu : (b == 2 ? Backend::Cuda : Backend::Auto);
      st = open_context();
      if (!st.ok()) {
        message = st.message();
        backend = Backend::Auto;
        st = open_context();
      }
      reset = true;
    }
    ImGui::TextWrapped("backend in use: %s%s", backend_name(ctx->backend()),
                       ctx->cuda() ? (" (" + ctx->device().name + ")").c_str() : "");
    ImGui::TextWrapped("renderer: %s; heat map by host upload", window.device_name().c_str());
    ImGui::Checkbox("pause (space)", &paused);
    ImGui::SameLine();
    if (ImGui::Button("step (n)")) single = true;
    ImGui::SameLine();
    if (ImGui::Button("reset")) reset = true;
    ImGui::SliderInt("ticks per frame", &speed, 1, 20);
    ImGui::SliderFloat("colour range (0: auto)", &heat_range, 0.0f, 2000.0f, "%.0f", ImGuiSliderFlags_Logarithmic);
    ImGui::Checkbox("grid lines", &grid);
    ImGui::SameLine();
    if (ImGui::Button("screenshot (F12)")) shot = true;
    ImGui::SameLine();
    if (ImGui::Button("scene only")) scene_shot = true;
    if (ImGui::Button("fit view")) cam.fit(sf.world, w, h);
    if (ImGui::CollapsingHeader(scene->name(), ImGuiTreeNodeFlags_DefaultOpen)) reset |= scene->panel();
    if (ImGui::CollapsingHeader("timings (ms)", ImGuiTreeNodeFlags_DefaultOpen)) {
      double total = 0;
      for (std::size_t i = 0; i < stages.size() && i < history.size(); ++i) {
        total += stages[i].ms;
        char label[64];
        std::snprintf(label, sizeof label, "%s %.3f", stages[i].name, stages[i].ms);
        ImGui::PlotLines(label, history[i].v.data(), kHistory, history[i].at, nullptr, 0.0f, FLT_MAX, ImVec2(0, 36));
      }
      char label[64];
      std::snprintf(label, sizeof label, "render %.3f", render_ms);
      ImGui::PlotLines(label, render_history.v.data(), kHistory, render_history.at, nullptr, 0.0f, FLT_MAX,
                       ImVec2(0, 36));
      ImGui::TextWrapped("tick total %.3f ms (%.0f ticks/s); %.0f fps", total, total > 0 ? 1e3 / total : 0.0,
                         io.Framerate);
    }
    if (!message.empty()) ImGui::TextWrapped("%s", message.c_str());
    ImGui::PopItemWidth();
    ImGui::End();

    if (reset) {
      st = scene->reset(*ctx);
      message = st.ok() ? std::string() : st.message();
      history.clear();
      stages.clear();
      if (st.ok()) {
        scene->frame(sf, grid);
        cam.fit(sf.world, window.width(), window.height());
      }
    }
    // Simulation.
    if (st.ok() && ((!paused && !scene->finished()) || single)) {
      for (int k = 0; k < (single ? 1 : speed) && st.ok(); ++k) st = scene->step(*ctx);
      single = false;
      if (!st.ok()) {
        message = st.message();
        paused = true;
      }
      scene->stages(stages);
      history.resize(stages.size());
      for (std::size_t i = 0; i < stages.size(); ++i) history[i].add(stages[i].ms);
    }
    // Render.
    const auto t0 = Clock::now();
    sf.lines.clear();
    sf.fills.clear();
    if (st.ok()) scene->frame(sf, grid);
    engine::Frame fr;
    fr.camera = cam.rect(w, h);
    fr.heat = sf.heat.empty() ? nullptr : sf.heat.data();
    fr.heat_w = sf.heat_w;
    fr.heat_h = sf.heat_h;
    fr.heat_area = {sf.world.x0, sf.world.y0, sf.world.x0 + sf.world.width, sf.world.y0 + sf.world.height};
    fr.heat_lo = -(heat_range > 0 ? heat_range : sf.heat_range);
    fr.heat_hi = heat_range > 0 ? heat_range : sf.heat_range;
    fr.units = sf.units.data();
    fr.unit_count = sf.units.size();
    fr.fills = sf.fills.data();
    fr.fill_vertex_count = sf.fills.size();
    fr.lines = sf.lines.data();
    fr.line_vertex_count = sf.lines.size();
    // F12 and the last frame of --frames: this frame is copied back as presented.
    const bool last = o.frames > 0 && frames + 1 == o.frames;
    const bool capture = shot || last;
    pixels.clear();
    std::string err = window.end_frame(fr, capture ? &pixels : nullptr);
    if (!err.empty() && capture && err.rfind("window capture", 0) == 0) err.clear();  // the scene alone below
    const bool captured = capture && err.empty() && !pixels.empty();
    if (!err.empty()) {
      std::fprintf(stderr, "warpmind-demo: %s\n", err.c_str());
      return 1;
    }
    render_ms = ms_since(t0);
    render_history.add(render_ms);
    if (capture || scene_shot) {
      // screenshot-NNN.png: the window as presented, panels included (the scene alone where the
      // swapchain cannot be copied); scene-NNN.png ("scene only"): the scene offscreen, without the UI.
      if (!captured) {
        if (!offscreen || offscreen->width() != w || offscreen->height() != h) {
          offscreen.reset();
          err = engine::OffscreenRenderer::create(w, h, offscreen);
        }
        if (err.empty()) err = offscreen->render(fr, pixels);
      }
      char name[64];
      std::snprintf(name, sizeof name, "/%s-%03d.png", capture ? "screenshot" : "scene", shots++);
      if (err.empty())
        err = engine::write_png(o.out + name, captured ? window.width() : w, captured ? window.height() : h,
                                pixels.data());
      message = err.empty() ? "saved " + o.out + name : err;
      std::printf("warpmind-demo: %s\n", message.c_str());
      shot = scene_shot = false;
    }
    ++frames;
  }
  const int validation = window.validation_messages() + (offscreen ? offscreen->validation_messages() : 0);
  std::string stats = "{\"mode\": \"window\", \"scene\": \"" + std::string(scene->name()) +
                      "\", \"frames\": " + std::to_string(frames) + ", \"backend\": \"" + backend_name(ctx->backend()) +
                      "\", \"renderer\": \"" + json_escape(window.device_name()) + "\", \"summary\": \"" +
                      json_escape(scene->summary()) + "\", \"validation_messages\": " + std::to_string(validation) +
                      "}\n";
  std::string err = write_file(o.out + "/stats.json", stats);
  if (!err.empty()) std::fprintf(stderr, "warpmind-demo: %s\n", err.c_str());
  std::printf("warpmind-demo: %d frames in a window (%s); %s\n", frames, window.device_name().c_str(),
              scene->summary().c_str());
  return st.ok() ? 0 : 1;
}

}  // namespace warpmind::demos
