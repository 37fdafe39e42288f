/* fix2d-netdemo: the game on top of the "arena" scene. Public fix2d API only, no floating
 * point. SPDX-License-Identifier: MIT
 *
 * Players: player p (0..3) is the p-th dynamic body of the scene in id order (the scene
 * creates the four player boxes first: bodies 3..6). An input is 4 bits:
 *   ND_LEFT / ND_RIGHT  an impulse of 0.4 m/s x mass sideways while slower than 5 m/s that way
 *   ND_JUMP             an impulse of 6.5 m/s x mass upwards while |vy| < 0.2 m/s
 *   ND_PUSH             the nearest dynamic body within 2.5 m that is not of the player's
 *                       team and that the player can see gets 4 m/s x its mass away from the
 *                       player and 2 m/s x its mass upwards. Seeing: a ray from the player's
 *                       centre to the body's (f2d_world_cast_ray_closest, blind to the own
 *                       team's shapes) first hits that body; a wall, the see-saw or a prop in
 *                       between hides it. Candidates are tried nearest first (then by id).
 * nd_game_commands turns one frame's inputs into F2D_CMD_APPLY_IMPULSE commands (player =
 * peer index, sequence 0, 1, ...) from the inputs and the world's state alone, so every peer
 * turns the same inputs in the same state into the same commands.
 *
 * Teams and coins (issue 12's game API, set up at frame 0 by nd_game_setup's commands, player
 * ND_GAME_PLAYER, so that replays re-create them): players 0 and 2 are team 0, 1 and 3 team 1.
 * A team's players get the filter (category 2 << team, mask all, group -1 - team): they never
 * collide with each other (Box2D's negative group), and the push ignores them. ND_COINS coins
 * are static sensor circles (radius 0.6 m at y 1 m, x -12, -6, 6, 12; category 8, mask the two
 * team bits: only players are seen). A sensor begin event of a player in a coin that is ready
 * scores one for the player's team and makes the coin wait ND_COIN_WAIT frames. The score and
 * the waits are the game state (nd_game): not in the world, so the peer keeps it with each
 * snapshot of its rollback ring and exchanges its digest with the world hash.
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
#define ND_TEAMS 2
#define ND_COINS 4
#define ND_COIN_WAIT 120   /* frames a coin rests after it was taken */
#define ND_GAME_PLAYER 255 /* the player field of the game's own commands */
#define ND_SETUP_COMMANDS (ND_COINS + ND_PLAYERS)
/** Most commands one frame produces (3 per player, and frame 0's setup). */
#define ND_MAX_GAME_COMMANDS (3 * ND_PLAYERS + ND_SETUP_COMMANDS)

/** The game's own state (besides the world): a value, copied with the world's snapshots. */
typedef struct nd_game {
	f2d_body_id coins[ND_COINS]; /* null until frame 0's setup created them */
	uint16_t wait[ND_COINS];     /* frames until the coin can be taken again */
	int32_t score[ND_TEAMS];
	uint32_t taken; /* coins taken in all */
} nd_game;

/** Finds the four player bodies; false when the world has fewer than four dynamic bodies. */
bool nd_game_players(const f2d_world *world, f2d_body_id players[ND_PLAYERS]);

/** Team of player p: p % 2. */
int nd_game_team(int player);

void nd_game_init(nd_game *g);

/** Frame 0's setup commands (the coins, sequence 0..ND_COINS-1, then the players' filters),
 *  player ND_GAME_PLAYER; returns how many (ND_SETUP_COMMANDS, or fewer when a player's shape
 *  cannot be found). */
int32_t nd_game_setup(f2d_world *world, const f2d_body_id players[ND_PLAYERS], f2d_command *out);

/** After f2d_world_apply_commands: the coins the setup created (from the results). */
void nd_game_created(nd_game *g, const f2d_command *commands, const f2d_command_result *results,
                     int32_t count);

/** After the step: the step's sensor events (in their documented order) score. */
void nd_game_update(nd_game *g, const f2d_world *world, const f2d_body_id players[ND_PLAYERS]);

/** 64-bit digest of the game state (FNV-1a over its little-endian fields). */
uint64_t nd_game_digest(const nd_game *g);

/** The commands of one frame; inputs[p] for p < count. Returns how many were written. */
int32_t nd_game_commands(f2d_world *world, const f2d_body_id players[ND_PLAYERS],
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
