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
#include "snapshot_common.h"
#include "snapshot_internal.h" /* the broad phase's cache block (issue 16) */

/* ---- rollback exactness ---- */

/* the scene, with contact recycling at the given distance (< 0: the scene's own setting) */
static f2d_world *make_recycling(const char *name, fix16_t recycle)
{
	f2d_world *w = make_scene(name);
	if (recycle >= 0) {
		w->def.contact_recycle_distance = recycle;
	}
	return w;
}

/* the arbiters whose manifold is recycled (state: the snapshots carry it) */
static int32_t recycled_arbiters(const f2d_world *w)
{
	int32_t n = 0;
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		n += w->arbiters[i].recycle != 0 ? 1 : 0;
	}
	return n;
}

/* Returns the recycled arbiters summed over the straight runs' frames. */
static int64_t rollback_scenes(fix16_t recycle)
{
	int64_t recycled = 0;
	for (int32_t sc = 0; sc < f2d_scene_count(); ++sc) {
		const char *name = f2d_scene_name(sc);
		if (large_scene(name)) {
			continue;
		}
		int32_t n = frames_for(name, 200, 100);
		uint64_t *hashes = malloc(((size_t)n + 1) * sizeof *hashes);
		f2d_result *results = malloc((size_t)n * sizeof *results);
		ck_assert(hashes != NULL && results != NULL);
		/* the straight run */
		f2d_world *b = make_recycling(name, recycle);
		hashes[0] = f2d_world_hash(b);
		for (int32_t f = 0; f < n; ++f) {
			results[f] = advance_inputs(b, f, NULL);
			ck_assert(completed(results[f]));
			hashes[f + 1] = f2d_world_hash(b);
			recycled += recycled_arbiters(b);
		}
		f2d_destroy_world(b);
		/* the run with rollbacks: in-process restores, now and then a portable one */
		f2d_world *a = make_recycling(name, recycle);
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
	return recycled;
}

START_TEST(rollback_resimulation_every_scene)
{
	(void)rollback_scenes(-1);
}
END_TEST

/* Contact recycling (issue 16): a recycled manifold is state, so a rollback (in-process or
 * portable) resimulates the straight run's hashes with recycling on too. */
START_TEST(rollback_with_contact_recycling)
{
	ck_assert_int_gt(rollback_scenes(F2D_MILLI(50)), 1000);
}
END_TEST


/* ---- the chain of caches (issue 16) ----
 * An in-process restore brings back the broad phase's state, the world caches and the
 * manifolds, so the first step after it is an ordinary incremental step. Proof that it computes
 * what the first run computed: a world runs F frames (advance_inputs: impulses, forces, bodies
 * and shapes created and destroyed, plus chain_inputs: a transform set now and then,
 * f2d_find_pairs called between steps now and then), saves, runs M frames recording per frame
 * the result, the state hash, a digest of every contact and sensor event and the broad phase's
 * path counters (which of its three ways each call took); then restores and runs the M frames
 * again, which must give the same four, in the same world (diverged by the M frames), twice in
 * a row, after 120 more frames, and in a fresh world of another scene; with sleeping on (the
 * scenes' settings) at the first save point, off at the later ones. */
static uint64_t events_digest(const f2d_world *w)
{
	f2d_contact_events ce;
	f2d_sensor_events se;
	f2d_world_get_contact_events(w, &ce);
	f2d_world_get_sensor_events(w, &se);
	XXH3_state_t *st = XXH3_createState();
	ck_assert_ptr_nonnull(st);
	XXH3_64bits_reset(st);
	int32_t counts[5] = {ce.begin_count, ce.end_count, ce.hit_count, se.begin_count,
	                     se.end_count};
	XXH3_64bits_update(st, counts, sizeof counts);
	if (ce.begin_count > 0) {
		XXH3_64bits_update(st, ce.begin_events, (size_t)ce.begin_count * sizeof *ce.begin_events);
	}
	if (ce.end_count > 0) {
		XXH3_64bits_update(st, ce.end_events, (size_t)ce.end_count * sizeof *ce.end_events);
	}
	if (ce.hit_count > 0) {
		XXH3_64bits_update(st, ce.hit_events, (size_t)ce.hit_count * sizeof *ce.hit_events);
	}
	if (se.begin_count > 0) {
		XXH3_64bits_update(st, se.begin_events, (size_t)se.begin_count * sizeof *se.begin_events);
	}
	if (se.end_count > 0) {
		XXH3_64bits_update(st, se.end_events, (size_t)se.end_count * sizeof *se.end_events);
	}
	uint64_t h = XXH3_64bits_digest(st);
	XXH3_freeState(st);
	return h;
}

/* advance_inputs, and every 11th frame a body moved by f2d_body_set_transform, every 7th
 * f2d_find_pairs called before the step (a test's call between steps breaks the chain) */
static f2d_result chain_inputs(f2d_world *w, int64_t frame)
{
	if (frame % 11 == 6) {
		f2d_body_id ids[64];
		int32_t n = f2d_world_get_bodies(w, ids, 64);
		n = n > 64 ? 64 : n;
		for (int32_t i = n - 1; i >= 0; --i) {
			if (f2d_body_get_type(w, ids[i]) == F2D_DYNAMIC_BODY) {
				f2d_vec2 c = f2d_body_get_position(w, ids[i]);
				f2d_vec2 to = {c.x + F2D_MILLI(30), c.y + F2D_MILLI(20)};
				CHECK_OK(f2d_body_set_transform(w, ids[i], to, f2d_make_rot(F2D_MILLI(100))));
				break;
			}
		}
	}
	if (frame % 7 == 5) {
		CHECK_OK(f2d_find_pairs(w));
	}
	return advance_inputs(w, frame, NULL);
}

enum { CHAIN_M = 12 };
typedef struct chain_run {
	f2d_result result[CHAIN_M];
	uint64_t hash[CHAIN_M], events[CHAIN_M], paths[CHAIN_M];
} chain_run;

static void run_frames(f2d_world *w, int64_t first, chain_run *out)
{
	for (int32_t k = 0; k < CHAIN_M; ++k) {
		uint32_t sweeps = w->bpc.sweeps, merges = w->bpc.merges, plain = w->bpc.plain;
		out->result[k] = chain_inputs(w, first + k);
		ck_assert(completed(out->result[k]));
		out->hash[k] = f2d_world_hash(w);
		out->events[k] = events_digest(w);
		out->paths[k] = (uint64_t)(w->bpc.sweeps - sweeps) << 40 |
		                (uint64_t)(w->bpc.merges - merges) << 20 | (w->bpc.plain - plain);
	}
}

static void expect_same_run(const char *name, const char *how, const chain_run *a,
                            const chain_run *b)
{
	for (int32_t k = 0; k < CHAIN_M; ++k) {
		ck_assert_msg(a->result[k] == b->result[k] && a->hash[k] == b->hash[k],
		              "%s: %s: frame %d after the restore differs", name, how, k + 1);
		ck_assert_msg(a->events[k] == b->events[k], "%s: %s: frame %d's events differ", name,
		              how, k + 1);
		ck_assert_msg(a->paths[k] == b->paths[k],
		              "%s: %s: frame %d's broad phase took another path", name, how, k + 1);
	}
}

START_TEST(restore_keeps_the_chain_of_caches)
{
	int32_t chained = 0, scenes = 0;
	for (int32_t sc = 0; sc < f2d_scene_count(); ++sc) {
		const char *name = f2d_scene_name(sc);
		if (large_scene(name)) {
			continue;
		}
		for (int64_t F = frames_for(name, 40, 30); F <= frames_for(name, 160, 90); F += 60) {
		/* sleeping on (the scene's settings) at the first save point, off at the others */
		f2d_world_def def = f2d_default_world_def();
		def.enable_sleep = false;
		f2d_world *w = NULL;
		CHECK_OK(f2d_scene_create(name, F == frames_for(name, 40, 30) ? NULL : &def, &w));
		for (int64_t f = 0; f < F; ++f) {
			ck_assert(completed(chain_inputs(w, f)));
		}
		/* the broad phase's block is as long as it says */
		if (f2d_bp_chain_holds(w)) {
			size_t n = f2d_bp_cache_size(w);
			uint8_t *blk = malloc(n + 1);
			ck_assert_ptr_nonnull(blk);
			ck_assert_ptr_eq(f2d_bp_cache_put(w, blk), blk + n);
			free(blk);
		}
		slot s = {0};
		slot_save(w, &s);
		uint64_t h0 = f2d_world_hash(w);
		chain_run first, again;
		run_frames(w, F, &first);
		/* diverged by M frames */
		CHECK_OK(f2d_snapshot_restore(w, s.bytes, s.size));
		ck_assert_uint_eq(f2d_world_hash(w), h0);
		chained += w->contacts_stale ? 0 : 1;
		scenes++;
		run_frames(w, F, &again);
		expect_same_run(name, "restored", &first, &again);
		/* twice in a row */
		CHECK_OK(f2d_snapshot_restore(w, s.bytes, s.size));
		CHECK_OK(f2d_snapshot_restore(w, s.bytes, s.size));
		run_frames(w, F, &again);
		expect_same_run(name, "restored twice", &first, &again);
		/* diverged a lot */
		for (int64_t f = 0; f < 120; ++f) {
			ck_assert(completed(chain_inputs(w, F + CHAIN_M + f)));
		}
		CHECK_OK(f2d_snapshot_restore(w, s.bytes, s.size));
		run_frames(w, F, &again);
		expect_same_run(name, "restored after 120 frames", &first, &again);
		/* into a fresh world of another scene */
		f2d_world *v = make_scene("single_box");
		CHECK_OK(f2d_snapshot_restore(v, s.bytes, s.size));
		run_frames(v, F, &again);
		expect_same_run(name, "restored into a fresh world", &first, &again);
		f2d_destroy_world(v);
		f2d_destroy_world(w);
		free(s.bytes);
		}
	}
	/* the chain was restored in most scenes (not where frame F - 1 broke it) */
	ck_assert_int_gt(chained, scenes / 2);
}
END_TEST

/* ---- sync test ---- */

START_TEST(sync_test_every_scene)
{
	for (int32_t sc = 0; sc < f2d_scene_count(); ++sc) {
		const char *name = f2d_scene_name(sc);
		if (large_scene(name)) {
			continue;
		}
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

/* An allocator that fails one allocation (number fail_at, from 0) and fills the blocks it gives
 * with 0xA5 (so that a pointer read from a block never written is not NULL). */
typedef struct one_fail {
	counter c;
	int64_t n, fail_at;
} one_fail;

static void *one_fail_alloc(size_t size, void *context)
{
	one_fail *o = context;
	if (o->n++ == o->fail_at) {
		return NULL;
	}
	void *p = count_alloc(size, &o->c);
	if (p != NULL) {
		memset(p, 0xA5, size);
	}
	return p;
}

static void one_fail_free(void *p, size_t size, void *context)
{
	count_free(p, size, &((one_fail *)context)->c);
}

/* sync_test's three arrays (hashes, results, the snapshot ring), each failing alone: out of
 * memory, nothing freed that was not allocated, nothing leaked, the world unchanged */
START_TEST(sync_test_out_of_memory)
{
	one_fail o;
	memset(&o, 0, sizeof o);
	o.c.fail_after = -1;
	o.fail_at = -1;
	f2d_world_def def = f2d_default_world_def();
	def.allocator.alloc = one_fail_alloc;
	def.allocator.free = one_fail_free;
	def.allocator.context = &o;
	f2d_world *w = NULL;
	CHECK_OK(f2d_scene_create("pyramid", &def, &w));
	f2d_world_step(w);
	uint64_t h = f2d_world_hash(w);
	for (int64_t k = 0; k < 3; ++k) {
		int64_t live = o.c.live_bytes, allocs = o.c.allocs, frees = o.c.frees;
		o.n = 0;
		o.fail_at = k;
		f2d_sync_report rep;
		ck_assert_int_eq(f2d_sync_test(w, 5, 2, NULL, NULL, &rep), F2D_ERROR_OUT_OF_MEMORY);
		ck_assert_str_eq(f2d_world_last_error(w), "sync_test: allocator returned NULL");
		ck_assert_int_eq(o.c.live_bytes, live);
		ck_assert_int_eq(o.c.allocs - allocs, o.c.frees - frees);
		ck_assert_uint_eq(f2d_world_hash(w), h);
	}
	o.fail_at = -1;
	f2d_destroy_world(w);
	ck_assert_int_eq(o.c.live_bytes, 0);
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

/* ---- velocities the soft step leaves (regression: fuzz_joints seed
 * soft_step_restore_velocity_flag) ----
 * The soft step caps motion in each substep's position integration, but its relax pass (and
 * restitution) after the last one changes velocities again, bounded only by the solvers'
 * saturation to [-INT32_MAX, INT32_MAX]: the seed's world left a body spinning at 17485 rad/s
 * (v.x -266.8 m/s), and its own snapshot was refused ("velocity out of range") because the
 * loader held every world to the Gauss-Seidel step's bound (2 max_translation / h, at least
 * the 4096 a user may set). A world of substep_count >= 1 restores any such velocity (and
 * continues bit for bit, under UBSan too: the range edges are stepped); a world of the
 * Gauss-Seidel step (0), which ends with the capped integration, still refuses them. */
static f2d_world *stepped_pyramid(int32_t substeps)
{
	f2d_world_def def = f2d_default_world_def();
	def.substep_count = substeps;
	f2d_world *w = NULL;
	CHECK_OK(f2d_scene_create("pyramid", &def, &w));
	for (int i = 0; i < 20; ++i) {
		f2d_world_step(w);
	}
	return w;
}

/* the last live dynamic body */
static f2d_body *last_dynamic(f2d_world *w)
{
	for (int32_t i = w->body_ids.next - 1; i >= 0; --i) {
		if (w->bodies[i].alive && w->bodies[i].type == F2D_DYNAMIC_BODY) {
			return &w->bodies[i];
		}
	}
	ck_abort_msg("no dynamic body");
	return NULL;
}

START_TEST(soft_step_velocities_round_trip)
{
	static const fix16_t cases[][3] = {
	    {-17488166, 5515079, 1145886455}, /* the seed's body 14 after its step */
	    {0, 0, INT32_MAX},                /* the saturation edges */
	    {-INT32_MAX, INT32_MAX, -INT32_MAX},
	    {F2D_FIX(4097), 0, 0}, /* just past the old bound */
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
		f2d_world *w = stepped_pyramid(4);
		f2d_body *b = last_dynamic(w);
		b->v = f2d_v(cases[k][0], cases[k][1]);
		b->w = cases[k][2];
		b->awake = true;
		b->sleep_time = 0;
		uint64_t h = f2d_world_hash(w);
		slot m = {0}, p = {0};
		slot_save(w, &m);
		portable_save(w, &p);
		f2d_world *r = make_scene("dominos"), *l = NULL;
		ck_assert_msg(f2d_snapshot_restore(r, m.bytes, m.size) == F2D_OK, "case %d: %s",
		              (int)k, f2d_world_last_error(r));
		ck_assert_uint_eq(f2d_world_hash(r), h);
		CHECK_OK(f2d_snapshot_load_new(p.bytes, p.size, NULL, &l));
		ck_assert_uint_eq(f2d_world_hash(l), h);
		for (int i = 0; i < 10; ++i) {
			f2d_result a = f2d_world_step(w);
			ck_assert_int_eq(f2d_world_step(r), a);
			ck_assert_int_eq(f2d_world_step(l), a);
			ck_assert_uint_eq(f2d_world_hash(r), f2d_world_hash(w));
			ck_assert_uint_eq(f2d_world_hash(l), f2d_world_hash(w));
		}
		free(m.bytes);
		free(p.bytes);
		f2d_destroy_world(w);
		f2d_destroy_world(r);
		f2d_destroy_world(l);
	}
	/* the Gauss-Seidel step: the seed's spin is refused (world unchanged), the user's
	 * largest speed is not */
	f2d_world *g = stepped_pyramid(0);
	f2d_body *b = last_dynamic(g);
	b->awake = true;
	b->sleep_time = 0;
	b->v = f2d_v(F2D_FIX(-4096), 0);
	b->w = F2D_FIX(4096);
	slot m = {0}, p = {0};
	slot_save(g, &m);
	f2d_world *r = make_scene("dominos");
	CHECK_OK(f2d_snapshot_restore(r, m.bytes, m.size));
	ck_assert_uint_eq(f2d_world_hash(r), f2d_world_hash(g));
	b->w = 1145886455;
	slot_save(g, &m);
	portable_save(g, &p);
	uint64_t before = f2d_world_hash(r);
	ck_assert_int_eq(f2d_snapshot_restore(r, m.bytes, m.size), F2D_ERROR_INVALID_VALUE);
	ck_assert_ptr_nonnull(strstr(f2d_world_last_error(r), "Gauss-Seidel"));
	ck_assert_int_eq(f2d_snapshot_load(r, p.bytes, p.size), F2D_ERROR_INVALID_VALUE);
	ck_assert_ptr_nonnull(strstr(f2d_world_last_error(r), "velocity"));
	ck_assert_uint_eq(f2d_world_hash(r), before);
	free(m.bytes);
	free(p.bytes);
	f2d_destroy_world(g);
	f2d_destroy_world(r);
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
	    {"f2d_body", sizeof(f2d_body), 128},
	    {"f2d_shape", sizeof(f2d_shape), 448}, /* + capsule, ghosts (SF_TYPE record), hash
	                                            * digest, sweep, reach, turn (caches) */
	    {"f2d_joint", sizeof(f2d_joint), 304}, /* + the other joint types (JF_TYPE record); the
	                                            * spring cache and the bodies' joint-list links
	                                            * (derived, not saved: rebuilt on load) */
	    {"f2d_arbiter", sizeof(f2d_arbiter), 128}, /* + speculative (per step), padding */
	    {"f2d_contact_point", sizeof(f2d_contact_point), 32},
	    {"f2d_id_pool", sizeof(f2d_id_pool), 24},
	    {"f2d_world", sizeof(struct f2d_world),
	     1336}, /* + query cache, events, toi, def.substep_count, solver_disp (scratch), the
	            * hash's cache of its shapes and mass sections and option counts, the joint
	            * colouring's key and the soft step's body lists (scratch),
	            * the broad phase's candidates (bpc, a cache), the arbiters' geometry
	            * digests (saved with them, cloned) */
	    {"f2d_world_def", sizeof(f2d_world_def), 104}, /* + substep_count (options) */
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
	tcase_add_test(tc, soft_step_velocities_round_trip);
	tcase_add_test(tc, rollback_resimulation_every_scene);
	tcase_add_test(tc, rollback_with_contact_recycling);
	tcase_add_test(tc, sync_test_every_scene);
	tcase_add_test(tc, sync_test_catches_nondeterminism);
	tcase_add_test(tc, sync_test_out_of_memory);
	tcase_add_test(tc, handles_across_restore);
	tcase_add_test(tc, clone_is_independent);
	tcase_add_test(tc, restore_does_not_allocate);
	tcase_add_test(tc, restore_into_another_world);
	tcase_add_test(tc, user_data_and_counters_round_trip);
	tcase_add_test(tc, save_into_small_buffers);
	tcase_add_test(tc, empty_world_round_trip);
	tcase_add_test(tc, restore_keeps_the_chain_of_caches);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
