#include "datagen.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

namespace warpmind::train {

int generate(const char* what, const RunOptions& o, const std::vector<std::uint8_t>& header, const MakePlayer& make) {
  std::FILE* f = std::fopen(o.out.c_str(), "wb");
  if (!f) {
    std::fprintf(stderr, "warpmind-datagen %s: cannot write %s\n", what, o.out.c_str());
    return 2;
  }
  std::fwrite(header.data(), 1, header.size(), f);
  std::fflush(f);
  using Clock = std::chrono::steady_clock;
  std::mutex io;
  std::atomic<std::uint32_t> next{0};
  std::atomic<long long> positions{0};
  std::atomic<int> done{0}, dropped{0}, running{o.threads};
  std::atomic<bool> broken{false};
  std::string why;
  const auto t0 = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  const auto worker = [&] {
    std::string err;
    const Player play = make(err);
    if (!play) {
      std::lock_guard<std::mutex> lock(io);
      why = err;
      broken = true;
      --running;
      return;
    }
    std::vector<std::uint8_t> bytes;
    for (;;) {
      if (o.seconds > 0 && elapsed() >= o.seconds) break;
      const std::uint32_t index = next++;
      if (static_cast<long long>(index) >= o.games || broken) break;
      bytes.clear();
      const int labelled = play(index, bytes);
      if (labelled < 0) {
        ++dropped;
        continue;
      }
      std::lock_guard<std::mutex> lock(io);
      std::fwrite(bytes.data(), 1, bytes.size(), f);
      std::fflush(f);
      positions += labelled;
      ++done;
    }
    --running;
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < o.threads; ++t) pool.emplace_back(worker);
  for (double last = 0; running > 0;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (elapsed() - last >= 10) {
      last = elapsed();
      std::fprintf(stderr, "warpmind-datagen: %d games, %lld labelled positions, %.0f a second\n", done.load(),
                   positions.load(), positions.load() / last);
    }
  }
  for (std::thread& t : pool) t.join();
  std::fclose(f);
  if (broken) {
    std::fprintf(stderr, "warpmind-datagen %s: %s\n", what, why.c_str());
    return 2;
  }
  std::fprintf(stderr, "warpmind-datagen: %d games (%d dropped), %lld labelled positions in %.1f s\n", done.load(),
               dropped.load(), positions.load(), elapsed());
  return 0;
}

}  // namespace warpmind::train
