// Items grouped by a key (a grid cell, a bucket, a stripe) with a stable counting sort: after build(),
// bucket b holds ids()[start(b) .. start(b + 1)), ascending within the bucket. The one CPU index of
// points into cells that the crowd, combat, AOI and region-matching modules share. Buffers only grow
// (no allocation per build once they have). One thread per object.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace warpmind::detail {

class BucketIndex {
 public:
  // Items 0..n-1, item i in bucket key(i) (< buckets).
  template <class Key>
  void build(std::size_t n, std::size_t buckets, Key&& key) {
    keys_.resize(n);
    for (std::size_t i = 0; i < n; ++i) keys_[i] = static_cast<std::uint32_t>(key(i));
    build(keys_, buckets);
  }
  // The same from keys already computed (keys[i] < buckets), read in place.
  void build(std::span<const std::uint32_t> keys, std::size_t buckets) {
    const std::size_t n = keys.size();
    start_.assign(buckets + 1, 0);
    for (std::size_t i = 0; i < n; ++i) ++start_[keys[i] + 1];
    for (std::size_t b = 0; b < buckets; ++b) start_[b + 1] += start_[b];
    next_.assign(start_.begin(), start_.end() - 1);
    ids_.resize(n);
    for (std::size_t i = 0; i < n; ++i) ids_[next_[keys[i]]++] = static_cast<std::uint32_t>(i);
  }

  const std::vector<std::uint32_t>& starts() const { return start_; }  // buckets + 1 entries
  const std::vector<std::uint32_t>& ids() const { return ids_; }
  // Calls f(id) for every item of `bucket`, in ascending order.
  template <class F>
  void each(std::size_t bucket, F&& f) const {
    for (std::uint32_t k = start_[bucket]; k < start_[bucket + 1]; ++k) f(ids_[k]);
  }

 private:
  std::vector<std::uint32_t> keys_;  // the lambda build's keys
  std::vector<std::uint32_t> start_, next_, ids_;
};

}  // namespace warpmind::detail
