/* libFuzzer target: the .f2r replay reader and the command decoder behind it; the first frames
 * of a file that parses are also applied to a world and stepped, so the input layer's
 * validation is fuzzed too. That world is a small scene, or for start kind 1 the world loaded
 * from the file's start snapshot (which the reader has checked with f2d_snapshot_check, so
 * the load must succeed). Build: tests/fuzz/run_fuzz_replay.sh.
 * SPDX-License-Identifier: MIT
 */
#include "f2r.h"
#include "fix2d/scenes.h"
#include "fix2d/snapshot.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static f2r_frame frame;
	f2r_reader r;
	if (!f2r_open_mem(&r, data, size)) {
		f2r_close_read(&r);
		return 0;
	}
	f2d_world *w = NULL;
	f2d_result res = r.header.start_kind == F2R_START_SNAPSHOT
	                     ? f2d_snapshot_load_new(r.header.start, r.header.start_len, NULL, &w)
	                     : f2d_scene_create("single_box", NULL, &w);
	if (res != F2D_OK) {
		abort(); /* a start snapshot that passed f2d_snapshot_check must load */
	}
	int frames = 0;
	while (f2r_read_frame(&r, &frame) == F2R_OK) {
		if (frames++ < 16) {
			f2d_command_result res[F2D_MAX_FRAME_COMMANDS];
			f2d_world_apply_commands(w, frame.commands, frame.count, res);
			f2d_world_step(w);
		}
	}
	f2d_destroy_world(w);
	f2r_close_read(&r);
	return 0;
}
