/* fix2d-netdemo: the game on top of the "arena" scene. Public fix2d API only, no floating
 * point. SPDX-License-Identifier: MIT
 *
 * Players: player p (0..3) is the p-th dynamic body of the scene in id order (the scene
 * creates the four player boxes first: bodies 3..6). An input is 4 bits:
 *   ND_LEFT / ND_RIGHT  an impulse of 0.4 m/s x mass sideways while slower than 5 m/s that way
 *   ND_JUMP             an impulse of 6.5 m/s x mass upwards while |vy| < 0.2 m/s
 *   ND_PUSH             the nearest other dynamic body within 2.5 m gets 4 m/s x its mass
 *                       away from the player and 2 m/s x its mass upwards
 * nd_game_commands turns one frame's inputs into F2D_CMD_APPLY_IMPULSE commands (player =
 * peer index, sequence 0, 1, ...) from the inputs and the world's state alone, so every peer
 * turns the same inputs in the same state into the same commands.
 */
#ifndef FIX2D_NETDEMO_GAME_H
#define FIX2D_NETDEMO_GAME_H

#include "fix2d/input.h"

#include <stdint.h>

#define ND_LEFT 1u
#define ND_RIGHT 2u
#define ND_JUMP 4u
#define ND_PUSH 8u

#define ND_PLAYERS 4
#define ND_SCENE "arena"
/** Most commands one frame produces (3 per player). */
#define ND_MAX_GAME_COMMANDS (3 * ND_PLAYERS)

/** Finds the four player bodies; false when the world has fewer than four dynamic bodies. */
bool nd_game_players(const f2d_world *world, f2d_body_id players[ND_PLAYERS]);

/** The commands of one frame; inputs[p] for p < count. Returns how many were written. */
int32_t nd_game_commands(const f2d_world *world, const f2d_body_id players[ND_PLAYERS],
                         const uint8_t *inputs, int count, f2d_command *out);

/** Scripted, seeded player: holds a choice of buttons for 6..40 frames, then picks again. */
typedef struct nd_script {
	uint64_t state;
	uint8_t bits;
	uint32_t hold;
} nd_script;

void nd_script_init(nd_script *s, uint64_t seed, int peer);
uint8_t nd_script_next(nd_script *s);

#endif
