// The chess game of the demo's chess scene (contract in chess_table.h).
#include "chess_table.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "warpmind/engine/stroke_text.h"
#include "warpmind/search/pgn.h"
#include "warpmind/search/time_budget.h"

namespace warpmind::demos {

namespace chess = search::chess;

namespace {

std::uint32_t rgba(int r, int g, int b, int a = 255) {
  return static_cast<std::uint32_t>(r) | (static_cast<std::uint32_t>(g) << 8) | (static_cast<std::uint32_t>(b) << 16) |
         (static_cast<std::uint32_t>(a) << 24);
}

std::string square_name(int sq) { return {static_cast<char>('a' + (sq & 7)), static_cast<char>('1' + (sq >> 3))}; }
const char* color_name(chess::Color c) { return c == chess::White ? "White" : "Black"; }

// The board position of square sq's lower-left corner.
Vec2 corner(int sq, bool flipped) {
  const int f = sq & 7, r = sq >> 3;
  return flipped ? Vec2{static_cast<float>(7 - f), static_cast<float>(7 - r)}
                 : Vec2{static_cast<float>(f), static_cast<float>(r)};
}

}  // namespace

ChessTable::ChessTable() : searcher_(std::make_unique<chess::Searcher>(32, 1)) {
  searcher_->set_network(chess::Network::builtin());  // the engine's evaluation, as warpmind-chess plays
  (void)start("", "");
}

ChessTable::~ChessTable() { stop_thinking(); }

Status ChessTable::start(std::string_view fen, std::string_view uci_moves) {
  chess::Position p;
  Status st = chess::parse_fen(fen.empty() ? std::string_view(chess::kStartFen) : fen, p);
  if (!st.ok()) {
    status_ = "FEN: " + st.message();
    return Status::Invalid(status_);
  }
  const chess::Position start_position = p;
  std::vector<chess::Move> moves;
  std::istringstream in{std::string(uci_moves)};
  for (std::string text; in >> text;) {
    chess::Move m;
    st = chess::parse_uci_move(p, text, m);
    if (!st.ok()) {
      status_ = "move " + std::to_string(moves.size() + 1) + " '" + text + "': " + st.message();
      return Status::Invalid(status_);
    }
    ChessPlay::apply(p, m);
    moves.push_back(m);
  }
  stop_thinking();
  searcher_->clear();
  reset_to(start_position, moves);
  return Status::Ok();
}

std::string ChessTable::pgn() const {
  chess::PgnGame g;
  const auto who = [&](int side) { return players_[side] == Player::Computer ? "warpmind" : "person"; };
  g.tags = {{"Event", "warpmind-demo game"}, {"White", who(chess::White)}, {"Black", who(chess::Black)}};
  const chess::Position& start = before_.empty() ? state_ : before_.front();
  g.fen = chess::to_fen(start);
  g.moves = moves_;
  g.result = outcome_;
  std::string text;
  (void)chess::write_pgn(g, text);  // the moves were played by the rules: cannot fail
  return text;
}

Status ChessTable::load_pgn(std::string_view text) {
  chess::PgnGame g;
  const Status st = chess::read_pgn(text, g);
  if (!st.ok()) {
    status_ = "PGN: " + st.message();
    return Status::Invalid(status_);
  }
  std::string uci;
  for (const chess::Move& m : g.moves) uci += chess::move_to_uci(m) + " ";
  return start(g.fen, uci);
}

std::string ChessTable::moves_text() const {
  std::string s;
  for (const chess::Move& m : moves_) {
    if (!s.empty()) s += ' ';
    s += chess::move_to_uci(m);
  }
  return s;
}

std::vector<int> ChessTable::targets() const {
  std::vector<int> out;
  if (selected_ < 0) return out;
  chess::MoveList legal;
  chess::generate_legal(state_, legal);
  for (const chess::Move& m : legal)
    if (m.from() == selected_ && std::find(out.begin(), out.end(), m.to()) == out.end()) out.push_back(m.to());
  return out;
}

void ChessTable::click(int square) {
  const chess::Color side = state_.side;
  if (over()) {
    status_ = "the game is over: " + end_;
    return;
  }
  if (players_[side] == Player::Computer) {
    status_ = std::string("the computer plays ") + color_name(side) + "; wait for its move";
    return;
  }
  if (pending_ >= 0) {
    status_ = "choose the piece to promote to (queen, rook, bishop or knight)";
    return;
  }
  if (square < 0 || square > 63) {
    selected_ = -1;
    status_ = "that click was off the board";
    return;
  }
  chess::MoveList legal;
  chess::generate_legal(state_, legal);
  if (selected_ >= 0) {
    for (const chess::Move& m : legal) {
      if (m.from() != selected_ || m.to() != square) continue;
      if (m.promo() != chess::NoPiece) {
        pending_ = square;
        status_ = "promote to: queen, rook, bishop or knight";
      } else {
        play(m);
      }
      return;
    }
  }
  const bool own = state_.type_at(square) != chess::NoPiece && state_.color_at(square) == side;
  if (own) {
    const bool mobile =
        std::any_of(legal.begin(), legal.end(), [&](const chess::Move& m) { return m.from() == square; });
    if (mobile) {
      selected_ = square;
      status_ = square_name(square) + " selected";
    } else {
      selected_ = -1;
      status_ = "the piece on " + square_name(square) + " has no legal move";
    }
    return;
  }
  status_ = selected_ >= 0 ? "the piece on " + square_name(selected_) + " cannot move to " + square_name(square)
                           : std::string("no piece of ") + color_name(side) + "'s on " + square_name(square);
}

void ChessTable::promote(chess::PieceType piece) {
  if (pending_ < 0) return;
  chess::MoveList legal;
  chess::generate_legal(state_, legal);
  for (const chess::Move& m : legal)
    if (m.from() == selected_ && m.to() == pending_ && m.promo() == piece) return play(m);
  status_ = "a pawn promotes to a queen, rook, bishop or knight";
}

std::string ChessTable::game_end(bool flagged) {
  std::string end;
  outcome_ = "*";
  chess::MoveList legal;
  chess::generate_legal(state_, legal);
  const chess::Color side = state_.side;
  const auto bare = [&](int c) {  // no pawn, rook or queen, at most one minor piece: cannot mate
    return !(state_.pieces[c][chess::Pawn] | state_.pieces[c][chess::Rook] | state_.pieces[c][chess::Queen]) &&
           __builtin_popcountll(state_.pieces[c][chess::Knight] | state_.pieces[c][chess::Bishop]) <= 1;
  };
  const chess::Color other = static_cast<chess::Color>(side ^ 1);
  const char* win = other == chess::White ? "1-0" : "0-1";
  if (legal.size == 0) {
    end =
        state_.in_check() ? std::string("checkmate, ") + color_name(other) + " wins" : std::string("stalemate, a draw");
    outcome_ = state_.in_check() ? win : "1/2-1/2";
  } else if (state_.halfmove >= 100) {
    end = "the fifty-move rule, a draw";
  } else {
    int same = 1;
    for (const chess::Position& p : before_) same += p.key == state_.key;
    if (same >= 3) {
      end = "threefold repetition, a draw";
    } else if (bare(chess::White) && bare(chess::Black) &&
               __builtin_popcountll(state_.pieces[0][chess::Knight] | state_.pieces[0][chess::Bishop] |
                                    state_.pieces[1][chess::Knight] | state_.pieces[1][chess::Bishop]) <= 1) {
      end = "insufficient material, a draw";
    }
  }
  if (end.empty() && flagged) {
    end = std::string(color_name(side)) + " ran out of time, " +
          (bare(other) ? std::string(color_name(other)) + " cannot mate, a draw"
                       : std::string(color_name(other)) + " wins");
    outcome_ = bare(other) ? "1/2-1/2" : win;
  }
  if (!end.empty() && outcome_ == "*") outcome_ = "1/2-1/2";
  return end;
}

std::string ChessTable::to_move() const {
  const chess::Color side = state_.side;
  return std::string(color_name(side)) + " to move" + (state_.in_check() ? ", in check" : "") +
         (players_[side] == Player::Computer ? " (the computer)" : "");
}

void ChessTable::prepare_search() {
  history_.clear();
  for (const chess::Position& p : before_) history_.push_back(p.key);
}

// The engine's alpha-beta, or the hybrid search (iterative deepening of whole runs, search/hybrid.h) on the
// GPU's batches when the backend gives one, else on the CPU threads'.
ChessTable::Outcome ChessTable::search(const chess::Position& root, const ChessAi& ai, std::int64_t time_ms) {
  Outcome out;
  if (ai.search == AiSearch::Hybrid) {
    out = hybrid(chess::ChessGame{}, root, ai, std::clamp(ai.depth, 1, 12), time_ms, [&](const auto& res) {
      report_.pv.assign(res.has_move ? 1 : 0, res.best);
      return std::abs(res.value) <= chess::kMateBound;
    });
    if (!out.has_move) {  // stopped before depth 1 completed: the first legal move
      chess::MoveList legal;
      chess::generate_legal(root, legal);
      out.has_move = legal.size > 0;
      if (out.has_move) out.best = legal.moves[0];
    }
    return out;
  }
  chess::SearchLimits limits;
  limits.depth = std::max(1, ai.depth);
  limits.time_ms = time_ms;
  searcher_->set_threads(std::max(1, ai.threads));
  const chess::SearchResult r = searcher_->search(root, history_, limits, [this](const chess::SearchReport& rep) {
    if (stop_.load()) searcher_->stop();  // a move_now() that came before the search began
    std::lock_guard<std::mutex> lock(report_mutex_);
    report_.depth = rep.depth;
    report_.score = rep.score;
    report_.nodes = rep.nodes;
    report_.time_ms = rep.time_ms;
    report_.pv = rep.pv;
  });
  return {r.has_move, r.best, r.score};
}

int ChessTable::square_at(Vec2 p, bool flipped) {
  if (!(p.x >= 0 && p.x < 8 && p.y >= 0 && p.y < 8)) return -1;
  const int x = static_cast<int>(p.x), y = static_cast<int>(p.y);
  return flipped ? (7 - y) * 8 + (7 - x) : y * 8 + x;
}

void ChessTable::draw(BoardPicture& out, bool flipped) const {
  out.clear();
  out.area = {-0.9f, -0.9f, 9.8f, 9.8f};
  const std::uint32_t light = rgba(236, 214, 176), dark = rgba(174, 127, 90);
  for (int sq = 0; sq < 64; ++sq) {
    const Vec2 c = corner(sq, flipped);
    out.quad(c.x, c.y, c.x + 1, c.y + 1, ((sq & 7) + (sq >> 3)) % 2 ? light : dark);
  }
  if (!moves_.empty())
    for (int sq : {moves_.back().from(), moves_.back().to()}) {
      const Vec2 c = corner(sq, flipped);
      out.quad(c.x, c.y, c.x + 1, c.y + 1, rgba(255, 230, 60, 110));
    }
  if (state_.in_check()) {
    const Vec2 c = corner(state_.king_square(state_.side), flipped);
    out.quad(c.x, c.y, c.x + 1, c.y + 1, rgba(230, 40, 30, 150));
  }
  if (selected_ >= 0) {
    const Vec2 c = corner(selected_, flipped);
    out.quad(c.x, c.y, c.x + 1, c.y + 1, rgba(60, 200, 90, 140));
    for (int t : targets()) {
      const Vec2 d = corner(t, flipped);
      out.quad(d.x + 0.38f, d.y + 0.38f, d.x + 0.62f, d.y + 0.62f, rgba(40, 160, 70, 200));
    }
  }
  // Pieces: a disc of the piece's colour with its letter.
  const char letters[] = "PNBRQK";
  for (int sq = 0; sq < 64; ++sq) {
    const chess::PieceType t = state_.type_at(sq);
    if (t == chess::NoPiece) continue;
    const bool white = state_.color_at(sq) == chess::White;
    const Vec2 c = corner(sq, flipped);
    out.discs.push_back({c.x + 0.5f, c.y + 0.5f, t == chess::Pawn ? 0.3f : 0.4f,
                         white ? rgba(248, 246, 238) : rgba(38, 36, 40), engine::UnitInstance::kNoFacing});
    const float h = t == chess::Pawn ? 0.3f : 0.4f;
    const char name[2] = {letters[t], 0};
    engine::stroke_text(name, c.x + 0.5f - h / 3, c.y + 0.5f - h / 2, h, white ? rgba(30, 30, 30) : rgba(240, 240, 240),
                        out.lines);
  }
  // The computer's principal variation as arrows: its first four moves, the computer's blue, the
  // replies orange, fading with depth.
  const ChessThinking th = thinking_info();
  if (th.active)
    for (std::size_t k = std::min<std::size_t>(th.pv.size(), 4); k-- > 0;) {
      const Vec2 a = corner(th.pv[k].from(), flipped), b = corner(th.pv[k].to(), flipped);
      const int alpha = 190 - 40 * static_cast<int>(k);
      out.arrow(a.x + 0.5f, a.y + 0.5f, b.x + 0.5f, b.y + 0.5f,
                k % 2 ? rgba(235, 130, 30, alpha) : rgba(40, 110, 230, alpha));
    }
  // Coordinates, and the side to move as a disc beside its edge of the board.
  const std::uint32_t label = rgba(200, 200, 200);
  for (int i = 0; i < 8; ++i) {
    const char file[2] = {static_cast<char>('a' + (flipped ? 7 - i : i)), 0},
               rank[2] = {static_cast<char>('1' + (flipped ? 7 - i : i)), 0};
    engine::stroke_text(file, static_cast<float>(i) + 0.4f, -0.6f, 0.32f, label, out.lines);
    engine::stroke_text(rank, -0.55f, static_cast<float>(i) + 0.35f, 0.32f, label, out.lines);
  }
  const bool white_to_move = state_.side == chess::White;
  const float y = (white_to_move != flipped) ? 0.5f : 7.5f;
  out.discs.push_back(
      {8.45f, y, 0.25f, white_to_move ? rgba(248, 246, 238) : rgba(38, 36, 40), engine::UnitInstance::kNoFacing});
}

}  // namespace warpmind::demos
