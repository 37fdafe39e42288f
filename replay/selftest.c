/* fix2d-replay selftest: runs every catalogue scene that has a golden chain, compares the
 * state hash after every step with the chain compiled into this program, and checks the math
 * flavour and the engine fingerprint. For a studio's new platform (console, phone, compiler,
 * the browser): one program, no scripts, no files.
 *
 * Prints `conformance ok <scenes> scenes <steps> steps` (exit 0), or the first divergent scene
 * and step (exit 1): `conformance FAILED: scene <name> step <n>: hash <h>, golden <g>`.
 * Each step is traced (f2d_world_step_traced): the phase hashes of every step of a scene are
 * chained into one digest and compared with tests/golden/phases.txt at the end of the scene,
 * so every platform that passes computes the same bits phase by phase, not only step by step.
 * Public API only.
 * SPDX-License-Identifier: MIT
 */
#include "selftest.h"

#include "fix2d/fix2d.h"
#include "fix2d/scenes.h"
#include "replay.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const golden_chain *golden_find(const char *scene)
{
	for (int32_t i = 0; i < golden_chain_count; ++i) {
		if (strcmp(golden_chains[i].scene, scene) == 0) {
			return &golden_chains[i];
		}
	}
	return NULL;
}

static conformance_status fail(conformance *c, const char *scene, long step)
{
	c->status = CONFORMANCE_FAILED;
	c->failed_scene = scene;
	c->failed_step = step;
	if (c->world != NULL) {
		f2d_destroy_world(c->world);
		c->world = NULL;
	}
	return c->status;
}

void conformance_begin(conformance *c, const char *only)
{
	memset(c, 0, sizeof *c);
	c->status = CONFORMANCE_RUNNING;
	c->only = only;
	f2d_result flavour = f2d_check_math_flavour();
	if (flavour != F2D_OK) {
		snprintf(
		    c->message, sizeof c->message,
		    "conformance FAILED: math flavour: libfixmath computes other bits than fix2d "
		    "needs (%s)",
		    f2d_error_string(flavour));
		fail(c, NULL, 0);
		return;
	}
	uint64_t fp = f2d_fingerprint();
	if (fp != golden_fingerprint) {
		snprintf(c->message, sizeof c->message,
		         "conformance FAILED: engine fingerprint %016" PRIx64 ", golden %016" PRIx64
		         " (an engine of another format or build than the golden chains)",
		         fp, golden_fingerprint);
		fail(c, NULL, 0);
		return;
	}
	if (only != NULL && (f2d_scene_find(only) < 0 || golden_find(only) == NULL)) {
		snprintf(
		    c->message, sizeof c->message,
		    "conformance FAILED: scene '%s' is not a catalogue scene with a golden chain",
		    only);
		fail(c, NULL, 0);
	}
}

/* Finds the next catalogue scene (from c->catalogue_index) with a chain and builds it. */
static bool next_scene(conformance *c)
{
	int32_t count = f2d_scene_count();
	for (; c->catalogue_index < count; ++c->catalogue_index) {
		const char *name = f2d_scene_name(c->catalogue_index);
		const golden_chain *chain = name != NULL ? golden_find(name) : NULL;
		if (chain == NULL || (c->only != NULL && strcmp(c->only, name) != 0)) {
			continue;
		}
		f2d_result r = f2d_scene_create(name, NULL, &c->world);
		if (r != F2D_OK || c->world == NULL) {
			snprintf(c->message, sizeof c->message,
			         "conformance FAILED: scene %s step 0: cannot build the scene: %s",
			         chain->scene, f2d_error_string(r));
			c->world = NULL;
			fail(c, chain->scene, 0);
			return false;
		}
		c->chain = chain;
		c->step = 0;
		c->phase_digest = 0;
		c->matched += 1;
		return true;
	}
	return false;
}

/* No scene left: every chain must name a catalogue scene (a chain the catalogue lost is a
 * scene this build cannot check), then the verdict. */
static conformance_status catalogue_done(conformance *c)
{
	if (c->only == NULL && c->matched != golden_chain_count) {
		for (int32_t i = 0; i < golden_chain_count; ++i) {
			if (f2d_scene_find(golden_chains[i].scene) < 0) {
				snprintf(c->message, sizeof c->message,
				         "conformance FAILED: golden chain %s "
				         "names no catalogue "
				         "scene",
				         golden_chains[i].scene);
				return fail(c, golden_chains[i].scene, 0);
			}
		}
	}
	c->status = CONFORMANCE_OK;
	snprintf(c->message, sizeof c->message, "conformance ok %" PRId32 " scenes %ld steps",
	         c->scenes, c->steps);
	return c->status;
}

/* The phase hashes of a step, little-endian, folded into the scene's digest. */
static void fold_phases(conformance *c, const f2d_phase_hashes *ph)
{
	uint8_t bytes[8 * F2D_PHASE_COUNT];
	for (int p = 0; p < F2D_PHASE_COUNT; ++p) {
		for (int b = 0; b < 8; ++b) {
			bytes[8 * p + b] = (uint8_t)(ph->phase[p] >> (8 * b));
		}
	}
	c->phase_digest = XXH3_64bits_withSeed(bytes, sizeof bytes, c->phase_digest);
}

/* One step of the current scene, its hash compared with the chain's; false when it failed. */
static bool check_step(conformance *c)
{
	const golden_chain *chain = c->chain;
	f2d_phase_hashes ph;
	f2d_result r = f2d_world_step_traced(c->world, &ph);
	c->step += 1;
	/* OUT_OF_RANGE and OVERFLOW report saturation: the step is complete and its hash is
	 * compared (the chains were recorded the same way, fix2d-replay run) */
	if (r != F2D_OK && r != F2D_ERROR_OUT_OF_RANGE && r != F2D_ERROR_OVERFLOW) {
		snprintf(c->message, sizeof c->message,
		         "conformance FAILED: scene %s step %ld: the step failed: %s", chain->scene,
		         c->step, f2d_error_string(r));
		fail(c, chain->scene, c->step);
		return false;
	}
	uint64_t got = f2d_world_hash(c->world);
	uint64_t want = chain->hashes[c->step - 1];
	if (got != want) {
		snprintf(c->message, sizeof c->message,
		         "conformance FAILED: scene %s step %ld: hash %016" PRIx64
		         ", golden %016" PRIx64,
		         chain->scene, c->step, got, want);
		fail(c, chain->scene, c->step);
		return false;
	}
	fold_phases(c, &ph);
	c->steps += 1;
	return true;
}

/* The current scene's chain is done: its phase digest printed or checked, the scene closed;
 * false when the digest disagrees. */
static bool finish_scene(conformance *c)
{
	const golden_chain *chain = c->chain;
	if (c->print_phases) {
		printf("%s %016" PRIx64 "\n", chain->scene, c->phase_digest);
	} else if (c->phase_digest != chain->phases) {
		snprintf(c->message, sizeof c->message,
		         "conformance FAILED: scene %s: every step's state hash agrees, "
		         "but "
		         "the phase hashes of its %ld steps do not (digest %016" PRIx64
		         ", golden %016" PRIx64 "): compare fix2d-replay run %s --phases",
		         chain->scene, c->step, c->phase_digest, chain->phases, chain->scene);
		fail(c, chain->scene, c->step);
		return false;
	}
	f2d_destroy_world(c->world);
	c->world = NULL;
	c->finished = chain;
	c->chain = NULL;
	c->scenes += 1;
	c->catalogue_index += 1;
	return true;
}

conformance_status conformance_advance(conformance *c, long max_steps)
{
	long budget = max_steps;
	while (c->status == CONFORMANCE_RUNNING) {
		if (c->chain == NULL && !next_scene(c)) {
			return c->status != CONFORMANCE_RUNNING ? c->status : catalogue_done(c);
		}
		if (budget <= 0) {
			return c->status;
		}
		while (c->step < c->chain->steps && budget > 0) {
			budget -= 1;
			if (!check_step(c)) {
				return c->status;
			}
		}
		if (c->step == c->chain->steps && !finish_scene(c)) {
			return c->status;
		}
	}
	return c->status;
}

void conformance_end(conformance *c)
{
	if (c->world != NULL) {
		f2d_destroy_world(c->world);
		c->world = NULL;
	}
}

/* selftest --help */
static int selftest_help(void)
{
	printf("usage: %s selftest [--scene NAME] [--verbose] [--print-phases]\n"
	       "  runs every catalogue scene that has a golden chain (%" PRId32
	       " compiled in), compares\n"
	       "  the hash after every step, checks the math flavour and the engine "
	       "fingerprint;\n"
	       "  prints 'conformance ok <scenes> scenes <steps> steps' (exit 0) or "
	       "the "
	       "first\n"
	       "  divergent scene and step (exit 1); the phase hashes of every step "
	       "are\n"
	       "  checked too (tests/golden/phases.txt). --print-phases prints this "
	       "host's\n"
	       "  phase digests instead (how tests/golden/phases.txt is made)\n",
	       PROG, golden_chain_count);
	return finish_output();
}

/* selftest's arguments: -1 to run, else the exit status (help printed, or a usage error). */
static int parse_selftest_args(int argc, char **argv, const char **only, bool *verbose,
                               bool *print_phases)
{
	for (int i = 0; i < argc; ++i) {
		const char *value = NULL;
		int m;
		if (is_help(argv[i])) {
			return selftest_help();
		}
		if ((m = match_valued_option(argc, argv, &i, "--scene", &value)) != 0) {
			if (m < 0) {
				return usage_error("--scene needs a value", NULL);
			}
			*only = value;
		} else if (strcmp(argv[i], "--verbose") == 0 || strcmp(argv[i], "-v") == 0) {
			*verbose = true;
		} else if (strcmp(argv[i], "--print-phases") == 0) {
			*print_phases = true;
		} else {
			return usage_error("unknown selftest argument", argv[i]);
		}
	}
	return -1;
}

int cmd_selftest(int argc, char **argv)
{
	const char *only = NULL;
	bool verbose = false;
	bool print_phases = false; /* regenerates tests/golden/phases.txt */
	int status = parse_selftest_args(argc, argv, &only, &verbose, &print_phases);
	if (status >= 0) {
		return status;
	}
	if (only != NULL && (f2d_scene_find(only) < 0 || golden_find(only) == NULL)) {
		fprintf(stderr, "%s: selftest: '%s' is not a catalogue scene with a golden chain\n",
		        PROG, only);
		return EXIT_USAGE;
	}
	conformance c;
	conformance_begin(&c, only);
	c.print_phases = print_phases;
	if (verbose && c.status == CONFORMANCE_RUNNING) {
		printf("fingerprint %016" PRIx64 " flavour ok\n", f2d_fingerprint());
	}
	int32_t reported = 0;
	while (conformance_advance(&c, verbose ? 1 : 1000000) == CONFORMANCE_RUNNING) {
		if (verbose && c.scenes > reported) {
			printf("scene %s %" PRId32 " steps ok\n", c.finished->scene,
			       c.finished->steps);
			reported = c.scenes;
		}
	}
	if (verbose && c.scenes > reported) {
		printf("scene %s %" PRId32 " steps ok\n", c.finished->scene, c.finished->steps);
	}
	conformance_end(&c);
	if (print_phases && c.status == CONFORMANCE_OK) {
		return finish_output(); /* the digests only: the file's lines */
	}
	printf("%s\n", c.message);
	int out = finish_output();
	return c.status == CONFORMANCE_OK ? out : EXIT_FAILURE;
}
