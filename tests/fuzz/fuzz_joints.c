/* libFuzzer target: revolute joint graphs at the extremes of every documented range, built with
 * the public API or loaded from a portable snapshot, then stepped (issue 11).
 * SPDX-License-Identifier: MIT
 *
 * Input: a little program. Byte 0: flags (bit 0 sleep, bit 1 Baumgarte joints instead of
 * position passes, bit 2 no warm starting, bit 3 "loaded": every joint's anchors are set to
 * the fuzzed values directly, as a portable snapshot may carry them (the loader accepts 64 m
 * from a moving body and 16 km from a static one, and no effective-mass bound), and the world
 * the test steps is the one f2d_snapshot_load_new makes of the saved bytes), bits 4-7: the
 * solver (1..8: the soft step with that many substeps, else the Gauss-Seidel step). Then bodies (a
 * static ground, up to 16 moving bodies: kind, offset up to +-64 m, shape, size, density),
 * joints (up to 64: bodies, anchors, motor speed and torque up to the limits, angle limits,
 * collide_connected) and a step count.
 * Oracles (abort on violation), after every step: every body is inside the world limit; every
 * 8 steps the world accepts its own state (in-process save -> restore and portable save ->
 * load give back the same hash); at the end, a restore to the middle and a resimulation give
 * the same hash as the first run. UBSan (-fno-sanitize-recover) catches any overflow.
 *
 * Build and run: tests/fuzz/run_fuzz_joints.sh SECONDS.
 */
#include "core.h"
#include "fix2d/fix2d.h"
#include "fix2d/snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_joints: oracle failed: %s\n", what);
		abort();
	}
}

typedef struct reader {
	const uint8_t *p;
	size_t n;
} reader;

static uint32_t take(reader *r, int bytes)
{
	uint32_t v = 0;
	for (int i = 0; i < bytes; ++i) {
		v |= (uint32_t)(r->n > 0 ? (--r->n, *r->p++) : 0) << (8 * i);
	}
	return v;
}

/* a signed 16-bit value scaled to +-limit */
static fix16_t take_span(reader *r, fix16_t limit)
{
	int32_t s = (int32_t)(int16_t)take(r, 2);
	s = s < -32767 ? -32767 : s; /* -32768 would reach past -limit */
	return (fix16_t)(((int64_t)s * limit) / 32767);
}

static const fix16_t sizes[8] = {F2D_MILLI(5),   F2D_MILLI(20), F2D_MILLI(100), F2D_MILLI(200),
                                 F2D_MILLI(500), F2D_FIX(1),    F2D_FIX(3),     F2D_FIX(16)};
static const fix16_t densities[4] = {F2D_FIX(1), F2D_FIX(10), F2D_FIX(1000), F2D_FIX(32767)};
static const fix16_t torques[4] = {0, F2D_FIX(1), F2D_FIX(1000), F2D_FIX(32767)};

static bool inside(f2d_vec2 p)
{
	return p.x >= -F2D_WORLD_LIMIT && p.x <= F2D_WORLD_LIMIT && p.y >= -F2D_WORLD_LIMIT &&
	       p.y <= F2D_WORLD_LIMIT;
}

static void accepts_own_state(f2d_world *w)
{
	uint64_t h = f2d_world_hash(w);
	size_t n = f2d_snapshot_size(w), got = 0;
	uint8_t *b = malloc(n);
	check(b != NULL, "malloc");
	check(f2d_snapshot_save(w, b, n, &got) == F2D_OK, "save");
	check(f2d_snapshot_restore(w, b, got) == F2D_OK, "restore refused the world's own snapshot");
	check(f2d_world_hash(w) == h, "restore changed the hash");
	free(b);
	n = f2d_snapshot_portable_size(w);
	b = malloc(n);
	check(b != NULL, "malloc");
	check(f2d_snapshot_save_portable(w, b, n, &got) == F2D_OK, "save_portable");
	check(f2d_snapshot_load(w, b, got) == F2D_OK, "load refused the world's own bytes");
	check(f2d_world_hash(w) == h, "load changed the hash");
	free(b);
}

static f2d_world *reload(f2d_world *w)
{
	size_t n = f2d_snapshot_portable_size(w), got = 0;
	uint8_t *b = malloc(n);
	check(b != NULL, "malloc");
	check(f2d_snapshot_save_portable(w, b, n, &got) == F2D_OK, "save_portable");
	f2d_world *out = NULL;
	check(f2d_snapshot_load_new(b, got, NULL, &out) == F2D_OK,
	      "load_new refused a joint the loader's ranges allow");
	check(f2d_world_hash(out) == f2d_world_hash(w), "load_new changed the hash");
	free(b);
	f2d_destroy_world(w);
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	reader r = {data, size};
	uint32_t flags = take(&r, 1);
	f2d_world_def wd = f2d_default_world_def();
	wd.enable_sleep = (flags & 1) != 0;
	wd.joint_position_iterations = (flags & 2) ? 0 : wd.joint_position_iterations;
	wd.warm_starting = (flags & 4) == 0;
	wd.substep_count = ((flags >> 4) >= 1 && (flags >> 4) <= 8) ? (int32_t)(flags >> 4) : 0;
	bool loaded = (flags & 8) != 0;
	f2d_world *w = NULL;
	check(f2d_create_world(&wd, &w) == F2D_OK, "world");

	enum { MAX_BODIES = 17, MAX_JOINTS = 64 };
	f2d_body_id bodies[MAX_BODIES];
	f2d_body_def bd = f2d_default_body_def();
	bd.position = (f2d_vec2){take_span(&r, F2D_WORLD_LIMIT), take_span(&r, F2D_WORLD_LIMIT)};
	check(f2d_create_body(w, &bd, &bodies[0]) == F2D_OK, "ground");
	f2d_vec2 base = bd.position;
	int32_t nb = 1 + (int32_t)(take(&r, 1) % (MAX_BODIES - 1));
	for (int32_t i = 1; i < nb; ++i) {
		uint32_t k = take(&r, 1);
		bd.type = (k & 7) == 0 ? F2D_KINEMATIC_BODY : F2D_DYNAMIC_BODY;
		int64_t x = (int64_t)base.x + take_span(&r, F2D_FIX(64));
		int64_t y = (int64_t)base.y + take_span(&r, F2D_FIX(64));
		bd.position.x = (fix16_t)(x < -F2D_WORLD_LIMIT ? -F2D_WORLD_LIMIT
		                                               : (x > F2D_WORLD_LIMIT ? F2D_WORLD_LIMIT : x));
		bd.position.y = (fix16_t)(y < -F2D_WORLD_LIMIT ? -F2D_WORLD_LIMIT
		                                               : (y > F2D_WORLD_LIMIT ? F2D_WORLD_LIMIT : y));
		bd.angular_velocity = (k & 8) ? take_span(&r, F2D_FIX(50)) : 0;
		bd.linear_velocity = (f2d_vec2){(k & 16) ? take_span(&r, F2D_FIX(100)) : 0, 0};
		check(f2d_create_body(w, &bd, &bodies[i]) == F2D_OK, "body");
		f2d_shape_def sd = f2d_default_shape_def();
		sd.density = densities[(k >> 5) & 3];
		fix16_t s = sizes[take(&r, 1) & 7];
		f2d_shape_id shape;
		if (k & 128) {
			f2d_circle c = {{0, 0}, s};
			(void)f2d_create_circle_shape(w, bodies[i], &sd, &c, &shape);
		} else {
			f2d_polygon p;
			check(f2d_make_box(s, s, &p) == F2D_OK, "box");
			(void)f2d_create_polygon_shape(w, bodies[i], &sd, &p, &shape);
		}
	}
	int32_t nj = (int32_t)(take(&r, 1) % (MAX_JOINTS + 1));
	for (int32_t k = 0; k < nj; ++k) {
		uint32_t sel = take(&r, 1), opt = take(&r, 1);
		int32_t ia = (int32_t)(sel & 15) % nb, ib = (int32_t)(sel >> 4) % nb;
		if (ia == ib) {
			continue;
		}
		f2d_revolute_joint_def jd = f2d_default_revolute_joint_def();
		jd.body_a = bodies[ia];
		jd.body_b = bodies[ib];
		fix16_t la = ia == 0 ? 2 * F2D_WORLD_LIMIT : F2D_FIX(64);
		fix16_t lb = ib == 0 ? 2 * F2D_WORLD_LIMIT : F2D_FIX(64);
		f2d_vec2 anchor_a = {take_span(&r, la), take_span(&r, la)};
		f2d_vec2 anchor_b = {take_span(&r, lb), take_span(&r, lb)};
		/* through the API: anchors that keep the effective mass resolvable are accepted */
		jd.local_anchor_a = loaded ? (f2d_vec2){0, 0} : anchor_a;
		jd.local_anchor_b = loaded ? (f2d_vec2){0, 0} : anchor_b;
		jd.enable_motor = (opt & 1) != 0;
		jd.motor_speed = take_span(&r, F2D_FIX(1000));
		jd.max_motor_torque = torques[(opt >> 1) & 3];
		jd.enable_limit = (opt & 8) != 0;
		jd.lower_angle = -(fix16_t)(take(&r, 2) % 205888);
		jd.upper_angle = (fix16_t)(take(&r, 2) % 205888);
		jd.collide_connected = (opt & 16) != 0;
		f2d_joint_id j;
		if (f2d_create_revolute_joint(w, &jd, &j) == F2D_OK && loaded) {
			w->joints[j.index1 - 1].local_a = anchor_a;
			w->joints[j.index1 - 1].local_b = anchor_b;
		}
	}
	if (loaded) {
		w = reload(w);
	}
	int32_t steps = 1 + (int32_t)(take(&r, 1) % 64);
	size_t mid_cap = f2d_snapshot_size(w) + 4096, mid_n = 0;
	uint8_t *mid = NULL;
	uint64_t end_hash = 0;
	for (int32_t i = 0; i < steps; ++i) {
		if (i == steps / 2) {
			mid_cap = f2d_snapshot_size(w);
			mid = malloc(mid_cap);
			check(mid != NULL, "malloc");
			check(f2d_snapshot_save(w, mid, mid_cap, &mid_n) == F2D_OK, "save mid");
		}
		f2d_world_step(w);
		for (int32_t b = 0; b < nb; ++b) {
			check(inside(f2d_body_get_position(w, bodies[b])), "a body beyond the world limit");
		}
		if (i % 8 == 7) {
			accepts_own_state(w);
		}
	}
	end_hash = f2d_world_hash(w);
	check(f2d_snapshot_restore(w, mid, mid_n) == F2D_OK, "restore mid");
	for (int32_t i = steps / 2; i < steps; ++i) {
		f2d_world_step(w);
	}
	check(f2d_world_hash(w) == end_hash, "resimulation differs from the first run");
	accepts_own_state(w);
	free(mid);
	f2d_destroy_world(w);
	return 0;
}
