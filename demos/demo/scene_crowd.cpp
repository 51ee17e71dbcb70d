// The crowd scene: agents walking through the crowd solver alone — a lattice walking to a clicked goal or
// jittering, or one of the standard scenarios (bottleneck, corridor, crossing) — in either movement mode.
#include "scene.h"

#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "warpmind/crowd/crowd_solver.h"
#include "warpmind/crowd/scenario.h"

namespace warpmind::demos {

namespace {

constexpr const char* kLayouts[] = {"lattice", "bottleneck", "corridor", "crossing"};

// Colour by the last verdict: moved green, refused for another agent red, by a wall or the edge grey.
std::uint32_t verdict_colour(crowd::Verdict v) {
  return v == crowd::Verdict::Moved       ? rgba(90, 220, 120)
         : v == crowd::Verdict::Collision ? rgba(240, 90, 70)
                                          : rgba(150, 150, 170);
}

class CrowdScene : public Scene {
 public:
  explicit CrowdScene(const AppOptions& o)
      : agents_(static_cast<int>(std::min<std::size_t>(o.battle.units_per_army * 2, 200000))),
        seed_(o.battle.seed),
        layout_(std::max(0, static_cast<int>(std::find(std::begin(kLayouts), std::end(kLayouts), o.crowd_layout) -
                                             std::begin(kLayouts)) %
                                4)),
        avoid_(o.crowd_layout != "lattice") {}
  const char* name() const override { return "crowd"; }
  Status reset(Context& ctx) override {
    solver_.reset();
    left_ = 0;
    if (layout_ == 0) {
      sc_ = {};
      crowd::CrowdConfig& c = sc_.config;
      c.world = crowd::lattice_world(static_cast<std::size_t>(agents_), radius_, 1.6f);
      c.radius = radius_;
      sc_.start = crowd::lattice_start(static_cast<std::size_t>(agents_), radius_, 1.6f, c, seed_);
      goal_ = {c.world.x0 + c.world.width / 2, c.world.y0 + c.world.height / 2};
    } else {
      WM_RETURN_IF_ERROR(
          crowd::standard_crowd_scenario(kLayouts[layout_], static_cast<std::size_t>(agents_), sc_, spacing_));
    }
    crowd::CrowdConfig c = sc_.config;
    c.rule = rule_;
    c.variant = variant_;
    c.movement = avoid_ ? crowd::CrowdMovement::Avoid : crowd::CrowdMovement::AcceptReject;
    c.max_step = step_;
    pos_ = sc_.start;
    WM_RETURN_IF_ERROR(crowd::CrowdSolver::create(ctx, c, solver_));
    verdicts_.assign(pos_.size(), crowd::Verdict::Stayed);
    tick_ = 0;
    return solver_->reset(pos_);
  }
  Status step(Context& ctx) override {
    const auto t0 = Clock::now();
    crowd::MoveSpec& moves = sc_.moves;
    if (layout_ == 0) {
      moves.kind = goal_mode_ ? crowd::MoveSpec::Kind::Goal : crowd::MoveSpec::Kind::Random;
      moves.seed = seed_;
      moves.goal = goal_;
    }
    moves.step = step_;
    crowd::make_proposals(moves, ctx.pool(), pos_, tick_++, proposals_);
    propose_ms_ = ms_since(t0);
    const auto t1 = Clock::now();
    WM_RETURN_IF_ERROR(solver_->step(proposals_));
    WM_RETURN_IF_ERROR(solver_->read_positions(pos_));
    WM_RETURN_IF_ERROR(solver_->read_verdicts(verdicts_));
    // Agents at their goal leave (the standard scenarios).
    if (const std::size_t gone = crowd::depart(sc_, pos_, keep_); gone > 0) {
      WM_RETURN_IF_ERROR(solver_->retain(keep_));
      crowd::compact(verdicts_, keep_);
      left_ += gone;
    }
    crowd_ms_ = ms_since(t1);
    return Status::Ok();
  }
  bool panel() override {
    bool dirty = ImGui::SliderInt("agents", &agents_, 100, 200000, "%d", ImGuiSliderFlags_Logarithmic);
    dirty |= ImGui::Combo("layout", &layout_, kLayouts, 4);
    dirty |= ImGui::Checkbox("avoid (slide and sidestep)", &avoid_);
    dirty |= ImGui::SliderFloat("max step", &step_, 0.05f, 1.0f);
    if (layout_ == 0) dirty |= ImGui::SliderFloat("radius", &radius_, 0.25f, 2.0f);
    // The standard layouts' lattice pitch in agent diameters (0: the layout's own).
    if (layout_ != 0 && ImGui::SliderFloat("spacing (x 2R, 0: the layout's)", &spacing_, 0.0f, 10.0f, "%.2f")) {
      spacing_ = spacing_ < 0.5f ? 0.0f : std::max(spacing_, 1.05f);
      dirty = true;
    }
    dirty |= combo("crowd variant", variant_, kCrowdVariants, crowd::variant_name);
    dirty |= combo("tie-break", rule_, kRules, crowd::rule_name);
    if (layout_ == 0) ImGui::Checkbox("walk to the goal (left click sets it)", &goal_mode_);
    if (solver_) {
      const crowd::StepStats& s = solver_->last_stats();
      ImGui::TextWrapped("%s, %s: moved %zu, collisions %zu, blocked %zu, left %zu",
                         crowd::variant_name(solver_->variant()), crowd::movement_name(solver_->config().movement),
                         s.moved, s.collisions, s.out_of_world + s.blocked + s.too_far, left_);
    }
    return dirty;
  }
  void click(Vec2 p, int button) override {
    if (button == 0) goal_ = p;
  }
  void frame(SceneFrame& f, bool grid) override {
    if (!solver_) return;
    const crowd::CrowdConfig& c = solver_->config();
    f.world = c.world;
    f.heat.clear();
    f.heat_w = f.heat_h = 0;
    f.units.resize(pos_.size());
    for (std::size_t i = 0; i < pos_.size(); ++i)
      f.units[i] = {pos_[i].x, pos_[i].y, c.radius, verdict_colour(verdicts_[i])};
    // Walls: each blocked obstacle cell outlined.
    const crowd::ObstacleGrid& ob = c.obstacles;
    const float cw = c.world.width / std::max(1, ob.width), ch = c.world.height / std::max(1, ob.height);
    for (int y = 0; y < ob.height; ++y)
      for (int x = 0; x < ob.width; ++x)
        if (ob.blocked[static_cast<std::size_t>(y) * ob.width + x])
          f.rect(c.world.x0 + x * cw, c.world.y0 + y * ch, c.world.x0 + (x + 1) * cw, c.world.y0 + (y + 1) * ch,
                 rgba(200, 200, 210));
    if (layout_ == 0) {
      const float r = 2.0f * c.radius;
      f.rect(goal_.x - r, goal_.y - r, goal_.x + r, goal_.y + r, rgba(255, 230, 90));
    }
    if (grid) grid_lines(f, std::max(2.0f * c.radius, f.world.width / 64.0f));
  }
  void stages(std::vector<Stage>& out) const override { out = {{"proposals", propose_ms_}, {"crowd", crowd_ms_}}; }
  std::string summary() const override {
    return std::string("crowd (") + kLayouts[layout_] + (avoid_ ? ", avoid" : ", accept-reject") +
           "): " + std::to_string(pos_.size()) + " agents in, " + std::to_string(left_) + " left, tick " +
           std::to_string(tick_) + ", overlaps " +
           std::to_string(solver_ ? crowd::count_overlaps(pos_, solver_->config().radius) : 0);
  }

 private:
  int agents_;
  std::uint64_t seed_;
  int layout_;
  bool avoid_;
  float radius_ = 0.5f, step_ = 0.25f, spacing_ = 0.0f;
  bool goal_mode_ = true;
  crowd::CrowdRule rule_ = crowd::CrowdRule::LowestIdWins;
  crowd::CrowdVariant variant_ = crowd::CrowdVariant::Auto;
  crowd::CrowdScenario sc_;
  std::unique_ptr<crowd::CrowdSolver> solver_;
  std::vector<Vec2> pos_, proposals_;
  std::vector<crowd::Verdict> verdicts_;
  std::vector<std::uint8_t> keep_;
  std::size_t left_ = 0;
  Vec2 goal_;
  std::uint64_t tick_ = 0;
  double propose_ms_ = 0, crowd_ms_ = 0;
};

}  // namespace

std::unique_ptr<Scene> make_crowd_scene(const AppOptions& o) { return std::make_unique<CrowdScene>(o); }

}  // namespace warpmind::demos
