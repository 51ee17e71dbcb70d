// The learned chess evaluation (chess_network.h): the file, the accumulators and the layers (their
// integer loops shared with Connect6's, search/nnue_layers.h).
#include "warpmind/search/chess_network.h"

#include <algorithm>
#include <cstring>

#include "search/network_file.h"
#include "search/nnue_layers.h"

namespace warpmind::search::chess {

// The built-in network's bytes (generated from assets/chess/network.wmn at build time).
extern const unsigned char kBuiltinNetwork[];
extern const std::size_t kBuiltinNetworkSize;

namespace {

using nnue::get;
using nnue::put;
constexpr char kMagic[4] = {'W', 'M', 'N', 'N'};
constexpr std::uint32_t kVersion = 2;
constexpr std::size_t kHeader = 20 + Network::kKingSquares;
using N = Network;
using nnue::Rows;
static_assert(N::kL2 == nnue::kL2 && N::kL3 == nnue::kL3 && N::kActivation == nnue::kActivation);

// Bytes of one layer stack (l2, l3 and the output) for `hidden` units.
std::size_t stack_bytes(std::size_t h) {
  return N::kL2 * 2 * h + 4 * N::kL2 + N::kL3 * N::kL2 + 4 * N::kL3 + 2 * N::kL3 + 4;
}
std::size_t file_size(int hidden, int buckets) {
  const std::size_t h = static_cast<std::size_t>(hidden), b = static_cast<std::size_t>(buckets);
  return kHeader + 2 * (b * N::kFeatures * h + h) + N::kStacks * stack_bytes(h);
}

}  // namespace

std::vector<std::uint8_t> Network::encode(const Weights& w) {
  std::vector<std::uint8_t> out;
  out.reserve(file_size(w.hidden, w.buckets));
  for (const char c : kMagic) out.push_back(static_cast<std::uint8_t>(c));
  put(out, kVersion);
  put(out, static_cast<std::uint32_t>(w.hidden));
  put(out, static_cast<std::uint32_t>(w.buckets));
  put(out, static_cast<std::uint32_t>(w.residual ? 1 : 0));
  out.insert(out.end(), w.king_bucket.begin(), w.king_bucket.end());
  for (std::int16_t v : w.feature_weights) put(out, v);
  for (std::int16_t v : w.feature_bias) put(out, v);
  const std::size_t h2 = 2 * static_cast<std::size_t>(w.hidden);
  for (std::size_t s = 0; s < kStacks; ++s) {
    for (std::size_t i = 0; i < kL2 * h2; ++i) put(out, w.l2_weights[s * kL2 * h2 + i]);
    for (std::size_t i = 0; i < kL2; ++i) put(out, w.l2_bias[s * kL2 + i]);
    for (std::size_t i = 0; i < kL3 * kL2; ++i) put(out, w.l3_weights[s * kL3 * kL2 + i]);
    for (std::size_t i = 0; i < kL3; ++i) put(out, w.l3_bias[s * kL3 + i]);
    for (std::size_t i = 0; i < kL3; ++i) put(out, w.out_weights[s * kL3 + i]);
    put(out, w.out_bias[s]);
  }
  return out;
}

Status Network::parse(const std::uint8_t* data, std::size_t size, std::shared_ptr<const Network>& out) {
  if (size < kHeader || std::memcmp(data, kMagic, 4) != 0)
    return Status::Invalid("not a warpmind network (no WMNN header)");
  const std::uint8_t* p = data + 4;
  const auto version = get<std::uint32_t>(p);
  if (version != kVersion)
    return Status::Invalid("network version " + std::to_string(version) + " (this build reads version 2)");
  const auto hidden = get<std::uint32_t>(p);
  if (hidden < kMinHidden || hidden > kMaxHidden || hidden % 32)
    return Status::Invalid("network hidden size " + std::to_string(hidden) + " (32..1024, a multiple of 32)");
  const auto buckets = get<std::uint32_t>(p);
  if (buckets < 1 || buckets > kMaxBuckets)
    return Status::Invalid("network king buckets " + std::to_string(buckets) + " (1..32)");
  const auto flags = get<std::uint32_t>(p);
  if (flags > 1) return Status::Invalid("network flags " + std::to_string(flags) + " (this build knows bit 0 alone)");
  Weights w;
  w.hidden = static_cast<int>(hidden);
  w.buckets = static_cast<int>(buckets);
  w.residual = flags & 1;
  for (int k = 0; k < kKingSquares; ++k) {
    w.king_bucket[static_cast<std::size_t>(k)] = *p++;
    if (w.king_bucket[static_cast<std::size_t>(k)] >= buckets)
      return Status::Invalid("network king square " + std::to_string(k) + " has bucket " +
                             std::to_string(w.king_bucket[static_cast<std::size_t>(k)]) + " of " +
                             std::to_string(buckets));
  }
  if (size != file_size(w.hidden, w.buckets))
    return Status::Invalid("network of hidden size " + std::to_string(hidden) + " and " + std::to_string(buckets) +
                           " king buckets has " + std::to_string(size) + " bytes; expected " +
                           std::to_string(file_size(w.hidden, w.buckets)));
  const std::size_t h = hidden, h2 = 2 * h;
  w.feature_weights.resize(static_cast<std::size_t>(buckets) * kFeatures * h);
  w.feature_bias.resize(h);
  w.l2_weights.resize(kStacks * kL2 * h2);
  w.l2_bias.resize(kStacks * kL2);
  w.l3_weights.resize(kStacks * kL3 * kL2);
  w.l3_bias.resize(kStacks * kL3);
  w.out_weights.resize(kStacks * kL3);
  w.out_bias.resize(kStacks);
  for (auto& v : w.feature_weights) v = get<std::int16_t>(p);
  for (auto& v : w.feature_bias) v = get<std::int16_t>(p);
  for (std::size_t s = 0; s < kStacks; ++s) {
    for (std::size_t i = 0; i < kL2 * h2; ++i) w.l2_weights[s * kL2 * h2 + i] = get<std::int8_t>(p);
    for (std::size_t i = 0; i < kL2; ++i) w.l2_bias[s * kL2 + i] = get<std::int32_t>(p);
    for (std::size_t i = 0; i < kL3 * kL2; ++i) w.l3_weights[s * kL3 * kL2 + i] = get<std::int8_t>(p);
    for (std::size_t i = 0; i < kL3; ++i) w.l3_bias[s * kL3 + i] = get<std::int32_t>(p);
    for (std::size_t i = 0; i < kL3; ++i) w.out_weights[s * kL3 + i] = get<std::int16_t>(p);
    w.out_bias[s] = get<std::int32_t>(p);
  }
  out = std::shared_ptr<const Network>(new Network(std::move(w)));
  return Status::Ok();
}

Status Network::load(const std::string& path, std::shared_ptr<const Network>& out) {
  std::vector<std::uint8_t> bytes;
  WM_RETURN_IF_ERROR(nnue::read_network_file(path, file_size(kMaxHidden, kMaxBuckets), "network", bytes));
  return parse(bytes.data(), bytes.size(), out).context(path);
}

std::shared_ptr<const Network> Network::builtin() {
  static const std::shared_ptr<const Network> net = [] {
    std::shared_ptr<const Network> n;
    (void)parse(kBuiltinNetwork, kBuiltinNetworkSize, n);
    return n;
  }();
  return net;
}

Network::Network(Weights w) : w_(std::move(w)), simd_(search::best_simd()) {}

void Network::refresh(const Position& p, Color perspective, std::int16_t* acc) const {
  const int king = p.king_square(perspective);
  const std::size_t h = static_cast<std::size_t>(w_.hidden);
  Rows none;
  std::memcpy(acc, w_.feature_bias.data(), h * sizeof(std::int16_t));
  // Three rows at a time through the update loop.
  Rows r;
  const auto flush = [&] {
    nnue::update(simd_, acc, acc, r, w_.hidden);
    r = none;
  };
  for (int c = 0; c < 2; ++c)
    for (int t = 0; t < 6; ++t)
      for (std::uint64_t b = p.pieces[c][t]; b; b &= b - 1) {
        const int f = row(perspective, king, static_cast<Color>(c), t, __builtin_ctzll(b));
        r.add[r.adds++] = w_.feature_weights.data() + static_cast<std::size_t>(f) * h;
        if (r.adds == 3) flush();
      }
  if (r.adds) flush();
}

Network::Change Network::change(const Position& before, Move m) const {
  Change c;
  for (int col = 0; col < 2; ++col) c.king[col] = static_cast<std::int8_t>(before.king_square(static_cast<Color>(col)));
  if (m.bits == 0) return c;
  const Color us = before.side, them = static_cast<Color>(us ^ 1);
  const int from = m.from(), to = m.to(), type = before.type_at(from);
  const auto add = [&](Color color, int t, int f, int s) {
    c.piece[c.count++] = {static_cast<std::int8_t>(color), static_cast<std::int8_t>(t), static_cast<std::int8_t>(f),
                          static_cast<std::int8_t>(s)};
  };
  if (m.promo() != NoPiece) {
    add(us, Pawn, from, -1);
    add(us, m.promo(), -1, to);
  } else {
    add(us, type, from, to);
  }
  if (m.flags() & Move::EnPassant) {
    add(them, Pawn, us == White ? to - 8 : to + 8, -1);
  } else if (m.flags() & Move::Capture) {
    add(them, before.type_at(to), to, -1);
  } else if (m.flags() & Move::Castle) {
    const bool king_side = to > from;
    add(us, Rook, king_side ? from + 3 : from - 4, king_side ? from + 1 : from - 1);
  }
  if (type == King) {
    c.king[us] = static_cast<std::int8_t>(to);
    const auto bucket = [&](int k) { return w_.king_bucket[static_cast<std::size_t>(king32(us, k))]; };
    const auto mirrored = [](int k) { return (k & 7) >= 4; };
    c.refresh[us] = bucket(from) != bucket(to) || mirrored(from) != mirrored(to);
  }
  return c;
}

void Network::apply(const Change& c, Color perspective, const std::int16_t* from, std::int16_t* to) const {
  apply(c, perspective, from, to, simd_);
}

void Network::apply(const Change& c, Color perspective, const std::int16_t* from, std::int16_t* to, Simd s) const {
  const int king = c.king[perspective];
  const std::size_t h = static_cast<std::size_t>(w_.hidden);
  Rows r;
  for (int k = 0; k < c.count; ++k) {
    const Change::Piece& pc = c.piece[k];
    const Color col = static_cast<Color>(pc.color);
    if (pc.from >= 0)
      r.sub[r.subs++] =
          w_.feature_weights.data() + static_cast<std::size_t>(row(perspective, king, col, pc.type, pc.from)) * h;
    if (pc.to >= 0)
      r.add[r.adds++] =
          w_.feature_weights.data() + static_cast<std::size_t>(row(perspective, king, col, pc.type, pc.to)) * h;
  }
  nnue::update(s, from, to, r, w_.hidden);
}

int Network::output(const std::int16_t* us, const std::int16_t* them, int pieces) const {
  return output(us, them, pieces, simd_);
}

int Network::output(const std::int16_t* us, const std::int16_t* them, int pieces, Simd s) const {
  const int h = w_.hidden;
  const std::size_t stack = static_cast<std::size_t>(std::clamp((pieces - 1) / 4, 0, kStacks - 1));
  alignas(64) std::uint8_t x[2 * kMaxHidden];
  nnue::activate(s, us, x, h);
  nnue::activate(s, them, x + h, h);
  const nnue::Head head{w_.l2_weights.data() + stack * kL2 * 2 * static_cast<std::size_t>(h),
                        w_.l2_bias.data() + stack * kL2,
                        w_.l3_weights.data() + stack * kL3 * kL2,
                        w_.l3_bias.data() + stack * kL3,
                        w_.out_weights.data() + stack * kL3,
                        w_.out_bias[stack]};
  const std::int64_t value = nnue::head(s, x, 2 * h, head) * kScale / (kActivation * kOutputScale);
  return static_cast<int>(std::clamp<std::int64_t>(value, -kMaxValue, kMaxValue));
}

int Network::evaluate(const Position& p) const {
  alignas(64) std::int16_t acc[2][kMaxHidden];
  refresh(p, White, acc[White]);
  refresh(p, Black, acc[Black]);
  return output(acc[p.side], acc[p.side ^ 1], __builtin_popcountll(p.occupied[White] | p.occupied[Black]));
}

}  // namespace warpmind::search::chess
