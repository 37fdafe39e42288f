/* fix2d-netdemo: rollback multiplayer over UDP on fix2d. Public fix2d API only.
 * SPDX-License-Identifier: MIT
 *
 *   fix2d-netdemo --peers N --frames F [--loss P] [--latency MS] [--jitter MS] [--dup P]
 *                 [--reorder P] [--seed S] [--record DIR] [--delay D] [--realtime]
 *   fix2d-netdemo --listen PORT [--join-code CODE] [options]   one peer per terminal: the
 *   fix2d-netdemo --connect HOST:PORT --join-code CODE [options]  host (peer 0), the guest (1)
 * The first form starts N peer processes (fork/exec) on 127.0.0.1 with scripted, seeded
 * player inputs, collects what they report and ends with `in sync: ...` (exit 0),
 * `DESYNC at frame <f>` (exit 1) or `PEER LOST: ...` (exit 3). Usage errors exit 2.
 * Every packet is authenticated with a key derived from a join code (auth.h): the host prints
 * the code (or takes one), the guest must give it; the launcher makes one for its peers.
 */
#define _POSIX_C_SOURCE 200809L
#include "netdemo.h"

#include "auth.h"
#include "packet.h"
#include "session.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: " ND_PROG " --peers N --frames F [options]     N peer processes on 127.0.0.1\n"
    "       " ND_PROG " --listen PORT [options]            one peer per terminal: host\n"
    "       " ND_PROG " --connect HOST:PORT --join-code CODE [options]\n"
    "                                                     and guest (HOST: IPv4 or localhost)\n"
    "options:\n"
    "  --peers N          2..4 (default 2)          --frames F      1..1000000 (default 600)\n"
    "  --loss P           % of datagrams dropped    --dup P         % sent twice\n"
    "  --latency MS       one-way delay             --jitter MS     +- uniform on the delay\n"
    "  --reorder P        % held back 20..60 ms     --seed S        inputs and impairment\n"
    "  --delay D          input delay, 0..8 frames (default 2)\n"
    "  --record DIR       each peer writes DIR/peer<i>.f2r (check: fix2d-replay verify/diff)\n"
    "  --bundle-dir DIR   on a desync each peer writes DIR/desync-peer<i>-frame<f>.f2r\n"
    "                     (default: the current directory; explain: fix2d-replay diff A B)\n"
    "  --realtime         60 frames a second (default: as fast as the netcode allows)\n"
    "  --timeout MS       a peer silent this long is lost (default 3000)\n"
    "  --max-seconds S    give up after S seconds (default 300)\n"
    "  --join-code CODE   the game's join code: the host prints a new one unless given one,\n"
    "                     the guest must give it (or set $" ND_CODE_ENV ")\n"
    "test only:\n"
    "  --test-perturb-frame K [--test-perturb-peer P]  nudge one body by 1 LSB at frame K\n"
    "  --test-kill-frame K [--test-kill-peer P]        the peer kills itself (SIGKILL) at K\n"
    "(P defaults to the last peer)\n";

static int usage(const char *msg, const char *detail)
{
	fprintf(stderr, "%s: %s%s%s\n%s", ND_PROG, msg, detail ? ": " : "", detail ? detail : "",
	        usage_text);
	return ND_EXIT_USAGE;
}

static bool parse_u64(const char *t, uint64_t max, uint64_t *out)
{
	if (t == NULL || *t < '0' || *t > '9') {
		return false;
	}
	uint64_t v = 0;
	for (; *t >= '0' && *t <= '9'; ++t) {
		uint64_t digit = (uint64_t)(*t - '0');
		if (v > max / 10 || (v == max / 10 && digit > max % 10)) {
			return false; /* above max */
		}
		v = v * 10 + digit;
	}
	*out = v;
	return *t == '\0';
}

static bool parse_host_port(const char *t, struct sockaddr_in *a)
{
	const char *colon = strrchr(t, ':');
	uint64_t port;
	if (colon == NULL || colon == t || !parse_u64(colon + 1, 65535, &port) || port == 0) {
		return false;
	}
	char host[64];
	size_t n = (size_t)(colon - t);
	if (n >= sizeof host) {
		return false;
	}
	memcpy(host, t, n);
	host[n] = '\0';
	memset(a, 0, sizeof *a);
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)port);
	if (strcmp(host, "localhost") == 0) {
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return true;
	}
	return inet_pton(AF_INET, host, &a->sin_addr) == 1;
}

/* ---- options ---- */

typedef struct cli {
	nd_options o;
	bool child, listen;
	const char *ports_text;
} cli;

/* Option parsers of one group each: ND_NOT_MINE when `a` is not theirs, -1 when it was taken
 * with its value v, else the exit status (the message printed). */
#define ND_NOT_MINE (-2)
#define NEED_VALUE()                                                                               \
	do {                                                                                       \
		if (v == NULL) {                                                                   \
			return usage("missing value for", a);                                      \
		}                                                                                  \
	} while (0)

/* An option that takes a whole number in lo..hi (else the message `want`), stored into the
 * one field given, of its type. */
typedef struct count_opt {
	const char *name;
	uint64_t lo, hi;
	const char *want;
	int *i;
	uint16_t *u16;
	uint32_t *u32;
	uint64_t *u64;
	int64_t *i64;
} count_opt;

static void store_count(const count_opt *k, uint64_t x)
{
	if (k->i != NULL) {
		*k->i = (int)x;
	} else if (k->u16 != NULL) {
		*k->u16 = (uint16_t)x;
	} else if (k->u32 != NULL) {
		*k->u32 = (uint32_t)x;
	} else if (k->u64 != NULL) {
		*k->u64 = x;
	} else {
		*k->i64 = (int64_t)x;
	}
}

/* The options that take a whole number. */
static int count_option(cli *c, const char *a, const char *v)
{
	nd_options *o = &c->o;
	const count_opt opts[] = {
	    {"--peers", 2, 4, "--peers wants 2..4, got", .i = &o->peers},
	    {"--frames", 1, ND_MAX_FRAMES, "--frames wants 1..1000000, got", .u32 = &o->frames},
	    {"--delay", 0, 8, "--delay wants 0..8 frames, got", .u32 = &o->delay},
	    {"--seed", 0, UINT64_MAX, "--seed wants a decimal number, got", .u64 = &o->seed},
	    {"--timeout", 100, 600000, "--timeout wants 100..600000 ms, got",
	     .u32 = &o->timeout_ms},
	    {"--max-seconds", 1, 86400, "--max-seconds wants 1..86400, got",
	     .u32 = &o->max_seconds},
	    {"--listen", 1, 65535, "--listen wants a port, got", .u16 = &o->listen_port},
	    {"--test-perturb-frame", 0, ND_MAX_FRAMES, "a frame number wanted, got",
	     .i64 = &o->perturb_frame},
	    {"--test-kill-frame", 0, ND_MAX_FRAMES, "a frame number wanted, got",
	     .i64 = &o->kill_frame},
	    {"--test-perturb-peer", 0, ND_MAX_PEERS - 1, "a peer index wanted, got",
	     .i = &o->perturb_peer},
	    {"--test-kill-peer", 0, ND_MAX_PEERS - 1, "a peer index wanted, got",
	     .i = &o->kill_peer},
	    /* internal: launched peers */
	    {"--peer-index", 0, ND_MAX_PEERS - 1, "bad --peer-index", .i = &o->index},
	    {"--fd", 0, 65535, "bad --fd", .i = &o->fd},
	    {"--token", 0, UINT32_MAX, "bad --token", .u32 = &o->token},
	};
	for (size_t k = 0; k < sizeof opts / sizeof opts[0]; ++k) {
		if (strcmp(a, opts[k].name) != 0) {
			continue;
		}
		NEED_VALUE();
		uint64_t x = 0;
		if (!parse_u64(v, opts[k].hi, &x) || x < opts[k].lo) {
			return usage(opts[k].want, v);
		}
		store_count(&opts[k], x);
		if (opts[k].u16 == &o->listen_port) {
			c->listen = true; /* one peer per terminal: the host */
		}
		if (opts[k].i == &o->index) {
			c->child = true; /* a launched peer */
		}
		return -1;
	}
	return ND_NOT_MINE;
}

/* --loss, --dup, --reorder (percentages), --latency, --jitter (milliseconds). */
static int impairment_option(nd_options *o, const char *a, const char *v)
{
	if (strcmp(a, "--loss") == 0 || strcmp(a, "--dup") == 0 || strcmp(a, "--reorder") == 0) {
		NEED_VALUE();
		uint32_t ppm = 0;
		if (!nd_parse_percent(v, &ppm)) {
			return usage("a percentage in [0, 100] wanted, got", v);
		}
		if (a[2] == 'l') {
			if (ppm >= 1000000) {
				return usage("--loss must be below 100", v);
			}
			o->imp.loss_ppm = ppm;
		} else if (a[2] == 'd') {
			o->imp.dup_ppm = ppm;
		} else {
			o->imp.reorder_ppm = ppm;
		}
	} else if (strcmp(a, "--latency") == 0 || strcmp(a, "--jitter") == 0) {
		NEED_VALUE();
		uint64_t x = 0;
		if (!parse_u64(v, 10000, &x)) {
			return usage("milliseconds in [0, 10000] wanted, got", v);
		}
		if (a[2] == 'l') {
			o->imp.latency_us = (uint32_t)x * 1000;
		} else {
			o->imp.jitter_us = (uint32_t)x * 1000;
		}
	} else {
		return ND_NOT_MINE;
	}
	return -1;
}

/* --record, --bundle-dir, --join-code, --connect and the internal --ports. */
static int text_option(cli *c, const char *a, const char *v)
{
	nd_options *o = &c->o;
	if (strcmp(a, "--record") == 0) {
		NEED_VALUE();
		o->record_dir = v;
	} else if (strcmp(a, "--bundle-dir") == 0) {
		NEED_VALUE();
		o->bundle_dir = v;
	} else if (strcmp(a, "--join-code") == 0) {
		NEED_VALUE();
		if (!nd_code_parse(v, o->code)) {
			return usage("--join-code wants 24 base32 letters "
			             "(XXXX-XXXX-XXXX-XXXX-XXXX-XXXX), got",
			             v);
		}
		o->have_code = true;
	} else if (strcmp(a, "--connect") == 0) {
		NEED_VALUE();
		if (!parse_host_port(v, &o->connect_to)) {
			return usage("--connect wants HOST:PORT (IPv4 or localhost), got", v);
		}
		o->connect = true;
	} else if (strcmp(a, "--ports") == 0) {
		NEED_VALUE();
		c->ports_text = v;
	} else {
		return ND_NOT_MINE;
	}
	return -1;
}
#undef NEED_VALUE

/* One option (with its value) of argv: -1 taken, else the exit status. */
static int parse_option(cli *c, const char *a, const char *v)
{
	int r = count_option(c, a, v);
	if (r == ND_NOT_MINE) {
		r = impairment_option(&c->o, a, v);
	}
	if (r == ND_NOT_MINE) {
		r = text_option(c, a, v);
	}
	return r == ND_NOT_MINE ? usage("unknown option", a) : r;
}

/* The options that exclude or need each other, the join code from the environment, the
 * directories made (by the launcher or the one peer), the test peers defaulted. -1 when all
 * is well, else the exit status. */
static int check_args(cli *c)
{
	nd_options *o = &c->o;
	if (c->listen && o->connect) {
		return usage("--listen and --connect exclude each other", NULL);
	}
	const char *env_code = getenv(ND_CODE_ENV);
	if (!o->have_code && env_code != NULL && env_code[0] != '\0') {
		if (!nd_code_parse(env_code, o->code)) {
			return usage("$" ND_CODE_ENV " is not a join code", NULL);
		}
		o->have_code = true;
	}
	if (o->connect && !o->have_code) {
		return usage("--connect needs --join-code CODE (the host prints it)", NULL);
	}
	if (c->child && !o->have_code) {
		return usage("a launched peer needs the join code", NULL);
	}
	if ((c->listen || o->connect) && o->peers != 2) {
		return usage("--listen / --connect play with 2 peers", NULL);
	}
	const char *dirs[2] = {o->record_dir, o->bundle_dir};
	for (int k = 0; k < 2; ++k) {
		if (dirs[k] != NULL && !c->child && mkdir(dirs[k], 0777) != 0 && errno != EEXIST) {
			fprintf(stderr, "%s: cannot create %s: %s\n", ND_PROG, dirs[k],
			        strerror(errno));
			return ND_EXIT_ERROR;
		}
	}
	if (o->perturb_peer >= o->peers || o->kill_peer >= o->peers) {
		return usage("a --test-*-peer index is not below --peers", NULL);
	}
	if (o->perturb_frame >= (int64_t)o->frames || o->kill_frame >= (int64_t)o->frames) {
		return usage("a --test-*-frame is not below --frames", NULL);
	}
	if (o->perturb_peer < 0) {
		o->perturb_peer = o->peers - 1;
	}
	if (o->kill_peer < 0) {
		o->kill_peer = o->peers - 1;
	}
	return -1;
}

static int parse_args(int argc, char **argv, cli *c)
{
	nd_options *o = &c->o;
	memset(c, 0, sizeof *c);
	o->peers = 2;
	o->frames = 600;
	o->delay = 2;
	o->timeout_ms = 3000;
	o->max_seconds = 300;
	o->perturb_frame = -1;
	o->kill_frame = -1;
	o->perturb_peer = -1;
	o->kill_peer = -1;
	o->index = -1;
	o->fd = -1;
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage_text, stdout);
			exit(0);
		} else if (strcmp(a, "--realtime") == 0) {
			o->realtime = true;
			continue;
		}
		int r = parse_option(c, a, v);
		if (r >= 0) {
			return r;
		}
		++i; /* its value */
	}
	return check_args(c);
}

/* ---- reporting ---- */

static void print_result(int i, const nd_result *r)
{
	double game_s = (double)r->frames / 60.0;
	printf("peer %d: frames %u, rollbacks %" PRIu64 " (%.1f/s), max rollback depth %u, frame "
	       "time mean %.3f ms max %.3f ms, confirmed hash %016" PRIx64 "\n",
	       i, r->frames, r->rollbacks, game_s > 0 ? (double)r->rollbacks / game_s : 0.0,
	       r->max_depth, r->mean_ms, r->max_ms, r->hash);
	printf(
	    "  net: %" PRIu64 " sent, %" PRIu64 " received; impaired: %" PRIu64 " dropped, %" PRIu64
	    " duplicated, %" PRIu64 " reordered; seen: %" PRIu64 " duplicates, %" PRIu64
	    " out of order, %" PRIu64 " refused; %" PRIu64 " frames resimulated, %" PRIu64
	    " window stalls, %" PRIu64 " time-sync waits; %.2f s, "
	    "%.1f rollbacks/s of wall time\n",
	    r->sent, r->received, r->impair_dropped, r->impair_duplicated, r->impair_reordered,
	    r->dup_seen, r->reorder_seen, r->parse_drops, r->resimulated, r->stalls,
	    r->timesync_waits, r->wall_s, r->wall_s > 0 ? (double)r->rollbacks / r->wall_s : 0.0);
	printf("  refused by reason:");
	bool any = false;
	for (int d = 0; d < ND_DROP_COUNT; ++d) {
		if (r->drops[d] > 0) {
			printf("%s %s %" PRIu64, any ? "," : "", nd_drop_name((nd_drop)d),
			       r->drops[d]);
			any = true;
		}
	}
	printf("%s\n", any ? "" : " none");
	printf("  game: score team 0 %d, team 1 %d; %u coins taken; game state %016" PRIx64 "\n",
	       r->score[0], r->score[1], r->taken, r->game_digest);
}

static void write_result_line(int i, const nd_result *r)
{
	printf("RESULT %d %d %u %u %" PRIu64 " %" PRIu64 " %u %.4f %.4f %.3f %016" PRIx64
	       " %u %d %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
	       " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %d %d %u %016" PRIx64 "\n",
	       i, r->status, r->frames, r->confirmed, r->rollbacks, r->resimulated, r->max_depth,
	       r->mean_ms, r->max_ms, r->wall_s, r->hash, r->desync_frame, r->desync_peer,
	       r->lost_peer, r->stalls, r->timesync_waits, r->sent, r->received, r->impair_dropped,
	       r->impair_duplicated, r->impair_reordered, r->parse_drops, r->dup_seen,
	       r->reorder_seen, r->score[0], r->score[1], r->taken, r->game_digest);
	printf("DROPS %d", i);
	for (int d = 0; d < ND_DROP_COUNT; ++d) {
		printf(" %" PRIu64, r->drops[d]);
	}
	printf("\n");
	fflush(stdout);
}

static bool read_result_line(const char *line, int *i, nd_result *r)
{
	memset(r, 0, sizeof *r);
	int n = sscanf(
	    line,
	    "RESULT %d %d %u %u %" SCNu64 " %" SCNu64 " %u %lf %lf %lf %" SCNx64
	    " %u %d %d %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
	    " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %d %d %u %" SCNx64,
	    i, &r->status, &r->frames, &r->confirmed, &r->rollbacks, &r->resimulated, &r->max_depth,
	    &r->mean_ms, &r->max_ms, &r->wall_s, &r->hash, &r->desync_frame, &r->desync_peer,
	    &r->lost_peer, &r->stalls, &r->timesync_waits, &r->sent, &r->received,
	    &r->impair_dropped, &r->impair_duplicated, &r->impair_reordered, &r->parse_drops,
	    &r->dup_seen, &r->reorder_seen, &r->score[0], &r->score[1], &r->taken, &r->game_digest);
	if (n != 28) {
		return false;
	}
	/* then "DROPS <i> <count per reason>" */
	const char *d = strstr(line, "\nDROPS ");
	int j = -1, used = 0;
	if (d == NULL || sscanf(d + 1, "DROPS %d%n", &j, &used) != 1 || j != *i) {
		return false;
	}
	d += 1 + used;
	uint64_t total = 0;
	for (int k = 0; k < ND_DROP_COUNT; ++k) {
		char *end = NULL;
		r->drops[k] = strtoull(d, &end, 10);
		if (end == d) {
			return false;
		}
		total += r->drops[k];
		d = end;
	}
	return total == r->parse_drops;
}

/* ---- one launched peer ---- */

static int run_child(cli *c)
{
	nd_options o = c->o;
	nd_key_derive(o.code, &o.key);
	sodium_memzero(o.code, sizeof o.code);
	struct sockaddr_in addrs[ND_MAX_PEERS];
	memset(addrs, 0, sizeof addrs);
	const char *t = c->ports_text;
	for (int q = 0; q < o.peers; ++q) {
		char *end = NULL;
		unsigned long port = t != NULL ? strtoul(t, &end, 10) : 0;
		if (t == NULL || end == t || port == 0 || port > 65535 ||
		    (*end != ',' && *end != '\0')) {
			return usage("bad --ports", c->ports_text);
		}
		addrs[q].sin_family = AF_INET;
		addrs[q].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		addrs[q].sin_port = htons((uint16_t)port);
		t = *end == ',' ? end + 1 : NULL;
	}
	if (o.fd < 0 || o.index >= o.peers) {
		return usage("a launched peer needs --fd and a --peer-index below --peers", NULL);
	}
	if (o.perturb_peer != o.index) {
		o.perturb_frame = -1;
	}
	if (o.kill_peer != o.index) {
		o.kill_frame = -1;
	}
	nd_result r;
	int status = nd_peer_run(&o, o.fd, addrs, o.peers, o.index, o.token, &r);
	nd_key_wipe(&o.key);
	write_result_line(o.index, &r);
	return status;
}

/* ---- the launcher ---- */

/* The launcher's peers: their sockets, processes and output pipes, and what they wrote. */
typedef struct peer_procs {
	int n;
	int fds[ND_MAX_PEERS], out[ND_MAX_PEERS];
	uint16_t ports[ND_MAX_PEERS];
	pid_t pids[ND_MAX_PEERS];
	int wst[ND_MAX_PEERS]; /* each one's wait status */
	char (*text)[8192];    /* each one's output (NUL-terminated once collected) */
	size_t used[ND_MAX_PEERS];
} peer_procs;

/* What every launched peer is told: the program, the ports, the session token and the join
 * code (through the environment). */
typedef struct peer_args {
	char exe[4096];
	char ports_text[64], token_text[16];
	char code_text[ND_CODE_TEXT];
} peer_args;

/* The path of this program (for exec), the peers' ports, a token, and the join code: the one
 * given, else a new one. The children read the code from their environment
 * ($FIX2D_NETDEMO_JOIN_CODE), which other users cannot read (ps shows every user the
 * command line). */
static void make_peer_args(const nd_options *o, const peer_procs *p, const char *argv0,
                           peer_args *pa)
{
	ssize_t len = readlink("/proc/self/exe", pa->exe, sizeof pa->exe - 1);
	if (len <= 0) {
		snprintf(pa->exe, sizeof pa->exe, "%s", argv0);
	} else {
		pa->exe[len] = '\0';
	}
	uint32_t token = randombytes_random() | 1u;
	uint8_t code[ND_CODE_BYTES];
	if (o->have_code) {
		memcpy(code, o->code, sizeof code);
	} else {
		nd_code_random(code);
	}
	nd_code_format(code, pa->code_text);
	sodium_memzero(code, sizeof code);
	pa->ports_text[0] = '\0';
	for (int i = 0; i < p->n; ++i) {
		size_t at = strlen(pa->ports_text);
		snprintf(pa->ports_text + at, sizeof pa->ports_text - at, "%s%u", i ? "," : "",
		         p->ports[i]);
	}
	snprintf(pa->token_text, sizeof pa->token_text, "%u", token);
}

/* In the child: peer i's command line (this one's arguments and the peer's own), exec'd. */
static void exec_peer(const peer_procs *p, peer_args *pa, int i, int argc, char **argv)
{
	char fd_text[16], index_text[16];
	fcntl(p->fds[i], F_SETFD, 0); /* this peer's socket survives exec */
	if (setenv(ND_CODE_ENV, pa->code_text, 1) != 0) {
		_exit(ND_EXIT_ERROR);
	}
	snprintf(fd_text, sizeof fd_text, "%d", p->fds[i]);
	snprintf(index_text, sizeof index_text, "%d", i);
	char **args = calloc((size_t)argc + 10, sizeof(char *));
	if (args == NULL) {
		_exit(ND_EXIT_ERROR);
	}
	int k = 0;
	args[k++] = pa->exe;
	for (int a = 1; a < argc; ++a) {
		args[k++] = argv[a];
	}
	args[k++] = "--peer-index";
	args[k++] = index_text;
	args[k++] = "--fd";
	args[k++] = fd_text;
	args[k++] = "--ports";
	args[k++] = pa->ports_text;
	args[k++] = "--token";
	args[k++] = pa->token_text;
	args[k] = NULL;
	execv(pa->exe, args);
	fprintf(stderr, "%s: cannot run %s: %s\n", ND_PROG, pa->exe, strerror(errno));
	_exit(ND_EXIT_ERROR);
}

/* The peers' sockets, then one process each with its output on a pipe. False on a failure
 * (a socket's printed). */
static bool start_peers(peer_procs *p, peer_args *pa, const nd_options *o, int argc, char **argv)
{
	for (int i = 0; i < p->n; ++i) {
		p->fds[i] = nd_udp_socket(0, &p->ports[i]);
		if (p->fds[i] < 0) {
			fprintf(stderr, "%s: cannot open a UDP socket on 127.0.0.1: %s\n", ND_PROG,
			        strerror(errno));
			return false;
		}
	}
	make_peer_args(o, p, argv[0], pa);
	fflush(NULL);
	for (int i = 0; i < p->n; ++i) {
		int pfd[2];
		if (pipe(pfd) != 0) {
			return false;
		}
		fcntl(pfd[0], F_SETFD, FD_CLOEXEC);
		p->pids[i] = fork();
		if (p->pids[i] < 0) {
			return false;
		}
		if (p->pids[i] == 0) {
			dup2(pfd[1], STDOUT_FILENO);
			close(pfd[1]);
			exec_peer(p, pa, i, argc, argv);
		}
		close(pfd[1]);
		p->out[i] = pfd[0];
	}
	sodium_memzero(pa->code_text, sizeof pa->code_text);
	for (int i = 0; i < p->n; ++i) {
		close(p->fds[i]);
	}
	return true;
}

/* Collects the peers' output (their RESULT lines) until every peer closed it (or, past the
 * deadline, kills them), then waits for each. */
static void collect_peers(peer_procs *p, uint32_t max_seconds)
{
	int n = p->n, open_count = n;
	bool open_[ND_MAX_PEERS];
	for (int i = 0; i < n; ++i) {
		open_[i] = true;
	}
	uint64_t deadline = nd_now_us() + ((uint64_t)max_seconds + 30) * 1000000u;
	while (open_count > 0) {
		struct pollfd pfds[ND_MAX_PEERS];
		for (int i = 0; i < n; ++i) {
			pfds[i].fd = open_[i] ? p->out[i] : -1;
			pfds[i].events = POLLIN;
			pfds[i].revents = 0;
		}
		if (nd_now_us() > deadline) {
			fprintf(stderr, "%s: peers still running after %u s: stopping them\n",
			        ND_PROG, max_seconds + 30);
			for (int i = 0; i < n; ++i) {
				kill(p->pids[i], SIGKILL);
			}
			break;
		}
		if (poll(pfds, (nfds_t)n, 200) < 0 && errno != EINTR) {
			break;
		}
		for (int i = 0; i < n; ++i) {
			if (!open_[i] || pfds[i].revents == 0) {
				continue;
			}
			ssize_t r = read(p->out[i], p->text[i] + p->used[i],
			                 sizeof p->text[i] - 1 - p->used[i]);
			if (r <= 0) {
				open_[i] = false;
				open_count--;
				close(p->out[i]);
			} else {
				p->used[i] += (size_t)r;
			}
		}
	}
	for (int i = 0; i < n; ++i) {
		if (open_[i]) {
			close(p->out[i]);
		}
		p->wst[i] = 0;
		while (waitpid(p->pids[i], &p->wst[i], 0) < 0 && errno == EINTR) {
		}
	}
}

/* The peers' reports read and printed: the earliest desync, the first lost peer named by a
 * report (lost), the first peer without one (gone), the count of errors. */
typedef struct tally {
	nd_result res[ND_MAX_PEERS];
	bool have[ND_MAX_PEERS];
	uint32_t desync;
	int lost, gone, errors;
} tally;

static void tally_peers(peer_procs *p, tally *t)
{
	t->desync = ND_NO_FRAME;
	t->lost = -1;
	t->gone = -1;
	t->errors = 0;
	for (int i = 0; i < p->n; ++i) {
		p->text[i][p->used[i]] = '\0';
		const char *line = strstr(p->text[i], "RESULT ");
		int idx = -1;
		nd_result *r = &t->res[i];
		t->have[i] = line != NULL && read_result_line(line, &idx, r) && idx == i;
		if (!t->have[i]) {
			if (WIFSIGNALED(p->wst[i])) {
				printf("peer %d: killed by signal %d\n", i, WTERMSIG(p->wst[i]));
			} else {
				printf("peer %d: ended without a report (exit %d)\n", i,
				       WIFEXITED(p->wst[i]) ? WEXITSTATUS(p->wst[i]) : -1);
			}
			t->gone = t->gone < 0 ? i : t->gone;
			continue;
		}
		print_result(i, r);
		if (r->desync_frame != ND_NO_FRAME && r->desync_frame < t->desync) {
			t->desync = r->desync_frame;
		}
		if (r->status == ND_EXIT_LOST && t->lost < 0) {
			t->lost = r->lost_peer;
		}
		if (r->status == ND_EXIT_ERROR) {
			t->errors++;
		}
	}
}

/* The verdict on the session: DESYNC, PEER LOST, did not finish, or in sync. Returns the exit
 * status. */
static int verdict(const tally *t, const nd_options *o, int n)
{
	const nd_result *res = t->res;
	if (t->desync != ND_NO_FRAME) {
		printf("DESYNC at frame %u\n", t->desync);
		return ND_EXIT_DESYNC;
	}
	if (t->lost >= 0 || t->gone >= 0) {
		int who = t->lost >= 0 ? t->lost : t->gone;
		int survivors = 0;
		for (int i = 0; i < n; ++i) {
			survivors += t->have[i] && res[i].status == ND_EXIT_LOST;
		}
		printf("PEER LOST: peer %d; %d other peer%s ended cleanly\n", who, survivors,
		       survivors == 1 ? "" : "s");
		return ND_EXIT_LOST;
	}
	bool same = t->errors == 0;
	for (int i = 0; i < n && same; ++i) {
		same = res[i].status == ND_EXIT_OK && res[i].confirmed == o->frames &&
		       res[i].hash == res[0].hash && res[i].game_digest == res[0].game_digest;
	}
	if (!same) {
		printf("%s: the peers did not finish (%d errors)\n", ND_PROG, t->errors);
		return ND_EXIT_ERROR;
	}
	printf("score: team 0 %d, team 1 %d (%u coins taken), the same on every peer\n",
	       res[0].score[0], res[0].score[1], res[0].taken);
	printf("in sync: %u frames, %d peers, hash %016" PRIx64 "\n", o->frames, n, res[0].hash);
	return ND_EXIT_OK;
}

static int launch(cli *c, int argc, char **argv)
{
	static char text[ND_MAX_PEERS][8192];
	peer_procs p;
	peer_args pa;
	memset(&p, 0, sizeof p);
	p.n = c->o.peers;
	p.text = text;
	if (!start_peers(&p, &pa, &c->o, argc, argv)) {
		return ND_EXIT_ERROR;
	}
	collect_peers(&p, c->o.max_seconds);
	tally t;
	tally_peers(&p, &t);
	return verdict(&t, &c->o, p.n);
}

/* ---- one peer per terminal ---- */

/* A datagram of the handshake, refused: counted by reason (added to the game's counts). */
static void refuse(uint64_t *drops, int why)
{
	drops[why]++;
}

static bool same_addr(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
	return a->sin_addr.s_addr == b->sin_addr.s_addr && a->sin_port == b->sin_port;
}

/* The host's handshake. Every authentic HELLO (sealed with the game's key) is answered with a
 * WELCOME carrying the session token, but a HELLO takes no slot: the guest is the address of
 * the first authentic GAME packet with that token, which only a holder of the join code can
 * make. So neither a stray HELLO nor a replayed one keeps the real guest out. */
static bool host_handshake(const nd_options *o, int fd, uint32_t token, struct sockaddr_in *guest,
                           uint64_t *drops, uint64_t give_up)
{
	uint8_t buf[ND_MAX_PACKET + 64];
	nd_packet pk;
	for (;;) {
		if (nd_now_us() > give_up) {
			fprintf(stderr, "%s: nobody connected\n", ND_PROG);
			return false;
		}
		struct pollfd pfd = {fd, POLLIN, 0};
		poll(&pfd, 1, 100);
		struct sockaddr_in from;
		socklen_t fl = sizeof from;
		ssize_t n = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);
		if (n < 0) {
			continue;
		}
		int why = nd_packet_open(&o->key, buf, (size_t)n, &pk);
		if (why >= 0) {
			refuse(drops, why);
		} else if (pk.sender != 1) {
			refuse(drops, ND_DROP_UNKNOWN_SENDER);
		} else if (pk.type == ND_PKT_HELLO) {
			nd_packet w;
			memset(&w, 0, sizeof w);
			w.type = ND_PKT_WELCOME;
			w.token = token;
			w.nonce = pk.nonce;
			w.frames = o->frames;
			w.delay = o->delay;
			w.peers = 2;
			w.your_index = 1;
			size_t len = nd_packet_seal(&o->key, &w, buf, sizeof buf);
			sendto(fd, buf, len, 0, (struct sockaddr *)&from, sizeof from);
		} else if (pk.type != ND_PKT_GAME) {
			refuse(drops, ND_DROP_UNEXPECTED);
		} else if (pk.token != token) {
			refuse(drops, ND_DROP_TOKEN);
		} else {
			*guest = from; /* the guest has the welcome and the key: play */
			return true;
		}
	}
}

/* The guest's handshake: HELLO every 100 ms until an authentic WELCOME answers our nonce. */
static bool guest_handshake(nd_options *o, int fd, uint32_t nonce, uint32_t *token, uint64_t *drops,
                            uint64_t give_up)
{
	uint8_t buf[ND_MAX_PACKET + 64];
	nd_packet pk;
	uint64_t next_hello = 0;
	for (;;) {
		uint64_t now = nd_now_us();
		if (now > give_up) {
			fprintf(stderr, "%s: no answer from the host (is the join code right?)\n",
			        ND_PROG);
			return false;
		}
		if (now >= next_hello) {
			nd_packet h;
			memset(&h, 0, sizeof h);
			h.type = ND_PKT_HELLO;
			h.sender = 1;
			h.nonce = nonce;
			size_t len = nd_packet_seal(&o->key, &h, buf, sizeof buf);
			sendto(fd, buf, len, 0, (struct sockaddr *)&o->connect_to,
			       sizeof o->connect_to);
			next_hello = now + 100000;
		}
		struct pollfd pfd = {fd, POLLIN, 0};
		poll(&pfd, 1, 20);
		struct sockaddr_in from;
		socklen_t fl = sizeof from;
		ssize_t n = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);
		if (n < 0) {
			continue;
		}
		int why = nd_packet_open(&o->key, buf, (size_t)n, &pk);
		if (why >= 0) {
			refuse(drops, why);
		} else if (!same_addr(&from, &o->connect_to) || pk.sender != 0) {
			refuse(drops, ND_DROP_UNKNOWN_SENDER);
		} else if (pk.type != ND_PKT_WELCOME) {
			refuse(drops, ND_DROP_UNEXPECTED);
		} else if (pk.nonce != nonce) {
			refuse(drops, ND_DROP_REPLAY); /* an answer to another HELLO */
		} else if (pk.peers != 2 || pk.your_index != 1 || pk.frames < 1 ||
		           pk.frames > ND_MAX_FRAMES || pk.delay > 8) {
			refuse(drops, ND_DROP_FIELD);
		} else {
			*token = pk.token;
			o->frames = pk.frames;
			o->delay = pk.delay;
			return true;
		}
	}
}

/* The handshake of one peer per terminal: the host makes the join code unless given one,
 * prints it and waits for the guest; the guest joins. Derives the packet key, fills both
 * addresses (0 the host, 1 the guest) and the session token; true when joined. */
static bool join_session(const cli *c, nd_options *o, int fd, uint16_t port,
                         struct sockaddr_in addrs[2], uint32_t *token, uint64_t *drops,
                         uint64_t give_up)
{
	memset(addrs, 0, 2 * sizeof addrs[0]);
	if (c->listen && !o->have_code) {
		nd_code_random(o->code);
	}
	nd_key_derive(o->code, &o->key);
	if (!c->listen) {
		addrs[1].sin_family = AF_INET;
		addrs[1].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		addrs[1].sin_port = htons(port);
		addrs[0] = o->connect_to;
		return guest_handshake(o, fd, randombytes_random(), token, drops, give_up);
	}
	char code_text[ND_CODE_TEXT];
	nd_code_format(o->code, code_text);
	fprintf(stderr,
	        "%s: host: waiting on 127.0.0.1:%u, join code %s\n"
	        "%s: the guest runs: %s --connect 127.0.0.1:%u --join-code %s\n",
	        ND_PROG, port, code_text, ND_PROG, ND_PROG, port, code_text);
	sodium_memzero(code_text, sizeof code_text);
	*token = randombytes_random() | 1u;
	bool joined = host_handshake(o, fd, *token, &addrs[1], drops, give_up);
	addrs[0].sin_family = AF_INET;
	addrs[0].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	addrs[0].sin_port = htons(port);
	return joined;
}

/* This peer's report and the session's verdict (in sync, DESYNC or PEER LOST). */
static void print_standalone(int self, int status, uint32_t frames, const nd_result *r)
{
	print_result(self, r);
	if (status == ND_EXIT_OK) {
		printf("in sync: %u frames, 2 peers, hash %016" PRIx64 "\n", frames, r->hash);
	} else if (status == ND_EXIT_DESYNC) {
		printf("DESYNC at frame %u\n", r->desync_frame);
	} else if (status == ND_EXIT_LOST) {
		printf("PEER LOST: peer %d\n", r->lost_peer);
	}
}

static int run_standalone(cli *c)
{
	nd_options o = c->o;
	o.peers = 2;
	int self = c->listen ? 0 : 1;
	if (o.perturb_peer != self) {
		o.perturb_frame = -1;
	}
	if (o.kill_peer != self) {
		o.kill_frame = -1;
	}
	uint16_t port = 0;
	int fd = nd_udp_socket(c->listen ? o.listen_port : 0, &port);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot bind UDP 127.0.0.1:%u: %s\n", ND_PROG, o.listen_port,
		        strerror(errno));
		return ND_EXIT_ERROR;
	}
	struct sockaddr_in addrs[2];
	uint32_t token = 0;
	uint64_t give_up = nd_now_us() + (uint64_t)o.max_seconds * 1000000u;
	uint64_t drops[ND_DROP_COUNT];
	memset(drops, 0, sizeof drops);
	bool joined = join_session(c, &o, fd, port, addrs, &token, drops, give_up);
	sodium_memzero(o.code, sizeof o.code);
	nd_result r;
	int status = ND_EXIT_LOST;
	if (joined) {
		if (o.perturb_frame >= (int64_t)o.frames) {
			o.perturb_frame = -1;
		}
		if (o.kill_frame >= (int64_t)o.frames) {
			o.kill_frame = -1;
		}
		fprintf(stderr, "%s: peer %d of 2: %u frames\n", ND_PROG, self, o.frames);
		status = nd_peer_run(&o, fd, addrs, 2, self, token, &r);
	} else {
		memset(&r, 0, sizeof r);
		r.lost_peer = 1 - self;
		r.desync_frame = ND_NO_FRAME;
	}
	nd_key_wipe(&o.key);
	close(fd);
	for (int d = 0; d < ND_DROP_COUNT; ++d) {
		r.drops[d] += drops[d];
		r.parse_drops += drops[d];
	}
	print_standalone(self, status, o.frames, &r);
	return status;
}

int main(int argc, char **argv)
{
	if (!nd_auth_init()) {
		fprintf(stderr, "%s: libsodium cannot start\n", ND_PROG);
		return ND_EXIT_ERROR;
	}
	cli c;
	int r = parse_args(argc, argv, &c);
	if (r >= 0) {
		return r;
	}
	signal(SIGPIPE, SIG_IGN);
	if (c.child) {
		return run_child(&c);
	}
	if (c.listen || c.o.connect) {
		return run_standalone(&c);
	}
	return launch(&c, argc, argv);
}
