// warpmind-tune — fits the chess evaluation's weights (ai/src/search/chess/chess_eval.h) to labelled
// positions, in the manner of Texel tuning. (The learned evaluation is trained by train/chess_train.py.)
//
//   warpmind-tune --data FILE [--data FILE ...] [--iterations N] [--lambda L] [--pst] [--header FILE]
//
// Each data line is `FEN;score;bestmove;result` (scripts/chess-label.py writes them): a reference engine's
// score in centipawns from the side to move's point of view, its best move, and the game's result from
// White's point of view (1, 0.5, 0). Positions whose best move captures or promotes are not quiet and are
// left out, as are positions in check, scores beyond ±1500 and malformed lines (counted).
//
// The evaluation is linear in its weights once a position's counts are known: material, piece-square
// values and its other terms, each a middle-game and an end-game weight, blended by the phase and the
// end-game divisor (warpmind/search/chess_eval_terms.h, which records the counts through the very code
// the engine runs). The tuner checks that the built-in weights give back chess::evaluate exactly.
// The target of a position is lambda × sigmoid(c × score) + (1 - lambda) × result, with c fitted first so
// the current evaluation matches the reference's scale (the tuned weights stay in the engine's units).
// Adam minimises the mean squared error of sigmoid(evaluation) against the targets on nine tenths of
// the positions, with a weak pull towards the starting weights; the last tenth (other games) reports the
// error the fit did not see. The tuned weights are written as C++ tables for chess_eval.h.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "flags.h"
#include "labelled.h"
#include "warpmind/search/chess.h"
#include "warpmind/search/chess_eval_terms.h"
#include "warpmind/search/chess_search.h"

namespace {

using namespace warpmind;
namespace sc = search::chess;
namespace et = search::chess::eval_terms;

// Parameters: material (6), piece-square values (6 × 64) and the terms; each a (mg, eg) pair.
constexpr int kPst = et::kPieceSquare;
constexpr int kTerms = et::kTerms;
const int kParams = et::count();

struct Sample {
  int first = 0, count = 0;  // into the feature arrays
  int phase = 0;             // 0..24
  int divisor = 1;           // the end-game divisor
  int white_to_move = 1;
  double sf = 0;      // reference score, White's view
  double result = 0;  // White's view
  double target = 0;
};

struct Data {
  std::vector<Sample> samples;
  std::vector<int> index;    // parameter
  std::vector<float> count;  // White's count minus Black's
  int mismatches = 0;        // positions where the counts × default weights differ from chess::evaluate
};

std::array<double, 2> default_weight(int param) {
  int mg = 0, eg = 0;
  et::weight(param, mg, eg);
  return {static_cast<double>(mg), static_cast<double>(eg)};
}

double sigmoid(double cp) { return 1.0 / (1.0 + std::pow(10.0, -cp / 400.0)); }

// The evaluation from White's point of view under weights w (real-valued, no rounding).
double eval_white(const Data& d, const Sample& s, const std::vector<std::array<double, 2>>& w) {
  double m = 0, e = 0;
  for (int k = s.first; k < s.first + s.count; ++k) {
    const auto& wk = w[static_cast<std::size_t>(d.index[static_cast<std::size_t>(k)])];
    m += d.count[static_cast<std::size_t>(k)] * wk[0];
    e += d.count[static_cast<std::size_t>(k)] * wk[1];
  }
  const double tempo = s.white_to_move ? et::tempo() : -et::tempo();
  return (m * s.phase + e / s.divisor * (24 - s.phase)) / 24 + tempo;
}

bool load(const std::string& path, Data& d, int& dropped, std::string& err) {
  std::ifstream in(path);
  if (!in) {
    err = "cannot read " + path;
    return false;
  }
  std::string line;
  et::Linear lin;
  while (std::getline(in, line)) {
    sc::Position p;
    double score = 0, result = 0;
    if (!demos::parse_labelled(line, 1500, p, score, result)) {
      ++dropped;
      continue;
    }
    et::linearize(p, lin);
    Sample s;
    s.first = static_cast<int>(d.index.size());
    long m = 0, e = 0;  // White's minus Black's sums under the built-in weights
    for (const auto& [k, diff] : lin.counts) {
      d.index.push_back(k);
      d.count.push_back(static_cast<float>(diff));
      const auto w = default_weight(k);
      m += diff * static_cast<long>(w[0]);
      e += diff * static_cast<long>(w[1]);
    }
    s.count = static_cast<int>(d.index.size()) - s.first;
    s.phase = lin.phase;
    s.divisor = lin.divisor;
    s.white_to_move = p.side == sc::White;
    // The engine's integer evaluation from the same sums must be chess::evaluate's (the check).
    if (!s.white_to_move) m = -m, e = -e;
    e /= s.divisor;
    if ((m * s.phase + e * (24 - s.phase)) / 24 + et::tempo() != sc::evaluate(p)) ++d.mismatches;
    s.sf = s.white_to_move ? score : -score;
    s.result = result;
    d.samples.push_back(s);
  }
  return true;
}

double loss(const Data& d, const std::vector<std::array<double, 2>>& w, std::size_t from, std::size_t to) {
  double sum = 0;
  for (std::size_t i = from; i < to; ++i) {
    const double r = sigmoid(eval_white(d, d.samples[i], w)) - d.samples[i].target;
    sum += r * r;
  }
  return to > from ? sum / static_cast<double>(to - from) : 0;
}

// The tuned weights as chess_eval.h's blocks, in its layout: the value_mg and value_eg lists, the kMg,
// kEg and kW tables.
struct Tables {
  std::string value[2], pst[2], terms;
};

Tables format_tables(const std::vector<std::array<double, 2>>& w) {
  const auto r = [&](int param, int which) {
    return static_cast<int>(std::lround(w[static_cast<std::size_t>(param)][static_cast<std::size_t>(which)]));
  };
  const auto append = [](std::string& out, const char* fmt, auto... args) {
    char b[256];
    std::snprintf(b, sizeof b, fmt, args...);
    out += b;
  };
  Tables t;
  static const char* kNames[6] = {"pawn", "knight", "bishop", "rook", "queen", "king"};
  for (int which = 0; which < 2; ++which) {
    for (int type = 0; type < 6; ++type)
      append(t.value[which], "%s%d", type ? ", " : "", type == 5 ? 0 : r(type, which));
    std::string& p = t.pst[which];
    append(p, "  static constexpr short k%s[6][64] = {\n", which ? "Eg" : "Mg");
    for (int type = 0; type < 6; ++type) {
      append(p, "    {  // %s\n", kNames[type]);
      for (int row = 7; row >= 0; --row) {  // diagram order: rank 8 first
        p += "    ";
        for (int file = 0; file < 8; ++file) {
          const bool pawn_edge = type == 0 && (row == 0 || row == 7);
          append(p, "%6d,", pawn_edge ? 0 : r(kPst + type * 64 + row * 8 + file, which));
        }
        p += "\n";
      }
      p += "    },\n";
    }
    p += "  };\n";
  }
  // The terms, grouped and commented as term_weight lays them out.
  t.terms = "  static constexpr short kW[kTermCount][2] = {\n";
  for (const et::Group& g : et::groups()) {
    append(t.terms, "    // %s\n   ", g.what);
    for (int k = g.first; k < g.first + g.count; ++k) {
      if ((k - g.first) % 10 == 0 && k > g.first) t.terms += "\n   ";
      append(t.terms, " {%d, %d},", r(kTerms + k, 0), r(kTerms + k, 1));
    }
    t.terms += "\n";
  }
  t.terms += "  };\n";
  return t;
}

// Replaces the text from `begin` (kept) up to and including `end` after it with `with`; false when not
// found.
bool replace_after(std::string& text, const std::string& begin, const std::string& end, const std::string& with,
                   bool keep_begin) {
  const std::size_t a = text.find(begin);
  if (a == std::string::npos) return false;
  const std::size_t from = keep_begin ? a + begin.size() : a;
  const std::size_t b = text.find(end, a + begin.size());
  if (b == std::string::npos) return false;
  text.replace(from, b + end.size() - from, with);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app(
      "Fits the chess evaluation's weights to labelled positions (FEN;score;bestmove;result lines, as "
      "scripts/chess-label.py writes them) and writes them as C++ tables for chess_eval.h. Checks first that "
      "the recorded counts give back the engine's evaluation exactly.",
      "warpmind-tune");
  demos::configure(app);
  std::vector<std::string> paths;
  std::string header_path;
  int iterations = 3000;
  double lambda = 0.85, rate = 0.5, pull = 1e-7;
  app.add_option("--data", paths, "labelled positions (repeatable)")->required()->type_name("FILE");
  demos::add_integer(app, "--iterations", iterations, 0, 1000000, "N", "Adam steps over all positions");
  demos::add_number(app, "--lambda", lambda, 0, 1, "L", "weight of the reference score against the result");
  demos::add_number(app, "--rate", rate, 1e-4, 100, "CP", "Adam's step size in centipawns");
  demos::add_number(app, "--pull", pull, 0, 1, "X", "weight of the pull towards the starting weights");
  bool json = false, tune_pst = false;
  demos::add_flag(app, "--pst", tune_pst, "fit the piece-square values too (768 weights: wants millions of positions)");
  demos::add_flag(app, "--json", json, "a JSON summary as the last line on stdout");
  demos::add_text(app, "--header", header_path, "FILE",
                  "chess_eval.h, whose weight tables are replaced (default: the tables go to stdout)");
  if (const int rc = demos::parse(app, argc, argv); rc >= 0) return rc;
  Data d;
  int dropped = 0;
  for (const std::string& path : paths) {
    std::string err;
    if (!load(path, d, dropped, err)) {
      std::fprintf(stderr, "warpmind-tune: %s\n", err.c_str());
      return 2;
    }
  }
  if (d.samples.size() < 10) {
    std::fprintf(stderr, "warpmind-tune: %zu usable positions; need at least 10\n", d.samples.size());
    return 2;
  }
  std::fprintf(stderr, "positions: %zu kept, %d dropped\n", d.samples.size(), dropped);

  // The recorded counts against the engine.
  std::fprintf(stderr, "check: %zu positions, %d evaluations differ from the engine's\n", d.samples.size(),
               d.mismatches);
  if (d.mismatches) return 1;

  std::vector<std::array<double, 2>> w(kParams), start(kParams);
  for (int k = 0; k < kParams; ++k)
    w[static_cast<std::size_t>(k)] = start[static_cast<std::size_t>(k)] = default_weight(k);

  // The reference's scale: c minimising the squared distance of sigmoid(current) and sigmoid(c × score).
  std::vector<double> current(d.samples.size());
  for (std::size_t i = 0; i < d.samples.size(); ++i) current[i] = sigmoid(eval_white(d, d.samples[i], w));
  double best_c = 1, best_err = 1e300;
  for (double c = 0.2; c <= 3.0; c += 0.01) {
    double err = 0;
    for (std::size_t i = 0; i < d.samples.size(); ++i) {
      const double r = current[i] - sigmoid(c * d.samples[i].sf);
      err += r * r;
    }
    if (err < best_err) best_err = err, best_c = c;
  }
  for (Sample& s : d.samples) s.target = lambda * sigmoid(best_c * s.sf) + (1 - lambda) * s.result;
  std::fprintf(stderr, "scale: reference score × %.2f\n", best_c);

  // The first nine tenths fit, the last tenth is held out (other games, as the data runs game by game).
  std::vector<Sample> fit, held;
  for (std::size_t i = 0; i < d.samples.size(); ++i)
    (i >= d.samples.size() / 10 * 9 ? held : fit).push_back(d.samples[i]);
  const std::size_t n_fit = fit.size();
  d.samples = fit;
  d.samples.insert(d.samples.end(), held.begin(), held.end());
  const auto report = [&](const char* when) {
    std::fprintf(stderr, "%s: error %.6f on the fit, %.6f held out\n", when, loss(d, w, 0, n_fit),
                 loss(d, w, n_fit, d.samples.size()));
  };
  report("start");
  const double fit_start = loss(d, w, 0, n_fit), held_start = loss(d, w, n_fit, d.samples.size());

  std::vector<std::array<double, 2>> m1(kParams), m2(kParams), grad(kParams);
  constexpr double kLn10 = 2.302585092994046;
  for (int it = 1; it <= iterations; ++it) {
    for (auto& g : grad) g = {0, 0};
    for (std::size_t i = 0; i < n_fit; ++i) {
      const Sample& s = d.samples[i];
      const double sg = sigmoid(eval_white(d, s, w));
      // d(error)/d(eval) = 2 (sg - target) sg (1 - sg) ln10 / 400
      const double g = 2 * (sg - s.target) * sg * (1 - sg) * kLn10 / 400 / 24;
      const double gm = g * s.phase, ge = g * (24 - s.phase) / s.divisor;
      for (int k = s.first; k < s.first + s.count; ++k) {
        auto& gk = grad[static_cast<std::size_t>(d.index[static_cast<std::size_t>(k)])];
        gk[0] += gm * d.count[static_cast<std::size_t>(k)];
        gk[1] += ge * d.count[static_cast<std::size_t>(k)];
      }
    }
    for (int k = 0; k < kParams; ++k) {
      if (k == 0 || k == 5) continue;  // the pawn's value is the unit; the king has none
      if (!tune_pst && k >= kPst && k < kTerms) continue;
      for (int j = 0; j < 2; ++j) {
        const std::size_t kk = static_cast<std::size_t>(k);
        const double gj = grad[kk][static_cast<std::size_t>(j)] / static_cast<double>(n_fit) +
                          2 * pull * (w[kk][static_cast<std::size_t>(j)] - start[kk][static_cast<std::size_t>(j)]);
        auto& a = m1[kk][static_cast<std::size_t>(j)];
        auto& b = m2[kk][static_cast<std::size_t>(j)];
        a = 0.9 * a + 0.1 * gj;
        b = 0.999 * b + 0.001 * gj * gj;
        const double ah = a / (1 - std::pow(0.9, it)), bh = b / (1 - std::pow(0.999, it));
        w[kk][static_cast<std::size_t>(j)] -= rate * ah / (std::sqrt(bh) + 1e-12);
      }
    }
    if (it % 250 == 0 || it == iterations) {
      char when[32];
      std::snprintf(when, sizeof when, "step %d", it);
      report(when);
    }
  }
  // The rounded weights, as the engine will use them.
  for (auto& wk : w) wk = {std::round(wk[0]), std::round(wk[1])};
  report("rounded");
  const double fit_end = loss(d, w, 0, n_fit), held_end = loss(d, w, n_fit, d.samples.size());

  const Tables t = format_tables(w);
  if (!header_path.empty()) {
    std::ifstream in(header_path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const bool ok = in &&
                    replace_after(text, "WM_HD int value_mg(int t) {\n  static constexpr int v[6] = {", "};",
                                  t.value[0] + "};", true) &&
                    replace_after(text, "WM_HD int value_eg(int t) {\n  static constexpr int v[6] = {", "};",
                                  t.value[1] + "};", true) &&
                    replace_after(text, "  static constexpr short kMg[6][64] = {", "\n  };\n", t.pst[0], false) &&
                    replace_after(text, "  static constexpr short kEg[6][64] = {", "\n  };\n", t.pst[1], false) &&
                    replace_after(text, "  static constexpr short kW[kTermCount][2] = {", "\n  };\n", t.terms, false);
    if (!ok) {
      std::fprintf(stderr, "warpmind-tune: %s is not chess_eval.h as expected\n", header_path.c_str());
      return 2;
    }
    std::ofstream out(header_path);
    if (!(out << text)) {
      std::fprintf(stderr, "warpmind-tune: cannot write %s\n", header_path.c_str());
      return 2;
    }
    std::fprintf(stderr, "wrote the weights into %s\n", header_path.c_str());
  } else {
    std::printf("value_mg {%s}\nvalue_eg {%s}\n%s%s%s", t.value[0].c_str(), t.value[1].c_str(), t.pst[0].c_str(),
                t.pst[1].c_str(), t.terms.c_str());
  }
  if (json)
    std::printf(
        "{\"positions\": %zu, \"dropped\": %d, \"mismatches\": %d, \"scale\": %.2f, \"iterations\": %d, "
        "\"error_fit\": [%.6f, %.6f], \"error_held_out\": [%.6f, %.6f]}\n",
        d.samples.size(), dropped, d.mismatches, best_c, iterations, fit_start, fit_end, held_start, held_end);
  return 0;
}
