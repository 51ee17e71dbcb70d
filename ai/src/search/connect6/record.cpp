// Connect6 game records (read_record, write_record in connect6.h): tag pairs, the turns, the result.
#include <cctype>
#include <string>

#include "search/tags.h"
#include "warpmind/search/connect6.h"

namespace warpmind::search::connect6 {

namespace {
bool is_record_result(std::string_view w) { return w == "black" || w == "white" || w == "draw" || w == "*"; }
}  // namespace

Status read_record(std::string_view text, Record& out) {
  Record r;
  Board board;
  std::size_t i = 0;
  const auto fail = [&](std::size_t at, const std::string& why) {
    return Status::Invalid("line " + std::to_string(detail::line_of(text, at)) + ": " + why);
  };
  bool turns_started = false;
  while (i < text.size()) {
    const char c = text[i];
    const bool line_start = i == 0 || text[i - 1] == '\n';
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == ';' || (c == '%' && line_start)) {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '[') {
      const std::size_t at = i;
      if (turns_started) return fail(at, "tags come before the turns");
      const Status st = detail::read_tag(text, i, r.tags);
      if (!st.ok()) return fail(at, st.message());
    } else {
      const std::size_t at = i;
      while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])) && text[i] != ';' && text[i] != '[')
        ++i;
      std::string_view word = text.substr(at, i - at);
      turns_started = true;
      if (is_record_result(word)) {
        r.result = std::string(word);
        break;
      }
      std::size_t k = 0;
      while (k < word.size() && std::isdigit(static_cast<unsigned char>(word[k]))) ++k;
      if (k > 0 && k < word.size() && word[k] == '.') {
        while (k < word.size() && word[k] == '.') ++k;
        word.remove_prefix(k);
        if (word.empty()) continue;
      }
      Turn t;
      Status st = parse_turn(word, t);
      if (st.ok()) st = board.play(t);
      if (!st.ok()) return fail(at, "turn " + std::to_string(r.turns.size() + 1) + ": " + st.message());
      r.turns.push_back(t);
    }
  }
  out = std::move(r);
  return Status::Ok();
}

Status write_record(const Record& r, std::string& out) {
  if (!is_record_result(r.result)) return Status::Invalid("result '" + r.result + "': black, white, draw or *");
  Board board;
  std::string text;
  for (const auto& [name, value] : r.tags)
    if (name != "Result") text += detail::tag_line(name, value);
  text += detail::tag_line("Result", r.result) + "\n";
  for (std::size_t k = 0; k < r.turns.size(); ++k) {
    const Status st = board.play(r.turns[k]);
    if (!st.ok()) return Status::Invalid("turn " + std::to_string(k + 1) + ": " + st.message());
    text += std::to_string(k + 1) + ". " + turn_name(r.turns[k], Notation::Letters) + "\n";
  }
  out = text + r.result + "\n";
  return Status::Ok();
}

}  // namespace warpmind::search::connect6
