#!/usr/bin/env bash
# The cost of the browser: fix2d-bench compiled to WebAssembly (Debian's emscripten, -O2, as the
# web page and the matrix's wasm cell) and run under node, against the native scalar build
# (gcc -O2 -DF2D_NO_SIMD: the same code paths as wasm, no AVX), for pyramid20 and rain1000;
# and the web page's .wasm + .js sizes when OUTDIR/www has them (replay/web/build.sh).
# usage: tests/bench/wasm_bench.sh OUTDIR [fix2d-bench options, default: --runs 5]
# Prints one 'scene ...' line per build and scene (fix2d-bench's) and a summary:
#   wasm <scene> ms_per_step <wasm> native_scalar <native> ratio <wasm/native>
# SPDX-License-Identifier: MIT
set -euo pipefail
out=${1:?usage: wasm_bench.sh OUTDIR [bench options]}
shift
opts=("$@")
[[ ${#opts[@]} -gt 0 ]] || opts=(--runs 5)
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
command -v emcc >/dev/null && command -v node >/dev/null || {
	echo "wasm_bench: needs emcc and node (apt-get install emscripten nodejs)" >&2
	exit 77
}
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
bash "$root/tests/matrix/libfixmath_wasm.sh" "$out/libfixmath-wasm" >/dev/null
lib=$(awk '/^add_library\(fix2d STATIC/ {on = 1} on {
	for (i = 1; i <= NF; ++i) if ($i ~ /\.c\)?$/) { f = $i; sub(/\)$/, "", f); print f }
	if ($0 ~ /\)/) exit }' "$root/CMakeLists.txt")
srcs=()
for f in $lib; do srcs+=("$root/$f"); done
mkdir -p "$out/include"
ln -sfn "$out/libfixmath-wasm/include/libfixmath" "$out/include/libfixmath"
ln -sfn /usr/include/xxhash.h "$out/include/xxhash.h"
inc=(-I"$root/include" -I"$root/src" -I"$out/include")
emcc -std=c11 -O2 "${inc[@]}" "${srcs[@]}" "$root/tests/bench/bench.c" \
	"$out/libfixmath-wasm/liblibfixmath.a" -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=1 \
	-sENVIRONMENT=node -o "$out/fix2d-bench-wasm.js"
gcc -std=c11 -O2 -DF2D_NO_SIMD -I"$root/include" -I"$root/src" "${srcs[@]}" \
	"$root/tests/bench/bench.c" /usr/lib/x86_64-linux-gnu/liblibfixmath.a \
	-o "$out/fix2d-bench-scalar"

declare -A wasm native
for s in pyramid20 rain1000; do
	w=$(node --no-experimental-fetch "$out/fix2d-bench-wasm.js" "$s" "${opts[@]}" | grep '^scene ')
	n=$("$out/fix2d-bench-scalar" "$s" "${opts[@]}" | grep '^scene ')
	echo "wasm:   $w"
	echo "native: $n"
	# the two builds must have simulated the same bits
	[[ $(awk '{for (i = 1; i < NF; ++i) if ($i == "hash") print $(i + 1)}' <<<"$w") == \
		$(awk '{for (i = 1; i < NF; ++i) if ($i == "hash") print $(i + 1)}' <<<"$n") ]] || {
		echo "wasm_bench: $s: wasm and native hashes differ" >&2
		exit 1
	}
	wasm[$s]=$(awk '{for (i = 1; i < NF; ++i) if ($i == "ms_per_step") print $(i + 1)}' <<<"$w")
	native[$s]=$(awk '{for (i = 1; i < NF; ++i) if ($i == "ms_per_step") print $(i + 1)}' <<<"$n")
done
for s in pyramid20 rain1000; do
	awk -v s="$s" -v w="${wasm[$s]}" -v n="${native[$s]}" \
		'BEGIN { printf "wasm %s ms_per_step %s native_scalar %s ratio %.2f\n", s, w, n, w / n }'
done
if [[ -f $out/www/fix2d.wasm ]]; then
	echo "page fix2d.wasm $(stat -c %s "$out/www/fix2d.wasm") bytes, fix2d.js $(stat -c %s "$out/www/fix2d.js") bytes" \
		"(gzip -9: $(gzip -9c "$out/www/fix2d.wasm" | wc -c) + $(gzip -9c "$out/www/fix2d.js" | wc -c) bytes)"
fi
