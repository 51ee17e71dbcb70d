// The learned chess evaluation (chess_network.h): file format, accumulators and the output.
#include "warpmind/search/chess_network.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

namespace warpmind::search::chess {

// The built-in network's bytes (generated from assets/chess/network.wmn at build time).
extern const unsigned char kBuiltinNetwork[];
extern const std::size_t kBuiltinNetworkSize;

namespace {

constexpr char kMagic[4] = {'W', 'M', 'N', 'N'};
constexpr std::uint32_t kVersion = 1;

std::size_t file_size(int hidden) {
  const std::size_t h = static_cast<std::size_t>(hidden);
  return 16 + 2 * (Network::kInputs * h + h + 2 * h) + 4;
}

template <class T>
void put(std::vector<std::uint8_t>& out, T v) {
  using U = std::make_unsigned_t<T>;
  const U u = static_cast<U>(v);
  for (std::size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<std::uint8_t>(u >> (8 * i) & 0xFF));
}

template <class T>
T get(const std::uint8_t*& p) {
  using U = std::make_unsigned_t<T>;
  U u = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) u = static_cast<U>(u | static_cast<U>(static_cast<U>(p[i]) << (8 * i)));
  p += sizeof(T);
  return static_cast<T>(u);
}

}  // namespace

std::vector<std::uint8_t> Network::encode(const Weights& w) {
  std::vector<std::uint8_t> out;
  out.reserve(file_size(w.hidden));
  out.insert(out.end(), kMagic, kMagic + 4);
  put(out, kVersion);
  put(out, static_cast<std::uint32_t>(w.hidden));
  put(out, static_cast<std::uint32_t>(w.residual ? 1 : 0));
  for (std::int16_t v : w.feature_weights) put(out, v);
  for (std::int16_t v : w.feature_bias) put(out, v);
  for (std::int16_t v : w.output_weights) put(out, v);
  put(out, w.output_bias);
  return out;
}

Status Network::parse(const std::uint8_t* data, std::size_t size, std::shared_ptr<const Network>& out) {
  if (size < 16 || std::memcmp(data, kMagic, 4) != 0) return Status::Invalid("not a warpmind network (no WMNN magic)");
  const std::uint8_t* p = data + 4;
  const auto version = get<std::uint32_t>(p);
  if (version != kVersion)
    return Status::Invalid("network version " + std::to_string(version) + " (this build reads version 1)");
  const auto hidden = get<std::uint32_t>(p);
  if (hidden < 16 || hidden > kMaxHidden || hidden % 16)
    return Status::Invalid("network hidden size " + std::to_string(hidden) + " (16..1024, a multiple of 16)");
  const auto flags = get<std::uint32_t>(p);
  if (flags > 1) return Status::Invalid("network flags " + std::to_string(flags) + " (this build knows bit 0 alone)");
  const int h = static_cast<int>(hidden);
  if (size != file_size(h))
    return Status::Invalid("network of hidden size " + std::to_string(h) + " has " + std::to_string(size) +
                           " bytes; expected " + std::to_string(file_size(h)));
  Weights w;
  w.hidden = h;
  w.residual = flags & 1;
  w.feature_weights.resize(static_cast<std::size_t>(kInputs) * hidden);
  w.feature_bias.resize(hidden);
  w.output_weights.resize(2 * static_cast<std::size_t>(hidden));
  for (auto& v : w.feature_weights) v = get<std::int16_t>(p);
  for (auto& v : w.feature_bias) v = get<std::int16_t>(p);
  for (auto& v : w.output_weights) v = get<std::int16_t>(p);
  w.output_bias = get<std::int32_t>(p);
  out = std::shared_ptr<const Network>(new Network(std::move(w)));
  return Status::Ok();
}

Status Network::load(const std::string& path, std::shared_ptr<const Network>& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Invalid("cannot read network file " + path);
  in.seekg(0, std::ios::end);
  const std::streamoff n = in.tellg();
  if (n < 0 || n > static_cast<std::streamoff>(file_size(kMaxHidden)))
    return Status::Invalid(path + ": too large for a network file");
  in.seekg(0);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(n));
  if (!in.read(reinterpret_cast<char*>(bytes.data()), n)) return Status::Invalid("cannot read network file " + path);
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

void Network::refresh(const Position& p, std::int16_t* white, std::int16_t* black) const {
  const std::size_t h = static_cast<std::size_t>(w_.hidden);
  std::memcpy(white, w_.feature_bias.data(), h * sizeof(std::int16_t));
  std::memcpy(black, w_.feature_bias.data(), h * sizeof(std::int16_t));
  for (int c = 0; c < 2; ++c)
    for (int t = 0; t < 6; ++t)
      for (std::uint64_t b = p.pieces[c][t]; b; b &= b - 1) {
        const int sq = __builtin_ctzll(b);
        add(white, feature(White, static_cast<Color>(c), t, sq));
        add(black, feature(Black, static_cast<Color>(c), t, sq));
      }
}

void Network::add(std::int16_t* acc, int f) const {
  const std::int16_t* w = w_.feature_weights.data() + static_cast<std::size_t>(f) * static_cast<std::size_t>(w_.hidden);
  for (int i = 0; i < w_.hidden; ++i) acc[i] = static_cast<std::int16_t>(acc[i] + w[i]);
}

void Network::sub(std::int16_t* acc, int f) const {
  const std::int16_t* w = w_.feature_weights.data() + static_cast<std::size_t>(f) * static_cast<std::size_t>(w_.hidden);
  for (int i = 0; i < w_.hidden; ++i) acc[i] = static_cast<std::int16_t>(acc[i] - w[i]);
}

Network::Change Network::change(const Position& before, Move m) {
  Change c;
  if (m.bits == 0) return c;
  const Color us = before.side, them = static_cast<Color>(us ^ 1);
  const int from = m.from(), to = m.to(), type = before.type_at(from);
  c.sub[0] = feature(White, us, type, from);
  c.add[0] = feature(White, us, m.promo() != NoPiece ? m.promo() : type, to);
  if (m.flags() & Move::EnPassant) {
    c.sub[1] = feature(White, them, Pawn, us == White ? to - 8 : to + 8);
  } else if (m.flags() & Move::Capture) {
    c.sub[1] = feature(White, them, before.type_at(to), to);
  } else if (m.flags() & Move::Castle) {
    const bool king_side = to > from;
    c.sub[1] = feature(White, us, Rook, king_side ? from + 3 : from - 4);
    c.add[1] = feature(White, us, Rook, king_side ? from + 1 : from - 1);
  }
  return c;
}

void Network::apply(const Change& c, const std::int16_t* from_white, const std::int16_t* from_black,
                    std::int16_t* to_white, std::int16_t* to_black) const {
  const std::size_t bytes = static_cast<std::size_t>(w_.hidden) * sizeof(std::int16_t);
  std::memcpy(to_white, from_white, bytes);
  std::memcpy(to_black, from_black, bytes);
  for (int k = 0; k < 2; ++k) {
    if (c.add[k] >= 0) add(to_white, c.add[k]), add(to_black, mirror(c.add[k]));
    if (c.sub[k] >= 0) sub(to_white, c.sub[k]), sub(to_black, mirror(c.sub[k]));
  }
}

Network::Network(Weights w) : w_(std::move(w)) {
  high_.reserve(w_.output_weights.size());
  low_.reserve(w_.output_weights.size());
  for (const std::int16_t v : w_.output_weights) {
    const int high = (v + 128) >> 8;  // floor((v + 128) / 256): low = v - 256 * high lies in [-128, 127]
    high_.push_back(static_cast<std::int16_t>(high));
    low_.push_back(static_cast<std::int16_t>(v - 256 * high));
  }
}

// The sum of x² · w over both sides' units, computed exactly without a 64-bit product per unit: with
// w = 256 · high + low and x in [0, 255], x · high and x · low fit 16 bits and x · (x · high) is at most
// 255 · 255 · 128 in magnitude, so blocks of 128 units sum in 32 bits (below 2^31) — a pattern compilers
// turn into 16-bit multiply-adds.
int Network::output(const std::int16_t* us, const std::int16_t* them) const {
  constexpr int kBlock = 128;
  std::int64_t high_sum = 0, low_sum = 0;
  for (int side = 0; side < 2; ++side) {
    const std::int16_t* a = side ? them : us;
    const std::int16_t* h = high_.data() + side * w_.hidden;
    const std::int16_t* l = low_.data() + side * w_.hidden;
    for (int b = 0; b < w_.hidden; b += kBlock) {
      const int end = std::min(w_.hidden, b + kBlock);
      std::int32_t hs = 0, ls = 0;
      for (int i = b; i < end; ++i) {
        const auto x = static_cast<std::int16_t>(std::clamp<int>(a[i], 0, kQa));
        hs += x * static_cast<std::int16_t>(x * h[i]);
        ls += x * static_cast<std::int16_t>(x * l[i]);
      }
      high_sum += hs;
      low_sum += ls;
    }
  }
  const std::int64_t v = high_sum * 256 + low_sum;
  const std::int64_t value = (v / kQa + w_.output_bias) * kScale / (kQa * kQb);
  return static_cast<int>(std::clamp<std::int64_t>(value, -kMaxValue, kMaxValue));
}

int Network::evaluate(const Position& p) const {
  alignas(64) std::int16_t acc[2][kMaxHidden];
  refresh(p, acc[White], acc[Black]);
  return output(acc[p.side], acc[p.side ^ 1]);
}

}  // namespace warpmind::search::chess
