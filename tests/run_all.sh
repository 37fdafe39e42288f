#!/usr/bin/env bash
# Runs every fix2d test: a warnings-as-errors Release build and an
# -fsanitize=undefined,address build, each with its full ctest suite, then the determinism
# matrix (tests/matrix/run_matrix.sh; README "Determinism").
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DFIX2D_WERROR=ON
cmake --build build/release -j"$jobs"
ctest --test-dir build/release --output-on-failure -j"$jobs"

cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=Debug -DFIX2D_WERROR=ON -DFIX2D_SANITIZE=ON
cmake --build build/sanitize -j"$jobs"
# (the matrix cells build their own binaries, sanitized ones included: not again here)
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest --test-dir build/sanitize --output-on-failure -j"$jobs" -LE matrix

# Every cell of the matrix. A cell whose toolchain is not installed is skipped with the
# apt-get line that installs it, except under CI=true, where it fails (.ci/run installs all).
bash tests/matrix/run_matrix.sh
