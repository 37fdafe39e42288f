#!/usr/bin/env bash
# Builds libfixmath for WebAssembly (emcc) from Debian's own source package, the same version
# as the native libfixmath-dev, through the Debian archive only: apt's signed Sources index and
# `apt-get source` (checksums checked by apt), with a private apt state in the work folder so
# the machine's apt configuration is not touched. Debian ships no wasm build of libfixmath.
# SPDX-License-Identifier: MIT
#
# usage: tests/matrix/libfixmath_wasm.sh OUTDIR
# Writes OUTDIR/liblibfixmath.a and OUTDIR/include/libfixmath/*.h; OUTDIR/source.txt says what
# was built from. A second run with the same version reuses them (the source is not fetched
# again). Needs emcc (Debian's emscripten), emar and network access to the Debian archive.
# Exit status: 0 built (or cached), 1 failure.
set -euo pipefail
out=${1:?usage: libfixmath_wasm.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The version: the native libfixmath-dev's (the golden chains were made with it), else apt's
# candidate.
version=$(dpkg-query -W -f='${Version}' 'libfixmath-dev:amd64' 2>/dev/null ||
	dpkg-query -W -f='${Version}' libfixmath-dev 2>/dev/null || true)
if [[ -z $version ]]; then
	version=$(apt-cache policy libfixmath-dev | awk '/Candidate:/ {print $2}')
fi
[[ -n $version && $version != "(none)" ]] || {
	echo "libfixmath_wasm: no libfixmath-dev version known (apt-get update?)" >&2
	exit 1
}
if [[ -f $out/liblibfixmath.a && -f $out/source.txt ]] &&
	grep -qx "version $version" "$out/source.txt"; then
	exit 0
fi
rm -rf "$out/apt" "$out/src" "$out/obj" "$out/include" "$out/liblibfixmath.a" "$out/source.txt"
mkdir -p "$out/apt/parts" "$out/apt/lists/partial" "$out/apt/cache/archives/partial" "$out/src"

# deb-src for the suites the machine's own sources use (deb.debian.org, bookworm)
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
cat >"$out/apt/parts/debian-src.sources" <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
apt_opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$out/apt/parts"
	-o "Dir::State::Lists=$out/apt/lists" -o "Dir::Cache=$out/apt/cache"
	-o APT::Sandbox::User=root -o Acquire::Retries=3)
apt-get "${apt_opts[@]}" update -qq >"$out/apt/update.log" 2>&1 || {
	cat "$out/apt/update.log" >&2
	echo "libfixmath_wasm: apt-get update of the deb-src index failed" >&2
	exit 1
}
# What apt will fetch, with the SHA256 from the signed Sources index.
apt-get "${apt_opts[@]}" source --print-uris "libfixmath=$version" 2>/dev/null |
	grep "^'" >"$out/apt/uris.txt" || true
orig=$(awk '$2 ~ /\.orig\.tar\./ {print $2}' "$out/apt/uris.txt")
[[ -n $orig ]] || {
	echo "libfixmath_wasm: the archive has no source of libfixmath $version" >&2
	exit 1
}
(cd "$out/src" && apt-get "${apt_opts[@]}" source --download-only "libfixmath=$version") \
	>"$out/apt/source.log" 2>&1 || true
# apt checked every file it fetched against the index; check the tarball again here, as the
# index says, since apt-get source exits non-zero when any one file (the Debian packaging
# diff) is missing
want=$(awk -v f="$orig" '$2 == f {sub(/^SHA256:/, "", $4); print $4}' "$out/apt/uris.txt")
got=$(sha256sum "$out/src/$orig" 2>/dev/null | awk '{print $1}')
if [[ -z $got || $got != "$want" ]]; then
	cat "$out/apt/source.log" >&2
	echo "libfixmath_wasm: $orig missing or its SHA256 is not the archive's ($want)" >&2
	exit 1
fi
debian_tar=$(awk '$2 ~ /\.debian\.tar\./ {print $2}' "$out/apt/uris.txt")
if [[ -n $debian_tar && -f $out/src/$debian_tar ]] && command -v dpkg-source >/dev/null; then
	# the whole source package: Debian's patches applied
	(cd "$out/src" && dpkg-source -x --no-check ./*.dsc tree) >/dev/null
	how="dpkg-source -x (upstream tarball and Debian's packaging, patches applied)"
else
	# The packaging (debian/: rules, changelog) could not be fetched; the changelog the binary
	# package ships lists no source patches, and f2d_check_math_flavour checks the bits the
	# result computes in any case.
	mkdir -p "$out/src/tree"
	tar -xf "$out/src/$orig" -C "$out/src/tree"
	how="upstream tarball $orig only (the Debian packaging diff was not available: $(grep -m1 -E '^(Err|E:)' "$out/apt/source.log" || echo missing))"
fi
lib=$out/src/tree/libfixmath
[[ -f $lib/fix16.h ]] || {
	echo "libfixmath_wasm: no libfixmath/fix16.h in the source" >&2
	exit 1
}

# The members of Debian's liblibfixmath.a, compiled as its CMakeLists.txt does (C11), -O2.
mkdir -p "$out/obj" "$out/include/libfixmath"
objs=()
for f in fix16 fix16_exp fix16_fft fix16_sqrt fix16_str fix16_trig fract32 uint32; do
	emcc -std=c11 -O2 -Wall -Wextra -c "$lib/$f.c" -o "$out/obj/$f.c.o"
	objs+=("$out/obj/$f.c.o")
done
emar rcs "$out/liblibfixmath.a" "${objs[@]}"
cp "$lib"/*.h "$lib"/*.hpp "$out/include/libfixmath/"
{
	echo "version $version"
	echo "from $how"
	echo "sha256 $want $orig"
	echo "emcc $(emcc --version 2>/dev/null | sed -n 1p)"
} >"$out/source.txt"
cat "$out/source.txt"
