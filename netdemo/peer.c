/* fix2d-netdemo: one peer. GGPO's model on fix2d's public API:
 *  - local input delay: our input for frame f is sampled while we simulate frame f - delay;
 *  - a missing remote input is predicted (its last known input repeated);
 *  - when an input arrives that differs from the one a simulated frame used, the world is
 *    restored from the in-process snapshot (fix2d/snapshot.h, preallocated buffers) of the
 *    last confirmed frame and resimulated to the present;
 *  - at most ND_WINDOW frames are simulated beyond the last frame whose inputs are all known:
 *    past that the peer stalls rather than diverge;
 *  - time sync: a peer whose frame advantage exceeds the other's by 2 frames or more waits
 *    (GGPO: half the difference is how far ahead it runs);
 *  - the game's own state (game.h: score, coin waits) is kept with each snapshot of the ring
 *    and restored with the world, so a rollback re-runs the game's events from the same state;
 *  - hashes of confirmed frames only are exchanged and compared, each with the digest of the
 *    game state after it; confirmed frames go to the replay (.f2r) with their commands and
 *    world hashes (the replay re-creates the coins and teams from frame 0's commands);
 *  - every step is traced (f2d_world_step_traced: the hash of each phase, a few microseconds)
 *    and the last ND_HISTORY confirmed states are kept, so that on a desync the peer writes a
 *    bundle (write_bundle) from which fix2d-replay explains it offline.
 * Floating point is used for timing statistics only, never for anything the world sees.
 * SPDX-License-Identifier: MIT
 */
#define _POSIX_C_SOURCE 200809L
#include "netdemo.h"

#include "f2r.h"
#include "fix2d/scenes.h"
#include "fix2d/snapshot.h"
#include "game.h"
#include "session.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINGER_US 1500000u /* after the end: keep answering so the others can finish */

typedef struct peer {
	const nd_options *o;
	int self, npeers;
	f2d_world *world;
	f2d_body_id players[ND_PLAYERS];
	nd_session s;
	nd_link link;
	const struct sockaddr_in *addrs;
	nd_script script;
	/* rollback state */
	uint32_t cur;  /* frames simulated: the world is at the start of frame cur */
	uint32_t sync; /* frames confirmed: all inputs known and simulated with them */
	uint8_t *snap[ND_RING];
	size_t snap_cap[ND_RING], snap_len[ND_RING];
	uint64_t frame_hash[ND_RING];
	nd_game game;                  /* the game state of the world's present */
	nd_game games[ND_RING];        /* ... at the start of each frame of the ring */
	uint64_t game_digest[ND_RING]; /* the game state's digest after each frame */
	f2d_command cmds[ND_RING][ND_MAX_GAME_COMMANDS];
	int32_t ncmds[ND_RING];
	f2d_phase_hashes trace[ND_RING]; /* the traced step of the frame last simulated there */
	uint64_t entering[ND_RING];      /* the world's hash entering that step */
	/* the confirmed history (desync bundles): the state at the start of frame g (an
	   in-process snapshot) at hist[g % ND_HISTORY] for g in [sync - ND_HISTORY + 1, sync];
	   the commands and traced step of confirmed frame f at f % ND_HISTORY */
	uint8_t *hist[ND_HISTORY];
	size_t hist_cap[ND_HISTORY], hist_len[ND_HISTORY];
	f2d_command hist_cmds[ND_HISTORY][ND_MAX_GAME_COMMANDS];
	int32_t hist_ncmds[ND_HISTORY];
	f2d_phase_hashes hist_trace[ND_HISTORY];
	uint64_t hist_entering[ND_HISTORY];
	/* replay */
	f2r_writer replay;
	bool recording;
	f2r_frame *rframe;
	/* stats */
	nd_result *res;
	uint64_t work_us, frame_samples, total_frame_us, max_frame_us;
	uint64_t snapshot_grows;
	bool history_lost;      /* out of memory keeping a state: no bundle */
	nd_game confirmed_game; /* the game state after the last confirmed frame */
} peer;

static bool save_snapshot(peer *p, uint32_t frame)
{
	int k = (int)(frame % ND_RING);
	size_t n = 0;
	f2d_result r = f2d_snapshot_save(p->world, p->snap[k], p->snap_cap[k], &n);
	if (r == F2D_ERROR_INVALID_VALUE && n > p->snap_cap[k]) {
		/* the world outgrew the preallocated buffer (more contacts): grow it once */
		uint8_t *b = realloc(p->snap[k], 2 * n);
		if (b == NULL) {
			return false;
		}
		p->snap[k] = b;
		p->snap_cap[k] = 2 * n;
		p->snapshot_grows++;
		r = f2d_snapshot_save(p->world, p->snap[k], p->snap_cap[k], &n);
	}
	p->snap_len[k] = n;
	p->games[k] = p->game;
	return r == F2D_OK;
}

/* Applies frame f's inputs (known or predicted) and steps. */
static void simulate(peer *p, uint32_t f)
{
	uint8_t in[ND_PLAYERS] = {0, 0, 0, 0};
	for (int q = 0; q < p->npeers; ++q) {
		in[q] = nd_session_input(&p->s, q, f);
		p->s.used[q][f] = in[q];
	}
	int k = (int)(f % ND_RING);
	p->ncmds[k] = f == 0 ? nd_game_setup(p->world, p->players, p->cmds[k]) : 0;
	p->ncmds[k] +=
	    nd_game_commands(p->world, p->players, in, p->npeers, p->cmds[k] + p->ncmds[k]);
	if (p->o->perturb_frame >= 0 && (int64_t)f == p->o->perturb_frame) {
		/* test only (--test-perturb-frame): one LSB of one body, through the public API */
		f2d_body_id b = p->players[0];
		f2d_vec2 pos = f2d_body_get_position(p->world, b);
		pos.x += 1;
		f2d_body_set_transform(p->world, b, pos, f2d_body_get_rotation(p->world, b));
	}
	f2d_command_result res[ND_MAX_GAME_COMMANDS];
	f2d_world_apply_commands(p->world, p->cmds[k], p->ncmds[k], res);
	nd_game_created(&p->game, p->cmds[k], res, p->ncmds[k]);
	p->entering[k] = f2d_world_hash(p->world);
	f2d_world_step_traced(p->world, &p->trace[k]);
	p->frame_hash[k] = f2d_world_hash(p->world);
	nd_game_update(&p->game, p->world, p->players); /* this step's sensor events score */
	p->game_digest[k] = nd_game_digest(&p->game);
	if (f + 1 > p->s.simulated) {
		p->s.simulated = f + 1;
	}
}

static bool rollback(peer *p)
{
	uint32_t from = p->sync;
	int k = (int)(from % ND_RING);
	if (f2d_snapshot_restore(p->world, p->snap[k], p->snap_len[k]) != F2D_OK) {
		fprintf(stderr, "%s: peer %d: snapshot restore failed: %s\n", ND_PROG, p->self,
		        f2d_world_last_error(p->world));
		return false;
	}
	p->game = p->games[k];
	for (uint32_t f = from; f < p->cur; ++f) {
		if (f > from && !save_snapshot(p, f)) {
			return false;
		}
		simulate(p, f);
	}
	if (!save_snapshot(p, p->cur)) { /* the present, as it now is */
		return false;
	}
	uint32_t depth = p->cur - from;
	p->res->rollbacks++;
	p->res->resimulated += depth;
	if (depth > p->res->max_depth) {
		p->res->max_depth = depth;
	}
	return true;
}

/* Copies the state at the start of frame g (the ring's snapshot, which must hold it) into
 * the history. false when out of memory. */
static bool keep_state(peer *p, uint32_t g)
{
	int k = (int)(g % ND_RING), h = (int)(g % ND_HISTORY);
	if (p->snap_len[k] > p->hist_cap[h]) {
		size_t cap = 2 * p->snap_len[k]; /* room for more contacts: rarely grows again */
		uint8_t *b = realloc(p->hist[h], cap);
		if (b == NULL) {
			return false;
		}
		p->hist[h] = b;
		p->hist_cap[h] = cap;
	}
	memcpy(p->hist[h], p->snap[k], p->snap_len[k]);
	p->hist_len[h] = p->snap_len[k];
	return true;
}

/* Frames [sync, upto) are confirmed: every input is known and they were simulated with them,
 * so the ring's snapshots of frames sync+1 .. upto (<= cur) are final. */
static void confirm(peer *p, uint32_t upto)
{
	for (uint32_t f = p->sync; f < upto; ++f) {
		int k = (int)(f % ND_RING), h = (int)(f % ND_HISTORY);
		p->hist_ncmds[h] = p->ncmds[k];
		memcpy(p->hist_cmds[h], p->cmds[k], sizeof(f2d_command) * (size_t)p->ncmds[k]);
		p->hist_trace[h] = p->trace[k];
		p->hist_entering[h] = p->entering[k];
		if (!keep_state(p, f + 1)) {
			p->history_lost = true;
		}
		nd_session_confirm(&p->s, f, p->frame_hash[k], p->game_digest[k]);
		p->confirmed_game = p->games[(f + 1) % ND_RING]; /* the state after frame f */
		if (p->recording) {
			p->rframe->index = f;
			p->rframe->count = p->ncmds[k];
			memcpy(p->rframe->commands, p->cmds[k],
			       sizeof(f2d_command) * (size_t)p->ncmds[k]);
			p->rframe->has_hash = true;
			p->rframe->hash = p->frame_hash[k];
			if (!f2r_write_frame(&p->replay, p->rframe)) {
				fprintf(stderr, "%s: peer %d: cannot write the replay\n", ND_PROG,
				        p->self);
				p->recording = false;
			}
		}
	}
	p->sync = upto;
}

static int peer_of(const peer *p, const struct sockaddr_in *a)
{
	for (int q = 0; q < p->npeers; ++q) {
		if (q != p->self && p->addrs[q].sin_addr.s_addr == a->sin_addr.s_addr &&
		    p->addrs[q].sin_port == a->sin_port) {
			return q;
		}
	}
	return -1;
}

/* GGPO's time sync: frames to wait so that neither peer runs ahead of the other. */
static int32_t timesync_wait(const peer *p)
{
	int32_t wait = 0;
	for (int q = 0; q < p->npeers; ++q) {
		const nd_remote *r = &p->s.remote[q];
		if (q == p->self || !r->heard || r->done) {
			continue;
		}
		int32_t mine = nd_session_advantage(&p->s, q, p->cur);
		int32_t w = (mine - r->advantage) / 2;
		wait = w > wait ? w : wait;
	}
	return wait;
}

static bool everything_exchanged(const peer *p)
{
	const nd_session *s = &p->s;
	if (p->sync < s->frames) {
		return false;
	}
	for (int q = 0; q < p->npeers; ++q) {
		if (q != p->self &&
		    (s->hash_count[q] < s->frames || s->remote[q].input_acked < s->frames ||
		     s->remote[q].hash_acked < s->frames)) {
			return false;
		}
	}
	return true;
}

static bool open_replay(peer *p)
{
	if (p->o->record_dir == NULL) {
		return true;
	}
	char path[4096];
	snprintf(path, sizeof path, "%s/peer%d.f2r", p->o->record_dir, p->self);
	f2r_header h;
	f2r_header_init(&h, p->world, 1);
	snprintf(h.scene, sizeof h.scene, "%s", ND_SCENE);
	p->rframe = calloc(1, sizeof *p->rframe);
	if (p->rframe == NULL || !f2r_open_write(&p->replay, path, &h)) {
		fprintf(stderr, "%s: peer %d: cannot write %s\n", ND_PROG, p->self, path);
		return false;
	}
	p->recording = true;
	return true;
}

/* The world at the start of frame g, from the history, and its portable snapshot in *buf
 * (grown as needed); 0 on failure. */
static size_t portable_state(peer *p, uint32_t g, uint8_t **buf, size_t *cap)
{
	int h = (int)(g % ND_HISTORY);
	if (f2d_snapshot_restore(p->world, p->hist[h], p->hist_len[h]) != F2D_OK) {
		return 0;
	}
	size_t need = f2d_snapshot_portable_size(p->world), len = 0;
	if (need > *cap) {
		uint8_t *b = realloc(*buf, need);
		if (b == NULL) {
			return 0;
		}
		*buf = b;
		*cap = need;
	}
	return f2d_snapshot_save_portable(p->world, *buf, *cap, &len) == F2D_OK ? len : 0;
}

/* Whether a desync bundle can be written for frames desync_frame .. sync-1: false (with a
 * message when the reason is worth one) when there is no desync, our states were lost or the
 * state before the desync frame is no longer kept. */
static bool bundle_possible(const peer *p)
{
	uint32_t d = p->s.desync_frame, end = p->sync;
	if (d == ND_NO_FRAME || d >= end) {
		return false; /* (we hold our hash of D, so D < sync) */
	}
	if (p->history_lost) {
		fprintf(stderr, "%s: peer %d: no desync bundle: out of memory keeping states\n",
		        ND_PROG, p->self);
		return false;
	}
	if (end - d >= ND_HISTORY) {
		fprintf(
		    stderr,
		    "%s: peer %d: no desync bundle: the state before frame %u is no longer kept "
		    "(%d frames are)\n",
		    ND_PROG, p->self, d, ND_HISTORY);
		return false;
	}
	return true;
}

/* The bundle's header: it starts from the portable snapshot start[0..len) of the state after
 * frame first (= D-1, or 0 when D is 0), and its 'P' chunk holds every peer's hashes from
 * first on (up to the sync point). */
static void bundle_header(const peer *p, uint32_t first, const uint8_t *start, size_t len,
                          f2r_header *h)
{
	const nd_session *s = &p->s;
	uint32_t d = s->desync_frame, end = p->sync;
	f2r_header_init(h, p->world, 1);
	h->start_kind = F2R_START_SNAPSHOT;
	snprintf(h->scene, sizeof h->scene, "desync-peer%d-frame%u", p->self, d);
	h->start = start;
	h->start_len = len;
	h->has_bundle = true;
	f2r_bundle *b = &h->bundle;
	b->peer = (uint8_t)p->self;
	b->peer_count = (uint8_t)p->npeers;
	b->desync_peer = (uint8_t)s->desync_peer;
	b->first_frame = d;
	b->desync_frame = d;
	for (int q = 0; q < p->npeers; ++q) {
		uint32_t have = s->hash_count[q] < end ? s->hash_count[q] : end;
		b->peers[q].first = first;
		b->peers[q].count = have > first ? have - first : 0;
		b->peers[q].hash = s->hashes[q] + first;
	}
}

/* The bundle's frames D .. sync-1 into the open writer w: each frame's commands and our hash,
 * its traced step, and the keyframe of our world after it, which must hash to our hash of
 * the frame. *buf (of capacity *cap) is the snapshot buffer, grown as needed. */
static bool write_bundle_frames(peer *p, f2r_writer *w, f2r_frame *fr, uint8_t **buf, size_t *cap)
{
	const nd_session *s = &p->s;
	uint32_t d = s->desync_frame, end = p->sync;
	bool ok = true;
	for (uint32_t f = d; ok && f < end; ++f) {
		int k = (int)(f % ND_HISTORY);
		fr->index = f - d;
		fr->count = p->hist_ncmds[k];
		memcpy(fr->commands, p->hist_cmds[k], sizeof(f2d_command) * (size_t)fr->count);
		fr->has_hash = true;
		fr->hash = s->hashes[p->self][f];
		ok = f2r_write_frame(w, fr) &&
		     f2r_write_trace(w, f - d, p->hist_entering[k], &p->hist_trace[k]);
		/* the keyframe: our world after frame f, which must hash to our hash of f */
		size_t len = ok ? portable_state(p, f + 1, buf, cap) : 0;
		ok = len > 0 && f2d_world_hash(p->world) == fr->hash &&
		     f2r_write_keyframe(w, f - d, *buf, len);
	}
	return ok;
}

/* The desync bundle (README, "Desync bundles"): DIR/desync-peer<i>-frame<D>.f2r, a replay
 * (replay/f2r.h) that starts from the portable snapshot of the state after frame D-1 (the
 * last frame whose hashes agree: every hash we hold for frames before D is ours), then every
 * frame we confirmed from D on with its commands, our hash, the hash entering the step and
 * the step as we traced it (f2d_world_step_traced), the portable snapshot of our world after
 * it (a keyframe), and in its 'P' chunk every peer's hashes for frames D-1 .. as we hold
 * them. Called after the game: the world is ours to use. Returns false (with a message) when
 * no bundle could be written. */
static bool write_bundle(peer *p)
{
	if (!bundle_possible(p)) {
		return false;
	}
	uint32_t d = p->s.desync_frame, end = p->sync;
	char path[4096];
	const char *dir = p->o->bundle_dir != NULL ? p->o->bundle_dir : ".";
	snprintf(path, sizeof path, "%s/desync-peer%d-frame%u.f2r", dir, p->self, d);
	uint8_t *buf = NULL;
	size_t cap = 0, len = portable_state(p, d, &buf, &cap);
	bool ok = len > 0 && (d == 0 || f2d_world_hash(p->world) == p->s.hashes[p->self][d - 1]);
	uint64_t start_hash = f2d_world_hash(p->world);
	uint32_t first = d > 0 ? d - 1 : 0;
	f2r_header h;
	bundle_header(p, first, buf, len, &h);
	f2r_writer w;
	f2r_frame *fr = calloc(1, sizeof *fr);
	ok = ok && fr != NULL && f2r_open_write(&w, path, &h);
	bool opened = ok;
	ok = ok && write_bundle_frames(p, &w, fr, &buf, &cap);
	if (opened && !f2r_close_write(&w)) {
		ok = false;
	}
	free(fr);
	free(buf);
	if (!ok) {
		fprintf(stderr, "%s: peer %d: cannot write the desync bundle %s\n", ND_PROG,
		        p->self, path);
		return false;
	}
	fprintf(stderr,
	        "%s: peer %d: desync bundle %s: frames %u..%u from the state after frame %u "
	        "(hash %016" PRIx64 ")\n",
	        ND_PROG, p->self, path, d, end - 1, first, start_hash);
	return true;
}

static void send_all(peer *p, uint64_t now, uint64_t *last_send, int urgency, uint8_t flags)
{
	uint8_t buf[ND_MAX_PACKET];
	for (int q = 0; q < p->npeers; ++q) {
		if (q == p->self) {
			continue;
		}
		uint64_t gap = urgency == 2 ? 0 : urgency == 1 ? 1000 : 5000;
		if (now - last_send[q] < gap) {
			continue;
		}
		size_t n = nd_session_build(&p->s, q, p->cur, flags, (uint32_t)(now / 1000), buf,
		                            sizeof buf);
		if (n > 0) {
			nd_link_send(&p->link, &p->addrs[q], buf, n, now);
		}
		last_send[q] = now;
	}
}

/* The run's loop state (nd_peer_run). */
typedef struct run_state {
	uint64_t last_send[ND_MAX_PEERS];
	uint64_t next_tick, ended_at, deadline;
	bool ending, reported_desync, stalled, syncing;
	int status;
} run_state;

static void peer_reset(peer *p, const nd_options *o, const struct sockaddr_in *addrs, int npeers,
                       int self, nd_result *res)
{
	memset(p, 0, sizeof *p);
	memset(res, 0, sizeof *res);
	res->status = ND_EXIT_ERROR;
	res->desync_frame = ND_NO_FRAME;
	res->desync_peer = -1;
	res->lost_peer = -1;
	p->o = o;
	p->self = self;
	p->npeers = npeers;
	p->addrs = addrs;
	p->res = res;
}

/* The scene, the session, the link and the snapshot ring; false (said) when one cannot be
 * made. */
static bool peer_open(peer *p, int fd, uint32_t token)
{
	const nd_options *o = p->o;
	if (f2d_scene_create(ND_SCENE, NULL, &p->world) != F2D_OK ||
	    !nd_game_players(p->world, p->players)) {
		fprintf(stderr, "%s: cannot build the scene '%s'\n", ND_PROG, ND_SCENE);
		return false;
	}
	if (!nd_session_init(&p->s, p->npeers, p->self, token, o->frames, o->delay, &o->key) ||
	    !nd_link_init(&p->link, fd, &o->imp, (uint64_t)p->self)) {
		fprintf(stderr, "%s: out of memory\n", ND_PROG);
		return false;
	}
	size_t cap = 4 * f2d_snapshot_size(p->world) + 65536;
	for (int k = 0; k < ND_RING; ++k) {
		p->snap[k] = malloc(cap);
		p->snap_cap[k] = cap;
		if (p->snap[k] == NULL) {
			fprintf(stderr, "%s: out of memory\n", ND_PROG);
			return false;
		}
	}
	nd_script_init(&p->script, o->seed, p->self);
	nd_game_init(&p->game);
	p->confirmed_game = p->game;
	return true;
}

static void receive_all(peer *p, uint64_t now)
{
	uint8_t buf[ND_MAX_PACKET + 64];
	struct sockaddr_in from;
	long n;
	while ((n = nd_link_recv(&p->link, buf, sizeof buf, &from)) >= 0) {
		nd_session_receive(&p->s, peer_of(p, &from), buf, (size_t)n, now / 1000);
	}
}

/* the first desync the session found: said once, and the run ends */
static void note_desync(peer *p, run_state *rs, uint64_t now)
{
	if (p->s.desync_frame == ND_NO_FRAME || rs->reported_desync) {
		return;
	}
	rs->reported_desync = true;
	fprintf(stderr,
	        "%s: peer %d: DESYNC at frame %u: our %s %016" PRIx64 ", peer %d has %016" PRIx64
	        "\n",
	        ND_PROG, p->self, p->s.desync_frame,
	        p->s.desync_game ? "game state (same world hash)" : "hash", p->s.desync_local,
	        p->s.desync_peer, p->s.desync_remote);
	rs->status = ND_EXIT_DESYNC;
	if (!rs->ending) {
		rs->ending = true;
		rs->ended_at = now;
	}
}

/* confirms the frames whose inputs are all known; returns that count */
static uint32_t confirm_known(peer *p)
{
	uint32_t known = nd_session_known(&p->s);
	confirm(p, known < p->cur ? known : p->cur);
	return known;
}

/* whether a new frame may be simulated now: the rollback window, time sync (counting the
 * stalls and waits) and, in real time, the frame clock */
static bool may_advance(peer *p, run_state *rs, uint64_t now, uint32_t known)
{
	const nd_options *o = p->o;
	nd_result *res = p->res;
	bool may = p->cur < o->frames && p->cur < known + ND_WINDOW;
	bool window_full = p->cur < o->frames && !may;
	res->stalls += window_full && !rs->stalled; /* times the window stopped us */
	rs->stalled = window_full;
	bool sync_wait = may && timesync_wait(p) >= 2;
	if (sync_wait) {
		may = false;
		if (o->realtime && now >= rs->next_tick) {
			rs->next_tick += ND_FRAME_US; /* skip one tick */
			res->timesync_waits++;
		}
	}
	res->timesync_waits += !o->realtime && sync_wait && !rs->syncing;
	rs->syncing = sync_wait;
	return may && !(o->realtime && now < rs->next_tick);
}

/* one new frame: our input, the step, its snapshot; false when the snapshot fails */
static bool advance(peer *p, run_state *rs, uint64_t now)
{
	const nd_options *o = p->o;
	if (o->kill_frame >= 0 && (int64_t)p->cur == o->kill_frame) {
		fflush(NULL);
		raise(SIGKILL); /* test only: vanish without a word */
	}
	nd_session_add_local_input(&p->s, nd_script_next(&p->script));
	simulate(p, p->cur);
	p->cur++;
	if (!save_snapshot(p, p->cur)) {
		return false;
	}
	if (o->realtime) {
		rs->next_tick += ND_FRAME_US;
		if (rs->next_tick + 4 * ND_FRAME_US < now) {
			rs->next_tick = now; /* far behind: do not sprint */
		}
	}
	confirm_known(p);
	return true;
}

/* the work of a frame (its rollbacks included) into the frame time statistics */
static void account_work(peer *p, uint64_t t0, bool worked, bool advanced)
{
	if (worked) {
		p->work_us += nd_now_us() - t0;
	}
	if (advanced) {
		p->frame_samples++;
		p->total_frame_us += p->work_us;
		p->max_frame_us = p->work_us > p->max_frame_us ? p->work_us : p->max_frame_us;
		p->work_us = 0;
	}
}

/* One turn of the game: a rollback when an input differed, confirmation, a new frame when
 * allowed (*advanced), the end when everything is exchanged. false on an error. */
static bool play(peer *p, run_state *rs, uint64_t now, bool *advanced)
{
	uint64_t t0 = nd_now_us();
	bool worked = false;
	if (p->s.first_wrong < p->cur) {
		if (!rollback(p)) {
			rs->status = ND_EXIT_ERROR;
			return false;
		}
		worked = true;
	}
	p->s.first_wrong = ND_NO_FRAME;
	uint32_t known = confirm_known(p);
	if (may_advance(p, rs, now, known)) {
		if (!advance(p, rs, now)) {
			rs->status = ND_EXIT_ERROR;
			return false;
		}
		*advanced = worked = true;
	}
	account_work(p, t0, worked, *advanced);
	if (everything_exchanged(p)) {
		rs->ending = true;
		rs->ended_at = now;
	}
	return true;
}

static uint8_t send_flags(const run_state *rs)
{
	uint8_t flags = 0;
	if (rs->ending && rs->status == ND_EXIT_OK) {
		flags |= ND_FLAG_DONE;
	}
	if (rs->status == ND_EXIT_DESYNC) {
		flags |= ND_FLAG_DESYNC;
	}
	return flags;
}

/* the end: everyone done (or told of the desync), or the linger is over */
static bool all_finished(const peer *p, const run_state *rs, uint64_t now)
{
	bool all = true;
	for (int q = 0; q < p->npeers; ++q) {
		const nd_remote *r = &p->s.remote[q];
		if (q != p->self && !r->done && !r->desync) {
			all = false;
		}
	}
	return (all && rs->status != ND_EXIT_DESYNC) || now - rs->ended_at > LINGER_US ||
	       (rs->status == ND_EXIT_DESYNC && all && now - rs->ended_at > 200000);
}

/* a peer that disappeared (nothing heard for the timeout): said, and the run ends */
static bool peer_lost(peer *p, run_state *rs, uint64_t now)
{
	const nd_options *o = p->o;
	int lost = -1;
	for (int q = 0; q < p->npeers && lost < 0; ++q) {
		const nd_remote *r = &p->s.remote[q];
		if (q != p->self && !r->done && now / 1000 - r->last_heard_ms > o->timeout_ms) {
			lost = q;
		}
	}
	if (lost < 0) {
		return false;
	}
	fprintf(stderr,
	        "%s: peer %d: peer %d lost: nothing heard for %u ms (at frame %u, %u confirmed)\n",
	        ND_PROG, p->self, lost, o->timeout_ms, p->cur, p->sync);
	p->res->lost_peer = lost;
	rs->status = ND_EXIT_LOST;
	return true;
}

/* Until the end, a desync reported to all, a lost peer, an error or the deadline. */
static void run_loop(peer *p, run_state *rs, int fd)
{
	for (;;) {
		uint64_t now = nd_now_us();
		nd_link_flush(&p->link, now);
		receive_all(p, now);
		note_desync(p, rs, now);
		bool advanced = false;
		if (!rs->ending && !play(p, rs, now, &advanced)) {
			break;
		}
		uint8_t flags = send_flags(rs);
		send_all(p, now, rs->last_send, advanced ? 1 : 0, flags);
		if (rs->ending && all_finished(p, rs, now)) {
			send_all(p, now, rs->last_send, 2, flags); /* a last word, at once */
			nd_link_flush(&p->link, UINT64_MAX);
			break;
		}
		if (!rs->ending && peer_lost(p, rs, now)) {
			break;
		}
		if (now > rs->deadline) {
			fprintf(stderr,
			        "%s: peer %d: gave up after %u s (frame %u, %u confirmed)\n",
			        ND_PROG, p->self, p->o->max_seconds, p->cur, p->sync);
			rs->status = ND_EXIT_ERROR;
			break;
		}
		if (!advanced) { /* wait for a datagram, at most 1 ms */
			struct pollfd pfd = {fd, POLLIN, 0};
			poll(&pfd, 1, nd_link_next_due(&p->link, nd_now_us()) == 0 ? 0 : 1);
		}
	}
}

/* the result: status, frames, hashes, score, timing, link and parser counts */
static void peer_report(const peer *p, int status, uint64_t start)
{
	nd_result *res = p->res;
	res->status = status;
	res->frames = p->cur;
	res->confirmed = p->sync;
	res->hash = p->sync > 0 ? p->s.hashes[p->self][p->sync - 1] : f2d_world_hash(p->world);
	for (int t = 0; t < ND_TEAMS; ++t) {
		res->score[t] = p->confirmed_game.score[t];
	}
	res->taken = p->confirmed_game.taken;
	res->game_digest = nd_game_digest(&p->confirmed_game);
	res->desync_frame = p->s.desync_frame;
	res->desync_peer = p->s.desync_peer;
	res->mean_ms = p->frame_samples > 0
	                   ? (double)p->total_frame_us / (double)p->frame_samples / 1000.0
	                   : 0.0;
	res->max_ms = (double)p->max_frame_us / 1000.0;
	res->wall_s = (double)(nd_now_us() - start) / 1e6;
	res->sent = p->link.sent;
	res->received = p->link.received;
	res->impair_dropped = p->link.impair_dropped;
	res->impair_duplicated = p->link.impair_duplicated;
	res->impair_reordered = p->link.impair_reordered;
	for (int d = 0; d < ND_DROP_COUNT; ++d) {
		res->drops[d] = p->s.drops[d];
		res->parse_drops += p->s.drops[d];
	}
	for (int q = 0; q < p->npeers; ++q) {
		res->dup_seen += p->s.remote[q].duplicates;
		res->reorder_seen += p->s.remote[q].out_of_order;
	}
}

static void peer_free(peer *p)
{
	for (int k = 0; k < ND_RING; ++k) {
		free(p->snap[k]);
	}
	for (int k = 0; k < ND_HISTORY; ++k) {
		free(p->hist[k]);
	}
	free(p->rframe);
	nd_link_free(&p->link);
	nd_session_free(&p->s);
	f2d_destroy_world(p->world);
}

int nd_peer_run(const nd_options *o, int fd, const struct sockaddr_in *addrs, int npeers, int self,
                uint32_t token, nd_result *res)
{
	static peer pp;
	peer *p = &pp;
	peer_reset(p, o, addrs, npeers, self, res);
	uint64_t start = nd_now_us();
	if (!peer_open(p, fd, token)) {
		return ND_EXIT_ERROR;
	}
	bool ok = open_replay(p);
	if (ok && (!save_snapshot(p, 0) || !keep_state(p, 0))) {
		ok = false;
	}
	run_state rs;
	memset(&rs, 0, sizeof rs);
	rs.next_tick = start;
	rs.deadline = start + (uint64_t)o->max_seconds * 1000000u;
	rs.status = ND_EXIT_OK;
	for (int q = 0; q < npeers; ++q) {
		p->s.remote[q].last_heard_ms = start / 1000;
	}
	if (ok) {
		run_loop(p, &rs, fd);
	}
	int status = ok ? rs.status : ND_EXIT_ERROR;
	if (p->recording && !f2r_close_write(&p->replay)) {
		fprintf(stderr, "%s: peer %d: error closing the replay\n", ND_PROG, self);
	}
	if (p->s.desync_frame != ND_NO_FRAME) {
		write_bundle(p); /* last: it restores old states into the world */
	}
	peer_report(p, status, start);
	peer_free(p);
	return status;
}
