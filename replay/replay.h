/* fix2d-replay: what the subcommand files share.
 * SPDX-License-Identifier: MIT
 */
#ifndef FIX2D_REPLAY_REPLAY_H
#define FIX2D_REPLAY_REPLAY_H

#include <stdbool.h>
#include <stdio.h>

struct f2d_world;
struct f2r_reader;
struct f2d_phase_hashes;
struct diff_options;

#define PROG "fix2d-replay"
#define EXIT_USAGE 2
#define MAX_STEPS 10000000L

/* main.c */
int usage_error(const char *message, const char *detail);
bool is_help(const char *arg);
/** Decimal integer in [1, max]. */
bool parse_count(const char *text, long max, long *out);
/** `--name VALUE` / `--name=VALUE` at argv[*i]: 0 not this option, 1 matched, -1 no value. */
int match_valued_option(int argc, char **argv, int *i, const char *name, const char **value);
int bad_count(const char *option, const char *value);
int finish_output(void);

/* record.c: record, verify, info, diff */
int cmd_record(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_info(int argc, char **argv);
/** diff of two replays (called by cmd_diff in inspect.c). */
int cmd_diff_replays(const char *path_a, const char *path_b, const struct diff_options *o);
int cmd_snapshot(int argc, char **argv);
int cmd_resume(int argc, char **argv);
/** Opens a replay and builds its world before frame 0 (false with a message printed). */
bool replay_start(const char *path, struct f2r_reader *r, struct f2d_world **w);

/* inspect.c: diff (replays, snapshots, `run --phases` outputs) with phases and fields */
typedef struct diff_options {
	bool phases;     /* compare the phase hashes of every step (traced steps) */
	const char *png; /* picture of the first divergent frame (needs cairo) */
	long limit;      /* most field lines printed */
} diff_options;
int cmd_diff(int argc, char **argv);
/** At the first divergent frame: prints every differing field of the two worlds and, when
 *  asked, draws them. Returns false when the picture could not be written. */
bool report_divergence(struct f2d_world *a, struct f2d_world *b, const diff_options *o, long frame);
/** One `run --phases` line for a traced step. */
void print_phase_line(const struct f2d_phase_hashes *t);

/* render.c: pictures (cairo when built with it) */
bool render_available(void);
int cmd_render(int argc, char **argv);
/** The two worlds overlaid, bodies whose diverged[id] is set in red, labelled with their
 *  delta; .png or .svg by the extension. false (with a message) on failure. */
bool render_diff(struct f2d_world *a, struct f2d_world *b, const unsigned char *diverged, int count,
                 const char *path, const char *title);

#endif
