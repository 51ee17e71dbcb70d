// The grid and the Moving AI map format (contract in warpmind/nav/grid.h).
#include "warpmind/nav/grid.h"

#include <charconv>
#include <string>

namespace warpmind::nav {

namespace {

Status check_size(std::int64_t width, std::int64_t height) {
  if (width < 1 || height < 1 || width > kMaxCells || height > kMaxCells || width * height > kMaxCells)
    return Status::Invalid("nav grid: " + std::to_string(width) + " x " + std::to_string(height) +
                           " cells (each side at least 1, at most " + std::to_string(kMaxCells) + " cells)");
  return Status::Ok();
}

// The text's lines, "\r\n" or "\n" ended (a last line without an end counts too).
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

Status error(std::size_t line, const std::string& what) {
  return Status::Invalid("Moving AI map, line " + std::to_string(line + 1) + ": " + what);
}

}  // namespace

Status check_grid(const Grid& grid) {
  WM_RETURN_IF_ERROR(check_size(grid.width, grid.height));
  if (grid.cost.size() != grid.cells())
    return Status::Invalid("nav grid: " + std::to_string(grid.cost.size()) + " costs for " +
                           std::to_string(grid.cells()) + " cells");
  return Status::Ok();
}

Status make_grid(int width, int height, std::uint8_t cost, Grid& out) {
  WM_RETURN_IF_ERROR(check_size(width, height));
  out.width = width;
  out.height = height;
  out.cost.assign(out.cells(), cost);
  return Status::Ok();
}

Status read_moving_ai(std::string_view text, Grid& out) {
  const std::vector<std::string_view> lines = lines_of(text);
  if (lines.empty() || lines[0] != "type octile") return error(0, "expected 'type octile'");
  std::int64_t size[2] = {-1, -1};  // height, width
  std::size_t at = 1;
  for (; at < lines.size() && lines[at] != "map"; ++at) {
    const std::string_view line = lines[at];
    const std::size_t space = line.find(' ');
    const std::string_view key = line.substr(0, space);
    const int which = key == "height" ? 0 : key == "width" ? 1 : -1;
    if (which < 0 || space == std::string_view::npos) {
      std::string got(line.substr(0, 40));
      return error(at, "expected 'height N', 'width N' or 'map', got '" + got + "'");
    }
    const char* name = which == 0 ? "height" : "width";
    if (size[which] >= 0) return error(at, std::string(name) + " given twice");
    const std::string_view number = line.substr(space + 1);
    std::int64_t v = -1;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
    if (ec != std::errc() || end != number.data() + number.size() || number.empty() || v < 1 || v > kMaxCells)
      return error(at, std::string(name) + " must be a whole number 1.." + std::to_string(kMaxCells));
    size[which] = v;
  }
  if (at == lines.size()) return error(at, "no 'map' line");
  if (size[0] < 0 || size[1] < 0) return error(at, "'map' before both 'height' and 'width'");
  if (const Status st = check_size(size[1], size[0]); !st.ok()) return error(at, st.message());
  Grid g;
  g.width = static_cast<int>(size[1]);
  g.height = static_cast<int>(size[0]);
  g.cost.resize(g.cells());
  std::size_t row = 0;
  for (++at; at < lines.size(); ++at) {
    const std::string_view line = lines[at];
    if (row == static_cast<std::size_t>(g.height)) {
      if (!line.empty()) return error(at, "more rows than the height " + std::to_string(g.height));
      continue;
    }
    if (line.size() != static_cast<std::size_t>(g.width))
      return error(at, "a row of " + std::to_string(line.size()) + " cells, the width is " + std::to_string(g.width));
    for (std::size_t x = 0; x < line.size(); ++x) {
      const char c = line[x];
      std::uint8_t cost = 0;
      if (c == '.' || c == 'G' || c == 'S')
        cost = 1;
      else if (c != '@' && c != 'O' && c != 'T' && c != 'W')
        return error(at, "unknown cell character '" + std::string(1, c) + "' in column " + std::to_string(x + 1));
      g.cost[row * static_cast<std::size_t>(g.width) + x] = cost;
    }
    ++row;
  }
  if (row != static_cast<std::size_t>(g.height))
    return error(at, std::to_string(row) + " rows, the height is " + std::to_string(g.height));
  out = std::move(g);
  return Status::Ok();
}

Status write_moving_ai(const Grid& grid, std::string& out) {
  WM_RETURN_IF_ERROR(check_grid(grid));
  for (std::size_t i = 0; i < grid.cost.size(); ++i)
    if (grid.cost[i] > 1)
      return Status::Invalid("Moving AI map: cell (" + std::to_string(i % static_cast<std::size_t>(grid.width)) + ", " +
                             std::to_string(i / static_cast<std::size_t>(grid.width)) + ") costs " +
                             std::to_string(grid.cost[i]) + "; the format has passable (1) and blocked cells only");
  std::string s =
      "type octile\nheight " + std::to_string(grid.height) + "\nwidth " + std::to_string(grid.width) + "\nmap\n";
  s.reserve(s.size() + grid.cells() + static_cast<std::size_t>(grid.height));
  for (int y = 0; y < grid.height; ++y) {
    for (int x = 0; x < grid.width; ++x) s.push_back(grid.cost[grid.index(x, y)] ? '.' : '@');
    s.push_back('\n');
  }
  out = std::move(s);
  return Status::Ok();
}

}  // namespace warpmind::nav
