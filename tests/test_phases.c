/* fix2d tests: the traced step (f2d_world_step_traced) and the contact getter.
 * SPDX-License-Identifier: MIT
 *
 * Public API only. The CLI side (run --phases, diff --phases, a perturbed build) is
 * tests/replay/pictures.sh.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fix2d/fix2d.h"
#include "fix2d/scenes.h"
#include "fix2d/snapshot.h"

static f2d_world *scene(const char *name)
{
	f2d_world *w = NULL;
	ck_assert_int_eq(f2d_scene_create(name, NULL, &w), F2D_OK);
	return w;
}

static f2d_world *portable_copy(f2d_world *w)
{
	size_t need = f2d_snapshot_portable_size(w), len = 0;
	void *buf = malloc(need);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(f2d_snapshot_save_portable(w, buf, need, &len), F2D_OK);
	f2d_world *c = NULL;
	ck_assert_int_eq(f2d_snapshot_load_new(buf, len, NULL, &c), F2D_OK);
	free(buf);
	return c;
}

/* The traced step is the step: same results and hashes, step after step, in scenes with
 * contacts, joints and sleep. */
START_TEST(traced_step_is_the_step)
{
	static const char *const names[] = {"pyramid20", "bridge", "dominos", "single_box",
	                                    "chain50"};
	for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
		f2d_world *a = scene(names[k]), *b = scene(names[k]);
		uint64_t previous[F2D_PHASE_COUNT] = {0};
		int changed[F2D_PHASE_COUNT] = {0};
		for (int i = 1; i <= 300; ++i) {
			f2d_phase_hashes t;
			memset(&t, 0xAB, sizeof t);
			f2d_result ra = f2d_world_step(a);
			f2d_result rb = f2d_world_step_traced(b, &t);
			ck_assert_int_eq(ra, rb);
			ck_assert_uint_eq(f2d_world_hash(a), f2d_world_hash(b));
			ck_assert_uint_eq(t.state, f2d_world_hash(b));
			ck_assert_uint_eq(t.step, (uint64_t)i);
			for (int p = 0; p < F2D_PHASE_COUNT; ++p) {
				changed[p] += i > 1 && t.phase[p] != previous[p];
				previous[p] = t.phase[p];
			}
		}
		/* every phase was really hashed: velocities and positions change as things move */
		ck_assert_msg(changed[F2D_PHASE_VELOCITIES] > 0 && changed[F2D_PHASE_POSITIONS] > 0,
		              "%s: phase hashes never change", names[k]);
		f2d_destroy_world(a);
		f2d_destroy_world(b);
	}
}
END_TEST

/* A world loaded from its portable snapshot traces the same phase hashes as the original,
 * also with sleeping bodies whose frozen arbiters have no manifold after the load. */
START_TEST(phases_survive_a_snapshot)
{
	static const char *const names[] = {"pyramid20", "single_box", "dominos", "bridge"};
	static const int at[] = {400, 200, 250, 150};
	for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
		f2d_world *a = scene(names[k]);
		for (int i = 0; i < at[k]; ++i) {
			f2d_world_step(a);
		}
		f2d_world *b = portable_copy(a);
		for (int i = 0; i < 120; ++i) {
			f2d_phase_hashes ta, tb;
			ck_assert_int_eq(f2d_world_step_traced(a, &ta), f2d_world_step_traced(b, &tb));
			for (int p = 0; p < F2D_PHASE_COUNT; ++p) {
				ck_assert_msg(ta.phase[p] == tb.phase[p],
				              "%s: step %d after the load: phase %s differs", names[k],
				              i + 1, f2d_phase_name((f2d_phase)p));
			}
			ck_assert_uint_eq(ta.state, tb.state);
		}
		f2d_destroy_world(a);
		f2d_destroy_world(b);
	}
}
END_TEST

/* A change in one phase's input shows first in that phase: one LSB of one velocity before a
 * step changes the velocities of the step (pairs and manifolds of that step stay). */
START_TEST(first_phase_that_differs)
{
	f2d_world *a = scene("pyramid20"), *b = scene("pyramid20");
	for (int i = 0; i < 30; ++i) {
		f2d_world_step(a);
		f2d_world_step(b);
	}
	f2d_body_id ids[2];
	ck_assert_int_ge(f2d_world_get_bodies(b, ids, 2), 2);
	f2d_vec2 v = f2d_body_get_linear_velocity(b, ids[1]);
	v.x += 1;
	ck_assert_int_eq(f2d_body_set_linear_velocity(b, ids[1], v), F2D_OK);
	f2d_phase_hashes ta, tb;
	f2d_world_step_traced(a, &ta);
	f2d_world_step_traced(b, &tb);
	ck_assert_uint_eq(ta.phase[F2D_PHASE_PAIRS], tb.phase[F2D_PHASE_PAIRS]);
	ck_assert_uint_eq(ta.phase[F2D_PHASE_MANIFOLDS], tb.phase[F2D_PHASE_MANIFOLDS]);
	ck_assert_uint_ne(ta.phase[F2D_PHASE_VELOCITIES], tb.phase[F2D_PHASE_VELOCITIES]);
	f2d_destroy_world(a);
	f2d_destroy_world(b);
}
END_TEST

START_TEST(names_and_errors)
{
	ck_assert_str_eq(f2d_phase_name(F2D_PHASE_PAIRS), "pairs");
	ck_assert_str_eq(f2d_phase_name(F2D_PHASE_MANIFOLDS), "manifolds");
	ck_assert_str_eq(f2d_phase_name(F2D_PHASE_VELOCITIES), "velocities");
	ck_assert_str_eq(f2d_phase_name(F2D_PHASE_POSITIONS), "positions");
	ck_assert_str_eq(f2d_phase_name(F2D_PHASE_ISLANDS), "islands");
	ck_assert_ptr_null(f2d_phase_name(F2D_PHASE_COUNT));
	ck_assert_ptr_null(f2d_phase_name((f2d_phase)-1));
	f2d_phase_hashes t;
	ck_assert_int_eq(f2d_world_step_traced(NULL, &t), F2D_ERROR_NULL_ARGUMENT);
	f2d_world *w = scene("single_box");
	ck_assert_int_eq(f2d_world_step_traced(w, NULL), F2D_OK); /* a plain step */
	f2d_world_stats s;
	f2d_world_get_stats(w, &s);
	ck_assert_uint_eq(s.step_count, 1);
	f2d_destroy_world(w);
}
END_TEST

/* Contacts: one record per arbiter in key order, points on the touching surfaces, geometry
 * unknown right after a snapshot load of a sleeping pair and known again after a step that
 * wakes it. */
START_TEST(contacts)
{
	f2d_world *w = scene("single_box");
	for (int i = 0; i < 300; ++i) {
		f2d_world_step(w);
	}
	f2d_world_stats s;
	f2d_world_get_stats(w, &s);
	int32_t n = f2d_world_get_contacts(w, NULL, 0);
	ck_assert_int_eq(n, s.arbiter_count);
	ck_assert_int_eq(n, 1);
	f2d_contact_data c[2];
	ck_assert_int_eq(f2d_world_get_contacts(w, c, 2), 1);
	ck_assert(c[0].geometry_known);
	ck_assert_int_eq(c[0].point_count, 2);
	ck_assert_int_lt(c[0].shape_a.index1, c[0].shape_b.index1);
	/* the ground's top is y = 0: both points within the slop of it, normal (0, 1) */
	for (int k = 0; k < 2; ++k) {
		ck_assert_int_lt(abs(c[0].points[k].point.y), F2D_MILLI(20));
		ck_assert_int_gt(c[0].points[k].normal_impulse, 0);
	}
	ck_assert_int_eq(c[0].normal.x, 0);
	ck_assert_int_eq(c[0].normal.y, F2D_ONE);
	/* asleep (the box slept by step 300): a loaded copy knows ids and impulses only */
	f2d_body_id ids[2];
	ck_assert_int_eq(f2d_world_get_bodies(w, ids, 2), 2);
	ck_assert(!f2d_body_is_awake(w, ids[1]));
	f2d_world *l = portable_copy(w);
	f2d_contact_data d[2];
	ck_assert_int_eq(f2d_world_get_contacts(l, d, 2), 1);
	/* ... and, as contact recycling is on by default (issue 16), its manifold, which is
	 * state: the copy knows the geometry, the original's */
	ck_assert(d[0].geometry_known);
	ck_assert_int_eq(d[0].normal.y, c[0].normal.y);
	ck_assert_int_eq(d[0].points[1].point.x, c[0].points[1].point.x);
	ck_assert_int_eq(d[0].points[0].separation, c[0].points[0].separation);
	ck_assert_uint_eq(d[0].points[0].id, c[0].points[0].id);
	ck_assert_int_eq(d[0].points[0].normal_impulse, c[0].points[0].normal_impulse);
	ck_assert_int_eq(f2d_body_set_awake(l, ids[1], true), F2D_OK);
	f2d_world_step(l);
	ck_assert_int_eq(f2d_world_get_contacts(l, d, 2), 1);
	ck_assert(d[0].geometry_known);
	ck_assert_int_eq(f2d_world_get_contacts(NULL, d, 2), 0);
	f2d_destroy_world(l);
	f2d_destroy_world(w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("phases");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, traced_step_is_the_step);
	tcase_add_test(tc, phases_survive_a_snapshot);
	tcase_add_test(tc, first_phase_that_differs);
	tcase_add_test(tc, names_and_errors);
	tcase_add_test(tc, contacts);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
