#!/usr/bin/env bash
# Builds the replay-reader fuzzer (tests/fuzz/fuzz_replay.c: the .f2r parser, the command
# decoder and the input layer behind it; checksums are skipped in this build so mutations reach
# the parsers) with clang -fsanitize=fuzzer,address,undefined and runs it for SECONDS on a copy
# of the seed corpus tests/fuzz/corpus_replay/.
#   run_fuzz_replay.sh [SECONDS [WORKDIR]]
# Exit 0: nothing found; 1: a crash or leak (the input is left in WORKDIR); 77: skipped, no
# clang with the libFuzzer runtime (Debian: apt-get install clang libclang-rt-14-dev).
set -euo pipefail
# shellcheck source=tests/fuzz/fuzz_common.sh
source "$(dirname "$0")/fuzz_common.sh"
fuzz_init fuzz_replay fuzz-replay "$@"
if [ "$mode" = regen ]; then
	echo "fuzz_replay: the seed corpus is recorded with fix2d-replay record (see tests/fuzz/corpus_replay)" >&2
	exit 2
fi
fuzz_libfixmath fuzz_replay
xxh=$(dirname "$(echo '#include <xxhash.h>' | "$cc" -E -M -x c - | tr ' ' '\n' | grep '/xxhash.h$' | head -1)")
"$cc" -std=c11 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION \
	-I"$root/include" -I"$root/src" -I"$root/replay" -I"$xxh" \
	"$root/tests/fuzz/fuzz_replay.c" "$root/replay/f2r.c" "$root"/src/*.c "$lib" \
	-o "$work/fuzz_replay"
fuzz_run fuzz_replay "$work/fuzz_replay" 8192 "$root/tests/fuzz/corpus_replay"
