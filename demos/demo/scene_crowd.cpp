// The crowd scene: agents walking through the crowd solver alone.
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

}  // namespace

std::unique_ptr<Scene> make_crowd_scene(const AppOptions& o) { return std::make_unique<CrowdScene>(o); }

}  // namespace warpmind::demos
