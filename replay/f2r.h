/* fix2d replay files (.f2r): writer and validating reader. Public fix2d API only.
 * SPDX-License-Identifier: MIT
 *
 * Layout: the 8 bytes "F2RP" u16 version u16 reserved (0; a reader refuses anything else),
 * then a stream of chunks. A chunk is
 *   u8 kind, u32 payload length, u32 low half of XXH3-64 of (kind, length), payload,
 *   u64 XXH3-64 of (kind, length, payload)
 * all little-endian. Kinds: 'H' header (first, once), 'S' start snapshot (second, once, only
 * when the start kind is 1), 'P' peers (next, once, only in a desync bundle), 'F' one frame,
 * 'K' keyframe, 'T' trace, 'E' end.
 * A file cut off anywhere (crash, kill -9) still reads up to its last whole chunk; the
 * head check tells a damaged length (corrupt) from a chunk that was cut off.
 *
 *   header: u32 fix2d version, u32 hash format, u64 math fingerprint, i32 time step (fix16),
 *           u32 hash interval K (0 = no hashes), u8 start kind, u8 name length (1..63),
 *           name bytes, u32 scene parameter (reserved: 0, refused otherwise). The time step
 *           must be the start world's (the scene's, or the start snapshot's): fix2d-replay refuses
 *           a header that disagrees as a bad file (replay/record.c, open_replay). Start kinds: 0 =
 * the catalogue scene `name` (fix2d/scenes.h); 1 = the portable snapshot in the 'S' chunk, `name`
 *           is only a label (the snapshot file's base name). Other kinds are refused.
 *   start:  (kind 1 only) a portable snapshot (fix2d/snapshot.h) of the world before frame 0,
 *           at most F2R_MAX_CHUNK bytes; the reader validates it with f2d_snapshot_check.
 *           A file that ends inside it reads as a cut-off header (refused, not truncated).
 *   frame:  u32 frame index (0, 1, 2, ...), u16 command count, the commands (fix2d/input.h
 *           encoding, back to back), u8 has_hash, [u64 state hash after the frame's step]
 *   key:    u32 frame index, then a portable snapshot (fix2d/snapshot.h) of the world after
 *           that frame's step; written right after the frame, every few frames
 *   trace:  u32 frame index, u64 f2d_world_hash of the world entering the step (after the
 *           frame's commands), u8 phase count n (F2D_PHASE_COUNT; other values are refused:
 *           hashes of another set of phases do not compare), n x u64 phase hashes
 *           (f2d_world_step_traced, in f2d_phase order), u64 state hash after the step; the
 *           step the writer actually took for that frame; written right after the frame
 *   peers:  (desync bundles, fix2d-netdemo) u8 writer's peer index, u8 peer count (1..16),
 *           u8 the peer whose hash first differed from the writer's, u32 the game's frame
 *           number of replay frame 0, u32 the first frame whose hashes differ (as the writer
 *           found it), then for each peer: u32 first frame, u32 count, count x u64: the
 *           confirmed-frame hashes the writer held from that peer (its own included) for
 *           game frames first .. first+count-1. Indices must be below the count, and the
 *           payload must end with the last hash.
 *   end:    u32 frame count
 * Older readers (before 'P' and 'T') refuse a file that holds them as "unknown chunk kind".
 */
#ifndef FIX2D_REPLAY_F2R_H
#define FIX2D_REPLAY_F2R_H

#include "fix2d/fix2d.h"
#include "fix2d/input.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define F2R_VERSION 1
/** The hash format of the hashes a replay records (one value for every writer and reader:
 *  fix2d-replay, fix2d-view, fix2d-netdemo). 2: the library's hash format 3 (cached shape
 *  digests); 3: its hash format 4 (compact body records, issue 16); 4: its hash format 5 (the
 *  shapes section one cached u64, issue 16); 5: its hash format 6 (a body's record in its
 *  first cache line, the mass data one cached u64, issue 16); 6: its hash format 7 (sections of
 *  64-byte stripes hashed from registers, issue 16; also its format 8, which came with engine
 *  format 16's new simulation); 7: its hash format 9 (an arbiter record one stripe, its
 *  recycled geometry a cached digest, issue 16); a replay of another is refused as recorded
 *  by an incompatible fix2d. */
#define F2R_HASH_FORMAT 7u
/** The fix2d version a header records: major << 16 | minor << 8 | patch (a reader refuses
 *  another major or minor). */
#define FIX2D_VERSION_WORD                                                                         \
	((uint32_t)F2D_VERSION_MAJOR << 16 | (uint32_t)F2D_VERSION_MINOR << 8 | F2D_VERSION_PATCH)
#define F2R_MAX_CHUNK (1u << 24) /* 16 MiB: far above any frame, guards allocations */

#define F2R_MAX_PEERS 16

/* One peer's confirmed-frame hashes in a desync bundle: game frames [first, first + count). */
typedef struct f2r_peer_hashes {
	uint32_t first, count;
	uint64_t *hash; /* writer: the caller's; reader: owned by the reader */
} f2r_peer_hashes;

/* A desync bundle's 'P' chunk: who wrote it, where the replay sits in the game, every peer's
 * hashes for the span. */
typedef struct f2r_bundle {
	uint8_t peer, peer_count, desync_peer;
	uint32_t first_frame;  /* the game's frame number of replay frame 0 */
	uint32_t desync_frame; /* the first frame whose hashes differ, as the writer found it */
	f2r_peer_hashes peers[F2R_MAX_PEERS];
} f2r_bundle;

typedef struct f2r_header {
	uint32_t fix2d_version;
	uint32_t hash_format;
	uint64_t fingerprint;
	fix16_t time_step;
	uint32_t hash_interval;
	uint8_t start_kind;
	char scene[64]; /* kind 0: the scene's name; kind 1: a label */
	uint32_t scene_param;
	/* kind 1: the portable snapshot the replay starts from. The writer copies it into the
	 * 'S' chunk; the reader points it into its data (valid until f2r_close_read). */
	const uint8_t *start;
	size_t start_len;
	/* a desync bundle: the 'P' chunk (written after the start snapshot when has_bundle) */
	bool has_bundle;
	f2r_bundle bundle;
} f2r_header;

#define F2R_START_SCENE 0
#define F2R_START_SNAPSHOT 1

typedef struct f2r_frame {
	uint32_t index;
	int32_t count;
	f2d_command commands[F2D_MAX_FRAME_COMMANDS];
	bool has_hash;
	uint64_t hash;
} f2r_frame;

/* ---- writing: a stream, flushed after every frame ---- */
typedef struct f2r_writer {
	FILE *file;
	uint8_t *buf;
	size_t cap;
	uint32_t frames;
} f2r_writer;

/* A new replay's header: this build's fix2d version, hash format and math fingerprint, the
 * time step of the start world w and a hash every hash_interval frames; everything else zero
 * (start kind 0, the scene; no bundle). */
void f2r_header_init(f2r_header *h, const f2d_world *w, uint32_t hash_interval);
bool f2r_open_write(f2r_writer *w, const char *path, const f2r_header *h);
bool f2r_write_frame(f2r_writer *w, const f2r_frame *f);
/** A keyframe: the portable snapshot of the world after frame `frame` (write it right after
 *  that frame). */
bool f2r_write_keyframe(f2r_writer *w, uint32_t frame, const void *snapshot, size_t len);
/** A trace: the hash of the world entering the step of frame `frame` (after its commands)
 *  and the phase hashes of that step (write it right after that frame). */
bool f2r_write_trace(f2r_writer *w, uint32_t frame, uint64_t entering,
                     const f2d_phase_hashes *trace);
bool f2r_close_write(f2r_writer *w);

/* ---- reading ---- */
typedef enum f2r_status {
	F2R_OK = 0,
	F2R_END,       /* clean end marker */
	F2R_TRUNCATED, /* the file stops inside a chunk: everything before it is good */
	F2R_BAD        /* corrupt: message in the reader */
} f2r_status;

typedef struct f2r_reader {
	uint8_t *data; /* whole file */
	size_t size, pos;
	f2r_header header;
	uint32_t next_frame;
	bool ended;
	/* the last keyframe read past (points into data) */
	const uint8_t *key;
	size_t key_len;
	uint32_t key_frame;
	bool key_new; /* set when the last f2r_read_frame call passed a keyframe */
	/* the last trace read past */
	f2d_phase_hashes trace;
	uint64_t trace_entering; /* the hash of the world entering the step */
	uint32_t trace_frame;
	bool trace_new; /* set when the last f2r_read_frame call passed a trace */
	char error[200];
} f2r_reader;

/** Reads the file and its header; false with r->error on any problem. */
bool f2r_open_read(f2r_reader *r, const char *path);
/** The same from bytes in memory (copied). */
bool f2r_open_mem(f2r_reader *r, const uint8_t *data, size_t size);
/** The next frame; F2R_END / F2R_TRUNCATED when there is none, F2R_BAD with r->error. */
f2r_status f2r_read_frame(f2r_reader *r, f2r_frame *f);
void f2r_close_read(f2r_reader *r);

#endif
