#!/usr/bin/env bash
# fix2d no-float check (x86-64): nothing that feeds the simulation uses floating point.
# SPDX-License-Identifier: MIT
#
# usage: tests/matrix/no_float.sh [WORKDIR]
#
#  1. The step-path sources (every library source but hash.c, scenes.c and convert.c) compile
#     with gcc -mgeneral-regs-only, which refuses any float, double or SSE/x87 register use.
#  2. Every library object but convert.o (the user conversions, the one file allowed doubles),
#     built by gcc and clang at -O0, -O2 and -O3 (and clang -O3 -ffast-math), is disassembled
#     and must contain no x87 instruction and no SSE/AVX floating-point arithmetic, comparison
#     or conversion (integer SIMD and plain moves are fine: clang copies 8-byte structs with
#     movsd, which moves bits and computes nothing).
#  3. Controls, so that the check can fail: a file computing with a double must be refused by
#     (1) and flagged by (2), and convert.o must be flagged by (2).
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$root/build/no_float}
rm -rf "$work"
mkdir -p "$work/include"
ln -sfn /usr/include/libfixmath "$work/include/libfixmath"
ln -sfn /usr/include/xxhash.h "$work/include/xxhash.h"
inc=(-I"$root/include" -I"$root/src" -I"$work/include")
std=(-std=c11 -Wall -Wextra -Werror)

if [[ $(uname -m) != x86_64 ]]; then
	echo "no_float: x86-64 only (this is $(uname -m)); skipped"
	exit 77
fi
for tool in gcc objdump; do
	command -v $tool >/dev/null || {
		echo "no_float: $tool not found"
		exit 1
	}
done

# The library sources as CMakeLists.txt lists them.
mapfile -t lib_sources < <(awk '/^add_library\(fix2d STATIC/ {on = 1} on {
	for (i = 1; i <= NF; ++i) if ($i ~ /\.c\)?$/) { f = $i; sub(/\)$/, "", f); print f }
	if ($0 ~ /\)/) exit }' "$root/CMakeLists.txt")
if [[ ${#lib_sources[@]} -lt 8 ]]; then
	echo "no_float: cannot read the library sources from CMakeLists.txt"
	exit 1
fi

passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() {
	failed=$((failed + 1))
	echo "FAIL: $*"
}

# Float instructions in the disassembly of OBJ, one "function: instruction" per line.
float_instructions() {
	objdump -d --no-show-raw-insn "$1" | awk '
		/^[0-9a-f]+ <.*>:$/ { fn = $2; gsub(/[<>:]/, "", fn); next }
		/^ *[0-9a-f]+:\t/ {
			sub(/^ *[0-9a-f]+:\t/, "")
			n = split($0, w, /[ \t]+/)
			for (i = 1; i <= n; ++i) {
				t = w[i]
				if (t ~ /[%$(<,]/ || t ~ /^0x/ || t ~ /^[0-9a-f]+$/) break
				if (t ~ /^f[a-z0-9]*$/ ||
				    t ~ /^v?(add|sub|mul|div|sqrt|min|max|rcp|rsqrt|round|hadd|hsub|addsub|dp)(ss|sd|ps|pd)$/ ||
				    t ~ /^v?f(n?m(add|sub)|maddsub|msubadd)[0-9]*(ss|sd|ps|pd)$/ ||
				    t ~ /^v?u?comis[sd]$/ || t ~ /^v?cmp[a-z]*(ss|sd|ps|pd)$/ ||
				    t ~ /^v?cvt[a-z0-9]*$/) {
					print fn ": " $0
					break
				}
			}
		}'
}

# ---- 1. gcc -mgeneral-regs-only on the step path ----
step_path=()
for f in "${lib_sources[@]}"; do
	case $f in
	src/hash.c | src/scenes.c | src/convert.c) ;;
	*) step_path+=("$f") ;;
	esac
done
for f in "${step_path[@]}"; do
	if gcc "${std[@]}" -O2 -mgeneral-regs-only "${inc[@]}" -c "$root/$f" \
		-o "$work/gro-$(basename "$f" .c).o" 2>"$work/gro.err"; then
		pass
	else
		fail "$f does not compile with gcc -mgeneral-regs-only: $(head -c 300 "$work/gro.err")"
	fi
done
echo "no_float: ${#step_path[@]} step-path sources compile with gcc -mgeneral-regs-only: ${step_path[*]}"

# ---- 2. disassembly of every library object but convert.o ----
configs=("gcc -O0" "gcc -O2" "gcc -O3")
if command -v clang >/dev/null; then
	configs+=("clang -O0" "clang -O3" "clang -O3 -ffast-math")
else
	echo "no_float: clang not found; scanning gcc objects only"
fi
scanned=0
failed_before=$failed
for config in "${configs[@]}"; do
	read -r -a cc <<<"$config"
	dir="$work/$(tr ' ' '_' <<<"$config")"
	mkdir -p "$dir"
	for f in "${lib_sources[@]}"; do
		[[ $f == src/convert.c ]] && continue
		o="$dir/$(basename "$f" .c).o"
		if ! "${cc[@]}" "${std[@]}" "${inc[@]}" -c "$root/$f" -o "$o" 2>"$work/cc.err"; then
			fail "$config cannot compile $f: $(head -c 300 "$work/cc.err")"
			continue
		fi
		found=$(float_instructions "$o")
		if [[ -n $found ]]; then
			fail "$config $f has floating-point instructions:"$'\n'"$(head -20 <<<"$found")"
		else
			pass
		fi
		scanned=$((scanned + 1))
	done
done
if [[ $failed == "$failed_before" ]]; then
	echo "no_float: $scanned objects (${configs[*]}): no x87 or SSE/AVX float instruction"
fi

# ---- 3. controls: the check sees floating point where there is some ----
cat >"$work/control.c" <<'EOF'
#include <stdint.h>
int32_t scaled(int32_t a, int32_t b) { return (int32_t)((double)a * (double)b / 65536.0); }
EOF
if gcc "${std[@]}" -O2 -mgeneral-regs-only -c "$work/control.c" -o "$work/control-gro.o" \
	2>/dev/null; then
	fail "control: gcc -mgeneral-regs-only accepted a double multiplication"
else
	pass
fi
gcc "${std[@]}" -O2 -c "$work/control.c" -o "$work/control.o"
if [[ -n $(float_instructions "$work/control.o") ]]; then pass; else
	fail "control: the disassembly scan missed a double multiplication"
fi
gcc "${std[@]}" -O2 "${inc[@]}" -c "$root/src/convert.c" -o "$work/convert.o"
if [[ -n $(float_instructions "$work/convert.o") ]]; then pass; else
	fail "control: the disassembly scan finds no float in src/convert.c"
fi

echo "no_float: $passed passed, $failed failed"
[[ $failed == 0 ]]
