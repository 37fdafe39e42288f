#!/usr/bin/env bash
# Install test: build and install fix2d from SRC_DIR into WORK_DIR/prefix, then build the
# consumer in this folder against the install tree twice, through the CMake package
# (find_package(fix2d)) and through pkg-config, run both and check they print the same hash.
# Usage: run.sh SRC_DIR WORK_DIR
set -euo pipefail

if [ "$#" -ne 2 ]; then
	echo "usage: $0 SRC_DIR WORK_DIR" >&2
	exit 2
fi
src_dir=$(cd "$1" && pwd)
mkdir -p "$2"
work_dir=$(cd "$2" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix="$work_dir/prefix"

# Start clean: a stale install must not hide a broken one.
rm -rf "$work_dir/build" "$prefix" "$work_dir/consumer-build" "$work_dir/consumer-pc"

echo "== build and install fix2d into $prefix"
cmake -S "$src_dir" -B "$work_dir/build" -DFIX2D_BUILD_TESTS=OFF -DFIX2D_BUILD_TOOLS=OFF \
	-DCMAKE_INSTALL_PREFIX="$prefix"
cmake --build "$work_dir/build" --parallel
cmake --install "$work_dir/build"

echo "== consumer through the CMake package"
cmake -S "$here" -B "$work_dir/consumer-build" -DCMAKE_PREFIX_PATH="$prefix"
found_dir=$(sed -n 's/^fix2d_DIR:[A-Z]*=//p' "$work_dir/consumer-build/CMakeCache.txt")
case "$found_dir" in
"$prefix"/*) ;;
*)
	echo "FAIL: find_package(fix2d) used '$found_dir', not the install in $prefix" >&2
	exit 1
	;;
esac
cmake --build "$work_dir/consumer-build"
hash_cmake=$("$work_dir/consumer-build/consumer")
echo "cmake consumer: $hash_cmake"

echo "== consumer through pkg-config"
# GNUInstallDirs decides the library folder (lib, lib64 or lib/<multiarch>): find the .pc file.
pc_file=$(find "$prefix" -path '*/pkgconfig/fix2d.pc' | head -n 1)
if [ -z "$pc_file" ]; then
	echo "FAIL: no pkgconfig/fix2d.pc under $prefix" >&2
	exit 1
fi
pc_dir=$(dirname "$pc_file")
flags=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs fix2d)
echo "pkg-config --cflags --libs fix2d: $flags"
# $flags is word-split on purpose.
# shellcheck disable=SC2086
"${CC:-cc}" -std=c11 -Wall -Wextra -Wpedantic -Werror "$here/main.c" $flags \
	-o "$work_dir/consumer-pc"
hash_pc=$("$work_dir/consumer-pc")
echo "pkg-config consumer: $hash_pc"

if ! [[ "$hash_cmake" =~ ^[0-9a-f]{16}$ ]]; then
	echo "FAIL: the consumer printed '$hash_cmake', not a 16-digit hash" >&2
	exit 1
fi
if [ "$hash_cmake" != "$hash_pc" ]; then
	echo "FAIL: the CMake-built and pkg-config-built consumers disagree:" \
		"$hash_cmake vs $hash_pc" >&2
	exit 1
fi
echo "== the README's usage example, against the installed tree"
readme_example="$work_dir/readme_example.c"
# the first C block of the README is the usage example
awk '/^```c$/ && !done {f = 1; next} /^```$/ && f {f = 0; done = 1} f' "$src_dir/README.md" \
	>"$readme_example"
if [ ! -s "$readme_example" ]; then
	echo "FAIL: README.md has no C usage example" >&2
	exit 1
fi
# shellcheck disable=SC2086
"${CC:-cc}" -std=c11 -Wall -Wextra -Werror "$readme_example" $flags -o "$work_dir/readme_example"
readme_out=$("$work_dir/readme_example")
echo "README example: $readme_out"
if ! [[ "$readme_out" =~ ^y\ =\ [0-9]+/65536,\ hash\ [0-9a-f]{16}$ ]]; then
	echo "FAIL: the README example printed '$readme_out'" >&2
	exit 1
fi
echo "install_consumer: OK ($hash_cmake)"
