// The chess scene: chess against the computer on the board of chess_table.h (the frame every board scene
// shares: board_scene.h).
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "board_scene.h"
#include "chess_table.h"

namespace warpmind::demos {

namespace {

namespace chess = search::chess;

// Chess against the computer (or two people, or the computer against itself): the board drawn by the
// engine, moves by clicks, the computer's search on its own thread; the board can be flipped and a
// promotion waits for its piece.
class ChessScene : public BoardScene<ChessTable> {
 public:
  explicit ChessScene(const AppOptions& o) : BoardScene(300, 2, o.out + "/game.pgn") {
    if (!table_.start(o.fen, o.moves).ok()) (void)table_.start("", "");  // the start position cannot fail
    std::snprintf(fen_, sizeof fen_, "%s", o.fen.c_str());
    std::snprintf(moves_, sizeof moves_, "%s", o.moves.c_str());
  }
  const char* name() const override { return "chess"; }
  std::string summary() const override { return table_.fen() + "; " + table_.status(); }

 private:
  const char* side_name(int side) const override { return side == chess::White ? "White" : "Black"; }
  void new_game() override { (void)table_.start("", ""); }
  void game_buttons() override {
    if (ImGui::Button("flip")) flipped_ = !flipped_;
    ImGui::SameLine();
  }
  void game_controls() override {
    if (!table_.promotion_pending()) return;
    ImGui::Text("promote to:");
    const std::pair<const char*, chess::PieceType> pieces[] = {
        {"queen", chess::Queen}, {"rook", chess::Rook}, {"bishop", chess::Bishop}, {"knight", chess::Knight}};
    for (const auto& [label, piece] : pieces) {
      ImGui::SameLine();
      if (ImGui::Button(label)) table_.promote(piece);
    }
  }
  void computer_panel() override {
    const ChessThinking th = table_.thinking_info();
    ai_panel(table_.ai(), table_.ai().depth, 64, "depth (plies)");
    thinking_lines(th, "cp");
    if (!th.pv.empty()) {
      std::string pv;
      for (const chess::Move& m : th.pv) pv += chess::move_to_uci(m) + " ";
      ImGui::TextWrapped("pv %s", pv.c_str());
    }
    eval_graph(table_.evaluations(), "eval (White, cp)", 800.0f);
  }
  const char* records_title() const override { return "position and records"; }
  void records_panel() override {
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
  }
  void click_at(Vec2 at) override { table_.click(ChessTable::square_at(at, flipped_)); }
  void draw(BoardPicture& out) override { table_.draw(out, flipped_); }

  bool flipped_ = false;
  char fen_[128] = {}, moves_[2048] = {};
};

}  // namespace

std::unique_ptr<Scene> make_chess_scene(const AppOptions& o) { return std::make_unique<ChessScene>(o); }

}  // namespace warpmind::demos
