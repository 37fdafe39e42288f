/* fix2d-netdemo: netcode state (see session.h). SPDX-License-Identifier: MIT */
#include "session.h"

#include <stdlib.h>
#include <string.h>

bool nd_session_init(nd_session *s, int npeers, int self, uint32_t token, uint32_t frames,
                     uint32_t delay, const nd_key *key)
{
	memset(s, 0, sizeof *s);
	if (npeers < 2 || npeers > ND_MAX_PEERS || self < 0 || self >= npeers || frames == 0 ||
	    frames > ND_MAX_FRAMES || delay > 16 || key == NULL) {
		return false;
	}
	s->key = *key;
	s->npeers = npeers;
	s->self = self;
	s->token = token;
	s->frames = frames;
	s->delay = delay < frames ? delay : frames;
	s->first_wrong = ND_NO_FRAME;
	s->desync_frame = ND_NO_FRAME;
	s->desync_peer = -1;
	for (int p = 0; p < npeers; ++p) {
		s->inputs[p] = calloc(frames, 1);
		s->used[p] = calloc(frames, 1);
		s->hashes[p] = calloc(frames, sizeof(uint64_t));
		s->games[p] = calloc(frames, sizeof(uint64_t));
		if (s->inputs[p] == NULL || s->used[p] == NULL || s->hashes[p] == NULL ||
		    s->games[p] == NULL) {
			nd_session_free(s);
			return false;
		}
		s->input_count[p] = s->delay; /* the delay frames: no buttons, known to all */
		s->remote[p].input_acked = s->delay;
		s->remote[p].desync_frame = ND_NO_FRAME;
	}
	return true;
}

void nd_session_free(nd_session *s)
{
	for (int p = 0; p < ND_MAX_PEERS; ++p) {
		free(s->inputs[p]);
		free(s->used[p]);
		free(s->hashes[p]);
		free(s->games[p]);
		s->games[p] = NULL;
		s->inputs[p] = NULL;
		s->used[p] = NULL;
		s->hashes[p] = NULL;
	}
	nd_key_wipe(&s->key);
}

/* Frame f of peer p against ours (both held): a desync when the world hashes or the game
 * digests differ. Reports the world hashes, or the digests when only those differ. */
static void compare(nd_session *s, uint32_t f, int p)
{
	int self = s->self;
	bool world = s->hashes[p][f] != s->hashes[self][f];
	bool game = s->games[p][f] != s->games[self][f];
	if (!(world || game) || (s->desync_frame != ND_NO_FRAME && f >= s->desync_frame)) {
		return;
	}
	s->desync_frame = f;
	s->desync_peer = p;
	s->desync_game = !world;
	s->desync_local = world ? s->hashes[self][f] : s->games[self][f];
	s->desync_remote = world ? s->hashes[p][f] : s->games[p][f];
}

static bool drop(nd_session *s, nd_drop why)
{
	s->drops[why]++;
	return false;
}

/* Sequence numbers (see ND_SEQ_WINDOW). fresh: not accepted before and inside the window. */
static bool seq_bit(const nd_remote *r, uint64_t seq)
{
	uint32_t b = (uint32_t)(seq % ND_SEQ_WINDOW);
	return (r->seen[b / 64] >> (b % 64) & 1u) != 0;
}

static bool seq_fresh(const nd_remote *r, uint32_t seq)
{
	if (seq >= r->highest_seq) {
		return true; /* newer than anything accepted */
	}
	return r->highest_seq - seq <= ND_SEQ_WINDOW && !seq_bit(r, seq);
}

static void seq_accept(nd_remote *r, uint32_t seq)
{
	if (seq >= r->highest_seq) {
		/* the window moves up: forget the numbers it leaves, [highest_seq, seq] are new */
		uint64_t first = r->highest_seq, n = (uint64_t)seq + 1 - first;
		if (n >= ND_SEQ_WINDOW) {
			memset(r->seen, 0, sizeof r->seen);
		} else {
			for (uint64_t k = first; k <= seq; ++k) {
				uint32_t b = (uint32_t)(k % ND_SEQ_WINDOW);
				r->seen[b / 64] &= ~((uint64_t)1 << (b % 64));
			}
		}
		r->highest_seq = (uint64_t)seq + 1;
	} else {
		r->out_of_order++; /* arrived after a higher number */
	}
	uint32_t b = seq % ND_SEQ_WINDOW;
	r->seen[b / 64] |= (uint64_t)1 << (b % 64);
}

/* Whether the packet's frame numbers fit the session: within the game, continuing (not past)
 * what we hold from its sender, acknowledging only what we sent, and confirming (hashing)
 * only frames whose input from us the sender has. Checked before anything changes. */
static bool frames_fit(const nd_session *s, int from, const nd_packet *p)
{
	uint32_t have_in = s->input_count[from], have_hash = s->hash_count[from];
	uint32_t ours_in = s->input_count[s->self], ours_hash = s->hash_count[s->self];
	uint64_t in_end = (uint64_t)p->input_start + p->input_count;
	uint64_t hash_end = (uint64_t)p->hash_start + p->hash_count;
	return !(p->frame > s->frames || in_end > s->frames || hash_end > s->frames ||
	         p->input_start > have_in || p->hash_start > have_hash || p->input_ack > ours_in ||
	         p->input_ack < s->delay || p->hash_ack > ours_hash ||
	         (p->desync_frame != ND_NO_FRAME && p->desync_frame >= s->frames) ||
	         p->advantage > (int32_t)s->frames || p->advantage < -(int32_t)s->frames ||
	         hash_end > ours_in);
}

/* Whether the packet repeats an input, hash or game digest we hold with another value. */
static bool conflicts(const nd_session *s, int from, const nd_packet *p)
{
	uint32_t have_in = s->input_count[from], have_hash = s->hash_count[from];
	for (uint32_t i = 0; i < p->input_count; ++i) {
		uint32_t f = p->input_start + i;
		if (f < have_in && s->inputs[from][f] != p->inputs[i]) {
			return true;
		}
	}
	for (uint32_t i = 0; i < p->hash_count; ++i) {
		uint32_t f = p->hash_start + i;
		if (f < have_hash &&
		    (s->hashes[from][f] != p->hashes[i] || s->games[from][f] != p->games[i])) {
			return true;
		}
	}
	return false;
}

/* An accepted packet's news about its sender: heard, round trip, current frame (from the
 * newest packet only), done, desync, acknowledgements. */
static void note_remote(nd_remote *r, const nd_packet *p, uint64_t now_ms)
{
	bool newest = p->seq >= r->highest_seq;
	seq_accept(r, p->seq);
	r->received++;
	r->heard = true;
	r->last_heard_ms = now_ms;
	r->last_send_ms = p->send_ms;
	if (p->echo_ms != 0) {
		r->rtt_ms = (uint32_t)now_ms - p->echo_ms;
	}
	if (newest) { /* the newest packet tells the current frame */
		r->frame = p->frame;
		r->advantage = p->advantage;
	}
	r->done = r->done || (p->flags & ND_FLAG_DONE) != 0;
	if ((p->flags & ND_FLAG_DESYNC) != 0) {
		r->desync = true;
		if (p->desync_frame < r->desync_frame) {
			r->desync_frame = p->desync_frame;
		}
	}
	if (p->input_ack > r->input_acked) {
		r->input_acked = p->input_ack;
	}
	if (p->hash_ack > r->hash_acked) {
		r->hash_acked = p->hash_ack;
	}
}

/* The packet's new inputs and hashes (those past what we hold from its sender), in frame
 * order: a new input for a frame we simulated with another marks a rollback, a new hash of
 * a frame we hashed is compared with ours. */
static void take_frames(nd_session *s, int from, const nd_packet *p)
{
	for (uint32_t i = 0; i < p->input_count; ++i) {
		uint32_t f = p->input_start + i;
		if (f < s->input_count[from]) {
			continue;
		}
		s->inputs[from][f] = p->inputs[i];
		s->input_count[from] = f + 1;
		if (f < s->simulated && s->used[from][f] != p->inputs[i] && f < s->first_wrong) {
			s->first_wrong = f; /* a misprediction: roll back */
		}
	}
	for (uint32_t i = 0; i < p->hash_count; ++i) {
		uint32_t f = p->hash_start + i;
		if (f < s->hash_count[from]) {
			continue;
		}
		s->hashes[from][f] = p->hashes[i];
		s->games[from][f] = p->games[i];
		s->hash_count[from] = f + 1;
		if (f < s->hash_count[s->self]) {
			compare(s, f, from);
		}
	}
}

bool nd_session_receive(nd_session *s, int from, const uint8_t *data, size_t len, uint64_t now_ms)
{
	nd_packet p;
	int why = nd_packet_open(&s->key, data, len, &p);
	if (why >= 0) {
		return drop(s, (nd_drop)why);
	}
	if (from < 0 || from >= s->npeers || from == s->self || p.sender != from) {
		return drop(s, ND_DROP_UNKNOWN_SENDER);
	}
	if (p.token != s->token) {
		return drop(s, ND_DROP_TOKEN);
	}
	if (p.type != ND_PKT_GAME) {
		return drop(s, ND_DROP_UNEXPECTED);
	}
	nd_remote *r = &s->remote[from];
	if (!seq_fresh(r, p.seq)) {
		r->duplicates += r->highest_seq - p.seq <= ND_SEQ_WINDOW; /* else: too old */
		return drop(s, ND_DROP_REPLAY);
	}
	/* frame numbers: everything checked before anything changes */
	if (!frames_fit(s, from, &p)) {
		return drop(s, ND_DROP_FRAME);
	}
	if (conflicts(s, from, &p)) {
		return drop(s, ND_DROP_CONFLICT);
	}
	/* accepted */
	note_remote(r, &p, now_ms);
	take_frames(s, from, &p);
	return true;
}

size_t nd_session_build(nd_session *s, int to, uint32_t frame, uint8_t flags, uint32_t now_ms,
                        uint8_t *buf, size_t cap)
{
	if (to < 0 || to >= s->npeers || to == s->self) {
		return 0;
	}
	static nd_packet p; /* large; one session per process */
	nd_remote *r = &s->remote[to];
	memset(&p, 0, sizeof p);
	p.type = ND_PKT_GAME;
	p.sender = (uint8_t)s->self;
	p.flags = flags;
	p.token = s->token;
	p.seq = r->send_seq++;
	p.send_ms = now_ms == 0 ? 1 : now_ms;
	p.echo_ms = r->last_send_ms;
	p.frame = frame;
	p.advantage = nd_session_advantage(s, to, frame);
	p.input_ack = s->input_count[to];
	p.hash_ack = s->hash_count[to];
	p.desync_frame = (flags & ND_FLAG_DESYNC) != 0 ? s->desync_frame : ND_NO_FRAME;
	if ((flags & ND_FLAG_DESYNC) != 0 && p.desync_frame == ND_NO_FRAME) {
		p.flags &= (uint8_t)~ND_FLAG_DESYNC;
	}
	uint32_t self = (uint32_t)s->self;
	p.input_start =
	    r->input_acked < s->input_count[self] ? r->input_acked : s->input_count[self];
	uint32_t n = s->input_count[self] - p.input_start;
	p.input_count = (uint8_t)(n > ND_MAX_PACKET_INPUTS ? ND_MAX_PACKET_INPUTS : n);
	memcpy(p.inputs, s->inputs[self] + p.input_start, p.input_count);
	p.hash_start = r->hash_acked < s->hash_count[self] ? r->hash_acked : s->hash_count[self];
	n = s->hash_count[self] - p.hash_start;
	p.hash_count = (uint8_t)(n > ND_MAX_PACKET_HASHES ? ND_MAX_PACKET_HASHES : n);
	memcpy(p.hashes, s->hashes[self] + p.hash_start, p.hash_count * sizeof(uint64_t));
	memcpy(p.games, s->games[self] + p.hash_start, p.hash_count * sizeof(uint64_t));
	return nd_packet_seal(&s->key, &p, buf, cap);
}

void nd_session_add_local_input(nd_session *s, uint8_t bits)
{
	uint32_t f = s->input_count[s->self];
	if (f < s->frames) {
		s->inputs[s->self][f] = bits & ND_INPUT_MASK;
		s->input_count[s->self] = f + 1;
	}
}

uint8_t nd_session_input(const nd_session *s, int p, uint32_t f)
{
	uint32_t n = s->input_count[p];
	if (f < n) {
		return s->inputs[p][f];
	}
	return n > 0 ? s->inputs[p][n - 1] : 0;
}

uint32_t nd_session_known(const nd_session *s)
{
	uint32_t k = s->input_count[0];
	for (int p = 1; p < s->npeers; ++p) {
		k = s->input_count[p] < k ? s->input_count[p] : k;
	}
	return k;
}

void nd_session_confirm(nd_session *s, uint32_t f, uint64_t hash, uint64_t game)
{
	int self = s->self;
	if (f != s->hash_count[self] || f >= s->frames) {
		return;
	}
	s->hashes[self][f] = hash;
	s->games[self][f] = game;
	s->hash_count[self] = f + 1;
	for (int p = 0; p < s->npeers; ++p) {
		if (p != self && f < s->hash_count[p]) {
			compare(s, f, p);
		}
	}
}

int32_t nd_session_advantage(const nd_session *s, int p, uint32_t frame)
{
	return (int32_t)frame - (int32_t)s->remote[p].frame;
}
