// The ImGui panels the board scenes (chess, Connect6) share: the computer's settings and what its search
// reports, the clocks, the evaluation graph, saving and loading records.
#pragma once

#include <imgui.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "output.h"
#include "board_ai.h"
#include "warpmind/core/status.h"

namespace warpmind::demos {

// The computer: which search, where the hybrid's batches run and its tunables, time, depth, threads,
// the pace of computer-against-computer games.
void ai_panel(AiSettings& ai, int& depth, int depth_max, const char* depth_label);

// What the search reports as it goes: depth, score, nodes and their rate; the hybrid's batches and
// the share of the nodes computed in batches (on the GPU when it runs there).
void thinking_lines(const Thinking& th, const char* score_unit);

// Both clocks (the running one marked) and the time control, applied by a button.
void clock_panel(const GameClock& clock, const char* (&sides)[2], int& base_s, int& increment_s, bool& apply);

// The evaluation over the game, one point per move, clamped to +-range.
void eval_graph(const std::vector<int>& evals, const char* label, float range);

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

}  // namespace warpmind::demos
