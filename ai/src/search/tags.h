// Tag pairs as PGN writes them — [Name "value"], the value's quotes and backslashes escaped — shared by
// the chess PGN reader and the Connect6 record (both documented in their public headers).
#pragma once

#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "warpmind/core/status.h"

namespace warpmind::search::detail {

using Tags = std::vector<std::pair<std::string, std::string>>;

inline std::string tag_line(const std::string& name, const std::string& value) {
  std::string s = "[" + name + " \"";
  for (char c : value) {
    if (c == '"' || c == '\\') s += '\\';
    s += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return s + "\"]\n";
}

// Reads one tag starting at text[i] == '['; i ends after the ']'. Names are letters, digits and '_'
// (up to 255 characters); values up to 65535 characters.
inline Status read_tag(std::string_view text, std::size_t& i, Tags& out) {
  std::size_t j = i + 1;
  while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
  const std::size_t name_at = j;
  while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
  if (j == name_at || j - name_at > 255) return Status::Invalid("a tag needs a name of letters, digits and '_'");
  std::string name(text.substr(name_at, j - name_at));
  while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
  if (j >= text.size() || text[j] != '"')
    return Status::Invalid("tag " + name + ": the value must be in double quotes");
  std::string value;
  for (++j;; ++j) {
    if (j >= text.size() || text[j] == '\n')
      return Status::Invalid("tag " + name + ": the value's closing quote is missing");
    if (text[j] == '"') break;
    if (text[j] == '\\' && j + 1 < text.size() && (text[j + 1] == '"' || text[j + 1] == '\\')) ++j;
    value += text[j];
    if (value.size() > 65535) return Status::Invalid("tag " + name + ": the value is longer than 65535 characters");
  }
  ++j;
  while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
  if (j >= text.size() || text[j] != ']') return Status::Invalid("tag " + name + ": ']' expected after the value");
  out.emplace_back(std::move(name), std::move(value));
  i = j + 1;
  return Status::Ok();
}

inline std::size_t line_of(std::string_view text, std::size_t at) {
  std::size_t line = 1;
  for (std::size_t k = 0; k < at && k < text.size(); ++k) line += text[k] == '\n';
  return line;
}

}  // namespace warpmind::search::detail
