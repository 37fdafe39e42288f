/* fix2d determinism matrix: prints the engine fingerprint and whether the math flavour check
 * passes, as built in one matrix cell ("fingerprint <16 hex> flavour ok|MISMATCH"). Every cell
 * must print the line in tests/golden/fingerprint.txt followed by " flavour ok".
 * SPDX-License-Identifier: MIT
 */
#include "fix2d/fix2d.h"

#include <inttypes.h>
#include <stdio.h>

int main(void)
{
	f2d_result flavour = f2d_check_math_flavour();
	f2d_world_def def = f2d_default_world_def();
	f2d_world *world = NULL;
	f2d_result created = f2d_create_world(&def, &world);
	f2d_destroy_world(world);
	printf("fingerprint %016" PRIx64 " flavour %s\n", f2d_fingerprint(),
	       flavour == F2D_OK && created == F2D_OK ? "ok" : "MISMATCH");
	return flavour == F2D_OK && created == F2D_OK ? 0 : 1;
}
