/* fix2d-replay run --events / --digest (replay/events.c): event lines and the digest of every
 * step's events and of a fixed set of queries.
 * SPDX-License-Identifier: MIT
 */
#ifndef FIX2D_REPLAY_EVENTS_H
#define FIX2D_REPLAY_EVENTS_H

#include <stdbool.h>

struct f2d_world;
typedef struct event_digest event_digest;

/** A new digest; print: also print `event <step> <kind> ...` lines. NULL when out of memory. */
event_digest *event_digest_create(bool print);
void event_digest_destroy(event_digest *d);
/** After step `step` of world: its events (printed when asked) and the step's queries. */
void event_digest_step(event_digest *d, struct f2d_world *world, long step);
/** `digest <16 hex> events <n> query_hits <n> query_misses <n>` */
void event_digest_print(event_digest *d);

#endif
