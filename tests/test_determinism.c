/* fix2d tests: determinism and the state hash.
 * SPDX-License-Identifier: MIT
 *
 *  - every scene run twice gives the same hash after every step;
 *  - the final hash of every scene equals the committed golden value (tests/golden/);
 *  - perturbing any single state field by one LSB changes the hash, and restoring it restores
 *    the hash (the hash covers everything that determines the future);
 *  - the hash is a function of the encoded state, not of memory: a world rebuilt from scratch
 *    in the same order hashes the same; unused capacity and per-step caches do not matter.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "fix2d/fix2d.h"
#include "fix2d/scenes.h"

static int32_t steps_for(const char *scene)
{
	/* rain1000 is the expensive one; the large_* scenes (1k..10k boxes) are benchmarks */
	if (strncmp(scene, "large_", 6) == 0) {
		return 10;
	}
	return strcmp(scene, "rain1000") == 0 ? 120 : 300;
}

static f2d_world *make(const char *scene)
{
	f2d_world *w = NULL;
	ck_assert_int_eq(f2d_scene_create(scene, NULL, &w), F2D_OK);
	return w;
}

START_TEST(scenes_repeat_exactly)
{
	for (int32_t s = 0; s < f2d_scene_count(); ++s) {
		const char *name = f2d_scene_name(s);
		f2d_world *a = make(name);
		f2d_world *b = make(name);
		ck_assert_uint_eq(f2d_world_hash(a), f2d_world_hash(b));
		int32_t n = steps_for(name);
		for (int32_t i = 0; i < n; ++i) {
			f2d_result ra = f2d_world_step(a);
			f2d_result rb = f2d_world_step(b);
			ck_assert_int_eq(ra, rb);
			uint64_t ha = f2d_world_hash(a), hb = f2d_world_hash(b);
			ck_assert_msg(ha == hb, "%s: hashes differ at step %d", name, i + 1);
		}
		f2d_destroy_world(a);
		f2d_destroy_world(b);
	}
}
END_TEST

/* tests/golden/final_hashes.txt: "<scene> <steps> <16 hex digits>" per line. Regenerate with
 * `fix2d-replay run SCENE --steps N` only in a commit that says why the simulation changed. */
START_TEST(golden_final_hashes)
{
	const char *dir = getenv("F2D_GOLDEN_DIR");
	ck_assert_msg(dir != NULL, "F2D_GOLDEN_DIR is not set");
	char path[1024];
	snprintf(path, sizeof path, "%s/final_hashes.txt", dir);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	char name[64];
	int steps;
	char hex[32];
	int checked = 0;
	bool seen[64] = {false};
	while (fscanf(f, "%63s %d %31s", name, &steps, hex) == 3) {
		int32_t idx = f2d_scene_find(name);
		ck_assert_msg(idx >= 0, "golden file names unknown scene %s", name);
		uint64_t expected = strtoull(hex, NULL, 16);
		f2d_world *w = make(name);
		for (int i = 0; i < steps; ++i) {
			f2d_world_step(w);
		}
		uint64_t got = f2d_world_hash(w);
		ck_assert_msg(got == expected,
		              "%s after %d steps: hash %016" PRIx64 ", golden %016" PRIx64, name,
		              steps, got, expected);
		f2d_destroy_world(w);
		seen[idx] = true;
		++checked;
	}
	fclose(f);
	for (int32_t s = 0; s < f2d_scene_count(); ++s) {
		ck_assert_msg(seen[s], "no golden hash for scene %s", f2d_scene_name(s));
	}
	ck_assert_int_ge(checked, f2d_scene_count());
}
END_TEST

/* Perturb one int32-sized field by delta and check the hash moves, then restore it. The poke
 * bypasses the API, so the hash is the reference one (shape digests from the records, not the
 * cache the API keeps fresh: tests/test_hash_cache.c). */
#define FLIP_BY(w, base, field, delta)                                                             \
	do {                                                                                       \
		uint64_t h0 = f2d_hash_world_reference(w);                                         \
		int32_t *p = (int32_t *)(void *)&(base)->field;                                    \
		*p += (delta);                                                                     \
		ck_assert_msg(f2d_hash_world_reference(w) != h0, "hash ignores " #field);          \
		*p -= (delta);                                                                     \
		ck_assert_msg(f2d_hash_world_reference(w) == h0,                                   \
		              "restoring " #field " did not restore hash");                        \
		++flipped;                                                                         \
	} while (0)
#define FLIP(w, base, field) FLIP_BY(w, base, field, 1)

START_TEST(every_field_is_hashed)
{
	/* bridge: bodies, joints and (after some steps) contacts with warm-start impulses */
	f2d_world *w = make("dominos");
	for (int i = 0; i < 90; ++i) {
		f2d_world_step(w);
	}
	ck_assert_int_gt(w->arbiter_count, 0);
	ck_assert_int_gt(w->joint_count, 0);
	int flipped = 0;

	FLIP(w, w, step_count);
	FLIP(w, w, gravity.x);
	FLIP(w, w, gravity.y);
	FLIP(w, w, h);
	FLIP(w, &w->def, iterations);
	FLIP(w, &w->def, joint_position_iterations);
	FLIP(w, &w->def, bias_factor);
	FLIP(w, &w->def, linear_slop);
	FLIP(w, &w->def, speculative_distance);
	FLIP(w, &w->def, restitution_threshold);
	FLIP(w, &w->def, max_translation);
	FLIP(w, &w->def, max_rotation);
	FLIP_BY(w, &w->body_ids, next, -1); /* +1 would read past the array */

	f2d_body *b = &w->bodies[3];
	ck_assert(b->alive && b->type == F2D_DYNAMIC_BODY);
	FLIP(w, b, generation);
	FLIP(w, b, type);
	FLIP(w, b, origin.x);
	FLIP(w, b, origin.y);
	FLIP(w, b, q.c);
	FLIP(w, b, q.s);
	FLIP(w, b, center.x);
	FLIP(w, b, center.y);
	FLIP(w, b, local_center.x);
	FLIP(w, b, local_center.y);
	FLIP(w, b, v.x);
	FLIP(w, b, v.y);
	FLIP(w, b, w);
	FLIP(w, b, force.x);
	FLIP(w, b, force.y);
	FLIP(w, b, torque);
	FLIP(w, b, mass);
	FLIP(w, b, inertia);
	FLIP(w, b, sleep_time);
	/* hash format 4 leaves out what is derived from hashed state (as the snapshots do): the
	 * inverses of mass and inertia, the body's shape list and joint count, a shape's list
	 * link. They are what the hashed fields make them: */
	for (int32_t bi = 0; bi < w->body_ids.next; ++bi) {
		const f2d_body *x = &w->bodies[bi];
		if (!x->alive) {
			continue;
		}
		if (x->type == F2D_DYNAMIC_BODY) {
			ck_assert_int_eq(x->inv_mass, f2d_div_exact((int64_t)1 << 16, x->mass));
			ck_assert_int_eq(x->inv_inertia,
			                 x->inertia == 0 || x->fixed_rotation
			                     ? 0
			                     : f2d_div_exact((int64_t)1 << 16, x->inertia));
		}
		int32_t first = F2D_NULL_INDEX, last = F2D_NULL_INDEX, joints = 0;
		for (int32_t si = 0; si < w->shape_ids.next; ++si) {
			const f2d_shape *y = &w->shapes[si];
			if (y->alive && y->body == bi) {
				if (first == F2D_NULL_INDEX) {
					first = si;
				} else {
					ck_assert_int_eq(w->shapes[last].next, si);
				}
				last = si;
			}
		}
		ck_assert_int_eq(x->shape_list, first);
		if (last != F2D_NULL_INDEX) {
			ck_assert_int_eq(w->shapes[last].next, F2D_NULL_INDEX);
		}
		for (int32_t ji = 0; ji < w->joint_ids.next; ++ji) {
			const f2d_joint *y = &w->joints[ji];
			joints += y->alive && (y->body_a == bi || y->body_b == bi) ? 1 : 0;
		}
		ck_assert_int_eq(x->joint_count, joints);
	}

	f2d_shape *s = &w->shapes[3];
	ck_assert(s->alive && s->type == F2D_POLYGON_SHAPE);
	FLIP(w, s, generation);
	FLIP(w, s, body);
	FLIP(w, s, density);
	FLIP(w, s, friction);
	FLIP(w, s, restitution);
	FLIP(w, s, polygon.vertices[1].x);
	FLIP(w, s, polygon.normals[2].y);
	FLIP(w, s, polygon.centroid.x);
	FLIP(w, s, polygon.count);
	for (int32_t i = 0; i < w->shape_ids.next; ++i) {
		f2d_shape *c = &w->shapes[i];
		if (c->alive && c->type == F2D_CIRCLE_SHAPE) {
			FLIP(w, c, circle.center.x);
			FLIP(w, c, circle.radius);
			break;
		}
	}

	f2d_joint *j = &w->joints[0];
	ck_assert(j->alive);
	FLIP(w, j, generation);
	FLIP(w, j, body_a);
	FLIP(w, j, body_b);
	FLIP(w, j, local_a.x);
	FLIP(w, j, local_b.y);
	FLIP(w, j, reference_angle);
	FLIP(w, j, lower);
	FLIP(w, j, upper);
	FLIP(w, j, motor_speed);
	FLIP(w, j, max_motor_torque);
	FLIP(w, j, impulse.x);
	FLIP(w, j, impulse.y);
	FLIP(w, j, motor_impulse);
	FLIP(w, j, lower_impulse);
	FLIP(w, j, upper_impulse);

	f2d_arbiter *a = &w->arbiters[0];
	FLIP(w, a, shape_a);
	FLIP(w, a, shape_b);
	FLIP(w, a, friction);
	FLIP(w, a, restitution);
	FLIP(w, a, points[0].id);
	FLIP(w, a, points[0].pn);
	FLIP(w, a, points[0].pt);
	FLIP_BY(w, w, arbiter_count, -1);

	/* flags are bytes: flip them as bools */
	uint64_t h0 = f2d_world_hash(w);
	j->enable_limit = !j->enable_limit;
	ck_assert(f2d_world_hash(w) != h0);
	j->enable_limit = !j->enable_limit;
	w->def.warm_starting = !w->def.warm_starting;
	ck_assert(f2d_world_hash(w) != h0);
	w->def.warm_starting = !w->def.warm_starting;
	ck_assert(f2d_world_hash(w) == h0);

	ck_assert_int_ge(flipped, 60);
	f2d_destroy_world(w);
}
END_TEST

START_TEST(hash_ignores_memory_and_caches)
{
	f2d_world *w = make("pyramid");
	f2d_world_def def = f2d_default_world_def();
	def.body_capacity = 1000; /* different capacities: different memory, same state */
	def.contact_capacity = 3000;
	f2d_world *v = NULL;
	ck_assert_int_eq(f2d_scene_create("pyramid", &def, &v), F2D_OK);
	for (int i = 0; i < 60; ++i) {
		f2d_world_step(w);
		f2d_world_step(v);
		ck_assert_uint_eq(f2d_world_hash(w), f2d_world_hash(v));
	}
	/* per-step caches (AABBs, world-space polygons, solver data) are not state */
	uint64_t h0 = f2d_world_hash(w);
	w->shapes[1].aabb.lower.x += 1;
	w->shapes[1].world_polygon.vertices[0].x += 1;
	w->batches[0].p[0].mass_n[0] += 1;
	ck_assert_uint_eq(f2d_world_hash(w), h0);
	/* user data is not state */
	f2d_body_id ids[2];
	f2d_world_get_bodies(w, ids, 2);
	ck_assert_int_eq(f2d_body_set_user_data(w, ids[1], 12345), F2D_OK);
	ck_assert_uint_eq(f2d_world_hash(w), h0);
	f2d_destroy_world(w);
	f2d_destroy_world(v);
}
END_TEST

/* Two worlds fed the same creates and destroys, with handle reuse, stay identical. */
START_TEST(create_destroy_sequence)
{
	f2d_world *w[2];
	for (int k = 0; k < 2; ++k) {
		f2d_world_def def = f2d_default_world_def();
		def.body_capacity = k == 0 ? 4 : 64;
		ck_assert_int_eq(f2d_create_world(&def, &w[k]), F2D_OK);
	}
	f2d_body_id live[2][32];
	int n = 0;
	uint32_t rng = 12345;
	for (int round = 0; round < 200; ++round) {
		rng = rng * 1664525u + 1013904223u;
		bool create = n == 0 || (n < 32 && (rng >> 28) < 10);
		int victim = n > 0 ? (int)((rng >> 8) % (uint32_t)n) : 0;
		for (int k = 0; k < 2; ++k) {
			if (create) {
				f2d_body_def bd = f2d_default_body_def();
				bd.type = F2D_DYNAMIC_BODY;
				bd.position = f2d_v(F2D_FIX((int32_t)(round % 17) - 8),
				                    F2D_FIX(2 + round % 5));
				ck_assert_int_eq(f2d_create_body(w[k], &bd, &live[k][n]), F2D_OK);
				f2d_polygon p;
				ck_assert_int_eq(f2d_make_box(F2D_MILLI(400), F2D_MILLI(300), &p),
				                 F2D_OK);
				f2d_shape_def sd = f2d_default_shape_def();
				f2d_shape_id sid;
				ck_assert_int_eq(
				    f2d_create_polygon_shape(w[k], live[k][n], &sd, &p, &sid),
				    F2D_OK);
			} else {
				ck_assert_int_eq(f2d_destroy_body(w[k], live[k][victim]), F2D_OK);
				live[k][victim] = live[k][n - 1];
			}
			f2d_world_step(w[k]);
		}
		n += create ? 1 : -1;
		for (int i = 0; i < n; ++i) {
			ck_assert_int_eq(live[0][i].index1, live[1][i].index1);
			ck_assert_uint_eq(live[0][i].generation, live[1][i].generation);
		}
		ck_assert_uint_eq(f2d_world_hash(w[0]), f2d_world_hash(w[1]));
	}
	f2d_destroy_world(w[0]);
	f2d_destroy_world(w[1]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("determinism");
	TCase *tc = tcase_create("hash");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, scenes_repeat_exactly);
	tcase_add_test(tc, golden_final_hashes);
	tcase_add_test(tc, every_field_is_hashed);
	tcase_add_test(tc, hash_ignores_memory_and_caches);
	tcase_add_test(tc, create_destroy_sequence);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
