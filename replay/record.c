/* fix2d-replay record / verify / info / diff. Public fix2d API only.
 * SPDX-License-Identifier: MIT
 */
#include "f2r.h"
#include "fix2d/convert.h"
#include "fix2d/input.h"
#include "fix2d/scenes.h"
#include "fix2d/snapshot.h"
#include "inputs.h"
#include "replay.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- options: a table of `--name VALUE` counts and texts, plus one positional ---- */

typedef struct opt {
	const char *name;
	long *count;       /* a decimal in 1..MAX_STEPS, or */
	const char **text; /* any text */
} opt;

/* Returns -1 when argv parsed, else the exit status to return. */
static int parse_opts(int argc, char **argv, const opt *opts, int n, const char **positional)
{
	for (int i = 0; i < argc; ++i) {
		if (is_help(argv[i])) {
			return usage_error("see the usage", "help");
		}
		int m = 0;
		for (int k = 0; k < n && m == 0; ++k) {
			const char *value = NULL;
			m = match_valued_option(argc, argv, &i, opts[k].name, &value);
			if (m < 0) {
				return usage_error("option needs a value", opts[k].name);
			}
			if (m > 0 && opts[k].count != NULL &&
			    !parse_count(value, MAX_STEPS, opts[k].count)) {
				return bad_count(opts[k].name, value);
			}
			if (m > 0 && opts[k].text != NULL) {
				*opts[k].text = value;
			}
		}
		if (m > 0) {
			continue;
		}
		if (argv[i][0] == '-') {
			return usage_error("unknown option", argv[i]);
		}
		if (*positional != NULL) {
			return usage_error("unexpected argument", argv[i]);
		}
		*positional = argv[i];
	}
	return -1;
}

/* ---- record ---- */

/* The bytes of a file (at most `limit`; more is an error), malloc'd into *out. On failure a
 * one-line message is printed and false returned. */
static bool read_whole_file(const char *path, size_t limit, uint8_t **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		fprintf(stderr, "%s: %s: cannot open file\n", PROG, path);
		return false;
	}
	size_t cap = 1 << 16;
	*len = 0;
	uint8_t *buf = malloc(cap);
	bool too_big = false;
	while (buf != NULL) {
		*len += fread(buf + *len, 1, cap - *len, f);
		if (*len < cap) {
			break;
		}
		if (cap > limit) {
			too_big = true;
			break;
		}
		uint8_t *p = realloc(buf, cap * 2);
		if (p == NULL) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = p;
		cap *= 2;
	}
	bool read_error = ferror(f) != 0;
	fclose(f);
	if (buf == NULL || too_big || read_error || *len > limit) {
		fprintf(stderr, "%s: %s: %s\n", PROG, path,
		        buf == NULL  ? "out of memory"
		        : read_error ? "read error"
		                     : "file too large");
		free(buf);
		return false;
	}
	*out = buf;
	return true;
}

static bool write_keyframe(f2r_writer *wr, f2d_world *w, uint32_t frame)
{
	size_t need = f2d_snapshot_portable_size(w), len = 0;
	void *buf = malloc(need);
	bool ok = buf != NULL && f2d_snapshot_save_portable(w, buf, need, &len) == F2D_OK &&
	          f2r_write_keyframe(wr, frame, buf, len);
	free(buf);
	return ok;
}

/* The start of a recording from `--snapshot FILE`: the world, the bytes and the label. */
static int load_start_snapshot(const char *path, f2d_world **w, uint8_t **bytes, size_t *len)
{
	if (!read_whole_file(path, F2R_MAX_CHUNK, bytes, len)) {
		return EXIT_USAGE;
	}
	if (f2d_snapshot_load_new(*bytes, *len, NULL, w) != F2D_OK) {
		char why[160] = "";
		f2d_snapshot_check(*bytes, *len, NULL, why, sizeof why);
		fprintf(stderr, "%s: %s: not a loadable snapshot: %s\n", PROG, path, why);
		free(*bytes);
		*bytes = NULL;
		return EXIT_USAGE;
	}
	return EXIT_SUCCESS;
}

/* The label of a snapshot start: the file's base name, at most 63 bytes. */
static void snapshot_label(const char *path, char *label, size_t cap)
{
	const char *base = strrchr(path, '/');
	base = base != NULL && base[1] != '\0' ? base + 1 : path;
	snprintf(label, cap, "%s", base[0] != '\0' ? base : "snapshot");
}

/* What `record` was asked for. */
typedef struct record_args {
	const char *scene, *snapshot, *inputs, *output;
	long frames, hash_every, key_every;
} record_args;

/* Where a recording's commands come from: random ones (seeded), or a text file's. */
typedef struct record_inputs {
	bool random;
	rng r;
	file_inputs fin;
} record_inputs;

/* Returns -1 when the arguments make a recording, else the exit status (the message printed). */
static int parse_record_args(int argc, char **argv, record_args *a)
{
	memset(a, 0, sizeof *a);
	a->hash_every = 1;
	a->key_every = 60;
	const opt opts[] = {{"--frames", &a->frames, NULL},
	                    {"--hash-every", &a->hash_every, NULL},
	                    {"--keyframe-every", &a->key_every, NULL},
	                    {"--inputs", NULL, &a->inputs},
	                    {"--snapshot", NULL, &a->snapshot},
	                    {"-o", NULL, &a->output}};
	int status = parse_opts(argc, argv, opts, 6, &a->scene);
	if (status >= 0) {
		return status;
	}
	if ((a->scene == NULL) == (a->snapshot == NULL) || a->frames == 0 || a->output == NULL) {
		return usage_error("record needs SCENE or --snapshot FILE, --frames N and -o OUT",
		                   NULL);
	}
	if (a->scene != NULL && f2d_scene_find(a->scene) < 0) {
		return usage_error("unknown scene", a->scene);
	}
	return -1;
}

/* `--inputs` (random when absent or random:SEED, else a file read to its first command line).
 * Returns EXIT_SUCCESS, else the exit status (the message printed, nothing left open). */
static int open_inputs(const char *inputs, record_inputs *in)
{
	memset(in, 0, sizeof *in);
	in->random = inputs == NULL || strncmp(inputs, "random:", 7) == 0;
	if (inputs != NULL && in->random) {
		uint32_t seed;
		if (!parse_u32(inputs + 7, &seed)) {
			return usage_error("--inputs random:SEED needs a decimal seed, got",
			                   inputs);
		}
		in->r.s = seed;
	} else if (inputs != NULL) {
		in->fin.f = fopen(inputs, "r");
		if (in->fin.f == NULL) {
			return usage_error("cannot open input file", inputs);
		}
		if (!file_next_line(&in->fin)) {
			fprintf(stderr, "%s: %s: %s\n", PROG, inputs, in->fin.error);
			fclose(in->fin.f);
			in->fin.f = NULL;
			return EXIT_USAGE;
		}
	}
	return EXIT_SUCCESS;
}

/* The header of a recording of w: the scene's name, or the start snapshot and its label. */
static void record_header(const record_args *a, const f2d_world *w, const uint8_t *start,
                          size_t start_len, f2r_header *h)
{
	f2r_header_init(h, w, (uint32_t)a->hash_every);
	if (a->scene != NULL) {
		snprintf(h->scene, sizeof h->scene, "%s", a->scene);
	} else {
		h->start_kind = F2R_START_SNAPSHOT;
		snapshot_label(a->snapshot, h->scene, sizeof h->scene);
		h->start = start;
		h->start_len = start_len;
	}
}

/* A file's refused commands are named on stderr (they are recorded all the same: a refused
 * command is part of the inputs, and changes nothing). */
static void report_refused(const char *inputs, long f, const f2r_frame *fr,
                           const f2d_command_result *res)
{
	for (int32_t i = 0; i < fr->count; ++i) {
		if (res[i].result != F2D_OK) {
			fprintf(stderr,
			        "%s: %s: frame %ld: player %d sequence %d: %s refused (%s)\n", PROG,
			        inputs, f, fr->commands[i].player, fr->commands[i].sequence,
			        f2d_command_type_name(fr->commands[i].type),
			        f2d_error_string(res[i].result));
		}
	}
}

/* Frame f: its commands applied to w, the step, the frame (and a keyframe when one is due)
 * written. Returns the exit status (the message printed). */
static int record_frame(const record_args *a, record_inputs *in, f2d_world *w, f2r_writer *wr,
                        f2r_frame *fr, long f)
{
	fr->index = (uint32_t)f;
	fr->count = in->random ? random_frame(&in->r, w, fr->commands)
	                       : file_frame(&in->fin, f, w, fr->commands);
	if (fr->count < 0) {
		fprintf(stderr, "%s: %s: %s\n", PROG, a->inputs, in->fin.error);
		return EXIT_USAGE;
	}
	f2d_command_result res[F2D_MAX_FRAME_COMMANDS];
	f2d_world_apply_commands(w, fr->commands, fr->count, res);
	if (!in->random) {
		report_refused(a->inputs, f, fr, res);
	}
	f2d_world_step(w);
	fr->has_hash = (f + 1) % a->hash_every == 0 || f + 1 == a->frames;
	fr->hash = fr->has_hash ? f2d_world_hash(w) : 0;
	if (!f2r_write_frame(wr, fr)) {
		fprintf(stderr, "%s: error writing '%s'\n", PROG, a->output);
		return EXIT_FAILURE;
	}
	if ((f + 1) % a->key_every == 0 && !write_keyframe(wr, w, (uint32_t)f)) {
		fprintf(stderr, "%s: error writing a keyframe to '%s'\n", PROG, a->output);
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

/* The recording itself: the file opened, every frame recorded, the file closed, the final
 * hash printed. Returns the exit status. */
static int write_recording(const record_args *a, record_inputs *in, f2d_world *w,
                           const uint8_t *start, size_t start_len)
{
	f2r_header h;
	record_header(a, w, start, start_len, &h);
	f2r_writer wr;
	wr.file = NULL;
	f2r_frame *fr = calloc(1, sizeof *fr);
	int status = EXIT_SUCCESS;
	if (fr == NULL || !f2r_open_write(&wr, a->output, &h)) {
		fprintf(stderr, "%s: cannot write '%s'\n", PROG, a->output);
		status = EXIT_FAILURE;
	}
	for (long f = 0; status == EXIT_SUCCESS && f < a->frames; ++f) {
		status = record_frame(a, in, w, &wr, fr, f);
	}
	if (wr.file != NULL && (!f2r_close_write(&wr) && status == EXIT_SUCCESS)) {
		fprintf(stderr, "%s: error closing '%s'\n", PROG, a->output);
		status = EXIT_FAILURE;
	}
	if (status == EXIT_SUCCESS) {
		printf("recorded %ld frames, final hash %016" PRIx64 "\n", a->frames,
		       f2d_world_hash(w));
	}
	free(fr);
	return status;
}

int cmd_record(int argc, char **argv)
{
	record_args a;
	int status = parse_record_args(argc, argv, &a);
	if (status >= 0) {
		return status;
	}
	f2d_world *w = NULL;
	uint8_t *start = NULL;
	size_t start_len = 0;
	if (a.snapshot != NULL &&
	    (status = load_start_snapshot(a.snapshot, &w, &start, &start_len)) != EXIT_SUCCESS) {
		return status;
	}
	record_inputs in;
	if ((status = open_inputs(a.inputs, &in)) != EXIT_SUCCESS) {
		f2d_destroy_world(w);
		free(start);
		return status;
	}
	if (a.scene != NULL && f2d_scene_create(a.scene, NULL, &w) != F2D_OK) {
		fprintf(stderr, "%s: cannot build scene '%s'\n", PROG, a.scene);
		if (in.fin.f != NULL) {
			fclose(in.fin.f);
		}
		return EXIT_FAILURE;
	}
	status = write_recording(&a, &in, w, start, start_len);
	if (in.fin.f != NULL) {
		fclose(in.fin.f);
	}
	free(start);
	f2d_destroy_world(w);
	int out = finish_output();
	return status != EXIT_SUCCESS ? status : out;
}

/* ---- shared by verify / info / diff ---- */

/* The world a replay starts from, as its header names it, or NULL when it cannot be built. */
static f2d_world *build_start(const f2r_header *h)
{
	f2d_world *w = NULL;
	f2d_result res = h->start_kind == F2R_START_SNAPSHOT
	                     ? f2d_snapshot_load_new(h->start, h->start_len, NULL, &w)
	                     : f2d_scene_create(h->scene, NULL, &w);
	return res == F2D_OK ? w : NULL;
}

static bool open_replay(const char *path, f2r_reader *r)
{
	if (!f2r_open_read(r, path)) {
		fprintf(stderr, "%s: %s: %s\n", PROG, path, r->error);
		f2r_close_read(r);
		return false;
	}
	const f2r_header *h = &r->header;
	if (h->fingerprint != f2d_fingerprint()) {
		fprintf(stderr,
		        "%s: %s: recorded with math fingerprint %016" PRIx64
		        ", this fix2d has %016" PRIx64 "\n",
		        PROG, path, h->fingerprint, f2d_fingerprint());
		f2r_close_read(r);
		return false;
	}
	if (h->hash_format != F2R_HASH_FORMAT ||
	    (h->fix2d_version >> 8) != (FIX2D_VERSION_WORD >> 8)) {
		fprintf(
		    stderr,
		    "%s: %s: recorded by an incompatible fix2d (version %u.%u, hash format %u)\n",
		    PROG, path, h->fix2d_version >> 16, (h->fix2d_version >> 8) & 0xFFu,
		    h->hash_format);
		f2r_close_read(r);
		return false;
	}
	if (h->start_kind == F2R_START_SCENE && f2d_scene_find(h->scene) < 0) {
		fprintf(stderr, "%s: %s: unknown scene '%s'\n", PROG, path, h->scene);
		f2r_close_read(r);
		return false;
	}
	/* The header's time step must be the start world's: a file that disagrees with itself is
	 * a bad file (exit 2), not a failure to simulate it. A start world that cannot be built
	 * here (out of memory) is left to start_world, which reports it as a failure (exit 1). */
	f2d_world *w = build_start(h);
	if (w != NULL && f2d_world_get_time_step(w) != h->time_step) {
		char rec[24], own[24];
		f2d_format_fix(h->time_step, 6, rec);
		f2d_format_fix(f2d_world_get_time_step(w), 6, own);
		fprintf(stderr, "%s: %s: the header's time step %s s is not the start %s's %s s\n",
		        PROG, path, rec, h->start_kind == F2R_START_SNAPSHOT ? "snapshot" : "scene",
		        own);
		f2d_destroy_world(w);
		f2r_close_read(r);
		return false;
	}
	f2d_destroy_world(w);
	return true;
}

/* The game's frame number of replay frame 0: a desync bundle's first frame, else 0. */
static long frame_base(const f2r_header *h)
{
	return h->has_bundle ? (long)h->bundle.first_frame : 0;
}

/* The world before frame 0: the scene, or the start snapshot (checked by the reader). */
static f2d_world *start_world(const f2r_header *h)
{
	f2d_world *w = build_start(h);
	if (w != NULL && f2d_world_get_time_step(w) != h->time_step) {
		f2d_destroy_world(w); /* refused by open_replay already */
		return NULL;
	}
	return w;
}

bool replay_start(const char *path, f2r_reader *r, f2d_world **w)
{
	if (!open_replay(path, r)) {
		return false;
	}
	*w = start_world(&r->header);
	if (*w == NULL) {
		fprintf(stderr, "%s: %s: cannot start the recorded world\n", PROG, path);
		f2r_close_read(r);
		return false;
	}
	return true;
}

/* Body ia of a and body ib of b (the same index): whether position, velocity, angle, angular
 * velocity or generation differ; printed ("body <id>: dx ... at <x> <y>") when `show`. */
static bool body_differs(const f2d_world *a, f2d_body_id ia, const f2d_world *b, f2d_body_id ib,
                         bool show)
{
	f2d_vec2 pa = f2d_body_get_position(a, ia), pb = f2d_body_get_position(b, ib);
	f2d_vec2 va = f2d_body_get_linear_velocity(a, ia);
	f2d_vec2 vb = f2d_body_get_linear_velocity(b, ib);
	fix16_t aa = f2d_body_get_angle(a, ia), ab = f2d_body_get_angle(b, ib);
	fix16_t wa = f2d_body_get_angular_velocity(a, ia);
	fix16_t wb = f2d_body_get_angular_velocity(b, ib);
	if (pa.x == pb.x && pa.y == pb.y && va.x == vb.x && va.y == vb.y && aa == ab && wa == wb &&
	    ia.generation == ib.generation) {
		return false;
	}
	if (show) {
		char s[8][24];
		printf("  body %d: dx %s dy %s dangle %s dvx %s dvy %s dw %s at %s "
		       "%s\n",
		       ia.index1 - 1, f2d_format_fix(pb.x - pa.x, 6, s[0]),
		       f2d_format_fix(pb.y - pa.y, 6, s[1]), f2d_format_fix(ab - aa, 6, s[2]),
		       f2d_format_fix(vb.x - va.x, 6, s[3]), f2d_format_fix(vb.y - va.y, 6, s[4]),
		       f2d_format_fix(wb - wa, 6, s[5]), f2d_format_fix(pa.x, 6, s[6]),
		       f2d_format_fix(pa.y, 6, s[7]));
	}
	return true;
}

/* Bodies that differ between two worlds after the same frame, in id order (at most `limit`
 * lines: "body <id>: dx ... dw ... at <x> <y>", the first world's position), then the count and
 * the contact and joint counts of both. */
static void report_bodies(const f2d_world *a, const f2d_world *b, int limit)
{
	f2d_body_id ia[4096], ib[4096]; /* 64 KiB on the stack: no state kept between calls */
	int32_t na = f2d_world_get_bodies(a, ia, 4096), nb = f2d_world_get_bodies(b, ib, 4096);
	na = na > 4096 ? 4096 : na;
	nb = nb > 4096 ? 4096 : nb;
	int shown = 0, differ = 0;
	for (int32_t i = 0, j = 0; i < na || j < nb;) {
		bool first_only = j >= nb || (i < na && ia[i].index1 < ib[j].index1);
		if (first_only || i >= na || ib[j].index1 < ia[i].index1) {
			if (shown++ < limit) {
				printf("  body %d only in the %s\n",
				       first_only ? ia[i].index1 - 1 : ib[j].index1 - 1,
				       first_only ? "first" : "second");
			}
			++differ;
			i += first_only;
			j += !first_only;
			continue;
		}
		if (body_differs(a, ia[i], b, ib[j], shown < limit)) {
			++differ;
			++shown;
		}
		++i;
		++j;
	}
	f2d_world_stats sa, sb;
	f2d_world_get_stats(a, &sa);
	f2d_world_get_stats(b, &sb);
	printf("  %d bodies differ%s; contacts %d vs %d, joints %d vs %d\n", differ,
	       shown > limit ? " (first ones shown)" : "", sa.arbiter_count, sb.arbiter_count,
	       sa.joint_count, sb.joint_count);
}

static void report_end(const f2r_reader *r, f2r_status st, const char *path)
{
	if (st == F2R_TRUNCATED) {
		printf("note: %s ends without an end marker after frame %u (cut off at byte %zu of "
		       "%zu)\n",
		       path, r->next_frame, r->pos, r->size);
	}
}

/* ---- verify ---- */

/* The keyframe just read (the first recorded state at or after the divergence) against the
 * simulation w, body by body. */
static void compare_keyframe(const f2r_reader *r, f2d_world *w)
{
	f2d_world *rec = NULL;
	long at = (long)r->key_frame + frame_base(&r->header);
	if (f2d_snapshot_load_new(r->key, r->key_len, NULL, &rec) == F2D_OK) {
		printf("recorded keyframe at frame %ld against this simulation:\n", at);
		report_bodies(rec, w, 20);
		f2d_destroy_world(rec);
	} else {
		printf("the recorded keyframe at frame %ld does not load\n", at);
	}
}

/* Every frame simulated from w and its hash checked until the first divergence (reported,
 * *diverged = its frame), then up to the keyframe that follows it (compared body by body);
 * *last: the last frame simulated. Returns how the reader stopped. */
static f2r_status verify_frames(f2r_reader *r, f2d_world *w, f2r_frame *fr, long *diverged,
                                long *last)
{
	f2r_status st;
	while ((st = f2r_read_frame(r, fr)) == F2R_OK || (st == F2R_END && r->key_new)) {
		if (*diverged >= 0 && r->key_new && (long)r->key_frame == *last) {
			compare_keyframe(r, w);
			break;
		}
		if (st != F2R_OK) {
			break;
		}
		f2d_world_apply_commands(w, fr->commands, fr->count, NULL);
		f2d_world_step(w);
		*last = fr->index;
		if (fr->has_hash && *diverged < 0 && f2d_world_hash(w) != fr->hash) {
			printf("DIVERGED at frame %ld: recorded hash %016" PRIx64
			       ", simulated %016" PRIx64 "\n",
			       (long)fr->index + frame_base(&r->header), fr->hash,
			       f2d_world_hash(w));
			*diverged = fr->index;
		}
	}
	return st;
}

int cmd_verify(int argc, char **argv)
{
	if (argc != 1 || is_help(argv[0])) {
		return usage_error("verify takes one replay file", argc > 1 ? argv[1] : NULL);
	}
	f2r_reader r;
	if (!open_replay(argv[0], &r)) {
		return EXIT_USAGE;
	}
	f2d_world *w = start_world(&r.header);
	f2r_frame *fr = calloc(1, sizeof *fr);
	if (w == NULL || fr == NULL) {
		fprintf(stderr, "%s: %s: cannot start the recorded world\n", PROG, argv[0]);
		f2d_destroy_world(w);
		free(fr);
		f2r_close_read(&r);
		return EXIT_FAILURE;
	}
	long diverged = -1, last = -1;
	f2r_status st = verify_frames(&r, w, fr, &diverged, &last);
	int status = diverged >= 0 ? EXIT_FAILURE : EXIT_SUCCESS;
	if (diverged >= 0 && !(r.key_new && (long)r.key_frame == last)) {
		printf("no recorded keyframe after frame %ld to compare bodies with (record with "
		       "--keyframe-every K)\n",
		       diverged + frame_base(&r.header));
	}
	if (status == EXIT_SUCCESS && st == F2R_BAD) {
		fprintf(stderr, "%s: %s: %s\n", PROG, argv[0], r.error);
		status = EXIT_USAGE;
	}
	if (status == EXIT_SUCCESS) {
		report_end(&r, st, argv[0]);
		printf("ok %u frames, final hash %016" PRIx64 "\n", r.next_frame,
		       f2d_world_hash(w));
	}
	f2d_destroy_world(w);
	free(fr);
	f2r_close_read(&r);
	int out = finish_output();
	return status != EXIT_SUCCESS ? status : out;
}

/* ---- info ---- */

/* A desync bundle's peers chunk: who wrote it, the span, every peer's hashes. */
static void print_bundle(const f2r_header *h, uint32_t frames)
{
	const f2r_bundle *b = &h->bundle;
	printf("desync bundle of peer %u of %u: frames %u..%ld, desync at frame %u with peer %u\n",
	       b->peer, b->peer_count, b->first_frame, (long)b->first_frame + (long)frames - 1,
	       b->desync_frame, b->desync_peer);
	for (int q = 0; q < b->peer_count; ++q) {
		const f2r_peer_hashes *ph = &b->peers[q];
		printf("peer %d hashes", q);
		if (ph->count == 0) {
			printf(" none");
		}
		for (uint32_t i = 0; i < ph->count; ++i) {
			printf(" %u:%016" PRIx64, ph->first + i, ph->hash[i]);
		}
		printf("\n");
	}
}

/* What info counts over the frames. */
typedef struct info_counts {
	uint64_t per_player[256], per_type[F2D_CMD_LAST + 1];
	uint32_t hashes;
} info_counts;

/* Every frame's commands by player and by type, and the recorded hashes; returns how the
 * reader stopped. */
static f2r_status count_frames(f2r_reader *r, f2r_frame *fr, info_counts *c)
{
	memset(c, 0, sizeof *c);
	f2r_status st;
	while ((st = f2r_read_frame(r, fr)) == F2R_OK) {
		for (int32_t i = 0; i < fr->count; ++i) {
			c->per_player[fr->commands[i].player]++;
			c->per_type[fr->commands[i].type]++; /* decode accepted only known types */
		}
		c->hashes += fr->has_hash ? 1u : 0u;
	}
	return st;
}

/* The header's lines: format, versions, fingerprint, and the start (a snapshot's step, bodies
 * and hash, or the scene). */
static void print_info_header(const char *path, const f2r_header *h)
{
	printf("replay %s\n", path);
	printf("format f2r %d, fix2d %u.%u.%u, hash format %u, fingerprint %016" PRIx64 "\n",
	       F2R_VERSION, h->fix2d_version >> 16, (h->fix2d_version >> 8) & 0xFFu,
	       h->fix2d_version & 0xFFu, h->hash_format, h->fingerprint);
	char ts[24];
	f2d_format_fix(h->time_step, 6, ts);
	if (h->start_kind != F2R_START_SNAPSHOT) {
		printf("start scene %s, time step %s s\n", h->scene, ts);
		return;
	}
	f2d_world *w = start_world(h);
	f2d_world_stats ws;
	memset(&ws, 0, sizeof ws);
	if (w != NULL) {
		f2d_world_get_stats(w, &ws);
	}
	printf("start snapshot %s, %zu bytes, step %" PRIu64 ", %d bodies, hash %016" PRIx64
	       ", time step %s s\n",
	       h->scene, h->start_len, ws.step_count, ws.body_count,
	       w != NULL ? f2d_world_hash(w) : 0, ts);
	f2d_destroy_world(w);
}

/* The inputs by player, then the commands by type, named as f2d_command_type_name, in type
 * order. */
static void print_info_counts(const info_counts *c)
{
	for (int p = 0; p < 256; ++p) {
		if (c->per_player[p] > 0) {
			printf("player %d inputs %" PRIu64 "\n", p, c->per_player[p]);
		}
	}
	const char *sep = "commands";
	for (int t = 1; t <= F2D_CMD_LAST; ++t) {
		if (c->per_type[t] > 0) {
			printf("%s %s %" PRIu64, sep, f2d_command_type_name((uint8_t)t),
			       c->per_type[t]);
			sep = ",";
		}
	}
	if (sep[0] == ',') {
		printf("\n");
	}
}

int cmd_info(int argc, char **argv)
{
	if (argc != 1 || is_help(argv[0])) {
		return usage_error("info takes one replay file", argc > 1 ? argv[1] : NULL);
	}
	f2r_reader r;
	if (!open_replay(argv[0], &r)) {
		return EXIT_USAGE;
	}
	f2r_frame *fr = calloc(1, sizeof *fr);
	if (fr == NULL) {
		f2r_close_read(&r);
		return EXIT_FAILURE;
	}
	info_counts c;
	f2r_status st = count_frames(&r, fr, &c);
	int status = EXIT_SUCCESS;
	if (st == F2R_BAD) {
		fprintf(stderr, "%s: %s: %s\n", PROG, argv[0], r.error);
		status = EXIT_USAGE;
	} else {
		const f2r_header *h = &r.header;
		print_info_header(argv[0], h);
		if (h->has_bundle) {
			print_bundle(h, r.next_frame);
		}
		printf("frames %u%s, hashes %u (every %u frames)\n", r.next_frame,
		       st == F2R_TRUNCATED ? " (cut off: no end marker)" : "", c.hashes,
		       h->hash_interval);
		print_info_counts(&c);
	}
	free(fr);
	f2r_close_read(&r);
	int out = finish_output();
	return status != EXIT_SUCCESS ? status : out;
}

/* ---- diff ---- */

static bool same_inputs(const f2r_frame *a, const f2r_frame *b)
{
	if (a->count != b->count) {
		return false;
	}
	uint8_t ba[F2D_COMMAND_MAX_BYTES], bb[F2D_COMMAND_MAX_BYTES];
	for (int32_t i = 0; i < a->count; ++i) {
		size_t la = 0, lb = 0;
		f2d_command_encode(&a->commands[i], ba, sizeof ba, &la);
		f2d_command_encode(&b->commands[i], bb, sizeof bb, &lb);
		if (la != lb || memcmp(ba, bb, la) != 0) {
			return false;
		}
	}
	return true;
}

/* The first command of a frame whose bytes differ, named (f2d_command_type_name). */
static void print_input_difference(const f2r_frame *a, const f2r_frame *b, const char *na,
                                   const char *nb)
{
	uint8_t ba[F2D_COMMAND_MAX_BYTES], bb[F2D_COMMAND_MAX_BYTES];
	int32_t n = a->count > b->count ? a->count : b->count;
	for (int32_t i = 0; i < n; ++i) {
		size_t la = 0, lb = 0;
		if (i < a->count) {
			f2d_command_encode(&a->commands[i], ba, sizeof ba, &la);
		}
		if (i < b->count) {
			f2d_command_encode(&b->commands[i], bb, sizeof bb, &lb);
		}
		if (la == lb && memcmp(ba, bb, la) == 0) {
			continue;
		}
		printf("  input %d:", (int)i);
		if (i < a->count) {
			printf(" %s player %d sequence %d %s", na, a->commands[i].player,
			       a->commands[i].sequence, f2d_command_type_name(a->commands[i].type));
		} else {
			printf(" %s none", na);
		}
		if (i < b->count) {
			printf(", %s player %d sequence %d %s\n", nb, b->commands[i].player,
			       b->commands[i].sequence, f2d_command_type_name(b->commands[i].type));
		} else {
			printf(", %s none\n", nb);
		}
		return;
	}
}

/* Same start world: the same scene, or byte-identical start snapshots (labels are ignored). */
static bool same_start(const f2r_header *a, const f2r_header *b)
{
	if (a->start_kind != b->start_kind) {
		return false;
	}
	if (a->start_kind == F2R_START_SNAPSHOT) {
		return a->start_len == b->start_len &&
		       memcmp(a->start, b->start, a->start_len) == 0;
	}
	return strcmp(a->scene, b->scene) == 0;
}

/* The first phase whose hash differs, or -1. */
static int first_phase(const f2d_phase_hashes *a, const f2d_phase_hashes *b)
{
	for (int p = 0; p < F2D_PHASE_COUNT; ++p) {
		if (a->phase[p] != b->phase[p]) {
			return p;
		}
	}
	return -1;
}

/* What a diff calls a replay: "peer <i>" for a desync bundle, else "the first" / "the second". */
static const char *who(const f2r_header *h, int which, char *buf, size_t cap)
{
	if (h->has_bundle) {
		snprintf(buf, cap, "peer %u", h->bundle.peer);
	} else {
		snprintf(buf, cap, "the %s", which == 0 ? "first" : "second");
	}
	return buf;
}

/* What the writer recorded after a frame (its keyframe and trace): read on to the next frame
 * of r (the diff stops here, so nothing is lost). *world is NULL without a keyframe. */
typedef struct recorded {
	f2d_world *world;
	bool has_trace;
	uint64_t entering;
	f2d_phase_hashes trace;
} recorded;

static void read_recorded(f2r_reader *r, f2r_frame *scratch, uint32_t index, recorded *out)
{
	memset(out, 0, sizeof *out);
	if (f2r_read_frame(r, scratch) == F2R_BAD) {
		return;
	}
	if (r->key_new && r->key_frame == index &&
	    f2d_snapshot_load_new(r->key, r->key_len, NULL, &out->world) != F2D_OK) {
		out->world = NULL;
	}
	if (r->trace_new && r->trace_frame == index) {
		out->has_trace = true;
		out->entering = r->trace_entering;
		out->trace = r->trace;
	}
}

/* The first of "entering the step" (-1), then the phases, then the state after the step
 * (F2D_PHASE_COUNT) whose hash differs; -2 when all agree. */
static int first_departure(uint64_t ea, const f2d_phase_hashes *a, uint64_t eb,
                           const f2d_phase_hashes *b)
{
	if (ea != eb) {
		return -1;
	}
	int p = first_phase(a, b);
	return p >= 0 ? p : a->state != b->state ? F2D_PHASE_COUNT : -2;
}

static const char *departure_name(int d)
{
	return d == -1                ? "entering the step"
	       : d == F2D_PHASE_COUNT ? "the state after the step"
	                              : f2d_phase_name((f2d_phase)d);
}

/* Every peer's hash of game frame `frame` from the bundles' peer tables (either file's). */
static void print_peer_hashes(const f2r_header *a, const f2r_header *b, long frame)
{
	int n = a->has_bundle ? a->bundle.peer_count : b->bundle.peer_count;
	printf("  the peers' hashes of frame %ld:", frame);
	for (int q = 0; q < n; ++q) {
		const f2r_header *hs[2] = {a, b};
		bool found = false;
		for (int k = 0; k < 2 && !found; ++k) {
			if (!hs[k]->has_bundle || q >= hs[k]->bundle.peer_count) {
				continue;
			}
			const f2r_peer_hashes *ph = &hs[k]->bundle.peers[q];
			if (frame >= (long)ph->first && frame < (long)ph->first + (long)ph->count) {
				printf("%s peer %d %016" PRIx64, q ? "," : "", q,
				       ph->hash[frame - (long)ph->first]);
				found = true;
			}
		}
		if (!found) {
			printf("%s peer %d not received", q ? "," : "", q);
		}
	}
	printf("\n");
}

/* The recorded steps of the first divergent frame, against each other and against the
 * re-simulation (ref: entering hash and trace of the step re-simulated from the start). */
static void report_recorded_steps(const recorded *ra, const recorded *rb, const char *na,
                                  const char *nb, uint64_t ref_entering,
                                  const f2d_phase_hashes *ref)
{
	int d = first_departure(ra->entering, &ra->trace, rb->entering, &rb->trace);
	printf("first phase that differs: %s (the steps %s and %s took, as they traced them)\n",
	       d == -2 ? "none" : departure_name(d), na, nb);
	for (int p = -1; p <= F2D_PHASE_COUNT; ++p) {
		uint64_t x = p < 0                  ? ra->entering
		             : p == F2D_PHASE_COUNT ? ra->trace.state
		                                    : ra->trace.phase[p];
		uint64_t y = p < 0                  ? rb->entering
		             : p == F2D_PHASE_COUNT ? rb->trace.state
		                                    : rb->trace.phase[p];
		printf("  %-10s %016" PRIx64 " %016" PRIx64 "%s\n",
		       p < 0                  ? "entering"
		       : p == F2D_PHASE_COUNT ? "hash"
		                              : f2d_phase_name((f2d_phase)p),
		       x, y, x != y ? "  differs" : "");
	}
	const recorded *rs[2] = {ra, rb};
	const char *names[2] = {na, nb};
	for (int k = 0; k < 2; ++k) {
		int r = first_departure(ref_entering, ref, rs[k]->entering, &rs[k]->trace);
		if (r == -2) {
			printf("%s's step is the re-simulation's in every phase\n", names[k]);
		} else if (r == -1) {
			printf("%s departs from the re-simulation entering the step: its world "
			       "after the "
			       "agreed start and the same commands is another (changed outside the "
			       "step)\n",
			       names[k]);
		} else {
			printf("%s departs from the re-simulation inside the step, at %s\n",
			       names[k], departure_name(r));
		}
	}
}

/* Brings the replay that starts earlier (in game frames) to where the other starts,
 * re-simulating its frames; the two must then be in the same state. Returns EXIT_SUCCESS when
 * they are, else the exit status (the message printed). */
static int align_starts(f2r_reader *r[2], f2d_world *w[2], f2r_frame *scratch, const char *paths[2],
                        long base[2])
{
	int e = base[0] < base[1] ? 0 : 1, l = 1 - e;
	while ((long)r[e]->next_frame + base[e] < base[l]) {
		f2r_status st = f2r_read_frame(r[e], scratch);
		if (st == F2R_BAD) {
			fprintf(stderr, "%s: %s: %s\n", PROG, paths[e], r[e]->error);
			return EXIT_USAGE;
		}
		if (st != F2R_OK) {
			printf(
			    "DIFFER at start: %s ends at frame %ld, before %s starts (frame %ld)\n",
			    paths[e], (long)r[e]->next_frame + base[e], paths[l], base[l]);
			return EXIT_FAILURE;
		}
		f2d_world_apply_commands(w[e], scratch->commands, scratch->count, NULL);
		f2d_world_step(w[e]);
	}
	uint64_t he = f2d_world_hash(w[e]), hl = f2d_world_hash(w[l]);
	if (he != hl) {
		printf("DIFFER at start: %s re-simulated to frame %ld has hash %016" PRIx64
		       ", %s starts there with %016" PRIx64 "\n",
		       paths[e], base[l], he, paths[l], hl);
		return EXIT_FAILURE;
	}
	printf("from frame %ld: %s re-simulated to there agrees with the start of %s (hash "
	       "%016" PRIx64 ")\n",
	       base[l], paths[e], paths[l], he);
	return EXIT_SUCCESS;
}

/* Two replays compared frame by frame (cmd_diff_replays): their readers, the worlds they
 * re-simulate, a frame of each, and how they are named. */
typedef struct diff_run {
	const char *paths[2];
	f2r_reader ra, rb;
	f2d_world *wa, *wb;
	f2r_frame *fa, *fb;
	long base[2]; /* the game frame of each replay's frame 0 */
	bool bundles; /* either is a desync bundle */
	char na[32], nb[32];
	const diff_options *o;
} diff_run;

/* One frame re-simulated in both: what differs. */
typedef struct frame_diff {
	long frame; /* in game frames */
	bool inputs_differ, hashes_differ, states_differ;
	uint64_t entering, sim; /* the first world's hash entering the step and after it */
	f2d_phase_hashes ta, tb;
	int phase; /* the first phase that differs (with --phases), else -1 */
} frame_diff;

/* Prints how the starts of two replays from the same frame differ. */
static void print_start_difference(const f2r_header *a, const f2r_header *b)
{
	bool sa_snap = a->start_kind == F2R_START_SNAPSHOT;
	bool sb_snap = b->start_kind == F2R_START_SNAPSHOT;
	if (sa_snap && sb_snap) {
		printf("DIFFER at start: snapshot %s (%zu bytes) vs snapshot %s (%zu bytes)\n",
		       a->scene, a->start_len, b->scene, b->start_len);
	} else if (!sa_snap && !sb_snap) {
		printf("DIFFER at start: scene %s vs %s\n", a->scene, b->scene);
	} else {
		printf("DIFFER at start: %s %s vs %s %s\n", sa_snap ? "snapshot" : "scene",
		       a->scene, sb_snap ? "snapshot" : "scene", b->scene);
	}
}

/* Both worlds built and brought to the same start. Returns the exit status (the message
 * printed). */
static int diff_start(diff_run *d)
{
	if (d->wa == NULL || d->wb == NULL || d->fa == NULL || d->fb == NULL) {
		fprintf(stderr, "%s: cannot start the recorded worlds\n", PROG);
		return EXIT_FAILURE;
	}
	if (d->base[0] != d->base[1]) {
		f2r_reader *rs[2] = {&d->ra, &d->rb};
		f2d_world *ws[2] = {d->wa, d->wb};
		return align_starts(rs, ws, d->fa, d->paths, d->base);
	}
	if (!same_start(&d->ra.header, &d->rb.header)) {
		print_start_difference(&d->ra.header, &d->rb.header);
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

/* Names each desync bundle's peer and where it found the desync. */
static void print_bundles(const diff_run *d)
{
	const f2r_header *hs[2] = {&d->ra.header, &d->rb.header};
	for (int k = 0; k < 2; ++k) {
		if (hs[k]->has_bundle) {
			const f2r_bundle *b = &hs[k]->bundle;
			printf("%s: desync bundle of peer %u of %u from frame %u (it found "
			       "frame "
			       "%u differ with peer %u)\n",
			       d->paths[k], b->peer, b->peer_count, b->first_frame, b->desync_frame,
			       b->desync_peer);
		}
	}
}

/* The next frame of each replay into d->fa and d->fb: true when both have one. Else the
 * comparison ends: *status EXIT_USAGE for a bad file, EXIT_FAILURE when one ends first, and
 * *frames -1 when two bundles end apart (what they share agrees; printed). */
static bool read_both(diff_run *d, long *frames, int *status)
{
	f2r_status sa = f2r_read_frame(&d->ra, d->fa);
	f2r_status sb = f2r_read_frame(&d->rb, d->fb);
	if (sa == F2R_BAD || sb == F2R_BAD) {
		fprintf(stderr, "%s: %s: %s\n", PROG, d->paths[sa == F2R_BAD ? 0 : 1],
		        sa == F2R_BAD ? d->ra.error : d->rb.error);
		*status = EXIT_USAGE;
		return false;
	}
	if (sa == F2R_OK && sb == F2R_OK) {
		return true;
	}
	if ((sa == F2R_OK || sb == F2R_OK) && d->ra.header.has_bundle && d->rb.header.has_bundle) {
		/* a bundle ends where its writer stopped: no divergence */
		printf("same: %ld frames, all the two bundles share (%s ends first)\n", *frames,
		       d->paths[sa == F2R_OK ? 1 : 0]);
		*frames = -1;
	} else if (sa == F2R_OK || sb == F2R_OK) {
		printf("DIFFER at frame %ld: %s ends first\n",
		       (sa == F2R_OK ? (long)d->fa->index + d->base[0]
		                     : (long)d->fb->index + d->base[1]),
		       d->paths[sa == F2R_OK ? 1 : 0]);
		*status = EXIT_FAILURE;
	}
	return false;
}

/* The frame just read, applied and stepped (traced) in both worlds; true when anything
 * differs. */
static bool step_both(diff_run *d, frame_diff *c)
{
	c->frame = (long)d->fa->index + d->base[0];
	c->inputs_differ = !same_inputs(d->fa, d->fb);
	f2d_world_apply_commands(d->wa, d->fa->commands, d->fa->count, NULL);
	f2d_world_apply_commands(d->wb, d->fb->commands, d->fb->count, NULL);
	c->entering = f2d_world_hash(d->wa);
	f2d_world_step_traced(d->wa, &c->ta);
	f2d_world_step_traced(d->wb, &c->tb);
	c->hashes_differ = d->fa->has_hash && d->fb->has_hash && d->fa->hash != d->fb->hash;
	c->sim = f2d_world_hash(d->wa);
	c->states_differ = c->sim != f2d_world_hash(d->wb);
	c->phase = d->o->phases ? first_phase(&c->ta, &c->tb) : -1;
	return c->inputs_differ || c->hashes_differ || c->states_differ || c->phase >= 0;
}

/* The worlds the writers had after the differing frame (a recorded keyframe, or the
 * re-simulation where it reproduces the writer's recorded hash), else the re-simulations:
 * their bodies and fields. Returns EXIT_USAGE when a picture could not be written. */
static int report_worlds(diff_run *d, const frame_diff *c, const recorded *xa, const recorded *xb,
                         uint64_t rec_a, uint64_t rec_b)
{
	f2d_world *ka = xa->world, *kb = xb->world;
	if (!c->inputs_differ && !c->states_differ && c->hashes_differ) {
		ka = ka != NULL ? ka : rec_a == c->sim ? d->wa : NULL;
		kb = kb != NULL ? kb : rec_b == c->sim ? d->wb : NULL;
	}
	if (ka != NULL && kb != NULL) {
		printf("the recorded worlds after frame %ld (%s of %s, %s of %s):\n", c->frame,
		       ka == d->wa ? "the re-simulation" : "the keyframe", d->na,
		       kb == d->wb ? "the re-simulation" : "the keyframe", d->nb);
		report_bodies(ka, kb, 20);
		return report_divergence(ka, kb, d->o, c->frame) ? EXIT_SUCCESS : EXIT_USAGE;
	}
	report_bodies(d->wa, d->wb, 20);
	if (c->states_differ) {
		return report_divergence(d->wa, d->wb, d->o, c->frame) ? EXIT_SUCCESS : EXIT_USAGE;
	}
	if (c->hashes_differ) {
		printf("the two simulations agree here: the recorded hashes come from "
		       "builds or hosts that compute differently\n");
	}
	return EXIT_SUCCESS;
}

/* Everything known about the first differing frame. Returns the exit status: EXIT_FAILURE,
 * or EXIT_USAGE when a picture could not be written. */
static int report_frame(diff_run *d, const frame_diff *c)
{
	printf("DIFFER at frame %ld:%s%s\n", c->frame, c->inputs_differ ? " inputs" : "",
	       c->hashes_differ || c->states_differ || c->phase >= 0 ? " hashes" : "");
	if (c->inputs_differ) {
		print_input_difference(d->fa, d->fb, d->na, d->nb);
	}
	uint64_t rec_a = d->fa->hash, rec_b = d->fb->hash;
	recorded xa, xb;
	memset(&xa, 0, sizeof xa);
	memset(&xb, 0, sizeof xb);
	if (c->hashes_differ) { /* what the writers recorded after this frame */
		read_recorded(&d->ra, d->fa, (uint32_t)(c->frame - d->base[0]), &xa);
		read_recorded(&d->rb, d->fb, (uint32_t)(c->frame - d->base[1]), &xb);
	}
	if (c->hashes_differ && !c->inputs_differ && !c->states_differ) {
		printf("  recorded: %s %016" PRIx64 ", %s %016" PRIx64
		       "; re-simulated from the start with the same inputs: %016" PRIx64 " (%s)\n",
		       d->na, rec_a, d->nb, rec_b, c->sim,
		       c->sim == rec_a   ? d->na
		       : c->sim == rec_b ? d->nb
		                         : "neither");
	}
	if (d->bundles) {
		print_peer_hashes(&d->ra.header, &d->rb.header, c->frame);
	}
	if (d->o->phases) {
		printf("first phase that differs%s: %s\n",
		       xa.has_trace && xb.has_trace ? " in the re-simulation" : "",
		       c->phase >= 0 ? f2d_phase_name((f2d_phase)c->phase)
		                     : "none (only the recorded hashes differ)");
	}
	if (xa.has_trace && xb.has_trace) {
		report_recorded_steps(&xa, &xb, d->na, d->nb, c->entering, &c->ta);
	}
	int status = report_worlds(d, c, &xa, &xb, rec_a, rec_b);
	f2d_destroy_world(xa.world);
	f2d_destroy_world(xb.world);
	return status == EXIT_SUCCESS ? EXIT_FAILURE : status;
}

/* The worlds, frames and names of a comparison of two opened replays. */
static void diff_begin(diff_run *d)
{
	d->wa = start_world(&d->ra.header);
	d->wb = start_world(&d->rb.header);
	d->fa = calloc(1, sizeof *d->fa);
	d->fb = calloc(1, sizeof *d->fb);
	d->base[0] = frame_base(&d->ra.header);
	d->base[1] = frame_base(&d->rb.header);
	d->bundles = d->ra.header.has_bundle || d->rb.header.has_bundle;
	who(&d->ra.header, 0, d->na, sizeof d->na);
	who(&d->rb.header, 1, d->nb, sizeof d->nb);
	if (d->ra.header.has_bundle && d->rb.header.has_bundle &&
	    d->ra.header.bundle.peer == d->rb.header.bundle.peer) {
		snprintf(d->na, sizeof d->na, "the first");
		snprintf(d->nb, sizeof d->nb, "the second");
	}
}

int cmd_diff_replays(const char *path_a, const char *path_b, const diff_options *o)
{
	diff_run d;
	memset(&d, 0, sizeof d);
	d.paths[0] = path_a;
	d.paths[1] = path_b;
	d.o = o;
	if (!open_replay(path_a, &d.ra)) {
		return EXIT_USAGE;
	}
	if (!open_replay(path_b, &d.rb)) {
		f2r_close_read(&d.ra);
		return EXIT_USAGE;
	}
	diff_begin(&d);
	int status = diff_start(&d);
	if (status == EXIT_SUCCESS && d.bundles) {
		print_bundles(&d);
	}
	long frames = 0;
	while (status == EXIT_SUCCESS && read_both(&d, &frames, &status)) {
		++frames;
		frame_diff c;
		if (step_both(&d, &c)) {
			status = report_frame(&d, &c);
		}
	}
	if (status == EXIT_SUCCESS && frames >= 0) {
		printf("same: %ld frames\n", frames);
	}
	f2d_destroy_world(d.wa);
	f2d_destroy_world(d.wb);
	free(d.fa);
	free(d.fb);
	f2r_close_read(&d.ra);
	f2r_close_read(&d.rb);
	int out = finish_output();
	return status != EXIT_SUCCESS ? status : out;
}

/* ---- snapshot / resume: portable snapshots across hosts ---- */

/* fix2d-replay snapshot SCENE --steps N -o FILE: the portable snapshot after N steps. */
int cmd_snapshot(int argc, char **argv)
{
	const char *scene = NULL, *output = NULL;
	long steps = 0;
	const opt opts[] = {{"--steps", &steps, NULL}, {"-o", NULL, &output}};
	int parsed = parse_opts(argc, argv, opts, 2, &scene);
	if (parsed >= 0) {
		return parsed;
	}
	if (scene == NULL || output == NULL) {
		return usage_error("snapshot needs SCENE and -o FILE", NULL);
	}
	if (f2d_scene_find(scene) < 0) {
		return usage_error("unknown scene", scene);
	}
	f2d_world *w = NULL;
	if (f2d_scene_create(scene, NULL, &w) != F2D_OK) {
		return EXIT_FAILURE;
	}
	for (long i = 0; i < steps; ++i) {
		f2d_world_step(w);
	}
	size_t need = f2d_snapshot_portable_size(w), len = 0;
	void *buf = malloc(need);
	FILE *f = NULL;
	int status = EXIT_FAILURE;
	if (buf != NULL && f2d_snapshot_save_portable(w, buf, need, &len) == F2D_OK &&
	    (f = fopen(output, "wb")) != NULL && fwrite(buf, 1, len, f) == len) {
		status = EXIT_SUCCESS;
		printf("snapshot %s step %ld bytes %zu hash %016" PRIx64 "\n", scene, steps, len,
		       f2d_world_hash(w));
	} else {
		fprintf(stderr, "%s: cannot write '%s'\n", PROG, output);
	}
	if (f != NULL && fclose(f) != 0) {
		status = EXIT_FAILURE;
	}
	free(buf);
	f2d_destroy_world(w);
	int out = finish_output();
	return status != EXIT_SUCCESS ? status : out;
}

/* fix2d-replay resume FILE [--steps N] [--every K]: loads a portable snapshot and continues;
 * step numbers go on from the snapshot's, so the lines compare with `run --every 1`. */
int cmd_resume(int argc, char **argv)
{
	const char *input = NULL;
	long steps = 600, every = 0;
	const opt opts[] = {{"--steps", &steps, NULL}, {"--every", &every, NULL}};
	int parsed = parse_opts(argc, argv, opts, 2, &input);
	if (parsed >= 0) {
		return parsed;
	}
	if (input == NULL) {
		return usage_error("resume needs a snapshot file", NULL);
	}
	size_t len = 0;
	uint8_t *buf = NULL;
	if (!read_whole_file(input, (size_t)1 << 30, &buf, &len)) {
		return EXIT_USAGE;
	}
	f2d_world *w = NULL;
	char why[160] = "";
	if (buf == NULL || f2d_snapshot_load_new(buf, len, NULL, &w) != F2D_OK) {
		if (buf != NULL) {
			f2d_snapshot_check(buf, len, NULL, why, sizeof why);
		}
		fprintf(stderr, "%s: %s: not a loadable snapshot: %s\n", PROG, input, why);
		free(buf);
		return EXIT_USAGE;
	}
	free(buf);
	f2d_world_stats st;
	for (long n = 1; n <= steps; ++n) {
		f2d_world_step(w);
		if (n == steps || (every > 0 && n % every == 0)) {
			f2d_world_get_stats(w, &st);
			printf("step %" PRIu64 " hash %016" PRIx64 "\n", st.step_count,
			       f2d_world_hash(w));
		}
	}
	f2d_destroy_world(w);
	return finish_output();
}
