/* fix2d-view: a timeline per world (its inputs per frame, keyframes, seeking by re-simulation),
 * its sources (scene or replay) and recording (replay/view_timeline.c), for the viewer
 * (replay/view.c). Public API only.
 * SPDX-License-Identifier: MIT */
#ifndef FIX2D_VIEW_H
#define FIX2D_VIEW_H

#include "fix2d/fix2d.h"
#include "fix2d/input.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROG "fix2d-view"
#define EXIT_USAGE 2
#define DRAG_PLAYER 255 /* the viewer's commands: player 255 */

typedef struct frame_in {
	int32_t count;
	f2d_command *commands; /* owned */
	bool has_hash;         /* a recorded hash (replays) */
	uint64_t hash;
} frame_in;

typedef struct keyframe {
	void *bytes; /* in-process snapshot of the world at frame index * K */
	size_t len;
} keyframe;

typedef struct timeline {
	f2d_world *w;
	char name[80];
	long t;        /* frames taken */
	long length;   /* frames with known inputs */
	long recorded; /* frames read from the replay (0 for a scene) */
	frame_in *frames;
	long frames_cap;
	keyframe *keys;
	long key_count; /* keys[0..key_count) are valid */
	long keys_cap;
	long key_every;
	long hash_mismatch; /* first frame whose recorded hash differs from the simulation, or -1 */
	/* the start, for --record */
	uint8_t start_kind;
	char scene[64];
	uint8_t *start;
	size_t start_len;
	double step_ms, step_avg_ms; /* the last measured step and a running average */
} timeline;

void timeline_free(timeline *tl);
bool simulate(timeline *tl, const f2d_command *extra, int32_t n_extra,
              f2d_command_result *extra_results);
bool seek(timeline *tl, long target);
int open_source(timeline *tl, const char *what, long key_every);
bool record(timeline *tl, const char *path);
long first_divergence(timeline *a, timeline *b);

#endif
