// SAN and PGN (contract in pgn.h).
#include "warpmind/search/pgn.h"

#include <algorithm>
#include <cctype>

#include "search/tags.h"

namespace warpmind::search::chess {

namespace {

// 'text' (built piece by piece: "'" + std::string(text) sets off a false -Wrestrict warning in GCC 12).
std::string quoted(std::string_view text) {
  std::string q;
  q.reserve(text.size() + 2);
  q += '\'';
  q.append(text);
  q += '\'';
  return q;
}

constexpr char kPieceLetters[] = "PNBRQK";

std::string square_name(int sq) { return {static_cast<char>('a' + (sq & 7)), static_cast<char>('1' + (sq >> 3))}; }

bool is_capture(const Position& p, Move m) { return p.type_at(m.to()) != NoPiece || (m.flags() & Move::EnPassant); }

int piece_of_letter(char c) {
  for (int k = 1; k < 6; ++k)
    if (kPieceLetters[k] == c) return k;
  return -1;
}

bool is_result(std::string_view t) { return t == "1-0" || t == "0-1" || t == "1/2-1/2" || t == "*"; }

}  // namespace

std::string move_to_san(const Position& p, Move m) {
  std::string s;
  const PieceType piece = p.type_at(m.from());
  if (m.flags() & Move::Castle) {
    s = (m.to() & 7) > (m.from() & 7) ? "O-O" : "O-O-O";
  } else {
    MoveList legal;
    generate_legal(p, legal);
    if (piece == Pawn) {
      if (is_capture(p, m)) s += static_cast<char>('a' + (m.from() & 7));
    } else {
      s += kPieceLetters[piece];
      bool other = false, same_file = false, same_rank = false;
      for (const Move& o : legal) {
        if (o.to() != m.to() || o.from() == m.from() || p.type_at(o.from()) != piece) continue;
        other = true;
        same_file = same_file || (o.from() & 7) == (m.from() & 7);
        same_rank = same_rank || (o.from() >> 3) == (m.from() >> 3);
      }
      if (other) {
        if (!same_file)
          s += static_cast<char>('a' + (m.from() & 7));
        else if (!same_rank)
          s += static_cast<char>('1' + (m.from() >> 3));
        else
          s += square_name(m.from());
      }
    }
    if (is_capture(p, m)) s += 'x';
    s += square_name(m.to());
    if (m.promo() != NoPiece) {
      s += '=';
      s += kPieceLetters[m.promo()];
    }
  }
  Position after = p;
  Undo u;
  make_move(after, m, u);
  if (after.in_check()) {
    MoveList replies;
    generate_legal(after, replies);
    s += replies.size == 0 ? '#' : '+';
  }
  return s;
}

Status parse_san(const Position& p, std::string_view text, Move& out) {
  std::string t(text);
  while (!t.empty() && (t.back() == '+' || t.back() == '#' || t.back() == '!' || t.back() == '?')) t.pop_back();
  if (t.empty() || t.size() > 16) return Status::Invalid(quoted(text) + " is not a move");
  MoveList legal;
  generate_legal(p, legal);
  if (t == "O-O" || t == "0-0" || t == "O-O-O" || t == "0-0-0") {
    const bool king_side = t.size() == 3;
    for (const Move& m : legal)
      if ((m.flags() & Move::Castle) && ((m.to() & 7) > (m.from() & 7)) == king_side) {
        out = m;
        return Status::Ok();
      }
    return Status::Invalid(std::string(king_side ? "O-O" : "O-O-O") + " is not legal here");
  }
  // Promotion suffix: "=Q" or "Q" after the rank.
  int promo = NoPiece;
  if (t.size() >= 2 && piece_of_letter(t.back()) > 0 && piece_of_letter(t.back()) < King &&
      (t[t.size() - 2] == '=' || std::isdigit(static_cast<unsigned char>(t[t.size() - 2])))) {
    promo = piece_of_letter(t.back());
    t.pop_back();
    if (t.back() == '=') t.pop_back();
  }
  const auto uci_fallback = [&](const std::string& why) -> Status {
    Move m;
    if (parse_uci_move(p, text, m).ok()) {
      out = m;
      return Status::Ok();
    }
    return Status::Invalid(quoted(text) + ": " + why);
  };
  if (t.size() < 2) return uci_fallback("not a move");
  const char tf = t[t.size() - 2], tr = t[t.size() - 1];
  if (tf < 'a' || tf > 'h' || tr < '1' || tr > '8') return uci_fallback("not a move (the target square is missing)");
  const int to = (tf - 'a') + 8 * (tr - '1');
  std::string_view head(t.data(), t.size() - 2);
  int piece = Pawn;
  if (!head.empty() && piece_of_letter(head.front()) > 0) {
    piece = piece_of_letter(head.front());
    head.remove_prefix(1);
  }
  if (!head.empty() && head.back() == 'x') head.remove_suffix(1);
  int file = -1, rank = -1;
  for (char c : head) {
    if (c >= 'a' && c <= 'h' && file < 0 && rank < 0)
      file = c - 'a';
    else if (c >= '1' && c <= '8' && rank < 0)
      rank = c - '1';
    else
      return uci_fallback("not a move");
  }
  int found = 0;
  Move match;
  bool needs_promo = false;
  for (const Move& m : legal) {
    if (m.to() != to || p.type_at(m.from()) != piece || (m.flags() & Move::Castle)) continue;
    if (file >= 0 && (m.from() & 7) != file) continue;
    if (rank >= 0 && (m.from() >> 3) != rank) continue;
    if (m.promo() != promo) {
      needs_promo = needs_promo || (promo == NoPiece && m.promo() != NoPiece);
      continue;
    }
    ++found;
    match = m;
  }
  if (found == 1) {
    out = match;
    return Status::Ok();
  }
  if (found > 1) return Status::Invalid("'" + std::string(text) + "' is ambiguous: more than one piece can make it");
  if (needs_promo)
    return Status::Invalid("'" + std::string(text) + "': the promotion piece is missing (=Q, =R, =B or =N)");
  return uci_fallback("not a legal move here");
}

Status read_pgn(std::string_view text, PgnGame& out) {
  PgnGame g;
  g.result = "*";
  std::size_t i = 0;
  const auto fail = [&](std::size_t at, const std::string& why) {
    return Status::Invalid("line " + std::to_string(detail::line_of(text, at)) + ": " + why);
  };
  // Tags.
  Position pos;
  (void)parse_fen(kStartFen, pos);
  bool movetext = false;
  while (i < text.size()) {
    const char c = text[i];
    const bool line_start = i == 0 || text[i - 1] == '\n';
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '%' && line_start) {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '[') {
      if (movetext) break;  // the next game
      const std::size_t at = i;
      const Status st = detail::read_tag(text, i, g.tags);
      if (!st.ok()) return fail(at, st.message());
      if (g.tags.back().first == "FEN") {
        g.fen = g.tags.back().second;
        const Status f = parse_fen(g.fen, pos);
        if (!f.ok()) return fail(at, "FEN tag: " + f.message());
      }
    } else if (c == '{') {
      const std::size_t at = i;
      const std::size_t end = text.find('}', i);
      if (end == std::string_view::npos) return fail(at, "a comment '{' is never closed");
      i = end + 1;
      movetext = true;
    } else if (c == ';') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '(') {
      const std::size_t at = i;
      int depth = 0;
      for (; i < text.size(); ++i) {
        if (text[i] == '{') {
          const std::size_t end = text.find('}', i);
          if (end == std::string_view::npos) return fail(i, "a comment '{' is never closed");
          i = end;
        } else if (text[i] == ';') {
          while (i < text.size() && text[i] != '\n') ++i;
        } else if (text[i] == '(') {
          ++depth;
        } else if (text[i] == ')' && --depth == 0) {
          break;
        }
      }
      if (depth != 0) return fail(at, "a variation '(' is never closed");
      ++i;
      movetext = true;
    } else if (c == ')') {
      return fail(i, "')' without its '('");
    } else {
      const std::size_t at = i;
      while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])) &&
             std::string_view("{}();[").find(text[i]) == std::string_view::npos)
        ++i;
      std::string_view tok = text.substr(at, i - at);
      movetext = true;
      if (is_result(tok)) {
        g.result = std::string(tok);
        break;
      }
      if (tok.front() == '$') {
        if (tok.size() < 2 || !std::all_of(tok.begin() + 1, tok.end(),
                                           [](char d) { return std::isdigit(static_cast<unsigned char>(d)); }))
          return fail(at, quoted(tok) + " is not a NAG ($ and digits)");
        continue;
      }
      // A move number, alone ("12.", "12...") or glued to the move ("12.e4").
      std::size_t k = 0;
      while (k < tok.size() && std::isdigit(static_cast<unsigned char>(tok[k]))) ++k;
      if (k > 0 && k < tok.size() && tok[k] == '.') {
        while (k < tok.size() && tok[k] == '.') ++k;
        tok.remove_prefix(k);
        if (tok.empty()) continue;
      } else if (k == tok.size()) {
        return fail(at, quoted(tok) + " is not a move");
      }
      Move m;
      const Status st = parse_san(pos, tok, m);
      if (!st.ok()) return fail(at, "move " + std::to_string(g.moves.size() + 1) + ": " + st.message());
      Undo u;
      make_move(pos, m, u);
      g.moves.push_back(m);
    }
  }
  if (g.result == "*")
    for (const auto& [n, v] : g.tags)
      if (n == "Result" && is_result(v)) g.result = v;
  out = std::move(g);
  return Status::Ok();
}

Status write_pgn(const PgnGame& g, std::string& out) {
  if (!is_result(g.result)) return Status::Invalid("result '" + g.result + "': 1-0, 0-1, 1/2-1/2 or *");
  Position pos;
  const Status f = parse_fen(g.fen.empty() ? std::string_view(kStartFen) : std::string_view(g.fen), pos);
  if (!f.ok()) return Status::Invalid("FEN: " + f.message());
  std::string text;
  const auto tag = [&](const char* name) -> std::string {
    for (const auto& [n, v] : g.tags)
      if (n == name) return v;
    return std::string(name) == "Date" ? "????.??.??" : "?";
  };
  const char* roster[] = {"Event", "Site", "Date", "Round", "White", "Black"};
  for (const char* name : roster) text += detail::tag_line(name, tag(name));
  text += detail::tag_line("Result", g.result);
  for (const auto& tag : g.tags) {
    const std::string& n = tag.first;
    const bool known = std::any_of(std::begin(roster), std::end(roster), [&](const char* r) { return n == r; });
    if (!known && n != "Result" && n != "FEN" && n != "SetUp") text += detail::tag_line(n, tag.second);
  }
  if (!g.fen.empty() && std::string_view(g.fen) != kStartFen) {
    text += detail::tag_line("SetUp", "1");
    text += detail::tag_line("FEN", g.fen);
  }
  text += '\n';
  std::string line;
  const auto word = [&](const std::string& w) {
    if (!line.empty() && line.size() + 1 + w.size() > 80) {
      text += line + '\n';
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += w;
  };
  for (std::size_t k = 0; k < g.moves.size(); ++k) {
    MoveList legal;
    generate_legal(pos, legal);
    if (std::find(legal.begin(), legal.end(), g.moves[k]) == legal.end())
      return Status::Invalid("move " + std::to_string(k + 1) + " (" + move_to_uci(g.moves[k]) + ") is not legal there");
    if (pos.side == White)
      word(std::to_string(pos.fullmove) + ".");
    else if (k == 0)
      word(std::to_string(pos.fullmove) + "...");
    word(move_to_san(pos, g.moves[k]));
    Undo u;
    make_move(pos, g.moves[k], u);
  }
  word(g.result);
  out = text + line + '\n';
  return Status::Ok();
}

}  // namespace warpmind::search::chess
