/* fix2d-netdemo: the netcode state of one peer, without sockets or a world, so that it can be
 * fuzzed on its own: every player's inputs, acknowledgements, confirmed-frame hashes and the
 * comparison of hashes between peers. SPDX-License-Identifier: MIT
 *
 * Frames are numbered 0, 1, ... frames-1. Frame f applies the inputs of frame f and steps;
 * its hash is the world hash after that step. The first `delay` frames of every player have
 * no buttons pressed (the input delay): every peer knows them without a packet.
 */
#ifndef FIX2D_NETDEMO_SESSION_H
#define FIX2D_NETDEMO_SESSION_H

#include "auth.h"
#include "packet.h"

#include <stdbool.h>
#include <stdint.h>

#define ND_MAX_FRAMES 1000000u
/* Replay protection: sequence numbers (per sender and destination, from 0) are remembered for
 * the newest ND_SEQ_WINDOW of them; a packet whose number was already accepted, or is older
 * than that, is refused (ND_DROP_REPLAY). A network duplicate is refused the same way: it is
 * indistinguishable from a replay and carries nothing new. 1,024 packets are about a second
 * of traffic at the fastest send rate (one a millisecond), far more than reordering delays. */
#define ND_SEQ_WINDOW 1024u

typedef struct nd_remote {
	uint32_t input_acked; /* how many of our inputs this peer holds */
	uint32_t hash_acked;  /* how many of our confirmed hashes it holds */
	uint32_t frame;       /* its current frame, as last reported */
	int32_t advantage;    /* its frame advantage over us, as last reported */
	bool heard, done, desync;
	uint32_t desync_frame;
	uint64_t last_heard_ms;
	uint32_t send_seq;                 /* next sequence number to send it */
	uint64_t highest_seq;              /* highest sequence number accepted + 1 (0: none yet) */
	uint64_t seen[ND_SEQ_WINDOW / 64]; /* bit s % ND_SEQ_WINDOW: s was accepted, for s in
	                                      [highest_seq - ND_SEQ_WINDOW, highest_seq) */
	uint32_t last_send_ms;             /* its latest send time, echoed back */
	uint32_t rtt_ms;                   /* last round trip measured */
	uint64_t received;                 /* valid packets */
	uint64_t duplicates;               /* sequence numbers seen before (refused as replays) */
	uint64_t out_of_order;             /* arrived after a higher sequence number */
} nd_remote;

typedef struct nd_session {
	int npeers, self;
	uint32_t token, frames, delay;
	nd_key key; /* the packet key (auth.h): every packet sent is sealed, every one received
	               is opened with it */
	uint8_t *inputs[ND_MAX_PEERS]; /* [frames]: frames [0, input_count[p]) are known */
	uint32_t input_count[ND_MAX_PEERS];
	uint8_t *used[ND_MAX_PEERS];    /* [frames]: the input frame f was last simulated with */
	uint32_t simulated;             /* frames [0, simulated) have been simulated */
	uint32_t first_wrong;           /* earliest frame simulated with a wrong prediction */
	uint64_t *hashes[ND_MAX_PEERS]; /* [frames]: confirmed-frame hashes, ours at [self] */
	uint64_t *games[ND_MAX_PEERS];  /* [frames]: their game-state digests (game.h) */
	uint32_t hash_count[ND_MAX_PEERS];
	nd_remote remote[ND_MAX_PEERS];
	/* the first mismatch of confirmed hashes */
	uint32_t desync_frame; /* ND_NO_FRAME: none */
	int desync_peer;
	uint64_t desync_local, desync_remote; /* the world hashes of that frame */
	bool desync_game; /* the world hashes agree, the game-state digests (these) do not */
	uint64_t drops[ND_DROP_COUNT];
} nd_session;

/** Allocates the arrays; false on bad arguments or no memory. */
bool nd_session_init(nd_session *s, int npeers, int self, uint32_t token, uint32_t frames,
                     uint32_t delay, const nd_key *key);
void nd_session_free(nd_session *s);

/** One datagram from peer `from` (-1: from an address that is no peer). Checked in this
 *  order: format of the header, the tag (nd_packet_open), sender, token, type, sequence
 *  number (replay), frame numbers, conflicts. Refused packets change nothing but the
 *  duplicate count and are counted in s->drops. Returns true when the packet was used. */
bool nd_session_receive(nd_session *s, int from, const uint8_t *data, size_t len, uint64_t now_ms);

/** The GAME packet for peer `to`, sealed: every input and confirmed hash it has not
 *  acknowledged (as many as one packet holds, oldest first). Returns the length (0 on
 *  error). */
size_t nd_session_build(nd_session *s, int to, uint32_t frame, uint8_t flags, uint32_t now_ms,
                        uint8_t *buf, size_t cap);

/** Appends our input for the next frame (frame input_count[self]). */
void nd_session_add_local_input(nd_session *s, uint8_t bits);

/** The input of player p for frame f: the real one when known, else the prediction (the last
 *  known input repeated). */
uint8_t nd_session_input(const nd_session *s, int p, uint32_t f);

/** Frames whose inputs are all known: min over players of input_count. */
uint32_t nd_session_known(const nd_session *s);

/** Records our world hash and game-state digest of confirmed frame f (frames are confirmed in
 *  order) and compares them with the ones the other peers sent for f: either differing is a
 *  desync. */
void nd_session_confirm(nd_session *s, uint32_t f, uint64_t hash, uint64_t game);

/** Frame advantage over peer p (our frame minus its last reported frame). */
int32_t nd_session_advantage(const nd_session *s, int p, uint32_t frame);

#endif
