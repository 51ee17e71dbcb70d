// The Connect6 scene: Connect6 against the computer on the grid of connect6_table.h.
#include "scene.h"

#include <imgui.h>

#include <cstdio>
#include <memory>
#include <string>

#include "board_panels.h"
#include "connect6_table.h"

namespace warpmind::demos {

namespace {

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

}  // namespace

std::unique_ptr<Scene> make_connect6_scene(const AppOptions& o) { return std::make_unique<Connect6Scene>(o); }

}  // namespace warpmind::demos
