// Host-only interface to the CUDA AOI tick (gpu/src/aoi/). Plain types only. The contract of a tick
// is ai/include/warpmind/aoi/aoi.h; the records below have the layouts of its Player, Command, Update,
// Notification and VisibilityEvent (the ai side checks this at compile time), and the geometry is
// computed on the host and used here as given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "warpmind/core/status.h"
#include "warpmind/gpu/aoi_rules.h"

namespace warpmind::gpu {

struct AoiGeometry {
  float x0, y0;            // world corner
  float x_last, y_last;    // the largest coordinates inside the world (positions are clamped to them)
  float aoi, aoi2;         // bucket side / radius and its square
  float max_move, range2;  // per-axis move limit, squared attack range
  int cols, rows;          // buckets
  bool circle;             // circular AOI (else the 3 x 3 buckets)
  bool track_visibility;   // visibility lists and enter/leave events
  bool mailboxes;          // notifications handed out as per-receiver mailboxes (fewer than 2^30 players)
};

enum class AoiKernel {
  Seed,  // the thesis pipeline: sorted update vectors + segmented sums; subject-centric range query,
         // then a stable sort of the notifications by receiver
  Fast   // atomics for the merge; receiver-centric count / scan / write that emits the order directly
};

struct AoiPlayerRec {
  float x, y;
  std::int32_t hp;
};
struct AoiCommandRec {
  std::uint32_t player, type;
  float dx, dy;
  std::uint32_t target;
  std::int32_t damage;
};
struct AoiUpdateRec {
  std::uint32_t player, field, value;
};
struct AoiNotificationRec {
  std::uint32_t receiver, subject, field, value;
};
struct AoiPairRec {
  std::uint32_t receiver, other;
};
struct AoiMailboxRec {
  std::uint32_t subject_field, value;
};  // subject | field << 30

// Where download() puts the last tick's results (arrays sized by the counts; n players). With
// mailboxes, `notes` is unused and mailbox_start (n + 1) and mailbox (counts.notifications) are filled;
// without, the other way round.
struct AoiHostOutputs {
  AoiUpdateRec* updates = nullptr;
  AoiNotificationRec* notes = nullptr;
  std::uint64_t* mailbox_start = nullptr;
  AoiMailboxRec* mailbox = nullptr;
  AoiPairRec* entered = nullptr;
  AoiPairRec* left = nullptr;
  AoiPlayerRec* players = nullptr;
};

struct AoiTickCounts {
  std::size_t rejected[7] = {};  // indexed by warpmind::aoi::RejectReason
  std::size_t accepted = 0;
  std::size_t updates = 0, notifications = 0, entered = 0, left = 0;
  // Time per stage on the device's timeline (CUDA events): commands up, logic and merge, bucket sort,
  // range query (notifications complete in device memory), visibility and its changes. A stage that
  // reads a size back (a scan's total) or grows a buffer includes those host round trips.
  double ms_upload = 0, ms_logic = 0, ms_sort = 0, ms_query = 0, ms_visibility = 0;
};

// Device state of one AOI world: players stay on the device between ticks. Not thread-safe.
class AoiDevice {
 public:
  static Status create(void* stream, AoiKernel kernel, const AoiGeometry& g, std::unique_ptr<AoiDevice>& out);
  ~AoiDevice();
  // Players 0..n-1 (validated by the caller). With visibility tracked, also the visibility that the
  // first tick's events compare with.
  Status reset(const AoiPlayerRec* players, std::size_t n);
  // One tick; the results stay in device memory until the next tick. Synchronous (fills counts). After
  // an error the device state is undefined until the next reset.
  Status tick(const AoiCommandRec* commands, std::size_t m, AoiTickCounts& counts);
  // Copies the last tick's results and the players to the host. ms: time of the device-to-host
  // transfers (pinned staging).
  Status download(const AoiHostOutputs& out, double& ms);
  // Device memory: the notification records, or with mailboxes the entries and their n + 1 starts.
  const AoiNotificationRec* notifications() const;
  const AoiMailboxRec* mailbox() const;
  const std::uint64_t* mailbox_start() const;

  struct Impl;

 private:
  AoiDevice() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::gpu
