#!/usr/bin/env bash
# Builds the replay-reader fuzzer (tests/fuzz/fuzz_replay.c: the .f2r parser, the command
# decoder and the input layer behind it) with clang -fsanitize=fuzzer,address,undefined and
# runs it for SECONDS on a copy of the seed corpus tests/fuzz/corpus_replay/.
#   run_fuzz_replay.sh [SECONDS [WORKDIR]]
# Exit 0: nothing found; 1: a crash or leak (the input is left in WORKDIR); 77: skipped, no
# clang with the libFuzzer runtime (Debian: apt-get install clang).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
work=${2:-$root/build/fuzz-replay}
cc=clang
mkdir -p "$work"
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "fuzz_replay: skipped: clang not found (apt-get install clang)"
	exit 77
fi
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' >"$work/probe.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$work/probe.c" -o "$work/probe" >/dev/null 2>&1; then
	echo "fuzz_replay: skipped: clang cannot link -fsanitize=fuzzer (apt-get install clang)"
	exit 77
fi
lib=$("$cc" -print-file-name=liblibfixmath.a)
xxh=$(dirname "$(echo '#include <xxhash.h>' | "$cc" -E -M -x c - | tr ' ' '\n' | grep '/xxhash.h$' | head -1)")
# shellcheck disable=SC2046
"$cc" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -I"$root/include" -I"$root/src" \
	-I"$root/replay" -I"$xxh" "$root/tests/fuzz/fuzz_replay.c" "$root/replay/f2r.c" \
	$(sed -n '/^add_library(fix2d STATIC/,/)/p' "$root/CMakeLists.txt" | grep -o 'src/[a-z_]*\.c' | sed "s|^|$root/|") \
	"$lib" -o "$work/fuzz_replay"
rm -rf "$work/corpus"
cp -r "$root/tests/fuzz/corpus_replay" "$work/corpus"
cd "$work"
if "$work/fuzz_replay" -max_total_time="$secs" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
	"$work/corpus" >"$work/log" 2>&1; then
	echo "fuzz_replay: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$work/log"), nothing found"
	echo "fuzz_replay: 1 passed, 0 failed"
else
	tail -30 "$work/log"
	echo "fuzz_replay: 0 passed, 1 failed"
	exit 1
fi
