/* fix2d tests: the state hash's cached shape digests (hash format 3), shapes section (hash
 * format 5), bodies' mass section and option count (hash format 6) are never stale, and the
 * sections hashed from registers (hash format 7: bodies, joints, arbiters) equal the written
 * records at every count, with the int32 range's edges in every field, and cover every field.
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

/* test_common.h's add_body at (x, y) */
static f2d_body_id add_body_xy(f2d_world *w, f2d_body_type type, fix16_t x, fix16_t y)
{
	return add_body(w, type, v2(x, y));
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
	f2d_body_id ground = add_body_xy(w, F2D_STATIC_BODY, 0, 0);
	add_box(w, ground, F2D_FIX(10), F2D_ONE);
	FRESH(w);
	f2d_body_id a = add_body_xy(w, F2D_DYNAMIC_BODY, 0, F2D_FIX(3));
	f2d_shape_id a1 = add_box(w, a, (F2D_ONE / 2), (F2D_ONE / 2));
	f2d_shape_id a2 = add_circle(w, a, (F2D_ONE / 2), F2D_ONE);
	f2d_shape_id a3 = add_box(w, a, (F2D_ONE / 4), (F2D_ONE / 4));
	f2d_body_id b = add_body_xy(w, F2D_DYNAMIC_BODY, F2D_FIX(2), F2D_FIX(3));
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
	f2d_body_id c = add_body_xy(w, F2D_DYNAMIC_BODY, F2D_FIX(-3), F2D_FIX(3));
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
		/* the in-process form's fixed-size records may be larger than the portable form */
		size_t cap = f2d_snapshot_size(w) * 2 + f2d_snapshot_portable_size(w) * 2 + 65536;
		size_t n = 0;
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
#define SAME(w, what) same_at_every_level(w, what)

/* f2d_world_hash and each SIMD level's fast path below the CPU's (f2d_hash_world_level: 0 no
 * SIMD, 1 AVX2 with hash.c's own XXH3 loop, 2 AVX-512, its loop and the VBMI gathers) equal
 * the reference */
static void same_at_every_level(const f2d_world *w, const char *what)
{
	const uint64_t ref = f2d_hash_world_reference(w);
	ck_assert_msg(f2d_world_hash(w) == ref, "fast hash differs from the reference: %s", what);
	for (int level = 0; level <= 2; ++level) {
		ck_assert_msg(f2d_hash_world_level(w, level) == ref,
		              "level %d's fast hash differs from the reference: %s", level, what);
	}
}

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
	f2d_body_id ground = add_body_xy(w, F2D_STATIC_BODY, 0, 0);
	add_box(w, ground, F2D_FIX(20), F2D_ONE);
	f2d_body_id bodies[24];
	for (int i = 0; i < 24; ++i) {
		f2d_body_type type = i % 7 == 3   ? F2D_KINEMATIC_BODY
		                     : i % 5 == 4 ? F2D_STATIC_BODY
		                                  : F2D_DYNAMIC_BODY;
		bodies[i] = add_body_xy(w, type, F2D_FIX(i - 12), F2D_FIX(2 + i % 3));
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
	f2d_body_id last = add_body_xy(w, F2D_DYNAMIC_BODY, 0, F2D_FIX(6)); /* a reused slot */
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

/* ---- XXH3's long loop run by hash.c from registers (x86-64 with AVX-512, hash format 7) ----
 * The fast hash runs XXH3-64's long loop itself on the bodies section (64 bytes a slot) when it
 * has more than 240 bytes; the reference (f2d_hash_world_reference) writes the records and goes
 * through XXH3_update. Bodies are added one at a time: the section takes every slot count from
 * 0 to 260 (every count mod 64: XXH3's short and long forms, whole and partial 16-stripe blocks
 * and their scrambles, the 8 KB buffer of the written path); the body fields hold the int32
 * range's edges (0x80000000, 0x7fffffff, -1, 0: no arithmetic is done on them, the bytes must
 * pass through unchanged), and some slots die and come back. */
static void edge_fields(f2d_body *b, int32_t k)
{
	static const int32_t edges[4] = {INT32_MIN, INT32_MAX, -1, 0};
	fix16_t *run[13] = {&b->sleep_time, &b->origin.x, &b->origin.y, &b->q.c, &b->q.s,
	                    &b->center.x,   &b->center.y, &b->v.x,      &b->v.y, &b->w,
	                    &b->force.x,    &b->force.y,  &b->torque};
	for (int32_t i = 0; i < 13; ++i) {
		*run[i] = edges[(k + i) & 3];
	}
}

START_TEST(xxh3_loop_at_every_length)
{
	f2d_world *w = new_world();
	SAME(w, "empty");
	f2d_body_id ids[260];
	int32_t n = 0;
	for (int32_t i = 0; i < 260; ++i) {
		f2d_body_type type = i % 3 == 0 ? F2D_STATIC_BODY : F2D_DYNAMIC_BODY;
		ids[n++] = add_body_xy(w, type, F2D_FIX(i % 40 - 20), F2D_FIX(i / 40 * 3));
		if (i % 4 == 0) {
			add_box(w, ids[n - 1], F2D_ONE / 2, F2D_ONE / 2);
		}
		SAME(w, "a body more");
		if (i % 11 == 5) { /* a dead slot and a free id in the pool */
			CHECK_OK(f2d_destroy_body(w, ids[i / 2]));
			SAME(w, "a dead slot");
			ids[i / 2] = add_body_xy(w, F2D_DYNAMIC_BODY, 0, F2D_FIX(30));
			SAME(w, "the slot again");
			CHECK_OK(f2d_destroy_body(w, ids[i / 3]));
			SAME(w, "another dead slot");
			ids[i / 3] = ids[--n];
		}
	}
	/* the int32 range's edges in every field of the body record */
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		if (w->bodies[i].alive) {
			edge_fields(&w->bodies[i], i);
			if (i % 16 == 0) {
				SAME(w, "edge values");
			}
		}
	}
	SAME(w, "edge values");
	ck_assert_int_gt(w->body_ids.next * 57, 8192 + 1024); /* past the buffer */
	f2d_destroy_world(w);
}
END_TEST

/* ---- every shape property through the public API (hash format 5: the shapes section is
 * cached between steps) ----
 * A world that does not move (no gravity, bodies apart, sleep off) is stepped once (the step
 * fills the cache), one property of one shape is changed through the public API, and the hash
 * must change and equal the hash of a world built with that property from the start and stepped
 * once; then both step once more (the cache refilled) and still agree. */
typedef struct still_props {
	fix16_t friction, restitution, density;
	f2d_filter filter;
	int extra;          /* 0 none; 1 a third shape on the dynamic body; 2 it, then destroyed */
	fix16_t extra_size; /* the third shape's half size */
} still_props;

static still_props base_props(void)
{
	still_props p;
	p.friction = F2D_ONE * 6 / 10;
	p.restitution = 0;
	p.density = F2D_ONE;
	p.filter = f2d_default_filter();
	p.extra = 0;
	p.extra_size = F2D_ONE / 4;
	return p;
}

static f2d_world *still_world(const still_props *p, f2d_shape_id *target, f2d_shape_id *extra,
                              f2d_body_id *dyn)
{
	f2d_world_def d = f2d_default_world_def();
	d.gravity = (f2d_vec2){0, 0};
	d.enable_sleep = false;
	f2d_world *w = NULL;
	CHECK_OK(f2d_create_world(&d, &w));
	f2d_body_id ground = add_body_xy(w, F2D_STATIC_BODY, 0, 0);
	add_box(w, ground, F2D_FIX(10), F2D_ONE);
	*dyn = add_body_xy(w, F2D_DYNAMIC_BODY, 0, F2D_FIX(5));
	f2d_shape_def sd = f2d_default_shape_def();
	sd.friction = p->friction;
	sd.restitution = p->restitution;
	sd.density = p->density;
	sd.filter = p->filter;
	f2d_polygon box;
	CHECK_OK(f2d_make_box(F2D_ONE / 2, F2D_ONE / 2, &box));
	CHECK_OK(f2d_create_polygon_shape(w, *dyn, &sd, &box, target));
	add_circle(w, *dyn, F2D_ONE / 2, F2D_FIX(2));
	if (p->extra != 0) {
		*extra = add_box(w, *dyn, p->extra_size, p->extra_size);
		if (p->extra == 2) {
			CHECK_OK(f2d_destroy_shape(w, *extra));
		}
	}
	CHECK_OK(f2d_world_step(w));
	FRESH(w);
	return w;
}

enum { SET_FRICTION, SET_RESTITUTION, SET_DENSITY, SET_CATEGORY, SET_MASK, SET_GROUP, CREATE,
       DESTROY, MUTATION_COUNT };

START_TEST(each_shape_property_changes_the_hash_as_a_fresh_world)
{
	const int m = _i;
	still_props before = base_props(), after = base_props();
	if (m == DESTROY) {
		before.extra = 1;
		after.extra = 2;
		after.extra_size = F2D_ONE / 3; /* a dead slot's record does not depend on its past */
	}
	f2d_shape_id target, extra, fresh_target, fresh_extra;
	f2d_body_id dyn, fresh_dyn;
	f2d_world *w = still_world(&before, &target, &extra, &dyn);
	uint64_t h0 = f2d_world_hash(w);
	switch (m) {
	case SET_FRICTION:
		after.friction = F2D_ONE / 5;
		CHECK_OK(f2d_shape_set_friction(w, target, after.friction));
		break;
	case SET_RESTITUTION:
		after.restitution = F2D_ONE / 2;
		CHECK_OK(f2d_shape_set_restitution(w, target, after.restitution));
		break;
	case SET_DENSITY:
		after.density = F2D_FIX(3);
		CHECK_OK(f2d_shape_set_density(w, target, after.density));
		break;
	case SET_CATEGORY:
		after.filter.category_bits = 4;
		CHECK_OK(f2d_shape_set_filter(w, target, after.filter));
		break;
	case SET_MASK:
		after.filter.mask_bits = ~(uint64_t)2;
		CHECK_OK(f2d_shape_set_filter(w, target, after.filter));
		break;
	case SET_GROUP:
		after.filter.group_index = -3;
		CHECK_OK(f2d_shape_set_filter(w, target, after.filter));
		break;
	case CREATE:
		after.extra = 1;
		extra = add_box(w, dyn, after.extra_size, after.extra_size);
		break;
	case DESTROY:
	default:
		CHECK_OK(f2d_destroy_shape(w, extra));
		break;
	}
	uint64_t h1 = f2d_world_hash(w);
	ck_assert_msg(h1 != h0, "mutation %d did not change the hash", m);
	FRESH(w);
	f2d_world *f = still_world(&after, &fresh_target, &fresh_extra, &fresh_dyn);
	ck_assert_msg(f2d_world_hash(f) == h1,
	              "mutation %d: the hash differs from a world built with the new state", m);
	for (int i = 0; i < 2; ++i) {
		CHECK_OK(f2d_world_step(w));
		CHECK_OK(f2d_world_step(f));
		FRESH(w);
		ck_assert_msg(f2d_world_hash(f) == f2d_world_hash(w),
		              "mutation %d: the worlds differ after step %d", m, i + 1);
	}
	/* a world of the original state, after as many steps, still differs */
	f2d_world *o = still_world(&before, &fresh_target, &fresh_extra, &fresh_dyn);
	CHECK_OK(f2d_world_step(o));
	CHECK_OK(f2d_world_step(o));
	ck_assert_uint_ne(f2d_world_hash(o), f2d_world_hash(w));
	f2d_destroy_world(o);
	f2d_destroy_world(f);
	f2d_destroy_world(w);
}
END_TEST

/* ---- every body mutation through the public API (hash format 6: the bodies' mass data and
 * the count of bodies with options are cached between steps with the shapes section) ----
 * After a step (the cache filled), each mutation must change the hash and leave it equal to
 * the reference (which recomputes both from the bodies): a setter that did not clear the cache
 * would hash the stale mass section or option count. Then a step refills it, and they agree. */
enum { B_TYPE_KINEMATIC, B_TYPE_DYNAMIC, B_FIXED_ROTATION, B_GRAVITY_SCALE, B_DAMPING,
       B_CREATE, B_DESTROY, B_MUTATION_COUNT };

START_TEST(each_body_mutation_refreshes_the_mass_section)
{
	const int m = _i;
	still_props props = base_props();
	f2d_shape_id target, extra;
	f2d_body_id dyn;
	f2d_world *w = still_world(&props, &target, &extra, &dyn);
	f2d_body_id ground = {1, w->bodies[0].generation};
	ck_assert(w->shapes_cached);
	uint64_t h0 = f2d_world_hash(w);
	switch (m) {
	case B_TYPE_KINEMATIC:
		CHECK_OK(f2d_body_set_type(w, dyn, F2D_KINEMATIC_BODY));
		break;
	case B_TYPE_DYNAMIC: /* the ground gets the mass of its box */
		CHECK_OK(f2d_body_set_type(w, ground, F2D_DYNAMIC_BODY));
		break;
	case B_FIXED_ROTATION:
		CHECK_OK(f2d_body_set_fixed_rotation(w, dyn, true));
		break;
	case B_GRAVITY_SCALE:
		CHECK_OK(f2d_body_set_gravity_scale(w, dyn, F2D_ONE / 2));
		break;
	case B_DAMPING:
		CHECK_OK(f2d_body_set_damping(w, dyn, F2D_ONE / 10, 0));
		break;
	case B_CREATE:
		add_circle(w, add_body_xy(w, F2D_DYNAMIC_BODY, F2D_FIX(-5), F2D_FIX(5)),
		           F2D_ONE / 3, 0);
		break;
	case B_DESTROY:
	default:
		CHECK_OK(f2d_destroy_body(w, dyn));
		break;
	}
	ck_assert_uint_ne(f2d_world_hash(w), h0);
	FRESH(w);
	CHECK_OK(f2d_world_step(w));
	ck_assert(w->shapes_cached);
	FRESH(w);
#ifndef F2D_HASH_CHECK
	/* the check can fail: a stale mass section or option count gives another hash */
	w->masses_digest ^= 1;
	ck_assert(f2d_world_hash(w) != f2d_hash_world_reference(w));
	w->masses_digest ^= 1;
	w->bodies_options += 1;
	ck_assert(f2d_world_hash(w) != f2d_hash_world_reference(w));
	w->bodies_options -= 1;
	FRESH(w);
#endif
	f2d_destroy_world(w);
}
END_TEST

/* ---- hash format 7: the sections of fixed-size records (bodies 64 bytes a slot, joints 128,
 * arbiters 64), hashed from registers on x86-64 with AVX-512 (hash.c section_512) ---- */

/* The arbiters' geometry digests (hash format 9, core.h arbiter_geo) retaken, as the engine
 * does where it makes a manifold: the tests below edit arbiter fields behind its back. */
static void retake_geo(f2d_world *w)
{
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		w->arbiter_geo[i] = f2d_arbiter_geometry_digest(&w->arbiters[i]);
	}
}

/* every SIMD level and the reference (without f2d_world_hash's F2D_HASH_CHECK, which would
 * refuse the hand-made states below: a joint moved to another body, an arbiter of no shapes),
 * the geometry digests retaken first */
static uint64_t levels_agree(f2d_world *w, const char *what, int32_t at)
{
	retake_geo(w);
	const uint64_t ref = f2d_hash_world_reference(w);
	for (int level = 0; level <= 2; ++level) {
		ck_assert_msg(f2d_hash_world_level(w, level) == ref,
		              "level %d's hash differs from the reference: %s (%d)", level, what,
		              (int)at);
	}
	return ref;
}

static const int32_t edges32[4] = {INT32_MIN, INT32_MAX, -1, 0};

/* a world of n dynamic bodies jointed to a ground body: revolute joints, and every third one a
 * distance joint with a spring (the record's second part) */
static f2d_world *jointed_world(int32_t n, f2d_joint_id *joints)
{
	f2d_world *w = new_world();
	f2d_body_id ground = add_body_xy(w, F2D_STATIC_BODY, 0, 0);
	add_box(w, ground, F2D_FIX(30), F2D_ONE);
	for (int32_t i = 0; i < n; ++i) {
		f2d_body_id b = add_body_xy(w, F2D_DYNAMIC_BODY, F2D_FIX(i % 20 - 10), F2D_FIX(3 + i / 20));
		add_box(w, b, F2D_ONE / 4, F2D_ONE / 4);
		if (i % 3 == 2) {
			f2d_distance_joint_def d = f2d_default_distance_joint_def();
			d.body_a = ground;
			d.body_b = b;
			d.length = F2D_FIX(2);
			d.enable_spring = true;
			d.hertz = F2D_FIX(3);
			d.damping_ratio = F2D_ONE / 2;
			CHECK_OK(f2d_create_distance_joint(w, &d, &joints[i]));
		} else {
			f2d_revolute_joint_def d;
			CHECK_OK(f2d_init_revolute_joint_def(w, ground, b,
			                                     (f2d_vec2){F2D_FIX(i % 20 - 10), F2D_FIX(2)},
			                                     &d));
			d.enable_limit = i % 2 == 0;
			CHECK_OK(f2d_create_revolute_joint(w, &d, &joints[i]));
		}
	}
	return w;
}

/* pointers to every i32 field of a joint's record (the u8 fields are below) */
static int32_t joint_fields(f2d_joint *j, int32_t **f)
{
	int32_t n = 0;
	f[n++] = (int32_t *)&j->generation;
	f[n++] = &j->body_a;
	f[n++] = &j->body_b;
	f[n++] = &j->local_a.x;
	f[n++] = &j->local_a.y;
	f[n++] = &j->local_b.x;
	f[n++] = &j->local_b.y;
	f[n++] = &j->reference_angle;
	f[n++] = &j->lower;
	f[n++] = &j->upper;
	f[n++] = &j->motor_speed;
	f[n++] = &j->max_motor_torque;
	f[n++] = &j->impulse.x;
	f[n++] = &j->impulse.y;
	f[n++] = &j->motor_impulse;
	f[n++] = &j->lower_impulse;
	f[n++] = &j->upper_impulse;
	f[n++] = &j->axis.x;
	f[n++] = &j->axis.y;
	f[n++] = &j->length;
	f[n++] = &j->hertz;
	f[n++] = &j->damping_ratio;
	f[n++] = &j->angular_hertz;
	f[n++] = &j->angular_damping_ratio;
	f[n++] = &j->max_force;
	f[n++] = &j->correction_factor;
	f[n++] = &j->spring_impulse;
	f[n++] = &j->angular_impulse;
	return n;
}

static int32_t body_fields(f2d_body *b, int32_t **f)
{
	int32_t n = 0;
	f[n++] = (int32_t *)&b->generation;
	f[n++] = &b->sleep_time;
	f[n++] = &b->origin.x;
	f[n++] = &b->origin.y;
	f[n++] = &b->q.c;
	f[n++] = &b->q.s;
	f[n++] = &b->center.x;
	f[n++] = &b->center.y;
	f[n++] = &b->v.x;
	f[n++] = &b->v.y;
	f[n++] = &b->w;
	f[n++] = &b->force.x;
	f[n++] = &b->force.y;
	f[n++] = &b->torque;
	return n;
}

static int32_t arbiter_fields(f2d_arbiter *a, int32_t **f)
{
	int32_t n = 0;
	f[n++] = &a->shape_a;
	f[n++] = &a->shape_b;
	f[n++] = &a->friction;
	f[n++] = &a->restitution;
	for (int32_t k = 0; k < a->count; ++k) {
		f[n++] = (int32_t *)&a->points[k].id;
		f[n++] = &a->points[k].pn;
		f[n++] = &a->points[k].pt;
	}
	return n;
}

/* Joint records: the joints section at every slot count 0..70 (2 to 140 stripes: every count
 * of XXH3's 16-stripe blocks, short and long forms), dead slots, and the int32 range's edges in
 * every field of every record. */
START_TEST(joints_section_at_every_count)
{
	enum { N = 70 };
	f2d_joint_id joints[N];
	f2d_world *w = jointed_world(0, joints);
	levels_agree(w, "no joint", 0);
	f2d_destroy_world(w);
	for (int32_t n = 1; n <= N; ++n) {
		w = jointed_world(n, joints);
		levels_agree(w, "joints", n);
		if (n % 9 == 4) {
			CHECK_OK(f2d_destroy_joint(w, joints[n / 2]));
			levels_agree(w, "a dead joint slot", n);
		}
		if (n == N) {
			for (int32_t i = 0; i < w->joint_ids.next; ++i) {
				int32_t *f[40];
				f2d_joint *j = &w->joints[i];
				const int32_t nf = joint_fields(j, f);
				for (int32_t k = 0; k < nf; ++k) {
					*f[k] = edges32[(i + k) & 3];
				}
				j->type = (uint8_t)(i % 7);
				j->enable_spring = i % 2 == 1;
				j->enable_limit = i % 3 == 1;
				j->enable_motor = i % 5 == 1;
				j->collide_connected = i % 4 == 1;
				j->user_data = 0x0123456789abcdefu * (uint64_t)i; /* not hashed */
				j->k11 = edges32[i & 3];                          /* not state */
				levels_agree(w, "edge values in a joint", i);
			}
		}
		f2d_destroy_world(w);
	}
}
END_TEST

/* Hash format 9: every arbiter's cached geometry digest (core.h arbiter_geo) is its arbiter's,
 * after each way an arbiter is made, moved or dropped: the merge (insertions through its queue
 * and removals: rain1000's falling bodies), a woken island's refresh, a destroyed body's
 * removal, a joint that stops its bodies colliding, in-process restore, portable load and clone.
 * Returns how many arbiters hold a recycled manifold (digest not 0). */
static int32_t geo_follows(const f2d_world *w, const char *what)
{
	int32_t recycled = 0;
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		const uint64_t d = f2d_arbiter_geometry_digest(&w->arbiters[i]);
		ck_assert_msg(w->arbiter_geo[i] == d, "%s: arbiter %d's geometry digest is stale", what,
		              (int)i);
		recycled += d != 0 ? 1 : 0;
	}
	return recycled;
}

static f2d_body_id body_of(const f2d_world *w, int32_t index)
{
	return (f2d_body_id){index + 1, w->bodies[index].generation};
}

START_TEST(geometry_digests_follow_their_arbiters)
{
	f2d_world_def def = f2d_default_world_def();
	f2d_world *w = NULL;
	CHECK_OK(f2d_scene_create("rain1000", &def, &w));
	int32_t recycled = 0;
	for (int i = 0; i < 120; ++i) {
		CHECK_OK(f2d_world_step(w));
		recycled += geo_follows(w, "rain1000 step");
	}
	ck_assert_int_gt(recycled, 1000);
	f2d_destroy_world(w);
	CHECK_OK(f2d_scene_create("pyramid20", &def, &w)); /* sleep on */
	for (int i = 0; i < 400; ++i) {
		CHECK_OK(f2d_world_step(w));
		geo_follows(w, "pyramid20 step");
	}
	ck_assert_int_gt(geo_follows(w, "pyramid20 at rest"), 100);
	/* the pyramid's bodies: the last ones are the top; wake one and step (the refresh) */
	const int32_t top = w->body_ids.next - 1;
	CHECK_OK(f2d_body_set_awake(w, body_of(w, top), true));
	CHECK_OK(f2d_world_step(w));
	geo_follows(w, "woken");
	/* a body in the middle destroyed (its arbiters removed), then steps */
	CHECK_OK(f2d_destroy_body(w, body_of(w, top - 30)));
	geo_follows(w, "body destroyed");
	for (int i = 0; i < 5; ++i) {
		CHECK_OK(f2d_world_step(w));
		geo_follows(w, "after the destroy");
	}
	/* a joint between two touching boxes: their contacts go */
	int32_t a = -1, b = -1;
	for (int32_t i = 0; i < w->arbiter_count && a < 0; ++i) {
		const f2d_arbiter *ar = &w->arbiters[i];
		if (w->bodies[ar->body_a].type == F2D_DYNAMIC_BODY &&
		    w->bodies[ar->body_b].type == F2D_DYNAMIC_BODY) {
			a = ar->body_a;
			b = ar->body_b;
		}
	}
	ck_assert_int_ge(a, 0);
	f2d_revolute_joint_def jd;
	CHECK_OK(f2d_init_revolute_joint_def(w, body_of(w, a), body_of(w, b), w->bodies[a].center,
	                                     &jd));
	const int32_t before = w->arbiter_count;
	f2d_joint_id j;
	CHECK_OK(f2d_create_revolute_joint(w, &jd, &j));
	ck_assert_int_lt(w->arbiter_count, before);
	geo_follows(w, "joined");
	/* restore, load and clone */
	size_t cap = f2d_snapshot_size(w) * 2 + f2d_snapshot_portable_size(w) * 2 + 65536, n = 0;
	uint8_t *buf = malloc(cap);
	ck_assert(buf != NULL);
	CHECK_OK(f2d_snapshot_save(w, buf, cap, &n));
	for (int i = 0; i < 30; ++i) {
		CHECK_OK(f2d_world_step(w));
	}
	CHECK_OK(f2d_snapshot_restore(w, buf, n));
	ck_assert_int_gt(geo_follows(w, "restored"), 100);
	CHECK_OK(f2d_snapshot_save_portable(w, buf, cap, &n));
	for (int i = 0; i < 30; ++i) {
		CHECK_OK(f2d_world_step(w));
	}
	CHECK_OK(f2d_snapshot_load(w, buf, n));
	ck_assert_int_gt(geo_follows(w, "loaded"), 100);
	f2d_world *c = NULL;
	CHECK_OK(f2d_world_clone(w, &c));
	ck_assert_int_gt(geo_follows(c, "cloned"), 100);
	CHECK_OK(f2d_world_step(c));
	geo_follows(c, "clone stepped");
	free(buf);
	f2d_destroy_world(c);
	f2d_destroy_world(w);
}
END_TEST

/* Arbiter records: the arbiters section at every count 0 .. pyramid20's (about 400: every
 * count mod 64), the int32 edges in every hashed field, counts 0, 1 and 2 and the fields that
 * are not state (the points' r_a, r_b, separation, the normal) holding anything. */
START_TEST(arbiters_section_at_every_count)
{
	f2d_world_def def = f2d_default_world_def();
	def.enable_sleep = false;
	f2d_world *w = NULL;
	CHECK_OK(f2d_scene_create("pyramid20", &def, &w));
	for (int i = 0; i < 20; ++i) {
		CHECK_OK(f2d_world_step(w));
	}
	const int32_t count = w->arbiter_count;
	ck_assert_int_gt(count, 300);
	f2d_arbiter *saved = malloc(sizeof(f2d_arbiter) * (size_t)count);
	ck_assert_ptr_nonnull(saved);
	memcpy(saved, w->arbiters, sizeof(f2d_arbiter) * (size_t)count);
	for (int32_t n = 0; n <= count; ++n) {
		w->arbiter_count = n;
		levels_agree(w, "arbiters", n);
	}
	for (int32_t i = 0; i < count; ++i) {
		f2d_arbiter *a = &w->arbiters[i];
		a->count = i % 3;
		int32_t *f[12];
		const int32_t nf = arbiter_fields(a, f);
		for (int32_t k = 0; k < nf; ++k) {
			*f[k] = edges32[(i + k) & 3];
		}
		for (int32_t k = 0; k < 2; ++k) { /* not state */
			a->points[k].r_a.x = a->points[k].separation = edges32[(i + k + 1) & 3];
		}
		/* a point past the count is not state either */
		for (int32_t k = a->count; k < 2; ++k) {
			a->points[k].pn = edges32[(i + k + 2) & 3];
			a->points[k].id = 0xffffffffu;
		}
		a->normal.x = edges32[(i + 3) & 3];
		a->recycle = (uint8_t)(i / 3 % 2); /* format 8: the recycled geometry is state */
		a->base_separation[i & 1] = edges32[(i + 1) & 3];
		a->cached_q_b.s = edges32[(i + 2) & 3];
		a->speculative = edges32[i & 3]; /* not state */
		if (i % 16 == 0) {
			levels_agree(w, "edge values in an arbiter", i);
		}
	}
	levels_agree(w, "edge values in every arbiter", count);
	memcpy(w->arbiters, saved, sizeof(f2d_arbiter) * (size_t)count);
	free(saved);
	levels_agree(w, "restored", count);
	f2d_destroy_world(w);
}
END_TEST

/* The hash changes when any single covered field of a body, joint or arbiter record changes by
 * one LSB (or a flag flips), at every level, and does not change with a field it does not cover
 * (user data, the solver's per-step data, a point past the count). */
static void lsb_changes(f2d_world *w, int32_t *field, const char *what, int32_t at)
{
	const uint64_t before = levels_agree(w, what, at);
	*field = (int32_t)((uint32_t)*field + 1u);
	f2d_hash_shapes_changed(w);
	ck_assert_msg(levels_agree(w, what, at) != before, "+1 LSB does not change the hash: %s %d",
	              what, (int)at);
	*field = (int32_t)((uint32_t)*field - 1u);
	f2d_hash_shapes_changed(w);
	ck_assert_msg(levels_agree(w, what, at) == before, "restored: %s %d", what, (int)at);
}

static void flag_changes(f2d_world *w, bool *flag, bool covered, const char *what, int32_t at)
{
	const uint64_t before = levels_agree(w, what, at);
	*flag = !*flag;
	f2d_hash_shapes_changed(w);
	ck_assert_msg((levels_agree(w, what, at) != before) == covered, "a flipped flag: %s %d",
	              what, (int)at);
	*flag = !*flag;
	f2d_hash_shapes_changed(w);
	ck_assert(levels_agree(w, what, at) == before);
}

static void not_covered(f2d_world *w, int32_t *field, const char *what)
{
	const uint64_t before = levels_agree(w, what, 0);
	const int32_t old = *field;
	*field = (int32_t)((uint32_t)*field + 12345u);
	ck_assert_msg(levels_agree(w, what, 0) == before, "not covered, yet hashed: %s", what);
	*field = old;
}

START_TEST(one_lsb_of_every_covered_field_changes_the_hash)
{
	enum { N = 12 };
	f2d_joint_id joints[N];
	f2d_world *w = jointed_world(N, joints);
	w->def.contact_recycle_distance = F2D_MILLI(50); /* recycled manifolds are state */
	for (int32_t i = 0; i < 8; ++i) { /* boxes on the ground: arbiters */
		f2d_body_id extra =
		    add_body_xy(w, F2D_DYNAMIC_BODY, F2D_FIX(3 * i - 12), F2D_FIX(1) + F2D_ONE / 2);
		add_box(w, extra, F2D_ONE / 2, F2D_ONE / 2);
	}
	for (int i = 0; i < 30; ++i) {
		CHECK_OK(f2d_world_step(w));
	}
	ck_assert_int_gt(w->arbiter_count, 3);
	for (int32_t i = 0; i < w->body_ids.next; i += 3) {
		f2d_body *b = &w->bodies[i];
		int32_t *f[20];
		const int32_t nf = body_fields(b, f);
		for (int32_t k = 0; k < nf; ++k) {
			lsb_changes(w, f[k], "body field", k);
		}
		lsb_changes(w, (int32_t *)&b->type, "body type", i);
		flag_changes(w, &b->awake, true, "awake", i);
		flag_changes(w, &b->enable_sleep, true, "enable_sleep", i);
		flag_changes(w, &b->fixed_rotation, true, "fixed_rotation", i);
		flag_changes(w, &b->alive, true, "alive", i);
		not_covered(w, &b->inv_mass, "inv_mass");
		not_covered(w, &b->joint_list, "joint_list");
	}
	for (int32_t i = 0; i < w->joint_ids.next; ++i) {
		f2d_joint *j = &w->joints[i];
		int32_t *f[40];
		const int32_t nf = joint_fields(j, f);
		for (int32_t k = 0; k < nf; ++k) {
			lsb_changes(w, f[k], "joint field", k);
		}
		flag_changes(w, &j->alive, true, "joint alive", i);
		flag_changes(w, &j->enable_limit, true, "enable_limit", i);
		flag_changes(w, &j->enable_motor, true, "enable_motor", i);
		flag_changes(w, &j->collide_connected, true, "collide_connected", i);
		flag_changes(w, &j->enable_spring, true, "enable_spring", i);
		const uint64_t before = levels_agree(w, "joint type", i);
		j->type = (uint8_t)(j->type + 1);
		ck_assert(levels_agree(w, "joint type", i) != before);
		j->type = (uint8_t)(j->type - 1);
		not_covered(w, &j->k11, "joint k11");
		not_covered(w, &j->r_a.x, "joint r_a");
		not_covered(w, &j->next_a, "joint next_a");
	}
	int32_t recycled = 0;
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		f2d_arbiter *a = &w->arbiters[i];
		int32_t *f[12];
		const int32_t nf = arbiter_fields(a, f);
		for (int32_t k = 0; k < nf; ++k) {
			lsb_changes(w, f[k], "arbiter field", k);
		}
		{ /* the count is a byte; the per-step flags in its dword are not state */
			const uint64_t before = levels_agree(w, "arbiter count", i);
			a->count = (int8_t)(a->count - 1);
			ck_assert(levels_agree(w, "arbiter count", i) != before);
			a->count = (int8_t)(a->count + 1);
			ck_assert(levels_agree(w, "arbiter count", i) == before);
			flag_changes(w, &a->frozen, false, "arbiter frozen", i);
			flag_changes(w, &a->active, false, "arbiter active", i);
		}
		/* a recycled manifold (format 8): its geometry and the recycling cache are state */
		if (a->recycle == 0) { /* built with a larger speculative distance */
			not_covered(w, &a->points[0].r_a.x, "r_a not recycled");
			not_covered(w, &a->normal.y, "normal not recycled");
			continue;
		}
		recycled++;
		for (int32_t k = 0; k < a->count; ++k) {
			f2d_contact_point *c = &a->points[k];
			int32_t *g[6] = {&c->r_a.x, &c->r_a.y, &c->r_b.x, &c->r_b.y, &c->separation,
			                 &a->base_separation[k]};
			for (int32_t m = 0; m < 6; ++m) {
				lsb_changes(w, g[m], "recycled point field", m);
			}
		}
		int32_t *g[6] = {&a->normal.x,     &a->normal.y,     &a->cached_q_a.c,
		                 &a->cached_q_a.s, &a->cached_q_b.c, &a->cached_q_b.s};
		for (int32_t m = 0; m < 6; ++m) {
			lsb_changes(w, g[m], "recycled arbiter field", m);
		}
		{
			const uint64_t before = levels_agree(w, "arbiter recycle", i);
			a->recycle = 0; /* not recycled: the manifold is derived, not state */
			ck_assert(levels_agree(w, "arbiter recycle", i) != before);
			not_covered(w, &a->points[0].r_a.x, "r_a");
			not_covered(w, &a->points[0].r_b.y, "r_b");
			not_covered(w, &a->points[0].separation, "separation");
			not_covered(w, &a->normal.x, "normal");
			not_covered(w, &a->cached_q_a.s, "cached_q_a");
			not_covered(w, &a->base_separation[0], "base_separation");
			a->recycle = 1;
			ck_assert(levels_agree(w, "arbiter recycle", i) == before);
		}
		not_covered(w, &a->body_a, "body_a");
		not_covered(w, &a->speculative, "speculative");
		if (a->count < 2) {
			not_covered(w, &a->points[1].pn, "a point past the count");
			not_covered(w, &a->points[1].r_a.x, "a recycled point past the count");
			not_covered(w, &a->base_separation[1], "a base separation past the count");
		}
	}
	ck_assert_int_gt(recycled, 3);
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
	tcase_add_test(tc, xxh3_loop_at_every_length);
	tcase_add_test(tc, joints_section_at_every_count);
	tcase_add_test(tc, arbiters_section_at_every_count);
	tcase_add_test(tc, geometry_digests_follow_their_arbiters);
	tcase_add_test(tc, one_lsb_of_every_covered_field_changes_the_hash);
	tcase_add_loop_test(tc, each_shape_property_changes_the_hash_as_a_fresh_world, 0,
	                    MUTATION_COUNT);
	tcase_add_loop_test(tc, each_body_mutation_refreshes_the_mass_section, 0,
	                    B_MUTATION_COUNT);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
