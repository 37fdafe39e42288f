/* fix2d-replay: the inputs of a recording: a reproducible random stream, or a text file of
 * commands (its format: replay/inputs.c). Public API only.
 * SPDX-License-Identifier: MIT */
#ifndef FIX2D_REPLAY_INPUTS_H
#define FIX2D_REPLAY_INPUTS_H

#include "fix2d/fix2d.h"
#include "fix2d/input.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct rng {
	uint64_t s;
} rng;

/* A frame of random commands for w (pushes, spawns, destroys, payloads; inputs.c); returns
 * the command count. */
int32_t random_frame(rng *r, const f2d_world *w, f2d_command *out);

/* a text file of commands, read a line ahead */
typedef struct file_inputs {
	FILE *f;
	long line_no;
	char line[1024];
	bool have_line;
	long frame; /* of the pending line */
	char error[200];
} file_inputs;

/* Decimal in [0, 2^32). */
bool parse_u32(const char *t, uint32_t *out);
/* Reads the next command line (have_line false at the end); false on an error (in->error). */
bool file_next_line(file_inputs *in);
/* Commands of `frame` from the file; -1 on a parse error (in->error). */
int32_t file_frame(file_inputs *in, long frame, const f2d_world *w, f2d_command *out);

#endif
