// warpmind::search::chess::Network — a learned chess evaluation: a small neural network over the pieces,
// as the CPU searcher's evaluation (Searcher::set_network). The classical evaluation (evaluate() in
// chess_search.h) stays the reference of the GPU rules and of the hybrid search.
//
// Shape: 768 inputs per perspective — one per (piece colour relative to the perspective, piece type,
// square), squares mirrored vertically for Black's perspective — into `hidden` accumulator units with
// shared weights; the side to move's accumulator and the other side's, each clipped to [0, 1] and
// squared (SCReLU), feed one linear output. Integer arithmetic throughout, so a position's value is the
// same on every machine:
//   accumulator a = feature_bias + Σ feature_weights[f] over the position's features   (int16, 1.0 = 255)
//   v = Σ_i clamp(us_i, 0, 255)² · w_i + Σ_i clamp(them_i, 0, 255)² · w_{hidden+i}        (int64)
//   value = (v / 255 + output_bias) · 400 / (255 · 512)   (C++ integer division: truncation toward zero)
// with the output weights in units of 1/512 (int16) and the output bias in units of 1/(255 · 512): the
// network's output in centipawns from the side to move's point of view, clamped to ±20,000 (below mate
// scores). A residual network (flag bit 0) corrects the classical evaluation: the position's value is
// then clamp(output + chess::evaluate(p), ±20,000), otherwise the output — chess::evaluate(p, network) in
// chess_search.h gives it; this class computes the output alone.
//
// The file (little-endian, `warpmind-tune --network` writes it; assets/chess/network.wmn is built in):
//   "WMNN" · uint32 version = 1 · uint32 hidden (16..1024, a multiple of 16) · uint32 flags (bit 0: residual)
//   int16 feature_weights[768][hidden] · int16 feature_bias[hidden] · int16 output_weights[2 · hidden]
//   int32 output_bias
// and nothing after. A file of another size, version, magic or flags is refused with a Status saying why
// (load() refuses one larger than a 1024-unit network before reading it); nothing is loaded then. Any
// weights of the right shape are accepted: accumulator sums wrap around as int16 (two's complement), which
// a trained network does not reach. Feature index for perspective P of a piece of colour C and type T on
// square S (a1 = 0): (C == P ? 0 : 384) + T · 64 + (P == White ? S : S ^ 56).
//
// Incremental use: an accumulator pair may be kept beside a position and updated as pieces move (change()
// then apply(); the searcher does so along its path); refresh() builds one from scratch; output() reads it.
// Objects are immutable after load and may be shared by any number of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "warpmind/core/status.h"
#include "warpmind/search/chess.h"

namespace warpmind::search::chess {

class Network {
 public:
  static constexpr int kInputs = 768;
  static constexpr int kMaxHidden = 1024;
  static constexpr int kQa = 255, kQb = 512, kScale = 400;
  static constexpr int kMaxValue = 20000;

  // The network's parts in the file's units (see above); encode() gives the file's bytes.
  struct Weights {
    int hidden = 0;
    std::vector<std::int16_t> feature_weights;  // [kInputs][hidden]
    std::vector<std::int16_t> feature_bias;     // [hidden]
    std::vector<std::int16_t> output_weights;   // [2 * hidden]: the side to move's units, then the other's
    std::int32_t output_bias = 0;
    bool residual = false;  // the output corrects the classical evaluation
  };
  static std::vector<std::uint8_t> encode(const Weights& w);

  // From a file's bytes or a path; on error `out` is unchanged.
  static Status parse(const std::uint8_t* data, std::size_t size, std::shared_ptr<const Network>& out);
  static Status load(const std::string& path, std::shared_ptr<const Network>& out);
  // The network built into the library (null only if the build had none, which CMake does not allow).
  static std::shared_ptr<const Network> builtin();

  int hidden() const { return w_.hidden; }
  const Weights& weights() const { return w_; }

  static int feature(Color perspective, Color piece_color, int type, int square) {
    return (piece_color == perspective ? 0 : 384) + type * 64 + (perspective == White ? square : square ^ 56);
  }
  // The same piece's feature from the other perspective.
  static int mirror(int feature) { return (feature < 384 ? 384 : 0) + feature % 384 / 64 * 64 + (feature % 64 ^ 56); }
  // acc[White] and acc[Black]: `hidden` int16 each.
  void refresh(const Position& p, std::int16_t* white, std::int16_t* black) const;
  void add(std::int16_t* acc, int feature) const;
  void sub(std::int16_t* acc, int feature) const;
  // What move `m` of position `before` (Move{}: a null move) does to the features, from White's
  // perspective: up to two added and two removed (-1: none); castling moves the rook too, en passant
  // removes the pawn behind, a promotion adds the new piece.
  struct Change {
    int add[2] = {-1, -1}, sub[2] = {-1, -1};
  };
  static Change change(const Position& before, Move m);
  // The accumulator pair after a change from the pair before (the `to` pair may not alias `from`).
  void apply(const Change& c, const std::int16_t* from_white, const std::int16_t* from_black, std::int16_t* to_white,
             std::int16_t* to_black) const;
  // The network's output from the side to move's view, given its accumulator (`us`) and the other side's.
  int output(const std::int16_t* us, const std::int16_t* them) const;
  // The output from scratch: refresh() then output().
  int evaluate(const Position& p) const;
  bool residual() const { return w_.residual; }

 private:
  explicit Network(Weights w);
  Weights w_;
  // The output weights split as w = 256 * high + low, both in [-128, 128], for output()'s 16-bit products.
  std::vector<std::int16_t> high_, low_;
};

}  // namespace warpmind::search::chess
