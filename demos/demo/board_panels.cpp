// The board scenes' shared panels (board_panels.h).
#include "board_panels.h"

#include <imgui.h>

#include <algorithm>
#include <vector>

namespace warpmind::demos {

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

void eval_graph(const std::vector<int>& evals, const char* label, float range) {
  std::vector<float> v(evals.begin(), evals.end());
  for (float& x : v) x = std::clamp(x, -range, range);
  if (v.empty()) v.push_back(0);
  ImGui::PlotLines(label, v.data(), static_cast<int>(v.size()), 0, nullptr, -range, range, ImVec2(0, 60));
}

}  // namespace warpmind::demos
