#!/usr/bin/env bash
# fix2d-replay selftest (the conformance self-test with the golden chains compiled in):
#  - the real build says 'conformance ok <scenes> scenes <steps> steps' for every chain in
#    tests/golden/, every step (exit 0), and so does each scene alone;
#  - a deliberately broken build (F2D_TEST_PERTURB_STEP, one LSB at that step) is reported as
#    'conformance FAILED: scene <first catalogue scene> step <that step>: ...' (exit 1), and per
#    scene at exactly that step;
#  - usage errors exit 2.
# usage: selftest.sh FIX2D_REPLAY FIX2D_REPLAY_PERTURBED PERTURB_STEP GOLDEN_DIR
# SPDX-License-Identifier: MIT
set -uo pipefail
replay=$1 perturbed=$2 pstep=$3 golden=$4
passed=0 failed=0
check() { # NAME COMMAND-RESULT-OK
	if [[ $2 == 0 ]]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $1"
	fi
}

scenes=$(ls "$golden"/*.chain | wc -l)
steps=$(cat "$golden"/*.chain | wc -l)
out=$("$replay" selftest)
rc=$?
echo "$out"
[[ $rc == 0 && $out == "conformance ok $scenes scenes $steps steps" ]]
check "selftest: exit $rc, '$out', wants 'conformance ok $scenes scenes $steps steps'" $?

# the first scene the self-test runs: the catalogue's first that has a chain
first=""
while read -r name _; do
	if [[ -f $golden/$name.chain ]]; then
		first=$name
		break
	fi
done < <("$replay" scenes)
out=$("$perturbed" selftest)
rc=$?
echo "$out"
[[ $rc == 1 && $out =~ ^conformance\ FAILED:\ scene\ $first\ step\ $pstep:\ hash\ [0-9a-f]{16},\ golden\ [0-9a-f]{16}$ ]]
check "perturbed selftest: exit $rc, '$out', wants scene $first step $pstep" $?
# the golden hash it names is the chain's at that step
want=$(sed -n "${pstep}p" "$golden/$first.chain" | awk '{print $4}')
[[ $out == *"golden $want" ]]
check "perturbed selftest names golden hash $want" $?

for f in "$golden"/*.chain; do
	s=$(basename "$f" .chain)
	n=$(wc -l <"$f")
	out=$("$replay" selftest --scene "$s")
	[[ $? == 0 && $out == "conformance ok 1 scenes $n steps" ]]
	check "selftest --scene $s: '$out'" $?
	out=$("$perturbed" selftest --scene "$s")
	[[ $? == 1 && $out == "conformance FAILED: scene $s step $pstep: "* ]]
	check "perturbed selftest --scene $s: '$out'" $?
done

# --verbose: the fingerprint line, one line per scene, then the verdict
out=$("$replay" selftest --verbose)
[[ $? == 0 && $(grep -c '^scene [a-z0-9_]* [0-9]* steps ok$' <<<"$out") == "$scenes" &&
	$(head -1 <<<"$out") == "fingerprint $(awk '{print $2}' "$golden/fingerprint.txt") flavour ok" &&
	$(tail -1 <<<"$out") == "conformance ok $scenes scenes $steps steps" ]]
check "selftest --verbose" $?

for bad in "--scene" "--scene nosuch" "--scene large_pyramid" "--bogus"; do
	# shellcheck disable=SC2086
	"$replay" selftest $bad >/dev/null 2>&1
	rc=$?
	[[ $rc == 2 ]]
	check "selftest $bad exits 2 (got $rc)" $?
done

echo "selftest: $passed passed, $failed failed"
[[ $failed == 0 ]]
