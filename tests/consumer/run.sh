#!/usr/bin/env bash
# Install test: build fix2d from SRC_DIR, install it with `cmake --install --prefix` into a
# staging folder under WORK_DIR, MOVE the installed tree elsewhere, then build the consumer in
# this folder against the moved tree twice, through the CMake package (find_package(fix2d))
# and through pkg-config, run both and check they print the same hash. The install tree is
# relocatable: nothing in it may name the staging folder, and the configured prefix
# (/usr/local by default) is never used. Done for the default library folder (lib) and again
# for a deeper one (lib/x86_64-linux-gnu, as GNUInstallDirs picks for /usr on Debian).
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

# Start clean: a stale install must not hide a broken one.
rm -rf "$work_dir/build" "$work_dir/staged" "$work_dir/moved" "$work_dir/consumer-build" \
	"$work_dir/consumer-pc" "$work_dir/prefix"

echo "== build fix2d"
cmake -S "$src_dir" -B "$work_dir/build" -DFIX2D_BUILD_TESTS=OFF -DFIX2D_BUILD_TOOLS=OFF
cmake --build "$work_dir/build" --parallel 2

# install_moved LABEL: install the build with --prefix into a staging folder, move the tree to
# $work_dir/moved/LABEL/tree and print that path.
install_moved() {
	local staged="$work_dir/staged/$1" moved="$work_dir/moved/$1/tree"
	cmake --install "$work_dir/build" --prefix "$staged" >&2
	mkdir -p "$(dirname "$moved")"
	mv "$staged" "$moved"
	if grep -rIl -- "$staged" "$moved" >&2; then
		echo "FAIL: the files above name the staging folder $staged" >&2
		exit 1
	fi
	echo "$moved"
}

# check_consumers PREFIX: the CMake and pkg-config consumers against the tree at PREFIX;
# sets hash_cmake and flags.
check_consumers() {
	local prefix=$1
	rm -rf "$work_dir/consumer-build" "$work_dir/consumer-pc"

	echo "== consumer through the CMake package in $prefix"
	cmake -S "$here" -B "$work_dir/consumer-build" -DCMAKE_PREFIX_PATH="$prefix"
	local found_dir
	found_dir=$(sed -n 's/^fix2d_DIR:[A-Z]*=//p' "$work_dir/consumer-build/CMakeCache.txt")
	case "$found_dir" in
	"$prefix"/*) ;;
	*)
		echo "FAIL: find_package(fix2d) used '$found_dir', not the install in $prefix" >&2
		exit 1
		;;
	esac
	cmake --build "$work_dir/consumer-build"
	# the include folder and the library the consumer was built with come from the moved tree
	if ! grep -rq -- "$prefix/include" "$work_dir/consumer-build/CMakeFiles/consumer.dir/flags.make"; then
		echo "FAIL: the CMake consumer does not include $prefix/include" >&2
		exit 1
	fi
	if ! grep -rq -- "$prefix/lib" "$work_dir/consumer-build/CMakeFiles/consumer.dir/link.txt"; then
		echo "FAIL: the CMake consumer does not link the library in $prefix" >&2
		exit 1
	fi
	hash_cmake=$("$work_dir/consumer-build/consumer")
	echo "cmake consumer: $hash_cmake"

	echo "== consumer through pkg-config in $prefix"
	# GNUInstallDirs decides the library folder (lib, lib64 or lib/<multiarch>): find the .pc
	local pc_file pc_dir includedir libdir
	pc_file=$(find "$prefix" -path '*/pkgconfig/fix2d.pc' | head -n 1)
	if [ -z "$pc_file" ]; then
		echo "FAIL: no pkgconfig/fix2d.pc under $prefix" >&2
		exit 1
	fi
	pc_dir=$(dirname "$pc_file")
	includedir=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --variable=includedir fix2d)
	libdir=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --variable=libdir fix2d)
	if [ "$(cd "$includedir" && pwd)" != "$prefix/include" ] || [ ! -f "$includedir/fix2d/fix2d.h" ]; then
		echo "FAIL: fix2d.pc's includedir is '$includedir', not $prefix/include" >&2
		exit 1
	fi
	if [ ! -f "$libdir/libfix2d.a" ] || [ "$(cd "$libdir" && pwd)" != "$(cd "$pc_dir/.." && pwd)" ]; then
		echo "FAIL: fix2d.pc's libdir is '$libdir', not the folder of $pc_dir" >&2
		exit 1
	fi
	flags=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs fix2d)
	echo "pkg-config --cflags --libs fix2d: $flags"
	# $flags is word-split on purpose.
	# shellcheck disable=SC2086
	"${CC:-cc}" -std=c11 -Wall -Wextra -Wpedantic -Werror "$here/main.c" $flags \
		-o "$work_dir/consumer-pc"
	local hash_pc
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
}

echo "== install with --prefix, then move the tree (library folder lib)"
prefix=$(install_moved default)
check_consumers "$prefix"
first_hash=$hash_cmake

echo "== the README's usage example, against the moved tree"
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

echo "== the README's Game API example, against the moved tree"
game_example="$work_dir/game_example.c"
# the C block that follows the "## Game API" heading
awk '/^## Game API/ {g = 1} g && /^```c$/ && !done {f = 1; next} /^```$/ && f {f = 0; done = 1} f' \
	"$src_dir/README.md" >"$game_example"
if [ ! -s "$game_example" ]; then
	echo "FAIL: README.md has no Game API example" >&2
	exit 1
fi
# shellcheck disable=SC2086
"${CC:-cc}" -std=c11 -Wall -Wextra -Werror "$game_example" $flags -o "$work_dir/game_example"
game_out=$("$work_dir/game_example")
want_game=$(printf '%s\n' "step 10: entered the zone" "step 54: left the zone" "step 58: landed" \
	"step 58: hit the floor at 622440/65536 m/s" "ground below: yes, 58980/65536 m down")
if [ "$game_out" != "$want_game" ]; then
	printf 'FAIL: the Game API example printed:\n%s\nwanted (as the README says):\n%s\n' \
		"$game_out" "$want_game" >&2
	exit 1
fi
echo "Game API example: as the README says"

echo "== again with a deeper library folder (lib/x86_64-linux-gnu)"
cmake -S "$src_dir" -B "$work_dir/build" -DCMAKE_INSTALL_LIBDIR=lib/x86_64-linux-gnu
cmake --build "$work_dir/build" --parallel 2
prefix=$(install_moved multiarch)
if [ ! -f "$prefix/lib/x86_64-linux-gnu/pkgconfig/fix2d.pc" ]; then
	echo "FAIL: no lib/x86_64-linux-gnu/pkgconfig/fix2d.pc in $prefix" >&2
	exit 1
fi
check_consumers "$prefix"
if [ "$hash_cmake" != "$first_hash" ]; then
	echo "FAIL: the two installs give $first_hash and $hash_cmake" >&2
	exit 1
fi
echo "install_consumer: OK ($hash_cmake)"
