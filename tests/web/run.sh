#!/usr/bin/env bash
# The web page in headless Chromium (tests/web/browser_test.mjs): installs playwright-core
# (pinned in replay/web/package.json and package-lock.json) into the build tree with npm ci,
# computes what the page must show with the native tools, and runs the browser test.
# usage: run.sh WWW_DIR FIX2D_REPLAY FIX2D_REPLAY_PERTURBED GOLDEN_DIR WORK_DIR
# Skips (exit 77, with the install line) when the page was not built (no emcc) or chromium,
# node or npm is missing, except under CI=true, where that fails (.ci/run installs them).
# SPDX-License-Identifier: MIT
set -uo pipefail
www=$1 replay=$2 perturbed=$3 golden=$4 work=$5
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
chromium=${F2D_CHROMIUM:-/usr/bin/chromium}

missing=""
[[ -f $www/fix2d.wasm && -f $www/index.html ]] || missing+=" the web page ($www: needs emcc: apt-get install emscripten)"
[[ -x $chromium ]] || missing+=" chromium (apt-get install chromium)"
command -v node >/dev/null || missing+=" node (apt-get install nodejs)"
command -v npm >/dev/null || missing+=" npm (apt-get install npm)"
if [[ -n $missing ]]; then
	echo "web: missing:$missing"
	if [[ ${CI:-} == true ]]; then
		echo "web: 0 passed, 1 failed"
		exit 1
	fi
	echo "web: skipped"
	exit 77
fi
mkdir -p "$work"
work=$(cd "$work" && pwd)

# playwright-core, exactly as locked, in the build tree (never in the source tree)
npm_dir=$work/npm
if ! cmp -s "$root/replay/web/package-lock.json" "$npm_dir/package-lock.json" ||
	[[ ! -f $npm_dir/node_modules/playwright-core/package.json ]]; then
	rm -rf "$npm_dir"
	mkdir -p "$npm_dir"
	cp "$root/replay/web/package.json" "$root/replay/web/package-lock.json" "$npm_dir/"
	(cd "$npm_dir" && npm ci --ignore-scripts --no-audit --no-fund --cache "$work/npm-cache") ||
		{
			echo "web: npm ci failed"
			echo "web: 0 passed, 1 failed"
			exit 1
		}
fi

# what the page must show, from the native build
want_hash=$(sed -n '300p' "$golden/pyramid20.chain" | awk '{print $4}')
selftest=$("$replay" selftest)
# the dynamic bodies of pyramid20 at step 300 (body 0 is the static ground): id, x, y
bodies=$("$replay" run pyramid20 --steps 300 --bodies | awk '$1 == "body" && $2 != 0 {
	printf "%s[%s,%s,%s]", (n++ ? "," : ""), $2, $3, $4 }')
"$replay" record pyramid --frames 180 --inputs random:3 -o "$work/good.f2r" >/dev/null || exit 1
# a replay recorded by a build that perturbs step 61: the native verify reports a divergence
"$perturbed" record pyramid --frames 180 --inputs random:3 --keyframe-every 30 \
	-o "$work/diverged.f2r" >/dev/null || exit 1
replays=""
for f in good diverged; do
	out=$("$replay" verify "$work/$f.f2r" 2>&1)
	status=$?
	replays+="${replays:+,}{\"path\":\"$work/$f.f2r\",\"status\":$status,\"output\":$(printf '%s' "$out" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.stringify(s)))')}"
done
cat >"$work/expect.json" <<JSON
{"pyramid20_300": "$want_hash", "selftest": "$selftest", "bodies": [$bodies],
 "replays": [$replays], "screenshot": "$work/pyramid20-300.png"}
JSON

F2D_NPM_DIR=$npm_dir F2D_CHROMIUM=$chromium \
	node "$here/browser_test.mjs" "$(cd "$www" && pwd)" "$work/expect.json"
