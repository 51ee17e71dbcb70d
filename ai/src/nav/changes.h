// A batch of cell changes applied to a grid, shared by NavFields::update (nav_fields.cpp) and
// DeviceNavField::update (device_field.cpp): the contract of nav_fields.h's update.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "warpmind/nav/grid.h"
#include "warpmind/nav/nav_fields.h"

namespace warpmind::nav::detail {

// Applies `changes` to g in order (a later change of a cell wins) and sets `changed` to the cells whose
// cost now differs from before, ascending. A change outside the grid, or a batch that leaves goal(i)
// blocked for some i < goals, is InvalidArgument (`who` names the caller) and g is left unchanged.
template <class GoalAt>
Status apply_changes(Grid& g, std::span<const CellChange> changes, std::size_t goals, GoalAt&& goal, const char* who,
                     std::vector<std::size_t>& changed) {
  for (std::size_t i = 0; i < changes.size(); ++i)
    if (!g.inside(changes[i].cell.x, changes[i].cell.y))
      return Status::Invalid(std::string(who) + ": change " + std::to_string(i) + " is outside the grid");
  // Each cell's cost before kept to undo a refused batch.
  std::vector<std::pair<std::size_t, std::uint8_t>> before(changes.size());
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const std::size_t at = g.index(changes[i].cell.x, changes[i].cell.y);
    before[i] = {at, g.cost[at]};
    g.cost[at] = changes[i].cost;
  }
  for (std::size_t i = 0; i < goals; ++i) {
    const Cell c = goal(i);
    if (g.cost[g.index(c.x, c.y)] == kBlocked) {
      for (std::size_t j = before.size(); j-- > 0;) g.cost[before[j].first] = before[j].second;
      return Status::Invalid(std::string(who) + ": the changes block goal " + std::to_string(i));
    }
  }
  // A cell's first entry after a stable sort holds its cost before the batch.
  std::stable_sort(before.begin(), before.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  changed.clear();
  for (std::size_t i = 0; i < before.size(); ++i)
    if ((i == 0 || before[i].first != before[i - 1].first) && g.cost[before[i].first] != before[i].second)
      changed.push_back(before[i].first);
  return Status::Ok();
}

}  // namespace warpmind::nav::detail
