/* fix2d tests: worlds stepped concurrently on different threads compute exactly what they
 * compute alone.
 * SPDX-License-Identifier: MIT
 *
 * fix2d has no global mutable state, so N worlds on N threads must give, step for step, the
 * hash chains they give when stepped one after another on one thread, and those must be the
 * committed golden chains (tests/golden/<scene>.chain). The threads start together behind a
 * barrier and create, step and destroy their worlds concurrently. tests/matrix/run_matrix.sh
 * also builds this test with -fsanitize=thread (the tsan cell).
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix2d/fix2d.h"
#include "fix2d/scenes.h"

#define STEPS 300
#define MAX_THREADS 16

static const char *const scenes[] = {"pyramid20", "chain50",     "hinges80", "random_stack",
                                     "circles",   "polygons",    "bridge",   "dominos",
                                     "rain1000",  "restitution", "teeter",   "multi_pendulum"};
#define SCENE_COUNT ((int)(sizeof scenes / sizeof scenes[0]))

static int32_t steps_for(const char *scene)
{
	return strcmp(scene, "rain1000") == 0 ? 100 : STEPS;
}

typedef struct job {
	const char *scene;
	int32_t steps;
	pthread_barrier_t *start;
	f2d_result created;
	uint64_t fingerprint;
	uint64_t chain[STEPS];
} job;

/* Builds the scene, steps it and records the hash after every step. */
static void run_job(job *j)
{
	j->fingerprint = f2d_fingerprint();
	f2d_world *w = NULL;
	j->created = f2d_scene_create(j->scene, NULL, &w);
	if (j->created != F2D_OK) {
		return;
	}
	for (int32_t i = 0; i < j->steps; ++i) {
		f2d_world_step(w);
		j->chain[i] = f2d_world_hash(w);
	}
	f2d_destroy_world(w);
}

static void *thread_main(void *arg)
{
	job *j = arg;
	pthread_barrier_wait(j->start);
	run_job(j);
	return NULL;
}

static void init_job(job *j, const char *scene, pthread_barrier_t *start)
{
	memset(j, 0, sizeof *j);
	j->scene = scene;
	j->steps = steps_for(scene);
	j->start = start;
	j->created = F2D_ERROR_COUNT;
}

/* Runs jobs[0..n) on n threads started together. */
static void run_concurrently(job *jobs, int n)
{
	pthread_barrier_t start;
	ck_assert_int_eq(pthread_barrier_init(&start, NULL, (unsigned)n), 0);
	pthread_t threads[MAX_THREADS];
	for (int i = 0; i < n; ++i) {
		jobs[i].start = &start;
		ck_assert_int_eq(pthread_create(&threads[i], NULL, thread_main, &jobs[i]), 0);
	}
	for (int i = 0; i < n; ++i) {
		ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
	}
	pthread_barrier_destroy(&start);
}

static void assert_same_chain(const job *got, const job *alone, const char *what)
{
	ck_assert_int_eq(got->created, F2D_OK);
	ck_assert_int_eq(got->steps, alone->steps);
	ck_assert_msg(got->fingerprint == alone->fingerprint, "%s %s: fingerprint differs", what,
	              got->scene);
	for (int32_t i = 0; i < got->steps; ++i) {
		ck_assert_msg(got->chain[i] == alone->chain[i],
		              "%s %s: first divergent step %d: %016" PRIx64 ", alone %016" PRIx64,
		              what, got->scene, i + 1, got->chain[i], alone->chain[i]);
	}
}

/* The chain of one scene run alone, checked against tests/golden/<scene>.chain. */
static void run_alone_against_golden(job *j)
{
	run_job(j);
	ck_assert_int_eq(j->created, F2D_OK);
	const char *dir = getenv("F2D_GOLDEN_DIR");
	ck_assert_msg(dir != NULL, "F2D_GOLDEN_DIR is not set");
	char path[1024];
	snprintf(path, sizeof path, "%s/%s.chain", dir, j->scene);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	for (int32_t i = 0; i < j->steps; ++i) {
		long step = 0;
		char hex[32];
		ck_assert_msg(fscanf(f, " step %ld hash %31s", &step, hex) == 2,
		              "%s: no line for step %d", path, i + 1);
		ck_assert_int_eq(step, i + 1);
		uint64_t want = strtoull(hex, NULL, 16);
		ck_assert_msg(j->chain[i] == want,
		              "%s alone: first divergent step %d: %016" PRIx64
		              ", golden %016" PRIx64,
		              j->scene, i + 1, j->chain[i], want);
	}
	fclose(f);
}

static job alone[SCENE_COUNT];

/* Every scene on its own thread, all at once. */
START_TEST(different_scenes_concurrently)
{
	for (int s = 0; s < SCENE_COUNT; ++s) {
		init_job(&alone[s], scenes[s], NULL);
		run_alone_against_golden(&alone[s]);
	}
	static job jobs[SCENE_COUNT];
	for (int s = 0; s < SCENE_COUNT; ++s) {
		init_job(&jobs[s], scenes[s], NULL);
	}
	run_concurrently(jobs, SCENE_COUNT);
	for (int s = 0; s < SCENE_COUNT; ++s) {
		assert_same_chain(&jobs[s], &alone[s], "concurrent");
	}
}
END_TEST

/* Eight worlds of the same scene, and of two interleaved scenes, on eight threads. */
START_TEST(same_scene_concurrently)
{
	static const char *const pair[2] = {"pyramid20", "hinges80"};
	job ref[2];
	for (int k = 0; k < 2; ++k) {
		init_job(&ref[k], pair[k], NULL);
		run_alone_against_golden(&ref[k]);
	}
	static job jobs[8];
	for (int i = 0; i < 8; ++i) {
		init_job(&jobs[i], pair[i < 4 ? 0 : i % 2], NULL);
	}
	run_concurrently(jobs, 8);
	for (int i = 0; i < 8; ++i) {
		assert_same_chain(&jobs[i], &ref[i < 4 ? 0 : i % 2], "same scene");
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("threads");
	TCase *tc = tcase_create("concurrent worlds");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, different_scenes_concurrently);
	tcase_add_test(tc, same_scene_concurrently);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
