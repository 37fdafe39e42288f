#!/usr/bin/env bash
# fix2d tests: the configure-time libfixmath flavour check. Configuring fix2d against a
# libfixmath of another flavour (tests/flavour/fake_fixmath.c as a static library) must fail
# with a message that names the probe and the Debian package; against the real one it passes.
# usage: configure_check.sh SOURCE_DIR CC REAL_LIBFIXMATH WORKDIR
# SPDX-License-Identifier: MIT
set -uo pipefail

if [[ $# -ne 4 ]]; then
	echo "usage: $0 SOURCE_DIR CC REAL_LIBFIXMATH WORKDIR" >&2
	exit 2
fi
src=$1
cc=$2
real=$3
work=$4
rm -rf "$work"
mkdir -p "$work"

passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() {
	failed=$((failed + 1))
	echo "FAIL: $*"
}

configure() { # BUILD_DIR LIBRARY
	cmake -S "$src" -B "$1" -DFIX2D_BUILD_TESTS=OFF -DFIX2D_BUILD_TOOLS=OFF \
		-DCMAKE_C_COMPILER="$cc" -DFIXMATH_LIBRARY="$2" >"$1.log" 2>&1
}

# the real libfixmath: configure passes and reports the fingerprint
if configure "$work/real" "$real" && grep -q "libfixmath flavour: as fix2d needs (fingerprint " \
	"$work/real.log"; then
	pass
else
	fail "configuring against $real: $(tail -5 "$work/real.log")"
fi

# fakes: the faithful one passes, the others fail naming the package and the first bad probe
for flavour in exact no_rounding no_overflow exact_division exact_sqrt; do
	lib="$work/libfake_$flavour.a"
	if ! "$cc" -std=c11 -O2 -I"$src/include" -I"$src/src" -DF2D_FAKE_FLAVOUR_$flavour \
		-c "$src/tests/flavour/fake_fixmath.c" -o "$work/fake_$flavour.o" ||
		! ar rcs "$lib" "$work/fake_$flavour.o"; then
		fail "cannot build the fake libfixmath ($flavour)"
		continue
	fi
	# the fake provides the operations fix2d uses; the real archive supplies nothing else
	if configure "$work/$flavour" "$lib"; then
		if [[ $flavour == exact ]]; then pass; else
			fail "configuring against a libfixmath with $flavour passed"
		fi
	elif [[ $flavour == exact ]]; then
		fail "configuring against the faithful fake failed: $(tail -5 "$work/$flavour.log")"
	elif message=$(tr -s ' \n' ' ' <"$work/$flavour.log") &&
		grep -q "computes other bits than fix2d needs" <<<"$message" &&
		grep -q "apt-get install libfixmath-dev" <<<"$message" &&
		grep -Eq "fix16_(mul|div|sqrt)\(-?[0-9]+(, -?[0-9]+)?\) gives -?[0-9]+, fix2d needs" <<<"$message"; then
		pass
		echo "$flavour: refused: $(grep -Eo 'fix16_[a-z]+\([^)]*\) gives [^.]*' <<<"$message")"
	else
		fail "configuring against $flavour failed without the expected message: $(tail -8 "$work/$flavour.log")"
	fi
done

echo "flavour_configure: $passed passed, $failed failed"
[[ $failed == 0 ]]
