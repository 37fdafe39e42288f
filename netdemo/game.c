/* fix2d-netdemo: arena game rules (see game.h). SPDX-License-Identifier: MIT */
#include "game.h"

#include <string.h>

bool nd_game_players(const f2d_world *world, f2d_body_id players[ND_PLAYERS])
{
	f2d_body_id ids[64];
	int32_t n = f2d_world_get_bodies(world, ids, 64);
	n = n > 64 ? 64 : n;
	int found = 0;
	for (int32_t i = 0; i < n && found < ND_PLAYERS; ++i) {
		if (f2d_body_get_type(world, ids[i]) == F2D_DYNAMIC_BODY) {
			players[found++] = ids[i];
		}
	}
	return found == ND_PLAYERS;
}

int nd_game_team(int player)
{
	return player % 2;
}

static f2d_filter team_filter(int team)
{
	f2d_filter f = {(uint64_t)2 << team, UINT64_MAX, -1 - team};
	return f;
}

#define COIN_CATEGORY 8u

void nd_game_init(nd_game *g)
{
	memset(g, 0, sizeof *g);
}

typedef struct find_shape {
	f2d_world *world;
	f2d_body_id body;
	f2d_shape_id shape;
} find_shape;

static bool find_shape_fcn(f2d_shape_id shape, void *context)
{
	find_shape *f = context;
	f2d_body_id b = f2d_shape_get_body(f->world, shape);
	if (b.index1 == f->body.index1 && b.generation == f->body.generation) {
		f->shape = shape; /* the lowest id first: results come by shape id */
		return false;
	}
	return true;
}

int32_t nd_game_setup(f2d_world *world, const f2d_body_id players[ND_PLAYERS], f2d_command *out)
{
	int32_t n = 0;
	uint16_t seq = 0;
	for (int c = 0; c < ND_COINS; ++c) {
		static const int32_t xs[ND_COINS] = {-12, -6, 6, 12};
		f2d_command k = f2d_default_command(F2D_CMD_CREATE_BODY, ND_GAME_PLAYER, seq++);
		k.u.create.body.type = F2D_STATIC_BODY;
		k.u.create.body.position.x = F2D_FIX(xs[c]);
		k.u.create.body.position.y = F2D_FIX(1);
		k.u.create.kind = F2D_SPAWN_CIRCLE;
		k.u.create.circle.radius = F2D_MILLI(600);
		k.u.create.shape.is_sensor = true;
		k.u.create.shape.filter.category_bits = COIN_CATEGORY;
		k.u.create.shape.filter.mask_bits = (uint64_t)2 | 4;
		out[n++] = k;
	}
	for (int p = 0; p < ND_PLAYERS; ++p) {
		/* the player's shape: the query of a small box at its centre, by shape id */
		find_shape f = {world, players[p], {0, 0}};
		f2d_vec2 c = f2d_body_get_world_center(world, players[p]);
		f2d_aabb box = {{c.x - F2D_MILLI(50), c.y - F2D_MILLI(50)},
		                {c.x + F2D_MILLI(50), c.y + F2D_MILLI(50)}};
		f2d_world_query_aabb(world, box, f2d_default_query_filter(), find_shape_fcn, &f);
		if (f.shape.index1 == 0) {
			continue;
		}
		f2d_command k = f2d_default_command(F2D_CMD_SET_FILTER, ND_GAME_PLAYER, seq++);
		k.u.filter.shape = f.shape;
		k.u.filter.filter = team_filter(nd_game_team(p));
		out[n++] = k;
	}
	return n;
}

void nd_game_created(nd_game *g, const f2d_command *commands, const f2d_command_result *results,
                     int32_t count)
{
	for (int32_t i = 0; i < count; ++i) {
		const f2d_command *c = &commands[i];
		if (c->type == F2D_CMD_CREATE_BODY && c->player == ND_GAME_PLAYER &&
		    c->sequence < ND_COINS && results[i].result == F2D_OK) {
			g->coins[c->sequence] = results[i].created;
		}
	}
}

static bool same_body(f2d_body_id a, f2d_body_id b)
{
	return a.index1 == b.index1 && a.generation == b.generation && a.index1 != 0;
}

void nd_game_update(nd_game *g, const f2d_world *world, const f2d_body_id players[ND_PLAYERS])
{
	for (int c = 0; c < ND_COINS; ++c) {
		g->wait[c] = g->wait[c] > 0 ? (uint16_t)(g->wait[c] - 1) : 0;
	}
	f2d_sensor_events ev;
	f2d_world_get_sensor_events(world, &ev);
	/* by (sensor, visitor) shape id (types.h): the same order on every peer and after every
	   rollback, so two players entering one coin in one step: the lower shape id takes it */
	for (int32_t i = 0; i < ev.begin_count; ++i) {
		f2d_body_id sb = f2d_shape_get_body(world, ev.begin_events[i].sensor_shape);
		f2d_body_id vb = f2d_shape_get_body(world, ev.begin_events[i].visitor_shape);
		int coin = -1, player = -1;
		for (int c = 0; c < ND_COINS; ++c) {
			coin = same_body(sb, g->coins[c]) ? c : coin;
		}
		for (int p = 0; p < ND_PLAYERS; ++p) {
			player = same_body(vb, players[p]) ? p : player;
		}
		if (coin < 0 || player < 0 || g->wait[coin] != 0) {
			continue;
		}
		g->score[nd_game_team(player)]++;
		g->wait[coin] = ND_COIN_WAIT;
		g->taken++;
	}
}

static void fnv(uint64_t *h, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; ++i) {
		*h = (*h ^ ((v >> (8 * i)) & 0xFFu)) * 0x100000001B3ull;
	}
}

uint64_t nd_game_digest(const nd_game *g)
{
	uint64_t h = 0xCBF29CE484222325ull;
	for (int c = 0; c < ND_COINS; ++c) {
		fnv(&h, (uint32_t)g->coins[c].index1, 4);
		fnv(&h, g->coins[c].generation, 4);
		fnv(&h, g->wait[c], 2);
	}
	for (int t = 0; t < ND_TEAMS; ++t) {
		fnv(&h, (uint32_t)g->score[t], 4);
	}
	fnv(&h, g->taken, 4);
	return h;
}

/* mass (kg) x speed (m/s), both Q16.16 */
static fix16_t times_mass(fix16_t mass, fix16_t speed)
{
	return (fix16_t)(((int64_t)mass * speed) >> 16);
}

static f2d_command impulse(uint8_t player, uint16_t seq, f2d_body_id body, fix16_t ix, fix16_t iy,
                           f2d_vec2 point)
{
	f2d_command c = f2d_default_command(F2D_CMD_APPLY_IMPULSE, player, seq);
	c.u.push.body = body;
	c.u.push.vector.x = ix;
	c.u.push.vector.y = iy;
	c.u.push.point = point;
	return c;
}

/* Whether the player at c sees body t (centre tc): the closest hit of the ray c -> tc, blind
 * to the player's own team, is a shape of t. */
static bool sees(f2d_world *world, int team, f2d_vec2 c, f2d_body_id t, f2d_vec2 tc)
{
	f2d_query_filter qf = {1u, ~((uint64_t)2 << team)};
	f2d_vec2 d = {tc.x - c.x, tc.y - c.y};
	f2d_ray_result r;
	if (f2d_world_cast_ray_closest(world, c, d, qf, &r) != F2D_OK || !r.hit) {
		return false;
	}
	return same_body(f2d_shape_get_body(world, r.shape), t);
}

static bool is_teammate(const f2d_body_id players[ND_PLAYERS], int team, f2d_body_id b)
{
	for (int q = 0; q < ND_PLAYERS; ++q) {
		if (nd_game_team(q) == team && same_body(players[q], b)) {
			return true;
		}
	}
	return false;
}

/* The bodies a push may pick from: the world's first 256 bodies (ids), and the players. */
typedef struct push_scope {
	f2d_world *world;
	const f2d_body_id *players;
	const f2d_body_id *ids;
	int32_t count;
} push_scope;

/* The next push candidate of player body b (centre c, of team `team`) after (floor_d2,
 * floor_i) in (squared distance, index) order: a dynamic body other than b and b's teammates,
 * strictly within reach (2.5 m); -1 when there is none, else its index in s->ids with its
 * squared distance in *d2. */
static int32_t next_candidate(const push_scope *s, f2d_body_id b, int team, f2d_vec2 c,
                              int64_t floor_d2, int32_t floor_i, int64_t *d2)
{
	static const int64_t reach = F2D_MILLI(2500);
	int32_t cand = -1;
	int64_t cand_d2 = reach * reach;
	for (int32_t i = 0; i < s->count; ++i) {
		if (s->ids[i].index1 == b.index1 ||
		    f2d_body_get_type(s->world, s->ids[i]) != F2D_DYNAMIC_BODY ||
		    is_teammate(s->players, team, s->ids[i])) {
			continue;
		}
		f2d_vec2 t = f2d_body_get_world_center(s->world, s->ids[i]);
		int64_t dx = (int64_t)t.x - c.x, dy = (int64_t)t.y - c.y;
		int64_t di = dx * dx + dy * dy;
		bool after = di > floor_d2 || (di == floor_d2 && i > floor_i);
		if (after && di < cand_d2) {
			cand_d2 = di;
			cand = i;
		}
	}
	*d2 = cand_d2;
	return cand;
}

/* The body player p (body b, centre c) pushes: the nearest visible body, candidates in reach
 * by (distance, id), each tried in turn (selection of the next nearest: few bodies are in
 * reach); its index in s->ids, or -1. */
static int32_t push_target(const push_scope *s, int p, f2d_body_id b, f2d_vec2 c)
{
	int team = nd_game_team(p);
	int64_t floor_d2 = -1;
	int32_t floor_i = -1;
	for (;;) {
		int64_t d2;
		int32_t cand = next_candidate(s, b, team, c, floor_d2, floor_i, &d2);
		if (cand < 0) {
			return -1;
		}
		if (sees(s->world, team, c, s->ids[cand],
		         f2d_body_get_world_center(s->world, s->ids[cand]))) {
			return cand;
		}
		floor_d2 = d2;
		floor_i = cand;
	}
}

/* Player p's commands for input in (nonzero, its body valid) into out: run, jump, push, in
 * this order; returns how many. */
static int32_t player_commands(const push_scope *s, int p, uint8_t in, f2d_command *out)
{
	f2d_world *world = s->world;
	f2d_body_id b = s->players[p];
	int32_t n = 0;
	uint16_t seq = 0;
	fix16_t m = f2d_body_get_mass(world, b);
	f2d_vec2 v = f2d_body_get_linear_velocity(world, b);
	f2d_vec2 c = f2d_body_get_world_center(world, b);
	int dir = ((in & ND_RIGHT) != 0) - ((in & ND_LEFT) != 0);
	if (dir != 0 && (fix16_t)(dir * v.x) < F2D_FIX(5)) {
		out[n++] = impulse((uint8_t)p, seq++, b, dir * times_mass(m, F2D_MILLI(400)), 0, c);
	}
	if ((in & ND_JUMP) != 0 && v.y < F2D_MILLI(200) && v.y > F2D_MILLI(-200)) {
		out[n++] = impulse((uint8_t)p, seq++, b, 0, times_mass(m, F2D_MILLI(6500)), c);
	}
	int32_t best = (in & ND_PUSH) != 0 ? push_target(s, p, b, c) : -1;
	if (best >= 0) {
		f2d_body_id t = s->ids[best];
		f2d_vec2 tc = f2d_body_get_world_center(world, t);
		fix16_t mt = f2d_body_get_mass(world, t);
		int away = tc.x >= c.x ? 1 : -1;
		out[n++] = impulse((uint8_t)p, seq++, t, away * times_mass(mt, F2D_FIX(4)),
		                   times_mass(mt, F2D_FIX(2)), tc);
	}
	return n;
}

int32_t nd_game_commands(f2d_world *world, const f2d_body_id players[ND_PLAYERS],
                         const uint8_t *inputs, int count, f2d_command *out)
{
	f2d_body_id ids[256];
	int32_t nbodies = f2d_world_get_bodies(world, ids, 256);
	push_scope s = {world, players, ids, nbodies > 256 ? 256 : nbodies};
	int32_t n = 0;
	for (int p = 0; p < count && p < ND_PLAYERS; ++p) {
		if (inputs[p] == 0 || !f2d_body_is_valid(world, players[p])) {
			continue;
		}
		n += player_commands(&s, p, inputs[p], out + n);
	}
	return n;
}

static uint64_t script_rng(nd_script *s)
{
	uint64_t z = (s->state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void nd_script_init(nd_script *s, uint64_t seed, int peer)
{
	s->state = seed * 0x2545F4914F6CDD1Dull + (uint64_t)peer * 0x9E3779B97F4A7C15ull + 1;
	s->bits = 0;
	s->hold = 0;
}

uint8_t nd_script_next(nd_script *s)
{
	if (s->hold == 0) {
		uint64_t r = script_rng(s);
		static const uint8_t moves[4] = {0, ND_LEFT, ND_RIGHT, ND_RIGHT | ND_LEFT};
		uint8_t bits = moves[r % 3 == 0 ? 0 : 1 + (r >> 8) % 2];
		bits |= (r >> 16) % 4 == 0 ? ND_JUMP : 0;
		bits |= (r >> 24) % 4 == 0 ? ND_PUSH : 0;
		s->bits = bits;
		s->hold = 6 + (uint32_t)((r >> 32) % 35);
	}
	s->hold--;
	return s->bits;
}
