/* fix2d-bench - steady-state step cost, allocations per step and hash cost of catalogue scenes.
 * SPDX-License-Identifier: MIT
 *
 * Public API only. Doubles are used for timing here; none of this is library code.
 * Exit status: 0 success, 1 failure (library error, runs disagree), 2 usage error.
 */
#define _POSIX_C_SOURCE 200809L

#include "core.h" /* the query tree's epoch, to time a rebuild */
#include "fix2d/fix2d.h"
#include "fix2d/scenes.h"
#include "fix2d/snapshot.h"
#include "../test_rng.h"

#include "core.h" /* f2d_contact_lcp_points: the measurement hook of --residual */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROG "fix2d-bench"
#define EXIT_USAGE 2
#define MAX_COUNT 10000000L
#define MAX_RUNS 1000L
#define DEFAULT_STEPS 600L
#define DEFAULT_RAIN_STEPS 300L
#define DEFAULT_LARGE_STEPS 60L /* the large_* scenes (1k..10k boxes) */
#define DEFAULT_RUNS 5L
#define DEFAULT_WARMUP 60L
#define HASH_BATCHES 10
#define HASH_CALLS_PER_BATCH 200
#define SNAPSHOT_BATCHES 21
#define SNAPSHOT_PAIRS_PER_BATCH 40
#define ROLLBACK_RUNS 9
#define ROLLBACK_FRAMES 8

static const char *const default_scenes[] = {"pyramid20", "rain1000", "chain50"};
#define DEFAULT_SCENE_COUNT ((int)(sizeof default_scenes / sizeof default_scenes[0]))

/* ---- counting allocator ---- */

typedef struct alloc_counter {
	uint64_t allocs, frees;
	uint64_t bytes_allocated, bytes_freed;
} alloc_counter;

static void *counting_alloc(size_t size, void *context)
{
	alloc_counter *c = context;
	void *p = malloc(size > 0 ? size : 1);
	if (p != NULL) {
		c->allocs += 1;
		c->bytes_allocated += size;
	}
	return p;
}

static void counting_free(void *memory, size_t size, void *context)
{
	alloc_counter *c = context;
	if (memory == NULL) {
		return;
	}
	c->frees += 1;
	c->bytes_freed += size;
	free(memory);
}

/* ---- options ---- */

typedef struct bench_options {
	const char **scenes;
	int scene_count;
	long steps; /* 0: per-scene default */
	long runs;
	long warmup;
	bool sleep; /* --sleep: worlds may sleep (default off, to compare with engines that cannot)
	             */
	bool scaling;
	bool queries;  /* --queries: the query line for every scene (rain1000 always) */
	bool residual; /* --residual: the contacts' LCP residual per iteration count, no timing */
	bool events;   /* --events: step cost with every event on against events off, only that */
	long substeps; /* --substeps N: f2d_world_def.substep_count (0: the Gauss-Seidel solver) */
} bench_options;

/* --scaling: the broad phase's series, 1k to 10k boxes (ms per step should grow ~n log n) */
static const char *const scaling_scenes[] = {"large_pyramid_1k", "large_pyramid_2k",
                                             "large_pyramid_4k", "large_pyramid",
                                             "large_pyramid_10k"};
#define SCALING_COUNT ((int)(sizeof scaling_scenes / sizeof scaling_scenes[0]))

static bool parse_long(const char *text, long min, long max, long *out)
{
	if (text[0] < '0' || text[0] > '9') {
		return false;
	}
	errno = 0;
	char *end = NULL;
	long value = strtol(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || value < min || value > max) {
		return false;
	}
	*out = value;
	return true;
}

static void print_usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: %s [SCENE...] [--steps N] [--runs R] [--warmup W] [--sleep] [--scaling] "
	    "[--queries] [--residual] [--events] [--substeps N]\n"
	    "  SCENE       catalogue scenes (default: pyramid20 rain1000 chain50)\n"
	    "  --steps N   timed steps per run, 1..%ld (default %ld; %ld for rain1000, %ld for "
	    "large_*)\n"
	    "  --runs R    runs per scene, 1..%ld (default %ld); the median is reported\n"
	    "  --warmup W  untimed steps before the timed ones, 0..%ld (default %ld)\n"
	    "  --sleep     let islands sleep (default: sleeping off in every world)\n"
	    "  --substeps N  the solver: f2d_world_def.substep_count, 0..8 (default %d, the\n"
	    "              world's default: the soft step; 0 the Gauss-Seidel solver)\n"
	    "  --scaling   also the broad phase's series: large_pyramid_1k, _2k, _4k, "
	    "large_pyramid,\n"
	    "              large_pyramid_10k (1k..10k boxes), then a summary\n"
	    "  --queries   the query line for every scene (rain1000 always has it)\n"
	    "  --residual  no timing: the contacts' LCP residual after the velocity solve, per\n"
	    "              scene and iteration count (1 2 4 10 20 50), over the last 60 of the\n"
	    "              steps (default 600; --steps N), one line each:\n"
	    "  residual <name> iterations <n> points <avg> signorini_rms <m/s> signorini_max "
	    "<m/s>\n"
	    "    approach_max <m/s> cone_max <m/s> slip_rms <m/s> slip_max <m/s>\n"
	    "  --events    only this (default scenes pyramid20 rain1000): R rounds of three runs\n"
	    "              of the scene with 8 static sensor boxes added: off (no contact, hit\n"
	    "              or sensor events), contact (contact and hit events on every shape),\n"
	    "              all (and the sensors on):\n"
	    "  events <name> sleep <0|1> steps <N> rounds <R> off_ms <ms> contact_ms <ms> "
	    "all_ms <ms>\n"
	    "    contact_overhead_pct <x> all_overhead_pct <x> contact_events_per_step <x>\n"
	    "    hit_events_per_step <x> sensor_events_per_step <x>\n"
	    "    (medians; an overhead is the median of the rounds' variant/off - 1; the bodies\n"
	    "    of the three runs must end equal)\n"
	    "output per scene:\n"
	    "  scene <name> sleep <0|1> bodies <n> awake <n> steps <N> ms_per_step <ms> "
	    "hash <16 hex> allocs_in_steps <count> kernel <avx512|scalar>\n"
	    "    (awake: bodies simulated in the last timed step)\n"
	    "  hash <name> us_per_hash <us> pct_of_step <percent>\n"
	    "  snapshot <name> bytes <n> bytes_per_body <x> save_restore_ms <ms> "
	    "rollback8_ms <ms> arbiter_bytes <n> portable_bytes <n> allocs_in_save_restore <n>\n"
	    "    (in-process snapshot of the benchmarked world; bytes_per_body leaves out the\n"
	    "    arbiters' share; rollback8 = restore + %d resimulated steps)\n"
	    "  queries <name> shapes <n> rays_per_ms <x> ray_hit_pct <x> aabb_per_ms <x> "
	    "shapes_per_aabb <x> tree_build_ms <ms>\n"
	    "    (after 300 more steps: f2d_world_cast_ray_closest of random rays in the moving\n"
	    "    bodies' bounds, f2d_world_query_aabb of random 2 m boxes, the tree's rebuild)\n"
	    "with --scaling, per scene of the series and then for its two ends:\n"
	    "  scaling <name> bodies <n> ms_per_step <ms> us_per_body <us>\n"
	    "  scaling growth bodies x<ratio> ms_per_step x<ratio> (<first> to <last>)\n",
	    PROG, MAX_COUNT, DEFAULT_STEPS, DEFAULT_RAIN_STEPS, DEFAULT_LARGE_STEPS, MAX_RUNS,
	    DEFAULT_RUNS, MAX_COUNT, DEFAULT_WARMUP, (int)f2d_default_world_def().substep_count,
	    ROLLBACK_FRAMES);
}

static int usage_error(const char *message, const char *detail)
{
	fprintf(stderr, "%s: %s '%s' (try: %s --help)\n", PROG, message, detail, PROG);
	return EXIT_USAGE;
}

/* Parses `--name VALUE` at argv[*i] into *out, range [min, max]. Returns -1 on success. */
static int option_value(int argc, char **argv, int *i, long min, long max, long *out)
{
	const char *name = argv[*i];
	if (*i + 1 >= argc) {
		fprintf(stderr, "%s: %s needs a value (try: %s --help)\n", PROG, name, PROG);
		return EXIT_USAGE;
	}
	*i += 1;
	if (!parse_long(argv[*i], min, max, out)) {
		fprintf(stderr, "%s: %s needs an integer in %ld..%ld, got '%s'\n", PROG, name, min,
		        max, argv[*i]);
		return EXIT_USAGE;
	}
	return -1;
}

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, bench_options *opt)
{
	opt->scenes = NULL;
	opt->scene_count = 0;
	opt->steps = 0;
	opt->runs = DEFAULT_RUNS;
	opt->warmup = DEFAULT_WARMUP;
	opt->sleep = false;
	opt->queries = false;
	opt->scaling = false;
	opt->residual = false;
	opt->events = false;
	opt->substeps = f2d_default_world_def().substep_count;
	opt->scenes = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *opt->scenes);
	if (opt->scenes == NULL) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		return EXIT_FAILURE;
	}
	for (int i = 1; i < argc; ++i) {
		const char *arg = argv[i];
		int status = -1;
		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
			print_usage(stdout);
			return EXIT_SUCCESS;
		} else if (strcmp(arg, "--steps") == 0) {
			status = option_value(argc, argv, &i, 1, MAX_COUNT, &opt->steps);
		} else if (strcmp(arg, "--runs") == 0) {
			status = option_value(argc, argv, &i, 1, MAX_RUNS, &opt->runs);
		} else if (strcmp(arg, "--sleep") == 0) {
			opt->sleep = true;
		} else if (strcmp(arg, "--substeps") == 0) {
			status = option_value(argc, argv, &i, 0, 8, &opt->substeps);
		} else if (strcmp(arg, "--warmup") == 0) {
			status = option_value(argc, argv, &i, 0, MAX_COUNT, &opt->warmup);
		} else if (strcmp(arg, "--scaling") == 0) {
			opt->scaling = true;
		} else if (strcmp(arg, "--queries") == 0) {
			opt->queries = true;
		} else if (strcmp(arg, "--residual") == 0) {
			opt->residual = true;
		} else if (strcmp(arg, "--events") == 0) {
			opt->events = true;
		} else if (arg[0] == '-') {
			status = usage_error("unknown option", arg);
		} else if (f2d_scene_find(arg) < 0) {
			fprintf(stderr, "%s: unknown scene '%s' (try: fix2d-replay scenes)\n", PROG,
			        arg);
			status = EXIT_USAGE;
		} else {
			opt->scenes[opt->scene_count++] = arg;
		}
		if (status >= 0) {
			return status;
		}
	}
	if (opt->scene_count == 0 && opt->events) {
		opt->scenes[0] = "pyramid20";
		opt->scenes[1] = "rain1000";
		opt->scene_count = 2;
	}
	if (opt->scene_count == 0 && !opt->scaling) {
		for (int i = 0; i < DEFAULT_SCENE_COUNT; ++i) {
			opt->scenes[i] = default_scenes[i];
		}
		opt->scene_count = DEFAULT_SCENE_COUNT;
	}
	return -1;
}

/* ---- timing ---- */

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median of values[0..n); sorts the array. */
static double median(double *values, int n)
{
	qsort(values, (size_t)n, sizeof *values, compare_doubles);
	if (n % 2 == 1) {
		return values[n / 2];
	}
	return 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/* ---- one run ---- */

typedef struct run_result {
	double ms_per_step;
	uint64_t allocs_in_steps;
	uint64_t hash;
	int32_t bodies, awake;
	uint64_t range_events; /* steps that returned OUT_OF_RANGE / OVERFLOW */
} run_result;

/* Steps `count` times; range results are counted, other errors are fatal. */
static bool step_n(f2d_world *world, long count, const char *scene, uint64_t *range_events)
{
	for (long n = 0; n < count; ++n) {
		f2d_result r = f2d_world_step(world);
		if (r == F2D_ERROR_OUT_OF_RANGE || r == F2D_ERROR_OVERFLOW) {
			*range_events += 1;
		} else if (r != F2D_OK) {
			fprintf(stderr, "%s: %s: step failed: %s\n", PROG, scene,
			        f2d_error_string(r));
			return false;
		}
	}
	return true;
}

static bool check_leaks(const alloc_counter *c, const char *scene)
{
	if (c->allocs == c->frees && c->bytes_allocated == c->bytes_freed) {
		return true;
	}
	fprintf(stderr,
	        "%s: %s: allocator imbalance after destroy: %" PRIu64 " allocs / %" PRIu64
	        " frees, %" PRIu64 " / %" PRIu64 " bytes\n",
	        PROG, scene, c->allocs, c->frees, c->bytes_allocated, c->bytes_freed);
	return false;
}

/* Builds the scene fresh, warms up, times the steps. On success the world is kept in *out
 * (the caller destroys it) when out != NULL, else destroyed here. */
static bool run_once(const char *scene, const bench_options *opt, long steps, run_result *res,
                     alloc_counter *counter, f2d_world **out)
{
	long warmup = opt->warmup;
	memset(counter, 0, sizeof *counter);
	memset(res, 0, sizeof *res);
	f2d_world_def def = f2d_default_world_def();
	def.allocator.alloc = counting_alloc;
	def.allocator.free = counting_free;
	def.allocator.context = counter;
	def.enable_sleep = opt->sleep;
	def.substep_count = (int32_t)opt->substeps;
	f2d_world *world = NULL;
	f2d_result r = f2d_scene_create(scene, &def, &world);
	if (r != F2D_OK || world == NULL) {
		fprintf(stderr, "%s: cannot build scene '%s': %s\n", PROG, scene,
		        f2d_error_string(r));
		return false;
	}
	bool ok = step_n(world, warmup, scene, &res->range_events);
	if (ok) {
		uint64_t allocs_before = counter->allocs;
		double t0 = now_seconds();
		ok = step_n(world, steps, scene, &res->range_events);
		double t1 = now_seconds();
		res->allocs_in_steps = counter->allocs - allocs_before;
		res->ms_per_step = (t1 - t0) * 1000.0 / (double)steps;
	}
	f2d_world_stats stats;
	f2d_world_get_stats(world, &stats);
	res->bodies = stats.body_count;
	res->awake = stats.awake_body_count;
	res->hash = f2d_world_hash(world);
	if (ok && out != NULL) {
		*out = world;
		return true;
	}
	f2d_destroy_world(world);
	check_leaks(counter, scene);
	return ok;
}

/* Median per-call microseconds of f2d_world_hash over batches of calls. */
static double time_hash(const f2d_world *world, uint64_t expected, bool *stable)
{
	double per_call_us[HASH_BATCHES];
	*stable = true;
	for (int b = 0; b < HASH_BATCHES; ++b) {
		uint64_t mismatches = 0;
		double t0 = now_seconds();
		for (int i = 0; i < HASH_CALLS_PER_BATCH; ++i) {
			mismatches += f2d_world_hash(world) != expected;
		}
		double t1 = now_seconds();
		per_call_us[b] = (t1 - t0) * 1e6 / HASH_CALLS_PER_BATCH;
		if (mismatches != 0) {
			*stable = false;
		}
	}
	return median(per_call_us, HASH_BATCHES);
}

/* ---- snapshots ---- */

/* In-process snapshot of the world as the timed run left it (rain1000: 360 steps, settled, with
 * its contacts): size, save + restore time with a caller buffer (median per pair; the
 * counting allocator must see no allocation), and the rollback budget: restore + 8 resimulated
 * steps (median). The world ends in the state it had. */
static bool bench_snapshot(const char *scene, f2d_world *world, const alloc_counter *counter)
{
	f2d_world_stats stats;
	f2d_world_get_stats(world, &stats);
	f2d_snapshot_layout layout;
	if (f2d_snapshot_measure(world, false, &layout) != F2D_OK || stats.body_count <= 0) {
		fprintf(stderr, "%s: %s: cannot measure the snapshot\n", PROG, scene);
		return false;
	}
	size_t bytes = layout.total;
	size_t portable = f2d_snapshot_portable_size(world);
	unsigned char *buffer = malloc(bytes);
	if (buffer == NULL) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		return false;
	}
	bool ok = true;
	uint64_t hash = f2d_world_hash(world);
	uint64_t allocs_before = counter->allocs;
	double per_pair_ms[SNAPSHOT_BATCHES];
	size_t written = 0;
	for (int b = 0; ok && b < SNAPSHOT_BATCHES; ++b) {
		double t0 = now_seconds();
		for (int i = 0; ok && i < SNAPSHOT_PAIRS_PER_BATCH; ++i) {
			ok = f2d_snapshot_save(world, buffer, bytes, &written) == F2D_OK &&
			     f2d_snapshot_restore(world, buffer, written) == F2D_OK;
		}
		double t1 = now_seconds();
		per_pair_ms[b] = (t1 - t0) * 1000.0 / SNAPSHOT_PAIRS_PER_BATCH;
	}
	uint64_t allocs = counter->allocs - allocs_before;
	if (!ok || f2d_world_hash(world) != hash) {
		fprintf(stderr, "%s: %s: snapshot save/restore failed: %s\n", PROG, scene,
		        f2d_world_last_error(world));
		free(buffer);
		return false;
	}
	double rollback_ms[ROLLBACK_RUNS];
	uint64_t after = 0;
	for (int r = 0; ok && r < ROLLBACK_RUNS; ++r) {
		double t0 = now_seconds();
		ok = f2d_snapshot_restore(world, buffer, written) == F2D_OK;
		for (int i = 0; ok && i < ROLLBACK_FRAMES; ++i) {
			f2d_result res = f2d_world_step(world);
			ok = res == F2D_OK || res == F2D_ERROR_OUT_OF_RANGE ||
			     res == F2D_ERROR_OVERFLOW;
		}
		double t1 = now_seconds();
		rollback_ms[r] = (t1 - t0) * 1000.0;
		uint64_t h = f2d_world_hash(world);
		if (r > 0 && h != after) {
			fprintf(stderr, "%s: %s: resimulation after restore is NOT DETERMINISTIC\n",
			        PROG, scene);
			ok = false;
		}
		after = h;
	}
	ok = ok && f2d_snapshot_restore(world, buffer, written) == F2D_OK &&
	     f2d_world_hash(world) == hash;
	free(buffer);
	if (!ok) {
		fprintf(stderr, "%s: %s: rollback failed\n", PROG, scene);
		return false;
	}
	double per_body = (double)(bytes - layout.arbiters) / (double)stats.body_count;
	printf("snapshot %s bytes %zu bytes_per_body %.1f save_restore_ms %.4f rollback8_ms %.3f "
	       "arbiter_bytes %zu portable_bytes %zu allocs_in_save_restore %" PRIu64 "\n",
	       scene, bytes, per_body, median(per_pair_ms, SNAPSHOT_BATCHES),
	       median(rollback_ms, ROLLBACK_RUNS), layout.arbiters, portable, allocs);
	if (allocs != 0) {
		fprintf(stderr, "%s: %s: save/restore allocated %" PRIu64 " times\n", PROG, scene,
		        allocs);
		return false;
	}
	return true;
}

/* ---- queries ----
 * On the world the timed run left, stepped 300 more steps to settle: random rays (origin in the
 * shapes' bounds, translation up to half their size on each axis) with
 * f2d_world_cast_ray_closest, random 2 m x 2 m boxes with f2d_world_query_aabb (counting), and
 * the tree's rebuild (the first query after a step). Medians of batches. */
#define QUERY_BATCHES 7
#define QUERY_RAYS 2000

static fix16_t bench_between(uint64_t *s, fix16_t lo, fix16_t hi)
{
	return lo + (fix16_t)(test_splitmix(s) % ((uint64_t)((int64_t)hi - lo) + 1));
}

static bool count_shape(f2d_shape_id shape, void *context)
{
	(void)shape;
	++*(long *)context;
	return true;
}

static bool bench_queries(const char *scene, f2d_world *world)
{
	for (int i = 0; i < 300; ++i) {
		f2d_world_step(world);
	}
	f2d_world_stats st;
	f2d_world_get_stats(world, &st);
	f2d_body_id *ids = malloc((size_t)(st.body_count > 0 ? st.body_count : 1) * sizeof *ids);
	if (ids == NULL) {
		return false;
	}
	int32_t n = f2d_world_get_bodies(world, ids, st.body_count);
	fix16_t lx = INT32_MAX, ly = INT32_MAX, ux = INT32_MIN, uy = INT32_MIN;
	for (int32_t i = 0; i < n; ++i) { /* the dynamic bodies' bounds (the ground is huge) */
		f2d_vec2 p = f2d_body_get_position(world, ids[i]);
		if (f2d_body_get_type(world, ids[i]) == F2D_DYNAMIC_BODY) {
			lx = p.x < lx ? p.x : lx;
			ly = p.y < ly ? p.y : ly;
			ux = p.x > ux ? p.x : ux;
			uy = p.y > uy ? p.y : uy;
		}
	}
	free(ids);
	if (lx > ux) {
		return true; /* nothing moves here */
	}
	f2d_query_filter all = f2d_default_query_filter();
	fix16_t hx = (fix16_t)(((int64_t)ux - lx) / 2), hy = (fix16_t)(((int64_t)uy - ly) / 2);
	double ray_ms[QUERY_BATCHES], box_ms[QUERY_BATCHES], build_ms[QUERY_BATCHES];
	long hits = 0, found = 0;
	for (int b = 0; b < QUERY_BATCHES; ++b) {
		uint64_t seed = 42;
		f2d_ray_result r;
		double t0 = now_seconds();
		for (int i = 0; i < QUERY_RAYS; ++i) {
			f2d_vec2 o = {bench_between(&seed, lx, ux), bench_between(&seed, ly, uy)};
			f2d_vec2 d = {bench_between(&seed, -hx, hx), bench_between(&seed, -hy, hy)};
			f2d_world_cast_ray_closest(world, o, d, all, &r);
			hits += r.hit;
		}
		double t1 = now_seconds();
		seed = 43;
		for (int i = 0; i < QUERY_RAYS; ++i) {
			f2d_aabb box;
			box.lower.x = bench_between(&seed, lx, ux);
			box.lower.y = bench_between(&seed, ly, uy);
			box.upper.x = box.lower.x + F2D_FIX(2);
			box.upper.y = box.lower.y + F2D_FIX(2);
			f2d_world_query_aabb(world, box, all, count_shape, &found);
		}
		double t2 = now_seconds();
		world->query_epoch++; /* as a step that moved something would */
		f2d_aabb none = {{0, 0}, {0, 0}};
		f2d_world_query_aabb(world, none, all, count_shape, &found);
		double t3 = now_seconds();
		ray_ms[b] = QUERY_RAYS / ((t1 - t0) * 1000.0);
		box_ms[b] = QUERY_RAYS / ((t2 - t1) * 1000.0);
		build_ms[b] = (t3 - t2) * 1000.0;
	}
	printf("queries %s shapes %d rays_per_ms %.1f ray_hit_pct %.1f aabb_per_ms %.1f "
	       "shapes_per_aabb %.2f tree_build_ms %.4f\n",
	       scene, st.shape_count, median(ray_ms, QUERY_BATCHES),
	       100.0 * (double)hits / (QUERY_BATCHES * QUERY_RAYS), median(box_ms, QUERY_BATCHES),
	       (double)found / (QUERY_BATCHES * QUERY_RAYS), median(build_ms, QUERY_BATCHES));
	return true;
}

/* ---- one scene ---- */

static bool runs_agree(const char *scene, const run_result *runs, long count)
{
	bool agree = true;
	for (long i = 1; i < count; ++i) {
		if (runs[i].hash != runs[0].hash || runs[i].bodies != runs[0].bodies) {
			fprintf(stderr,
			        "%s: %s: NOT DETERMINISTIC: run 1 hash %016" PRIx64
			        " bodies %" PRId32 ", run %ld hash %016" PRIx64 " bodies %" PRId32
			        "\n",
			        PROG, scene, runs[0].hash, runs[0].bodies, i + 1, runs[i].hash,
			        runs[i].bodies);
			agree = false;
		}
	}
	return agree;
}

/* Index of the run whose time is the (lower) median. */
static long median_run(const run_result *runs, long count)
{
	double *times = malloc((size_t)count * sizeof *times);
	if (times == NULL) {
		return 0;
	}
	for (long i = 0; i < count; ++i) {
		times[i] = runs[i].ms_per_step;
	}
	qsort(times, (size_t)count, sizeof *times, compare_doubles);
	double target = times[(count - 1) / 2];
	free(times);
	for (long i = 0; i < count; ++i) {
		if (runs[i].ms_per_step == target) {
			return i;
		}
	}
	return 0;
}

/* Benchmarks one scene; its median ms per step and body count go to *ms and *bodies. */
static int bench_scene(const char *scene, const bench_options *opt, double *ms_out,
                       int32_t *bodies_out)
{
	long steps = opt->steps;
	if (steps == 0) {
		steps = strcmp(scene, "rain1000") == 0 ? DEFAULT_RAIN_STEPS : DEFAULT_STEPS;
		steps = strncmp(scene, "large_", 6) == 0 ? DEFAULT_LARGE_STEPS : steps;
	}
	run_result *runs = calloc((size_t)opt->runs, sizeof *runs);
	double *times = calloc((size_t)opt->runs, sizeof *times);
	alloc_counter counter;
	f2d_world *last = NULL;
	int status = EXIT_FAILURE;
	if (runs == NULL || times == NULL) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		goto done;
	}
	for (long i = 0; i < opt->runs; ++i) {
		f2d_world **keep = i + 1 == opt->runs ? &last : NULL;
		if (!run_once(scene, opt, steps, &runs[i], &counter, keep)) {
			goto done;
		}
		times[i] = runs[i].ms_per_step;
	}
	if (!runs_agree(scene, runs, opt->runs)) {
		goto done;
	}
	if (runs[0].range_events != 0) {
		fprintf(stderr, "%s: %s: warning: %" PRIu64 " steps reported range events\n", PROG,
		        scene, runs[0].range_events);
	}
	double ms = median(times, (int)opt->runs);
	const run_result *mid = &runs[median_run(runs, opt->runs)];
	printf("scene %s sleep %d bodies %" PRId32 " awake %" PRId32
	       " steps %ld ms_per_step %.4f hash %016" PRIx64 " allocs_in_steps %" PRIu64
	       " kernel %s\n",
	       scene, opt->sleep ? 1 : 0, mid->bodies, mid->awake, steps, ms, mid->hash,
	       mid->allocs_in_steps, f2d_solver_kernel());
	*ms_out = ms;
	*bodies_out = mid->bodies;
	bool stable = true;
	double us = time_hash(last, runs[0].hash, &stable);
	if (!stable) {
		fprintf(stderr, "%s: %s: f2d_world_hash is not stable on a fixed world\n", PROG,
		        scene);
		goto done;
	}
	double pct = ms > 0.0 ? 100.0 * us / (ms * 1000.0) : 0.0;
	printf("hash %s us_per_hash %.3f pct_of_step %.2f\n", scene, us, pct);
	if (!bench_snapshot(scene, last, &counter)) {
		goto done;
	}
	if ((opt->queries || strcmp(scene, "rain1000") == 0) && !bench_queries(scene, last)) {
		goto done;
	}
	fflush(stdout);
	status = EXIT_SUCCESS;
done:
	if (last != NULL) {
		f2d_destroy_world(last);
		check_leaks(&counter, scene);
	}
	free(times);
	free(runs);
	return status;
}

/* ---- --events: the cost of events (issue 12 §9) ----
 * The same scene built three times with the same shapes: the scene plus a static body with 8
 * sensor boxes (10 x 6 m, a 4 x 2 grid over x -20..20, y 0..12), then
 *   off:     enable_contact_events and enable_hit_events false on every shape, and
 *            enable_sensor_events false on the sensors (they detect nothing);
 *   contact: contact begin/end and hit events on every shape, the sensors still off;
 *   all:     that, and the sensors on: every step also finds the sensor overlaps and makes
 *            sensor events.
 * The flags are set on the shapes after the scene is built (the shapes' own fields, core.h;
 * the library reads them at each step). Events never change the motion: the bodies of the
 * three runs must end bit for bit equal, else the bench fails. Each round runs the three in
 * turn (rotating which goes first), each from a fresh world with the same warm-up; an
 * overhead is the median over rounds of (variant / off - 1). The timed steps of each variant
 * run in their own function, never inlined, so that callgrind's inclusive counts give the
 * instructions of each: valgrind --tool=callgrind fix2d-bench --events --runs 1 ...;
 * callgrind_annotate --inclusive=yes (events_off_steps, events_contact_steps,
 * events_all_steps). */
#define EVENT_SENSORS 8

enum { EV_OFF = 0, EV_CONTACT = 1, EV_ALL = 2, EV_VARIANTS = 3 };

static void set_event_flags(f2d_world *world, int variant)
{
	for (int32_t i = 0; i < world->shape_ids.next; ++i) {
		f2d_shape *s = &world->shapes[i];
		if (!s->alive) {
			continue;
		}
		if (s->is_sensor) {
			s->enable_sensor_events = variant == EV_ALL;
		} else {
			s->enable_contact_events = variant != EV_OFF;
			s->enable_hit_events = variant != EV_OFF;
		}
	}
}

static bool add_event_sensors(f2d_world *world)
{
	f2d_body_def bd = f2d_default_body_def();
	f2d_body_id body;
	if (f2d_create_body(world, &bd, &body) != F2D_OK) {
		return false;
	}
	f2d_shape_def sd = f2d_default_shape_def();
	sd.is_sensor = true;
	for (int i = 0; i < EVENT_SENSORS; ++i) {
		f2d_vec2 c = {F2D_FIX(-15 + 10 * (i % 4)), F2D_FIX(3 + 6 * (i / 4))};
		f2d_polygon poly;
		f2d_shape_id s;
		if (f2d_make_offset_box(F2D_FIX(5), F2D_FIX(3), c, f2d_make_rot(0), &poly) !=
		        F2D_OK ||
		    f2d_create_polygon_shape(world, body, &sd, &poly, &s) != F2D_OK) {
			return false;
		}
	}
	return true;
}

typedef struct events_count {
	uint64_t contact, hit, sensor;
} events_count;

static void count_events(const f2d_world *world, events_count *c)
{
	f2d_contact_events ce;
	f2d_sensor_events se;
	f2d_world_get_contact_events(world, &ce);
	f2d_world_get_sensor_events(world, &se);
	c->contact += (uint64_t)ce.begin_count + (uint64_t)ce.end_count;
	c->hit += (uint64_t)ce.hit_count;
	c->sensor += (uint64_t)se.begin_count + (uint64_t)se.end_count;
}

#if defined(__clang__)
#define BENCH_NOINLINE __attribute__((noinline))
#elif defined(__GNUC__) /* noipa: also no identical-code folding of the three */
#define BENCH_NOINLINE __attribute__((noipa))
#else
#define BENCH_NOINLINE
#endif

/* The timed steps; every variant reads its events after each step, as a game would. */
static bool events_steps(f2d_world *world, long count, const char *scene, uint64_t *range,
                         events_count *c)
{
	for (long n = 0; n < count; ++n) {
		if (!step_n(world, 1, scene, range)) {
			return false;
		}
		count_events(world, c);
	}
	return true;
}

BENCH_NOINLINE static bool events_off_steps(f2d_world *world, long count, const char *scene,
                                            uint64_t *range, events_count *c)
{
	return events_steps(world, count, scene, range, c);
}

BENCH_NOINLINE static bool events_contact_steps(f2d_world *world, long count, const char *scene,
                                                uint64_t *range, events_count *c)
{
	return events_steps(world, count, scene, range, c);
}

BENCH_NOINLINE static bool events_all_steps(f2d_world *world, long count, const char *scene,
                                            uint64_t *range, events_count *c)
{
	return events_steps(world, count, scene, range, c);
}

/* One run of a variant; the world is returned for the comparison of the bodies. */
static bool events_run(const char *scene, const bench_options *opt, long steps, int variant,
                       double *ms, events_count *c, f2d_world **out)
{
	f2d_world_def def = f2d_default_world_def();
	def.enable_sleep = opt->sleep;
	def.substep_count = (int32_t)opt->substeps;
	f2d_world *world = NULL;
	uint64_t range = 0;
	if (f2d_scene_create(scene, &def, &world) != F2D_OK) {
		fprintf(stderr, "%s: cannot build scene '%s'\n", PROG, scene);
		return false;
	}
	if (!add_event_sensors(world)) {
		fprintf(stderr, "%s: %s: cannot add the sensors\n", PROG, scene);
		f2d_destroy_world(world);
		return false;
	}
	set_event_flags(world, variant);
	bool ok = step_n(world, opt->warmup, scene, &range);
	memset(c, 0, sizeof *c);
	double t0 = now_seconds();
	if (ok && variant == EV_OFF) {
		ok = events_off_steps(world, steps, scene, &range, c);
	} else if (ok && variant == EV_CONTACT) {
		ok = events_contact_steps(world, steps, scene, &range, c);
	} else if (ok) {
		ok = events_all_steps(world, steps, scene, &range, c);
	}
	double t1 = now_seconds();
	*ms = (t1 - t0) * 1000.0 / (double)steps;
	if (!ok) {
		f2d_destroy_world(world);
		return false;
	}
	*out = world;
	return true;
}

/* Every body of a and b at the same place with the same velocity. */
static bool same_motion(const f2d_world *a, const f2d_world *b)
{
	int32_t n = f2d_world_get_bodies(a, NULL, 0);
	f2d_body_id *ia = malloc((size_t)(n > 0 ? n : 1) * sizeof *ia);
	f2d_body_id *ib = malloc((size_t)(n > 0 ? n : 1) * sizeof *ib);
	bool same = ia != NULL && ib != NULL && f2d_world_get_bodies(b, NULL, 0) == n;
	if (same) {
		f2d_world_get_bodies(a, ia, n);
		f2d_world_get_bodies(b, ib, n);
	}
	for (int32_t i = 0; same && i < n; ++i) {
		f2d_transform x = f2d_body_get_transform(a, ia[i]);
		f2d_transform y = f2d_body_get_transform(b, ib[i]);
		f2d_vec2 v = f2d_body_get_linear_velocity(a, ia[i]);
		f2d_vec2 u = f2d_body_get_linear_velocity(b, ib[i]);
		same = x.p.x == y.p.x && x.p.y == y.p.y && x.q.c == y.q.c && x.q.s == y.q.s &&
		       v.x == u.x && v.y == u.y;
	}
	free(ia);
	free(ib);
	return same;
}

static int events_scene(const char *scene, const bench_options *opt)
{
	long steps = opt->steps;
	if (steps == 0) {
		steps = strcmp(scene, "rain1000") == 0 ? DEFAULT_RAIN_STEPS : DEFAULT_STEPS;
	}
	long rounds = opt->runs;
	double *ms[EV_VARIANTS], *ratio[EV_VARIANTS];
	events_count counts[EV_VARIANTS];
	int status = EXIT_FAILURE;
	bool mem = true;
	for (int v = 0; v < EV_VARIANTS; ++v) {
		ms[v] = calloc((size_t)rounds, sizeof(double));
		ratio[v] = calloc((size_t)rounds, sizeof(double));
		mem = mem && ms[v] != NULL && ratio[v] != NULL;
	}
	if (!mem) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		goto done;
	}
	for (long i = 0; i < rounds; ++i) {
		f2d_world *w[EV_VARIANTS] = {NULL, NULL, NULL};
		bool ok = true;
		for (int k = 0; k < EV_VARIANTS && ok; ++k) {
			int v =
			    (int)((i + k) % EV_VARIANTS); /* round i starts with variant i mod 3 */
			ok = events_run(scene, opt, steps, v, &ms[v][i], &counts[v], &w[v]);
		}
		bool same = ok && same_motion(w[EV_OFF], w[EV_CONTACT]) &&
		            same_motion(w[EV_OFF], w[EV_ALL]);
		for (int v = 0; v < EV_VARIANTS; ++v) {
			f2d_destroy_world(w[v]);
		}
		if (!ok) {
			goto done;
		}
		if (!same) {
			fprintf(stderr, "%s: %s: the bodies move differently with events on\n",
			        PROG, scene);
			goto done;
		}
		for (int v = 0; v < EV_VARIANTS; ++v) {
			ratio[v][i] = ms[v][i] / ms[EV_OFF][i] - 1.0;
		}
	}
	if (counts[EV_OFF].contact + counts[EV_OFF].hit + counts[EV_OFF].sensor != 0 ||
	    counts[EV_CONTACT].sensor != 0) {
		fprintf(stderr, "%s: %s: events reported where they are off\n", PROG, scene);
		goto done;
	}
	const events_count *c = &counts[EV_ALL];
	printf("events %s sleep %d steps %ld rounds %ld off_ms %.4f contact_ms %.4f all_ms %.4f "
	       "contact_overhead_pct %.2f all_overhead_pct %.2f contact_events_per_step %.2f "
	       "hit_events_per_step %.2f sensor_events_per_step %.2f\n",
	       scene, opt->sleep ? 1 : 0, steps, rounds, median(ms[EV_OFF], (int)rounds),
	       median(ms[EV_CONTACT], (int)rounds), median(ms[EV_ALL], (int)rounds),
	       100.0 * median(ratio[EV_CONTACT], (int)rounds),
	       100.0 * median(ratio[EV_ALL], (int)rounds), (double)c->contact / (double)steps,
	       (double)c->hit / (double)steps, (double)c->sensor / (double)steps);
	fflush(stdout);
	status = EXIT_SUCCESS;
done:
	for (int v = 0; v < EV_VARIANTS; ++v) {
		free(ms[v]);
		free(ratio[v]);
	}
	return status;
}

/* ---- --residual: the solver against its model (seed 001) ----
 *
 * After a step, every solved contact point's quantities come from the solver's working set by
 * the internal hook f2d_contact_lcp_points (read only: the step computes the same bits with or
 * without it). The model is the LCP of the step: with w = vn - target (target: the bias, -s/h
 * for a gap, the Baumgarte push for a penetration, or the restitution target),
 *   Signorini:  P_n >= 0,  w >= 0,  P_n w = 0  -> residual |min(P_n k_n, w)| (m/s: P_n k_n is
 *               the normal velocity the impulse makes; 0 iff all three hold);
 *   approach:   max(0, -w), the approaching part alone;
 *   cone:       max(0, |P_t| - mu P_n) k_t (friction outside its cone, m/s);
 *   slip:       inside the cone (|P_t| < mu P_n) the point must stick: min(|vt|, (mu P_n -
 *               |P_t|) k_t); on the cone's edge it must not slide along its own friction:
 *               max(0, vt sign(P_t)).
 * rms over all points of the measured steps, max over them. */
typedef struct residual_sums {
	double n, sig2, sig_max, app_max, cone_max, slip2, slip_max;
} residual_sums;

static void residual_add(residual_sums *r, const f2d_lcp_point *p)
{
	double fx = 1.0 / 65536.0;
	double kn = p->mass_n > 0 ? 65536.0 / p->mass_n : 0.0;
	double kt = p->mass_t > 0 ? 65536.0 / p->mass_t : 0.0;
	double pn = p->pn * fx, pt = p->pt * fx, mu = p->mu * fx;
	double w = (p->vn - p->target) * fx, vt = p->vt * fx;
	double a = pn * kn;
	double sig = fabs(a < w ? a : w);
	double app = w < 0 ? -w : 0;
	double cone = fabs(pt) > mu * pn ? (fabs(pt) - mu * pn) * kt : 0;
	double slip;
	if (fabs(pt) < mu * pn) {
		double room = (mu * pn - fabs(pt)) * kt;
		slip = fabs(vt) < room ? fabs(vt) : room;
	} else {
		double along = pt > 0 ? vt : -vt;
		slip = along > 0 ? along : 0;
	}
	r->n += 1;
	r->sig2 += sig * sig;
	r->slip2 += slip * slip;
	r->sig_max = sig > r->sig_max ? sig : r->sig_max;
	r->app_max = app > r->app_max ? app : r->app_max;
	r->cone_max = cone > r->cone_max ? cone : r->cone_max;
	r->slip_max = slip > r->slip_max ? slip : r->slip_max;
}

static int residual_scene(const char *scene, long steps)
{
	static const int32_t iterations[] = {1, 2, 4, 10, 20, 50};
	const long measured = steps < 60 ? steps : 60;
	for (size_t k = 0; k < sizeof iterations / sizeof iterations[0]; ++k) {
		f2d_world_def def = f2d_default_world_def();
		def.enable_sleep = false;
		def.iterations = iterations[k];
		def.substep_count = 0; /* the iteration count is the Gauss-Seidel solver's */
		f2d_world *world = NULL;
		if (f2d_scene_create(scene, &def, &world) != F2D_OK) {
			fprintf(stderr, "%s: cannot build scene '%s'\n", PROG, scene);
			return EXIT_FAILURE;
		}
		residual_sums r;
		memset(&r, 0, sizeof r);
		f2d_lcp_point *pts = NULL;
		int32_t cap = 0;
		for (long i = 0; i < steps; ++i) {
			f2d_result res = f2d_world_step(world);
			if (res != F2D_OK && res != F2D_ERROR_OUT_OF_RANGE &&
			    res != F2D_ERROR_OVERFLOW) {
				fprintf(stderr, "%s: %s: step failed\n", PROG, scene);
				f2d_destroy_world(world);
				free(pts);
				return EXIT_FAILURE;
			}
			if (i < steps - measured) {
				continue;
			}
			int32_t n = f2d_contact_lcp_points(world, pts, cap);
			if (n > cap) {
				free(pts);
				cap = n;
				pts = malloc((size_t)cap * sizeof *pts);
				if (pts == NULL) {
					fprintf(stderr, "%s: out of memory\n", PROG);
					f2d_destroy_world(world);
					return EXIT_FAILURE;
				}
				n = f2d_contact_lcp_points(world, pts, cap);
			}
			for (int32_t j = 0; j < n; ++j) {
				residual_add(&r, &pts[j]);
			}
		}
		double n = r.n > 0 ? r.n : 1;
		printf("residual %s iterations %" PRId32 " points %.0f signorini_rms %.5f "
		       "signorini_max %.4f approach_max %.4f cone_max %.5f slip_rms %.5f "
		       "slip_max %.4f\n",
		       scene, iterations[k], r.n / (double)measured, sqrt(r.sig2 / n), r.sig_max,
		       r.app_max, r.cone_max, sqrt(r.slip2 / n), r.slip_max);
		fflush(stdout);
		free(pts);
		f2d_destroy_world(world);
	}
	return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	bench_options opt;
	int status = parse_options(argc, argv, &opt);
	double ms[SCALING_COUNT];
	int32_t bodies[SCALING_COUNT];
	for (int i = 0; status < 0 && opt.residual && i < opt.scene_count; ++i) {
		if (residual_scene(opt.scenes[i], opt.steps > 0 ? opt.steps : DEFAULT_STEPS) !=
		    EXIT_SUCCESS) {
			status = EXIT_FAILURE;
		}
	}
	for (int i = 0; status < 0 && opt.events && !opt.residual && i < opt.scene_count; ++i) {
		if (events_scene(opt.scenes[i], &opt) != EXIT_SUCCESS) {
			status = EXIT_FAILURE;
		}
	}
	if (opt.residual || opt.events) {
		opt.scene_count = 0;
		opt.scaling = false;
	}
	for (int i = 0; status < 0 && i < opt.scene_count; ++i) {
		int s = bench_scene(opt.scenes[i], &opt, &ms[0], &bodies[0]);
		if (s != EXIT_SUCCESS) {
			status = s;
		}
	}
	for (int i = 0; status < 0 && opt.scaling && i < SCALING_COUNT; ++i) {
		status = bench_scene(scaling_scenes[i], &opt, &ms[i], &bodies[i]) == EXIT_SUCCESS
		             ? status
		             : EXIT_FAILURE;
	}
	for (int i = 0; status < 0 && opt.scaling && i < SCALING_COUNT; ++i) {
		printf("scaling %s bodies %" PRId32 " ms_per_step %.4f us_per_body %.3f\n",
		       scaling_scenes[i], bodies[i], ms[i], 1000.0 * ms[i] / bodies[i]);
	}
	if (status < 0 && opt.scaling) { /* 9.7x bodies: n log n ~13x, n^2 94x */
		printf("scaling growth bodies x%.2f ms_per_step x%.2f (%s to %s)\n",
		       (double)bodies[SCALING_COUNT - 1] / bodies[0], ms[SCALING_COUNT - 1] / ms[0],
		       scaling_scenes[0], scaling_scenes[SCALING_COUNT - 1]);
	}
	free(opt.scenes);
	if (status < 0) {
		status = EXIT_SUCCESS;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: error writing standard output\n", PROG);
		return EXIT_FAILURE;
	}
	return status;
}
