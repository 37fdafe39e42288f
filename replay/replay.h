/* fix2d-replay: what the subcommand files share.
 * SPDX-License-Identifier: MIT
 */
#ifndef FIX2D_REPLAY_REPLAY_H
#define FIX2D_REPLAY_REPLAY_H

#include <stdbool.h>
#include <stdio.h>

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
int cmd_diff(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_resume(int argc, char **argv);

#endif
