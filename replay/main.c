/* fix2d-replay - run catalogue scenes and print state hashes and body states.
 * SPDX-License-Identifier: MIT
 *
 * Uses only the public API. Exit status: 0 success, 1 run-time failure (verify, diff: a
 * divergence), 2 usage error or a bad file (verify, info, diff: see README "Inputs and replays").
 */
#include "fix2d/convert.h"
#include "fix2d/fix2d.h"
#include "fix2d/scenes.h"
#include "events.h"
#include "replay.h"
#include "selftest.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_STEPS 600L
#define FIX_DECIMALS 6

typedef int (*command_fn)(int argc, char **argv);

/* One subcommand: name, argument synopsis, one-line summary, handler. The handler receives the
 * arguments after the subcommand name. */
typedef struct command {
	const char *name;
	const char *synopsis;
	const char *summary;
	command_fn run;
} command;

static void print_usage(FILE *out);

/* ---- small helpers ---- */

int usage_error(const char *message, const char *detail)
{
	if (detail != NULL) {
		fprintf(stderr, "%s: %s '%s' (try: %s --help)\n", PROG, message, detail, PROG);
	} else {
		fprintf(stderr, "%s: %s (try: %s --help)\n", PROG, message, PROG);
	}
	return EXIT_USAGE;
}

bool is_help(const char *arg)
{
	return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0 || strcmp(arg, "help") == 0;
}

/* Decimal integer in [1, max]: digits only (no sign, no blanks), fully consumed by strtol. */
bool parse_count(const char *text, long max, long *out)
{
	if (text[0] < '0' || text[0] > '9') {
		return false;
	}
	errno = 0;
	char *end = NULL;
	long value = strtol(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || value < 1 || value > max) {
		return false;
	}
	*out = value;
	return true;
}

/* Matches `--name VALUE` or `--name=VALUE` at argv[*i]. Returns 0 when argv[*i] is not this
 * option, 1 when it is and *value was set (advancing *i past a separate value), -1 when the
 * value is missing. */
int match_valued_option(int argc, char **argv, int *i, const char *name, const char **value)
{
	const char *arg = argv[*i];
	size_t len = strlen(name);
	if (strncmp(arg, name, len) != 0) {
		return 0;
	}
	if (arg[len] == '=') {
		*value = arg + len + 1;
		return 1;
	}
	if (arg[len] != '\0') {
		return 0;
	}
	if (*i + 1 >= argc) {
		return -1;
	}
	*i += 1;
	*value = argv[*i];
	return 1;
}

int bad_count(const char *option, const char *value)
{
	fprintf(stderr, "%s: %s needs an integer in 1..%ld, got '%s'\n", PROG, option, MAX_STEPS,
	        value);
	return EXIT_USAGE;
}

int finish_output(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: error writing standard output\n", PROG);
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

/* ---- scenes ---- */

static int cmd_scenes(int argc, char **argv)
{
	if (argc > 0) {
		if (is_help(argv[0])) {
			print_usage(stdout);
			return finish_output();
		}
		return usage_error("scenes takes no arguments, got", argv[0]);
	}
	int32_t count = f2d_scene_count();
	for (int32_t i = 0; i < count; ++i) {
		const char *name = f2d_scene_name(i);
		const char *description = f2d_scene_description(i);
		printf("%s  %s\n", name ? name : "?", description ? description : "");
	}
	return finish_output();
}

/* ---- run ---- */

typedef struct run_options {
	const char *scene;
	long steps;
	long every; /* 0: only the last step */
	bool bodies;
	bool phases; /* traced steps: the hash of each phase, every step (or every K-th) */
	bool events; /* event lines after every step, and the digest line */
	bool digest; /* the digest line only */
} run_options;

/* One of run's arguments at argv[*i] (a valued option consumes the next): -1 on success, else
 * the exit status to return (0 for --help). */
static int parse_run_option(int argc, char **argv, int *i, run_options *opt)
{
	const char *arg = argv[*i];
	const char *value = NULL;
	int m;
	if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
		print_usage(stdout);
		return finish_output();
	}
	if ((m = match_valued_option(argc, argv, i, "--steps", &value)) != 0) {
		if (m < 0) {
			return usage_error("--steps needs a value", NULL);
		}
		return parse_count(value, MAX_STEPS, &opt->steps) ? -1
		                                                  : bad_count("--steps", value);
	}
	if ((m = match_valued_option(argc, argv, i, "--every", &value)) != 0) {
		if (m < 0) {
			return usage_error("--every needs a value", NULL);
		}
		return parse_count(value, MAX_STEPS, &opt->every) ? -1
		                                                  : bad_count("--every", value);
	}
	if (strcmp(arg, "--bodies") == 0) {
		opt->bodies = true;
	} else if (strcmp(arg, "--phases") == 0) {
		opt->phases = true;
	} else if (strcmp(arg, "--events") == 0) {
		opt->events = true;
	} else if (strcmp(arg, "--digest") == 0) {
		opt->digest = true;
	} else if (arg[0] == '-' && arg[1] != '\0') {
		return usage_error("unknown option", arg);
	} else if (opt->scene == NULL) {
		opt->scene = arg;
	} else {
		return usage_error("unexpected argument", arg);
	}
	return -1;
}

/* Returns -1 on success, else the exit status to return (0 for --help). */
static int parse_run_options(int argc, char **argv, run_options *opt)
{
	opt->scene = NULL;
	opt->steps = DEFAULT_STEPS;
	opt->every = 0;
	opt->bodies = false;
	opt->phases = false;
	opt->events = false;
	opt->digest = false;
	for (int i = 0; i < argc; ++i) {
		int status = parse_run_option(argc, argv, &i, opt);
		if (status >= 0) {
			return status;
		}
	}
	if (opt->scene == NULL) {
		fprintf(stderr, "%s: run needs a SCENE (try: %s scenes)\n", PROG, PROG);
		return EXIT_USAGE;
	}
	if (f2d_scene_find(opt->scene) < 0) {
		fprintf(stderr, "%s: unknown scene '%s' (try: %s scenes)\n", PROG, opt->scene,
		        PROG);
		return EXIT_USAGE;
	}
	return -1;
}

static void print_body(const f2d_world *world, f2d_body_id id)
{
	char x[24], y[24], angle[24], vx[24], vy[24], w[24];
	f2d_vec2 p = f2d_body_get_position(world, id);
	f2d_vec2 v = f2d_body_get_linear_velocity(world, id);
	f2d_format_fix(p.x, FIX_DECIMALS, x);
	f2d_format_fix(p.y, FIX_DECIMALS, y);
	f2d_format_fix(f2d_body_get_angle(world, id), FIX_DECIMALS, angle);
	f2d_format_fix(v.x, FIX_DECIMALS, vx);
	f2d_format_fix(v.y, FIX_DECIMALS, vy);
	f2d_format_fix(f2d_body_get_angular_velocity(world, id), FIX_DECIMALS, w);
	printf("body %" PRId32 " %s %s %s %s %s %s\n", id.index1 - 1, x, y, angle, vx, vy, w);
}

static int print_bodies(const f2d_world *world)
{
	f2d_body_id probe;
	int32_t count = f2d_world_get_bodies(world, &probe, 0);
	if (count <= 0) {
		return EXIT_SUCCESS;
	}
	f2d_body_id *ids = malloc((size_t)count * sizeof *ids);
	if (ids == NULL) {
		fprintf(stderr, "%s: out of memory listing %" PRId32 " bodies\n", PROG, count);
		return EXIT_FAILURE;
	}
	int32_t got = f2d_world_get_bodies(world, ids, count);
	if (got > count) {
		got = count;
	}
	for (int32_t i = 0; i < got; ++i) {
		print_body(world, ids[i]);
	}
	free(ids);
	return EXIT_SUCCESS;
}

/* Steps the world opt->steps times, printing hashes as asked. */
static int step_world(f2d_world *world, const run_options *opt, event_digest *digest)
{
	long every = opt->phases && opt->every == 0 ? 1 : opt->every;
	for (long n = 1; n <= opt->steps; ++n) {
		f2d_phase_hashes trace;
		f2d_result r = f2d_world_step_traced(world, opt->phases ? &trace : NULL);
		if (r == F2D_ERROR_OUT_OF_RANGE || r == F2D_ERROR_OVERFLOW) {
			fprintf(stderr, "warning: step %ld: %s\n", n, f2d_error_string(r));
		} else if (r != F2D_OK) {
			fprintf(stderr, "%s: step %ld failed: %s\n", PROG, n, f2d_error_string(r));
			return EXIT_FAILURE;
		}
		bool last = n == opt->steps;
		if (last || (every > 0 && n % every == 0)) {
			if (opt->phases) {
				print_phase_line(&trace);
			} else {
				printf("step %ld hash %016" PRIx64 "\n", n, f2d_world_hash(world));
			}
		}
		if (digest != NULL) {
			event_digest_step(digest, world, n);
		}
	}
	if (digest != NULL) {
		event_digest_print(digest);
	}
	return EXIT_SUCCESS;
}

static int cmd_run(int argc, char **argv)
{
	run_options opt;
	int status = parse_run_options(argc, argv, &opt);
	if (status >= 0) {
		return status;
	}
	f2d_world *world = NULL;
	f2d_result r = f2d_scene_create(opt.scene, NULL, &world);
	if (r != F2D_OK || world == NULL) {
		fprintf(stderr, "%s: cannot build scene '%s': %s\n", PROG, opt.scene,
		        f2d_error_string(r));
		return EXIT_FAILURE;
	}
	event_digest *digest = NULL;
	if (opt.events || opt.digest) {
		digest = event_digest_create(opt.events);
		if (digest == NULL) {
			fprintf(stderr, "%s: out of memory\n", PROG);
			f2d_destroy_world(world);
			return EXIT_FAILURE;
		}
	}
	status = step_world(world, &opt, digest);
	event_digest_destroy(digest);
	if (status == EXIT_SUCCESS && opt.bodies) {
		status = print_bodies(world);
	}
	f2d_destroy_world(world);
	int out = finish_output();
	return status != EXIT_SUCCESS ? status : out;
}

/* ---- the command table ---- */

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	print_usage(stdout);
	return finish_output();
}

static const command commands[] = {
    {"scenes", "", "list the scene catalogue: <name>  <description>", cmd_scenes},
    {"run", "SCENE [--steps N] [--every K] [--bodies] [--phases] [--events] [--digest]",
     "build SCENE, step it, print 'step <n> hash <16 hex>'", cmd_run},
    {"record",
     "SCENE|--snapshot FILE --frames N [--inputs random:SEED|FILE] [--hash-every K] -o OUT",
     "simulate SCENE (or a portable snapshot) with inputs and write a replay (.f2r)", cmd_record},
    {"verify", "FILE", "re-simulate a replay and check every recorded hash", cmd_verify},
    {"info", "FILE", "print a replay's header, frame count and inputs per player", cmd_info},
    {"diff", "A B [--phases] [--png OUT.png|OUT.svg] [--limit N]",
     "first frame where two replays' inputs or hashes differ (with --phases: and the first\n"
     "      phase of the step), and every field that differs there; two portable snapshots:\n"
     "      every field that differs; two `run --phases` outputs: the first step and phase;\n"
     "      two desync bundles of fix2d-netdemo: also the first phase of the recorded steps\n"
     "      and the fields of the recorded worlds (replays that start at different frames\n"
     "      are aligned)",
     cmd_diff},
    {"snapshot", "SCENE --steps N -o FILE", "write the portable snapshot of SCENE after N steps",
     cmd_snapshot},
    {"resume", "FILE [--steps N] [--every K]",
     "load a portable snapshot and go on stepping; step numbers continue", cmd_resume},
    {"render",
     "SCENE|FILE.f2r|FILE.f2s [--frame N] [--to M --every K] [--aabb] [--size WxH] -o OUT",
     "draw the world after frame N (a filmstrip of frames N..M every K with --to) into a\n"
     "      .png or .svg (needs a fix2d-replay built with cairo)",
     cmd_render},
    {"selftest", "[--scene NAME] [--verbose]",
     "conformance self-test: every catalogue scene's golden chain (compiled in), step by\n"
     "      step, the math flavour and the fingerprint; 'conformance ok <scenes> scenes\n"
     "      <steps> steps' or the first divergent scene and step (exit 1)",
     cmd_selftest},
    {"help", "", "show this text", cmd_help},
};

#define COMMAND_COUNT ((int)(sizeof commands / sizeof commands[0]))

static void print_usage(FILE *out)
{
	fprintf(out, "usage: %s COMMAND [ARGS]\n\ncommands:\n", PROG);
	for (int i = 0; i < COMMAND_COUNT; ++i) {
		const char *sep = commands[i].synopsis[0] != '\0' ? " " : "";
		fprintf(out, "  %s%s%s\n      %s\n", commands[i].name, sep, commands[i].synopsis,
		        commands[i].summary);
	}
	fprintf(out,
	        "\noptions of run:\n"
	        "  --steps N   steps to run, 1..%ld (default %ld)\n"
	        "  --every K   print the hash after every K-th step (K >= 1) and after the last\n"
	        "              (default: after the last step only)\n"
	        "  --bodies    after the last step print one line per live body, in id order:\n"
	        "              body <id> <x> <y> <angle> <vx> <vy> <w>\n"
	        "  --phases    trace every step (every K-th with --every): 'step <n> pairs <h>\n"
	        "              manifolds <h> velocities <h> positions <h> islands <h> hash <h>',\n"
	        "              the hash of each phase's output (f2d_world_step_traced); compare\n"
	        "              two such outputs with `diff --phases A B`\n"
	        "  --events    after each step, its events in the library's order, one a line:\n"
	        "              event <step> begin|end <a> <b>, event <step> hit <a> <b> <px> <py>\n"
	        "              <nx> <ny> <speed>, event <step> sensor_begin|sensor_end <sensor>\n"
	        "              <visitor>; a shape is <index>:<generation>, numbers raw Q16.16;\n"
	        "              after the last step: digest <16 hex> events <n> query_hits <n>\n"
	        "              query_misses <n> (XXH3 of every event and of a fixed set of\n"
	        "              queries after every step; replay/events.c says which)\n"
	        "  --digest    the digest line only (no event lines)\n"
	        "\nexit status: 0 success, 1 failure, 2 usage error\n",
	        MAX_STEPS, DEFAULT_STEPS);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		print_usage(stdout);
		return finish_output();
	}
	for (int i = 0; i < COMMAND_COUNT; ++i) {
		if (strcmp(argv[1], commands[i].name) == 0) {
			return commands[i].run(argc - 2, argv + 2);
		}
	}
	return usage_error("unknown command", argv[1]);
}
