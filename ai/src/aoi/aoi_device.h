// Host-only interface to the CUDA AOI tick (gpu/src/aoi/). Plain types only. The contract of a tick
// is ai/include/warpmind/aoi/aoi.h; the records below have the layouts of its Player, Command, Update,
// Notification and VisibilityEvent (the ai side checks this at compile time), and the geometry is
// computed on the host and used here as given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "warpmind/core/status.h"
#include "aoi/aoi_rules.h"

namespace warpmind::gpu {

struct AoiGeometry {
  float x0, y0;            // world corner
  float x_last, y_last;    // the largest coordinates inside the world (positions are clamped to them)
  float side;              // a bucket's side (world units)
  float aoi2;              // the AOI radius squared (the circle's test)
  float max_move, range2;  // per-axis move limit, squared attack range
  int cols, rows;          // buckets
  bool circle;             // circular AOI (else the 3 x 3 buckets)
  bool track_visibility;   // visibility lists and enter/leave events
  bool mailboxes;          // notifications handed out as per-receiver mailboxes (fewer than 2^30 players)
};

enum class AoiKernel {
  Sorted,  // the thesis pipeline: sorted update vectors + segmented sums; subject-centric range query,
           // then a stable sort of the notifications by receiver (the whole list in device memory, at most
           // 2^31 - 1 notifications)
  Fast     // atomics for the merge; receiver-centric count / scan, then the notifications written in output
           // order a chunk of receivers at a time (device memory bounded by the chunk, any count)
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

// Where download() puts the last tick's results other than the notifications (arrays sized by the
// counts; n players).
struct AoiHostOutputs {
  AoiUpdateRec* updates = nullptr;
  AoiPairRec* entered = nullptr;
  AoiPairRec* left = nullptr;
  AoiPlayerRec* players = nullptr;
};

// One chunk of a tick's notifications in host memory (page-locked staging owned by the device world,
// valid during the callback only): receivers [first_receiver, end_receiver) and their `count`
// notifications, the tick's first_notification-th onwards. Records: `notes`. Mailboxes: `mailbox`, and
// mailbox_start (end_receiver - first_receiver + 1 offsets into it, the first 0).
struct AoiChunk {
  std::uint32_t first_receiver = 0, end_receiver = 0;
  std::uint64_t first_notification = 0, count = 0;
  const AoiNotificationRec* notes = nullptr;
  const std::uint64_t* mailbox_start = nullptr;
  const AoiMailboxRec* mailbox = nullptr;
};
using AoiChunkConsumer = std::function<void(const AoiChunk&)>;

struct AoiTickCounts {
  std::size_t rejected[7] = {};  // indexed by warpmind::aoi::RejectReason
  std::size_t accepted = 0;
  std::size_t updates = 0, notifications = 0, entered = 0, left = 0;
  // Time per stage on the device's timeline (CUDA events): commands up, logic and merge, bucket sort
  // (with the neighbourhood lists), range query (gpu-sorted: the whole list in device memory; gpu-fast:
  // each receiver's count and offset, the list itself is written by deliver()), visibility and its
  // changes. A stage that reads a size back (a scan's total) or grows a buffer includes those host round
  // trips.
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
  // Copies the last tick's updates, enter / leave events and the players to the host. ms: time of the
  // device-to-host transfers (pinned staging).
  Status download(const AoiHostOutputs& out, double& ms);
  // Hands the last tick's notifications to `consume` in chunks of whole receivers, in receiver order,
  // every receiver in exactly one chunk (none when there are no players). A chunk holds at most `chunk`
  // notifications (>= 1) unless one receiver alone has more: its chunk then holds it whole. The next
  // chunk is written and copied while `consume` runs on the one before (two page-locked staging
  // buffers). ms_write: device time writing the notifications (gpu-fast) or packing the mailboxes;
  // ms_download: device time of the copies to the host.
  Status deliver(std::uint64_t chunk, const AoiChunkConsumer& consume, double& ms_write, double& ms_download);

  struct Impl;

 private:
  AoiDevice() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::gpu
