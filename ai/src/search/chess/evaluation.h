// The evaluation's parts the search uses beside evaluate() (evaluation.cpp).
#pragma once

#include "warpmind/search/chess.h"
#include "warpmind/search/chess_network.h"

namespace warpmind::search::chess::detail {

// A network's value of `p` given its output there: the output, plus the classical evaluation for a
// residual network, within ±Network::kMaxValue.
int network_value(const Network& n, const Position& p, int output);

}  // namespace warpmind::search::chess::detail
