// The baseline of overhead.py and Overhead.cs: the same crowd stepped from C++ directly, no binding and no
// C API between (warpmind::crowd's CrowdSolver::step on a std::span). N agents (100,000 by default) on a
// grid 2 units apart, proposals uniform within ±0.6 of the start, T steps (20), cpu-reference on the CPU
// backend; prints one JSON line with the median step. Build against an installed package, e.g.
//   c++ -O2 -std=c++20 bench/bindings/overhead.cpp $(pkg-config --cflags --libs warpmind) -o overhead
//   ./overhead [N] [T]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "warpmind/core/context.h"
#include "warpmind/crowd/crowd_solver.h"

int main(int argc, char** argv) {
  using namespace warpmind;
  using namespace warpmind::crowd;
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000;
  const int ticks = argc > 2 ? std::atoi(argv[2]) : 20;
  if (n == 0 || ticks <= 0) {
    std::fprintf(stderr, "usage: overhead [N >= 1] [T >= 1]\n");
    return 2;
  }
  const auto side = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  std::vector<Vec2> start(n);
  for (std::size_t i = 0; i < n; ++i)
    start[i] = {2.0f * static_cast<float>(i % side) + 1.0f, 2.0f * static_cast<float>(i / side) + 1.0f};
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> jitter(-0.6f, 0.6f);
  std::vector<std::vector<Vec2>> proposals(static_cast<std::size_t>(ticks), start);
  for (auto& p : proposals)
    for (Vec2& v : p) v = {v.x + jitter(rng), v.y + jitter(rng)};

  ContextOptions o;
  o.backend = Backend::Cpu;
  o.quiet = true;
  std::unique_ptr<Context> ctx;
  CrowdConfig c;
  c.world = {0.0f, 0.0f, 2.0f * static_cast<float>(side) + 2.0f, 2.0f * static_cast<float>(side) + 2.0f};
  c.radius = 0.5f;
  c.variant = CrowdVariant::CpuReference;
  std::unique_ptr<CrowdSolver> crowd;
  Status st = Context::create(o, ctx);
  if (st.ok()) st = CrowdSolver::create(*ctx, c, crowd);
  if (st.ok()) st = crowd->reset(start);
  std::vector<double> ms;
  for (const auto& p : proposals) {
    if (!st.ok()) break;
    const auto t0 = std::chrono::steady_clock::now();
    st = crowd->step(p);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  if (!st.ok()) {
    std::fprintf(stderr, "overhead: %s\n", st.message().c_str());
    return 1;
  }
  std::sort(ms.begin(), ms.end());
  const double median = ms.size() % 2 ? ms[ms.size() / 2] : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
  std::printf("{\"binding\": \"c++\", \"agents\": %zu, \"ticks\": %d, \"step_ms\": %.4f}\n", n, ticks, median);
  return 0;
}
