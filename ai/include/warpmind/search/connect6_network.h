// warpmind::search::connect6::Network — the learned Connect6 evaluation: a value of the position and a
// score of each cell for move ordering, both from the patterns of the board's six-cell windows, read by
// the alpha-beta and the threat-space search (SearchOptions::network). The window-count evaluation
// (evaluate() in connect6.h) stays the GPU rules' and the hybrid search's.
//
// A window's pattern for perspective P: code = Σ_i 3^i · s_i over its cells i = 0..5 (in the order of
// Board::window_code: from the window's first cell along its direction), s = 0 empty, 1 P's stone, 2 the
// other side's (0..728). The board keeps every window's code from Black's view (Board::window_code);
// White's is swap(code), the digits 1 and 2 exchanged.
//
// Value: an accumulator per perspective, bias + Σ pattern_weights[code_P(w)] over the windows w holding
// a stone (`features` int16 units, wrapping around as two's complement; pattern_weights[0], the empty
// window's, is never read), and the layers of chess_network.h:
//   x = clamp(side to move's accumulator, 0, 127) then the other's          (2 · features inputs)
//   h2[j] = clamp((l2_bias[j] + Σ_i x[i] · l2_weights[j][i]) >> 6, 0, 127)   j < 16
//   h3[k] = clamp((l3_bias[k] + Σ_j h2[j] · l3_weights[k][j]) >> 6, 0, 127)  k < 32
//   o = out_bias + Σ_k h3[k] · out_weights[k];  value = clamp(o · 400 / (127 · 256), ±20,000)
// with every sum exact, >> rounding toward minus infinity and / truncating toward zero: a value in units
// where sigmoid(value / 400) is the side to move's expected score.
// Policy: the score of an empty cell c for the side to move, Σ over the windows w through c of
// cell_weights[code_mover(w)][index of c in w] (int32 sum of int16 weights); the search ranks candidate
// cells by it.
//
// The file (little-endian; train/connect6_train.py writes it, assets/connect6/network.wmn is built in):
//   "WMC6" · uint32 version = 1 · uint32 features (32..256, a multiple of 32)
//   int16 pattern_weights[729][features] · int16 pattern_bias[features]
//   int8 l2_weights[16][2 · features] · int32 l2_bias[16] · int8 l3_weights[32][16] · int32 l3_bias[32]
//   int16 out_weights[32] · int32 out_bias · int16 cell_weights[729][6]
// and nothing after. Another magic, version, shape or size is refused with a Status saying why; nothing
// is loaded then. Any weights of the right shape are accepted. Immutable after load: share it freely.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "warpmind/core/status.h"
#include "warpmind/search/connect6.h"
#include "warpmind/search/simd.h"

namespace warpmind::search::connect6 {

class Network {
 public:
  static constexpr int kCodes = 729, kWindowCells = 6;
  static constexpr int kMinFeatures = 32, kMaxFeatures = 256;
  static constexpr int kL2 = 16, kL3 = 32;
  static constexpr int kScale = 400, kMaxValue = 20000;

  struct Weights {
    int features = 0;
    std::vector<std::int16_t> pattern_weights;  // [729][features]
    std::vector<std::int16_t> pattern_bias;     // [features]
    std::vector<std::int8_t> l2_weights;        // [16][2 · features]
    std::vector<std::int32_t> l2_bias;          // [16]
    std::vector<std::int8_t> l3_weights;        // [32][16]
    std::vector<std::int32_t> l3_bias;          // [32]
    std::vector<std::int16_t> out_weights;      // [32]
    std::int32_t out_bias = 0;
    std::vector<std::int16_t> cell_weights;  // [729][6]
  };
  static std::vector<std::uint8_t> encode(const Weights& w);
  static Status parse(const std::uint8_t* data, std::size_t size, std::shared_ptr<const Network>& out);
  static Status load(const std::string& path, std::shared_ptr<const Network>& out);
  // The network built into the library.
  static std::shared_ptr<const Network> builtin();

  int features() const { return w_.features; }
  const Weights& weights() const { return w_; }

  // A code with the digits 1 and 2 exchanged (the other perspective).
  static int swap(int code);

  // Both perspectives' accumulators (`features` int16 each): [Black's, White's].
  struct Accumulator {
    std::array<std::int16_t, kMaxFeatures> units[2];
  };
  void refresh(const Board& b, Accumulator& acc) const;
  // After Board::place(cell, s): the accumulators of the board before it updated for the windows through
  // `cell` (`after` is the board with the stone).
  void place(const Board& after, int cell, Accumulator& acc) const;
  // The value from the side to move's view (units above) given the accumulators of `b`.
  int value(const Board& b, const Accumulator& acc) const;
  int value(const Board& b, const Accumulator& acc, Simd s) const;
  // From scratch.
  int evaluate(const Board& b) const;
  // The policy score of empty cell `cell` for `mover`.
  int cell_score(const Board& b, int cell, Stone mover) const;

 private:
  explicit Network(Weights w);
  Weights w_;
  Simd simd_;
};

}  // namespace warpmind::search::connect6
