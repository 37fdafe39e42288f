/* fix2d narrow phase: what the polygon clipping of collision.c and the rounded-core clipping of
 * shapes.c share (one definition: the two must cut exactly alike).
 * SPDX-License-Identifier: MIT
 */
#ifndef FIX2D_CLIP_H
#define FIX2D_CLIP_H

#include "core.h"

/* feature-id bit: B's edge is the reference edge (see the id layouts in collision.c, shapes.c) */
#define ID_FLIP 0x8000u

typedef struct clip_vertex {
	f2d_vec2 v;
	uint32_t id;
} clip_vertex;

/* The point where segment (v0, v1) crosses a clip plane, given the signed distances d0, d1 of
 * its ends from it (one of them > 0, the other <= 0): v0 + d0 / (d0 - d1) (v1 - v0). */
static inline f2d_vec2 cut_point(f2d_vec2 v0, f2d_vec2 v1, fix16_t d0, fix16_t d1)
{
	fix16_t f = f2d_div_exact(d0, (int64_t)d0 - d1);
	return f2d_mul_add(v0, f, f2d_sub(v1, v0));
}

/* Keeps the part of segment (in[0], in[1]) with dot(n, v) <= offset. Returns 2 when some part
 * is kept, else 0. An endpoint outside is replaced by the cut point, which keeps the endpoint's
 * id and position in the order: the id names the end of the incident edge a point comes from,
 * so it does not change when an exactly aligned stack tips by one LSB across a side plane
 * (that flip would otherwise drop the point's warm start every other step and rock stacks). */
static inline int32_t clip_segment(clip_vertex out[2], const clip_vertex in[2], f2d_vec2 n,
                                   fix16_t offset)
{
	fix16_t d0 = f2d_dot(n, in[0].v) - offset;
	fix16_t d1 = f2d_dot(n, in[1].v) - offset;
	if (d0 > 0 && d1 > 0) {
		return 0;
	}
	out[0] = in[0];
	out[1] = in[1];
	if (d0 > 0 || d1 > 0) {
		out[d0 > 0 ? 0 : 1].v = cut_point(in[0].v, in[1].v, d0, d1);
	}
	return 2;
}

#endif
