// warpmind::demos::BoardScene<Table> — what the board scenes share (scene_chess.cpp, scene_connect6.cpp,
// over ChessTable and Connect6Table): the status line, who plays each side, new game / undo / redo /
// move now, the computer's panel with its evaluation graph, the clocks, the records, the board drawn by
// the table and the clicks forwarded to it. A game's scene answers the hooks.
#pragma once

#include <imgui.h>

#include <cstdio>
#include <string>
#include <vector>

#include "board_panels.h"
#include "board_picture.h"
#include "scene.h"

namespace warpmind::demos {

template <class Table>
class BoardScene : public Scene {
 public:
  Status reset(Context&) override { return Status::Ok(); }
  Status step(Context&) override {
    const auto t0 = Clock::now();
    table_.update();
    update_ms_ = ms_since(t0);
    return Status::Ok();
  }
  bool panel() override {
    ImGui::TextWrapped("%s", table_.status().c_str());
    const char* who[] = {"person", "computer"};
    for (int side : {0, 1}) {
      int p = table_.player(side) == Player::Computer ? 1 : 0;
      if (ImGui::Combo(side_name(side), &p, who, 2)) table_.set_player(side, p ? Player::Computer : Player::Person);
    }
    if (ImGui::Button("new game")) new_game();
    ImGui::SameLine();
    if (ImGui::Button("undo")) table_.undo();
    ImGui::SameLine();
    if (ImGui::Button("redo")) table_.redo();
    ImGui::SameLine();
    game_buttons();
    if (ImGui::Button("move now")) table_.move_now();
    game_controls();
    if (ImGui::TreeNodeEx("computer", ImGuiTreeNodeFlags_DefaultOpen)) {
      computer_panel();
      ImGui::TreePop();
    }
    if (ImGui::TreeNode("clock")) {
      const char* sides[2] = {side_name(0), side_name(1)};
      bool apply = false;
      clock_panel(table_.clock(), sides, base_s_, increment_s_, apply);
      if (apply) table_.set_time_control({base_s_ * 1000LL, increment_s_ * 1000LL});
      ImGui::TreePop();
    }
    if (ImGui::TreeNode(records_title())) {
      records_panel();
      ImGui::TreePop();
    }
    return false;
  }
  void click(Vec2 at, int button) override {
    if (button == 0) click_at(at);
  }
  void frame(SceneFrame& f, bool) override {
    draw(picture_);
    f.world = picture_.area;
    f.heat.clear();
    f.heat_w = f.heat_h = 0;
    f.units = picture_.discs;
    f.fills = picture_.fills;
    f.lines.insert(f.lines.end(), picture_.lines.begin(), picture_.lines.end());
  }
  void stages(std::vector<Stage>& out) const override { out = {{"update", update_ms_}}; }

 protected:
  // `record_file`: where the records panel saves and loads by default.
  BoardScene(int base_s, int increment_s, const std::string& record_file) : base_s_(base_s), increment_s_(increment_s) {
    std::snprintf(path_, sizeof path_, "%s", record_file.c_str());
  }

  virtual const char* side_name(int side) const = 0;  // "White" / "Black", "Black" / "White"
  virtual void new_game() = 0;
  virtual void game_buttons() {}   // beside undo and redo, on the same line
  virtual void game_controls() {}  // below the buttons (a promotion's choice)
  virtual void computer_panel() = 0;
  virtual const char* records_title() const = 0;
  virtual void records_panel() = 0;
  virtual void click_at(Vec2 at) = 0;
  virtual void draw(BoardPicture& out) = 0;

  Table table_;
  BoardPicture picture_;
  double update_ms_ = 0;
  int base_s_, increment_s_;  // the clock panel's time control
  char path_[512] = {};       // the records panel's file
  std::string note_;          // what the last save or load did
};

}  // namespace warpmind::demos
