/* fix2d tests: the state hash's cached shape digests (hash format 3) are never stale.
 * SPDX-License-Identifier: MIT
 *
 * f2d_world_hash folds each shape's cached digest (f2d_shape.digest); f2d_hash_world_reference
 * recomputes every digest from the shape's record. After every kind of mutation (each public
 * setter, create and destroy of shapes, bodies and joints, commands, steps, in-process restore,
 * portable load, clone) the two must agree. (FIX2D_SANITIZE builds also check this inside every
 * f2d_world_hash call: F2D_HASH_CHECK.)
 */
#include "snapshot_common.h"

#include "fix2d/input.h"

#define FRESH(w)                                                                                   \
	ck_assert_msg(f2d_world_hash(w) == f2d_hash_world_reference(w),                            \
	              "fast hash differs from the reference (a stale shape digest or a fast "      \
	              "encoder) at line %d",                                                       \
	              __LINE__)

static f2d_world *new_world(void)
{
	f2d_world_def d = f2d_default_world_def();
	f2d_world *w = NULL;
	CHECK_OK(f2d_create_world(&d, &w));
	return w;
}

static f2d_body_id add_body(f2d_world *w, f2d_body_type type, fix16_t x, fix16_t y)
{
	f2d_body_def bd = f2d_default_body_def();
	bd.type = type;
	bd.position.x = x;
	bd.position.y = y;
	f2d_body_id b;
	CHECK_OK(f2d_create_body(w, &bd, &b));
	return b;
}

static f2d_shape_id add_box(f2d_world *w, f2d_body_id b, fix16_t hx, fix16_t hy)
{
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_polygon p;
	CHECK_OK(f2d_make_box(hx, hy, &p));
	f2d_shape_id s;
	CHECK_OK(f2d_create_polygon_shape(w, b, &sd, &p, &s));
	return s;
}

static f2d_shape_id add_circle(f2d_world *w, f2d_body_id b, fix16_t r, fix16_t cx)
{
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_circle c;
	c.center.x = cx;
	c.center.y = 0;
	c.radius = r;
	f2d_shape_id s;
	CHECK_OK(f2d_create_circle_shape(w, b, &sd, &c, &s));
	return s;
}

START_TEST(every_mutation_keeps_digests_fresh)
{
	f2d_world *w = new_world();
	FRESH(w);
	f2d_body_id ground = add_body(w, F2D_STATIC_BODY, 0, 0);
	add_box(w, ground, F2D_FIX(10), F2D_ONE);
	FRESH(w);
	f2d_body_id a = add_body(w, F2D_DYNAMIC_BODY, 0, F2D_FIX(3));
	f2d_shape_id a1 = add_box(w, a, (F2D_ONE / 2), (F2D_ONE / 2));
	f2d_shape_id a2 = add_circle(w, a, (F2D_ONE / 2), F2D_ONE);
	f2d_shape_id a3 = add_box(w, a, (F2D_ONE / 4), (F2D_ONE / 4));
	f2d_body_id b = add_body(w, F2D_DYNAMIC_BODY, F2D_FIX(2), F2D_FIX(3));
	add_box(w, b, (F2D_ONE / 2), (F2D_ONE / 2));
	FRESH(w);
	/* material setters, accepted and refused */
	CHECK_OK(f2d_shape_set_friction(w, a1, (F2D_ONE * 3 / 10)));
	FRESH(w);
	ck_assert(f2d_shape_set_friction(w, a1, -1) != F2D_OK);
	FRESH(w);
	CHECK_OK(f2d_shape_set_restitution(w, a2, (F2D_ONE / 2)));
	FRESH(w);
	ck_assert(f2d_shape_set_restitution(w, a2, F2D_FIX(2)) != F2D_OK);
	FRESH(w);
	CHECK_OK(f2d_shape_set_density(w, a3, F2D_FIX(3)));
	FRESH(w);
	ck_assert(f2d_shape_set_density(w, a3, 0) != F2D_OK);
	FRESH(w);
	f2d_filter f = f2d_default_filter();
	f.group_index = -2;
	CHECK_OK(f2d_shape_set_filter(w, a1, f));
	FRESH(w);
	/* body setters (none changes a shape record, but they must not disturb the cache) */
	f2d_rot r = {F2D_ONE, 0};
	CHECK_OK(f2d_body_set_transform(w, a, (f2d_vec2){F2D_ONE, F2D_FIX(4)}, r));
	CHECK_OK(f2d_body_set_linear_velocity(w, a, (f2d_vec2){F2D_ONE, 0}));
	CHECK_OK(f2d_body_set_angular_velocity(w, a, F2D_ONE));
	CHECK_OK(f2d_body_set_type(w, b, F2D_KINEMATIC_BODY));
	CHECK_OK(f2d_body_set_type(w, b, F2D_DYNAMIC_BODY));
	CHECK_OK(f2d_body_set_gravity_scale(w, a, (F2D_ONE / 2)));
	CHECK_OK(f2d_body_set_damping(w, a, (F2D_ONE / 10), (F2D_ONE / 10)));
	CHECK_OK(f2d_body_set_fixed_rotation(w, b, true));
	CHECK_OK(f2d_body_set_awake(w, b, true));
	FRESH(w);
	/* a joint */
	f2d_revolute_joint_def jd;
	CHECK_OK(f2d_init_revolute_joint_def(w, a, b, (f2d_vec2){F2D_ONE, F2D_FIX(3)}, &jd));
	f2d_joint_id j;
	CHECK_OK(f2d_create_revolute_joint(w, &jd, &j));
	FRESH(w);
	for (int i = 0; i < 10; ++i) {
		CHECK_OK(f2d_world_step(w));
		FRESH(w);
	}
	/* destroy the middle shape of a list, then the first, and reuse the slots */
	CHECK_OK(f2d_destroy_shape(w, a2));
	FRESH(w);
	CHECK_OK(f2d_destroy_shape(w, a1));
	FRESH(w);
	f2d_shape_id a4 = add_circle(w, a, (F2D_ONE * 3 / 10), 0); /* takes a freed slot */
	FRESH(w);
	(void)a4;
	CHECK_OK(f2d_destroy_joint(w, j));
	FRESH(w);
	/* snapshots: save, mutate, restore (in-process) */
	size_t cap = f2d_snapshot_size(w) + 4096, n = 0;
	uint8_t *mem = malloc(cap);
	ck_assert(mem != NULL);
	CHECK_OK(f2d_snapshot_save(w, mem, cap, &n));
	uint64_t saved = f2d_world_hash(w);
	CHECK_OK(f2d_shape_set_friction(w, a3, (F2D_ONE * 9 / 10)));
	CHECK_OK(f2d_destroy_body(w, b));
	FRESH(w);
	f2d_body_id c = add_body(w, F2D_DYNAMIC_BODY, F2D_FIX(-3), F2D_FIX(3));
	add_box(w, c, (F2D_ONE * 2 / 5), (F2D_ONE / 5));
	add_box(w, c, (F2D_ONE / 5), (F2D_ONE * 2 / 5));
	FRESH(w);
	CHECK_OK(f2d_snapshot_restore(w, mem, n));
	FRESH(w);
	ck_assert_uint_eq(f2d_world_hash(w), saved);
	/* restore into a fresh world (every slot differs) */
	f2d_world *w2 = new_world();
	CHECK_OK(f2d_snapshot_restore(w2, mem, n));
	FRESH(w2);
	ck_assert_uint_eq(f2d_world_hash(w2), saved);
	f2d_destroy_world(w2);
	/* portable: load into the mutated world and into a new one */
	size_t pcap = f2d_snapshot_portable_size(w), pn = 0;
	uint8_t *port = malloc(pcap);
	ck_assert(port != NULL);
	CHECK_OK(f2d_snapshot_save_portable(w, port, pcap, &pn));
	CHECK_OK(f2d_destroy_shape(w, a3));
	FRESH(w);
	CHECK_OK(f2d_snapshot_load(w, port, pn));
	FRESH(w);
	ck_assert_uint_eq(f2d_world_hash(w), saved);
	f2d_world_def d = f2d_default_world_def();
	f2d_world *w3 = NULL;
	CHECK_OK(f2d_snapshot_load_new(port, pn, &d, &w3));
	FRESH(w3);
	ck_assert_uint_eq(f2d_world_hash(w3), saved);
	/* clone, then mutate the clone only */
	f2d_world *w4 = NULL;
	CHECK_OK(f2d_world_clone(w3, &w4));
	FRESH(w4);
	ck_assert_uint_eq(f2d_world_hash(w4), saved);
	CHECK_OK(f2d_shape_set_restitution(w4, a3, (F2D_ONE / 4)));
	FRESH(w4);
	FRESH(w3);
	ck_assert_uint_eq(f2d_world_hash(w3), saved);
	ck_assert_uint_ne(f2d_world_hash(w4), saved);
	/* input commands: create (box, circle, polygon) and destroy bodies */
	f2d_command cmds[3];
	cmds[0] = f2d_default_command(F2D_CMD_CREATE_BODY, 0, 0);
	cmds[0].u.create.body.type = F2D_DYNAMIC_BODY;
	cmds[0].u.create.body.position.y = F2D_FIX(6);
	cmds[0].u.create.kind = F2D_SPAWN_BOX;
	cmds[0].u.create.half_extents = (f2d_vec2){(F2D_ONE / 2), (F2D_ONE / 2)};
	cmds[1] = f2d_default_command(F2D_CMD_CREATE_BODY, 0, 1);
	cmds[1].u.create.body.type = F2D_DYNAMIC_BODY;
	cmds[1].u.create.body.position = (f2d_vec2){F2D_FIX(3), F2D_FIX(6)};
	cmds[1].u.create.kind = F2D_SPAWN_CIRCLE;
	cmds[1].u.create.circle.radius = (F2D_ONE / 2);
	cmds[2] = f2d_default_command(F2D_CMD_DESTROY_BODY, 1, 0);
	cmds[2].u.destroy.body = a;
	f2d_command_result res[3];
	CHECK_OK(f2d_world_apply_commands(w4, cmds, 3, res));
	ck_assert(res[0].result == F2D_OK && res[1].result == F2D_OK && res[2].result == F2D_OK);
	FRESH(w4);
	for (int i = 0; i < 30; ++i) {
		CHECK_OK(f2d_world_step(w4));
	}
	FRESH(w4);
	/* the check can fail: a stale digest gives another hash (F2D_HASH_CHECK builds abort on
	 * it inside f2d_world_hash instead) */
#ifndef F2D_HASH_CHECK
	ck_assert(w4->shape_ids.next > 0);
	ck_assert(w4->shapes_cached); /* refilled by the steps */
	w4->shapes_digest ^= 1;       /* a stale shapes section (format 5) */
	ck_assert(f2d_world_hash(w4) != f2d_hash_world_reference(w4));
	w4->shapes_digest ^= 1;
	FRESH(w4);
	w4->shapes_cached = false; /* a stale shape digest, folded when the section is not cached */
	w4->shapes[0].digest ^= 1;
	ck_assert(f2d_world_hash(w4) != f2d_hash_world_reference(w4));
	w4->shapes[0].digest ^= 1;
	FRESH(w4);
#endif
	f2d_destroy_world(w4);
	f2d_destroy_world(w3);
	free(port);
	free(mem);
	f2d_destroy_world(w);
}
END_TEST

/* every catalogue scene (the large ones excepted), run and rolled back through both snapshot
 * forms */
START_TEST(scenes_and_rollbacks_keep_digests_fresh)
{
	for (int32_t sc = 0; sc < f2d_scene_count(); ++sc) {
		const char *name = f2d_scene_name(sc);
		if (large_scene(name)) {
			continue;
		}
		f2d_world *w = make_scene(name);
		FRESH(w);
		size_t cap = f2d_snapshot_portable_size(w) * 2 + 65536, n = 0;
		uint8_t *buf = malloc(cap);
		ck_assert(buf != NULL);
		CHECK_OK(f2d_snapshot_save(w, buf, cap, &n));
		for (int i = 0; i < 20; ++i) {
			CHECK_OK(f2d_world_step(w));
		}
		FRESH(w);
		CHECK_OK(f2d_snapshot_restore(w, buf, n));
		FRESH(w);
		CHECK_OK(f2d_snapshot_save_portable(w, buf, cap, &n));
		CHECK_OK(f2d_snapshot_load(w, buf, n));
		FRESH(w);
		free(buf);
		f2d_destroy_world(w);
	}
}
END_TEST

/* The fast encoders (hash.c: the copied runs, and on x86-64 CPUs with AVX-512 VBMI the byte
 * permutations that gather body, joint and arbiter records) write the portable encoder's bytes: the
 * hash after every step of every catalogue scene (the large ones excepted), with sleep off and
 * on, equals the reference's (which writes every record field by field). Then a world whose
 * body slots mix dead, static, kinematic and dynamic bodies with and without options, the last
 * slot of the array alive and dead, arbiters of one and two points. */
#define SAME(w, what)                                                                              \
	ck_assert_msg(f2d_world_hash(w) == f2d_hash_world_reference(w),                            \
	              "fast hash differs from the reference: %s", what)

START_TEST(fast_encoders_write_the_reference_bytes)
{
	for (int32_t sc = 0; sc < f2d_scene_count(); ++sc) {
		const char *name = f2d_scene_name(sc);
		if (large_scene(name)) {
			continue;
		}
		for (int sleep = 0; sleep < 2; ++sleep) {
			f2d_world_def def = f2d_default_world_def();
			def.enable_sleep = sleep != 0;
			f2d_world *w = NULL;
			CHECK_OK(f2d_scene_create(name, &def, &w));
			SAME(w, name);
			for (int i = 0; i < 90; ++i) {
				CHECK_OK(f2d_world_step(w));
				SAME(w, name);
			}
			f2d_destroy_world(w);
		}
	}
	f2d_world *w = new_world();
	f2d_body_id ground = add_body(w, F2D_STATIC_BODY, 0, 0);
	add_box(w, ground, F2D_FIX(20), F2D_ONE);
	f2d_body_id bodies[24];
	for (int i = 0; i < 24; ++i) {
		f2d_body_type type = i % 7 == 3   ? F2D_KINEMATIC_BODY
		                     : i % 5 == 4 ? F2D_STATIC_BODY
		                                  : F2D_DYNAMIC_BODY;
		bodies[i] = add_body(w, type, F2D_FIX(i - 12), F2D_FIX(2 + i % 3));
		if (i % 2 == 0) {
			add_box(w, bodies[i], F2D_ONE / 2, F2D_ONE / 2);
		} else {
			add_circle(w, bodies[i], F2D_ONE / 2, 0);
		}
	}
	SAME(w, "bodies");
	CHECK_OK(f2d_body_set_gravity_scale(w, bodies[1], F2D_ONE / 2));
	CHECK_OK(f2d_body_set_damping(w, bodies[5], F2D_ONE / 10, 0));
	CHECK_OK(f2d_body_set_fixed_rotation(w, bodies[8], true));
	CHECK_OK(f2d_body_set_linear_velocity(w, bodies[3], (f2d_vec2){F2D_ONE, 0}));
	CHECK_OK(f2d_body_apply_force_to_center(w, bodies[6], (f2d_vec2){F2D_FIX(3), 0}));
	SAME(w, "options");
	CHECK_OK(f2d_destroy_body(w, bodies[23])); /* the last slot dead */
	CHECK_OK(f2d_destroy_body(w, bodies[10]));
	CHECK_OK(f2d_destroy_body(w, bodies[11]));
	SAME(w, "dead slots");
	for (int i = 0; i < 120; ++i) {
		CHECK_OK(f2d_world_step(w));
		SAME(w, "steps");
	}
	f2d_body_id last = add_body(w, F2D_DYNAMIC_BODY, 0, F2D_FIX(6)); /* a reused slot */
	add_box(w, last, F2D_ONE / 2, F2D_ONE / 2);
	SAME(w, "reused slot");
	for (int i = 0; i < 60; ++i) {
		CHECK_OK(f2d_world_step(w));
		SAME(w, "steps after reuse");
	}
	f2d_world_stats stats;
	f2d_world_get_stats(w, &stats);
	ck_assert_int_gt(stats.arbiter_count, 0);
	ck_assert_int_gt(stats.contact_point_count, stats.arbiter_count);     /* some with two */
	ck_assert_int_lt(stats.contact_point_count, 2 * stats.arbiter_count); /* some with one */
	f2d_destroy_world(w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hash_cache");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, every_mutation_keeps_digests_fresh);
	tcase_add_test(tc, scenes_and_rollbacks_keep_digests_fresh);
	tcase_add_test(tc, fast_encoders_write_the_reference_bytes);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
