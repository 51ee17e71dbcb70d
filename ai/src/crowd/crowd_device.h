// The interface the crowd's kernels implement (gpu/src/crowd/crowd.cu), host-only.
// The rule is defined in ai/include/warpmind/crowd/crowd_solver.h, its arithmetic in crowd_rules.h
// (shared with the CPU); the geometry is computed on the host (ai/src/crowd/crowd_math.h) and used here
// as given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "warpmind/core/status.h"
#include "crowd/crowd_rules.h"

namespace warpmind::gpu {

enum class CrowdKernel { Sort, Tiled, StaticGrid };

struct CrowdCounts {
  std::size_t by_verdict[6];  // indexed by warpmind::crowd::Verdict
};

// Device state of one crowd: positions stay on the device between ticks. Not thread-safe.
class CrowdDevice {
 public:
  static Status create(void* stream, CrowdKernel kernel, const crowd::rules::Geometry& g,
                       const std::vector<std::uint8_t>& blocked, bool lowest_id_wins, bool avoid, bool sized,
                       std::unique_ptr<CrowdDevice>& out);
  ~CrowdDevice();
  // positions: n float pairs on the host; max_steps: n floats (each agent's maximum step, 0: none) or nullptr (no
  // limits: AcceptReject only); radii: n floats, each agent's radius (a crowd created `sized`; otherwise ignored: every
  // agent has the geometry's radius); reach: the largest maximum step (Avoid's neighbourhood). Avoid needs
  // gpu-static-grid (the caller checks).
  Status reset(const float* positions, const float* max_steps, const float* radii, std::size_t n, float reach);
  // proposals: n float pairs on the host. Synchronous (fills counts).
  Status step(const float* proposals, std::size_t n, CrowdCounts& counts);
  // proposals: n float pairs in device memory. Queued on the stream, no host synchronisation; the
  // verdict counts are fetched by fetch_counts.
  Status step_device(const float* proposals, std::size_t n);
  Status fetch_counts(CrowdCounts& counts) const;
  // Keeps the agents whose keep_host[i] != 0 (n flags on the host; `kept` of them are set), in order.
  Status retain(const std::uint8_t* keep_host, std::size_t n, std::size_t kept);
  // The same with the n flags in device memory (ordered on the stream after the work that wrote them).
  // keep_copy (optional, n bytes on the host) receives the flags first, and a `kept` that is not their
  // count is refused before anything changes.
  Status retain_device(const std::uint8_t* keep_device, std::size_t n, std::size_t kept,
                       std::uint8_t* keep_copy = nullptr);
  const float* positions() const;        // device, n float pairs
  const std::uint8_t* verdicts() const;  // device, n bytes
  Status download_positions(float* out) const;
  Status download_verdicts(std::uint8_t* out) const;

  struct Impl;

 private:
  CrowdDevice() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::gpu
