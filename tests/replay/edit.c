/* f2r-edit: test tool that rewrites a replay with one deliberate change, through the same
 * reader/writer as fix2d-replay (so checksums stay valid and only the change differs).
 *   f2r-edit IN OUT input K    first command of frame K (or a new impulse) changes
 *   f2r-edit IN OUT hash K     one byte of frame K's recorded hash flips
 *   f2r-edit IN OUT fingerprint 0   the header's math fingerprint changes
 *   f2r-edit IN OUT timestep D      the header's time step changes by D LSB (D != 0)
 *   f2r-edit IN OUT sceneparam V    the header's reserved scene parameter becomes V (V != 0)
 *   f2r-edit IN OUT snapshot B      byte B of the start snapshot (start kind 1) flips; the
 *                                   chunk's checksum is recomputed, the snapshot's is not
 * SPDX-License-Identifier: MIT
 */
#include "f2r.h"

#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: f2r-edit IN OUT input|hash FRAME | snapshot BYTE\n");
		return 2;
	}
	long k = strtol(argv[4], NULL, 10);
	bool hash = strcmp(argv[3], "hash") == 0;
	bool fingerprint = strcmp(argv[3], "fingerprint") == 0;
	bool snapshot = strcmp(argv[3], "snapshot") == 0;
	bool timestep = strcmp(argv[3], "timestep") == 0;
	bool sceneparam = strcmp(argv[3], "sceneparam") == 0;
	f2r_reader r;
	if (!f2r_open_read(&r, argv[1])) {
		fprintf(stderr, "f2r-edit: %s\n", r.error);
		return 2;
	}
	f2r_writer w;
	f2r_frame *f = calloc(1, sizeof *f);
	f2r_header h = r.header;
	h.fingerprint ^= fingerprint ? 1u : 0u;
	uint8_t *start = NULL;
	bool changed = fingerprint || ((timestep || sceneparam) && k != 0);
	if (timestep) {
		h.time_step = (fix16_t)((uint32_t)h.time_step + (uint32_t)k);
	}
	if (sceneparam) {
		h.scene_param = (uint32_t)k;
	}
	if (snapshot && h.start_kind == F2R_START_SNAPSHOT && k >= 0 && (size_t)k < h.start_len) {
		start = malloc(h.start_len);
		if (start == NULL) {
			return 2;
		}
		memcpy(start, h.start, h.start_len);
		start[k] ^= 0x5Au;
		h.start = start;
		changed = true;
	}
	if (f == NULL || !f2r_open_write(&w, argv[2], &h)) {
		return 2;
	}
	k = snapshot || timestep || sceneparam ? -1 : k;
	f2r_status st;
	while ((st = f2r_read_frame(&r, f)) == F2R_OK || r.key_new) {
		/* keyframes are kept as recorded (a changed input makes them disagree: that is what
		 * verify's per-body report shows) */
		if (r.key_new && !f2r_write_keyframe(&w, r.key_frame, r.key, r.key_len)) {
			return 2;
		}
		if (st != F2R_OK) {
			break;
		}
		if ((long)f->index == k) {
			if (hash) {
				f->has_hash = true;
				f->hash ^= 0xFF00u;
			} else if (f->count > 0 && f->commands[0].type == F2D_CMD_APPLY_IMPULSE) {
				f->commands[0].u.push.vector.y += F2D_ONE;
			} else {
				/* add a kick to the first dynamic body from player 200 */
				f2d_command c = f2d_default_command(F2D_CMD_APPLY_IMPULSE, 200, 0);
				c.u.push.body.index1 = 2;
				c.u.push.body.generation = 1;
				c.u.push.vector.y = F2D_FIX(3);
				c.u.push.point.y = F2D_FIX(1);
				f->commands[f->count++] = c;
			}
			changed = true;
		}
		if (!f2r_write_frame(&w, f)) {
			return 2;
		}
	}
	f2r_close_write(&w);
	f2r_close_read(&r);
	free(start);
	free(f);
	return changed ? 0 : 1;
}
