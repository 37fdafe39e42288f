#!/usr/bin/env bash
# Builds the netdemo packet fuzzer (tests/fuzz/fuzz_packet.c with netdemo/packet.c,
# netdemo/auth.c and netdemo/session.c, linked with libsodium) with clang -fsanitize=fuzzer,address,undefined and runs it for SECONDS on a
# copy of the seed corpus.
#   run_fuzz_packet.sh SECONDS [WORKDIR]   fuzz (default 60 s, WORKDIR build/fuzz-packet)
#   run_fuzz_packet.sh --regen             rewrite the seed corpus tests/fuzz/corpus_packet/
# Exit 0: no finding; 1: a crash, leak or failed oracle (the input is left in WORKDIR as
# crash-*/leak-*); 77: skipped, no clang with libFuzzer (Debian: apt-get install clang).
set -euo pipefail
# shellcheck source=tests/fuzz/fuzz_common.sh
source "$(dirname "$0")/../fuzz/fuzz_common.sh"
fuzz_init fuzz_packet fuzz-packet "$@"
srcs=("$root/netdemo/packet.c" "$root/netdemo/auth.c" "$root/netdemo/session.c")
flags=(-std=c11 -g -O1 -fno-omit-frame-pointer -Wall -Wextra -Wpedantic -Werror -I"$root/netdemo")
# shellcheck disable=SC2207
sodium=($(pkg-config --cflags --libs libsodium)) || {
	echo "fuzz_packet: libsodium not found (apt-get install libsodium-dev)" >&2
	exit 1
}

if [ "$mode" = regen ]; then
	"$cc" "${flags[@]}" -fsanitize=address,undefined -DND_FUZZ_GENERATE_CORPUS \
		"$root/tests/fuzz/fuzz_packet.c" "${srcs[@]}" "${sodium[@]}" -o "$work/gen"
	rm -rf "$root/tests/fuzz/corpus_packet"
	mkdir -p "$root/tests/fuzz/corpus_packet"
	"$work/gen" "$root/tests/fuzz/corpus_packet"
	du -sh "$root/tests/fuzz/corpus_packet"
	exit 0
fi

"$cc" "${flags[@]}" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	"$root/tests/fuzz/fuzz_packet.c" "${srcs[@]}" "${sodium[@]}" -o "$work/fuzz_packet"
fuzz_run fuzz_packet "$work/fuzz_packet" 8192 "$root/tests/fuzz/corpus_packet"
