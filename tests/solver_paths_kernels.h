/* fix2d tests: the kernel checks of test_solver_paths' helpers (tests/solver_paths_kernels.c);
 * each prints its lines and returns the helper's exit status.
 * SPDX-License-Identifier: MIT */
#ifndef FIX2D_SOLVER_PATHS_KERNELS_H
#define FIX2D_SOLVER_PATHS_KERNELS_H

int inverse_main(void);   /* "i" lines: solver.c's newton_inverse */
int roundings_main(void); /* "r" lines: solver_kernel.h's rounding shortcuts */
int pairs_main(void);     /* "p" lines: the pairs of lanes (f2d_lane2) */
int stage_main(void);     /* "g" lines: solver_prestep.c stage_lanes */

#endif
