/* fix2d-view: the timeline of a world, its sources and recording (see replay/view.c for the
 * design: frames, keyframes, seeking, the viewer's commands).
 * SPDX-License-Identifier: MIT */
#include "view.h"
#include "f2r.h"
#include "fix2d/convert.h"
#include "fix2d/fix2d.h"
#include "fix2d/input.h"
#include "fix2d/scenes.h"
#include "fix2d/snapshot.h"
#include "state.h"

#include <SDL.h> /* the step timer */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a timeline: one world, its inputs per frame and its keyframes ---- */

static bool grow_frames(timeline *tl, long need)
{
	if (need <= tl->frames_cap) {
		return true;
	}
	long cap = tl->frames_cap < 256 ? 256 : tl->frames_cap;
	while (cap < need) {
		cap *= 2;
	}
	frame_in *f = realloc(tl->frames, (size_t)cap * sizeof *f);
	if (f == NULL) {
		return false;
	}
	memset(f + tl->frames_cap, 0, (size_t)(cap - tl->frames_cap) * sizeof *f);
	tl->frames = f;
	tl->frames_cap = cap;
	return true;
}

static bool save_key(timeline *tl)
{
	long k = tl->t / tl->key_every;
	if (tl->t % tl->key_every != 0 || k != tl->key_count) {
		return true;
	}
	if (k >= tl->keys_cap) {
		long cap = tl->keys_cap < 64 ? 64 : tl->keys_cap * 2;
		keyframe *keys = realloc(tl->keys, (size_t)cap * sizeof *keys);
		if (keys == NULL) {
			return false;
		}
		memset(keys + tl->keys_cap, 0, (size_t)(cap - tl->keys_cap) * sizeof *keys);
		tl->keys = keys;
		tl->keys_cap = cap;
	}
	size_t need = f2d_snapshot_size(tl->w), len = 0;
	keyframe *kf = &tl->keys[k];
	if (need > kf->len || kf->bytes == NULL) {
		void *b = realloc(kf->bytes, need);
		if (b == NULL) {
			return false;
		}
		kf->bytes = b;
	}
	if (f2d_snapshot_save(tl->w, kf->bytes, need, &len) != F2D_OK) {
		return false;
	}
	kf->len = len;
	tl->key_count = k + 1;
	return true;
}

static bool timeline_init(timeline *tl, f2d_world *w, const char *name, long key_every)
{
	memset(tl, 0, sizeof *tl);
	tl->w = w;
	snprintf(tl->name, sizeof tl->name, "%s", name);
	tl->key_every = key_every;
	tl->hash_mismatch = -1;
	return save_key(tl);
}

void timeline_free(timeline *tl)
{
	for (long i = 0; i < tl->frames_cap; ++i) {
		free(tl->frames[i].commands);
	}
	for (long i = 0; i < tl->keys_cap; ++i) {
		free(tl->keys[i].bytes);
	}
	free(tl->frames);
	free(tl->keys);
	free(tl->start);
	f2d_destroy_world(tl->w);
	memset(tl, 0, sizeof *tl);
}

/* A new input at frame t: the timeline branches here. The frames after t, the keyframes
 * after t's and a hash mismatch at or after t are dropped; t's recorded hash no longer
 * applies. */
static void branch_here(timeline *tl)
{
	for (long f = tl->t + 1; f < tl->length; ++f) {
		free(tl->frames[f].commands);
		memset(&tl->frames[f], 0, sizeof tl->frames[f]);
	}
	tl->length = tl->t + 1;
	if (tl->hash_mismatch >= tl->t) {
		tl->hash_mismatch = -1;
	}
	long keep = tl->t / tl->key_every + 1;
	tl->key_count = tl->key_count < keep ? tl->key_count : keep;
	tl->frames[tl->t].has_hash = false;
}

/* The viewer's input of frame fi is the new one, extra (an earlier pass's, kept by a rewind,
 * would create a second joint): the other players' commands kept in order, then extra as
 * player DRAG_PLAYER's, numbered from 0. False when out of memory. */
static bool replace_viewer_input(frame_in *fi, const f2d_command *extra, int32_t n_extra)
{
	int32_t kept = 0;
	for (int32_t i = 0; i < fi->count; ++i) {
		if (fi->commands[i].player != DRAG_PLAYER) {
			fi->commands[kept++] = fi->commands[i];
		}
	}
	f2d_command *c = realloc(fi->commands, (size_t)(kept + n_extra) * sizeof *c);
	if (c == NULL) {
		return false;
	}
	for (int32_t k = 0; k < n_extra; ++k) {
		c[kept + k] = extra[k];
		c[kept + k].player = DRAG_PLAYER;
		c[kept + k].sequence = (uint16_t)k;
	}
	fi->commands = c;
	fi->count = kept + n_extra;
	return true;
}

/* Frame fi's commands applied to the world; the results of its last n_extra (the viewer's)
 * go to extra_results (may be NULL; all out of memory when the results cannot be kept). */
static void apply_frame(timeline *tl, const frame_in *fi, int32_t n_extra,
                        f2d_command_result *extra_results)
{
	if (fi->count <= 0) {
		return;
	}
	f2d_command_result *res = n_extra > 0 ? calloc((size_t)fi->count, sizeof *res) : NULL;
	f2d_world_apply_commands(tl->w, fi->commands, fi->count, res);
	for (int32_t k = 0; res != NULL && extra_results != NULL && k < n_extra; ++k) {
		extra_results[k] = res[fi->count - n_extra + k];
	}
	free(res);
	if (res == NULL && n_extra > 0 && extra_results != NULL) {
		for (int32_t k = 0; k < n_extra; ++k) {
			extra_results[k].result = F2D_ERROR_OUT_OF_MEMORY;
		}
	}
}

/* Frame t's inputs applied and one step taken. `extra` (the viewer's commands, n_extra of
 * them, may be 0) replace the viewer's (player DRAG_PLAYER's) earlier commands of frame t: a new
 * input, so the timeline branches here. Their results go to extra_results (may be NULL). */
bool simulate(timeline *tl, const f2d_command *extra, int32_t n_extra,
              f2d_command_result *extra_results)
{
	if (!grow_frames(tl, tl->t + 1)) {
		return false;
	}
	frame_in *fi = &tl->frames[tl->t];
	if (n_extra > 0) {
		branch_here(tl);
		if (!replace_viewer_input(fi, extra, n_extra)) {
			return false;
		}
	}
	if (tl->t >= tl->length) {
		tl->length = tl->t + 1;
	}
	Uint64 t0 = SDL_GetPerformanceCounter();
	apply_frame(tl, fi, n_extra, extra_results);
	f2d_result r = f2d_world_step(tl->w);
	Uint64 t1 = SDL_GetPerformanceCounter();
	tl->step_ms = (double)(t1 - t0) * 1000.0 / (double)SDL_GetPerformanceFrequency();
	tl->step_avg_ms =
	    tl->step_avg_ms == 0 ? tl->step_ms : 0.95 * tl->step_avg_ms + 0.05 * tl->step_ms;
	if (r != F2D_OK && r != F2D_ERROR_OUT_OF_RANGE && r != F2D_ERROR_OVERFLOW) {
		fprintf(stderr, "%s: %s: step %ld failed: %s\n", PROG, tl->name, tl->t,
		        f2d_error_string(r));
		return false;
	}
	if (fi->has_hash && tl->hash_mismatch < 0 && fi->hash != f2d_world_hash(tl->w)) {
		tl->hash_mismatch = tl->t;
	}
	tl->t += 1;
	return save_key(tl);
}

/* The world at frame `target` (>= 0): from the last keyframe at or before it. */
bool seek(timeline *tl, long target)
{
	target = target < 0 ? 0 : target;
	if (target == tl->t) {
		return true;
	}
	long k = target / tl->key_every;
	k = k < tl->key_count - 1 ? k : tl->key_count - 1;
	if (target < tl->t || k * tl->key_every > tl->t) {
		if (f2d_snapshot_restore(tl->w, tl->keys[k].bytes, tl->keys[k].len) != F2D_OK) {
			fprintf(stderr, "%s: %s: cannot restore keyframe %ld\n", PROG, tl->name, k);
			return false;
		}
		tl->t = k * tl->key_every;
	}
	while (tl->t < target) {
		if (!simulate(tl, NULL, 0, NULL)) {
			return false;
		}
	}
	return true;
}

/* ---- sources ---- */

static bool read_file(const char *path, uint8_t **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		return false;
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	while (buf != NULL) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap) {
			break;
		}
		uint8_t *b = cap < F2R_MAX_CHUNK * 4u ? realloc(buf, cap * 2) : NULL;
		if (b == NULL) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = b;
		cap *= 2;
	}
	bool ok = buf != NULL && !ferror(f);
	fclose(f);
	if (!ok) {
		free(buf);
		return false;
	}
	*out = buf;
	*len = n;
	return true;
}

/* A scene by name: the timeline from its world. -1 on success, else the exit status. */
static int open_scene_source(timeline *tl, const char *what, long key_every)
{
	f2d_world *w = NULL;
	if (f2d_scene_create(what, NULL, &w) != F2D_OK) {
		fprintf(stderr, "%s: cannot build scene '%s'\n", PROG, what);
		return EXIT_FAILURE;
	}
	if (!timeline_init(tl, w, what, key_every)) {
		timeline_free(tl);
		return EXIT_FAILURE;
	}
	snprintf(tl->scene, sizeof tl->scene, "%s", what);
	return -1;
}

/* The file `what` read whole and opened as a replay in *r. -1 on success, else the exit
 * status (with a message). */
static int open_replay_file(const char *what, f2r_reader *r)
{
	uint8_t *bytes = NULL;
	size_t len = 0;
	if (!read_file(what, &bytes, &len)) {
		fprintf(stderr,
		        "%s: '%s' is neither a scene (see fix2d-replay scenes) nor a readable "
		        "file\n",
		        PROG, what);
		return EXIT_USAGE;
	}
	bool opened = f2r_open_mem(r, bytes, len);
	free(bytes);
	if (!opened) {
		fprintf(stderr, "%s: %s: %s\n", PROG, what, r->error);
		f2r_close_read(r);
		return EXIT_USAGE;
	}
	return -1;
}

/* The replay's start world in *w (which the caller destroys); NULL, or what is wrong with the
 * header (the checks in this order). */
static const char *start_world_problem(const f2r_header *h, f2d_world **w)
{
	if (h->fingerprint != f2d_fingerprint()) {
		return "recorded with another math fingerprint";
	} else if (h->hash_format != F2R_HASH_FORMAT ||
	           (h->fix2d_version >> 8) != (FIX2D_VERSION_WORD >> 8)) {
		return "recorded by an incompatible fix2d";
	} else if (h->start_kind == F2R_START_SCENE &&
	           (f2d_scene_find(h->scene) < 0 ||
	            f2d_scene_create(h->scene, NULL, w) != F2D_OK)) {
		return "its scene is unknown";
	} else if (h->start_kind == F2R_START_SNAPSHOT &&
	           f2d_snapshot_load_new(h->start, h->start_len, NULL, w) != F2D_OK) {
		return "its start snapshot does not load";
	} else if (f2d_world_get_time_step(*w) != h->time_step) {
		return "the header's time step is not the start world's";
	}
	return NULL;
}

/* A copy of the start snapshot of a replay that starts from one; false when out of memory. */
static bool keep_start(timeline *tl, const f2r_header *h)
{
	if (h->start_kind != F2R_START_SNAPSHOT) {
		return true;
	}
	tl->start = malloc(h->start_len);
	if (tl->start == NULL) {
		return false;
	}
	memcpy(tl->start, h->start, h->start_len);
	tl->start_len = h->start_len;
	return true;
}

/* The replay's frames appended to the timeline's inputs until the reader stops (*st: why).
 * -1 on success, else EXIT_FAILURE (out of memory). */
static int read_frames(timeline *tl, f2r_reader *r, f2r_status *st)
{
	f2r_frame *fr = calloc(1, sizeof *fr);
	int status = fr != NULL ? -1 : EXIT_FAILURE;
	while (status < 0 && (*st = f2r_read_frame(r, fr)) == F2R_OK) {
		if (!grow_frames(tl, tl->length + 1)) {
			status = EXIT_FAILURE;
			break;
		}
		frame_in *fi = &tl->frames[tl->length++];
		fi->count = fr->count;
		fi->has_hash = fr->has_hash;
		fi->hash = fr->hash;
		if (fr->count > 0) {
			fi->commands = malloc((size_t)fr->count * sizeof *fi->commands);
			if (fi->commands == NULL) {
				status = EXIT_FAILURE;
				break;
			}
			memcpy(fi->commands, fr->commands,
			       (size_t)fr->count * sizeof *fi->commands);
		}
	}
	free(fr);
	return status;
}

/* A replay file: the timeline from its start world, its frames as the inputs. -1 on success,
 * else the exit status (with a message). */
static int open_replay_source(timeline *tl, const char *what, long key_every)
{
	f2r_reader r;
	int status = open_replay_file(what, &r);
	if (status >= 0) {
		return status;
	}
	const f2r_header *h = &r.header;
	f2d_world *w = NULL;
	const char *problem = start_world_problem(h, &w);
	if (problem != NULL) {
		fprintf(stderr, "%s: %s: %s\n", PROG, what, problem);
		f2d_destroy_world(w);
		f2r_close_read(&r);
		return EXIT_USAGE;
	}
	const char *base = strrchr(what, '/');
	base = base != NULL ? base + 1 : what;
	status = timeline_init(tl, w, base, key_every) ? -1 : EXIT_FAILURE;
	tl->start_kind = h->start_kind;
	snprintf(tl->scene, sizeof tl->scene, "%s", h->scene);
	if (status < 0 && !keep_start(tl, h)) {
		status = EXIT_FAILURE;
	}
	f2r_status st = F2R_OK;
	if (status < 0) {
		status = read_frames(tl, &r, &st);
	}
	if (status < 0 && st == F2R_BAD) {
		fprintf(stderr, "%s: %s: %s\n", PROG, what, r.error);
		status = EXIT_USAGE;
	} else if (status < 0 && st == F2R_TRUNCATED) {
		printf("note: %s ends without an end marker after frame %u\n", what, r.next_frame);
	}
	tl->recorded = tl->length;
	f2r_close_read(&r);
	if (status >= 0) {
		timeline_free(tl);
	}
	return status;
}

/* A scene or a replay (read whole: its frames become the timeline's inputs). */
int open_source(timeline *tl, const char *what, long key_every)
{
	if (f2d_scene_find(what) >= 0) {
		return open_scene_source(tl, what, key_every);
	}
	return open_replay_source(tl, what, key_every);
}

/* The header of the timeline's replay: its start (scene or snapshot), a hash every frame. */
static void record_header(const timeline *tl, f2r_header *h)
{
	f2r_header_init(h, tl->w, 1);
	h->start_kind = tl->start_kind;
	snprintf(h->scene, sizeof h->scene, "%s", tl->scene);
	h->start = tl->start;
	h->start_len = tl->start_len;
}

/* Frames [0, frames) simulated again from frame 0 and written with their hashes, and a
 * portable keyframe after every 60th; false on the first failure. */
static bool record_frames(timeline *tl, f2r_writer *wr, f2r_frame *fr, long frames)
{
	bool ok = true;
	for (long f = 0; ok && f < frames; ++f) {
		const frame_in *fi = &tl->frames[f];
		fr->index = (uint32_t)f;
		fr->count = fi->count;
		if (fi->count > 0) {
			memcpy(fr->commands, fi->commands,
			       (size_t)fi->count * sizeof *fi->commands);
		}
		ok = simulate(tl, NULL, 0, NULL);
		fr->has_hash = true;
		fr->hash = f2d_world_hash(tl->w);
		ok = ok && f2r_write_frame(wr, fr);
		if (ok && (f + 1) % 60 == 0) {
			size_t need = f2d_snapshot_portable_size(tl->w), len = 0;
			void *buf = malloc(need);
			ok = buf != NULL &&
			     f2d_snapshot_save_portable(tl->w, buf, need, &len) == F2D_OK &&
			     f2r_write_keyframe(wr, (uint32_t)f, buf, len);
			free(buf);
		}
	}
	return ok;
}

/* --record: the timeline's frames [0, length) written as a replay, simulated again from the
 * start with a hash after every frame and a portable keyframe every 60 frames. */
bool record(timeline *tl, const char *path)
{
	f2r_header h;
	record_header(tl, &h);
	long frames = tl->length;
	if (frames == 0 || !seek(tl, 0)) {
		fprintf(stderr, "%s: %s: nothing to record (no frame was simulated)\n", PROG, path);
		return false;
	}
	f2r_writer wr;
	f2r_frame *fr = calloc(1, sizeof *fr);
	if (fr == NULL || !f2r_open_write(&wr, path, &h)) {
		fprintf(stderr, "%s: cannot write '%s'\n", PROG, path);
		free(fr);
		return false;
	}
	bool ok = record_frames(tl, &wr, fr, frames);
	ok = f2r_close_write(&wr) && ok;
	if (ok) {
		printf("recorded %ld frames to %s, final hash %016" PRIx64 "\n", frames, path,
		       f2d_world_hash(tl->w));
	} else {
		fprintf(stderr, "%s: error writing '%s'\n", PROG, path);
	}
	free(fr);
	return ok;
}

/* ---- two replays: the first divergent frame ----
 * As `fix2d-replay diff` of two replays: the first frame whose inputs differ, whose recorded
 * hashes differ, or after whose step the simulated states differ. -2 when they never do, -1
 * when the start worlds differ already. */
long first_divergence(timeline *a, timeline *b)
{
	if (f2d_world_hash(a->w) != f2d_world_hash(b->w)) {
		return -1;
	}
	long n = a->length < b->length ? a->length : b->length;
	uint8_t ba[F2D_COMMAND_MAX_BYTES], bb[F2D_COMMAND_MAX_BYTES];
	for (long f = 0; f < n; ++f) {
		const frame_in *fa = &a->frames[f], *fb = &b->frames[f];
		bool differ = fa->count != fb->count ||
		              (fa->has_hash && fb->has_hash && fa->hash != fb->hash);
		for (int32_t i = 0; !differ && i < fa->count; ++i) {
			size_t la = 0, lb = 0;
			f2d_command_encode(&fa->commands[i], ba, sizeof ba, &la);
			f2d_command_encode(&fb->commands[i], bb, sizeof bb, &lb);
			differ = la != lb || memcmp(ba, bb, la) != 0;
		}
		if (!simulate(a, NULL, 0, NULL) || !simulate(b, NULL, 0, NULL)) {
			return -2;
		}
		if (differ || f2d_world_hash(a->w) != f2d_world_hash(b->w)) {
			return f;
		}
	}
	return a->length != b->length ? n : -2;
}
