/* fix2d-netdemo: options and the peer loop. SPDX-License-Identifier: MIT */
#ifndef FIX2D_NETDEMO_NETDEMO_H
#define FIX2D_NETDEMO_NETDEMO_H

#include "auth.h"
#include "link.h"

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#define ND_PROG "fix2d-netdemo"
#define ND_WINDOW 8       /* prediction window, frames */
#define ND_RING 16        /* snapshots kept: frames [confirmed, current] */
#define ND_FRAME_US 16667 /* 60 Hz */
#define ND_HISTORY 64     /* confirmed states kept for a desync bundle: frames [sync-63, sync] */

/* peer exit codes (the launcher's too) */
enum { ND_EXIT_OK = 0, ND_EXIT_DESYNC = 1, ND_EXIT_USAGE = 2, ND_EXIT_LOST = 3, ND_EXIT_ERROR = 4 };

typedef struct nd_options {
	int peers;
	uint32_t frames, delay, timeout_ms;
	nd_impairment imp;
	uint64_t seed;
	const char *record_dir;
	const char *bundle_dir; /* where a desync bundle goes (NULL: the current directory) */
	bool realtime;
	int64_t perturb_frame; /* -1: none */
	int64_t kill_frame;    /* -1: none */
	int perturb_peer, kill_peer;
	uint32_t max_seconds;
	/* the join code (--join-code, $FIX2D_NETDEMO_JOIN_CODE, or made by the host/launcher)
	   and the packet key derived from it */
	bool have_code;
	uint8_t code[ND_CODE_BYTES];
	nd_key key;
	/* one peer of a launched session */
	int index, fd;
	uint32_t token;
	uint16_t ports[ND_MAX_PEERS];
	/* one peer per terminal */
	uint16_t listen_port;
	struct sockaddr_in connect_to;
	bool connect;
} nd_options;

/* What a peer reports at the end (one RESULT line to the launcher). */
typedef struct nd_result {
	int status; /* ND_EXIT_* */
	uint32_t frames, confirmed;
	uint64_t rollbacks, resimulated, stalls, timesync_waits;
	uint32_t max_depth;
	double mean_ms, max_ms, wall_s; /* statistics only */
	uint64_t hash;
	int32_t score[2]; /* the game (game.h): each team's score after the last confirmed frame */
	uint32_t taken;   /* coins taken */
	uint64_t game_digest; /* of that game state */
	uint32_t desync_frame;
	int desync_peer, lost_peer;
	uint64_t sent, impair_dropped, impair_duplicated, impair_reordered, received, parse_drops;
	uint64_t dup_seen, reorder_seen;
	uint64_t drops[ND_DROP_COUNT]; /* refused datagrams by reason; parse_drops is their sum */
} nd_result;

/** Runs one peer: peers[i] are the addresses of all peers (ours at self). Fills *res. */
int nd_peer_run(const nd_options *o, int fd, const struct sockaddr_in *peers, int npeers, int self,
                uint32_t token, nd_result *res);

#endif
