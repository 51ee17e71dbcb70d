/* warpmind from plain C (C11) through the C API: a squad walks to a rally point over a potential field
 * with the crowd solver keeping its members apart, then the chess engine answers 1. e4 and the Connect6
 * engine answers Black's opening stone. Exits 1 if anything fails or the squad did not arrive. */
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
  wm_crowd_destroy(crowd);
  wm_field_destroy(field);
  wm_context_destroy(ctx);
  return mean < 15.0 && r.move[0] ? 0 : 1;
}
