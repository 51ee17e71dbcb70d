// The programs' summary statistics of their timings, written once: the sample at quantile q of a sorted
// copy (index floor(q · n), so q = 0.5 is the upper median); 0 for no samples.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace warpmind::demos {

template <class T>
double percentile(std::vector<T> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return static_cast<double>(v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))]);
}

template <class T>
double median(std::vector<T> v) {
  return percentile(std::move(v), 0.5);
}

}  // namespace warpmind::demos
