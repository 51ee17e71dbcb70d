/* warpmind's C API (target warpmind::c; C11, no C++ types): a context, potential-field layers, the crowd
 * solver, the area-of-interest world, the region matcher and the chess and Connect6 engines behind opaque
 * handles, and navigation fields.
 *
 * Conventions, for every call:
 * - Returns WM_OK or an error code; on error nothing the call would have changed has changed, and
 *   wm_last_error() holds a one-line message for a person. No call aborts or throws on bad arguments:
 *   a null handle or pointer, a count that does not match, a malformed string is an error code.
 * - Handles: created by wm_*_create, released by wm_*_destroy (null is accepted there and ignored).
 *   A context must outlive every handle created with it. Threads (warpmind/core/context.h states the
 *   rule): a handle is used by one thread at a time; different handles of one context may be used from
 *   different threads at once, their work taking turns on the context's thread pool and (CUDA) stream;
 *   for work that overlaps, give each thread its own context.
 * - Arrays passed in are read during the call only (the caller keeps ownership); arrays passed out are
 *   the caller's, of the size the call states. Strings and arrays returned by pointer (const) are owned by
 *   the handle and stay valid until the next call on that handle that is not a read-only query (a
 *   `const` handle parameter), or until it is destroyed.
 * - Every call blocks until its results are in the caller's memory (the GPU work included).
 * - Units: world units for positions and distances (the field's and the crowd's world rectangle);
 *   centipawns (chess) and window scores (Connect6) from the side to move for scores.
 */
#ifndef WARPMIND_WARPMIND_H
#define WARPMIND_WARPMIND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum wm_status {
  WM_OK = 0,
  WM_INVALID_ARGUMENT = 1, /* bad input: null handle or pointer, sizes, NaN, malformed text */
  WM_UNAVAILABLE = 2,      /* the requested backend cannot be used here (e.g. CUDA without a GPU) */
  WM_OUT_OF_MEMORY = 3,
  WM_INTERNAL = 4 /* a device call or another dependency failed unexpectedly */
} wm_status;

/* The message of the last failed call on this thread ("" when none failed yet). Valid until the next
 * failing call on this thread. */
const char* wm_last_error(void);

/* The library's version, "major.minor.patch". */
const char* wm_version(void);

/* ---- context ------------------------------------------------------------------------------------ */

typedef enum wm_backend { WM_BACKEND_AUTO = 0, WM_BACKEND_CPU = 1, WM_BACKEND_CUDA = 2 } wm_backend;
typedef struct wm_context wm_context;

/* AUTO: the GPU when one is usable, else the CPU threads (never fails for lack of a GPU). CUDA without a
 * usable GPU: WM_UNAVAILABLE. cpu_threads: 0 = one per hardware thread, at most 4096 (more:
 * WM_INVALID_ARGUMENT); threads the system cannot start: WM_UNAVAILABLE. Logs nothing. */
wm_status wm_context_create(wm_backend backend, unsigned cpu_threads, wm_context** out);

typedef enum wm_log_level { WM_LOG_INFO = 0, WM_LOG_WARNING = 1 } wm_log_level;
/* A log message: one line, no trailing newline, NUL-terminated and valid during the call only. Called on
 * the thread whose call logs (during wm_context_create_with itself for the backend choice); must not call
 * the library back. */
typedef void (*wm_log_fn)(void* user, wm_log_level level, const char* message);

typedef struct wm_context_options {
  wm_backend backend;   /* zero-initialised: WM_BACKEND_AUTO */
  unsigned cpu_threads; /* 0: one per hardware thread; at most 4096 */
  int cuda_device;      /* the device ordinal used when CUDA is chosen, >= 0; past the last device: CUDA
                           is unusable (WM_UNAVAILABLE for WM_BACKEND_CUDA, the CPU for AUTO) */
  wm_log_fn log;        /* where the library's messages go (the backend choice, the CPU fallback's reason);
                           null: nowhere */
  void* log_user;       /* passed to log unchanged */
} wm_context_options;

/* wm_context_create with every option; each is checked as above (a bad one: WM_INVALID_ARGUMENT, nothing
 * created). A zero-initialised wm_context_options is AUTO, every hardware thread, device 0, no log. */
wm_status wm_context_create_with(const wm_context_options* options, wm_context** out);
void wm_context_destroy(wm_context* ctx);
/* 1 when the context runs on the GPU, 0 otherwise (and for a null context). */
int wm_context_uses_gpu(const wm_context* ctx);

typedef struct wm_vec2 {
  float x, y;
} wm_vec2;

/* ---- potential-field layers (warpmind/field/field.h) ----------------------------------------------- */

typedef struct wm_field wm_field;

/* A charge kind: value(d) = intercept[k] + slope[k] * d for the first segment k with d <= end[k], 0
 * beyond the last end (its cut-off). 1..4 segments, ends increasing, |values| <= 1e6. */
typedef struct wm_charge_kind {
  int segments;
  float end[4], slope[4], intercept[4];
} wm_charge_kind;

/* In layer `layer`, the entities of group `group` exert kind `kind`. */
typedef struct wm_layer_rule {
  uint32_t layer, group, kind;
} wm_layer_rule;

typedef struct wm_field_config {
  float x0, y0, width, height; /* the world rectangle (width, height > 0) */
  int cells_x, cells_y;        /* grid resolution, 1..32768 each */
  const wm_charge_kind* kinds; /* 1..16 kinds */
  size_t kind_count;
  const wm_layer_rule* rules; /* layers are numbered 0..layer_count-1 */
  size_t rule_count;
  uint32_t layer_count; /* >= 1 */
} wm_field_config;

typedef struct wm_entity {
  float x, y;     /* world units, finite */
  uint32_t group; /* < 64 */
} wm_entity;

typedef struct wm_move {
  int cell_x, cell_y; /* the chosen cell */
  wm_vec2 target;     /* its centre */
  float value;        /* the field there */
} wm_move;

wm_status wm_field_create(wm_context* ctx, const wm_field_config* config, wm_field** out);
void wm_field_destroy(wm_field* field);
/* Builds every layer from `count` entities (count 0 is allowed: every layer zero). */
wm_status wm_field_build(wm_field* field, const wm_entity* entities, size_t count);
/* values[i] = the field of layer `layer` in the cell containing points[i] (points outside the world are
 * clamped to the border cell). */
wm_status wm_field_sample(wm_field* field, uint32_t layer, const wm_vec2* points, size_t count, float* values);
/* out[i] = the best cell of the window x window block around points[i] (window odd, 1..63; ties: the first
 * in row-major order). */
wm_status wm_field_best_move(wm_field* field, uint32_t layer, const wm_vec2* points, size_t count, int window,
                             wm_move* out);
/* out[i] = the field's gradient at points[i], in value per world unit. */
wm_status wm_field_gradient(wm_field* field, uint32_t layer, const wm_vec2* points, size_t count, wm_vec2* out);
/* Steering (FieldLayers::steer in field.h, bit for bit): points[i] steps towards the centre c of the best
 * cell of its window on layer layer_of[i] — out[i] = p + (c - p) / |c - p| * step when |c - p| > step, else
 * c. heading (NULL: none) gets atan2 of c - p where c != p and keeps its value elsewhere. A layer_of[i]
 * past the last layer leaves points[i] (and heading[i]) as they are. window odd, 1..63; step finite,
 * >= 0; else WM_INVALID_ARGUMENT and nothing written. */
wm_status wm_field_steer(wm_field* field, const wm_vec2* points, const uint8_t* layer_of, size_t count, int window,
                         float step, wm_vec2* out, float* heading);

/* ---- crowd solver (warpmind/crowd/crowd_solver.h) ---------------------------------------------------- */

typedef struct wm_crowd wm_crowd;

typedef struct wm_crowd_stats {
  size_t moved, stayed, out_of_world, blocked, collisions, too_far;
} wm_crowd_stats;

/* Agents are discs of `radius` (> 0) in the world rectangle; no obstacles. */
wm_status wm_crowd_create(wm_context* ctx, float x0, float y0, float width, float height, float radius, wm_crowd** out);
void wm_crowd_destroy(wm_crowd* crowd);
/* Sets the agents 0..count-1; rejects positions outside the world, not finite, or closer than two radii. */
wm_status wm_crowd_reset(wm_crowd* crowd, const wm_vec2* positions, size_t count);
/* One tick: proposals[i] is agent i's target (count must be the number of agents). An agent moves there
 * unless that would overlap another agent, leave the world, pass through a blocked cell or exceed its
 * maximum step; then it stays (WM_CROWD_AVOID: it slides or sidesteps, crowd_solver.h). A non-finite
 * proposal is that agent's WM_VERDICT_OUT_OF_WORLD; the others proceed. */
wm_status wm_crowd_step(wm_crowd* crowd, const wm_vec2* proposals, size_t count, wm_crowd_stats* stats);
/* positions (room for count = the number of agents). */
wm_status wm_crowd_positions(const wm_crowd* crowd, wm_vec2* positions, size_t count);
size_t wm_crowd_size(const wm_crowd* crowd);

/* The whole CrowdConfig: obstacles, the rule and the variant (their contracts in crowd_solver.h). */
typedef enum wm_crowd_rule {
  WM_CROWD_STRICT = 0,        /* a target conflict with any other agent's target rejects both */
  WM_CROWD_LOWEST_ID_WINS = 1 /* of agents wanting one spot, the lowest id may win (lockstep games) */
} wm_crowd_rule;
typedef enum wm_crowd_variant {
  WM_CROWD_AUTO = 0, /* gpu-static-grid on a CUDA context, cpu-reference on a CPU one */
  WM_CROWD_CPU_REFERENCE = 1,
  WM_CROWD_GPU_SORT = 2,
  WM_CROWD_GPU_TILED = 3,
  WM_CROWD_GPU_STATIC_GRID = 4
} wm_crowd_variant;
typedef enum wm_crowd_movement {
  WM_CROWD_ACCEPT_REJECT = 0, /* a move is accepted as proposed or the agent stays (the seed's experiment) */
  WM_CROWD_AVOID = 1          /* a refused agent slides or sidesteps (cpu-reference and gpu-static-grid) */
} wm_crowd_movement;
typedef struct wm_crowd_config {
  float x0, y0, width, height; /* the world: finite, width and height > 0 */
  float radius;                /* > 0 */
  /* Static obstacles: a grid of obstacles_width x obstacles_height cells over the world, blocked[y *
   * obstacles_width + x] != 0 blocks (copied at creation). 0 x 0 and NULL: none. */
  int obstacles_width, obstacles_height;
  const uint8_t* blocked;
  wm_crowd_rule rule;
  wm_crowd_variant variant;   /* a GPU variant on a CPU context: WM_UNAVAILABLE */
  wm_crowd_movement movement; /* 0 (zero-initialised): WM_CROWD_ACCEPT_REJECT */
  float max_step;             /* every agent's maximum step a tick; 0: none (WM_CROWD_AVOID: > 0, <= 64 radius) */
  /* The smallest radius an agent may be given (wm_crowd_reset_agents): 0 (zero-initialised: every agent
   * has `radius`) or in [radius / 4, radius]; `radius` is then the largest. */
  float min_radius;
} wm_crowd_config;
/* Verdicts of an agent's last step (crowd_solver.h: the first that applies, in this order). */
enum {
  WM_VERDICT_MOVED = 0,
  WM_VERDICT_STAYED = 1,
  WM_VERDICT_OUT_OF_WORLD = 2,
  WM_VERDICT_BLOCKED = 3,
  WM_VERDICT_COLLISION = 4,
  WM_VERDICT_TOO_FAR = 5 /* longer than the agent's maximum step (WM_CROWD_ACCEPT_REJECT) */
};

/* As wm_crowd_create with every setting; a rule, variant or movement outside its enum, negative or partial
 * obstacle sizes, a NULL `blocked` with cells, or a max_step that is not finite and >= 0 (WM_CROWD_AVOID:
 * > 0 and <= 64 radius): WM_INVALID_ARGUMENT; WM_CROWD_AVOID on gpu-sort or gpu-tiled: WM_UNAVAILABLE. wm_crowd_create(ctx, x0, y0, w, h,
 * r, out) is this with no obstacles, WM_CROWD_STRICT and WM_CROWD_AUTO. */
wm_status wm_crowd_create_with(wm_context* ctx, const wm_crowd_config* config, wm_crowd** out);
/* The last step's verdicts, one WM_VERDICT_* a byte (room for count = the number of agents; all
 * WM_VERDICT_STAYED before the first step). */
wm_status wm_crowd_verdicts(const wm_crowd* crowd, uint8_t* verdicts, size_t count);
/* Removes the agents whose keep[i] is 0 (count = the number of agents); the others keep their order and
 * ids and move down to slots 0..m-1 (without re-checking pairs). */
wm_status wm_crowd_retain(wm_crowd* crowd, const uint8_t* keep, size_t count);
/* Agents have stable ids (crowd_solver.h): wm_crowd_reset gives 0..n-1; wm_crowd_spawn appends count agents
 * after the last slot, each checked as wm_crowd_reset checks them (against every agent, old and new; on
 * error nothing changes), with the next unused ids, written to ids (count uint32, or NULL); max_steps as
 * for wm_crowd_reset_steps (NULL: the config's). wm_crowd_despawn removes the agents of these ids (an
 * unknown or repeated id: WM_INVALID_ARGUMENT, nothing changes). wm_crowd_ids: every agent's id by slot
 * (count = the number of agents); ids increase with the slot. */
wm_status wm_crowd_spawn(wm_crowd* crowd, const wm_vec2* positions, const float* max_steps, size_t count,
                         uint32_t* ids);
wm_status wm_crowd_despawn(wm_crowd* crowd, const uint32_t* ids, size_t count);
wm_status wm_crowd_ids(const wm_crowd* crowd, uint32_t* ids, size_t count);
/* Save and restore (format in crowd_solver.h): wm_crowd_save points *bytes at the crowd's state (*size
 * bytes, owned by the crowd, valid until its next wm_crowd_save or its destruction); wm_crowd_restore
 * puts such bytes back into a crowd of the same settings (any variant), bit for bit. Bytes that are not a
 * valid state of this crowd: WM_INVALID_ARGUMENT, nothing changes. */
wm_status wm_crowd_save(wm_crowd* crowd, const uint8_t** bytes, size_t* size);
wm_status wm_crowd_restore(wm_crowd* crowd, const uint8_t* bytes, size_t size);
/* As wm_crowd_reset with each agent's own maximum step (count floats, finite, >= 0; 0: the config's
 * max_step; under WM_CROWD_AVOID at most 64 radius); max_steps NULL: every agent the config's. */
wm_status wm_crowd_reset_steps(wm_crowd* crowd, const wm_vec2* positions, const float* max_steps, size_t count);
/* Agents of several sizes: as wm_crowd_reset_steps and wm_crowd_spawn with each agent's own radius too
 * (count floats, each 0 for the config's radius or in [min_radius, radius]; a config with min_radius 0
 * takes only 0 and radius); radii NULL: every agent the config's radius. Two agents keep the sum of their
 * radii apart (crowd_solver.h). wm_crowd_radii: every agent's radius by slot (count = the number of
 * agents). */
wm_status wm_crowd_reset_agents(wm_crowd* crowd, const wm_vec2* positions, const float* max_steps, const float* radii,
                                size_t count);
wm_status wm_crowd_spawn_agents(wm_crowd* crowd, const wm_vec2* positions, const float* max_steps, const float* radii,
                                size_t count, uint32_t* ids);
wm_status wm_crowd_radii(const wm_crowd* crowd, float* radii, size_t count);

/* ---- combat (warpmind/combat/combat.h) ------------------------------------------------------------------ */

/* Volleys of an RTS battle: every ready weapon fires at the nearest enemy in range, damage lands at once,
 * the dead leave (the exact rule, ties and rounding: combat.h). */
typedef struct wm_combat wm_combat;
typedef enum wm_combat_variant { WM_COMBAT_AUTO = 0, WM_COMBAT_CPU = 1, WM_COMBAT_GPU = 2 } wm_combat_variant;
typedef struct wm_combat_config {
  float x0, y0, width, height; /* where the units stand: finite, width and height > 0 */
  float range;                 /* weapon range: finite, > 0 */
  float damage;                /* per shot: finite, >= 0 */
  int cooldown_ticks;          /* ticks a weapon rests after firing: 0..2^30 */
  wm_combat_variant variant;   /* WM_COMBAT_GPU on a CPU context: WM_UNAVAILABLE */
} wm_combat_config;

wm_status wm_combat_create(wm_context* ctx, const wm_combat_config* config, wm_combat** out);
void wm_combat_destroy(wm_combat* combat);
/* Units 0..count-1 with these teams (0..255) and HP (finite, > 0), cooldowns 0. */
wm_status wm_combat_reset(wm_combat* combat, const uint8_t* teams, const float* hp, size_t count);
/* One volley on the units' positions (count = the number of units, finite); keep[i] (count bytes) is 1
 * for a survivor and 0 for a unit that died. Afterwards the survivors are units 0..m-1 in their order —
 * pass the same flags to wm_crowd_retain to keep a crowd in step. */
wm_status wm_combat_fire(wm_combat* combat, const wm_vec2* positions, size_t count, uint8_t* keep);
size_t wm_combat_size(const wm_combat* combat);
/* The units' state (room for count = the number of units in each array given; any may be NULL). */
wm_status wm_combat_state(const wm_combat* combat, uint8_t* teams, float* hp, int32_t* cooldown, size_t count);

/* ---- area of interest (warpmind/aoi/aoi.h) --------------------------------------------------------------- */

typedef struct wm_aoi wm_aoi;

typedef enum wm_aoi_shape { WM_AOI_SQUARE = 0, WM_AOI_CIRCLE = 1 } wm_aoi_shape;
typedef enum wm_aoi_variant {
  WM_AOI_AUTO = 0, /* the context's backend: gpu-fast on CUDA, cpu-fast on the CPU */
  WM_AOI_CPU_GRID = 1,
  WM_AOI_CPU_FAST = 2,
  WM_AOI_GPU_SORTED = 3, /* needs a CUDA context */
  WM_AOI_GPU_FAST = 4,   /* needs a CUDA context */
  WM_AOI_GPU_SEED = 3    /* WM_AOI_GPU_SORTED's old name, kept for one release */
} wm_aoi_variant;

typedef struct wm_aoi_config {
  float x0, y0, width, height; /* the world rectangle (width, height > 0) */
  float aoi;                   /* bucket side (square) or radius (circle), > 0, at most 10^8 buckets */
  wm_aoi_shape shape;
  float max_move;       /* largest |dx| and |dy| of a move command */
  float attack_range;   /* an attack's target must be within it (squared distance <=, in float) */
  int track_visibility; /* 1: enter/leave events each tick; 0: none */
  wm_aoi_variant variant;
  uint64_t chunk_notifications; /* wm_aoi_tick_chunked's chunk bound; 0: the default, 2^25 */
} wm_aoi_config;

typedef struct wm_player {
  float x, y; /* inside the world */
  int32_t hp; /* >= 0 */
} wm_player;

/* A heal raises its own player's HP by `damage` (a tick's attacks and heals of one player add up exactly,
   the HP clamped into [0, 2^31 - 1]): how a server gives a new or respawned player its starting HP. */
typedef enum wm_command_type { WM_COMMAND_MOVE = 0, WM_COMMAND_ATTACK = 1, WM_COMMAND_HEAL = 2 } wm_command_type;

typedef struct wm_command {
  uint32_t player;
  uint32_t type;   /* a wm_command_type; any other value is rejected as an unknown type */
  float dx, dy;    /* move */
  uint32_t target; /* attack */
  int32_t damage;  /* attack: HP taken from the target; heal: HP given to the player; >= 0 */
} wm_command;

/* field: 0 = x, 1 = y (value: float bits, see wm_aoi_value_float), 2 = hp (value: int32 bits). */
typedef struct wm_notification {
  uint32_t receiver, subject, field, value;
} wm_notification;

typedef struct wm_visibility_event {
  uint32_t receiver, other;
} wm_visibility_event;

typedef struct wm_aoi_tick_stats {
  size_t accepted;
  size_t rejected[7]; /* by reason: unknown player, unknown type, bad move, unknown target, self attack,
                         target out of range, bad damage (a command counts once, under the first) */
  size_t updates, notifications, entered, left;
  double ms_logic, ms_query, ms_visibility; /* where the tick's time went (wall time, or device time on GPU) */
} wm_aoi_tick_stats;

/* The MMO tick of warpmind/aoi/aoi.h, whose contract applies in full (validation order, merge, clamping,
 * the AOI rule, ordering). Every variant returns the same results. */
wm_status wm_aoi_create(wm_context* ctx, const wm_aoi_config* config, wm_aoi** out);
void wm_aoi_destroy(wm_aoi* aoi);
/* Sets players 0..count-1 (and the visibility the next tick's events compare with). */
wm_status wm_aoi_reset(wm_aoi* aoi, const wm_player* players, size_t count);
/* Save and restore (format in warpmind/aoi/aoi.h): wm_aoi_save points *bytes at the world's players and
 * config fingerprint (*size bytes, owned by the handle, valid until its next wm_aoi_save or its
 * destruction); wm_aoi_restore puts such bytes back into a world of the same settings (any variant), bit
 * for bit, as wm_aoi_reset would. Bytes that are not a valid state of this world: WM_INVALID_ARGUMENT,
 * nothing changes. */
wm_status wm_aoi_save(wm_aoi* aoi, const uint8_t** bytes, size_t* size);
wm_status wm_aoi_restore(wm_aoi* aoi, const uint8_t* bytes, size_t size);
/* One tick over `count` commands (count 0 is allowed). Invalid commands are counted, never an error. */
wm_status wm_aoi_tick(wm_aoi* aoi, const wm_command* commands, size_t count, wm_aoi_tick_stats* stats);
/* The last tick's notifications, sorted by (receiver, subject, field): *out points into the handle
 * (valid until the next wm_aoi_tick/wm_aoi_reset/wm_aoi_destroy); *count their number. */
wm_status wm_aoi_notifications(const wm_aoi* aoi, const wm_notification** out, size_t* count);
/* A slice of a tick's notifications handed to a wm_notification_sink: receivers [first_receiver,
 * end_receiver) and all their notifications (sorted as above), the tick's first_notification-th onwards.
 * `notifications` points into the handle and is valid during the callback only. */
typedef struct wm_notification_chunk {
  uint32_t first_receiver, end_receiver;
  uint64_t first_notification;
  const wm_notification* notifications;
  size_t count;
} wm_notification_chunk;
typedef void (*wm_notification_sink)(const wm_notification_chunk* chunk, void* user);
/* The tick of wm_aoi_tick, its notifications handed to `sink` (with `user`) in chunks instead of kept
 * (wm_aoi_notifications then reports none): every receiver in exactly one chunk, in receiver order, a
 * chunk holding whole receivers and at most config.chunk_notifications notifications unless one receiver
 * alone has more (AoiConfig::chunk_notifications in warpmind/aoi/aoi.h). Called on the calling thread
 * before this returns, after the tick's other results are in the handle; it must not call the handle. So
 * a tick of any size runs in bounded memory (gpu-fast: two chunks on the device and two page-locked).
 * stats->notifications counts them all. */
wm_status wm_aoi_tick_chunked(wm_aoi* aoi, const wm_command* commands, size_t count, wm_notification_sink sink,
                              void* user, wm_aoi_tick_stats* stats);
/* The last tick's enter and leave events, each sorted by (receiver, other); pointers as above. */
wm_status wm_aoi_visibility(const wm_aoi* aoi, const wm_visibility_event** entered, size_t* entered_count,
                            const wm_visibility_event** left, size_t* left_count);
/* The players after the last tick (room for count = the number of players). */
wm_status wm_aoi_players(const wm_aoi* aoi, wm_player* players, size_t count);
size_t wm_aoi_size(const wm_aoi* aoi);
/* A notification's value as the float it carries (fields x and y) or the int (hp). */
float wm_aoi_value_float(uint32_t value);
int32_t wm_aoi_value_int(uint32_t value);

/* ---- region matching (warpmind/ddm/ddm.h) ------------------------------------------------------------ */

typedef struct wm_regions wm_regions;

typedef enum wm_region_kind { WM_PUBLICATION = 0, WM_SUBSCRIPTION = 1 } wm_region_kind;
typedef enum wm_ddm_variant {
  WM_DDM_AUTO = 0, /* the context's backend: gpu-grid on CUDA, cpu-sort on the CPU */
  WM_DDM_CPU_BRUTE = 1,
  WM_DDM_CPU_SORT = 2,
  WM_DDM_GPU_REGION = 3, /* needs a CUDA context */
  WM_DDM_GPU_GRID = 4    /* needs a CUDA context */
} wm_ddm_variant;

typedef struct wm_pair {
  uint32_t publication, subscription;
} wm_pair;

/* Boxes are half-open [lo, hi) on every axis; two boxes overlap iff lo_a < hi_b and lo_b < hi_a and both
 * are non-empty on every axis (a zero-width box overlaps nothing). dimensions: 2 or 3. grid_cell: the
 * gpu-grid variant's cell side (0: chosen from the subscriptions; speed only, never the pairs). */
wm_status wm_regions_create(wm_context* ctx, int dimensions, wm_ddm_variant variant, float grid_cell, wm_regions** out);
void wm_regions_destroy(wm_regions* r);
/* lo and hi: `dimensions` floats each, finite, lo <= hi. Ids are never reused. */
wm_status wm_regions_add(wm_regions* r, wm_region_kind kind, const float* lo, const float* hi, uint32_t* id);
wm_status wm_regions_update(wm_regions* r, uint32_t id, const float* lo, const float* hi);
/* Many regions at once: region ids[i] gets the box lo[i * dimensions ...], hi[i * dimensions ...] for
 * i < count (lo and hi: count * dimensions floats each), all or nothing: an unknown or removed id, a bad
 * box, or an id given twice in one call is WM_INVALID_ARGUMENT naming the first offending index ("batch
 * index i"), and nothing changes. count 0 does nothing (the pointers may then be null). Large batches run
 * on the context's threads; ascending ids are the cheapest. The arrays are only read during the call. */
wm_status wm_regions_update_many(wm_regions* r, const uint32_t* ids, size_t count, const float* lo, const float* hi);
wm_status wm_regions_remove(wm_regions* r, uint32_t id);
/* Every overlapping pair, sorted by (publication, subscription). *pairs points into the handle, valid
 * until the next non-const call on it. */
wm_status wm_regions_match(wm_regions* r, const wm_pair** pairs, size_t* count);
/* The pairs that appeared and disappeared since the previous match or match_changes (the first call
 * compares with no pairs), each list sorted; pointers as above. */
wm_status wm_regions_match_changes(wm_regions* r, const wm_pair** appeared, size_t* appeared_count,
                                   const wm_pair** disappeared, size_t* disappeared_count);
size_t wm_regions_count(const wm_regions* r, wm_region_kind kind);

/* ---- chess (warpmind/search/chess_search.h) ------------------------------------------------------- */

typedef struct wm_chess wm_chess;

typedef struct wm_search_limits {
  int depth;       /* plies (1..64); 0: no depth limit */
  int64_t time_ms; /* 0: no time limit */
  uint64_t nodes;  /* 0: no node limit */
} wm_search_limits;

typedef struct wm_search_result {
  char move[8];     /* the best move: UCI long algebraic ("e2e4", "e7e8q"), or Connect6 letters ("JJKK");
                        "" when the side to move has none */
  int score, depth; /* score from the side to move; the last completed depth (see the scores below) */
  uint64_t nodes;
} wm_search_result;
/* Scores, from the side to move's view (positive: good for it).
 * Chess: centipawns; a mate is +-(32000 - n) where n is the number of plies to it from the searched
 *   position (so |score| > 31000 reads "mate in 32000 - |score| plies": 31999 mates with the move
 *   played); a draw is 0.
 * Connect6: the six-window evaluation (search.md); +-1000000 is a six made, a win proven by the search
 *   scores at least 500000 (1000000 minus its depth, or 999999 for a threat sequence found), a loss the
 *   negative.
 * Connect6 notation: a cell is a column and a row, (x, y) with x, y in 0..18; in letters "AA".."SS" (the
 * column's letter, then the row's: "JJ" is the centre, x = y = 9), in the human form the column's letter
 * without I ("A".."T") and the row's number from 1 ("K10" is the centre). A turn is two cells ("JJKK",
 * "K10L11") or, for Black's opening, one. Moves and turns are read in either form, in upper or lower
 * case; results are written in letters. */

/* hash_mb 1..65536, threads >= 1 (more: Lazy SMP). The position starts as the standard start; the
 * evaluation is the built-in network (warpmind/search/chess_network.h). */
wm_status wm_chess_create(wm_context* ctx, int hash_mb, int threads, wm_chess** out);
/* The evaluation: network 0 = the classical one; 1 = a network, from `file` (a warpmind network file) or
 * the built-in one when `file` is NULL. A file that cannot be read or is not a network:
 * WM_INVALID_ARGUMENT (wm_last_error says why), the evaluation unchanged. Clears the search's table. */
wm_status wm_chess_set_evaluation(wm_chess* chess, int network, const char* file);
void wm_chess_destroy(wm_chess* chess);
/* The position: a FEN (NULL: the start position), then moves in UCI notation separated by spaces (NULL or
 * "": none). A bad FEN or an illegal move: WM_INVALID_ARGUMENT, the position unchanged. */
wm_status wm_chess_set_position(wm_chess* chess, const char* fen, const char* moves);
/* Searches the position (alpha-beta, iterative deepening) until a limit is reached; no limit at all
 * means depth 8. The move is legal whatever the limits ("" only when the side to move has none). */
wm_status wm_chess_search(wm_chess* chess, const wm_search_limits* limits, wm_search_result* out);

/* ---- Connect6 (warpmind/search/connect6.h) --------------------------------------------------------- */

typedef struct wm_connect6 wm_connect6;

/* threads >= 1 (more: the root turns split over them). The board starts empty. */
wm_status wm_connect6_create(wm_context* ctx, int threads, wm_connect6** out);
void wm_connect6_destroy(wm_connect6* c6);
/* Plays turns from the empty board: turns in either notation separated by spaces ("JJ KKLL", "K10 L11M12";
 * NULL or "": none). An illegal turn: WM_INVALID_ARGUMENT, the board unchanged. */
wm_status wm_connect6_set_position(wm_connect6* c6, const char* turns);
/* Searches the side to move's turn (limits.depth in turns, 1..20, 0: 3; limits.nodes is ignored); the
 * game must not be over (else WM_INVALID_ARGUMENT). */
wm_status wm_connect6_search(wm_connect6* c6, const wm_search_limits* limits, wm_search_result* out);

/* ---- many positions at once (warpmind/search/search_many.h) ------------------------------------------ */

/* A game server's AI opponents: a move for each of many positions in one call. Every position gets the
 * negamax of a fixed depth (1..16 plies, Connect6: turns) with the classical evaluation, no extensions,
 * reductions or quiescence, and the first move in the game's order whose value is the position's. On the
 * GPU when the handle was made on a CUDA context, else on the context's CPU threads: both give the same
 * move and score for every position. */
typedef struct wm_tables wm_tables;
typedef enum wm_game { WM_GAME_CHESS = 0, WM_GAME_CONNECT6 = 1 } wm_game;
/* width: Connect6's candidate turns per node, 1..128 (ignored for chess). On a CUDA context the GPU's
 * buffers are made here (an error if they cannot be). */
wm_status wm_tables_create(wm_context* ctx, wm_game game, int width, wm_tables** out);
void wm_tables_destroy(wm_tables* t);
/* positions[i]: chess, a FEN; Connect6, the turns from the empty board as wm_connect6_set_position takes
 * them. results[i]: the move ("" when the game is over there; the score is then the final one), the score
 * from the side to move, depth = `depth`, nodes = 0. *nodes (when not NULL): every node the call visited.
 * A position that does not parse: WM_INVALID_ARGUMENT naming its index ("positions[i]: ..."), nothing
 * written. count 0 does nothing. */
wm_status wm_tables_search(wm_tables* t, const char* const* positions, size_t count, int depth,
                           wm_search_result* results, uint64_t* nodes);

/* ---- navigation fields (warpmind/nav/nav.h, grid.h) ----------------------------------------------- */

/* A Moving AI map (text, NUL-terminated; the format of warpmind/nav/grid.h) read into *width, *height
 * and, when costs is not NULL, costs[y * width + x] (0 blocked, 1 passable) — capacity cells at least,
 * else WM_INVALID_ARGUMENT (with *width and *height set, so a first call with costs NULL sizes the
 * second). A malformed map: WM_INVALID_ARGUMENT naming its line, nothing written. */
wm_status wm_nav_read_map(const char* text, int* width, int* height, uint8_t* costs, size_t capacity);
/* The fields of goal_count goals (goals[2g], goals[2g + 1]: the column and row of goal g) on a
 * width x height grid of costs (row-major; 0 blocked, 1..255 the cost of stepping into the cell; at most
 * 2^24 cells): distances[g * cells + c], the float32 walking distance nav.h defines (+infinity where the
 * goal cannot be reached and on blocked cells), and, when directions is not NULL, directions[g * cells + c]
 * (0..7: E, SE, S, SW, W, NW, N, NE, y growing with the row; -1: none). Both hold goal_count * cells
 * values. A goal outside the grid or on a blocked cell: WM_INVALID_ARGUMENT, nothing written. On the
 * GPU with a CUDA context, on the context's CPU threads otherwise: the same bits. */
wm_status wm_nav_fields(wm_context* ctx, int width, int height, const uint8_t* costs, const int32_t* goals,
                        size_t goal_count, float* distances, int8_t* directions);
/* The field of a goal set (nav.h's goal_set_field): one field, distances[c] the walk from cell c to the
 * nearest of the goal_count goals (pairs as wm_nav_fields'; none: +infinity everywhere), directions[c]
 * (or NULL) by the same rule, none on a goal. Both hold width * height values; errors and variants as
 * wm_nav_fields. */
wm_status wm_nav_goal_set_field(wm_context* ctx, int width, int height, const uint8_t* costs, const int32_t* goals,
                                size_t goal_count, float* distances, int8_t* directions);
/* Steering by one goal's field (its width * height distances and directions, as wm_nav_fields writes
 * them): for each of `count` positions in cell units (cell (x, y) covers [x, x + 1) x [y, y + 1)),
 * steer[i] = the unit vector of its cell's direction (a diagonal's components the float nearest
 * 1 / sqrt(2)) and dist[i] = the cell's distance; outside the grid or not finite: (0, 0) and +infinity;
 * a cell without a direction: (0, 0). */
wm_status wm_nav_steer(int width, int height, const float* distances, const int8_t* directions,
                       const wm_vec2* positions, size_t count, wm_vec2* steer, float* dist);

/* What a field gives a passable cell that cannot reach the goal (nav.h's Unreachable): +infinity and no
 * direction, or the field of its component's cell nearest the goal in a straight line. */
typedef enum { WM_NAV_UNREACHABLE_INFINITY = 0, WM_NAV_UNREACHABLE_NEAREST_CELL = 1 } wm_nav_unreachable;
/* wm_nav_fields (goal_set 0) or wm_nav_goal_set_field (goal_set 1) with the unreachable option, a
 * wm_nav_unreachable value passed as an int. Any other value: WM_INVALID_ARGUMENT, nothing written. */
wm_status wm_nav_fields_with(wm_context* ctx, int width, int height, const uint8_t* costs, const int32_t* goals,
                             size_t goal_count, int goal_set, int unreachable, float* distances, int8_t* directions);

/* Unit sizes (warpmind/nav/clearance.h). clearance[c] (width * height values): 0 on a blocked cell, else
 * the Chebyshev distance to the nearest blocked or outside cell. class_costs (width * height values): the
 * grid of size class `size_class` (>= 1): a cell's cost where its clearance is at least the class, 0
 * elsewhere; its fields route no unit of the class through a narrower gap. wm_nav_size_class: the class
 * of a disc of radius `radius_cells` (cell units), max(1, ceil(r + 0.5)); negative, not finite or beyond
 * any grid: WM_INVALID_ARGUMENT. */
wm_status wm_nav_clearance(int width, int height, const uint8_t* costs, uint16_t* clearance);
wm_status wm_nav_class_costs(int width, int height, const uint8_t* costs, int size_class, uint8_t* class_costs);
wm_status wm_nav_size_class(double radius_cells, int* size_class);

/* Line of sight and waypoints (warpmind/nav/sight.h). wm_nav_line_of_sight: *visible = 1 when the segment
 * between the centres of (ax, ay) and (bx, by) walks only passable cells (the crowd's wall rule), else 0.
 * wm_nav_waypoints: for one field (distances and directions as wm_nav_goal_set_field writes them),
 * waypoints[c] = the row-major cell a unit in c heads for (0xFFFFFFFF: none); a field that is not one of
 * the grid's: WM_INVALID_ARGUMENT. wm_nav_steer_waypoints: as wm_nav_steer, toward the waypoint's centre. */
wm_status wm_nav_line_of_sight(int width, int height, const uint8_t* costs, int ax, int ay, int bx, int by,
                               int* visible);
wm_status wm_nav_waypoints(wm_context* ctx, int width, int height, const uint8_t* costs, const float* distances,
                           const int8_t* directions, uint32_t* waypoints);
wm_status wm_nav_steer_waypoints(int width, int height, const float* distances, const uint32_t* waypoints,
                                 const wm_vec2* positions, size_t count, wm_vec2* steer, float* dist);

/* Navigation fields kept up to date as cells change (warpmind/nav/nav_fields.h; the context's CPU
 * threads on every backend). Created from a grid and goals as wm_nav_fields takes them. update applies
 * `count` changes, changes[3k .. 3k + 2] = (column, row, new cost 0..255; 0 blocks), a later change of a
 * cell winning; afterwards every field equals wm_nav_fields on the changed grid, bit for bit. A change
 * outside the grid, a cost outside 0..255 or one blocking a goal: WM_INVALID_ARGUMENT, nothing changes.
 * wm_navfields_read writes goal `goal`'s width * height distances and (when not NULL) directions; `cells`
 * must be width * height of the current grid. wm_navfields_size gives the grid's width and height and the
 * number of goals (any pointer may be NULL). save points *bytes at the updated grid and the goals (*size
 * bytes, owned by the handle, valid until its next save or its destruction; format in nav_fields.h);
 * restore replaces the handle's grid and goals with saved ones (any size) and computes their fields. Bytes
 * that are not such a state: WM_INVALID_ARGUMENT, nothing changes. */
typedef struct wm_navfields wm_navfields;
wm_status wm_navfields_create(wm_context* ctx, int width, int height, const uint8_t* costs, const int32_t* goals,
                              size_t goal_count, wm_navfields** out);
void wm_navfields_destroy(wm_navfields* fields);
wm_status wm_navfields_update(wm_navfields* fields, const int32_t* changes, size_t count);
wm_status wm_navfields_size(const wm_navfields* fields, int* width, int* height, size_t* goals);
wm_status wm_navfields_read(const wm_navfields* fields, size_t goal, float* distances, int8_t* directions,
                            size_t cells);
wm_status wm_navfields_save(wm_navfields* fields, const uint8_t** bytes, size_t* size);
wm_status wm_navfields_restore(wm_navfields* fields, const uint8_t* bytes, size_t size);

/* ---- the world map (warpmind/world/world_map.h) -------------------------------------------------- */

/* One map of walls and terrain for the crowd, the navigation fields and the field: width x height cells
 * over the world rectangle (x0, y0, w, h), every cell cost 1 (0 blocked, 1..255 passable). Shapes paint
 * cells with a cost (0 for a wall), the last drawn winning: a rectangle's cells whose centre lies in
 * [lo, hi); a line's supercover (every cell it passes through, both side cells at an exact corner) plus
 * the cells whose centre is within thickness / 2; a polygon's cells whose centre is inside (even-odd)
 * plus its outline. A non-finite coordinate, a negative thickness, a polygon of fewer than 3 points or
 * too many crossings: WM_INVALID_ARGUMENT, the map unchanged. wm_world_costs copies the costs (count =
 * width * height, row-major: a wm_crowd_config's blocked cells are those of cost 0, wm_nav_fields takes
 * them as they are); wm_world_walls writes the field entities of the walls' surface (a blocked cell with
 * a passable 4-neighbour, at its centre, the given group < 64): with walls NULL, *count receives how many
 * there are; else up to capacity are written and *count is the total (WM_INVALID_ARGUMENT when more than
 * capacity, nothing written). */
typedef struct wm_world wm_world;
wm_status wm_world_create(float x0, float y0, float w, float h, int width, int height, wm_world** out);
void wm_world_destroy(wm_world* world);
wm_status wm_world_fill_rect(wm_world* world, wm_vec2 lo, wm_vec2 hi, uint8_t cost);
wm_status wm_world_draw_line(wm_world* world, wm_vec2 a, wm_vec2 b, float thickness, uint8_t cost);
wm_status wm_world_fill_polygon(wm_world* world, const wm_vec2* points, size_t count, uint8_t cost);
wm_status wm_world_costs(const wm_world* world, uint8_t* costs, size_t count);
wm_status wm_world_walls(const wm_world* world, uint32_t group, wm_entity* walls, size_t capacity, size_t* count);

#ifdef __cplusplus
}
#endif

#endif /* WARPMIND_WARPMIND_H */
