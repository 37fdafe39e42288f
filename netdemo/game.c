/* fix2d-netdemo: arena game rules (see game.h). SPDX-License-Identifier: MIT */
#include "game.h"

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

int32_t nd_game_commands(const f2d_world *world, const f2d_body_id players[ND_PLAYERS],
                         const uint8_t *inputs, int count, f2d_command *out)
{
	static const int64_t reach = F2D_MILLI(2500);
	f2d_body_id ids[256];
	int32_t nbodies = f2d_world_get_bodies(world, ids, 256);
	nbodies = nbodies > 256 ? 256 : nbodies;
	int32_t n = 0;
	for (int p = 0; p < count && p < ND_PLAYERS; ++p) {
		uint8_t in = inputs[p];
		f2d_body_id b = players[p];
		if (in == 0 || !f2d_body_is_valid(world, b)) {
			continue;
		}
		uint16_t seq = 0;
		fix16_t m = f2d_body_get_mass(world, b);
		f2d_vec2 v = f2d_body_get_linear_velocity(world, b);
		f2d_vec2 c = f2d_body_get_world_center(world, b);
		int dir = ((in & ND_RIGHT) != 0) - ((in & ND_LEFT) != 0);
		if (dir != 0 && (fix16_t)(dir * v.x) < F2D_FIX(5)) {
			out[n++] = impulse((uint8_t)p, seq++, b,
			                   dir * times_mass(m, F2D_MILLI(400)), 0, c);
		}
		if ((in & ND_JUMP) != 0 && v.y < F2D_MILLI(200) && v.y > F2D_MILLI(-200)) {
			out[n++] =
			    impulse((uint8_t)p, seq++, b, 0, times_mass(m, F2D_MILLI(6500)), c);
		}
		if ((in & ND_PUSH) != 0) {
			int32_t best = -1;
			int64_t best_d2 = reach * reach;
			for (int32_t i = 0; i < nbodies; ++i) {
				if (ids[i].index1 == b.index1 ||
				    f2d_body_get_type(world, ids[i]) != F2D_DYNAMIC_BODY) {
					continue;
				}
				f2d_vec2 t = f2d_body_get_world_center(world, ids[i]);
				int64_t dx = (int64_t)t.x - c.x, dy = (int64_t)t.y - c.y;
				int64_t d2 = dx * dx + dy * dy;
				if (d2 < best_d2) {
					best_d2 = d2;
					best = i;
				}
			}
			if (best >= 0) {
				f2d_body_id t = ids[best];
				f2d_vec2 tc = f2d_body_get_world_center(world, t);
				fix16_t mt = f2d_body_get_mass(world, t);
				int away = tc.x >= c.x ? 1 : -1;
				out[n++] =
				    impulse((uint8_t)p, seq++, t, away * times_mass(mt, F2D_FIX(4)),
				            times_mass(mt, F2D_FIX(2)), tc);
			}
		}
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
