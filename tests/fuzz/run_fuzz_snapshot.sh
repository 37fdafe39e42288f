#!/usr/bin/env bash
# Builds the snapshot-loader fuzzer (tests/fuzz/fuzz_snapshot.c) with clang
# -fsanitize=fuzzer,address,undefined and runs it for SECONDS on a copy of the seed corpus.
#   run_fuzz_snapshot.sh SECONDS [WORKDIR]   fuzz (default 60 s, WORKDIR build/fuzz-snapshot)
#   run_fuzz_snapshot.sh --regen             rewrite the seed corpus tests/fuzz/corpus_snapshot/
# Exit 0: no finding; 1: a crash, leak or failed oracle (the input is left in WORKDIR as
# crash-*/leak-*); 77: skipped, no clang with libFuzzer (Debian: apt-get install clang, which
# brings libclang-rt-*-dev with the fuzzer runtime). CC may name another clang.
set -euo pipefail
# shellcheck source=tests/fuzz/fuzz_common.sh
source "$(dirname "$0")/fuzz_common.sh"
fuzz_init fuzz_snapshot fuzz-snapshot "$@"

fuzz_libfixmath fuzz_snapshot
# the library is every file of src/ (as CMakeLists.txt lists them)
srcs=("$root"/src/*.c)
flags=(-std=c11 -g -O1 -fno-omit-frame-pointer -I"$root/include" -I"$root/src")

if [ "$mode" = regen ]; then
	"$cc" "${flags[@]}" -fsanitize=address,undefined -DF2D_FUZZ_GENERATE_CORPUS \
		"$root/tests/fuzz/fuzz_snapshot.c" "${srcs[@]}" "$lib" -o "$work/gen"
	rm -rf "$root/tests/fuzz/corpus_snapshot"
	mkdir -p "$root/tests/fuzz/corpus_snapshot"
	"$work/gen" "$root/tests/fuzz/corpus_snapshot"
	du -sh "$root/tests/fuzz/corpus_snapshot"
	exit 0
fi

"$cc" "${flags[@]}" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	"$root/tests/fuzz/fuzz_snapshot.c" "${srcs[@]}" "$lib" -o "$work/fuzz_snapshot"
fuzz_run fuzz_snapshot "$work/fuzz_snapshot" 65536 "$root/tests/fuzz/corpus_snapshot"
