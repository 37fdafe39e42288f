#!/usr/bin/env bash
# Builds the web page: fix2d and fix2d-replay's verify/selftest compiled to WebAssembly with
# Debian's emscripten, libfixmath compiled from Debian's source package
# (tests/matrix/libfixmath_wasm.sh), the golden chains compiled in; then the page's static
# files. CMake runs it (target fix2d-web, when emcc is found); by hand:
#   bash replay/web/build.sh OUTDIR        then serve OUTDIR/www (python3 -m http.server)
# Writes OUTDIR/www/{index.html,app.js,fix2d.js,fix2d.wasm}.
# SPDX-License-Identifier: MIT
set -euo pipefail
out=${1:?usage: build.sh OUTDIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out/www"
out=$(cd "$out" && pwd)
command -v emcc >/dev/null || {
	echo "build.sh: emcc not found (apt-get install emscripten)" >&2
	exit 1
}
# emcc's JS optimizer needs Debian's node modules (acorn)
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

bash "$root/tests/matrix/libfixmath_wasm.sh" "$out/libfixmath-wasm" >/dev/null
cmake -DGOLDEN_DIR="$root/tests/golden" -DOUT="$out/golden_chains.c" \
	-P "$root/replay/golden_gen.cmake"

# the sources of the fix2d library and of fix2d-replay, as CMakeLists.txt lists them
lib=$(awk '/^add_library\(fix2d STATIC/ {on = 1} on {
	for (i = 1; i <= NF; ++i) if ($i ~ /\.c\)?$/) { f = $i; sub(/\)$/, "", f); print f }
	if ($0 ~ /\)/) exit }' "$root/CMakeLists.txt")
rep=$(awk '/add_executable\(fix2d-replay / {
	for (i = 1; i <= NF; ++i) if ($i ~ /\.c\)?$/) { f = $i; sub(/\)$/, "", f); print f }
	exit }' "$root/CMakeLists.txt")
[[ -n $lib && -n $rep ]] || {
	echo "build.sh: cannot read the source lists from CMakeLists.txt" >&2
	exit 1
}
mkdir -p "$out/include"
ln -sfn "$out/libfixmath-wasm/include/libfixmath" "$out/include/libfixmath"
ln -sfn /usr/include/xxhash.h "$out/include/xxhash.h"
srcs=()
for f in $lib $rep; do srcs+=("$root/$f"); done
# -O2 as the matrix's wasm cell; the page calls main()'s commands directly (INVOKE_RUN=0)
emcc -std=c11 -O2 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wvla -Werror \
	-I"$root/include" -I"$root/src" -I"$root/replay" -I"$out/include" \
	"${srcs[@]}" "$root/replay/web/web.c" "$out/golden_chains.c" \
	"$out/libfixmath-wasm/liblibfixmath.a" \
	-sMODULARIZE=1 -sEXPORT_NAME=createFix2d -sENVIRONMENT=web -sINVOKE_RUN=0 \
	-sALLOW_MEMORY_GROWTH=1 -sFORCE_FILESYSTEM=1 \
	-sEXPORTED_FUNCTIONS=_main,_malloc,_free \
	-sEXPORTED_RUNTIME_METHODS=ccall,cwrap,UTF8ToString,FS,HEAPF32 \
	-o "$out/www/fix2d.js"
cp "$root/replay/web/index.html" "$root/replay/web/app.js" "$out/www/"
echo "web page: $out/www (fix2d.wasm $(stat -c %s "$out/www/fix2d.wasm") bytes, fix2d.js $(stat -c %s "$out/www/fix2d.js") bytes)"
