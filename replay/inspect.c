/* fix2d-replay diff: where two runs part. Replays are re-simulated (with traced steps for
 * --phases), portable snapshots are compared field by field, and two `run --phases` outputs
 * are compared step by step and phase by phase. Public API only.
 * SPDX-License-Identifier: MIT
 */
#include "fix2d/fix2d.h"
#include "fix2d/snapshot.h"
#include "replay.h"
#include "state.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_FIELD_LINES 40L

void print_phase_line(const f2d_phase_hashes *t)
{
	printf("step %" PRIu64, t->step);
	for (int p = 0; p < F2D_PHASE_COUNT; ++p) {
		printf(" %s %016" PRIx64, f2d_phase_name((f2d_phase)p), t->phase[p]);
	}
	printf(" hash %016" PRIx64 "\n", t->state);
}

bool report_divergence(f2d_world *a, f2d_world *b, const diff_options *o, long frame)
{
	(void)frame; /* the picture is labelled with the world's step count */
	st_world sa, sb;
	char err[200];
	if (!st_from_world(a, &sa, err, sizeof err)) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return false;
	}
	if (!st_from_world(b, &sb, err, sizeof err)) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		st_free(&sa);
		return false;
	}
	uint8_t *diverged = NULL;
	int32_t n = sa.body_count > sb.body_count ? sa.body_count : sb.body_count;
	printf("fields that differ (first -> second):\n");
	long fields = st_diff(&sa, &sb, stdout, o->limit, &diverged);
	printf("  %ld fields differ\n", fields);
	bool ok = true;
	if (o->png != NULL) {
		char title[160];
		snprintf(title, sizeof title,
		         "step %" PRIu64 ": %ld fields differ, hash %016" PRIx64 " vs %016" PRIx64,
		         sb.step, fields, sa.hash, sb.hash);
		ok = render_diff(a, b, diverged, n, o->png, title);
		if (ok) {
			printf("picture %s\n", o->png);
		}
	}
	free(diverged);
	st_free(&sa);
	st_free(&sb);
	return ok;
}

/* ---- what a file is ---- */

typedef enum file_kind { FK_NONE, FK_REPLAY, FK_SNAPSHOT, FK_PHASES } file_kind;

static file_kind kind_of(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		return FK_NONE;
	}
	char head[8] = {0};
	size_t n = fread(head, 1, sizeof head, f);
	fclose(f);
	if (n >= 4 && memcmp(head, "F2RP", 4) == 0) {
		return FK_REPLAY;
	}
	if (n == 8 && memcmp(head, "fix2dsnp", 8) == 0) {
		return FK_SNAPSHOT;
	}
	if (n >= 5 && memcmp(head, "step ", 5) == 0) {
		return FK_PHASES;
	}
	return FK_REPLAY; /* let the replay reader say what is wrong */
}

/* ---- two `run --phases` outputs ---- */

typedef struct phase_line {
	unsigned long long step;
	unsigned long long hash[F2D_PHASE_COUNT + 1]; /* the phases, then the state hash */
	bool has_phases;
} phase_line;

static bool parse_phase_line(const char *text, phase_line *l)
{
	memset(l, 0, sizeof *l);
	char names[F2D_PHASE_COUNT + 1][16];
	int got =
	    sscanf(text, "step %llu %15s %llx %15s %llx %15s %llx %15s %llx %15s %llx %15s %llx",
	           &l->step, names[0], &l->hash[0], names[1], &l->hash[1], names[2], &l->hash[2],
	           names[3], &l->hash[3], names[4], &l->hash[4], names[5], &l->hash[5]);
	if (got == 13) {
		for (int p = 0; p < F2D_PHASE_COUNT; ++p) {
			if (strcmp(names[p], f2d_phase_name((f2d_phase)p)) != 0) {
				return false;
			}
		}
		l->has_phases = strcmp(names[F2D_PHASE_COUNT], "hash") == 0;
		return l->has_phases;
	}
	/* a plain `run --every 1` line: the state hash only */
	if (got == 3 && strcmp(names[0], "hash") == 0) {
		l->hash[F2D_PHASE_COUNT] = l->hash[0];
		l->hash[0] = 0;
		return true;
	}
	return false;
}

/* The first hash of the two lines that differs (the phases in order, then the state hash,
 * F2D_PHASE_COUNT; the phases only when both lines have them), or -1. */
static int first_difference(const phase_line *a, const phase_line *b)
{
	for (int p = 0; p <= F2D_PHASE_COUNT; ++p) {
		if (a->hash[p] != b->hash[p] &&
		    (p == F2D_PHASE_COUNT || (a->has_phases && b->has_phases))) {
			return p;
		}
	}
	return -1;
}

/* "DIFFER at step N: first phase that differs: X", then every hash of both lines. */
static void print_phase_difference(const phase_line *a, const phase_line *b, int first)
{
	printf("DIFFER at step %llu: first phase that differs: %s\n", a->step,
	       first < F2D_PHASE_COUNT ? f2d_phase_name((f2d_phase)first)
	                               : "hash (the state after the step only)");
	for (int p = 0; p <= F2D_PHASE_COUNT; ++p) {
		printf("  %-10s %016llx %016llx%s\n",
		       p < F2D_PHASE_COUNT ? f2d_phase_name((f2d_phase)p) : "hash", a->hash[p],
		       b->hash[p], a->hash[p] != b->hash[p] ? "  differs" : "");
	}
}

/* Line `lines` of both files: -1 when they agree, else the exit status (reported). */
static int compare_phase_lines(const char *la, const char *lb, long lines)
{
	phase_line a, b;
	if (!parse_phase_line(la, &a) || !parse_phase_line(lb, &b)) {
		fprintf(stderr, "%s: line %ld is not a `run --phases` line\n", PROG, lines);
		return EXIT_USAGE;
	}
	if (a.step != b.step) {
		printf("DIFFER at line %ld: step %llu vs %llu (not the same steps)\n", lines,
		       a.step, b.step);
		return EXIT_FAILURE;
	}
	int first = first_difference(&a, &b);
	if (first >= 0) {
		print_phase_difference(&a, &b, first);
		return EXIT_FAILURE;
	}
	return -1;
}

static int diff_phase_texts(const char *pa, const char *pb)
{
	FILE *fa = fopen(pa, "r"), *fb = fopen(pb, "r");
	if (fa == NULL || fb == NULL) {
		fprintf(stderr, "%s: cannot open %s\n", PROG, fa == NULL ? pa : pb);
		if (fa != NULL) {
			fclose(fa);
		}
		if (fb != NULL) {
			fclose(fb);
		}
		return EXIT_USAGE;
	}
	char la[512], lb[512];
	long lines = 0;
	int status = -1;
	while (status < 0) {
		bool ea = fgets(la, sizeof la, fa) == NULL, eb = fgets(lb, sizeof lb, fb) == NULL;
		if (ea || eb) {
			status = EXIT_SUCCESS;
			if (ea != eb) {
				printf("DIFFER after %ld steps: %s ends first\n", lines,
				       ea ? pa : pb);
				status = EXIT_FAILURE;
			}
			break;
		}
		++lines;
		status = compare_phase_lines(la, lb, lines);
	}
	fclose(fa);
	fclose(fb);
	if (status == EXIT_SUCCESS) {
		printf("same: %ld steps\n", lines);
	}
	return status;
}

/* ---- two portable snapshots ---- */

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	while (buf != NULL) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap || cap >= ((size_t)1 << 30)) {
			break;
		}
		uint8_t *p = realloc(buf, cap * 2);
		if (p == NULL) {
			free(buf);
			buf = NULL;
		}
		buf = p;
		cap *= 2;
	}
	fclose(f);
	*len = n;
	return buf;
}

static f2d_world *load_snapshot_file(const char *path)
{
	size_t len = 0;
	uint8_t *buf = read_file(path, &len);
	f2d_world *w = NULL;
	if (buf == NULL || f2d_snapshot_load_new(buf, len, NULL, &w) != F2D_OK) {
		char why[160] = "cannot read the file";
		if (buf != NULL) {
			f2d_snapshot_check(buf, len, NULL, why, sizeof why);
		}
		fprintf(stderr, "%s: %s: not a loadable snapshot: %s\n", PROG, path, why);
		w = NULL;
	}
	free(buf);
	return w;
}

static int diff_snapshots(const char *pa, const char *pb, const diff_options *o)
{
	f2d_world *a = load_snapshot_file(pa);
	f2d_world *b = a != NULL ? load_snapshot_file(pb) : NULL;
	if (a == NULL || b == NULL) {
		f2d_destroy_world(a);
		return EXIT_USAGE;
	}
	int status = EXIT_SUCCESS;
	if (f2d_world_hash(a) == f2d_world_hash(b)) {
		printf("same: hash %016" PRIx64 "\n", f2d_world_hash(a));
	} else {
		printf("DIFFER: hash %016" PRIx64 " vs %016" PRIx64 "\n", f2d_world_hash(a),
		       f2d_world_hash(b));
		status = report_divergence(a, b, o, -1) ? EXIT_FAILURE : EXIT_USAGE;
	}
	f2d_destroy_world(a);
	f2d_destroy_world(b);
	return status;
}

/* diff's arguments: options into *o, the two files into paths. -1 to go on, else the exit
 * status (a usage error). */
static int parse_diff_args(int argc, char **argv, diff_options *o, const char *paths[2])
{
	int np = 0;
	for (int i = 0; i < argc; ++i) {
		const char *value = NULL;
		int m;
		if (is_help(argv[i])) {
			return usage_error("see the usage", "help");
		}
		if (strcmp(argv[i], "--phases") == 0) {
			o->phases = true;
		} else if ((m = match_valued_option(argc, argv, &i, "--png", &value)) != 0) {
			if (m < 0) {
				return usage_error("--png needs a file name", NULL);
			}
			o->png = value;
		} else if ((m = match_valued_option(argc, argv, &i, "--limit", &value)) != 0) {
			if (m < 0 || !parse_count(value, MAX_STEPS, &o->limit)) {
				return bad_count("--limit", m < 0 ? "" : value);
			}
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			return usage_error("unknown option", argv[i]);
		} else if (np < 2) {
			paths[np++] = argv[i];
		} else {
			return usage_error("unexpected argument", argv[i]);
		}
	}
	if (np != 2) {
		return usage_error(
		    "diff takes two files (replays, snapshots or `run --phases` outputs)", NULL);
	}
	return -1;
}

int cmd_diff(int argc, char **argv)
{
	diff_options o = {false, NULL, DEFAULT_FIELD_LINES};
	const char *paths[2] = {NULL, NULL};
	int status = parse_diff_args(argc, argv, &o, paths);
	if (status >= 0) {
		return status;
	}
	if (o.png != NULL && !render_available()) {
		fprintf(stderr,
		        "%s: --png: this fix2d-replay was built without cairo "
		        "(apt-get install libcairo2-dev, then rebuild)\n",
		        PROG);
		return EXIT_USAGE;
	}
	file_kind ka = kind_of(paths[0]), kb = kind_of(paths[1]);
	if (ka == FK_NONE || kb == FK_NONE) {
		fprintf(stderr, "%s: %s: cannot open file\n", PROG, paths[ka == FK_NONE ? 0 : 1]);
		return EXIT_USAGE;
	}
	if (ka != kb) {
		return usage_error("diff needs two files of one kind (replays, snapshots or "
		                   "`run --phases` outputs)",
		                   NULL);
	}
	if (ka == FK_PHASES) {
		status = diff_phase_texts(paths[0], paths[1]);
	} else if (ka == FK_SNAPSHOT) {
		status = diff_snapshots(paths[0], paths[1], &o);
	} else {
		return cmd_diff_replays(paths[0], paths[1], &o);
	}
	int out = finish_output();
	return status != EXIT_SUCCESS ? status : out;
}
