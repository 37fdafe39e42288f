/* fix2d tests: the contact pipeline's in-place merge (src/contact.c, f2d_update_contacts)
 * against its definition.
 * SPDX-License-Identifier: MIT
 *
 * The arbiters are merged into the array they are read from (a removed pair's slot is reused,
 * an inserted pair pushes the old arbiter at its slot to a queue). Whatever the array's
 * history, the result must be what the merge is defined to give: for each pair the broad phase
 * reports (key order; sensor pairs never make arbiters), with prev the arbiter of the same key
 * before the call (found here by binary search in a copy of the old array):
 *   - neither body can move and prev exists: prev unchanged, marked frozen;
 *   - otherwise the manifold f2d_collide gives at f2d_pair_speculative's distance; no points,
 *     no arbiter; else the points with r_a, r_b from the bodies' centres, friction and
 *     restitution prev's (or mixed for a new pair), and each point the impulses of prev's first
 *     point with its feature id (none without warm starting).
 * The worlds are stirred every step (bodies swapped, pushed, teleported away and back) so that
 * pairs appear and vanish at every place in key order: insertions ahead of removals (the
 * queue), removals ahead of insertions (slots), pairs dropped in place; the test counts that
 * each case happened. Sleeping worlds add frozen arbiters, sensor scenes skipped pairs.
 */
#include <check.h>
#include <stdlib.h>

#include "core.h"
#include "fix2d/fix2d.h"
#include "fix2d/scenes.h"
#include "fix2d/snapshot.h"

/* A value in [lo, hi] from a 64-bit LCG (Knuth's MMIX constants); the top bits are used. */
static int32_t rng_int(uint64_t *s, int32_t lo, int32_t hi)
{
	*s = *s * 6364136223846793005u + 1442695040888963407u;
	return (int32_t)((int64_t)lo + (int64_t)((*s >> 32) % (uint64_t)((int64_t)hi - lo + 1)));
}

static uint64_t key_of(const f2d_arbiter *a)
{
	return f2d_pair_key(a->shape_a, a->shape_b);
}

static const f2d_arbiter *find_old(const f2d_arbiter *olds, int32_t n, uint64_t key)
{
	int32_t lo = 0, hi = n;
	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (key_of(&olds[mid]) < key) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo < n && key_of(&olds[lo]) == key ? &olds[lo] : NULL;
}

/* every field a reader of an arbiter sees (the per-step active flag aside: set later) */
static void expect_equal(const f2d_arbiter *got, const f2d_arbiter *want, int32_t step)
{
	ck_assert_msg(got->shape_a == want->shape_a && got->shape_b == want->shape_b,
	              "step %d: pair (%d, %d), want (%d, %d)", step, got->shape_a, got->shape_b,
	              want->shape_a, want->shape_b);
	ck_assert_int_eq(got->body_a, want->body_a);
	ck_assert_int_eq(got->body_b, want->body_b);
	ck_assert_int_eq(got->friction, want->friction);
	ck_assert_int_eq(got->restitution, want->restitution);
	ck_assert_int_eq(got->count, want->count);
	ck_assert_int_eq(got->normal.x, want->normal.x);
	ck_assert_int_eq(got->normal.y, want->normal.y);
	ck_assert_int_eq(got->frozen, want->frozen);
	ck_assert_int_eq(got->speculative, want->speculative);
	for (int32_t k = 0; k < 2; ++k) {
		const f2d_contact_point *g = &got->points[k], *e = &want->points[k];
		ck_assert_msg(g->id == e->id && g->pn == e->pn && g->pt == e->pt &&
		                  g->r_a.x == e->r_a.x && g->r_a.y == e->r_a.y &&
		                  g->r_b.x == e->r_b.x && g->r_b.y == e->r_b.y &&
		                  g->separation == e->separation,
		              "step %d pair (%d, %d) point %d differs", step, got->shape_a,
		              got->shape_b, k);
	}
}

/* The arbiter the merge must make for pair (ia, ib) from prev (NULL: new); false for none. */
static bool expected_arbiter(const f2d_world *w, int32_t ia, int32_t ib, const f2d_arbiter *prev,
                             f2d_arbiter *out)
{
	const f2d_shape *sa = &w->shapes[ia], *sb = &w->shapes[ib];
	const f2d_body *ba = &w->bodies[sa->body], *bb = &w->bodies[sb->body];
	memset(out, 0, sizeof *out);
	if (prev != NULL && !f2d_body_active(&w->bodies[prev->body_a]) &&
	    !f2d_body_active(&w->bodies[prev->body_b])) {
		*out = *prev;
		out->frozen = true;
		return true;
	}
	fix16_t spec = f2d_pair_speculative(w, sa, sb);
	/* contact recycling (issue 16): prev kept by the rule (test_narrow checks the rule, and
	 * that keeping a recycled manifold is recycling it again) */
	if (prev != NULL && prev->recycle && f2d_recycle_arbiter(w, prev, out, spec)) {
		return true;
	}
	f2d_manifold m;
	f2d_collide(sa, sb, spec, &m);
	if (m.count == 0) {
		return false;
	}
	out->shape_a = ia;
	out->shape_b = ib;
	out->body_a = sa->body;
	out->body_b = sb->body;
	out->friction = prev != NULL ? prev->friction : f2d_sqrt(f2d_mul(sa->friction, sb->friction));
	out->restitution = prev != NULL ? prev->restitution : f2d_max(sa->restitution, sb->restitution);
	out->normal = m.normal;
	out->count = m.count;
	out->speculative = spec;
	int32_t old_count = prev != NULL && w->def.warm_starting ? prev->count : 0;
	for (int32_t i = 0; i < m.count; ++i) {
		f2d_contact_point *cp = &out->points[i];
		cp->id = m.points[i].id;
		cp->separation = m.points[i].separation;
		cp->r_a = f2d_sub(m.points[i].point, ba->center);
		cp->r_b = f2d_sub(m.points[i].point, bb->center);
		for (int32_t k = 0; k < old_count; ++k) {
			if (prev->points[k].id == cp->id) {
				cp->pn = prev->points[k].pn;
				cp->pt = prev->points[k].pt;
				break;
			}
		}
	}
	return true;
}

typedef struct merge_counts {
	int64_t checked, queued, slid, dropped_in_place, frozen, sensor_pairs;
	int64_t records, unmoved_records; /* shape records checked, those not remade */
} merge_counts;

/* The merge's per-shape records (core.h f2d_shape_step) after an f2d_find_pairs call: each live
 * shape's sweep and turn, whether its cache was remade (the bitmap after the pair keys) and, with
 * bodies, whether its body can move (bodies false: after a step, which may have put bodies to
 * sleep since its call). */
static void check_records(const f2d_world *w, bool bodies, int32_t step, merge_counts *n)
{
	const uint64_t *moved = w->pairs + w->pair_count;
	for (int32_t i = 0; i < w->shape_ids.next; ++i) {
		const f2d_shape *s = &w->shapes[i];
		if (!s->alive) {
			continue;
		}
		const f2d_shape_step *r = &w->bpc.step[i];
		bool bit = ((moved[i >> 6] >> (i & 63)) & 1u) != 0;
		ck_assert_msg(r->sweep.x == s->sweep.x && r->sweep.y == s->sweep.y &&
		                  r->turn == s->turn && ((r->flags & F2D_STEP_MOVED) != 0) == bit &&
		                  (r->flags & ~(F2D_STEP_MOVED | F2D_STEP_ACTIVE)) == 0,
		              "step %d: shape %d's record differs from the shape", step, i);
		if (bodies) {
			ck_assert_msg(((r->flags & F2D_STEP_ACTIVE) != 0) ==
			                  f2d_body_active(&w->bodies[s->body]),
			              "step %d: shape %d's record: its body's activity differs", step, i);
		}
		n->records++;
		n->unmoved_records += bit ? 0 : 1;
	}
}

/* One f2d_update_contacts on a clone of w, checked against the definition. */
static void check_merge(f2d_world *w, int32_t step, merge_counts *n)
{
	f2d_world *c = NULL;
	ck_assert_int_eq(f2d_world_clone(w, &c), F2D_OK);
	int32_t old_count = c->arbiter_count;
	f2d_arbiter *olds = malloc(sizeof(f2d_arbiter) * (size_t)(old_count > 0 ? old_count : 1));
	ck_assert_ptr_nonnull(olds);
	memcpy(olds, c->arbiters, sizeof(f2d_arbiter) * (size_t)old_count);
	ck_assert_int_eq(f2d_update_contacts(c), F2D_OK);
	check_records(c, true, step, n);
	int32_t k = 0, old = 0, excess = 0;
	for (int32_t p = 0; p < c->pair_count; ++p) {
		uint64_t key = c->pairs[p];
		int32_t ia = (int32_t)(key >> 32), ib = (int32_t)(key & 0xFFFFFFFFu);
		if (c->shapes[ia].is_sensor || c->shapes[ib].is_sensor) {
			n->sensor_pairs++;
			continue;
		}
		/* where the in-place merge is in its array: olds before key are gone (excess: the
		 * arbiters written minus the olds read, > 0 when an old had to be queued) */
		while (old < old_count && key_of(&olds[old]) < key) {
			++old;
			--excess;
		}
		const f2d_arbiter *prev = find_old(olds, old_count, key);
		f2d_arbiter want;
		if (!expected_arbiter(c, ia, ib, prev, &want)) {
			n->dropped_in_place += prev != NULL && excess == 0 && old == k ? 1 : 0;
			continue;
		}
		ck_assert_int_lt(k, c->arbiter_count);
		expect_equal(&c->arbiters[k], &want, step);
		n->checked++;
		n->frozen += want.frozen ? 1 : 0;
		if (prev != NULL) {
			n->queued += excess > 0 ? 1 : 0;
			n->slid += excess < 0 ? 1 : 0;
			++old;
			--excess;
		}
		++excess;
		++k;
	}
	ck_assert_int_eq(k, c->arbiter_count);
	free(olds);
	f2d_destroy_world(c);
}

static f2d_body_id body_handle(const f2d_world *w, int32_t i)
{
	f2d_body_id id = {i + 1, w->bodies[i].generation};
	return id;
}

static bool is_dynamic(const f2d_world *w, int32_t i)
{
	return w->bodies[i].alive && w->bodies[i].type == F2D_DYNAMIC_BODY;
}

/* Stirs the world: swaps two dynamic bodies (their pairs vanish and appear far apart in key
 * order), lifts one away for a while, pushes another. */
static void stir(f2d_world *w, uint64_t *seed, int32_t step)
{
	int32_t nb = w->body_ids.next;
	int32_t a = rng_int(seed, 0, nb - 1), b = rng_int(seed, 0, nb - 1);
	if (step % 3 == 0 && a != b && is_dynamic(w, a) && is_dynamic(w, b)) {
		f2d_vec2 pa = w->bodies[a].origin, pb = w->bodies[b].origin;
		f2d_rot qa = w->bodies[a].q, qb = w->bodies[b].q;
		ck_assert_int_eq(f2d_body_set_transform(w, body_handle(w, a), pb, qb), F2D_OK);
		ck_assert_int_eq(f2d_body_set_transform(w, body_handle(w, b), pa, qa), F2D_OK);
	}
	int32_t c = rng_int(seed, 0, nb - 1);
	if (step % 5 == 0 && is_dynamic(w, c)) {
		f2d_vec2 p = w->bodies[c].origin;
		p.y += F2D_FIX(3);
		ck_assert_int_eq(f2d_body_set_transform(w, body_handle(w, c), p, w->bodies[c].q),
		                 F2D_OK);
	}
	int32_t d = rng_int(seed, 0, nb - 1);
	if (step % 7 == 0 && is_dynamic(w, d)) {
		f2d_vec2 j = {rng_int(seed, -F2D_FIX(3), F2D_FIX(3)), rng_int(seed, 0, F2D_FIX(4))};
		ck_assert_int_eq(f2d_body_apply_linear_impulse(w, body_handle(w, d), j,
		                                               w->bodies[d].center),
		                 F2D_OK);
	}
}

START_TEST(in_place_merge_matches_definition)
{
	static const char *const scenes[] = {"pyramid", "circles", "sensor_gates", "ray_field",
	                                     "polygons", "dominos"};
	const char *scene = scenes[_i / 2];
	f2d_world_def def = f2d_default_world_def();
	def.enable_sleep = _i % 2 == 0;
	def.warm_starting = _i % 4 != 3;
	f2d_world *w = NULL;
	ck_assert_int_eq(f2d_scene_create(scene, &def, &w), F2D_OK);
	uint64_t seed = 7u + (uint64_t)_i;
	merge_counts n = {0, 0, 0, 0, 0, 0, 0, 0};
	for (int32_t step = 1; step <= 240; ++step) {
		if (step > 30) {
			stir(w, &seed, step);
		}
		check_merge(w, step, &n);
		ck_assert_int_eq(f2d_world_step(w), F2D_OK);
		check_records(w, false, step, &n);
	}
	/* every path of the merge ran */
	ck_assert_int_gt(n.checked, 1000);
	ck_assert_int_gt(n.unmoved_records, 0);
	ck_assert_int_gt(n.queued, 0);
	ck_assert_int_gt(n.slid, 0);
	if (strcmp(scene, "sensor_gates") == 0) {
		ck_assert_int_gt(n.sensor_pairs, 0);
	}
	f2d_destroy_world(w);
}
END_TEST

/* rain1000 as the benchmark runs it: the counts of each path, and the whole run checked */
START_TEST(in_place_merge_rain1000)
{
	f2d_world_def def = f2d_default_world_def();
	def.enable_sleep = false;
	f2d_world *w = NULL;
	ck_assert_int_eq(f2d_scene_create("rain1000", &def, &w), F2D_OK);
	merge_counts n = {0, 0, 0, 0, 0, 0, 0, 0};
	for (int32_t step = 1; step <= 200; ++step) {
		if (step % 4 == 0) {
			check_merge(w, step, &n);
		}
		ck_assert_int_eq(f2d_world_step(w), F2D_OK);
	}
	ck_assert_int_gt(n.checked, 10000);
	ck_assert_int_gt(n.queued, 0);
	ck_assert_int_gt(n.slid, 0);
	f2d_destroy_world(w);
}
END_TEST

/* The merge's f2d_step_speculative against f2d_pair_speculative over the records' ranges: sweeps
 * at 0, a quantum, and +-max_translation's most (64 m), turns at 0, the quantum's edges and the
 * most (2^21), speculative distances small and large. */
START_TEST(step_speculative_matches_definition)
{
	static const fix16_t sw[] = {0, 256, -256, 512, -F2D_FIX(64), F2D_FIX(64), F2D_FIX(3) + 256};
	static const fix16_t tu[] = {0, 1, 127, 128, 255, 256, 257, 511, 1 << 20, 1 << 21};
	static const fix16_t spd[] = {F2D_MILLI(40), F2D_MILLI(1), F2D_FIX(1) / 4, 1, F2D_FIX(2)};
	const int32_t ns = (int32_t)(sizeof sw / sizeof sw[0]), nt = (int32_t)(sizeof tu / sizeof tu[0]);
	f2d_world_def def = f2d_default_world_def();
	f2d_world *w = NULL;
	ck_assert_int_eq(f2d_create_world(&def, &w), F2D_OK);
	f2d_shape *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	int64_t checked = 0, grown = 0;
	for (size_t d = 0; d < sizeof spd / sizeof spd[0]; ++d) {
		w->def.speculative_distance = spd[d];
		for (int32_t k = 0; k < ns * ns * nt * nt; ++k) {
			a->sweep = f2d_v(sw[k % ns], sw[(k / ns) % ns]);
			b->sweep = f2d_v(sw[(k / ns / ns) % ns], sw[(k + 3) % ns]);
			a->turn = tu[(k / ns / ns / ns) % nt];
			b->turn = tu[(k / ns / ns / ns / nt) % nt];
			f2d_shape_step ra = {a->sweep, a->turn, 0}, rb = {b->sweep, b->turn, 0};
			fix16_t want = f2d_pair_speculative(w, a, b);
			ck_assert_int_eq(f2d_step_speculative(spd[d], &ra, &rb), want);
			grown += want != spd[d] ? 1 : 0;
			++checked;
		}
	}
	ck_assert_int_gt(grown, 0);
	ck_assert_int_lt(grown, checked);
	free(a);
	free(b);
	f2d_destroy_world(w);
}
END_TEST

static Suite *merge_suite(void)
{
	Suite *s = suite_create("merge");
	TCase *tc = tcase_create("merge");
	tcase_add_loop_test(tc, in_place_merge_matches_definition, 0, 12);
	tcase_add_test(tc, in_place_merge_rain1000);
	tcase_add_test(tc, step_speculative_matches_definition);
	tcase_set_timeout(tc, 600);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(merge_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
