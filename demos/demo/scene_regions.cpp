// The regions scene: moving publication and subscription rectangles through the DDM region matcher.
#include "scene.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "warpmind/ddm/ddm.h"
#include "warpmind/ddm/scenario.h"

namespace warpmind::demos {

namespace {

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

}  // namespace

std::unique_ptr<Scene> make_regions_scene(const AppOptions& o) { return std::make_unique<RegionsScene>(o); }

}  // namespace warpmind::demos
