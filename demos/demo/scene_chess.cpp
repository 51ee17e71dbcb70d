// The chess scene: chess against the computer on the board of chess_table.h.
#include "scene.h"

#include <imgui.h>

#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "board_panels.h"
#include "chess_table.h"

namespace warpmind::demos {

namespace {

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

}  // namespace

std::unique_ptr<Scene> make_chess_scene(const AppOptions& o) { return std::make_unique<ChessScene>(o); }

}  // namespace warpmind::demos
