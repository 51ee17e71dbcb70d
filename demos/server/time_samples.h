// The server's tick times (ms) for its summary's percentiles and its metrics' quantiles, in memory fixed
// at the start (docs/server.md, "The summary").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace warpmind::server {

// Times (ms) of a run's ticks, for the summary's percentiles, in memory fixed at the start: every sample
// while there are at most kKept, from then on a uniform sample of kKept of them (reservoir sampling with a
// fixed seed), so that a server up for days holds no more than one up for a minute; and the last kRecent
// (the metrics' quantiles), in no particular order.
class TimeSamples {
 public:
  static constexpr std::size_t kKept = std::size_t{1} << 16, kRecent = 1000;
  TimeSamples() : kept_(kKept), recent_(kRecent) {}
  void add(float ms) {
    max_ = seen_ == 0 ? ms : std::max(max_, ms);
    recent_[seen_ % kRecent] = ms;
    if (seen_ < kKept) {
      kept_[seen_] = ms;
    } else if (const std::uint64_t k = rng_() % (seen_ + 1); k < kKept) {
      kept_[k] = ms;
    }
    ++seen_;
  }
  void clear() { seen_ = 0; }
  std::uint64_t count() const { return seen_; }
  float max() const { return seen_ == 0 ? 0.0f : max_; }  // of every sample, not only those kept
  std::vector<float> kept() const {
    return {kept_.begin(), kept_.begin() + static_cast<std::ptrdiff_t>(filled(kKept))};
  }
  std::vector<float> recent() const {
    return {recent_.begin(), recent_.begin() + static_cast<std::ptrdiff_t>(filled(kRecent))};
  }

 private:
  std::size_t filled(std::size_t cap) const { return static_cast<std::size_t>(std::min<std::uint64_t>(seen_, cap)); }
  std::vector<float> kept_, recent_;
  std::uint64_t seen_ = 0;
  float max_ = 0;
  std::mt19937_64 rng_{0x5eed5eedull};
};

}  // namespace warpmind::server
