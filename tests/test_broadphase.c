/* fix2d tests: the broad phase (src/broadphase.c) against brute force.
 * SPDX-License-Identifier: MIT
 *
 *  - on random worlds (clusters of boxes and circles of very different sizes anywhere within
 *    +-8000 m, an 80 m ground, 200 m walls, a 1 km static pillar, a tall dynamic plank,
 *    kinematic bodies, multi-shape bodies, jointed bodies), stepped, with bodies and shapes
 *    created, destroyed and teleported far between steps, f2d_find_pairs reports exactly the
 *    brute-force O(n^2) set of overlapping pairs that may collide, in key order;
 *  - the persistent x order is a pure cache: scrambled or marked dirty, the pairs are the same;
 *  - catalogue scenes agree with brute force along their run;
 *  - a crowded pile (far more pairs than scratch in front of them) agrees too;
 *  - stepping allocates nothing at steady state;
 *  - stepped without calls from outside the step (which break the chain of incremental calls:
 *    the persistent candidates from fat boxes), every step's own pairs agree with brute force
 *    and the candidate cache holds its invariant (every AABB within its fat box, the
 *    candidates exactly the brute-force pairs of the fat boxes), in random worlds with kicks,
 *    gravity switched on and off, bodies and shapes created, destroyed and teleported (all
 *    three ways of a step: merge, fat-box sweep, AABB sweep, counted), in the scenes and the
 *    crowded pile; a kinematic box creeping 1 LSB a step lands exactly on its fat box's edge
 *    (kept), 1 LSB beyond it (refitted), exactly onto another box's AABB (paired), then moves
 *    out of and into the pair;
 *  - the world caches' loop (update_caches) gives in its AVX2 form the bits of its scalar
 *    reference: every shape byte, record, moved and escape bitmap word, escape list entry, fat
 *    box and ex, in scenes and random worlds along their runs, kept and remade caches, and at
 *    the range edges (bodies at the world limit, rotations of +-1, sweeps at max_translation,
 *    the smallest boxes, off-centre boxes and the other shapes, fat boxes of the whole range
 *    and of none).
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_world_avx2.h" /* BOX_TAG */
#include "broadphase_internal.h"
#include "core.h"
#include "fix2d/fix2d.h"
#include "fix2d/scenes.h"
#include "fix2d/snapshot.h"

#define FAT_MARGIN_LSB (F2D_ONE / 10) /* broadphase.c FAT_MARGIN */

static uint32_t rng_next(uint32_t *s)
{
	uint32_t x = *s;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x;
	return x;
}

/* uniform in [lo, hi] */
static int32_t rng_int(uint32_t *s, int32_t lo, int32_t hi)
{
	uint64_t span = (uint64_t)((int64_t)hi - lo + 1);
	return (int32_t)((int64_t)lo + (int64_t)(((uint64_t)rng_next(s) * span) >> 32));
}

static bool boxes_overlap(const f2d_aabb *a, const f2d_aabb *b)
{
	return a->lower.x <= b->upper.x && b->lower.x <= a->upper.x && a->lower.y <= b->upper.y &&
	       b->lower.y <= a->upper.y;
}

static bool may_collide(const f2d_world *w, const f2d_shape *a, const f2d_shape *b)
{
	const f2d_body *ba = &w->bodies[a->body], *bb = &w->bodies[b->body];
	if (a->body == b->body || (ba->type != F2D_DYNAMIC_BODY && bb->type != F2D_DYNAMIC_BODY)) {
		return false;
	}
	return !(ba->joint_count > 0 && bb->joint_count > 0 &&
	         f2d_bodies_joined(w, a->body, b->body));
}

/* The brute force over all pairs of live shapes: the keys, in increasing order, of the pairs
 * whose AABBs (fat: the broad phase's fat boxes) overlap and that may collide. */
static int32_t brute_force(const f2d_world *w, bool fat, uint64_t **out)
{
	int32_t n = w->shape_ids.next;
	int32_t cap = 1024, count = 0;
	uint64_t *want = malloc((size_t)cap * sizeof *want);
	ck_assert_ptr_nonnull(want);
	for (int32_t a = 0; a < n; ++a) {
		const f2d_shape *sa = &w->shapes[a];
		if (!sa->alive) {
			continue;
		}
		const f2d_aabb *ba = fat ? &w->bpc.fat[a] : &sa->aabb;
		for (int32_t b = a + 1; b < n; ++b) {
			const f2d_shape *sb = &w->shapes[b];
			if (!sb->alive || !boxes_overlap(ba, fat ? &w->bpc.fat[b] : &sb->aabb) ||
			    !may_collide(w, sa, sb)) {
				continue;
			}
			if (count == cap) {
				cap *= 2;
				want = realloc(want, (size_t)cap * sizeof *want);
				ck_assert_ptr_nonnull(want);
			}
			want[count++] = f2d_pair_key(a, b);
		}
	}
	*out = want;
	return count;
}

static void compare_keys(const uint64_t *got, int32_t got_count, const uint64_t *want,
                         int32_t count, const char *what, const char *which)
{
	ck_assert_msg(got_count == count, "%s: broad phase found %d %s, brute force %d", what,
	              got_count, which, count);
	for (int32_t i = 0; i < count; ++i) {
		ck_assert_msg(got[i] == want[i],
		              "%s: %s %d is %016" PRIx64 ", brute force %016" PRIx64, what, which, i,
		              got[i], want[i]);
	}
}

/* The broad phase's candidate cache when valid: every live shape's AABB within its fat box,
 * the candidates exactly the pairs whose fat boxes overlap and that may collide, in order. */
static void check_candidates(const f2d_world *w, const char *what)
{
	for (int32_t i = 0; w->bpc.fat_mark != 0 && i < w->shape_ids.next; ++i) {
		const f2d_shape *s = &w->shapes[i];
		const f2d_aabb *f = &w->bpc.fat[i];
		ck_assert_msg(!s->alive || (f->lower.x <= s->aabb.lower.x &&
		                            f->lower.y <= s->aabb.lower.y &&
		                            s->aabb.upper.x <= f->upper.x &&
		                            s->aabb.upper.y <= f->upper.y),
		              "%s: shape %d's AABB is not within its fat box", what, i);
		int32_t ex[4] = {s->aabb.lower.x, s->aabb.lower.y, ~s->aabb.upper.x, ~s->aabb.upper.y};
		ck_assert_msg(!s->alive || memcmp(w->bpc.ex[i], ex, sizeof ex) == 0,
		              "%s: shape %d's AABB copy is stale", what, i);
	}
	if (w->bpc.mark == 0) {
		return;
	}
	uint64_t *want = NULL;
	int32_t count = brute_force(w, true, &want);
	compare_keys(w->bpc.cand, w->bpc.cand_count, want, count, what, "candidates");
	free(want);
}

/* After a step: the step's own pairs (w->pairs[0, pair_count), made by the step's call from
 * the AABBs it left) against brute force, without calling f2d_find_pairs (a call from outside
 * the step breaks the chain of incremental calls); returns the number of pairs. */
static int32_t check_step(const f2d_world *w, const char *what)
{
	uint64_t *want = NULL;
	int32_t count = brute_force(w, false, &want);
	compare_keys(w->pairs, w->pair_count, want, count, what, "pairs");
	free(want);
	check_candidates(w, what);
	return count;
}

/* Runs the broad phase and compares it with the brute force over all pairs; returns the
 * number of pairs. */
static int32_t check_pairs(f2d_world *w, const char *what)
{
	ck_assert_int_eq(f2d_find_pairs(w), F2D_OK);
	uint64_t *want = NULL;
	int32_t count = brute_force(w, false, &want);
	compare_keys(w->pairs, w->pair_count, want, count, what, "pairs");
	check_candidates(w, what);
	/* the x order is a cache: scrambled (repaired or rebuilt) or dirty, the same pairs */
	for (int32_t i = 0; i + 1 < w->sweep_count; i += 2) {
		int32_t t = w->sweep[i];
		w->sweep[i] = w->sweep[w->sweep_count - 1 - i];
		w->sweep[w->sweep_count - 1 - i] = t;
	}
	for (int round = 0; round < 2; ++round) {
		w->sweep_dirty = round == 1;
		ck_assert_int_eq(f2d_find_pairs(w), F2D_OK);
		ck_assert_int_eq(w->pair_count, count);
		ck_assert(count == 0 || memcmp(w->pairs, want, (size_t)count * sizeof *want) == 0);
	}
	free(want);
	return count;
}

/* ---- random worlds ---- */

#define MAX_BODIES 4096

typedef struct rworld {
	f2d_world *w;
	f2d_body_id bodies[MAX_BODIES];
	int32_t body_count;
	uint32_t rng;
} rworld;

static f2d_body_id add_body(rworld *r, f2d_body_type type, fix16_t x, fix16_t y, fix16_t angle)
{
	f2d_body_def bd = f2d_default_body_def();
	bd.type = type;
	bd.position.x = x;
	bd.position.y = y;
	bd.rotation = f2d_make_rot(angle);
	if (type == F2D_KINEMATIC_BODY) {
		bd.linear_velocity.x = rng_int(&r->rng, -F2D_FIX(3), F2D_FIX(3));
		bd.angular_velocity = rng_int(&r->rng, -F2D_ONE, F2D_ONE);
	}
	f2d_body_id b;
	ck_assert_int_eq(f2d_create_body(r->w, &bd, &b), F2D_OK);
	if (r->body_count < MAX_BODIES) {
		r->bodies[r->body_count++] = b;
	}
	return b;
}

/* The density giving a shape of the given area (Q32.32 m^2) a mass of about 1 kg. */
static fix16_t density_for(int64_t area)
{
	int64_t d = ((int64_t)1 << 48) / (area > 0 ? area : 1);
	return (fix16_t)(d < 64 ? 64 : (d > F2D_FIX(30000) ? F2D_FIX(30000) : d));
}

static void add_box_shape(rworld *r, f2d_body_id b, fix16_t hx, fix16_t hy, f2d_vec2 center)
{
	f2d_polygon p;
	f2d_rot q = f2d_make_rot(0);
	ck_assert_int_eq(f2d_make_offset_box(hx, hy, center, q, &p), F2D_OK);
	f2d_shape_def sd = f2d_default_shape_def();
	sd.density = density_for(4 * (int64_t)hx * hy); /* about 1 kg */
	f2d_shape_id s;
	f2d_result res = f2d_create_polygon_shape(r->w, b, &sd, &p, &s);
	ck_assert_msg(res == F2D_OK, "box %d x %d: %s", hx, hy, f2d_world_last_error(r->w));
}

/* A moving body of one or two shapes, sizes 10 cm .. 4 m, near (cx, cy). */
static void add_mover(rworld *r, fix16_t cx, fix16_t cy, fix16_t spread)
{
	uint32_t *g = &r->rng;
	fix16_t x = cx + rng_int(g, -spread, spread), y = cy + rng_int(g, -spread, spread);
	f2d_body_type type = rng_int(g, 0, 15) == 0 ? F2D_KINEMATIC_BODY : F2D_DYNAMIC_BODY;
	f2d_body_id b = add_body(r, type, x, y, rng_int(g, -F2D_FIX(3), F2D_FIX(3)));
	fix16_t size = rng_int(g, 0, 3) == 0 ? rng_int(g, F2D_MILLI(50), F2D_MILLI(100))
	                                     : rng_int(g, F2D_MILLI(100), F2D_FIX(2));
	f2d_vec2 zero = {0, 0};
	if (rng_int(g, 0, 2) == 0) {
		f2d_circle c = {zero, size};
		f2d_shape_def sd = f2d_default_shape_def();
		sd.density = density_for(3 * (int64_t)size * size);
		f2d_shape_id s;
		f2d_result res = f2d_create_circle_shape(r->w, b, &sd, &c, &s);
		ck_assert_msg(res == F2D_OK, "circle %d: %s", size, f2d_world_last_error(r->w));
	} else {
		add_box_shape(r, b, size, rng_int(g, F2D_MILLI(50), F2D_FIX(2)), zero);
	}
	if (rng_int(g, 0, 5) == 0) {
		f2d_vec2 off = {rng_int(g, -F2D_FIX(2), F2D_FIX(2)),
		                rng_int(g, -F2D_FIX(2), F2D_FIX(2))};
		add_box_shape(r, b, size / 2 + F2D_MILLI(50), size / 2 + F2D_MILLI(50), off);
	}
}

/* What build_random and build_grid start with: a world of def, the generator seeded, the 80 m
 * ground and two 200 m walls (bodies 0..2). */
static void build_ground(rworld *r, uint32_t seed, const f2d_world_def *def)
{
	memset(r, 0, sizeof *r);
	r->rng = seed;
	ck_assert_int_eq(f2d_create_world(def, &r->w), F2D_OK);
	f2d_vec2 zero = {0, 0};
	add_box_shape(r, add_body(r, F2D_STATIC_BODY, 0, -F2D_MILLI(500), 0), F2D_FIX(40),
	              F2D_MILLI(500), zero);
	add_box_shape(r, add_body(r, F2D_STATIC_BODY, -F2D_MILLI(40500), F2D_FIX(100), 0),
	              F2D_MILLI(500), F2D_FIX(100), zero);
	add_box_shape(r, add_body(r, F2D_STATIC_BODY, F2D_MILLI(40500), F2D_FIX(100), 0),
	              F2D_MILLI(500), F2D_FIX(100), zero);
}

static void build_random(rworld *r, uint32_t seed)
{
	f2d_world_def def = f2d_default_world_def();
	build_ground(r, seed, &def);
	f2d_vec2 zero = {0, 0};
	/* after the ground and walls: a 1 km pillar far away, statics in far corners */
	add_box_shape(r, add_body(r, F2D_STATIC_BODY, F2D_FIX(6000), F2D_FIX(-7000), 0), F2D_FIX(3),
	              F2D_FIX(512), zero);
	add_box_shape(r, add_body(r, F2D_STATIC_BODY, F2D_FIX(-7600), F2D_FIX(7600), 0),
	              F2D_FIX(512), F2D_FIX(2), zero);
	/* a tall dynamic plank in the pile */
	add_box_shape(r, add_body(r, F2D_DYNAMIC_BODY, F2D_FIX(3), F2D_FIX(31), 0), F2D_MILLI(100),
	              F2D_FIX(30), zero);
	/* a pile on the ground, clusters anywhere, one around the pillar */
	for (int i = 0; i < 150; ++i) {
		add_mover(r, 0, F2D_FIX(8), F2D_FIX(8));
	}
	for (int c = 0; c < 6; ++c) {
		fix16_t cx = rng_int(&r->rng, -F2D_FIX(8000), F2D_FIX(8000));
		fix16_t cy = rng_int(&r->rng, -F2D_FIX(8000), F2D_FIX(8000));
		for (int i = 0; i < 25; ++i) {
			add_mover(r, cx, cy, F2D_FIX(4));
		}
	}
	for (int i = 0; i < 20; ++i) {
		add_mover(r, F2D_FIX(6000), F2D_FIX(-7000), F2D_FIX(20));
	}
	/* jointed neighbours (their shapes overlap but must not be paired) */
	for (int i = 0; i < 10; ++i) {
		f2d_body_id a = add_body(r, F2D_DYNAMIC_BODY, F2D_FIX(10 + 3 * i), F2D_FIX(20), 0);
		f2d_body_id b = add_body(r, F2D_DYNAMIC_BODY, F2D_FIX(10 + 3 * i), F2D_FIX(21), 0);
		add_box_shape(r, a, F2D_ONE, F2D_ONE, zero);
		add_box_shape(r, b, F2D_ONE, F2D_ONE, zero);
		f2d_revolute_joint_def jd = f2d_default_revolute_joint_def();
		f2d_vec2 anchor = {F2D_FIX(10 + 3 * i), F2D_MILLI(20500)};
		f2d_joint_id j;
		ck_assert_int_eq(f2d_init_revolute_joint_def(r->w, a, b, anchor, &jd), F2D_OK);
		ck_assert_int_eq(f2d_create_revolute_joint(r->w, &jd, &j), F2D_OK);
	}
}

/* Between steps: destroy bodies and shapes, create new ones, teleport some far away. */
static void mutate(rworld *r)
{
	uint32_t *g = &r->rng;
	for (int i = 0; i < 8 && r->body_count > 6; ++i) {
		int32_t k = rng_int(g, 6, r->body_count - 1);
		f2d_body_id b = r->bodies[k];
		if (f2d_body_is_valid(r->w, b)) {
			ck_assert_int_eq(f2d_destroy_body(r->w, b), F2D_OK);
		}
		r->bodies[k] = r->bodies[--r->body_count];
	}
	for (int i = 0; i < 4; ++i) { /* a lone shape destroyed: ids and holes in the id range */
		int32_t s = rng_int(g, 0, r->w->shape_ids.next - 1);
		if (r->w->shapes[s].alive && r->w->shapes[s].body >= 6) {
			f2d_shape_id id = {s + 1, r->w->shapes[s].generation};
			ck_assert_int_eq(f2d_destroy_shape(r->w, id), F2D_OK);
		}
	}
	for (int i = 0; i < 10; ++i) {
		add_mover(r, rng_int(g, -F2D_FIX(30), F2D_FIX(30)), F2D_FIX(10), F2D_FIX(5));
	}
	for (int i = 0; i < 3 && r->body_count > 6; ++i) {
		f2d_body_id b = r->bodies[rng_int(g, 6, r->body_count - 1)];
		if (f2d_body_is_valid(r->w, b) && f2d_body_get_type(r->w, b) != F2D_STATIC_BODY) {
			f2d_vec2 p = {rng_int(g, -F2D_FIX(8000), F2D_FIX(8000)),
			              rng_int(g, -F2D_FIX(8000), F2D_FIX(8000))};
			ck_assert_int_eq(f2d_body_set_transform(r->w, b, p, f2d_make_rot(0)),
			                 F2D_OK);
		}
	}
}

START_TEST(random_worlds_match_brute_force)
{
	int64_t total = 0;
	for (uint32_t seed = 1; seed <= 4; ++seed) {
		rworld *r = malloc(sizeof *r);
		ck_assert_ptr_nonnull(r);
		build_random(r, 0x9E3779B9u * seed);
		char what[64];
		for (int round = 0; round < 25; ++round) {
			snprintf(what, sizeof what, "seed %u round %d", (unsigned)seed, round);
			total += check_pairs(r->w, what);
			int steps = rng_int(&r->rng, 1, 3);
			for (int s = 0; s < steps; ++s) {
				f2d_result res = f2d_world_step(r->w);
				ck_assert(res == F2D_OK || res == F2D_ERROR_OUT_OF_RANGE ||
				          res == F2D_ERROR_OVERFLOW);
			}
			mutate(r);
		}
		f2d_destroy_world(r->w);
		free(r);
	}
	ck_assert_int_gt(total, 10000); /* not vacuous */
}
END_TEST

/* A calm random world: the ground and walls (build_ground), then movers on a 7 m grid (none
 * touching), no gravity. */
static void build_grid(rworld *r, uint32_t seed)
{
	f2d_world_def def = f2d_default_world_def();
	def.gravity.y = 0;
	build_ground(r, seed, &def);
	for (int i = 0; i < 240; ++i) {
		add_mover(r, F2D_FIX(-52 + 7 * (i % 16)), F2D_FIX(6 + 7 * (i / 16)), 0);
	}
}

/* Random velocity kicks between steps (up to 40 m/s: AABBs stretched far along the motion,
 * shapes leaving their fat boxes by metres); unlike mutate, nothing that breaks the chain of
 * incremental calls. */
static void kick(rworld *r)
{
	uint32_t *g = &r->rng;
	for (int i = 0; i < 12 && r->body_count > 6; ++i) {
		f2d_body_id b = r->bodies[rng_int(g, 6, r->body_count - 1)];
		if (f2d_body_is_valid(r->w, b) && f2d_body_get_type(r->w, b) != F2D_STATIC_BODY) {
			f2d_vec2 v = {rng_int(g, -F2D_FIX(40), F2D_FIX(40)),
			              rng_int(g, -F2D_FIX(40), F2D_FIX(40))};
			ck_assert_int_eq(f2d_body_set_linear_velocity(r->w, b, v), F2D_OK);
		}
	}
}

/* Random worlds (one as above, two calm ones), stepped, every step's own pairs and candidates
 * against brute force: kicks (incremental steps, the escaped shapes merged), gravity switched
 * on and off, and mutations (created, destroyed, teleported bodies and shapes: the sweep)
 * between steps. */
START_TEST(stepped_random_worlds_match_brute_force)
{
	int64_t total = 0;
	uint32_t merges = 0, sweeps = 0, plain = 0;
	for (uint32_t seed = 1; seed <= 3; ++seed) {
		rworld *r = malloc(sizeof *r);
		ck_assert_ptr_nonnull(r);
		if (seed == 1) {
			build_random(r, 0x85EBCA6Bu);
		} else {
			build_grid(r, 0x85EBCA6Bu * seed);
		}
		char what[64];
		for (int round = 0; round < 24; ++round) {
			int steps = rng_int(&r->rng, 1, 4);
			for (int s = 0; s < steps; ++s) {
				f2d_result res = f2d_world_step(r->w);
				ck_assert(res == F2D_OK || res == F2D_ERROR_OUT_OF_RANGE ||
				          res == F2D_ERROR_OVERFLOW);
				snprintf(what, sizeof what, "seed %u round %d step %d", (unsigned)seed,
				         round, s);
				total += check_step(r->w, what);
			}
			if (round % 4 == 3) {
				mutate(r);
			} else {
				kick(r);
			}
			if (round == 7 || round == 9) { /* everything falls (the sweep), then stops */
				f2d_vec2 g = {0, round == 7 ? -F2D_MILLI(9800) : 0};
				ck_assert_int_eq(f2d_world_set_gravity(r->w, g), F2D_OK);
				for (int32_t i = 0; round == 9 && i < r->body_count; ++i) {
					f2d_body_id b = r->bodies[i];
					if (f2d_body_is_valid(r->w, b) &&
					    f2d_body_get_type(r->w, b) == F2D_DYNAMIC_BODY) {
						f2d_vec2 v0 = {0, 0};
						ck_assert_int_eq(f2d_body_set_linear_velocity(r->w, b, v0),
						                 F2D_OK);
					}
				}
			}
		}
		merges += r->w->bpc.merges;
		sweeps += r->w->bpc.sweeps;
		plain += r->w->bpc.plain;
		f2d_destroy_world(r->w);
		free(r);
	}
	ck_assert_int_gt(total, 10000); /* not vacuous */
	ck_assert_uint_gt(merges, 20);  /* both paths ran */
	ck_assert_uint_gt(sweeps, 20);
	ck_assert_uint_gt(plain, 20);
}
END_TEST

/* A kinematic box creeping 1 LSB a step (one substep: h v = 1092 * 61 / 2^16 rounds to 1)
 * towards a dynamic box: its AABB reaches the edge of its fat box exactly (still within: no
 * refit), leaves it by 1 LSB the next step (refitted, re-queried), and meets the dynamic box's
 * AABB exactly (closed intervals: the pair appears that step); then it moves 2 m down and up
 * again, four times (out of and into the pair, escaping every few steps; the shapes never
 * touch). Every step's pairs and candidates
 * against brute force. */
START_TEST(fat_margin_edges)
{
	f2d_world_def def = f2d_default_world_def();
	def.gravity.x = 0;
	def.gravity.y = 0;
	def.substep_count = 1;
	rworld *r = malloc(sizeof *r);
	ck_assert_ptr_nonnull(r);
	memset(r, 0, sizeof *r);
	ck_assert_int_eq(f2d_create_world(&def, &r->w), F2D_OK);
	f2d_world *w = r->w;
	f2d_vec2 zero = {0, 0};
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_KINEMATIC_BODY;
	bd.linear_velocity.x = 61;
	f2d_body_id k;
	ck_assert_int_eq(f2d_create_body(w, &bd, &k), F2D_OK);
	add_box_shape(r, k, F2D_MILLI(500), F2D_MILLI(500), zero);
	/* the dynamic box 0.11 m beyond the kinematic one's AABB (the shapes 0.15 m apart: they
	 * stay 0.04 m apart when the AABBs meet) */
	add_box_shape(r, add_body(r, F2D_DYNAMIC_BODY, F2D_MILLI(1150), 0, 0), F2D_MILLI(500),
	              F2D_MILLI(500), zero);
	/* and one far above, never paired */
	add_box_shape(r, add_body(r, F2D_DYNAMIC_BODY, 0, F2D_FIX(50), 0), F2D_MILLI(500),
	              F2D_MILLI(500), zero);
	bool on_edge = false, escaped = false, met = false;
	f2d_aabb fat_before = {{0, 0}, {0, 0}};
	char what[48];
	int step = 0;
	for (; step < 9000 && !(escaped && met); ++step) {
		int32_t pairs_before = w->pair_count;
		ck_assert_int_eq(f2d_world_step(w), F2D_OK);
		snprintf(what, sizeof what, "creep step %d", step);
		int32_t count = check_step(w, what);
		const f2d_aabb *a = &w->shapes[0].aabb, *f = &w->bpc.fat[0];
		if (step > 0 && a->upper.x == f->upper.x &&
		    memcmp(f, &fat_before, sizeof *f) == 0) {
			on_edge = true; /* exactly on the fat box's edge: kept */
		}
		if (on_edge && a->upper.x == fat_before.upper.x + 1) {
			ck_assert_int_ne(f->upper.x, fat_before.upper.x); /* 1 LSB out: refitted */
			ck_assert_int_eq(f->upper.x, a->upper.x + FAT_MARGIN_LSB);
			escaped = true;
		}
		if (count == 1 && pairs_before == 0) {
			/* the pair appears when the AABBs touch (closed intervals) */
			ck_assert_int_eq(a->upper.x, w->shapes[1].aabb.lower.x);
			met = true;
		}
		fat_before = *f;
	}
	ck_assert(on_edge && escaped && met);
	ck_assert_uint_eq(w->bpc.sweeps, 1); /* all of it incremental */
	/* away and back, twice: the pair ends and begins again */
	int changes = 0;
	for (int s = 0; s < 480; ++s) {
		if (s % 60 == 0) {
			f2d_vec2 v = {0, (s / 60) % 2 == 0 ? -F2D_FIX(2) : F2D_FIX(2)};
			ck_assert_int_eq(f2d_body_set_linear_velocity(w, k, v), F2D_OK);
		}
		int32_t before = w->pair_count;
		ck_assert_int_eq(f2d_world_step(w), F2D_OK);
		snprintf(what, sizeof what, "away and back step %d", s);
		changes += check_step(w, what) != before ? 1 : 0;
	}
	ck_assert_int_ge(changes, 8);
	ck_assert_uint_gt(w->bpc.merges, 100);
	f2d_destroy_world(w);
	free(r);
}
END_TEST

/* shapes only tall ones, only far ones, one shape, none */
START_TEST(degenerate_worlds)
{
	f2d_world *w = NULL;
	f2d_world_def def = f2d_default_world_def();
	ck_assert_int_eq(f2d_create_world(&def, &w), F2D_OK);
	ck_assert_int_eq(check_pairs(w, "empty"), 0);
	rworld *r = malloc(sizeof *r);
	ck_assert_ptr_nonnull(r);
	memset(r, 0, sizeof *r);
	r->w = w;
	r->rng = 7;
	f2d_vec2 zero = {0, 0};
	add_box_shape(r, add_body(r, F2D_STATIC_BODY, 0, 0, 0), F2D_FIX(512), F2D_FIX(512), zero);
	ck_assert_int_eq(check_pairs(w, "one static"), 0);
	/* two tall dynamic planks crossing the static block: tall-tall and tall-static pairs */
	add_box_shape(r, add_body(r, F2D_DYNAMIC_BODY, 0, 0, 0), F2D_MILLI(10), F2D_FIX(30), zero);
	add_box_shape(r, add_body(r, F2D_DYNAMIC_BODY, F2D_MILLI(15), F2D_FIX(1), 0), F2D_MILLI(10),
	              F2D_FIX(30), zero);
	ck_assert_int_eq(check_pairs(w, "tall only"), 3);
	/* tiny shapes at both ends of the world */
	for (int i = 0; i < 40; ++i) {
		fix16_t x = (i & 1) != 0 ? F2D_FIX(8150) : -F2D_FIX(8150);
		fix16_t y = (i & 2) != 0 ? F2D_FIX(8150) : -F2D_FIX(8150);
		f2d_body_id b = add_body(r, F2D_DYNAMIC_BODY, x + F2D_MILLI(3 * i), y, 0);
		add_box_shape(r, b, F2D_MILLI(50), F2D_MILLI(50), zero);
	}
	ck_assert_int_gt(check_pairs(w, "corners"), 3);
	f2d_destroy_world(w);
	free(r);
}
END_TEST

/* A crowded pile, every shape over every other: far more pairs (n (n - 1) / 2, > 30 n) than
 * the scratch in front of them, so the keys are sorted behind themselves and moved to the
 * front, and w->pairs grows while they are found; stepped, the pile explodes and thins out. */
START_TEST(crowded_pile)
{
	rworld *r = malloc(sizeof *r);
	ck_assert_ptr_nonnull(r);
	memset(r, 0, sizeof *r);
	r->rng = 11;
	f2d_world_def def = f2d_default_world_def();
	ck_assert_int_eq(f2d_create_world(&def, &r->w), F2D_OK);
	f2d_vec2 zero = {0, 0};
	add_box_shape(r, add_body(r, F2D_STATIC_BODY, 0, -F2D_MILLI(500), 0), F2D_FIX(40),
	              F2D_MILLI(500), zero);
	const int n = 80;
	for (int i = 0; i < n; ++i) {
		f2d_body_id b = add_body(r, F2D_DYNAMIC_BODY, rng_int(&r->rng, -F2D_MILLI(20), F2D_MILLI(20)),
		                         F2D_FIX(2) + rng_int(&r->rng, -F2D_MILLI(20), F2D_MILLI(20)), 0);
		add_box_shape(r, b, F2D_ONE, F2D_ONE, zero);
	}
	ck_assert_int_gt(check_pairs(r->w, "pile"), 30 * n);
	for (int s = 0; s < 6; ++s) {
		f2d_result res = f2d_world_step(r->w);
		ck_assert(res == F2D_OK || res == F2D_ERROR_OUT_OF_RANGE || res == F2D_ERROR_OVERFLOW);
		char what[32];
		snprintf(what, sizeof what, "pile step %d", s);
		check_pairs(r->w, what);
	}
	for (int s = 0; s < 40; ++s) { /* stepped, without calls from outside */
		f2d_result res = f2d_world_step(r->w);
		ck_assert(res == F2D_OK || res == F2D_ERROR_OUT_OF_RANGE || res == F2D_ERROR_OVERFLOW);
		char what[40];
		snprintf(what, sizeof what, "pile stepped %d", s);
		check_step(r->w, what);
	}
	f2d_destroy_world(r->w);
	free(r);
}
END_TEST

START_TEST(scenes_match_brute_force)
{
	static const char *const names[] = {"pyramid20", "rain1000", "arena",
	                                    "polygons",  "dominos",  "large_pyramid_1k"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
		f2d_world *w = NULL;
		ck_assert_int_eq(f2d_scene_create(names[i], NULL, &w), F2D_OK);
		for (int s = 0; s <= 120; ++s) {
			if (s % 40 == 0) {
				char what[64];
				snprintf(what, sizeof what, "%s step %d", names[i], s);
				check_pairs(w, what);
			}
			f2d_world_step(w);
		}
		f2d_destroy_world(w);
	}
}
END_TEST

/* The scenes stepped, every step's own pairs and candidates against brute force (the chain of
 * incremental calls unbroken). */
START_TEST(stepped_scenes_match_brute_force)
{
	static const char *const names[] = {"pyramid20", "rain1000", "arena",
	                                    "polygons",  "dominos",  "large_pyramid_1k"};
	uint32_t merges = 0;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
		f2d_world *w = NULL;
		ck_assert_int_eq(f2d_scene_create(names[i], NULL, &w), F2D_OK);
		for (int s = 0; s < 150; ++s) {
			f2d_world_step(w);
			if (s % 3 == 0 || s > 140) {
				char what[64];
				snprintf(what, sizeof what, "%s step %d", names[i], s);
				check_step(w, what);
			}
		}
		merges += w->bpc.merges;
		f2d_destroy_world(w);
	}
	ck_assert_uint_gt(merges, 250); /* the incremental merge ran (296 with contact recycling) */
}
END_TEST

/* ---- the cache loop's AVX2 form against its scalar reference ---- */

/* What one update_caches run leaves: the shapes (every byte), the records, the fat boxes and
 * ex, the moved and escape bitmaps and list, the counts. */
typedef struct cache_run {
	f2d_shape *shapes;
	f2d_shape_step *step;
	f2d_aabb *fat;
	int32_t (*ex)[4];
	uint64_t *moved, *ebit;
	int32_t *elist;
	int32_t out[3];
} cache_run;

static void *dup_bytes(const void *p, size_t n)
{
	void *q = malloc(n > 0 ? n : 1);
	ck_assert_ptr_nonnull(q);
	memcpy(q, p, n);
	return q;
}

/* update_caches of kernel on w, from the shapes before (restored first) and fat (or none) */
static void run_caches(f2d_world *w, int kernel, bool incremental, const f2d_shape *before,
                       const f2d_aabb *fat, cache_run *r)
{
	const size_t ids = (size_t)w->shape_ids.next, mw = (size_t)moved_words(w);
	memcpy(w->shapes, before, ids * sizeof *before);
	r->moved = calloc(mw + 1, sizeof *r->moved);
	r->ebit = calloc(mw + 1, sizeof *r->ebit);
	r->elist = calloc(ids + 1, sizeof *r->elist);
	ck_assert(r->moved != NULL && r->ebit != NULL && r->elist != NULL);
	ck_assert(f2d_update_caches_kernel(w, kernel, incremental, fat, r->moved, r->ebit, r->elist,
	                                   r->out));
	r->shapes = dup_bytes(w->shapes, ids * sizeof *w->shapes);
	r->step = dup_bytes(w->bpc.step, ids * sizeof *w->bpc.step);
	r->fat = fat != NULL ? dup_bytes(w->bpc.fat, ids * sizeof *w->bpc.fat) : NULL;
	r->ex = fat != NULL ? dup_bytes(w->bpc.ex, ids * sizeof *w->bpc.ex) : NULL;
}

static void free_run(cache_run *r)
{
	free(r->shapes);
	free(r->step);
	free(r->fat);
	free(r->ex);
	free(r->moved);
	free(r->ebit);
	free(r->elist);
}

/* what the comparisons covered (cache_paths asserts every kind was seen) */
typedef struct cache_counts {
	int64_t kept, boxes, others, escaped, contained, swept, clamped;
} cache_counts;

/* A fat box for every shape id from its current AABB (last step's cache): each side moved by
 * -0.1 .. +0.4 m (some AABBs will leave it), a few the whole range (contains any AABB) or an
 * empty box at the range's ends (contains none). */
static f2d_aabb *make_fat(const f2d_world *w, uint32_t *g)
{
	f2d_aabb *fat = calloc((size_t)w->shape_ids.next + 1, sizeof *fat);
	ck_assert_ptr_nonnull(fat);
	for (int32_t i = 0; i < w->shape_ids.next; ++i) {
		const f2d_aabb *a = &w->shapes[i].aabb;
		int32_t k = rng_int(g, 0, 15);
		if (k == 0) {
			fat[i] = (f2d_aabb){{INT32_MIN, INT32_MIN}, {INT32_MAX, INT32_MAX}};
		} else if (k == 1) {
			fat[i] = (f2d_aabb){{INT32_MAX, INT32_MAX}, {INT32_MIN, INT32_MIN}};
		} else {
			fat[i].lower.x = a->lower.x - rng_int(g, -F2D_MILLI(100), F2D_MILLI(400));
			fat[i].lower.y = a->lower.y - rng_int(g, -F2D_MILLI(100), F2D_MILLI(400));
			fat[i].upper.x = a->upper.x + rng_int(g, -F2D_MILLI(100), F2D_MILLI(400));
			fat[i].upper.y = a->upper.y + rng_int(g, -F2D_MILLI(100), F2D_MILLI(400));
		}
	}
	return fat;
}

/* The scalar and the AVX2 form on w (incremental or not, with escapes or not): the same bits
 * in everything they write. */
static void compare_cache_paths(f2d_world *w, bool incremental, bool escapes, uint32_t *g,
                                const char *what, cache_counts *n)
{
	const int32_t ids = w->shape_ids.next;
	const size_t mw = (size_t)moved_words(w);
	f2d_shape *before = dup_bytes(w->shapes, (size_t)ids * sizeof *w->shapes);
	f2d_aabb *fat = escapes ? make_fat(w, g) : NULL;
	cache_run want = {0}, got = {0};
	run_caches(w, F2D_KERNEL_SCALAR, incremental, before, fat, &want);
	run_caches(w, f2d_kernel_level(), incremental, before, fat, &got);
	ck_assert_msg(memcmp(want.out, got.out, sizeof want.out) == 0,
	              "%s: counts %d %d %d, want %d %d %d", what, got.out[0], got.out[1],
	              got.out[2], want.out[0], want.out[1], want.out[2]);
	ck_assert_msg(memcmp(want.moved, got.moved, mw * sizeof *want.moved) == 0 &&
	                  memcmp(want.ebit, got.ebit, mw * sizeof *want.ebit) == 0 &&
	                  memcmp(want.elist, got.elist, (size_t)want.out[2] * sizeof *want.elist) ==
	                      0,
	              "%s: the moved or escape bitmaps or list differ", what);
	for (int32_t i = 0; i < ids; ++i) {
		const f2d_shape *a = &want.shapes[i], *b = &got.shapes[i];
		ck_assert_msg(memcmp(a, b, sizeof *a) == 0,
		              "%s: shape %d (type %d) differs: aabb %d %d %d %d, want %d %d %d %d, "
		              "reach %d want %d",
		              what, i, (int)a->type, b->aabb.lower.x, b->aabb.lower.y,
		              b->aabb.upper.x, b->aabb.upper.y, a->aabb.lower.x, a->aabb.lower.y,
		              a->aabb.upper.x, a->aabb.upper.y, b->reach, a->reach);
		if (!a->alive) {
			continue;
		}
		ck_assert_msg(memcmp(&want.step[i], &got.step[i], sizeof want.step[i]) == 0,
		              "%s: shape %d's record differs", what, i);
		bool moved = ((want.moved[i >> 6] >> (i & 63)) & 1u) != 0;
		if (!moved) {
			n->kept++;
			continue;
		}
		bool box = a->world_polygon.normals[4].x == BOX_TAG;
		n->boxes += box && a->type == F2D_POLYGON_SHAPE ? 1 : 0;
		n->others += box && a->type == F2D_POLYGON_SHAPE ? 0 : 1;
		n->swept += (a->sweep.x | a->sweep.y) != 0 ? 1 : 0;
		n->clamped +=
		    a->sweep.x == w->def.max_translation || a->sweep.y == -w->def.max_translation
		        ? 1
		        : 0;
		if (fat != NULL) {
			bool esc = ((want.ebit[i >> 6] >> (i & 63)) & 1u) != 0;
			n->escaped += esc ? 1 : 0;
			n->contained += esc ? 0 : 1;
		}
	}
	if (fat != NULL) {
		ck_assert_msg(memcmp(want.fat, got.fat, (size_t)ids * sizeof *fat) == 0 &&
		                  memcmp(want.ex, got.ex, (size_t)ids * sizeof *want.ex) == 0,
		              "%s: the fat boxes or ex differ", what);
	}
	free_run(&want);
	free_run(&got);
	free(fat);
	free(before);
}

/* Poses and motions at the range edges for a share of w's bodies, as the step may leave them:
 * origins at +-F2D_WORLD_LIMIT or 0, rotations of +-1 (or any), velocities up to 2^28 (the
 * sweep clamped at max_translation) or tiny (the dead zone), spin up to 2^31 - 1, forces,
 * gravity scales, sleeping bodies; the centre at the origin plus a small offset. */
static void edge_poses(f2d_world *w, uint32_t *g)
{
	static const fix16_t pos[] = {F2D_WORLD_LIMIT, -F2D_WORLD_LIMIT, 0, F2D_WORLD_LIMIT - 1};
	static const f2d_rot rots[] = {{F2D_ONE, 0}, {-F2D_ONE, 0}, {0, F2D_ONE}, {0, -F2D_ONE}};
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		f2d_body *b = &w->bodies[i];
		if (rng_int(g, 0, 2) == 0) {
			continue;
		}
		b->origin.x = pos[rng_int(g, 0, 3)];
		b->origin.y = rng_int(g, 0, 1) ? pos[rng_int(g, 0, 3)]
		                               : rng_int(g, -F2D_FIX(8000), F2D_FIX(8000));
		b->q = rng_int(g, 0, 3) != 0 ? rots[rng_int(g, 0, 3)]
		                             : f2d_make_rot(rng_int(g, -F2D_FIX(4), F2D_FIX(4)));
		b->center.x = b->origin.x + rng_int(g, -F2D_MILLI(100), F2D_MILLI(100));
		b->center.y = b->origin.y + rng_int(g, -F2D_MILLI(100), F2D_MILLI(100));
		const int32_t big = (int32_t)1 << 28;
		b->v.x = rng_int(g, 0, 1) ? rng_int(g, -big, big) : rng_int(g, -64, 64);
		b->v.y = rng_int(g, 0, 1) ? (rng_int(g, 0, 1) ? big : -big) : rng_int(g, -64, 64);
		b->w = rng_int(g, 0, 3) == 0 ? INT32_MAX : rng_int(g, -F2D_FIX(100), F2D_FIX(100));
		b->force.x = rng_int(g, 0, 3) == 0 ? rng_int(g, -F2D_FIX(1000), F2D_FIX(1000)) : 0;
		b->gravity_scale =
		    rng_int(g, 0, 3) == 0 ? rng_int(g, -F2D_FIX(3), F2D_FIX(3)) : F2D_ONE;
		b->awake = b->awake && rng_int(g, 0, 7) != 0;
	}
}

/* Boxes at the shape limits on bodies of every type: the smallest box, a box of
 * F2D_MAX_SHAPE_EXTENT's diagonal, long thin ones (half-extents F2D_MIN_SHAPE_SIZE), off-centre
 * ones (the general branch), circles of both sizes. */
static void build_edge_shapes(rworld *r, uint32_t seed)
{
	f2d_world_def def = f2d_default_world_def();
	build_ground(r, seed, &def);
	const fix16_t big = F2D_FIX(362); /* sqrt(2) 362 < 512 */
	const fix16_t sizes[][2] = {{F2D_MIN_SHAPE_SIZE, F2D_MIN_SHAPE_SIZE},
	                            {big, big},
	                            {F2D_FIX(500), F2D_MIN_SHAPE_SIZE},
	                            {F2D_MIN_SHAPE_SIZE, F2D_FIX(100)},
	                            {F2D_ONE, F2D_MILLI(500)}};
	for (int k = 0; k < 60; ++k) {
		f2d_body_type type = k % 7 == 0
		                         ? F2D_KINEMATIC_BODY
		                         : (k % 11 == 0 ? F2D_STATIC_BODY : F2D_DYNAMIC_BODY);
		f2d_body_id b = add_body(r, type, F2D_FIX(3 * k), F2D_FIX(10), F2D_MILLI(100 * k));
		const fix16_t *sz = sizes[k % 5];
		/* (a dynamic body's shapes lie within 32 m of its origin, and have a mass in range:
		 * 5 cm .. 22 m there) */
		const bool dyn = type == F2D_DYNAMIC_BODY;
		const fix16_t lim = dyn ? F2D_FIX(22) : F2D_MAX_SHAPE_EXTENT;
		const fix16_t low = dyn ? F2D_MILLI(50) : F2D_MIN_SHAPE_SIZE;
		fix16_t hx = sz[0] < lim ? (sz[0] > low ? sz[0] : low) : lim;
		fix16_t hy = sz[1] < lim ? (sz[1] > low ? sz[1] : low) : lim;
		f2d_vec2 off = {k % 3 == 0 ? F2D_MILLI(7) : 0, 0};
		add_box_shape(r, b, hx, hy, off);
		if (k % 4 == 0) {
			f2d_circle c = {{0, 0}, k % 8 == 0 ? low : lim / 2};
			f2d_shape_def sd = f2d_default_shape_def();
			f2d_shape_id s;
			ck_assert_int_eq(f2d_create_circle_shape(r->w, b, &sd, &c, &s), F2D_OK);
		}
	}
}

/* Scenes and random worlds stepped; every few steps both forms on the world as the step left
 * it and on a copy with edge poses, incremental (kept and remade caches) or not, with the
 * escapes or without. */
START_TEST(cache_paths)
{
	if (f2d_kernel_level() == F2D_KERNEL_SCALAR) {
		return; /* (no AVX2 form here: the step runs the reference) */
	}
	static const char *const names[] = {
	    "pyramid20",        "rain1000",      "circles",      "polygons",
	    "capsule_ragdolls", "chain_terrain", "sensor_gates", "arena"};
	const int worlds = (int)(sizeof names / sizeof names[0]) + 3;
	cache_counts n = {0};
	uint32_t g = 0x5EED;
	for (int k = 0; k < worlds; ++k) {
		rworld r;
		f2d_world *w = NULL;
		if (k < worlds - 3) {
			ck_assert_int_eq(f2d_scene_create(names[k], NULL, &w), F2D_OK);
		} else {
			if (k == worlds - 1) {
				build_edge_shapes(&r, 77);
			} else {
				build_random(&r, 1234u + (uint32_t)k);
			}
			w = r.w;
		}
		for (int s = 0; s < 40; ++s) {
			f2d_world_step(w);
			if (s % 8 != 7) {
				continue;
			}
			char what[96];
			for (int v = 0; v < 4; ++v) {
				snprintf(what, sizeof what, "world %d step %d variant %d", k, s, v);
				compare_cache_paths(w, (v & 1) != 0, (v & 2) != 0, &g, what, &n);
			}
			f2d_world *c = NULL;
			ck_assert_int_eq(f2d_world_clone(w, &c), F2D_OK);
			edge_poses(c, &g);
			for (int v = 0; v < 4; ++v) {
				snprintf(what, sizeof what, "world %d step %d edges %d", k, s, v);
				compare_cache_paths(c, (v & 1) != 0, (v & 2) != 0, &g, what, &n);
			}
			f2d_destroy_world(c);
		}
		f2d_destroy_world(w);
	}
	ck_assert_msg(n.kept > 1000 && n.boxes > 10000 && n.others > 1000 && n.escaped > 1000 &&
	                  n.contained > 1000 && n.swept > 1000 && n.clamped > 100,
	              "kept %" PRId64 " boxes %" PRId64 " others %" PRId64 " escaped %" PRId64
	              " contained %" PRId64 " swept %" PRId64 " clamped %" PRId64,
	              n.kept, n.boxes, n.others, n.escaped, n.contained, n.swept, n.clamped);
}
END_TEST

/* ---- no allocation at steady state ---- */

static void *counting_alloc(size_t size, void *context)
{
	*(int64_t *)context += 1;
	return malloc(size > 0 ? size : 1);
}

static void counting_free(void *p, size_t size, void *context)
{
	(void)size;
	(void)context;
	free(p);
}

START_TEST(steady_state_allocates_nothing)
{
	static const char *const names[] = {"pyramid20", "large_pyramid_1k"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
		int64_t allocs = 0;
		f2d_world_def def = f2d_default_world_def();
		def.allocator.alloc = counting_alloc;
		def.allocator.free = counting_free;
		def.allocator.context = &allocs;
		f2d_world *w = NULL;
		ck_assert_int_eq(f2d_scene_create(names[i], &def, &w), F2D_OK);
		for (int s = 0; s < 60; ++s) {
			f2d_world_step(w);
		}
		int64_t before = allocs;
		for (int s = 0; s < 30; ++s) {
			f2d_world_step(w);
		}
		ck_assert_msg(allocs == before, "%s: %" PRId64 " allocations in 30 steps", names[i],
		              allocs - before);
		f2d_destroy_world(w);
	}
}
END_TEST

static Suite *broadphase_suite(void)
{
	Suite *s = suite_create("broadphase");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, random_worlds_match_brute_force);
	tcase_add_test(tc, degenerate_worlds);
	tcase_add_test(tc, scenes_match_brute_force);
	tcase_add_test(tc, crowded_pile);
	tcase_add_test(tc, steady_state_allocates_nothing);
	tcase_add_test(tc, stepped_random_worlds_match_brute_force);
	tcase_add_test(tc, stepped_scenes_match_brute_force);
	tcase_add_test(tc, fat_margin_edges);
	tcase_add_test(tc, cache_paths);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(broadphase_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
