/* fix2d tests: what tests/test_snapshot.c and tests/test_snapshot_portable.c share: input-
 * driven scene runs, snapshot slots and a counting allocator.
 * SPDX-License-Identifier: MIT
 */
#ifndef FIX2D_TESTS_SNAPSHOT_COMMON_H
#define FIX2D_TESTS_SNAPSHOT_COMMON_H

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "fix2d/fix2d.h"
#include "fix2d/scenes.h"
#include "fix2d/snapshot.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

/* ---- helpers ---- */

#include "test_common.h"

static inline uint32_t rng_next(uint32_t *s)
{
	uint32_t x = *s;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x;
	return x;
}

static inline int32_t frames_for(const char *scene, int32_t normal, int32_t rain)
{
	return strcmp(scene, "rain1000") == 0 ? rain : normal;
}

/* The large_* scenes (1k..10k-box pyramids) benchmark the broad phase: the per-scene snapshot
 * loops skip them (the snapshot code does not depend on the world's size; test_determinism
 * runs them briefly, test_physics checks the broad phase itself). */
static inline bool large_scene(const char *scene)
{
	return strncmp(scene, "large_", 6) == 0;
}

static inline f2d_world *make_scene(const char *scene)
{
	f2d_world *w = NULL;
	CHECK_OK(f2d_scene_create(scene, NULL, &w));
	return w;
}

static inline bool completed(f2d_result r)
{
	return r == F2D_OK || r == F2D_ERROR_OUT_OF_RANGE || r == F2D_ERROR_OVERFLOW;
}

#define INPUT_TAG 0x5A000000u

/* Deterministic inputs: a function of the world and the frame only. Pushes bodies, sets user
 * data, creates tagged boxes and circles (with a joint between two of them now and then) and
 * destroys the newest tagged body, found through its user data (so a restore that lost user
 * data would choose another victim and the hashes would part). */
static inline f2d_result advance_inputs(f2d_world *w, int64_t frame, void *context)
{
	(void)context;
	enum { CAP = 2048 };
	f2d_body_id *ids = malloc(CAP * sizeof *ids);
	ck_assert_ptr_nonnull(ids);
	int32_t n = f2d_world_get_bodies(w, ids, CAP);
	if (n > CAP) {
		n = CAP;
	}
	if (frame % 5 == 2 && n > 1) {
		f2d_body_id b = ids[(int32_t)((frame * 7919) % n)];
		if (f2d_body_get_type(w, b) == F2D_DYNAMIC_BODY) {
			f2d_vec2 c = f2d_body_get_world_center(w, b);
			f2d_vec2 p = {c.x + F2D_MILLI(100), c.y};
			f2d_vec2 imp = {F2D_MILLI(50) * (int32_t)(frame % 7 - 3), F2D_MILLI(300)};
			f2d_body_apply_linear_impulse(w, b, imp, p);
			f2d_body_set_user_data(w, b, f2d_body_get_user_data(w, b) | 1u);
		}
	}
	if (frame % 9 == 4 && n > 1) {
		f2d_body_id b = ids[(int32_t)((frame * 104729) % n)];
		f2d_vec2 force = {F2D_FIX(3), F2D_FIX(20)};
		f2d_body_apply_force_to_center(w, b, force);
		f2d_body_apply_torque(w, b, F2D_MILLI(500));
	}
	if (frame % 13 == 3) {
		f2d_body_def bd = f2d_default_body_def();
		bd.type = F2D_DYNAMIC_BODY;
		bd.position.x = F2D_FIX((int32_t)(frame % 9) - 4);
		bd.position.y = F2D_FIX(14 + (int32_t)(frame % 3));
		bd.angular_velocity = F2D_MILLI(200);
		bd.user_data = INPUT_TAG | (uint32_t)frame;
		f2d_body_id b;
		f2d_result r = f2d_create_body(w, &bd, &b);
		ck_assert_int_eq(r, F2D_OK);
		f2d_shape_def sd = f2d_default_shape_def();
		sd.user_data = (uint64_t)frame << 8;
		f2d_shape_id s;
		if (frame % 2 == 0) {
			f2d_polygon box;
			CHECK_OK(f2d_make_box(F2D_MILLI(300), F2D_MILLI(200), &box));
			CHECK_OK(f2d_create_polygon_shape(w, b, &sd, &box, &s));
			/* a second and third shape: shape lists of several shapes */
			f2d_polygon knob;
			f2d_vec2 off = {F2D_MILLI(350), F2D_MILLI(250)};
			CHECK_OK(f2d_make_offset_box(F2D_MILLI(150), F2D_MILLI(100), off,
			                             f2d_make_rot(F2D_MILLI(300)), &knob));
			CHECK_OK(f2d_create_polygon_shape(w, b, &sd, &knob, &s));
			f2d_circle cap = {{-F2D_MILLI(300), F2D_MILLI(200)}, F2D_MILLI(120)};
			CHECK_OK(f2d_create_circle_shape(w, b, &sd, &cap, &s));
			if (frame % 4 == 0) {
				CHECK_OK(f2d_destroy_shape(w, s)); /* a freed shape id */
			}
		} else {
			f2d_circle c = {{0, 0}, F2D_MILLI(250)};
			CHECK_OK(f2d_create_circle_shape(w, b, &sd, &c, &s));
		}
		/* a second tagged body nearby: pin the two together */
		f2d_body_id prev = {0, 0};
		for (int32_t i = n - 1; i >= 0; --i) {
			if ((f2d_body_get_user_data(w, ids[i]) & 0xFF000000u) == INPUT_TAG) {
				prev = ids[i];
				break;
			}
		}
		if (frame % 26 == 16 && prev.index1 != 0) {
			f2d_revolute_joint_def jd;
			f2d_vec2 pa = f2d_body_get_position(w, prev);
			if (f2d_init_revolute_joint_def(w, prev, b, pa, &jd) == F2D_OK) {
				jd.user_data = 77;
				jd.enable_motor = true;
				jd.motor_speed = F2D_ONE;
				jd.max_motor_torque = F2D_FIX(5);
				f2d_joint_id j;
				f2d_create_revolute_joint(w, &jd, &j);
			}
		}
	}
	if (frame % 19 == 11) {
		for (int32_t i = n - 1; i >= 0; --i) {
			if ((f2d_body_get_user_data(w, ids[i]) & 0xFF000000u) == INPUT_TAG) {
				CHECK_OK(f2d_destroy_body(w, ids[i]));
				break;
			}
		}
	}
	free(ids);
	return f2d_world_step(w);
}

/* ring of in-process snapshot buffers */
typedef struct slot {
	uint8_t *bytes;
	size_t capacity, size;
} slot;

static inline void slot_save(f2d_world *w, slot *s)
{
	size_t need = f2d_snapshot_size(w);
	if (need > s->capacity) {
		free(s->bytes);
		s->capacity = need + 1024;
		s->bytes = malloc(s->capacity);
		ck_assert_ptr_nonnull(s->bytes);
	}
	CHECK_OK(f2d_snapshot_save(w, s->bytes, s->capacity, &s->size));
	ck_assert_uint_eq(s->size, need);
}

static inline void portable_save(f2d_world *w, slot *s)
{
	size_t need = f2d_snapshot_portable_size(w);
	if (need > s->capacity) {
		free(s->bytes);
		s->capacity = need + 1024;
		s->bytes = malloc(s->capacity);
		ck_assert_ptr_nonnull(s->bytes);
	}
	CHECK_OK(f2d_snapshot_save_portable(w, s->bytes, s->capacity, &s->size));
	ck_assert_uint_eq(s->size, need);
}

/* ---- counting / failing allocator ---- */

typedef struct counter {
	int64_t allocs, frees, live_bytes;
	int64_t fail_after; /* -1: never; else allocations allowed before failing */
} counter;

static inline void *count_alloc(size_t size, void *context)
{
	counter *c = context;
	if (c->fail_after >= 0 && c->allocs >= c->fail_after) {
		return NULL;
	}
	void *p = malloc(size > 0 ? size : 1);
	if (p != NULL) {
		c->allocs++;
		c->live_bytes += (int64_t)size;
	}
	return p;
}

static inline void count_free(void *p, size_t size, void *context)
{
	counter *c = context;
	if (p != NULL) {
		c->frees++;
		c->live_bytes -= (int64_t)size;
		free(p);
	}
}

static inline f2d_world_def counting_def(counter *c)
{
	memset(c, 0, sizeof *c);
	c->fail_after = -1;
	f2d_world_def d = f2d_default_world_def();
	d.allocator.alloc = count_alloc;
	d.allocator.free = count_free;
	d.allocator.context = c;
	return d;
}

/* A small world with every kind of object: ground, boxes, a triangle, a circle, a joint, dead
 * bodies, shapes and joints in the free lists, user data, a force, contacts. */
static inline f2d_world *small_world(void)
{
	f2d_world *w = NULL;
	f2d_world_def def = f2d_default_world_def();
	CHECK_OK(f2d_create_world(&def, &w));
	f2d_body_def bd = f2d_default_body_def();
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_polygon p;
	f2d_shape_id s;
	f2d_body_id ground, a, b, c, d1, d2;
	bd.position = (f2d_vec2){0, F2D_MILLI(-500)};
	CHECK_OK(f2d_create_body(w, &bd, &ground)); /* body 0 */
	CHECK_OK(f2d_make_box(F2D_FIX(20), F2D_MILLI(500), &p));
	CHECK_OK(f2d_create_polygon_shape(w, ground, &sd, &p, &s)); /* shape 0 */
	bd.type = F2D_DYNAMIC_BODY;
	bd.position = (f2d_vec2){0, F2D_MILLI(500)};
	bd.user_data = 42;
	CHECK_OK(f2d_create_body(w, &bd, &a)); /* body 1 */
	CHECK_OK(f2d_make_box(F2D_MILLI(500), F2D_MILLI(500), &p));
	CHECK_OK(f2d_create_polygon_shape(w, a, &sd, &p, &s)); /* shape 1 */
	bd.position = (f2d_vec2){F2D_FIX(2), F2D_MILLI(600)};
	bd.user_data = 0;
	CHECK_OK(f2d_create_body(w, &bd, &b)); /* body 2 */
	f2d_vec2 tri[3] = {{-F2D_MILLI(600), -F2D_MILLI(400)},
	                   {F2D_MILLI(600), -F2D_MILLI(400)},
	                   {0, F2D_MILLI(700)}};
	CHECK_OK(f2d_make_polygon(tri, 3, &p));
	sd.friction = F2D_MILLI(300);
	CHECK_OK(f2d_create_polygon_shape(w, b, &sd, &p, &s)); /* shape 2 */
	bd.position = (f2d_vec2){-F2D_FIX(2), F2D_MILLI(400)};
	CHECK_OK(f2d_create_body(w, &bd, &c)); /* body 3 */
	f2d_circle circ = {{0, 0}, F2D_MILLI(400)};
	CHECK_OK(f2d_create_circle_shape(w, c, &sd, &circ, &s));  /* shape 3 */
	CHECK_OK(f2d_create_body(w, &bd, &d1));                   /* body 4, dies */
	CHECK_OK(f2d_create_circle_shape(w, d1, &sd, &circ, &s)); /* shape 4, dies */
	CHECK_OK(f2d_create_body(w, &bd, &d2));                   /* body 5, dies */
	f2d_revolute_joint_def jd;
	CHECK_OK(f2d_init_revolute_joint_def(w, a, b, (f2d_vec2){F2D_FIX(1), F2D_MILLI(500)}, &jd));
	jd.collide_connected = true;
	jd.enable_limit = true;
	jd.lower_angle = -F2D_MILLI(500);
	jd.upper_angle = F2D_MILLI(500);
	f2d_joint_id j, jdead;
	CHECK_OK(f2d_create_revolute_joint(w, &jd, &j)); /* joint 0 */
	CHECK_OK(f2d_init_revolute_joint_def(w, c, d2, (f2d_vec2){0, F2D_FIX(1)}, &jd));
	CHECK_OK(f2d_create_revolute_joint(w, &jd, &jdead)); /* joint 1, dies */
	for (int i = 0; i < 30; ++i) {
		f2d_world_step(w);
	}
	CHECK_OK(f2d_destroy_body(w, d1));
	CHECK_OK(f2d_destroy_body(w, d2));
	f2d_world_step(w); /* rebuilds the sweep order */
	CHECK_OK(f2d_body_apply_force_to_center(w, a, (f2d_vec2){F2D_FIX(5), 0}));
	return w;
}

#endif
