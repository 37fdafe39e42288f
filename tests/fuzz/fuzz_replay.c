/* libFuzzer target: the .f2r replay reader and the command decoder behind it; the first frames
 * of a file that parses are also applied to a small world and stepped, so the input layer's
 * validation is fuzzed too. Build: tests/fuzz/run_fuzz.sh.
 * SPDX-License-Identifier: MIT
 */
#include "f2r.h"
#include "fix2d/scenes.h"

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
	if (f2d_scene_create("single_box", NULL, &w) != F2D_OK) {
		abort();
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
