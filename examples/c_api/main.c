/* warpmind from plain C (C11) through the C API: a squad walks to a rally point over a potential field
 * with the crowd solver keeping its members apart; its members' moves go through an AOI world (who is
 * told about whom) and their sight boxes through the region matcher; then the chess engine answers 1. e4
 * and the Connect6 engine answers Black's opening stone. Exits 1 if anything fails or the squad did not
 * arrive. */
#include <math.h>
#include <stdio.h>

#include <warpmind/warpmind.h>

#define CHECK(call)                                               \
  do {                                                            \
    if ((call) != WM_OK) {                                        \
      fprintf(stderr, "%s failed: %s\n", #call, wm_last_error()); \
      return 1;                                                   \
    }                                                             \
  } while (0)

enum { kSquad = 40 };

int main(void) {
  wm_context* ctx = NULL;
  CHECK(wm_context_create(WM_BACKEND_AUTO, 0, &ctx));
  printf("warpmind %s on the %s\n", wm_version(), wm_context_uses_gpu(ctx) ? "GPU" : "CPU");

  /* One layer: the rally point (group 1) attracts with 200 - d up to 200 world units. */
  wm_charge_kind attract = {1, {200.0f}, {-1.0f}, {200.0f}};
  wm_layer_rule rule = {0, 1, 0};
  wm_field_config fc = {0.0f, 0.0f, 128.0f, 128.0f, 128, 128, &attract, 1, &rule, 1, 1};
  wm_field* field = NULL;
  CHECK(wm_field_create(ctx, &fc, &field));
  wm_crowd* crowd = NULL;
  CHECK(wm_crowd_create(ctx, 0.0f, 0.0f, 128.0f, 128.0f, 0.5f, &crowd));

  wm_vec2 squad[kSquad], proposals[kSquad];
  wm_move moves[kSquad];
  for (int i = 0; i < kSquad; ++i) squad[i] = (wm_vec2){5.0f + 2.0f * (float)(i % 8), 5.0f + 2.0f * (float)(i / 8)};
  CHECK(wm_crowd_reset(crowd, squad, kSquad));
  const wm_entity rally = {100.0f, 100.0f, 1};
  CHECK(wm_field_build(field, &rally, 1)); /* the field does not change: built once */
  for (int tick = 0; tick < 200; ++tick) {
    CHECK(wm_field_best_move(field, 0, squad, kSquad, 3, moves));
    for (int i = 0; i < kSquad; ++i) proposals[i] = moves[i].target;
    wm_crowd_stats stats;
    CHECK(wm_crowd_step(crowd, proposals, kSquad, &stats));
    CHECK(wm_crowd_positions(crowd, squad, kSquad));
  }
  double mean = 0;
  for (int i = 0; i < kSquad; ++i) mean += hypot(squad[i].x - rally.x, squad[i].y - rally.y) / kSquad;
  printf("squad: mean distance to the rally point %.1f\n", mean);

  /* The squad as players of an AOI world: one tick of moves, then who was told about whom. */
  wm_aoi_config ac = {0.0f, 0.0f, 128.0f, 128.0f, 8.0f, WM_AOI_CIRCLE, 2.0f, 8.0f, 1, WM_AOI_AUTO};
  wm_aoi* aoi = NULL;
  CHECK(wm_aoi_create(ctx, &ac, &aoi));
  wm_player players[kSquad];
  wm_command commands[kSquad];
  for (int i = 0; i < kSquad; ++i) {
    players[i] = (wm_player){squad[i].x, squad[i].y, 100};
    commands[i] = (wm_command){(uint32_t)i, WM_COMMAND_MOVE, 0.5f, 0.0f, 0, 0};
  }
  CHECK(wm_aoi_reset(aoi, players, kSquad));
  wm_aoi_tick_stats ts;
  CHECK(wm_aoi_tick(aoi, commands, kSquad, &ts));
  const wm_notification* notes = NULL;
  size_t note_count = 0;
  CHECK(wm_aoi_notifications(aoi, &notes, &note_count));
  printf("aoi: %zu moves accepted, %zu notifications (player %u first hears of player %u)\n", ts.accepted, note_count,
         note_count ? notes[0].receiver : 0u, note_count ? notes[0].subject : 0u);

  /* Each member's sight (a 10 x 10 box) as a subscription, the rally point's area as a publication. */
  wm_regions* regions = NULL;
  CHECK(wm_regions_create(ctx, 2, WM_DDM_AUTO, 0.0f, &regions));
  uint32_t id;
  const float area_lo[2] = {95.0f, 95.0f}, area_hi[2] = {105.0f, 105.0f};
  CHECK(wm_regions_add(regions, WM_PUBLICATION, area_lo, area_hi, &id));
  for (int i = 0; i < kSquad; ++i) {
    const float lo[2] = {squad[i].x - 5.0f, squad[i].y - 5.0f}, hi[2] = {squad[i].x + 5.0f, squad[i].y + 5.0f};
    CHECK(wm_regions_add(regions, WM_SUBSCRIPTION, lo, hi, &id));
  }
  const wm_pair* pairs = NULL;
  size_t pair_count = 0;
  CHECK(wm_regions_match(regions, &pairs, &pair_count));
  printf("regions: %zu of %d members see the rally area\n", pair_count, kSquad);

  wm_chess* chess = NULL;
  CHECK(wm_chess_create(ctx, 16, 1, &chess));
  CHECK(wm_chess_set_position(chess, NULL, "e2e4"));
  wm_search_limits limits = {6, 0, 0};
  wm_search_result r;
  CHECK(wm_chess_search(chess, &limits, &r));
  printf("chess: after 1. e4 the engine plays %s (depth %d, score %d cp, %llu nodes)\n", r.move, r.depth, r.score,
         (unsigned long long)r.nodes);

  wm_connect6* c6 = NULL;
  CHECK(wm_connect6_create(ctx, 1, &c6));
  CHECK(wm_connect6_set_position(c6, "JJ"));
  limits.depth = 2;
  CHECK(wm_connect6_search(c6, &limits, &r));
  printf("connect6: White answers JJ with %s\n", r.move);

  /* A bad argument is an error code with a message, never a crash. */
  if (wm_chess_set_position(chess, "not a fen", NULL) != WM_INVALID_ARGUMENT) return 1;
  printf("a bad FEN: %s\n", wm_last_error());

  wm_connect6_destroy(c6);
  wm_chess_destroy(chess);
  wm_regions_destroy(regions);
  wm_aoi_destroy(aoi);
  wm_crowd_destroy(crowd);
  wm_field_destroy(field);
  wm_context_destroy(ctx);
  return mean < 15.0 && r.move[0] && ts.accepted == kSquad && pair_count > 0 ? 0 : 1;
}
