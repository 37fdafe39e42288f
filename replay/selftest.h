/* fix2d-replay selftest: the conformance self-test for a user's platform, with the golden
 * chains compiled in (generated from tests/golden/ by replay/golden_gen.cmake).
 * SPDX-License-Identifier: MIT
 */
#ifndef FIX2D_REPLAY_SELFTEST_H
#define FIX2D_REPLAY_SELFTEST_H

#include <stdbool.h>
#include <stdint.h>

struct f2d_world;

/** One golden chain: the state hash after each step 1..steps of a catalogue scene. */
typedef struct golden_chain {
	const char *scene;
	int32_t steps;
	const uint64_t *hashes; /* hashes[k] is the hash after step k + 1 */
	/** The phase hashes of every step (f2d_world_step_traced: pairs, manifolds, velocities,
	 *  positions, islands) chained: d = XXH3-64 of the 5 u64 little-endian with seed d, d = 0
	 *  before step 1 (tests/golden/phases.txt) */
	uint64_t phases;
} golden_chain;

/* the generated golden_chains.c: chains in scene name order */
extern const golden_chain golden_chains[];
extern const int32_t golden_chain_count;
extern const uint64_t golden_fingerprint;

/** The golden chain of a scene, or NULL. */
const golden_chain *golden_find(const char *scene);

/** The self-test as a state machine, so a caller can run it in slices (the web page does,
 *  between animation frames). Order: the math flavour, the fingerprint, then the catalogue's
 *  scenes in catalogue order (those with a golden chain), every step of each compared. */
typedef enum conformance_status {
	CONFORMANCE_RUNNING = 0,
	CONFORMANCE_OK = 1,
	CONFORMANCE_FAILED = -1,
} conformance_status;

typedef struct conformance {
	conformance_status status;
	int32_t catalogue_index;      /* the scene being run (catalogue index) */
	const golden_chain *chain;    /* its chain, NULL between scenes */
	const golden_chain *finished; /* the last scene finished identical */
	struct f2d_world *world;
	long step;             /* steps run of the current scene */
	int32_t scenes;        /* scenes finished identical */
	long steps;            /* steps compared identical, all scenes */
	int32_t matched;       /* chains matched to a catalogue scene so far */
	const char *only;      /* run only this scene (NULL: all) */
	bool print_phases;     /* print "<scene> <digest>" instead of checking the phase digests */
	uint64_t phase_digest; /* of the current scene's steps so far */
	/* on failure: the first divergent scene and step (step 0: before stepping) */
	const char *failed_scene;
	long failed_step;
	char message[320]; /* "conformance ok ..." or "conformance FAILED: ..." */
} conformance;

/** Starts the self-test (only: one scene by name, or NULL for all). Checks the math flavour
 *  and the fingerprint at once: status may be FAILED on return. */
void conformance_begin(conformance *c, const char *only);
/** Runs at most max_steps more steps; returns the status. */
conformance_status conformance_advance(conformance *c, long max_steps);
/** Frees the world of an unfinished run (a finished one has none). */
void conformance_end(conformance *c);

/** `fix2d-replay selftest [--scene NAME] [--verbose]` */
int cmd_selftest(int argc, char **argv);

#endif
