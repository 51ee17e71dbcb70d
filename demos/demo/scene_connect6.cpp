// The Connect6 scene: Connect6 against the computer on the grid of connect6_table.h (the frame every board
// scene shares: board_scene.h).
#include <cstdio>
#include <memory>
#include <string>

#include "board_scene.h"
#include "connect6_table.h"

namespace warpmind::demos {

namespace {

namespace c6 = search::connect6;

// Connect6 against the computer: the 19 x 19 grid drawn by the engine, two clicks a turn, the computer's
// search on its own thread with the game's own settings (width, threat depth).
class Connect6Scene : public BoardScene<Connect6Table> {
 public:
  explicit Connect6Scene(const AppOptions& o) : BoardScene(300, 5, o.out + "/game.c6") {
    if (!table_.start(o.moves).ok()) (void)table_.start("");
    std::snprintf(moves_, sizeof moves_, "%s", o.moves.c_str());
  }
  const char* name() const override { return "connect6"; }
  std::string summary() const override { return table_.turns_text() + "; " + table_.status(); }

 private:
  const char* side_name(int side) const override { return side == 0 ? "Black" : "White"; }
  void new_game() override { (void)table_.start(""); }
  void computer_panel() override {
    const Connect6Thinking th = table_.thinking_info();
    Connect6Ai& ai = table_.ai();
    ai_panel(ai, ai.depth, 8, "depth (turns)");
    ImGui::SliderInt("width (pairs)", &ai.width, 1, 128);
    if (ai.search == AiSearch::AlphaBeta) ImGui::SliderInt("threat depth (turns)", &ai.vcf_depth, 0, 6);
    thinking_lines(th, "");
    if (th.best.a >= 0)
      ImGui::TextWrapped("%s %s%s", th.active ? "best so far (ghost stones):" : "played:",
                         c6::turn_name(th.best, c6::Notation::Letters).c_str(), th.forced ? " (forced)" : "");
    eval_graph(table_.evaluations(), "eval (Black)", 3000.0f);
  }
  const char* records_title() const override { return "turns and records"; }
  void records_panel() override {
    ImGui::InputText("turns", moves_, sizeof moves_);
    if (ImGui::Button("start from turns")) (void)table_.start(moves_);  // the status line says why when it fails
    ImGui::SameLine();
    if (ImGui::Button("copy turns")) ImGui::SetClipboardText(table_.turns_text().c_str());
    record_buttons(
        path_, note_, [&] { return table_.record(); },
        [&](const std::string& text) { return table_.load_record(text); });
    ImGui::TextWrapped("turns: %s", table_.turns_text().c_str());
  }
  void click_at(Vec2 at) override { table_.click(Connect6Table::cell_at(at)); }
  void draw(BoardPicture& out) override { table_.draw(out); }

  char moves_[4096] = {};
};

}  // namespace

std::unique_ptr<Scene> make_connect6_scene(const AppOptions& o) { return std::make_unique<Connect6Scene>(o); }

}  // namespace warpmind::demos
