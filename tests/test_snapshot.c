/* fix2d tests: snapshots (issue 4).
 * SPDX-License-Identifier: MIT
 *
 *  - rollback: for every scene, driven by deterministic inputs (impulses, bodies and joints
 *    created and destroyed, user data), restoring k = 1..8 frames back at random frames and
 *    resimulating gives the straight run's hash chain (and step results) step for step;
 *  - the sync test (f2d_sync_test) passes on every scene and catches a nondeterministic input;
 *  - handles: valid after restore iff alive at the snapshot; later ones rejected, then handed
 *    out again identically;
 *  - clones share nothing; restore allocates nothing when capacities suffice;
 *  - portable form: same world -> same bytes (independent builds, other capacities), loading
 *    and re-saving gives identical bytes, the loaded world continues with the same hash chain,
 *    the bytes follow the documented little-endian layout;
 *  - every corruption class is refused with its error code and a message, and the target world
 *    is unchanged (hash before == hash after); out-of-memory likewise;
 *  - a state field added to a core.h struct fails struct_sizes_are_known until the snapshot
 *    code is updated.
 */
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

#define CHECK_OK(call)                                                                             \
	do {                                                                                       \
		f2d_result r_ = (call);                                                            \
		ck_assert_msg(r_ == F2D_OK, "%s failed: %d (%s)", #call, (int)r_,                  \
		              f2d_error_string(r_));                                               \
	} while (0)

static uint32_t rng_next(uint32_t *s)
{
	uint32_t x = *s;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x;
	return x;
}

static int32_t frames_for(const char *scene, int32_t normal, int32_t rain)
{
	return strcmp(scene, "rain1000") == 0 ? rain : normal;
}

static f2d_world *make_scene(const char *scene)
{
	f2d_world *w = NULL;
	CHECK_OK(f2d_scene_create(scene, NULL, &w));
	return w;
}

static bool completed(f2d_result r)
{
	return r == F2D_OK || r == F2D_ERROR_OUT_OF_RANGE || r == F2D_ERROR_OVERFLOW;
}

#define INPUT_TAG 0x5A000000u

/* Deterministic inputs: a function of the world and the frame only. Pushes bodies, sets user
 * data, creates tagged boxes and circles (with a joint between two of them now and then) and
 * destroys the newest tagged body, found through its user data (so a restore that lost user
 * data would choose another victim and the hashes would part). */
static f2d_result advance_inputs(f2d_world *w, int64_t frame, void *context)
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

static void slot_save(f2d_world *w, slot *s)
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

static void portable_save(f2d_world *w, slot *s)
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

/* ---- rollback exactness ---- */

START_TEST(rollback_resimulation_every_scene)
{
	for (int32_t sc = 0; sc < f2d_scene_count(); ++sc) {
		const char *name = f2d_scene_name(sc);
		int32_t n = frames_for(name, 200, 100);
		uint64_t *hashes = malloc(((size_t)n + 1) * sizeof *hashes);
		f2d_result *results = malloc((size_t)n * sizeof *results);
		ck_assert(hashes != NULL && results != NULL);
		/* the straight run */
		f2d_world *b = make_scene(name);
		hashes[0] = f2d_world_hash(b);
		for (int32_t f = 0; f < n; ++f) {
			results[f] = advance_inputs(b, f, NULL);
			ck_assert(completed(results[f]));
			hashes[f + 1] = f2d_world_hash(b);
		}
		f2d_destroy_world(b);
		/* the run with rollbacks: in-process restores, now and then a portable one */
		f2d_world *a = make_scene(name);
		slot ring[9] = {{0}};
		slot portable = {0};
		uint32_t rng = 0x1234567u + (uint32_t)sc * 7919u;
		int32_t rollbacks = 0;
		for (int32_t f = 0; f < n; ++f) {
			slot_save(a, &ring[f % 9]);
			f2d_result r = advance_inputs(a, f, NULL);
			ck_assert_msg(r == results[f] && f2d_world_hash(a) == hashes[f + 1],
			              "%s: frame %d differs before any rollback", name, f + 1);
			if (rng_next(&rng) % 3 != 0) {
				continue;
			}
			int32_t k = 1 + (int32_t)(rng_next(&rng) % 8);
			if (k > f + 1) {
				k = f + 1;
			}
			int32_t start = f + 1 - k;
			const slot *s = &ring[start % 9];
			CHECK_OK(f2d_snapshot_restore(a, s->bytes, s->size));
			ck_assert_msg(f2d_world_hash(a) == hashes[start],
			              "%s: restore of frame %d has another hash", name, start);
			if (rng_next(&rng) % 4 == 0) {
				/* through the portable form as well */
				portable_save(a, &portable);
				f2d_world *fresh = NULL;
				CHECK_OK(f2d_snapshot_load_new(portable.bytes, portable.size, NULL,
				                               &fresh));
				ck_assert_uint_eq(f2d_world_hash(fresh), hashes[start]);
				f2d_destroy_world(a);
				a = fresh;
			}
			for (int32_t g = start; g <= f; ++g) {
				r = advance_inputs(a, g, NULL);
				uint64_t h = f2d_world_hash(a);
				ck_assert_msg(r == results[g] && h == hashes[g + 1],
				              "%s: rolled back %d frames at frame %d: frame %d "
				              "resimulates to %016" PRIx64
				              ", straight run %016" PRIx64,
				              name, k, f + 1, g + 1, h, hashes[g + 1]);
			}
			++rollbacks;
		}
		ck_assert_int_gt(rollbacks, n / 5);
		for (int i = 0; i < 9; ++i) {
			free(ring[i].bytes);
		}
		free(portable.bytes);
		f2d_destroy_world(a);
		free(hashes);
		free(results);
	}
}
END_TEST

/* ---- sync test ---- */

START_TEST(sync_test_every_scene)
{
	for (int32_t sc = 0; sc < f2d_scene_count(); ++sc) {
		const char *name = f2d_scene_name(sc);
		f2d_world *w = make_scene(name);
		f2d_sync_report rep;
		int32_t frames = frames_for(name, 90, 30);
		CHECK_OK(f2d_sync_test(w, frames, 8, advance_inputs, NULL, &rep));
		ck_assert_msg(rep.first_bad_frame == -1,
		              "%s: sync test: frame %" PRId64 " resimulated to %016" PRIx64
		              ", first run %016" PRIx64,
		              name, rep.first_bad_frame, rep.actual_hash, rep.expected_hash);
		ck_assert_int_gt(rep.frames_simulated, (int64_t)frames * 8);
		f2d_world_stats st;
		f2d_world_get_stats(w, &st);
		ck_assert_uint_eq(st.step_count, (uint64_t)frames);
		f2d_destroy_world(w);
	}
	/* plain steps (advance NULL) too */
	f2d_world *w = make_scene("pyramid");
	f2d_sync_report rep;
	CHECK_OK(f2d_sync_test(w, 60, 3, NULL, NULL, &rep));
	ck_assert_int_eq(rep.first_bad_frame, -1);
	f2d_destroy_world(w);
}
END_TEST

/* an input that depends on something outside the world: how often it was called */
static f2d_result advance_leaky(f2d_world *w, int64_t frame, void *context)
{
	int *calls = context; /* calls of frame 20 */
	*calls += frame == 20 ? 1 : 0;
	if (frame == 20 && *calls == 2) { /* its first resimulation */
		f2d_body_id ids[4];
		f2d_world_get_bodies(w, ids, 4);
		f2d_body_set_linear_velocity(w, ids[1], (f2d_vec2){F2D_MILLI(1), 0});
	}
	return f2d_world_step(w);
}

START_TEST(sync_test_catches_nondeterminism)
{
	f2d_world *w = make_scene("single_box");
	int calls = 0;
	f2d_sync_report rep;
	CHECK_OK(f2d_sync_test(w, 50, 4, advance_leaky, &calls, &rep));
	ck_assert_int_eq(rep.first_bad_frame, 21);
	ck_assert_uint_ne(rep.expected_hash, rep.actual_hash);
	/* bad arguments */
	uint64_t h = f2d_world_hash(w);
	ck_assert_int_eq(f2d_sync_test(w, 0, 4, NULL, NULL, &rep), F2D_ERROR_INVALID_VALUE);
	ck_assert_int_eq(f2d_sync_test(w, 10, 0, NULL, NULL, &rep), F2D_ERROR_INVALID_VALUE);
	ck_assert_int_eq(f2d_sync_test(w, 10, 65, NULL, NULL, &rep), F2D_ERROR_INVALID_VALUE);
	ck_assert_int_eq(f2d_sync_test(w, 10, 4, NULL, NULL, NULL), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_sync_test(NULL, 10, 4, NULL, NULL, &rep), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_uint_eq(f2d_world_hash(w), h);
	f2d_destroy_world(w);
}
END_TEST

/* ---- handles ---- */

START_TEST(handles_across_restore)
{
	f2d_world *w = make_scene("bridge");
	for (int i = 0; i < 10; ++i) {
		f2d_world_step(w);
	}
	f2d_body_id ids[64];
	int32_t n = f2d_world_get_bodies(w, ids, 64);
	ck_assert_int_ge(n, 5);
	f2d_body_id victim = ids[3];
	f2d_body_id keep = ids[4];
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.position.y = F2D_FIX(20);
	f2d_body_id before;
	CHECK_OK(f2d_create_body(w, &bd, &before));
	f2d_polygon box;
	CHECK_OK(f2d_make_box(F2D_MILLI(500), F2D_MILLI(500), &box));
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id shape_before;
	CHECK_OK(f2d_create_polygon_shape(w, before, &sd, &box, &shape_before));
	f2d_revolute_joint_def jd;
	CHECK_OK(f2d_init_revolute_joint_def(w, keep, before, f2d_body_get_position(w, keep), &jd));
	f2d_joint_id joint_before;
	CHECK_OK(f2d_create_revolute_joint(w, &jd, &joint_before));

	slot snap = {0};
	slot_save(w, &snap);

	/* after the snapshot: destroy (frees ids), create (reuses them, new generations), step */
	CHECK_OK(f2d_destroy_body(w, victim));
	CHECK_OK(f2d_destroy_joint(w, joint_before));
	f2d_body_id after1, after2;
	CHECK_OK(f2d_create_body(w, &bd, &after1)); /* reuses victim's id, next generation */
	CHECK_OK(f2d_create_body(w, &bd, &after2)); /* a fresh id */
	ck_assert_int_eq(after1.index1, victim.index1);
	ck_assert_uint_ne(after1.generation, victim.generation);
	f2d_shape_id shape_after;
	CHECK_OK(f2d_create_polygon_shape(w, after2, &sd, &box, &shape_after));
	f2d_joint_id joint_after;
	CHECK_OK(f2d_init_revolute_joint_def(w, keep, after2, f2d_body_get_position(w, keep), &jd));
	CHECK_OK(f2d_create_revolute_joint(w, &jd, &joint_after));
	for (int i = 0; i < 5; ++i) {
		f2d_world_step(w);
	}

	CHECK_OK(f2d_snapshot_restore(w, snap.bytes, snap.size));
	/* taken before: valid again */
	ck_assert(f2d_body_is_valid(w, victim));
	ck_assert(f2d_body_is_valid(w, keep));
	ck_assert(f2d_body_is_valid(w, before));
	ck_assert(f2d_shape_is_valid(w, shape_before));
	ck_assert(f2d_joint_is_valid(w, joint_before));
	/* created after: rejected */
	ck_assert(!f2d_body_is_valid(w, after1));
	ck_assert(!f2d_body_is_valid(w, after2));
	ck_assert(!f2d_shape_is_valid(w, shape_after));
	ck_assert(!f2d_joint_is_valid(w, joint_after));
	uint64_t h = f2d_world_hash(w);
	ck_assert_int_eq(f2d_destroy_body(w, after2), F2D_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(f2d_body_set_linear_velocity(w, after1, (f2d_vec2){0, 0}),
	                 F2D_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(f2d_destroy_shape(w, shape_after), F2D_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(f2d_destroy_joint(w, joint_after), F2D_ERROR_INVALID_HANDLE);
	ck_assert_uint_eq(f2d_world_hash(w), h);
	/* the same calls hand out the same handles again */
	CHECK_OK(f2d_destroy_body(w, victim));
	CHECK_OK(f2d_destroy_joint(w, joint_before));
	f2d_body_id again1, again2;
	CHECK_OK(f2d_create_body(w, &bd, &again1));
	CHECK_OK(f2d_create_body(w, &bd, &again2));
	ck_assert(again1.index1 == after1.index1 && again1.generation == after1.generation);
	ck_assert(again2.index1 == after2.index1 && again2.generation == after2.generation);
	f2d_shape_id shape_again;
	CHECK_OK(f2d_create_polygon_shape(w, again2, &sd, &box, &shape_again));
	ck_assert(shape_again.index1 == shape_after.index1 &&
	          shape_again.generation == shape_after.generation);
	free(snap.bytes);
	f2d_destroy_world(w);
}
END_TEST

/* ---- counting / failing allocator ---- */

typedef struct counter {
	int64_t allocs, frees, live_bytes;
	int64_t fail_after; /* -1: never; else allocations allowed before failing */
} counter;

static void *count_alloc(size_t size, void *context)
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

static void count_free(void *p, size_t size, void *context)
{
	counter *c = context;
	if (p != NULL) {
		c->frees++;
		c->live_bytes -= (int64_t)size;
		free(p);
	}
}

static f2d_world_def counting_def(counter *c)
{
	memset(c, 0, sizeof *c);
	c->fail_after = -1;
	f2d_world_def d = f2d_default_world_def();
	d.allocator.alloc = count_alloc;
	d.allocator.free = count_free;
	d.allocator.context = c;
	return d;
}

START_TEST(clone_is_independent)
{
	counter c;
	f2d_world_def def = counting_def(&c);
	f2d_world *w = NULL;
	CHECK_OK(f2d_scene_create("hinges80", &def, &w));
	for (int i = 0; i < 40; ++i) {
		f2d_world_step(w);
	}
	int64_t allocs = c.allocs;
	f2d_world *k = NULL;
	CHECK_OK(f2d_world_clone(w, &k));
	ck_assert_int_gt(c.allocs, allocs); /* the clone uses the same allocator */
	ck_assert_uint_eq(f2d_world_hash(k), f2d_world_hash(w));
	/* same future */
	for (int i = 0; i < 30; ++i) {
		f2d_world_step(w);
		f2d_world_step(k);
		ck_assert_uint_eq(f2d_world_hash(k), f2d_world_hash(w));
	}
	/* independent: changes to one do not reach the other */
	uint64_t hw = f2d_world_hash(w);
	f2d_body_id ids[8];
	f2d_world_get_bodies(k, ids, 8);
	CHECK_OK(f2d_body_set_linear_velocity(k, ids[2], (f2d_vec2){F2D_FIX(3), 0}));
	CHECK_OK(f2d_destroy_body(k, ids[3]));
	f2d_world_step(k);
	ck_assert_uint_eq(f2d_world_hash(w), hw);
	ck_assert_uint_ne(f2d_world_hash(k), hw);
	/* the clone outlives its original */
	f2d_destroy_world(w);
	for (int i = 0; i < 10; ++i) {
		f2d_world_step(k);
	}
	f2d_destroy_world(k);
	ck_assert_int_eq(c.allocs, c.frees);
	ck_assert_int_eq(c.live_bytes, 0);
	/* out of memory */
	CHECK_OK(f2d_scene_create("pyramid", &def, &w));
	f2d_world_step(w);
	for (int64_t fail = 0; fail < 12; ++fail) {
		c.fail_after = c.allocs + fail;
		f2d_world *none = (f2d_world *)(uintptr_t)1;
		f2d_result r = f2d_world_clone(w, &none);
		if (r == F2D_OK) {
			f2d_destroy_world(none);
			break;
		}
		ck_assert_int_eq(r, F2D_ERROR_OUT_OF_MEMORY);
		ck_assert_ptr_eq(none, (f2d_world *)(uintptr_t)1);
	}
	c.fail_after = -1;
	f2d_destroy_world(w);
	ck_assert_int_eq(c.live_bytes, 0);
	ck_assert_int_eq(f2d_world_clone(NULL, &k), F2D_ERROR_NULL_ARGUMENT);
}
END_TEST

START_TEST(restore_does_not_allocate)
{
	counter c;
	f2d_world_def def = counting_def(&c);
	f2d_world *w = NULL;
	CHECK_OK(f2d_scene_create("pyramid20", &def, &w));
	for (int i = 0; i < 100; ++i) {
		f2d_world_step(w);
	}
	size_t need = f2d_snapshot_size(w);
	uint8_t *buf = malloc(need);
	ck_assert_ptr_nonnull(buf);
	size_t n;
	int64_t allocs = c.allocs;
	CHECK_OK(f2d_snapshot_save(w, buf, need, &n));
	uint64_t h = f2d_world_hash(w);
	for (int r = 0; r < 5; ++r) {
		f2d_world_step(w);
		CHECK_OK(f2d_snapshot_restore(w, buf, n));
		ck_assert_uint_eq(f2d_world_hash(w), h);
	}
	ck_assert_int_eq(c.allocs, allocs);
	/* a world too small for the snapshot grows; when the allocator fails, it is unchanged */
	f2d_world *small = NULL;
	CHECK_OK(f2d_scene_create("single_box", &def, &small));
	f2d_world_step(small);
	uint64_t hs = f2d_world_hash(small);
	for (int64_t fail = 0; fail < 20; ++fail) {
		c.fail_after = c.allocs + fail;
		small->error[0] = '\0';
		f2d_result r = f2d_snapshot_restore(small, buf, n);
		if (r == F2D_OK) {
			break;
		}
		ck_assert_int_eq(r, F2D_ERROR_OUT_OF_MEMORY);
		ck_assert_uint_eq(f2d_world_hash(small), hs);
		ck_assert(strlen(f2d_world_last_error(small)) > 0);
		f2d_world_step(small);               /* still works */
		f2d_snapshot_restore(small, buf, 0); /* refused: nothing changes */
		hs = f2d_world_hash(small);
	}
	c.fail_after = -1;
	ck_assert_uint_eq(f2d_world_hash(small), h);
	for (int i = 0; i < 20; ++i) {
		f2d_world_step(small);
		f2d_world_step(w);
		ck_assert_uint_eq(f2d_world_hash(small), f2d_world_hash(w));
	}
	/* load_new with a failing allocator: OUT_OF_MEMORY, nothing leaks */
	size_t pneed = f2d_snapshot_portable_size(w);
	uint8_t *pbuf = malloc(pneed);
	ck_assert_ptr_nonnull(pbuf);
	CHECK_OK(f2d_snapshot_save_portable(w, pbuf, pneed, &n));
	for (int64_t fail = 0; fail < 30; ++fail) {
		c.fail_after = c.allocs + fail;
		f2d_world *out = NULL;
		f2d_result r = f2d_snapshot_load_new(pbuf, n, &def, &out);
		if (r == F2D_OK) {
			f2d_destroy_world(out);
			break;
		}
		ck_assert_int_eq(r, F2D_ERROR_OUT_OF_MEMORY);
		ck_assert_ptr_null(out);
	}
	c.fail_after = -1;
	free(pbuf);
	free(buf);
	f2d_destroy_world(small);
	f2d_destroy_world(w);
	ck_assert_int_eq(c.live_bytes, 0);
	ck_assert_int_eq(c.allocs, c.frees);
}
END_TEST

START_TEST(restore_into_another_world)
{
	/* the snapshot of one world replaces the state of another (other scene, capacities) */
	f2d_world *a = make_scene("dominos");
	for (int i = 0; i < 70; ++i) {
		f2d_world_step(a);
	}
	f2d_world_def def = f2d_default_world_def();
	def.body_capacity = 1;
	def.contact_capacity = 1;
	def.iterations = 3;
	f2d_world *b = NULL;
	CHECK_OK(f2d_scene_create("rain1000", &def, &b));
	for (int i = 0; i < 5; ++i) {
		f2d_world_step(b); /* b has handed out many more ids than a */
	}
	slot s = {0};
	slot_save(a, &s);
	CHECK_OK(f2d_snapshot_restore(b, s.bytes, s.size));
	ck_assert_uint_eq(f2d_world_hash(b), f2d_world_hash(a));
	for (int i = 0; i < 60; ++i) {
		f2d_world_step(a);
		f2d_world_step(b);
		ck_assert_uint_eq(f2d_world_hash(b), f2d_world_hash(a));
	}
	/* new objects get the same ids and generations in both */
	f2d_body_def bd = f2d_default_body_def();
	f2d_body_id x, y;
	CHECK_OK(f2d_create_body(a, &bd, &x));
	CHECK_OK(f2d_create_body(b, &bd, &y));
	ck_assert(x.index1 == y.index1 && x.generation == y.generation);
	ck_assert_uint_eq(f2d_world_hash(b), f2d_world_hash(a));
	free(s.bytes);
	f2d_destroy_world(a);
	f2d_destroy_world(b);
}
END_TEST

START_TEST(user_data_and_counters_round_trip)
{
	f2d_world *w = make_scene("hinges80");
	f2d_body_id ids[128];
	int32_t n = f2d_world_get_bodies(w, ids, 128);
	for (int32_t i = 0; i < n; i += 3) {
		CHECK_OK(f2d_body_set_user_data(w, ids[i], 0xDEADBEEF00000000ull + (uint64_t)i));
	}
	/* a body thrown off the world: out-of-range counter and last body */
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.position = (f2d_vec2){F2D_FIX(8190), F2D_FIX(100)};
	bd.linear_velocity = (f2d_vec2){F2D_FIX(4000), 0};
	f2d_body_id fly;
	CHECK_OK(f2d_create_body(w, &bd, &fly));
	for (int i = 0; i < 30; ++i) {
		f2d_world_step(w);
	}
	f2d_world_stats st0;
	f2d_world_get_stats(w, &st0);
	ck_assert_uint_gt(st0.out_of_range_events, 0);
	for (int form = 0; form < 2; ++form) {
		slot s = {0};
		f2d_world *k = make_scene("pendulum");
		if (form == 0) {
			slot_save(w, &s);
			CHECK_OK(f2d_snapshot_restore(k, s.bytes, s.size));
		} else {
			portable_save(w, &s);
			CHECK_OK(f2d_snapshot_load(k, s.bytes, s.size));
		}
		for (int32_t i = 0; i < n; ++i) {
			ck_assert_uint_eq(f2d_body_get_user_data(k, ids[i]),
			                  f2d_body_get_user_data(w, ids[i]));
		}
		f2d_world_stats st;
		f2d_world_get_stats(k, &st);
		ck_assert_uint_eq(st.out_of_range_events, st0.out_of_range_events);
		ck_assert_uint_eq(st.overflow_events, st0.overflow_events);
		ck_assert_int_eq(st.last_out_of_range_body.index1, fly.index1);
		ck_assert_uint_eq(st.last_out_of_range_body.generation, fly.generation);
		ck_assert_int_eq(st.arbiter_count, st0.arbiter_count);
		ck_assert_int_eq(st.contact_point_count, st0.contact_point_count);
		ck_assert_int_eq(st.body_count, st0.body_count);
		ck_assert_int_eq(st.shape_count, st0.shape_count);
		ck_assert_int_eq(st.joint_count, st0.joint_count);
		ck_assert_uint_eq(st.step_count, st0.step_count);
		ck_assert_uint_eq(f2d_world_hash(k), f2d_world_hash(w));
		/* settings */
		ck_assert_int_eq(f2d_world_get_time_step(k), f2d_world_get_time_step(w));
		ck_assert_int_eq(k->def.iterations, w->def.iterations);
		ck_assert_int_eq(k->inv_h, w->inv_h);
		/* shapes and joints: user data and every stored field, compared struct by field */
		for (int32_t i = 0; i < w->shape_ids.next; ++i) {
			const f2d_shape *p = &w->shapes[i], *q = &k->shapes[i];
			ck_assert(p->alive == q->alive && p->generation == q->generation);
			ck_assert(p->user_data == q->user_data && p->next == q->next &&
			          p->body == q->body);
		}
		for (int32_t i = 0; i < w->body_ids.next; ++i) {
			const f2d_body *p = &w->bodies[i], *q = &k->bodies[i];
			ck_assert(p->shape_list == q->shape_list &&
			          p->joint_count == q->joint_count);
			ck_assert(p->inv_mass == q->inv_mass && p->inv_inertia == q->inv_inertia);
		}
		for (int32_t i = 0; i < w->arbiter_count; ++i) {
			ck_assert_int_eq(k->arbiters[i].body_a, w->arbiters[i].body_a);
			ck_assert_int_eq(k->arbiters[i].body_b, w->arbiters[i].body_b);
		}
		free(s.bytes);
		f2d_destroy_world(k);
	}
	f2d_destroy_world(w);
}
END_TEST

/* ---- portable form ---- */

START_TEST(portable_round_trip_every_scene)
{
	for (int32_t sc = 0; sc < f2d_scene_count(); ++sc) {
		const char *name = f2d_scene_name(sc);
		f2d_world *w = make_scene(name);
		int32_t n = frames_for(name, 120, 60);
		for (int32_t f = 0; f < n; ++f) {
			advance_inputs(w, f, NULL);
		}
		slot p = {0}, q = {0}, r = {0};
		portable_save(w, &p);
		/* the same state built independently (other capacities) gives the same bytes */
		f2d_world_def def = f2d_default_world_def();
		def.body_capacity = 3;
		def.contact_capacity = 5000;
		f2d_world *v = NULL;
		CHECK_OK(f2d_scene_create(name, &def, &v));
		v->def.body_capacity = w->def.body_capacity; /* the hints are settings too */
		v->def.contact_capacity = w->def.contact_capacity;
		for (int32_t f = 0; f < n; ++f) {
			advance_inputs(v, f, NULL);
		}
		portable_save(v, &q);
		ck_assert_msg(p.size == q.size && memcmp(p.bytes, q.bytes, p.size) == 0,
		              "%s: same state, different bytes", name);
		/* load into a new world, re-save: identical bytes */
		f2d_world *l = NULL;
		CHECK_OK(f2d_snapshot_load_new(p.bytes, p.size, NULL, &l));
		portable_save(l, &r);
		ck_assert_msg(r.size == p.size && memcmp(r.bytes, p.bytes, p.size) == 0,
		              "%s: re-saving a loaded snapshot changes its bytes", name);
		/* load in place into the other world */
		CHECK_OK(f2d_snapshot_load(v, p.bytes, p.size));
		/* continuation: the same hash chain */
		for (int32_t f = n; f < n + 60; ++f) {
			advance_inputs(w, f, NULL);
			advance_inputs(l, f, NULL);
			advance_inputs(v, f, NULL);
			uint64_t h = f2d_world_hash(w);
			ck_assert_msg(f2d_world_hash(l) == h && f2d_world_hash(v) == h,
			              "%s: loaded world parts at frame %d", name, f + 1);
		}
		/* the in-process bytes are a function of the state too */
		slot m1 = {0}, m2 = {0};
		slot_save(w, &m1);
		slot_save(l, &m2);
		ck_assert(m1.size == m2.size && memcmp(m1.bytes, m2.bytes, m1.size) == 0);
		/* measure adds up */
		f2d_snapshot_layout lay;
		CHECK_OK(f2d_snapshot_measure(w, true, &lay));
		ck_assert_uint_eq(lay.total, f2d_snapshot_portable_size(w));
		ck_assert_uint_eq(lay.header + lay.world + lay.bodies + lay.shapes + lay.joints +
		                      lay.arbiters + lay.caches,
		                  lay.total);
		ck_assert_uint_eq(lay.caches, 0);
		CHECK_OK(f2d_snapshot_measure(w, false, &lay));
		ck_assert_uint_eq(lay.total, m1.size);
		ck_assert_uint_eq(lay.header + lay.world + lay.bodies + lay.shapes + lay.joints +
		                      lay.arbiters + lay.caches,
		                  lay.total);
		free(p.bytes);
		free(q.bytes);
		free(r.bytes);
		free(m1.bytes);
		free(m2.bytes);
		f2d_destroy_world(w);
		f2d_destroy_world(v);
		f2d_destroy_world(l);
	}
}
END_TEST

/* ---- a reader of the documented format (snapshot.h), independent of src/snapshot.c ---- */

#define SPEC_MAX 64
typedef struct spec {
	size_t body_next, body_rec[SPEC_MAX], body_free;
	size_t shape_next, shape_rec[SPEC_MAX], shape_free;
	size_t joint_next, joint_rec[SPEC_MAX], joint_free;
	size_t arbiters, arb_rec[SPEC_MAX], end;
	uint32_t bodies, shapes, joints, arbiter_count;
} spec;

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}
static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}
static void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

/* Offsets within the payload (the bytes after the 40-byte header). */
static void spec_parse(const uint8_t *pl, size_t len, spec *s)
{
	memset(s, 0, sizeof *s);
	size_t o = 8 + 11 * 4 + 1 + 4 + 4 + 8 + 8 + 4; /* world: 81 bytes */
	ck_assert_uint_eq(o, 81);
	/* bodies */
	s->body_next = o;
	s->bodies = le32(pl + o);
	o += 4;
	ck_assert_uint_le(s->bodies, SPEC_MAX);
	for (uint32_t i = 0; i < s->bodies; ++i) {
		s->body_rec[i] = o;
		uint8_t f = pl[o + 4];
		o += 5;
		if (f & 1) {
			o += 24;
			o += (f & 8) ? 12 : 0;
			o += (f & 16) ? 12 : 0;
			o += (((f >> 1) & 3) == 2 && !(f & 64)) ? 16 : 0;
			o += (f & 32) ? 8 : 0;
		}
	}
	s->body_free = o;
	o += 4 + 4 * (size_t)le32(pl + o);
	/* shapes */
	s->shape_next = o;
	s->shapes = le32(pl + o);
	o += 4;
	ck_assert_uint_le(s->shapes, SPEC_MAX);
	for (uint32_t i = 0; i < s->shapes; ++i) {
		s->shape_rec[i] = o;
		uint8_t f = pl[o + 4];
		o += 5;
		if (f & 1) {
			o += 4;
			o += (f & 16) ? 0 : 12;
			if (!(f & 8)) {
				o += (f & 2) ? 1 + 8 * (size_t)pl[o] : 12;
			}
			o += (f & 4) ? 8 : 0;
		}
	}
	s->shape_free = o;
	o += 4 + 4 * (size_t)le32(pl + o);
	/* joints */
	s->joint_next = o;
	s->joints = le32(pl + o);
	o += 4;
	ck_assert_uint_le(s->joints, SPEC_MAX);
	for (uint32_t i = 0; i < s->joints; ++i) {
		s->joint_rec[i] = o;
		uint8_t f = pl[o + 4];
		o += 5 + ((f & 1) ? 64 + ((f & 16) ? 8 : 0) : 0);
	}
	s->joint_free = o;
	o += 4 + 4 * (size_t)le32(pl + o);
	/* arbiters */
	s->arbiters = o;
	s->arbiter_count = le32(pl + o);
	o += 4;
	for (uint32_t i = 0; i < s->arbiter_count; ++i) {
		if (i < SPEC_MAX) {
			s->arb_rec[i] = o;
		}
		o += 17 + 12 * (size_t)pl[o + 16];
	}
	s->end = o;
	ck_assert_uint_eq(o, len);
}

/* A small world with every kind of object: ground, boxes, a triangle, a circle, a joint, dead
 * bodies, shapes and joints in the free lists, user data, a force, contacts. */
static f2d_world *small_world(void)
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

START_TEST(portable_layout_matches_spec)
{
	f2d_world *w = small_world();
	slot s = {0};
	portable_save(w, &s);
	const uint8_t *b = s.bytes;
	ck_assert(memcmp(b, "fix2dsnp", 8) == 0);
	ck_assert_uint_eq(le32(b + 8), F2D_SNAPSHOT_FORMAT_VERSION);
	ck_assert_uint_eq(le32(b + 12), 0);
	ck_assert_uint_eq(le64(b + 24), s.size - 40);
	ck_assert_uint_eq(le64(b + 32), XXH3_64bits(b + 40, s.size - 40));
	const uint8_t *pl = b + 40;
	f2d_world_stats st;
	f2d_world_get_stats(w, &st);
	ck_assert_uint_eq(le64(pl), st.step_count);
	ck_assert_int_eq((int32_t)le32(pl + 8 + 4), -F2D_FIX(10)); /* gravity y */
	ck_assert_int_eq((int32_t)le32(pl + 16), 1092);            /* time step */
	spec sp;
	spec_parse(pl, s.size - 40, &sp);
	ck_assert_uint_eq(sp.bodies, 6);
	ck_assert_uint_eq(sp.shapes, 5);
	ck_assert_uint_eq(sp.joints, 2);
	ck_assert_uint_gt(sp.arbiter_count, 0);
	ck_assert_uint_eq(le32(pl + sp.body_free), 2); /* bodies 4 and 5 */
	ck_assert_uint_eq(le32(pl + sp.shape_free), 1);
	ck_assert_uint_eq(le32(pl + sp.joint_free), 1);
	/* body 1: alive dynamic (flags 1 | 2 << 1), origin = its position */
	const uint8_t *r = pl + sp.body_rec[1];
	ck_assert_uint_eq(le32(r), w->bodies[1].generation);
	ck_assert_uint_eq(r[4] & 7u, 5u);
	ck_assert_int_eq((int32_t)le32(r + 5), w->bodies[1].origin.x);
	ck_assert_int_eq((int32_t)le32(r + 9), w->bodies[1].origin.y);
	ck_assert(r[4] & 16u); /* the force */
	ck_assert(r[4] & 32u); /* user data 42 */
	free(s.bytes);
	f2d_destroy_world(w);
}
END_TEST

/* ---- corruption: error code, message, world unchanged ---- */

typedef struct target {
	f2d_world *w;
	uint64_t hash;
} target;

static void fix_checksum(uint8_t *b, size_t size)
{
	put_le64(b + 24, size - 40);
	put_le64(b + 32, XXH3_64bits(b + 40, size - 40));
}

/* load bytes into t; expect code `want` (F2D_OK: any error), a message containing `needle`,
 * and an unchanged world */
static void expect_refused(target *t, const uint8_t *b, size_t size, f2d_result want,
                           const char *needle, const char *what)
{
	t->w->error[0] = '\0';
	f2d_result r = f2d_snapshot_load(t->w, b, size);
	const char *msg = f2d_world_last_error(t->w);
	if (want == F2D_OK) {
		ck_assert_msg(r != F2D_OK, "%s: accepted", what);
	} else {
		ck_assert_msg(r == want, "%s: returned %d (%s: %s), expected %d", what, (int)r,
		              f2d_error_string(r), msg, (int)want);
	}
	ck_assert_msg(msg[0] != '\0', "%s: no message", what);
	ck_assert_msg(needle == NULL || strstr(msg, needle) != NULL,
	              "%s: message '%s' does not mention '%s'", what, msg, needle);
	ck_assert_msg(f2d_world_hash(t->w) == t->hash, "%s: the world changed", what);
	/* f2d_snapshot_check agrees */
	char m2[200];
	ck_assert_int_eq(f2d_snapshot_check(b, size, NULL, m2, sizeof m2), r);
	ck_assert_str_eq(m2, msg);
	f2d_world *none = (f2d_world *)(uintptr_t)1;
	ck_assert_int_eq(f2d_snapshot_load_new(b, size, NULL, &none), r);
	ck_assert_ptr_null(none);
}

/* copy, patch a 32-bit field at payload offset `at`, fix the checksum, expect a refusal */
static void expect_patch_refused(target *t, const slot *good, size_t at, uint32_t value,
                                 f2d_result want, const char *needle, const char *what)
{
	uint8_t *b = malloc(good->size);
	ck_assert_ptr_nonnull(b);
	memcpy(b, good->bytes, good->size);
	put_le32(b + 40 + at, value);
	fix_checksum(b, good->size);
	expect_refused(t, b, good->size, want, needle, what);
	free(b);
}

static void expect_byte_refused(target *t, const slot *good, size_t at, uint8_t value,
                                f2d_result want, const char *needle, const char *what)
{
	uint8_t *b = malloc(good->size);
	ck_assert_ptr_nonnull(b);
	memcpy(b, good->bytes, good->size);
	b[40 + at] = value;
	fix_checksum(b, good->size);
	expect_refused(t, b, good->size, want, needle, what);
	free(b);
}

START_TEST(corrupt_portable_snapshots_are_refused)
{
	f2d_world *w = small_world();
	slot good = {0};
	portable_save(w, &good);
	spec sp;
	spec_parse(good.bytes + 40, good.size - 40, &sp);
	target t;
	t.w = make_scene("pyramid");
	for (int i = 0; i < 40; ++i) {
		f2d_world_step(t.w);
	}
	t.hash = f2d_world_hash(t.w);
	uint8_t *b = malloc(good.size + 16);
	ck_assert_ptr_nonnull(b);

	/* truncated anywhere (header says more) */
	for (size_t n = 0; n < good.size; ++n) {
		expect_refused(&t, good.bytes, n, F2D_ERROR_INVALID_VALUE, "truncated",
		               "truncated");
	}
	/* truncated payload with a consistent header: the parser meets the end */
	for (size_t n = 40; n < good.size; ++n) {
		memcpy(b, good.bytes, n);
		fix_checksum(b, n);
		expect_refused(&t, b, n, F2D_OK, NULL, "truncated payload");
	}
	/* trailing bytes */
	memcpy(b, good.bytes, good.size);
	b[good.size] = 0;
	expect_refused(&t, b, good.size + 1, F2D_ERROR_INVALID_VALUE, "trailing", "trailing");
	/* magic, version, reserved, fingerprint, checksum */
	memcpy(b, good.bytes, good.size);
	b[0] = 'F';
	expect_refused(&t, b, good.size, F2D_ERROR_INVALID_VALUE, "magic", "magic");
	memcpy(b, good.bytes, good.size);
	put_le32(b + 8, F2D_SNAPSHOT_FORMAT_VERSION + 1);
	expect_refused(&t, b, good.size, F2D_ERROR_INVALID_VALUE, "version", "version");
	memcpy(b, good.bytes, good.size);
	put_le32(b + 12, 1);
	expect_refused(&t, b, good.size, F2D_ERROR_INVALID_VALUE, "reserved", "reserved");
	memcpy(b, good.bytes, good.size);
	b[16] ^= 1;
	expect_refused(&t, b, good.size, F2D_ERROR_INVALID_VALUE, "fingerprint", "fingerprint");
	for (size_t at = 40; at < good.size; at += 7) {
		memcpy(b, good.bytes, good.size);
		b[at] ^= 0x10;
		expect_refused(&t, b, good.size, F2D_ERROR_INVALID_VALUE, "checksum", "checksum");
	}
	/* an in-process snapshot given to the portable loader */
	slot mem = {0};
	slot_save(w, &mem);
	expect_refused(&t, mem.bytes, mem.size, F2D_ERROR_INVALID_VALUE, "in-process", "kind");

	/* settings out of range */
	expect_patch_refused(&t, &good, 20, 0, F2D_ERROR_INVALID_VALUE, "iterations",
	                     "iterations 0");
	expect_patch_refused(&t, &good, 16, 1, F2D_ERROR_INVALID_VALUE, "time_step", "time step");
	expect_byte_refused(&t, &good, 8 + 11 * 4, 2, F2D_ERROR_INVALID_VALUE, "warm",
	                    "warm starting 2");
	expect_patch_refused(&t, &good, 77, 6, F2D_ERROR_INVALID_HANDLE, "out-of-range",
	                     "last out-of-range body past the ids");
	/* absurd counts */
	expect_patch_refused(&t, &good, sp.body_next, F2D_MAX_OBJECTS + 1, F2D_ERROR_CAPACITY,
	                     "F2D_MAX_OBJECTS", "bodies > max");
	expect_patch_refused(&t, &good, sp.body_next, 0xFFFFFFFFu, F2D_ERROR_CAPACITY,
	                     "F2D_MAX_OBJECTS", "bodies 2^32-1");
	expect_patch_refused(&t, &good, sp.body_next, F2D_MAX_OBJECTS, F2D_ERROR_INVALID_VALUE,
	                     "cannot fit", "bodies beyond the bytes");
	expect_patch_refused(&t, &good, sp.shape_next, 1000000, F2D_ERROR_INVALID_VALUE,
	                     "cannot fit", "shapes beyond the bytes");
	expect_patch_refused(&t, &good, sp.joint_next, 5000, F2D_ERROR_INVALID_VALUE, "cannot fit",
	                     "joints beyond the bytes");
	expect_patch_refused(&t, &good, sp.arbiters, 0x7FFFFFFFu, F2D_ERROR_INVALID_VALUE,
	                     "cannot fit", "arbiters beyond the bytes");
	expect_patch_refused(&t, &good, sp.body_free, 3, F2D_ERROR_INVALID_HANDLE, "free list",
	                     "free count");
	/* body values */
	size_t b1 = sp.body_rec[1];
	expect_patch_refused(&t, &good, b1, 0, F2D_ERROR_INVALID_VALUE, "generation",
	                     "generation 0");
	expect_patch_refused(&t, &good, b1 + 5, (uint32_t)(F2D_WORLD_LIMIT + F2D_FIX(200)),
	                     F2D_ERROR_INVALID_VALUE, "F2D_WORLD_LIMIT", "origin beyond limit");
	expect_patch_refused(&t, &good, b1 + 5 + 20, (uint32_t)(-F2D_WORLD_LIMIT - F2D_FIX(200)),
	                     F2D_ERROR_INVALID_VALUE, "F2D_WORLD_LIMIT", "centre beyond limit");
	expect_patch_refused(&t, &good, sp.body_rec[0] + 5, (uint32_t)(F2D_WORLD_LIMIT + 1),
	                     F2D_ERROR_INVALID_VALUE, "F2D_WORLD_LIMIT",
	                     "static origin beyond limit");
	expect_patch_refused(&t, &good, b1 + 13, (uint32_t)F2D_MILLI(900), F2D_ERROR_INVALID_VALUE,
	                     "rotation", "short rotation");
	expect_patch_refused(&t, &good, b1 + 13, 0x80000000u, F2D_ERROR_INVALID_VALUE, "rotation",
	                     "rotation INT32_MIN");
	{
		uint8_t f = good.bytes[40 + b1 + 4];
		ck_assert(f & 8); /* moving: v at b1 + 29 */
		expect_patch_refused(&t, &good, b1 + 29, (uint32_t)F2D_FIX(30000),
		                     F2D_ERROR_INVALID_VALUE, "velocity", "velocity");
		ck_assert(f & 16); /* force after v, w */
		expect_patch_refused(&t, &good, b1 + 41, 0x80000000u, F2D_ERROR_INVALID_VALUE,
		                     "force", "force INT32_MIN");
		ck_assert(!(f & 64)); /* mass record after the force */
		size_t m = b1 + 53;
		expect_patch_refused(&t, &good, m, 1, F2D_ERROR_MASS_RANGE, "mass", "mass 2^-16");
		expect_patch_refused(&t, &good, m, (uint32_t)F2D_FIX(20000), F2D_ERROR_MASS_RANGE,
		                     "mass", "mass 20000");
		expect_patch_refused(&t, &good, m + 4, 1, F2D_ERROR_MASS_RANGE, "mass",
		                     "inertia tiny");
		expect_patch_refused(&t, &good, m + 8, (uint32_t)F2D_FIX(40), F2D_ERROR_MASS_RANGE,
		                     "mass", "centre of mass far away");
		expect_byte_refused(&t, &good, b1 + 4, (uint8_t)(f | 6), F2D_ERROR_INVALID_VALUE,
		                    "type", "body type 3");
		expect_byte_refused(&t, &good, b1 + 4, (uint8_t)(f | 128), F2D_ERROR_INVALID_VALUE,
		                    "flags", "reserved body flag");
	}
	/* a dead body with flags */
	expect_byte_refused(&t, &good, sp.body_rec[4] + 4, 8, F2D_ERROR_INVALID_VALUE, "flags",
	                    "dead body flags");
	/* static body flagged moving: the bytes no longer parse as the same layout; refused */
	expect_byte_refused(&t, &good, sp.body_rec[0] + 4, 1 | 8, F2D_ERROR_INVALID_VALUE, NULL,
	                    "static moving");
	/* free lists: live id, repeated id, never handed out */
	expect_patch_refused(&t, &good, sp.body_free + 4, 1, F2D_ERROR_INVALID_HANDLE, "free list",
	                     "live id in free list");
	expect_patch_refused(&t, &good, sp.body_free + 8, le32(good.bytes + 40 + sp.body_free + 4),
	                     F2D_ERROR_INVALID_HANDLE, "repeated", "repeated free id");
	expect_patch_refused(&t, &good, sp.body_free + 4, 99, F2D_ERROR_INVALID_HANDLE, "free list",
	                     "free id out of range");
	expect_patch_refused(&t, &good, sp.shape_free + 4, 0, F2D_ERROR_INVALID_HANDLE, "free list",
	                     "live shape id in free list");
	expect_patch_refused(&t, &good, sp.joint_free + 4, 0, F2D_ERROR_INVALID_HANDLE, "free list",
	                     "live joint id in free list");
	/* shapes: dangling body, bad polygon, circle, material */
	expect_patch_refused(&t, &good, sp.shape_rec[1] + 5, 4, F2D_ERROR_INVALID_HANDLE,
	                     "not alive", "shape on a dead body");
	expect_patch_refused(&t, &good, sp.shape_rec[1] + 5, 77, F2D_ERROR_INVALID_HANDLE,
	                     "not alive", "shape on no body");
	{
		size_t s1 = sp.shape_rec[1];
		uint8_t f = good.bytes[40 + s1 + 4];
		ck_assert(f & 2);    /* polygon */
		ck_assert(f & 16);   /* same material as the ground */
		ck_assert(!(f & 8)); /* own geometry: count at s1 + 9 */
		size_t v = s1 + 10;  /* vertex 0 */
		uint8_t *c = malloc(good.size);
		ck_assert_ptr_nonnull(c);
		memcpy(c, good.bytes, good.size); /* swap vertices 0 and 2: not CCW/convex */
		memcpy(c + 40 + v, good.bytes + 40 + v + 16, 8);
		memcpy(c + 40 + v + 16, good.bytes + 40 + v, 8);
		fix_checksum(c, good.size);
		expect_refused(&t, c, good.size, F2D_ERROR_BAD_POLYGON, "polygon", "not convex");
		free(c);
		expect_byte_refused(&t, &good, s1 + 9, 2, F2D_ERROR_BAD_POLYGON, "polygon",
		                    "2 vertices");
		expect_byte_refused(&t, &good, s1 + 9, 200, F2D_ERROR_BAD_POLYGON, "polygon",
		                    "200 vertices");
		expect_patch_refused(&t, &good, v, (uint32_t)F2D_FIX(600), F2D_ERROR_BAD_POLYGON,
		                     "polygon", "vertex beyond 512 m");
		expect_patch_refused(&t, &good, v, (uint32_t)-F2D_FIX(40), F2D_ERROR_MASS_RANGE,
		                     "dynamic", "dynamic shape beyond 32 m");
		/* shape 2 (triangle) has its own material: friction at +13 */
		size_t s2 = sp.shape_rec[2];
		ck_assert(!(good.bytes[40 + s2 + 4] & 16));
		expect_patch_refused(&t, &good, s2 + 13, (uint32_t)F2D_FIX(5),
		                     F2D_ERROR_INVALID_VALUE, "friction", "friction 5");
		expect_patch_refused(&t, &good, s2 + 9, 0, F2D_ERROR_INVALID_VALUE, "density",
		                     "density 0");
		/* shape 3: a circle with shape 2's material: centre, radius at +9 */
		size_t s3 = sp.shape_rec[3];
		ck_assert(!(good.bytes[40 + s3 + 4] & 2));
		ck_assert(good.bytes[40 + s3 + 4] & 16);
		expect_patch_refused(&t, &good, s3 + 17, 1, F2D_ERROR_INVALID_VALUE, "circle",
		                     "radius 1 LSB");
		expect_byte_refused(&t, &good, s3 + 4, good.bytes[40 + s3 + 4] | 8,
		                    F2D_ERROR_INVALID_VALUE, "another type",
		                    "circle same geometry as a triangle");
		expect_byte_refused(&t, &good, sp.shape_rec[0] + 4, 1 | 2 | 16,
		                    F2D_ERROR_INVALID_VALUE, "does not exist",
		                    "first shape same as previous");
	}
	/* joints: dangling and bad values */
	{
		size_t j0 = sp.joint_rec[0];
		expect_patch_refused(&t, &good, j0 + 5, 4, F2D_ERROR_INVALID_HANDLE, "live bodies",
		                     "joint on a dead body");
		expect_patch_refused(&t, &good, j0 + 9, 1, F2D_ERROR_INVALID_HANDLE, "live bodies",
		                     "joint on one body twice");
		expect_patch_refused(&t, &good, j0 + 13, (uint32_t)F2D_FIX(100),
		                     F2D_ERROR_INVALID_VALUE, "anchor", "anchor 100 m");
		expect_patch_refused(&t, &good, j0 + 29, (uint32_t)F2D_FIX(4),
		                     F2D_ERROR_INVALID_VALUE, "angle", "reference angle 4");
		expect_patch_refused(&t, &good, j0 + 33, (uint32_t)F2D_MILLI(600),
		                     F2D_ERROR_INVALID_VALUE, "angle", "lower > upper");
		expect_patch_refused(&t, &good, j0 + 45, (uint32_t)-1, F2D_ERROR_INVALID_VALUE,
		                     "motor", "negative torque");
		expect_patch_refused(&t, &good, j0 + 61, (uint32_t)-1, F2D_ERROR_INVALID_VALUE,
		                     "impulse", "negative lower impulse");
	}
	/* arbiters: dangling, order, values */
	{
		size_t a0 = sp.arb_rec[0];
		uint32_t sa = le32(good.bytes + 40 + a0), sb = le32(good.bytes + 40 + a0 + 4);
		expect_patch_refused(&t, &good, a0 + 4, 4, F2D_ERROR_INVALID_HANDLE, "live shapes",
		                     "arbiter on a dead shape");
		expect_patch_refused(&t, &good, a0 + 4, 1000, F2D_ERROR_INVALID_HANDLE,
		                     "live shapes", "arbiter on no shape");
		expect_patch_refused(&t, &good, a0, sb, F2D_ERROR_INVALID_HANDLE, "live shapes",
		                     "arbiter a == b");
		uint8_t *c = malloc(good.size);
		ck_assert_ptr_nonnull(c);
		memcpy(c, good.bytes, good.size);
		put_le32(c + 40 + a0, sb);
		put_le32(c + 40 + a0 + 4, sa);
		fix_checksum(c, good.size);
		expect_refused(&t, c, good.size, F2D_ERROR_INVALID_HANDLE, "order", "a > b");
		free(c);
		expect_patch_refused(&t, &good, a0 + 8, (uint32_t)F2D_FIX(5),
		                     F2D_ERROR_INVALID_VALUE, "friction", "arbiter friction");
		expect_byte_refused(&t, &good, a0 + 16, 0, F2D_ERROR_INVALID_VALUE, NULL,
		                    "arbiter with no points");
		expect_patch_refused(&t, &good, a0 + 21, (uint32_t)-5, F2D_ERROR_INVALID_VALUE,
		                     "impulse", "negative normal impulse");
		if (sp.arbiter_count >= 2) {
			size_t a1 = sp.arb_rec[1];
			c = malloc(good.size);
			ck_assert_ptr_nonnull(c);
			memcpy(c, good.bytes, good.size); /* the first arbiter repeated */
			memcpy(c + 40 + a1, good.bytes + 40 + a0, 8);
			fix_checksum(c, good.size);
			expect_refused(&t, c, good.size, F2D_OK, NULL, "arbiters out of order");
			free(c);
		}
	}
	/* random damage with a fixed checksum: never accepted silently unless canonical */
	uint32_t rng = 99;
	for (int i = 0; i < 3000; ++i) {
		memcpy(b, good.bytes, good.size);
		size_t at = 40 + rng_next(&rng) % (good.size - 40);
		b[at] = (uint8_t)rng_next(&rng);
		fix_checksum(b, good.size);
		t.w->error[0] = '\0';
		f2d_result r = f2d_snapshot_load(t.w, b, good.size);
		if (r != F2D_OK) {
			ck_assert(f2d_world_last_error(t.w)[0] != '\0');
			ck_assert_uint_eq(f2d_world_hash(t.w), t.hash);
			continue;
		}
		/* accepted: canonical, so re-saving gives the bytes back; then restore t */
		slot again = {0};
		portable_save(t.w, &again);
		ck_assert(again.size == good.size && memcmp(again.bytes, b, good.size) == 0);
		free(again.bytes);
		f2d_destroy_world(t.w);
		t.w = make_scene("pyramid");
		for (int k = 0; k < 40; ++k) {
			f2d_world_step(t.w);
		}
		ck_assert_uint_eq(f2d_world_hash(t.w), t.hash);
	}
	/* NULL arguments */
	ck_assert_int_eq(f2d_snapshot_load(NULL, good.bytes, good.size), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_snapshot_load(t.w, NULL, good.size), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_snapshot_load_new(good.bytes, good.size, NULL, NULL),
	                 F2D_ERROR_NULL_ARGUMENT);
	ck_assert_uint_eq(f2d_world_hash(t.w), t.hash);
	/* and the good bytes load */
	CHECK_OK(f2d_snapshot_load(t.w, good.bytes, good.size));
	ck_assert_uint_eq(f2d_world_hash(t.w), f2d_world_hash(w));
	free(b);
	free(mem.bytes);
	free(good.bytes);
	f2d_destroy_world(t.w);
	f2d_destroy_world(w);
}
END_TEST

/* The portable loader recomputes every dynamic body's mass from its shapes (as body.c does) and
 * bounds the stored friction impulses by what the solver can produce. */
static void expect_patches_refused(target *t, const slot *good, size_t at1, uint32_t v1, size_t at2,
                                   uint32_t v2, f2d_result want, const char *needle,
                                   const char *what)
{
	uint8_t *b = malloc(good->size);
	ck_assert_ptr_nonnull(b);
	memcpy(b, good->bytes, good->size);
	put_le32(b + 40 + at1, v1);
	put_le32(b + 40 + at2, v2);
	fix_checksum(b, good->size);
	expect_refused(t, b, good->size, want, needle, what);
	free(b);
}

START_TEST(portable_mass_and_friction_impulse_are_checked)
{
	f2d_world *w = small_world();
	slot good = {0};
	portable_save(w, &good);
	spec sp;
	spec_parse(good.bytes + 40, good.size - 40, &sp);
	target t;
	t.w = make_scene("pyramid");
	for (int i = 0; i < 40; ++i) {
		f2d_world_step(t.w);
	}
	t.hash = f2d_world_hash(t.w);
	/* body 1: moving, with a force, then its own mass record (see the test above) */
	size_t m = sp.body_rec[1] + 53;
	ck_assert(!(good.bytes[40 + sp.body_rec[1] + 4] & 64));
	ck_assert_int_eq((int32_t)le32(good.bytes + 40 + m), w->bodies[1].mass);
	expect_patch_refused(&t, &good, m, (uint32_t)(w->bodies[1].mass + 1), F2D_ERROR_MASS_RANGE,
	                     "differ", "mass + 1 LSB");
	expect_patch_refused(&t, &good, m, (uint32_t)(2 * w->bodies[1].mass), F2D_ERROR_MASS_RANGE,
	                     "differ", "mass doubled");
	expect_patch_refused(&t, &good, m + 4, (uint32_t)(w->bodies[1].inertia - 1),
	                     F2D_ERROR_MASS_RANGE, "differ", "inertia - 1 LSB");
	expect_patch_refused(&t, &good, m + 8, (uint32_t)F2D_MILLI(100), F2D_ERROR_MASS_RANGE,
	                     "differ", "centre moved");
	/* 1 kg that does not rotate is what a body without usable shapes has, not this one */
	expect_patches_refused(&t, &good, m, (uint32_t)F2D_ONE, m + 4, 0, F2D_ERROR_MASS_RANGE,
	                       "differ", "fallback mass on a body with shapes");
	/* friction impulses: |pt| <= round16(friction INT32_MAX), 0 without friction */
	size_t a0 = sp.arb_rec[0];
	expect_patches_refused(&t, &good, a0 + 8, 0, a0 + 25, 1, F2D_ERROR_INVALID_VALUE, "impulse",
	                       "friction impulse without friction");
	expect_patches_refused(&t, &good, a0 + 8, (uint32_t)F2D_MILLI(500), a0 + 25,
	                       (uint32_t)INT32_MAX, F2D_ERROR_INVALID_VALUE, "impulse",
	                       "friction impulse beyond friction x INT32_MAX");
	expect_patches_refused(&t, &good, a0 + 8, (uint32_t)F2D_MILLI(500), a0 + 25,
	                       (uint32_t)-INT32_MAX, F2D_ERROR_INVALID_VALUE, "impulse",
	                       "negative friction impulse beyond friction x INT32_MAX");
	ck_assert_uint_eq(f2d_world_hash(t.w), t.hash);
	free(good.bytes);
	f2d_destroy_world(t.w);
	f2d_destroy_world(w);
}
END_TEST

/* A body whose remaining shapes are out of the mass range falls back to 1 kg that does not
 * rotate (destroy_shape): a reachable state, so the portable loader accepts it. */
START_TEST(portable_fallback_mass_round_trip)
{
	f2d_world *w = NULL;
	f2d_world_def def = f2d_default_world_def();
	CHECK_OK(f2d_create_world(&def, &w));
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	f2d_body_id body;
	CHECK_OK(f2d_create_body(w, &bd, &body));
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_polygon p;
	f2d_shape_id big, tiny;
	CHECK_OK(f2d_make_box(F2D_MILLI(500), F2D_MILLI(500), &p));
	CHECK_OK(f2d_create_polygon_shape(w, body, &sd, &p, &big));
	sd.density = F2D_MILLI(10);
	f2d_circle circ = {{F2D_MILLI(200), 0}, F2D_MILLI(50)};
	CHECK_OK(f2d_create_circle_shape(w, body, &sd, &circ, &tiny));
	CHECK_OK(f2d_destroy_shape(w, big));
	ck_assert_int_eq(w->bodies[0].mass, F2D_ONE);
	ck_assert_int_eq(w->bodies[0].inertia, 0);
	for (int i = 0; i < 10; ++i) {
		f2d_world_step(w);
	}
	slot s = {0};
	portable_save(w, &s);
	f2d_world *v = NULL;
	CHECK_OK(f2d_snapshot_load_new(s.bytes, s.size, NULL, &v));
	ck_assert_uint_eq(f2d_world_hash(v), f2d_world_hash(w));
	free(s.bytes);
	f2d_destroy_world(v);
	f2d_destroy_world(w);
}
END_TEST

START_TEST(corrupt_in_process_snapshots_are_refused)
{
	f2d_world *w = small_world();
	slot good = {0}, port = {0};
	slot_save(w, &good);
	portable_save(w, &port);
	f2d_world *t = make_scene("bridge");
	for (int i = 0; i < 20; ++i) {
		f2d_world_step(t);
	}
	uint64_t h = f2d_world_hash(t);
	uint8_t *b = malloc(good.size + 8);
	ck_assert_ptr_nonnull(b);
#define EXPECT_RESTORE_FAILS(bytes, size, want, needle)                                            \
	do {                                                                                       \
		t->error[0] = '\0';                                                                \
		f2d_result r_ = f2d_snapshot_restore(t, bytes, size);                              \
		ck_assert_msg(r_ == (want), "restore returned %d (%s)", (int)r_,                   \
		              f2d_world_last_error(t));                                            \
		ck_assert_msg(strstr(f2d_world_last_error(t), needle) != NULL, "message '%s'",     \
		              f2d_world_last_error(t));                                            \
		ck_assert_uint_eq(f2d_world_hash(t), h);                                           \
	} while (0)
	for (size_t n = 0; n < good.size; ++n) {
		t->error[0] = '\0';
		ck_assert_int_ne(f2d_snapshot_restore(t, good.bytes, n), F2D_OK);
		ck_assert(f2d_world_last_error(t)[0] != '\0');
		ck_assert_uint_eq(f2d_world_hash(t), h);
	}
	/* payload cut short with a consistent length field */
	for (size_t n = 40; n < good.size; ++n) {
		memcpy(b, good.bytes, n);
		put_le64(b + 16, n - 40);
		t->error[0] = '\0';
		ck_assert_int_ne(f2d_snapshot_restore(t, b, n), F2D_OK);
		ck_assert_uint_eq(f2d_world_hash(t), h);
	}
	EXPECT_RESTORE_FAILS(port.bytes, port.size, F2D_ERROR_INVALID_VALUE, "portable");
	memcpy(b, good.bytes, good.size);
	b[3] ^= 1;
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "magic");
	memcpy(b, good.bytes, good.size);
	b[8] ^= 1;
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "version");
	memcpy(b, good.bytes, good.size);
	b[good.size] = 0;
	EXPECT_RESTORE_FAILS(b, good.size + 1, F2D_ERROR_INVALID_VALUE, "length");
	/* header counts that disagree with the payload; absurd ones */
	memcpy(b, good.bytes, good.size);
	put_le32(b + 28, le32(b + 28) + 1);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "header counts");
	memcpy(b, good.bytes, good.size);
	put_le32(b + 24, 0x7FFFFFFFu);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_CAPACITY, "F2D_MAX_OBJECTS");
	memcpy(b, good.bytes, good.size);
	put_le32(b + 32, 100000);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "cannot fit");
	memcpy(b, good.bytes, good.size);
	put_le32(b + 36, 1);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "reserved");
	/* the payload is validated like the portable one (same offsets, 40-byte header) */
	spec sp;
	spec_parse(port.bytes + 40, port.size - 40, &sp);
	memcpy(b, good.bytes, good.size);
	put_le32(b + 40 + sp.shape_rec[1] + 5, 4);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "not alive");
	memcpy(b, good.bytes, good.size);
	put_le32(b + 40 + sp.body_rec[1] + 13, 0);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "rotation");
	memcpy(b, good.bytes, good.size);
	put_le32(b + 40 + sp.body_free + 8, le32(b + 40 + sp.body_free + 4));
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "repeated");
	/* the sweep order (in-process only): after the arbiters */
	size_t sweep = 40 + sp.end;
	uint32_t n_sweep = le32(good.bytes + sweep);
	if (n_sweep != 0xFFFFFFFFu) {
		ck_assert_uint_eq(n_sweep, 4);
		memcpy(b, good.bytes, good.size);
		put_le32(b + sweep + 8, le32(b + sweep + 4));
		EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "sweep");
		memcpy(b, good.bytes, good.size);
		put_le32(b + sweep + 4, 4); /* a dead shape */
		EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "sweep");
		memcpy(b, good.bytes, good.size);
		put_le32(b + sweep, 3);
		EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "sweep");
	}
	ck_assert_int_eq(f2d_snapshot_restore(NULL, good.bytes, good.size),
	                 F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_snapshot_restore(t, NULL, good.size), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_uint_eq(f2d_world_hash(t), h);
	CHECK_OK(f2d_snapshot_restore(t, good.bytes, good.size));
	ck_assert_uint_eq(f2d_world_hash(t), f2d_world_hash(w));
	free(b);
	free(good.bytes);
	free(port.bytes);
	f2d_destroy_world(t);
	f2d_destroy_world(w);
}
END_TEST

START_TEST(save_into_small_buffers)
{
	f2d_world *w = small_world();
	for (int portable = 0; portable < 2; ++portable) {
		size_t need = portable ? f2d_snapshot_portable_size(w) : f2d_snapshot_size(w);
		uint8_t *b = malloc(need + 64);
		ck_assert_ptr_nonnull(b);
		uint64_t h = f2d_world_hash(w);
		for (size_t cap = 0; cap < need; ++cap) {
			memset(b, 0xA5, need + 64);
			size_t written = 0;
			w->error[0] = '\0';
			f2d_result r = portable ? f2d_snapshot_save_portable(w, b, cap, &written)
			                        : f2d_snapshot_save(w, b, cap, &written);
			ck_assert_int_eq(r, F2D_ERROR_INVALID_VALUE);
			ck_assert_uint_eq(written, need);
			ck_assert(strstr(f2d_world_last_error(w), "needs") != NULL);
			for (size_t i = cap; i < need + 64; ++i) {
				ck_assert_msg(b[i] == 0xA5, "wrote past the capacity %zu at %zu",
				              cap, i);
			}
		}
		size_t written = 0;
		CHECK_OK(portable ? f2d_snapshot_save_portable(w, b, need, &written)
		                  : f2d_snapshot_save(w, b, need, &written));
		ck_assert_uint_eq(written, need);
		ck_assert_uint_eq(f2d_world_hash(w), h);
		ck_assert_int_eq(f2d_snapshot_save(w, NULL, 10, &written), F2D_ERROR_NULL_ARGUMENT);
		ck_assert_int_eq(f2d_snapshot_save(w, b, need, NULL), F2D_ERROR_NULL_ARGUMENT);
		ck_assert_int_eq(f2d_snapshot_save(NULL, b, need, &written),
		                 F2D_ERROR_NULL_ARGUMENT);
		free(b);
	}
	ck_assert_uint_eq(f2d_snapshot_size(NULL), 0);
	f2d_destroy_world(w);
}
END_TEST

/* An empty world, into fresh worlds that have no arrays yet (fuzz finding: scratch marks for
 * zero ids on a world without a pair buffer computed NULL + 0). */
START_TEST(empty_world_round_trip)
{
	f2d_world_def def = f2d_default_world_def();
	def.body_capacity = 0;
	def.contact_capacity = 0;
	f2d_world *e = NULL;
	CHECK_OK(f2d_create_world(&def, &e));
	slot p = {0}, m = {0};
	portable_save(e, &p);
	slot_save(e, &m);
	f2d_world *l = NULL;
	CHECK_OK(f2d_snapshot_load_new(p.bytes, p.size, &def, &l));
	ck_assert_uint_eq(f2d_world_hash(l), f2d_world_hash(e));
	f2d_world *r = NULL;
	CHECK_OK(f2d_create_world(&def, &r));
	CHECK_OK(f2d_snapshot_restore(r, m.bytes, m.size));
	ck_assert_uint_eq(f2d_world_hash(r), f2d_world_hash(e));
	/* and an empty snapshot empties a full world */
	f2d_world *full = make_scene("pyramid");
	f2d_world_step(full);
	CHECK_OK(f2d_snapshot_restore(full, m.bytes, m.size));
	ck_assert_uint_eq(f2d_world_hash(full), f2d_world_hash(e));
	f2d_world_stats st;
	f2d_world_get_stats(full, &st);
	ck_assert_int_eq(st.body_count + st.shape_count + st.arbiter_count, 0);
	f2d_body_def bd = f2d_default_body_def();
	f2d_body_id id;
	CHECK_OK(f2d_create_body(full, &bd, &id));
	ck_assert(id.index1 == 1 && id.generation == 1);
	free(p.bytes);
	free(m.bytes);
	f2d_destroy_world(e);
	f2d_destroy_world(l);
	f2d_destroy_world(r);
	f2d_destroy_world(full);
}
END_TEST

/* ---- the snapshot knows every field ----
 * The sizes of the core.h structs as the snapshot code knows them (LP64). A new field changes
 * a size: store it in src/snapshot.c (encoder, decoder and its validation; clone for a pointer
 * in f2d_world), bump F2D_SNAPSHOT_FORMAT_VERSION if the portable payload changes, add it to
 * src/hash.c if it determines the future, then update the number here. */
START_TEST(struct_sizes_are_known)
{
	if (sizeof(void *) != 8 || _Alignof(uint64_t) != 8 || sizeof(bool) != 1 ||
	    sizeof(f2d_body_type) != 4) {
		return; /* the recorded sizes are for LP64 ABIs (x86-64, arm64, s390x, ...) */
	}
	struct {
		const char *name;
		size_t size, known;
	} sizes[] = {
	    {"f2d_body", sizeof(f2d_body), 104},
	    {"f2d_shape", sizeof(f2d_shape), 360},
	    {"f2d_joint", sizeof(f2d_joint), 128},
	    {"f2d_arbiter", sizeof(f2d_arbiter), 228},
	    {"f2d_contact_point", sizeof(f2d_contact_point), 76},
	    {"f2d_id_pool", sizeof(f2d_id_pool), 24},
	    {"f2d_world", sizeof(struct f2d_world), 520},
	    {"f2d_world_def", sizeof(f2d_world_def), 80},
	    {"f2d_polygon", sizeof(f2d_polygon), 140},
	};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
		ck_assert_msg(
		    sizes[i].size == sizes[i].known,
		    "struct %s is %zu bytes, the snapshot code knows a %zu-byte one: a "
		    "field was added or removed in src/core.h or types.h. Save and restore "
		    "it in src/snapshot.c (and clone it if it is a pointer in f2d_world), "
		    "bump F2D_SNAPSHOT_FORMAT_VERSION if the portable payload changes, then "
		    "update this number in tests/test_snapshot.c",
		    sizes[i].name, sizes[i].size, sizes[i].known);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("snapshot");
	TCase *tc = tcase_create("snapshot");
	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, struct_sizes_are_known);
	tcase_add_test(tc, rollback_resimulation_every_scene);
	tcase_add_test(tc, sync_test_every_scene);
	tcase_add_test(tc, sync_test_catches_nondeterminism);
	tcase_add_test(tc, handles_across_restore);
	tcase_add_test(tc, clone_is_independent);
	tcase_add_test(tc, restore_does_not_allocate);
	tcase_add_test(tc, restore_into_another_world);
	tcase_add_test(tc, user_data_and_counters_round_trip);
	tcase_add_test(tc, portable_round_trip_every_scene);
	tcase_add_test(tc, portable_layout_matches_spec);
	tcase_add_test(tc, corrupt_portable_snapshots_are_refused);
	tcase_add_test(tc, portable_mass_and_friction_impulse_are_checked);
	tcase_add_test(tc, portable_fallback_mass_round_trip);
	tcase_add_test(tc, corrupt_in_process_snapshots_are_refused);
	tcase_add_test(tc, save_into_small_buffers);
	tcase_add_test(tc, empty_world_round_trip);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
