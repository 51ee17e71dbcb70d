// warpmind::search::chess::Network — the learned chess evaluation (NNUE): a neural network over the
// pieces, read incrementally by the CPU searcher (Searcher::set_network) and the engine's default. The
// classical evaluation (evaluate() in chess_search.h) stays the GPU rules' and the hybrid search's.
//
// Inputs, per perspective P (White's, Black's): one feature per piece on the board, kings included — its
// colour relative to P, its type and its square (768 in all) — in the block of P's own king's bucket:
//   orient(s)  = s for White, s ^ 56 for Black (P's pieces always move "up"), then, when P's king stands on
//                files e–h after that, every square mirrored a↔h (s ^ 7): P's king is always on files a–d;
//   king32     = the oriented king's rank · 4 + file (0..31);
//   feature    = (piece colour == P ? 0 : 384) + type · 64 + orient(square)            (0..767)
//   row        = king_bucket[king32] · 768 + feature     (king_bucket: the file's table, values < buckets)
// Each perspective has an accumulator of `hidden` int16 units: feature_bias + Σ feature_weights[row] over
// its features (int16 arithmetic, wrapping around as two's complement — a trained network never does).
// The output, all in integers (so a value is the same on every machine and every SIMD path):
//   x[i]      = clamp(us[i], 0, 127), x[hidden + i] = clamp(them[i], 0, 127)   (us: the side to move's)
//   s         = (number of pieces on the board − 1) / 4                         (the layer stack, 0..7)
//   h2[j]     = clamp((l2_bias[s][j] + Σ_i x[i] · l2_weights[s][j][i]) >> 6, 0, 127)      j < 16
//   h3[k]     = clamp((l3_bias[s][k] + Σ_j h2[j] · l3_weights[s][k][j]) >> 6, 0, 127)     k < 32
//   o         = out_bias[s] + Σ_k h3[k] · out_weights[s][k]
//   output    = clamp(o · 400 / (127 · 256), ±20,000)   (centipawns for the side to move)
// with every sum exact (64-bit), >> an arithmetic shift (rounding toward minus infinity) and / C++'s
// integer division (truncation toward zero). In the trainer's floating-point terms: feature weights × 127, l2 and l3
// weights × 64 (int8), their biases × 127 · 64, output weights × 256 (int16), its bias × 127 · 256.
// A residual network (flag bit 0) corrects the classical evaluation: the position's value is then
// clamp(output + chess::evaluate(p), ±20,000), otherwise the output — chess::evaluate(p, network) in
// chess_search.h gives it; this class computes the output alone.
//
// The file (little-endian; train/chess/export.py writes it, assets/chess/network.wmn is built in):
//   "WMNN" · uint32 version = 2 · uint32 hidden (32..1024, a multiple of 32) · uint32 buckets (1..32)
//   uint32 flags (bit 0: residual; no other bit may be set) · uint8 king_bucket[32]
//   int16 feature_weights[buckets · 768][hidden] · int16 feature_bias[hidden]
//   8 stacks of: int8 l2_weights[16][2 · hidden] · int32 l2_bias[16] · int8 l3_weights[32][16]
//                · int32 l3_bias[32] · int16 out_weights[32] · int32 out_bias
// and nothing after. A file of another magic, version, shape or size, with an unknown flag or a king
// bucket out of range, is refused with a Status saying why (load() refuses one larger than the largest shape before reading
// it); nothing is loaded then. Any weights of the right shape are accepted.
//
// Incremental use: an accumulator per perspective may be kept beside a position and updated as pieces
// move — change() says what a move does; where it says refresh for a perspective (its king changed
// bucket or half of the board) that accumulator is rebuilt with refresh(), else apply() updates it; the
// searcher keeps them along its path. output() reads a pair. Objects are immutable after load and may be
// shared by any number of threads.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "warpmind/core/status.h"
#include "warpmind/search/chess.h"
#include "warpmind/search/simd.h"

namespace warpmind::search::chess {

class Network {
 public:
  static constexpr int kFeatures = 768;    // per king bucket
  static constexpr int kKingSquares = 32;  // a perspective's king, files a–d
  static constexpr int kMaxBuckets = 32;
  static constexpr int kMinHidden = 32, kMaxHidden = 1024;
  static constexpr int kL2 = 16, kL3 = 32, kStacks = 8;
  static constexpr int kActivation = 127;   // the units' clamp
  static constexpr int kOutputScale = 256;  // output weights in 1/256
  static constexpr int kScale = 400;        // the output's unit in centipawns
  static constexpr int kMaxValue = 20000;

  // The network's parts in the file's units (see above); encode() gives the file's bytes.
  struct Weights {
    int hidden = 0, buckets = 1;
    bool residual = false;  // the output corrects the classical evaluation
    std::array<std::uint8_t, kKingSquares> king_bucket{};
    std::vector<std::int16_t> feature_weights;  // [buckets · 768][hidden]
    std::vector<std::int16_t> feature_bias;     // [hidden]
    std::vector<std::int8_t> l2_weights;        // [8][16][2 · hidden]: the side to move's units, then the other's
    std::vector<std::int32_t> l2_bias;          // [8][16]
    std::vector<std::int8_t> l3_weights;        // [8][32][16]
    std::vector<std::int32_t> l3_bias;          // [8][32]
    std::vector<std::int16_t> out_weights;      // [8][32]
    std::vector<std::int32_t> out_bias;         // [8]
  };
  static std::vector<std::uint8_t> encode(const Weights& w);

  // From a file's bytes or a path; on error `out` is unchanged.
  static Status parse(const std::uint8_t* data, std::size_t size, std::shared_ptr<const Network>& out);
  static Status load(const std::string& path, std::shared_ptr<const Network>& out);
  // The network built into the library (null only if the build had none, which CMake does not allow).
  static std::shared_ptr<const Network> builtin();

  int hidden() const { return w_.hidden; }
  bool residual() const { return w_.residual; }
  const Weights& weights() const { return w_; }

  // The oriented square of `square` for `perspective` whose king stands on `king` (see above).
  static int orient(Color perspective, int king, int square) {
    const int s = perspective == White ? square : square ^ 56;
    const int k = perspective == White ? king : king ^ 56;
    return (k & 7) >= 4 ? s ^ 7 : s;
  }
  static int king32(Color perspective, int king) {
    const int k = orient(perspective, king, king);
    return (k >> 3) * 4 + (k & 7);
  }
  static int feature(Color perspective, int king, Color piece_color, int type, int square) {
    return (piece_color == perspective ? 0 : 384) + type * 64 + orient(perspective, king, square);
  }
  // The feature's row in feature_weights.
  int row(Color perspective, int king, Color piece_color, int type, int square) const {
    return w_.king_bucket[static_cast<std::size_t>(king32(perspective, king))] * kFeatures +
           feature(perspective, king, piece_color, type, square);
  }

  // What a move of `before` (Move{}: a null move) does to the pieces: up to three pieces that move, appear
  // (from -1) or disappear (to -1) — castling moves the rook too, en passant removes the pawn behind, a
  // promotion turns the pawn into the new piece — and each colour's king square after it. refresh[P]:
  // P's accumulator must be rebuilt (its king moved to another bucket or to the other half of the board).
  struct Change {
    struct Piece {
      std::int8_t color = 0, type = 0, from = -1, to = -1;
    };
    Piece piece[3];
    int count = 0;
    std::int8_t king[2] = {-1, -1};
    bool refresh[2] = {false, false};
  };
  Change change(const Position& before, Move m) const;
  // P's accumulator of `p` from scratch (`hidden` int16).
  void refresh(const Position& p, Color perspective, std::int16_t* acc) const;
  // P's accumulator after change `c` from the one before (may alias); c.refresh[P] must be false.
  void apply(const Change& c, Color perspective, const std::int16_t* from, std::int16_t* to) const;
  // The output from the side to move's view, given its accumulator (`us`), the other side's and the number
  // of pieces on the board (2..32).
  int output(const std::int16_t* us, const std::int16_t* them, int pieces) const;
  // The output for `p` from scratch.
  int evaluate(const Position& p) const;

  // The instruction sets of apply() and output() (search/simd.h): every one gives the same integers (a
  // test holds them equal); the others use the best the processor has.
  using Simd = search::Simd;
  static bool supported(Simd s) { return search::supported(s); }
  void apply(const Change& c, Color perspective, const std::int16_t* from, std::int16_t* to, Simd s) const;
  int output(const std::int16_t* us, const std::int16_t* them, int pieces, Simd s) const;

 private:
  explicit Network(Weights w);
  Weights w_;
  Simd simd_;
};

}  // namespace warpmind::search::chess
