// The Connect6 side of the GPU backend, host-only: DeviceGame<Connect6Game>, the host's boards and turns on
// the device rules of connect6_rules.h (for GpuBatch<Connect6Game>).
#pragma once

#include <string>

#include "search/connect6/connect6_rules.h"
#include "search/game_device.h"
#include "warpmind/core/status.h"
#include "warpmind/search/connect6.h"

namespace warpmind::search {

template <>
struct DeviceGame<connect6::Connect6Game> {
  using Rules = connect6::rules::Device;
  static constexpr const char* kName = "connect6";
  static Status check(const connect6::Connect6Game& g) {
    if (g.width < 1 || g.width > Rules::kMaxMoves)
      return Status::Invalid("connect6 GPU batch: width must be 1.." + std::to_string(Rules::kMaxMoves) + ", got " +
                             std::to_string(g.width));
    return Status::Ok();
  }
  static Rules::Params params(const connect6::Connect6Game& g) { return {g.width}; }
  static Rules::Pos pack(const connect6::Board& b) { return connect6::rules::from_board(b); }
  static connect6::Turn unpack(const Rules::Move& t) { return {t.a, t.b}; }
  // search_many's one-thread rules (search/alphabeta.h).
  using Search = connect6::rules::SearchRules;
  static Search search_rules(const connect6::Connect6Game& g) { return {g.width}; }
};

}  // namespace warpmind::search
