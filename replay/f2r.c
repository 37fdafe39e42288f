/* fix2d replay files (.f2r): see f2r.h for the layout.
 * SPDX-License-Identifier: MIT
 */
#include "f2r.h"
#include "fix2d/snapshot.h"

#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

static const uint8_t magic[4] = {'F', '2', 'R', 'P'};

/* Fuzz builds skip the checksums so that mutations reach the parsers behind them (the
 * standard libFuzzer convention; never defined in a normal build). */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
static const bool fuzzing = true;
#else
static const bool fuzzing = false;
#endif

/* ---- little-endian byte buffers ---- */

typedef struct out {
	uint8_t *p;
	size_t len, cap;
	bool oom;
} out;

static void put(out *o, const void *src, size_t n)
{
	if (o->len + n > o->cap) {
		size_t cap = o->cap < 256 ? 256 : o->cap;
		while (cap < o->len + n) {
			cap *= 2;
		}
		uint8_t *p = realloc(o->p, cap);
		if (p == NULL) {
			o->oom = true;
			return;
		}
		o->p = p;
		o->cap = cap;
	}
	memcpy(o->p + o->len, src, n);
	o->len += n;
}

static void put8(out *o, uint32_t v)
{
	uint8_t b = (uint8_t)v;
	put(o, &b, 1);
}

static void put32(out *o, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	put(o, b, 4);
}

static void put64(out *o, uint64_t v)
{
	put32(o, (uint32_t)v);
	put32(o, (uint32_t)(v >> 32));
}

typedef struct in {
	const uint8_t *p;
	size_t len, pos;
	bool short_read;
} in;

static uint32_t get8(in *i)
{
	if (i->pos + 1 > i->len) {
		i->short_read = true;
		return 0;
	}
	return i->p[i->pos++];
}

static uint32_t get32(in *i)
{
	uint32_t v = 0;
	for (int k = 0; k < 4; ++k) {
		v |= get8(i) << (8 * k);
	}
	return v;
}

static uint64_t get64(in *i)
{
	uint64_t lo = get32(i);
	return lo | ((uint64_t)get32(i) << 32);
}

/* ---- chunks ---- */

static uint64_t chunk_sum(uint8_t kind, const uint8_t *payload, uint32_t len)
{
	uint8_t head[5] = {kind, (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16),
	                   (uint8_t)(len >> 24)};
	XXH3_state_t st;
	XXH3_64bits_reset(&st);
	XXH3_64bits_update(&st, head, sizeof head);
	XXH3_64bits_update(&st, payload, len);
	return XXH3_64bits_digest(&st);
}

/* Check of a chunk's kind and length, so that a damaged length reads as corruption, not as a
 * file that was cut off. */
static uint32_t head_sum(uint8_t kind, uint32_t len)
{
	uint8_t head[5] = {kind, (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16),
	                   (uint8_t)(len >> 24)};
	return (uint32_t)XXH3_64bits(head, sizeof head);
}

static bool write_chunk(f2r_writer *w, uint8_t kind, const out *payload)
{
	if (payload->oom || payload->len > F2R_MAX_CHUNK) {
		return false;
	}
	out c = {NULL, 0, 0, false};
	put8(&c, kind);
	put32(&c, (uint32_t)payload->len);
	put32(&c, head_sum(kind, (uint32_t)payload->len));
	put(&c, payload->p, payload->len);
	put64(&c, chunk_sum(kind, payload->p, (uint32_t)payload->len));
	bool ok = !c.oom && fwrite(c.p, 1, c.len, w->file) == c.len && fflush(w->file) == 0;
	free(c.p);
	return ok;
}

/* The 8-byte file header and the 'H' chunk (the scene's name is name_len bytes). */
static bool write_header(f2r_writer *w, const f2r_header *h, size_t name_len)
{
	uint8_t head[8] = {magic[0], magic[1], magic[2], magic[3], F2R_VERSION, 0, 0, 0};
	out p = {NULL, 0, 0, false};
	put32(&p, h->fix2d_version);
	put32(&p, h->hash_format);
	put64(&p, h->fingerprint);
	put32(&p, (uint32_t)h->time_step);
	put32(&p, h->hash_interval);
	put8(&p, h->start_kind);
	put8(&p, (uint32_t)name_len);
	put(&p, h->scene, name_len);
	put32(&p, h->scene_param);
	bool ok = fwrite(head, 1, sizeof head, w->file) == sizeof head && write_chunk(w, 'H', &p);
	free(p.p);
	return ok;
}

/* A desync bundle's 'P' chunk; false (nothing written) when its peer numbers are out of
 * range. */
static bool write_bundle_chunk(f2r_writer *w, const f2r_bundle *b)
{
	out s = {NULL, 0, 0, false};
	bool ok = b->peer_count >= 1 && b->peer_count <= F2R_MAX_PEERS && b->peer < b->peer_count &&
	          b->desync_peer < b->peer_count;
	put8(&s, b->peer);
	put8(&s, b->peer_count);
	put8(&s, b->desync_peer);
	put32(&s, b->first_frame);
	put32(&s, b->desync_frame);
	for (int q = 0; ok && q < b->peer_count; ++q) {
		const f2r_peer_hashes *ph = &b->peers[q];
		put32(&s, ph->first);
		put32(&s, ph->count);
		for (uint32_t i = 0; i < ph->count; ++i) {
			put64(&s, ph->hash[i]);
		}
	}
	ok = ok && write_chunk(w, 'P', &s);
	free(s.p);
	return ok;
}

void f2r_header_init(f2r_header *h, const f2d_world *w, uint32_t hash_interval)
{
	memset(h, 0, sizeof *h);
	h->fix2d_version = FIX2D_VERSION_WORD;
	h->hash_format = F2R_HASH_FORMAT;
	h->fingerprint = f2d_fingerprint();
	h->time_step = f2d_world_get_time_step(w);
	h->hash_interval = hash_interval;
}

bool f2r_open_write(f2r_writer *w, const char *path, const f2r_header *h)
{
	memset(w, 0, sizeof *w);
	size_t name_len = 0;
	while (name_len < sizeof h->scene && h->scene[name_len] != '\0') {
		++name_len;
	}
	if (name_len == 0 || name_len >= sizeof h->scene || h->start_kind > F2R_START_SNAPSHOT) {
		return false;
	}
	bool snap = h->start_kind == F2R_START_SNAPSHOT;
	if (snap && (h->start == NULL || h->start_len == 0 || h->start_len > F2R_MAX_CHUNK)) {
		return false;
	}
	w->file = fopen(path, "wb");
	if (w->file == NULL) {
		return false;
	}
	bool ok = write_header(w, h, name_len);
	if (ok && snap) {
		out s = {NULL, 0, 0, false};
		put(&s, h->start, h->start_len);
		ok = write_chunk(w, 'S', &s);
		free(s.p);
	}
	if (ok && h->has_bundle) {
		ok = write_bundle_chunk(w, &h->bundle);
	}
	if (!ok) {
		fclose(w->file);
		w->file = NULL;
	}
	return ok;
}

bool f2r_write_frame(f2r_writer *w, const f2r_frame *f)
{
	out p = {NULL, 0, 0, false};
	put32(&p, f->index);
	put8(&p, (uint32_t)f->count & 0xFFu);
	put8(&p, (uint32_t)f->count >> 8);
	uint8_t cmd[F2D_COMMAND_MAX_BYTES];
	for (int32_t i = 0; i < f->count; ++i) {
		size_t n = 0;
		if (f2d_command_encode(&f->commands[i], cmd, sizeof cmd, &n) != F2D_OK) {
			free(p.p);
			return false;
		}
		put(&p, cmd, n);
	}
	put8(&p, f->has_hash ? 1u : 0u);
	if (f->has_hash) {
		put64(&p, f->hash);
	}
	bool ok = write_chunk(w, 'F', &p);
	free(p.p);
	w->frames += ok ? 1u : 0u;
	return ok;
}

bool f2r_write_keyframe(f2r_writer *w, uint32_t frame, const void *snapshot, size_t len)
{
	out p = {NULL, 0, 0, false};
	put32(&p, frame);
	put(&p, snapshot, len);
	bool ok = write_chunk(w, 'K', &p);
	free(p.p);
	return ok;
}

bool f2r_write_trace(f2r_writer *w, uint32_t frame, uint64_t entering,
                     const f2d_phase_hashes *trace)
{
	out p = {NULL, 0, 0, false};
	put32(&p, frame);
	put64(&p, entering);
	put8(&p, F2D_PHASE_COUNT);
	for (int i = 0; i < F2D_PHASE_COUNT; ++i) {
		put64(&p, trace->phase[i]);
	}
	put64(&p, trace->state);
	bool ok = write_chunk(w, 'T', &p);
	free(p.p);
	return ok;
}

bool f2r_close_write(f2r_writer *w)
{
	out p = {NULL, 0, 0, false};
	put32(&p, w->frames);
	bool ok = write_chunk(w, 'E', &p);
	free(p.p);
	ok = fclose(w->file) == 0 && ok;
	w->file = NULL;
	return ok;
}

/* ---- reading ---- */

static bool fail(f2r_reader *r, const char *msg)
{
	snprintf(r->error, sizeof r->error, "%s (at byte %zu)", msg, r->pos);
	return false;
}

/* Next chunk: F2R_OK with kind/payload, F2R_TRUNCATED when the file ends inside it (or right
 * before it without an end marker), F2R_BAD on a checksum or length problem. */
static f2r_status next_chunk(f2r_reader *r, uint8_t *kind, in *payload)
{
	if (r->size - r->pos < 9) {
		return F2R_TRUNCATED;
	}
	in h = {r->data + r->pos, 9, 0, false};
	uint8_t k = (uint8_t)get8(&h);
	uint32_t len = get32(&h);
	if (get32(&h) != head_sum(k, len) && !fuzzing) {
		fail(r, "damaged chunk header");
		return F2R_BAD;
	}
	if (len > F2R_MAX_CHUNK) {
		fail(r, "chunk length is absurd");
		return F2R_BAD;
	}
	if (r->size - r->pos < 9 + (size_t)len + 8) {
		return F2R_TRUNCATED;
	}
	const uint8_t *body = r->data + r->pos + 9;
	in s = {body + len, 8, 0, false};
	if (get64(&s) != chunk_sum(k, body, len) && !fuzzing) {
		fail(r, "chunk checksum mismatch");
		return F2R_BAD;
	}
	*kind = k;
	payload->p = body;
	payload->len = len;
	payload->pos = 0;
	payload->short_read = false;
	r->pos += 9 + (size_t)len + 8;
	return F2R_OK;
}

/* The 'P' chunk (see f2r.h); the hashes go to arrays the reader owns. */
static bool parse_bundle(f2r_reader *r, in *p)
{
	f2r_bundle *b = &r->header.bundle;
	b->peer = (uint8_t)get8(p);
	b->peer_count = (uint8_t)get8(p);
	b->desync_peer = (uint8_t)get8(p);
	b->first_frame = get32(p);
	b->desync_frame = get32(p);
	if (p->short_read || b->peer_count < 1 || b->peer_count > F2R_MAX_PEERS ||
	    b->peer >= b->peer_count || b->desync_peer >= b->peer_count) {
		return fail(r, "malformed peers chunk");
	}
	r->header.has_bundle = true; /* from here on f2r_close_read frees the arrays */
	for (int q = 0; q < b->peer_count; ++q) {
		f2r_peer_hashes *ph = &b->peers[q];
		ph->first = get32(p);
		ph->count = get32(p);
		if (p->short_read || ph->count > (p->len - p->pos) / 8 ||
		    (uint64_t)ph->first + ph->count > UINT32_MAX) {
			return fail(r, "malformed peers chunk");
		}
		ph->hash = malloc(ph->count > 0 ? ph->count * sizeof(uint64_t) : 1);
		if (ph->hash == NULL) {
			return fail(r, "out of memory");
		}
		for (uint32_t i = 0; i < ph->count; ++i) {
			ph->hash[i] = get64(p);
		}
	}
	if (p->pos != p->len) {
		return fail(r, "malformed peers chunk");
	}
	return true;
}

/* The 8-byte file header: magic, format version, reserved zeros. */
static bool check_file_header(f2r_reader *r)
{
	if (r->size < 8) {
		return fail(r, r->size == 0 ? "empty file" : "truncated file header");
	}
	if (memcmp(r->data, magic, 4) != 0) {
		return fail(r, "not a fix2d replay (bad magic)");
	}
	if (r->data[4] != F2R_VERSION || r->data[5] != 0) {
		return fail(r, "unknown replay format version");
	}
	if (r->data[6] != 0 || r->data[7] != 0) {
		r->pos = 6;
		return fail(r, "reserved bytes 6-7 of the file header are not zero");
	}
	r->pos = 8;
	return true;
}

/* The 'H' chunk (the first) into r->header. */
static bool parse_header_chunk(f2r_reader *r)
{
	uint8_t kind = 0;
	in p;
	f2r_status st = next_chunk(r, &kind, &p);
	if (st == F2R_TRUNCATED) {
		return fail(r, "truncated replay header");
	}
	if (st != F2R_OK) {
		return false;
	}
	if (kind != 'H') {
		return fail(r, "first chunk is not a header");
	}
	f2r_header *h = &r->header;
	h->fix2d_version = get32(&p);
	h->hash_format = get32(&p);
	h->fingerprint = get64(&p);
	h->time_step = (fix16_t)get32(&p);
	h->hash_interval = get32(&p);
	h->start_kind = (uint8_t)get8(&p);
	uint32_t name_len = get8(&p);
	if (name_len == 0 || name_len >= sizeof h->scene || p.pos + name_len > p.len) {
		return fail(r, "bad scene name in header");
	}
	memcpy(h->scene, p.p + p.pos, name_len);
	h->scene[name_len] = '\0';
	p.pos += name_len;
	h->scene_param = get32(&p);
	if (p.short_read || p.pos != p.len) {
		return fail(r, "malformed header");
	}
	if (h->scene_param != 0) {
		return fail(r, "reserved scene parameter in the header is not zero");
	}
	return true;
}

/* Start kind 1: the 'S' chunk after the header, checked as a snapshot, then a desync
 * bundle's 'P' chunk if one follows. Without the snapshot nothing can be verified, so a file
 * cut off inside it is refused like a cut-off header. */
static bool parse_start_snapshot(f2r_reader *r)
{
	uint8_t kind = 0;
	in p;
	size_t at = r->pos;
	f2r_status st = next_chunk(r, &kind, &p);
	if (st == F2R_TRUNCATED) {
		return fail(r, "truncated start snapshot");
	}
	if (st != F2R_OK) {
		return false;
	}
	if (kind != 'S') {
		r->pos = at;
		return fail(r, "start snapshot missing after the header");
	}
	char why[120] = ""; /* fits "bad start snapshot: " + why in msg */
	if (f2d_snapshot_check(p.p, p.len, NULL, why, sizeof why) != F2D_OK) {
		r->pos = at + 9; /* where the snapshot's bytes begin */
		char msg[sizeof r->error - 40];
		snprintf(msg, sizeof msg, "bad start snapshot: %s", why);
		return fail(r, msg);
	}
	r->header.start = p.p;
	r->header.start_len = p.len;
	/* a desync bundle's peers chunk may follow */
	at = r->pos;
	if (next_chunk(r, &kind, &p) != F2R_OK || kind != 'P') {
		r->pos = at; /* anything else is the frames' business */
		return true;
	}
	return parse_bundle(r, &p);
}

static bool parse_start(f2r_reader *r)
{
	if (!check_file_header(r) || !parse_header_chunk(r)) {
		return false;
	}
	if (r->header.start_kind == F2R_START_SCENE) {
		return true;
	}
	if (r->header.start_kind != F2R_START_SNAPSHOT) {
		return fail(r, "unknown start kind");
	}
	return parse_start_snapshot(r);
}

bool f2r_open_read(f2r_reader *r, const char *path)
{
	memset(r, 0, sizeof *r);
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		return fail(r, "cannot open file");
	}
	size_t cap = 1 << 16;
	r->data = malloc(cap);
	while (r->data != NULL) {
		size_t n = fread(r->data + r->size, 1, cap - r->size, f);
		r->size += n;
		if (r->size < cap) {
			break;
		}
		if (cap >= ((size_t)1 << 31)) {
			fclose(f);
			return fail(r, "file larger than 2 GiB");
		}
		uint8_t *p = realloc(r->data, cap * 2);
		if (p == NULL) {
			break;
		}
		r->data = p;
		cap *= 2;
	}
	fclose(f);
	if (r->data == NULL) {
		return fail(r, "out of memory");
	}
	return parse_start(r);
}

bool f2r_open_mem(f2r_reader *r, const uint8_t *data, size_t size)
{
	memset(r, 0, sizeof *r);
	r->data = malloc(size > 0 ? size : 1);
	if (r->data == NULL) {
		return fail(r, "out of memory");
	}
	memcpy(r->data, data, size);
	r->size = size;
	return parse_start(r);
}

/* A 'T' chunk's body (after its frame number): the hash entering the step and the step's
 * phase and state hashes. */
static bool read_trace(f2r_reader *r, in *p, uint32_t frame)
{
	r->trace_entering = get64(p);
	if (get8(p) != F2D_PHASE_COUNT) {
		return fail(r, "trace of another set of phases");
	}
	for (int i = 0; i < F2D_PHASE_COUNT; ++i) {
		r->trace.phase[i] = get64(p);
	}
	r->trace.state = get64(p);
	if (p->short_read || p->pos != p->len) {
		return fail(r, "malformed trace");
	}
	r->trace_frame = frame;
	r->trace_new = true;
	return true;
}

/* A keyframe ('K') or trace ('T') chunk, which belongs to the frame just read. */
static bool read_side_chunk(f2r_reader *r, uint8_t kind, in *p)
{
	uint32_t frame = get32(p);
	if (p->short_read || r->next_frame == 0 || frame != r->next_frame - 1) {
		return fail(r, kind == 'K' ? "keyframe out of place" : "trace out of place");
	}
	if (kind == 'T') {
		return read_trace(r, p, frame);
	}
	r->key = p->p + 4;
	r->key_len = p->len - 4;
	r->key_frame = frame;
	r->key_new = true;
	return true;
}

/* An 'F' chunk: the next frame's index, commands and optional hash. */
static f2r_status read_frame_chunk(f2r_reader *r, in *p, f2r_frame *f)
{
	f->index = get32(p);
	uint32_t lo = get8(p); /* two statements: C leaves the order of two reads in one */
	uint32_t hi = get8(p); /* expression unspecified, and lo must be the first byte */
	f->count = (int32_t)(lo | hi << 8);
	if (p->short_read || f->index != r->next_frame) {
		fail(r, "frames out of order");
		return F2R_BAD;
	}
	if (f->count > F2D_MAX_FRAME_COMMANDS) {
		fail(r, "too many commands in a frame");
		return F2R_BAD;
	}
	for (int32_t i = 0; i < f->count; ++i) {
		size_t used = 0;
		if (f2d_command_decode(p->p + p->pos, p->len - p->pos, &f->commands[i], &used) !=
		    F2D_OK) {
			fail(r, "malformed command");
			return F2R_BAD;
		}
		p->pos += used;
	}
	uint32_t has = get8(p);
	f->has_hash = has == 1;
	f->hash = f->has_hash ? get64(p) : 0;
	if (p->short_read || has > 1 || p->pos != p->len) {
		fail(r, "malformed frame");
		return F2R_BAD;
	}
	r->next_frame++;
	return F2R_OK;
}

f2r_status f2r_read_frame(f2r_reader *r, f2r_frame *f)
{
	if (r->ended) {
		return F2R_END;
	}
	uint8_t kind = 0;
	in p;
	r->key_new = false;
	r->trace_new = false;
	f2r_status st;
	while ((st = next_chunk(r, &kind, &p)) == F2R_OK && (kind == 'K' || kind == 'T')) {
		if (!read_side_chunk(r, kind, &p)) {
			return F2R_BAD;
		}
	}
	if (st != F2R_OK) {
		return st;
	}
	if (kind == 'E') {
		uint32_t n = get32(&p);
		if (p.short_read || p.pos != p.len || n != r->next_frame || r->pos != r->size) {
			fail(r, "bad end marker");
			return F2R_BAD;
		}
		r->ended = true;
		return F2R_END;
	}
	if (kind == 'S' || kind == 'P') {
		fail(r, kind == 'S' ? "start snapshot out of place" : "peers chunk out of place");
		return F2R_BAD;
	}
	if (kind != 'F') {
		fail(r, "unknown chunk kind");
		return F2R_BAD;
	}
	return read_frame_chunk(r, &p, f);
}

void f2r_close_read(f2r_reader *r)
{
	free(r->data);
	r->data = NULL;
	if (r->header.has_bundle) {
		for (int q = 0; q < F2R_MAX_PEERS; ++q) {
			free(r->header.bundle.peers[q].hash);
			r->header.bundle.peers[q].hash = NULL;
		}
		r->header.has_bundle = false;
	}
}
