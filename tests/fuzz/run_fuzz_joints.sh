#!/usr/bin/env bash
# Builds the joint fuzzer (tests/fuzz/fuzz_joints.c) with clang
# -fsanitize=fuzzer,address,undefined and runs it for SECONDS on a copy of the seed corpus.
#   run_fuzz_joints.sh SECONDS [WORKDIR]   fuzz (default 60 s, WORKDIR build/fuzz-joints)
# Exit 0: no finding; 1: a crash, overflow or failed oracle (the input is left in WORKDIR as
# crash-*); 77: skipped, no clang with libFuzzer. The seed corpus (tests/fuzz/corpus_joints/)
# is a set of fixed pseudo-random programs; libFuzzer grows its own copy in WORKDIR/corpus.
set -euo pipefail
# shellcheck source=tests/fuzz/fuzz_common.sh
source "$(dirname "$0")/fuzz_common.sh"
fuzz_init fuzz_joints fuzz-joints "$@"
if [ "$mode" = regen ]; then
	echo "fuzz_joints: the seed corpus is fixed bytes; nothing to regenerate" >&2
	exit 0
fi

fuzz_libfixmath fuzz_joints
srcs=("$root"/src/*.c)
flags=(-std=c11 -g -O1 -fno-omit-frame-pointer -I"$root/include" -I"$root/src")
"$cc" "${flags[@]}" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	"$root/tests/fuzz/fuzz_joints.c" "${srcs[@]}" "$lib" -o "$work/fuzz_joints"
fuzz_run fuzz_joints "$work/fuzz_joints" 1024 "$root/tests/fuzz/corpus_joints"
