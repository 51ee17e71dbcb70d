// warpmind-tune --network (network_train.h): the learned evaluation's training.
//
// Positions as in the linear fit (quiet ones, |score| <= 3000), each with its pieces as White's-perspective
// feature indices (Black's perspective is their mirror). Targets: lambda × sigmoid(c × score) +
// (1 - lambda) × result, c fitted so the reference's scores match the classical evaluation's scale (the
// network then speaks in the engine's centipawns and the search's margins keep their meaning), sigmoid(x)
// = 1 / (1 + 10^(-x / 400)). The network in floating point: accumulators = bias + Σ weights of the
// features, SCReLU (clamp to [0, 1], squared), one output × 400 = centipawns; squared error of the sigmoid
// against the target, Adam over mini-batches split across threads (the gradients summed in a fixed order,
// so a run is deterministic for its seed and thread count), the learning rate decayed along a cosine to a
// tenth. Weights stay within what the file's int16 values hold. The last tenth of
// the positions (other games: the files run game by game) is held out. At the end the quantised network
// is parsed back through Network::parse and its integer evaluate() compared with the floating-point one
// on the held-out positions: the mean and largest difference are reported, and a mean beyond 5 cp fails.
// --residual trains a correction of the classical evaluation instead (the prediction is the classical
// evaluation plus the network's output; the file says so and the engine adds them), --decay pulls the
// weights towards zero (AdamW's decoupled decay), so that for a residual network, towards the classical
// evaluation.
#include "network_train.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <random>
#include <thread>

#include "labelled.h"
#include "warpmind/search/chess_network.h"
#include "warpmind/search/chess_search.h"

namespace warpmind::demos {

namespace {

namespace sc = search::chess;
using sc::Network;

struct Sample {
  std::uint16_t f[32];  // White's perspective
  std::uint8_t n = 0;
  std::uint8_t white_to_move = 1;
  float target = 0;
  float base = 0;  // residual training: the classical evaluation / 400
};

double sigmoid(double cp) { return 1.0 / (1.0 + std::pow(10.0, -cp / 400.0)); }

struct Net {
  int h = 0;
  std::vector<float> w, b, o;  // w: [768][h], b: [h], o: [2h]
  float ob = 0;
  bool residual = false;
  explicit Net(int hidden)
      : h(hidden),
        w(768 * static_cast<std::size_t>(hidden)),
        b(static_cast<std::size_t>(hidden)),
        o(2 * static_cast<std::size_t>(hidden)) {}
};

struct Grad {
  std::vector<float> w, b, o;
  double ob = 0, loss = 0;
  std::vector<float> acc;  // scratch: 2h accumulators, 2h gradients
  explicit Grad(int h)
      : w(768 * static_cast<std::size_t>(h)),
        b(static_cast<std::size_t>(h)),
        o(2 * static_cast<std::size_t>(h)),
        acc(4 * static_cast<std::size_t>(h)) {}
  void zero() {
    std::fill(w.begin(), w.end(), 0.f);
    std::fill(b.begin(), b.end(), 0.f);
    std::fill(o.begin(), o.end(), 0.f);
    ob = loss = 0;
  }
};

// The float network's output (× 400 = centipawns) for a sample; acc gets [white h][black h].
float forward(const Net& net, const Sample& s, float* acc) {
  const int h = net.h;
  float* aw = acc;
  float* ab = acc + h;
  std::copy(net.b.begin(), net.b.end(), aw);
  std::copy(net.b.begin(), net.b.end(), ab);
  for (int k = 0; k < s.n; ++k) {
    const float* ww = net.w.data() + static_cast<std::size_t>(s.f[k]) * h;
    const float* wb = net.w.data() + static_cast<std::size_t>(Network::mirror(s.f[k])) * h;
    for (int i = 0; i < h; ++i) aw[i] += ww[i], ab[i] += wb[i];
  }
  const float* us = s.white_to_move ? aw : ab;
  const float* them = s.white_to_move ? ab : aw;
  float out = net.ob;
  for (int i = 0; i < h; ++i) {
    const float u = std::clamp(us[i], 0.f, 1.f), t = std::clamp(them[i], 0.f, 1.f);
    out += u * u * net.o[static_cast<std::size_t>(i)] + t * t * net.o[static_cast<std::size_t>(h + i)];
  }
  return out;
}

void backward(const Net& net, const Sample& s, Grad& g) {
  const int h = net.h;
  float* acc = g.acc.data();
  const float out = forward(net, s, acc);
  const double p = 1.0 / (1.0 + std::exp(-static_cast<double>(out + s.base) * 2.302585092994046));
  const double r = p - s.target;
  g.loss += r * r;
  const float d = static_cast<float>(2 * r * p * (1 - p) * 2.302585092994046);
  const float* us = s.white_to_move ? acc : acc + h;
  const float* them = s.white_to_move ? acc + h : acc;
  float* dw = acc + 2 * h;  // gradient of White's accumulator
  float* db = acc + 3 * h;  // of Black's
  float* dus = s.white_to_move ? dw : db;
  float* dthem = s.white_to_move ? db : dw;
  for (int i = 0; i < h; ++i) {
    const float u = std::clamp(us[i], 0.f, 1.f), t = std::clamp(them[i], 0.f, 1.f);
    g.o[static_cast<std::size_t>(i)] += d * u * u;
    g.o[static_cast<std::size_t>(h + i)] += d * t * t;
    dus[i] = us[i] > 0 && us[i] < 1 ? d * net.o[static_cast<std::size_t>(i)] * 2 * us[i] : 0.f;
    dthem[i] = them[i] > 0 && them[i] < 1 ? d * net.o[static_cast<std::size_t>(h + i)] * 2 * them[i] : 0.f;
  }
  g.ob += d;
  for (int i = 0; i < h; ++i) g.b[static_cast<std::size_t>(i)] += dw[i] + db[i];
  for (int k = 0; k < s.n; ++k) {
    float* gw = g.w.data() + static_cast<std::size_t>(s.f[k]) * h;
    float* gb = g.w.data() + static_cast<std::size_t>(Network::mirror(s.f[k])) * h;
    for (int i = 0; i < h; ++i) gw[i] += dw[i], gb[i] += db[i];
  }
}

struct Adam {
  std::vector<float> m, v;
  explicit Adam(std::size_t n) : m(n), v(n) {}
  void step(float* w, const float* g, std::size_t n, float scale, float lr, int t, float limit, float decay = 0) {
    const float c1 = 1.f - std::pow(0.9f, static_cast<float>(t)), c2 = 1.f - std::pow(0.999f, static_cast<float>(t));
    for (std::size_t i = 0; i < n; ++i) {
      const float gi = g[i] * scale;
      m[i] = 0.9f * m[i] + 0.1f * gi;
      v[i] = 0.999f * v[i] + 0.001f * gi * gi;
      w[i] = std::clamp(w[i] - lr * ((m[i] / c1) / (std::sqrt(v[i] / c2) + 1e-8f) + decay * w[i]), -limit, limit);
    }
  }
};

Network::Weights quantise(const Net& net) {
  Network::Weights q;
  q.hidden = net.h;
  q.residual = net.residual;
  const auto r16 = [](double x, double lim) {
    return static_cast<std::int16_t>(std::clamp(std::lround(x), -static_cast<long>(lim), static_cast<long>(lim)));
  };
  for (float x : net.w) q.feature_weights.push_back(r16(x * Network::kQa, 32767));
  for (float x : net.b) q.feature_bias.push_back(r16(x * Network::kQa, 32767));
  for (float x : net.o) q.output_weights.push_back(r16(x * Network::kQb, 32767));
  q.output_bias = static_cast<std::int32_t>(std::lround(static_cast<double>(net.ob) * Network::kQa * Network::kQb));
  return q;
}

}  // namespace

int train_network(const NetworkTraining& t) {
  const auto start = std::chrono::steady_clock::now();
  const auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::vector<Sample> samples;
  std::vector<double> scores, results, classical;
  int dropped = 0;
  for (const std::string& path : t.data) {
    std::ifstream in(path);
    if (!in) {
      std::fprintf(stderr, "warpmind-tune: cannot read %s\n", path.c_str());
      return 2;
    }
    std::string line;
    while (std::getline(in, line)) {
      sc::Position p;
      double score = 0, result = 0;
      if (!parse_labelled(line, 3000, p, score, result)) {
        ++dropped;
        continue;
      }
      Sample s;
      for (int c = 0; c < 2; ++c)
        for (int type = 0; type < 6; ++type)
          for (std::uint64_t b = p.pieces[c][type]; b && s.n < 32; b &= b - 1)
            s.f[s.n++] = static_cast<std::uint16_t>(
                Network::feature(sc::White, static_cast<sc::Color>(c), type, __builtin_ctzll(b)));
      s.white_to_move = p.side == sc::White;
      samples.push_back(s);
      scores.push_back(score);
      results.push_back(p.side == sc::White ? result : 1 - result);  // the side to move's
      classical.push_back(sc::evaluate(p));
      if (samples.size() % 500000 == 0)
        std::fprintf(stderr, "read %zu positions (%.0f s)\n", samples.size(), seconds());
    }
  }
  const std::size_t n = samples.size();
  if (n < 100) {
    std::fprintf(stderr, "warpmind-tune: %zu usable positions; need at least 100\n", n);
    return 2;
  }
  // The reference's scale against the classical evaluation, as the linear fit does.
  double best_c = 1, best_err = 1e300;
  for (double c = 0.2; c <= 3.0; c += 0.01) {
    double err = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double r = sigmoid(classical[i]) - sigmoid(c * scores[i]);
      err += r * r;
    }
    if (err < best_err) best_err = err, best_c = c;
  }
  for (std::size_t i = 0; i < n; ++i) {
    samples[i].target = static_cast<float>(t.lambda * sigmoid(best_c * scores[i]) + (1 - t.lambda) * results[i]);
    if (t.residual) samples[i].base = static_cast<float>(classical[i] / 400.0);
  }
  const std::size_t n_fit = n / 10 * 9;
  double classical_error = 0;  // the classical evaluation's, on the held-out positions
  for (std::size_t i = n_fit; i < n; ++i) classical_error += std::pow(sigmoid(classical[i]) - samples[i].target, 2);
  classical_error /= static_cast<double>(n - n_fit);
  std::fprintf(stderr,
               "positions: %zu kept (%zu fit, %zu held out), %d dropped; scale: reference score × %.2f; the classical "
               "evaluation's error %.6f held out\n",
               n, n_fit, n - n_fit, dropped, best_c, classical_error);

  const int h = t.hidden;
  Net net(h);
  net.residual = t.residual;
  std::mt19937 rng(t.seed);
  {
    std::uniform_real_distribution<float> fw(-0.1f, 0.1f), fo(-1.f / std::sqrt(2.f * h), 1.f / std::sqrt(2.f * h));
    for (float& x : net.w) x = fw(rng);
    for (float& x : net.o) x = fo(rng) * (t.residual ? 0.1f : 1.f);  // a residual network starts near zero
  }
  const int threads = std::max(1, t.threads);
  std::vector<Grad> grads;
  for (int k = 0; k < threads; ++k) grads.emplace_back(h);
  Adam aw(net.w.size()), ab(net.b.size()), ao(net.o.size()), aob(1);

  const auto held_loss = [&] {
    std::vector<double> part(static_cast<std::size_t>(threads));
    std::vector<std::thread> pool;
    for (int k = 0; k < threads; ++k)
      pool.emplace_back([&, k] {
        std::vector<float> acc(2 * static_cast<std::size_t>(h));
        for (std::size_t i = n_fit + static_cast<std::size_t>(k); i < n; i += static_cast<std::size_t>(threads)) {
          const double out = forward(net, samples[i], acc.data()) + samples[i].base;
          const double r = 1.0 / (1.0 + std::exp(-out * 2.302585092994046)) - samples[i].target;
          part[static_cast<std::size_t>(k)] += r * r;
        }
      });
    for (auto& th : pool) th.join();
    return std::accumulate(part.begin(), part.end(), 0.0) / static_cast<double>(n - n_fit);
  };

  std::vector<std::uint32_t> order(n_fit);
  std::iota(order.begin(), order.end(), 0u);
  const double held_start = held_loss();
  double fit_loss = 0, held_end = held_start;
  std::fprintf(stderr, "start: error %.6f held out\n", held_start);
  int step = 0;
  const std::size_t batch = static_cast<std::size_t>(std::max(1, t.batch));
  const std::size_t steps_per_epoch = (n_fit + batch - 1) / batch;
  const std::size_t total_steps = steps_per_epoch * static_cast<std::size_t>(t.epochs);
  for (int epoch = 1; epoch <= t.epochs; ++epoch) {
    std::shuffle(order.begin(), order.end(), rng);
    double sum = 0;
    for (std::size_t first = 0; first < n_fit; first += batch) {
      const std::size_t last = std::min(n_fit, first + batch);
      std::vector<std::thread> pool;
      for (int k = 0; k < threads; ++k)
        pool.emplace_back([&, k] {
          Grad& g = grads[static_cast<std::size_t>(k)];
          g.zero();
          for (std::size_t i = first + static_cast<std::size_t>(k); i < last; i += static_cast<std::size_t>(threads))
            backward(net, samples[order[i]], g);
        });
      for (auto& th : pool) th.join();
      Grad& g = grads[0];
      for (int k = 1; k < threads; ++k) {
        const Grad& o = grads[static_cast<std::size_t>(k)];
        for (std::size_t i = 0; i < g.w.size(); ++i) g.w[i] += o.w[i];
        for (std::size_t i = 0; i < g.b.size(); ++i) g.b[i] += o.b[i];
        for (std::size_t i = 0; i < g.o.size(); ++i) g.o[i] += o.o[i];
        g.ob += o.ob;
        g.loss += o.loss;
      }
      sum += g.loss;
      ++step;
      const double progress = static_cast<double>(step) / static_cast<double>(total_steps);
      const float lr =
          static_cast<float>(t.learning_rate * (0.1 + 0.9 * 0.5 * (1 + std::cos(3.141592653589793 * progress))));
      const float scale = 1.f / static_cast<float>(last - first);
      const float decay = static_cast<float>(t.decay);
      aw.step(net.w.data(), g.w.data(), g.w.size(), scale, lr, step, 32767.f / Network::kQa, decay);
      ab.step(net.b.data(), g.b.data(), g.b.size(), scale, lr, step, 32767.f / Network::kQa);
      ao.step(net.o.data(), g.o.data(), g.o.size(), scale, lr, step, 32767.f / Network::kQb, decay);
      const float gob = static_cast<float>(g.ob);
      aob.step(&net.ob, &gob, 1, scale, lr, step, 1e4f);
    }
    fit_loss = sum / static_cast<double>(n_fit);
    held_end = held_loss();
    std::fprintf(stderr, "epoch %d: error %.6f on the fit, %.6f held out (%.0f s)\n", epoch, fit_loss, held_end,
                 seconds());
  }

  // Quantise, parse back and compare the integer evaluation with the float one on the held-out positions.
  const std::vector<std::uint8_t> bytes = Network::encode(quantise(net));
  std::shared_ptr<const Network> q;
  if (const Status st = Network::parse(bytes.data(), bytes.size(), q); !st.ok()) {
    std::fprintf(stderr, "warpmind-tune: the quantised network does not parse: %s\n", st.message().c_str());
    return 1;
  }
  double diff_sum = 0, diff_max = 0;
  {
    std::vector<float> acc(2 * static_cast<std::size_t>(h));
    for (std::size_t i = n_fit; i < n; ++i) {
      const Sample& s = samples[i];
      sc::Position p;  // the pieces and the side to move: all an evaluation reads
      p.side = s.white_to_move ? sc::White : sc::Black;
      for (int k = 0; k < s.n; ++k) {
        const int f = s.f[k], c = f / 384, type = f % 384 / 64, sq = f % 64;
        p.pieces[c][type] |= std::uint64_t{1} << sq;
        p.occupied[c] |= std::uint64_t{1} << sq;
        p.board[sq] = static_cast<std::int8_t>(type + 8 * c);
      }
      const double fl = std::clamp(std::clamp(forward(net, s, acc.data()) * 400.0, -20000.0, 20000.0) + s.base * 400.0,
                                   -20000.0, 20000.0);
      const double d = std::fabs(fl - sc::evaluate(p, q.get()));
      diff_sum += d;
      diff_max = std::max(diff_max, d);
    }
  }
  const double diff_mean = diff_sum / static_cast<double>(n - n_fit);
  std::fprintf(stderr,
               "quantised: integer against float evaluation on the held-out positions: mean %.2f cp, max %.1f cp\n",
               diff_mean, diff_max);
  if (!(diff_mean <= 5.0)) {
    std::fprintf(stderr, "warpmind-tune: the quantised network is off by %.2f cp on average\n", diff_mean);
    return 1;
  }
  std::ofstream out(t.out, std::ios::binary);
  if (!out || !out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()))) {
    std::fprintf(stderr, "warpmind-tune: cannot write %s\n", t.out.c_str());
    return 2;
  }
  out.close();
  std::fprintf(stderr, "wrote %s (%zu bytes)\n", t.out.c_str(), bytes.size());
  if (t.json)
    std::printf(
        "{\"positions\": %zu, \"dropped\": %d, \"scale\": %.2f, \"hidden\": %d, \"residual\": %s, \"epochs\": %d, "
        "\"error_fit\": %.6f, "
        "\"error_held_out\": [%.6f, %.6f], \"error_held_out_classical\": %.6f, \"quantisation_cp\": {\"mean\": %.3f, "
        "\"max\": %.1f}, \"seconds\": %.0f}\n",
        n, dropped, best_c, h, t.residual ? "true" : "false", t.epochs, fit_loss, held_start, held_end, classical_error,
        diff_mean, diff_max, seconds());
  return 0;
}

}  // namespace warpmind::demos
