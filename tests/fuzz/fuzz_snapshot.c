/* libFuzzer target: the snapshot loaders (portable f2d_snapshot_load / _load_new and the
 * in-process f2d_snapshot_restore, which share one validating decoder).
 * SPDX-License-Identifier: MIT
 *
 * Input: one mode byte, then the snapshot bytes.
 *   mode & 3: 0 f2d_snapshot_load_new, 1 f2d_snapshot_load into an existing world,
 *             2 f2d_snapshot_restore (in-process) into an existing world, 3 both loaders
 *   mode & 4: repair the length field (and, for portable bytes, the checksum) first, so that
 *             mutations reach the payload decoder instead of dying at the checksum
 * Oracles (abort on violation): a refused snapshot leaves the target world's hash unchanged
 * and sets a message; load_new leaves *out NULL; an accepted snapshot is canonical (saving the
 * loaded world gives the same bytes back) and survives in-process save/restore and clone round
 * trips (across F2D_FUZZ_STEPS steps, default 0); after those steps the world accepts its own
 * portable bytes. ASan and UBSan catch the rest.
 *
 * Build and run: tests/fuzz/run_fuzz_snapshot.sh SECONDS. Built with
 * -DF2D_FUZZ_GENERATE_CORPUS instead, it is a program that writes the seed corpus
 * (tests/fuzz/corpus_snapshot/) from small catalogue scenes.
 */
#include "fix2d/fix2d.h"
#include "fix2d/scenes.h"
#include "fix2d/snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_snapshot: oracle failed: %s\n", what);
		abort();
	}
}

#ifndef F2D_FUZZ_GENERATE_CORPUS

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; ++i) {
		p[i] = (uint8_t)(v >> (8 * i));
	}
}

static bool is_portable(const uint8_t *b, size_t n)
{
	return n >= 8 && memcmp(b, "fix2dsnp", 8) == 0;
}

static void repair(uint8_t *b, size_t n)
{
	if (is_portable(b, n) && n >= 40) {
		put_le64(b + 24, n - 40);
		put_le64(b + 32, XXH3_64bits(b + 40, n - 40));
	} else if (n >= 24) {
		put_le64(b + 16, n - 24);
	}
}

/* save the world in the form given and compare with the input */
static void expect_same_bytes(f2d_world *w, const uint8_t *b, size_t n, bool portable)
{
	size_t need = portable ? f2d_snapshot_portable_size(w) : f2d_snapshot_size(w);
	check(need == n, "accepted bytes are not canonical (length)");
	uint8_t *again = malloc(need);
	check(again != NULL, "malloc");
	size_t written = 0;
	f2d_result r = portable ? f2d_snapshot_save_portable(w, again, need, &written)
	                        : f2d_snapshot_save(w, again, need, &written);
	check(r == F2D_OK && written == n, "re-save");
	check(memcmp(again, b, n) == 0, "accepted bytes are not canonical (content)");
	free(again);
}

/* Steps run on accepted worlds: F2D_FUZZ_STEPS (default 0). Stepping fuzzes the engine with
 * every state the loader accepts, which also finds engine bugs reachable through the public
 * API; the default run checks the loaders only. */
static int fuzz_steps(void)
{
	static int steps = -1;
	if (steps < 0) {
		const char *e = getenv("F2D_FUZZ_STEPS");
		steps = e != NULL ? atoi(e) : 0;
		steps = steps < 0 ? 0 : (steps > 16 ? 16 : steps);
	}
	return steps;
}

static void step_n(f2d_world *w, int n)
{
	for (int i = 0; i < n; ++i) {
		f2d_world_step(w);
	}
}

/* an accepted world: in-process save, restore and clone round trips (across steps) */
static void exercise(f2d_world *w)
{
	int steps = fuzz_steps();
	size_t need = f2d_snapshot_size(w);
	uint8_t *snap = malloc(need);
	check(snap != NULL, "malloc");
	size_t n = 0;
	check(f2d_snapshot_save(w, snap, need, &n) == F2D_OK, "save");
	uint64_t h = f2d_world_hash(w);
	step_n(w, steps);
	uint64_t h2 = f2d_world_hash(w);
	if (steps > 0) { /* whatever a step does, the world accepts the state it leaves */
		size_t pn = f2d_snapshot_portable_size(w), got = 0;
		uint8_t *p = malloc(pn);
		check(p != NULL, "malloc");
		check(f2d_snapshot_save_portable(w, p, pn, &got) == F2D_OK, "save_portable");
		f2d_world *again = NULL;
		check(f2d_snapshot_load_new(p, got, NULL, &again) == F2D_OK,
		      "load_new refused the bytes of a stepped world");
		check(f2d_world_hash(again) == h2, "load_new changed the hash");
		f2d_destroy_world(again);
		free(p);
	}
	check(f2d_snapshot_restore(w, snap, n) == F2D_OK, "restore own snapshot");
	check(f2d_world_hash(w) == h, "restore gives another hash");
	step_n(w, steps);
	check(f2d_world_hash(w) == h2, "resimulation differs");
	f2d_world *c = NULL;
	if (f2d_world_clone(w, &c) == F2D_OK) {
		check(f2d_world_hash(c) == f2d_world_hash(w), "clone differs");
		step_n(c, steps > 0 ? 1 : 0);
		step_n(w, steps > 0 ? 1 : 0);
		check(f2d_world_hash(c) == f2d_world_hash(w), "clone steps differently");
		f2d_destroy_world(c);
	}
	free(snap);
}

static f2d_world *target_world(void)
{
	f2d_world *w = NULL;
	check(f2d_scene_create("pendulum", NULL, &w) == F2D_OK, "scene");
	f2d_world_step(w);
	return w;
}

static void try_load_new(const uint8_t *b, size_t n)
{
	f2d_world *w = (f2d_world *)(uintptr_t)1;
	f2d_result r = f2d_snapshot_load_new(b, n, NULL, &w);
	if (r != F2D_OK) {
		check(w == NULL, "load_new failed but set *out");
		char msg[200];
		check(f2d_snapshot_check(b, n, NULL, msg, sizeof msg) == r && msg[0] != '\0',
		      "snapshot_check disagrees or gives no message");
		return;
	}
	expect_same_bytes(w, b, n, true);
	exercise(w);
	f2d_destroy_world(w);
}

static void try_load_into(const uint8_t *b, size_t n, bool portable)
{
	f2d_world *w = target_world();
	uint64_t h = f2d_world_hash(w);
	f2d_result r = portable ? f2d_snapshot_load(w, b, n) : f2d_snapshot_restore(w, b, n);
	if (r != F2D_OK) {
		check(f2d_world_hash(w) == h, "refused snapshot changed the world");
		check(f2d_world_last_error(w)[0] != '\0', "refused snapshot without a message");
		step_n(w, fuzz_steps() > 0 ? 1 : 0); /* still a working world */
	} else {
		expect_same_bytes(w, b, n, portable);
		exercise(w);
	}
	f2d_destroy_world(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1) {
		return 0;
	}
	uint32_t mode = data[0];
	size_t n = size - 1;
	uint8_t *b = malloc(n > 0 ? n : 1);
	check(b != NULL, "malloc");
	if (n > 0) {
		memcpy(b, data + 1, n);
	}
	if (mode & 4) {
		repair(b, n);
	}
	switch (mode & 3) {
	case 0: try_load_new(b, n); break;
	case 1: try_load_into(b, n, true); break;
	case 2: try_load_into(b, n, false); break;
	default:
		try_load_into(b, n, true);
		try_load_into(b, n, false);
		break;
	}
	free(b);
	return 0;
}

#else /* the seed corpus generator */

static void write_seed(const char *dir, const char *name, uint8_t mode, const uint8_t *b, size_t n)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	check(f != NULL, path);
	check(fputc(mode, f) != EOF && fwrite(b, 1, n, f) == n && fclose(f) == 0, path);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	const char *dir = argv[1];
	static const struct {
		const char *scene;
		int steps;
	} seeds[] = {{"single_box", 40}, {"pendulum", 30}, {"teeter", 90},
	             {"bridge", 60},     {"dominos", 100}, {"circles", 90},
	             {"polygons", 120},  {"hinges80", 20}, {"varying_friction", 60},
	             {"chain50", 45},    {"multi_pendulum", 30}, {"capsule_ragdolls", 90},
	             {"chain_terrain", 120}};
	for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; ++i) {
		f2d_world *w = NULL;
		check(f2d_scene_create(seeds[i].scene, NULL, &w) == F2D_OK, "scene");
		for (int s = 0; s < seeds[i].steps; ++s) {
			f2d_world_step(w);
		}
		if (i == 0) { /* dead ids, free lists, user data, a force */
			f2d_body_def bd = f2d_default_body_def();
			bd.type = F2D_DYNAMIC_BODY;
			bd.position.y = F2D_FIX(5);
			bd.user_data = 7;
			f2d_body_id a, b2;
			check(f2d_create_body(w, &bd, &a) == F2D_OK, "body");
			check(f2d_create_body(w, &bd, &b2) == F2D_OK, "body");
			f2d_circle c = {{0, 0}, F2D_MILLI(300)};
			f2d_shape_def sd = f2d_default_shape_def();
			f2d_shape_id s;
			check(f2d_create_circle_shape(w, b2, &sd, &c, &s) == F2D_OK, "shape");
			check(f2d_destroy_body(w, a) == F2D_OK, "destroy");
			f2d_body_apply_force_to_center(w, b2, (f2d_vec2){F2D_FIX(3), 0});
		}
		size_t pn = f2d_snapshot_portable_size(w), mn = f2d_snapshot_size(w), got;
		uint8_t *p = malloc(pn), *m = malloc(mn);
		check(p != NULL && m != NULL, "malloc");
		check(f2d_snapshot_save_portable(w, p, pn, &got) == F2D_OK, "save");
		check(f2d_snapshot_save(w, m, mn, &got) == F2D_OK, "save");
		char name[128];
		snprintf(name, sizeof name, "%s.portable", seeds[i].scene);
		write_seed(dir, name, (uint8_t)(i % 2 == 0 ? 0 : 5), p, pn);
		if (i < 4) {
			snprintf(name, sizeof name, "%s.memory", seeds[i].scene);
			write_seed(dir, name, 6, m, mn);
		}
		if (i < 3) { /* damaged ones */
			snprintf(name, sizeof name, "%s.truncated", seeds[i].scene);
			write_seed(dir, name, 1, p, pn / 2);
			p[40 + (pn - 40) / 3] ^= 0x41;
			snprintf(name, sizeof name, "%s.badsum", seeds[i].scene);
			write_seed(dir, name, 1, p, pn);
			snprintf(name, sizeof name, "%s.repaired", seeds[i].scene);
			write_seed(dir, name, 5, p, pn);
		}
		free(p);
		free(m);
		f2d_destroy_world(w);
	}
	return 0;
}

#endif
