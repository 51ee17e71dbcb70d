// The learned Connect6 evaluation (connect6_network.h): the file, the accumulators over the windows'
// patterns, the value through the layers shared with chess (search/nnue_layers.h) and the cell scores.
#include "warpmind/search/connect6_network.h"

#include <algorithm>
#include <cstring>

#include "search/connect6/geometry.h"
#include "search/network_file.h"
#include "search/nnue_layers.h"

namespace warpmind::search::connect6 {

// The built-in network's bytes (generated from assets/connect6/network.wmn at build time).
extern const unsigned char kBuiltinConnect6Network[];
extern const std::size_t kBuiltinConnect6NetworkSize;

namespace {

using nnue::get;
using nnue::put;
constexpr char kMagic[4] = {'W', 'M', 'C', '6'};
constexpr std::uint32_t kVersion = 1;
using N = Network;
static_assert(N::kL2 == nnue::kL2 && N::kL3 == nnue::kL3);

std::size_t file_size(int features) {
  const std::size_t f = static_cast<std::size_t>(features);
  return 12 + 2 * (N::kCodes * f + f) + N::kL2 * 2 * f + 4 * N::kL2 + N::kL3 * N::kL2 + 4 * N::kL3 + 2 * N::kL3 + 4 +
         2 * N::kCodes * N::kWindowCells;
}

struct SwapTable {
  std::array<std::uint16_t, N::kCodes> v{};
  SwapTable() {
    for (int c = 0; c < N::kCodes; ++c) {
      int out = 0;
      for (int i = 0, x = c; i < N::kWindowCells; ++i, x /= 3) out += detail::kPow3[i] * (x % 3 == 0 ? 0 : 3 - x % 3);
      v[static_cast<std::size_t>(c)] = static_cast<std::uint16_t>(out);
    }
  }
};
const SwapTable& swaps() {
  static const SwapTable t;
  return t;
}

}  // namespace

int Network::swap(int code) { return swaps().v[static_cast<std::size_t>(code)]; }

std::vector<std::uint8_t> Network::encode(const Weights& w) {
  std::vector<std::uint8_t> out;
  out.reserve(file_size(w.features));
  for (const char c : kMagic) out.push_back(static_cast<std::uint8_t>(c));
  put(out, kVersion);
  put(out, static_cast<std::uint32_t>(w.features));
  for (std::int16_t v : w.pattern_weights) put(out, v);
  for (std::int16_t v : w.pattern_bias) put(out, v);
  for (std::int8_t v : w.l2_weights) put(out, v);
  for (std::int32_t v : w.l2_bias) put(out, v);
  for (std::int8_t v : w.l3_weights) put(out, v);
  for (std::int32_t v : w.l3_bias) put(out, v);
  for (std::int16_t v : w.out_weights) put(out, v);
  put(out, w.out_bias);
  for (std::int16_t v : w.cell_weights) put(out, v);
  return out;
}

Status Network::parse(const std::uint8_t* data, std::size_t size, std::shared_ptr<const Network>& out) {
  if (size < 12 || std::memcmp(data, kMagic, 4) != 0) return Status::Invalid("not a Connect6 network (no WMC6 header)");
  const std::uint8_t* p = data + 4;
  const auto version = get<std::uint32_t>(p);
  if (version != kVersion)
    return Status::Invalid("Connect6 network version " + std::to_string(version) + " (this build reads version 1)");
  const auto features = get<std::uint32_t>(p);
  if (features < kMinFeatures || features > kMaxFeatures || features % 32)
    return Status::Invalid("Connect6 network features " + std::to_string(features) + " (32..256, a multiple of 32)");
  const int f = static_cast<int>(features);
  if (size != file_size(f))
    return Status::Invalid("Connect6 network of " + std::to_string(f) + " features has " + std::to_string(size) +
                           " bytes; expected " + std::to_string(file_size(f)));
  Weights w;
  w.features = f;
  w.pattern_weights.resize(static_cast<std::size_t>(kCodes) * features);
  w.pattern_bias.resize(features);
  w.l2_weights.resize(static_cast<std::size_t>(kL2) * 2 * features);
  w.l2_bias.resize(kL2);
  w.l3_weights.resize(static_cast<std::size_t>(kL3) * kL2);
  w.l3_bias.resize(kL3);
  w.out_weights.resize(kL3);
  w.cell_weights.resize(static_cast<std::size_t>(kCodes) * kWindowCells);
  for (auto& v : w.pattern_weights) v = get<std::int16_t>(p);
  for (auto& v : w.pattern_bias) v = get<std::int16_t>(p);
  for (auto& v : w.l2_weights) v = get<std::int8_t>(p);
  for (auto& v : w.l2_bias) v = get<std::int32_t>(p);
  for (auto& v : w.l3_weights) v = get<std::int8_t>(p);
  for (auto& v : w.l3_bias) v = get<std::int32_t>(p);
  for (auto& v : w.out_weights) v = get<std::int16_t>(p);
  w.out_bias = get<std::int32_t>(p);
  for (auto& v : w.cell_weights) v = get<std::int16_t>(p);
  out = std::shared_ptr<const Network>(new Network(std::move(w)));
  return Status::Ok();
}

Status Network::load(const std::string& path, std::shared_ptr<const Network>& out) {
  std::vector<std::uint8_t> bytes;
  WM_RETURN_IF_ERROR(nnue::read_network_file(path, file_size(kMaxFeatures), "Connect6 network", bytes));
  return parse(bytes.data(), bytes.size(), out).context(path);
}

std::shared_ptr<const Network> Network::builtin() {
  static const std::shared_ptr<const Network> net = [] {
    std::shared_ptr<const Network> n;
    (void)parse(kBuiltinConnect6Network, kBuiltinConnect6NetworkSize, n);
    return n;
  }();
  return net;
}

Network::Network(Weights w) : w_(std::move(w)), simd_(search::best_simd()) {}

void Network::refresh(const Board& b, Accumulator& acc) const {
  const std::size_t f = static_cast<std::size_t>(w_.features);
  for (auto& a : acc.units) std::memcpy(a.data(), w_.pattern_bias.data(), f * sizeof(std::int16_t));
  nnue::Rows r[2];
  const auto flush = [&](int k) {
    nnue::update(simd_, acc.units[k].data(), acc.units[k].data(), r[k], w_.features);
    r[k] = nnue::Rows{};
  };
  for (int wi = 0; wi < kWindows; ++wi) {
    const int code = b.window_code(wi);
    if (code == 0) continue;  // an empty window is in the bias
    const int codes[2] = {code, swap(code)};
    for (int k = 0; k < 2; ++k) {
      nnue::Rows& rk = r[k];
      rk.add[rk.adds++] = w_.pattern_weights.data() + static_cast<std::size_t>(codes[k]) * f;
      if (rk.adds == 3) flush(k);
    }
  }
  for (int k = 0; k < 2; ++k)
    if (r[k].adds) flush(k);
}

void Network::place(const Board& after, int cell, Accumulator& acc) const {
  const std::size_t f = static_cast<std::size_t>(w_.features);
  const int s = after.at(cell);
  for (const detail::Slot& slot : detail::window_slots()[static_cast<std::size_t>(cell)]) {
    const int now = after.window_code(slot.window), before = now - detail::kPow3[slot.index] * s;
    const int from[2] = {before, swap(before)}, to[2] = {now, swap(now)};
    for (int k = 0; k < 2; ++k) {
      nnue::Rows r;
      r.add[r.adds++] = w_.pattern_weights.data() + static_cast<std::size_t>(to[k]) * f;
      if (from[k]) r.sub[r.subs++] = w_.pattern_weights.data() + static_cast<std::size_t>(from[k]) * f;
      nnue::update(simd_, acc.units[k].data(), acc.units[k].data(), r, w_.features);
    }
  }
}

int Network::value(const Board& b, const Accumulator& acc) const { return value(b, acc, simd_); }

int Network::value(const Board& b, const Accumulator& acc, Simd s) const {
  const int f = w_.features;
  const int us = b.to_move() == BlackStone ? 0 : 1;
  alignas(64) std::uint8_t x[2 * kMaxFeatures];
  nnue::activate(s, acc.units[us].data(), x, f);
  nnue::activate(s, acc.units[us ^ 1].data(), x + f, f);
  const nnue::Head head{w_.l2_weights.data(), w_.l2_bias.data(),     w_.l3_weights.data(),
                        w_.l3_bias.data(),    w_.out_weights.data(), w_.out_bias};
  const std::int64_t v = nnue::head(s, x, 2 * f, head) * kScale / (nnue::kActivation * 256);
  return static_cast<int>(std::clamp<std::int64_t>(v, -kMaxValue, kMaxValue));
}

int Network::evaluate(const Board& b) const {
  Accumulator acc;
  refresh(b, acc);
  return value(b, acc);
}

int Network::cell_score(const Board& b, int cell, Stone mover) const {
  int v = 0;
  for (const detail::Slot& slot : detail::window_slots()[static_cast<std::size_t>(cell)]) {
    const int code = b.window_code(slot.window);
    const int mine = mover == BlackStone ? code : swap(code);
    v += w_.cell_weights[static_cast<std::size_t>(mine) * kWindowCells + static_cast<std::size_t>(slot.index)];
  }
  return v;
}

}  // namespace warpmind::search::connect6
