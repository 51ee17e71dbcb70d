// The grid and the Moving AI map format (contract in warpmind/nav/grid.h).
#include "warpmind/nav/grid.h"

#include <charconv>
#include <cmath>
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

namespace {

Status scenario_error(std::size_t line, const std::string& what) {
  return Status::Invalid("Moving AI scenarios, line " + std::to_string(line + 1) + ": " + what);
}

// A plain decimal integer in [lo, hi].
bool parse_int(std::string_view s, int lo, int hi, int& out) {
  if (s.empty() || s.size() > 9) return false;
  for (const char c : s)
    if (c < '0' || c > '9') return false;
  int v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  if (v < lo || v > hi) return false;
  out = v;
  return true;
}

// Digits, optionally '.' and digits: at most 20 characters; `decimals` the digits after the point.
bool parse_length(std::string_view s, double& out, int& decimals) {
  const std::size_t dot = s.find('.');
  const std::string_view whole = s.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? std::string_view{} : s.substr(dot + 1);
  if (whole.empty() || s.size() > 20 || (dot != std::string_view::npos && frac.empty())) return false;
  for (const std::string_view part : {whole, frac})
    for (const char c : part)
      if (c < '0' || c > '9') return false;
  double v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc{} || r.ptr != s.data() + s.size() || !std::isfinite(v)) return false;
  out = v;
  decimals = static_cast<int>(frac.size());
  return true;
}

}  // namespace

Status read_moving_ai_scenarios(std::string_view text, std::vector<Scenario>& out) {
  const std::vector<std::string_view> lines = lines_of(text);
  if (lines.empty() || (lines[0] != "version 1" && lines[0] != "version 1.0"))
    return scenario_error(0, "expected 'version 1'");
  std::vector<Scenario> result;
  bool blank_seen = false;
  for (std::size_t at = 1; at < lines.size(); ++at) {
    const std::string_view line = lines[at];
    if (line.empty()) {
      blank_seen = true;
      continue;
    }
    if (blank_seen) return scenario_error(at, "a problem after a blank line");
    std::string_view field[9];
    std::size_t n = 0, pos = 0;
    while (pos < line.size()) {
      while (pos < line.size() && (line[pos] == '\t' || line[pos] == ' ')) ++pos;
      if (pos == line.size()) break;
      std::size_t end = pos;
      while (end < line.size() && line[end] != '\t' && line[end] != ' ') ++end;
      if (n == 9) return scenario_error(at, "more than nine fields");
      field[n++] = line.substr(pos, end - pos);
      pos = end;
    }
    if (n != 9) return scenario_error(at, std::to_string(n) + " fields, expected nine");
    Scenario sc;
    sc.map = std::string(field[1]);
    if (!parse_int(field[0], 0, 1000000000, sc.bucket)) return scenario_error(at, "a bad bucket");
    if (!parse_int(field[2], 1, 4096, sc.width) || !parse_int(field[3], 1, 4096, sc.height))
      return scenario_error(at, "a map size out of 1..4096");
    if (!parse_int(field[4], 0, sc.width - 1, sc.start.x) || !parse_int(field[5], 0, sc.height - 1, sc.start.y))
      return scenario_error(at, "a start outside the map");
    if (!parse_int(field[6], 0, sc.width - 1, sc.goal.x) || !parse_int(field[7], 0, sc.height - 1, sc.goal.y))
      return scenario_error(at, "a goal outside the map");
    if (!parse_length(field[8], sc.optimal, sc.decimals)) return scenario_error(at, "a bad optimal length");
    result.push_back(std::move(sc));
  }
  out = std::move(result);
  return Status::Ok();
}

}  // namespace warpmind::nav
