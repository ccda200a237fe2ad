#!/bin/sh
# SPDX-License-Identifier: MIT
# One way down: each library object file references only files on lower lines of
# lib/layers.txt (or of its own '+' group), as nm sees them; the CLI references only what
# libpbench.so exports. Usage: tests/layers/run.sh BUILD_DIR.
# Last line: "layers: N passed, N failed, N skipped".
set -u
O=${1:-build}
LIST=lib/layers.txt
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }

if ! command -v nm >/dev/null 2>&1; then
	echo "[SKIP] layers: nm is not installed (binutils)"
	echo "layers: 0 passed, 0 failed, 1 skipped"
	exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# module/name of the file named $1.
src() { awk -v f="$1" '$1 == f { print $2 "/" $1 }' "$T/paths"; }

# "file layer group" for every name of the list, bottom line = layer 1.
sed 's/#.*//' "$LIST" | awk '
	NF { layer++; for (i = 1; i <= NF; i++) { n = split($i, f, "+");
		for (j = 1; j <= n; j++) print f[j], layer, layer "." i } }' >"$T/layers"

# The list names every source file once, and nothing else.
# "name module" of every source file, lib/src/<module>/<name>.c (names are unique).
ls lib/src/*/*.c | sed 's|^lib/src/||; s|\.c$||' | awk -F/ '{ print $2, $1 }' | sort >"$T/paths"
cut -d' ' -f1 "$T/paths" >"$T/sources"
cut -d' ' -f1 "$T/layers" | sort >"$T/listed"
twice=$(uniq -d "$T/listed" | tr '\n' ' ')
unlisted=$(comm -23 "$T/sources" "$T/listed" | tr '\n' ' ')
gone=$(sort -u "$T/listed" | comm -13 "$T/sources" - | tr '\n' ' ')
if [ -z "$twice$unlisted$gone" ]; then
	ok "$LIST lists every lib/src/*/*.c once"
else
	bad "$LIST" "${unlisted:+not listed: $unlisted(add each to the line of its layer) }${twice:+listed twice: $twice}${gone:+no such file: $gone}"
fi

# Who defines what: global symbols only (a static helper is no one else's business).
: >"$T/defs"
for f in $(cat "$T/sources"); do
	o="$O/lib/src/$(src "$f").o"
	if [ ! -f "$o" ]; then
		bad "layers" "$o is missing: build first (make O=$O)"
		continue
	fi
	nm --defined-only "$o" | awk -v f="$f" 'NF == 3 && $2 ~ /^[A-Z]$/ { print $3, f }' >>"$T/defs"
done

# Each file's references to other library files, with both ends' layers: "from to sym".
for f in $(cat "$T/sources"); do
	o="$O/lib/src/$(src "$f").o"
	[ -f "$o" ] || continue
	nm -u "$o" | awk -v f="$f" '{ print $2, f }'
done >"$T/uses"
# "from: why to (syms); ..." for each file that references a file it must not.
if ! awk '
	FILENAME == ARGV[1] { layer[$1] = $2; group[$1] = $3; next }
	FILENAME == ARGV[2] { def[$1] = $2; next }
	{
		sym = $1; from = $2; to = def[sym]
		if (to == "" || to == from || !(from in layer) || !(to in layer)) next
		if (layer[to] < layer[from] || group[to] == group[from]) next
		k = from " " to
		if (!(k in syms)) {
			why[k] = layer[to] == layer[from] ? "sideways" : "upward"
			syms[k] = sym
			n[from]++
			pair[from, n[from]] = k
		} else {
			syms[k] = syms[k] ", " sym
		}
	}
	END {
		for (f in n) {
			msg = ""
			for (i = 1; i <= n[f]; i++) {
				k = pair[f, i]
				split(k, ft, " ")
				msg = msg (i > 1 ? "; " : "") why[k] " " ft[2] " (" syms[k] ")"
			}
			print f ": " msg
		}
	}' "$T/layers" "$T/defs" "$T/uses" >"$T/wrong"; then
	bad "layers" "the reference check itself failed (awk)"
fi
for f in $(cut -d' ' -f1 "$T/layers"); do
	[ -f "$O/lib/src/$(src "$f").o" ] || continue
	w=$(sed -n "s/^$f: //p" "$T/wrong")
	if [ -z "$w" ]; then
		ok "lib/src/$(src "$f").c references only lower layers"
	else
		bad "lib/src/$(src "$f").c" "references what it must not: $w; move the function down, or $f up in $LIST"
	fi
done

# The CLI is a client of the public API: what it takes from the library, the .so exports.
if [ -f "$O/libpbench.so" ]; then
	nm -D --defined-only "$O/libpbench.so" | awk 'NF == 3 { sub(/@.*/, "", $3); print $3 }' |
		sort -u >"$T/exported"
	cut -d' ' -f1 "$T/defs" | sort -u >"$T/libsyms"
	for o in "$O"/cli/*.o; do
		[ -f "$o" ] || continue
		nm -u "$o" | awk '{ print $2 }' | sort -u | comm -12 - "$T/libsyms" |
			comm -23 - "$T/exported" >"$T/internal"
		if [ -s "$T/internal" ]; then
			bad "cli/$(basename "$o" .o).c" "uses library internals: $(tr '\n' ' ' <"$T/internal")"
		else
			ok "cli/$(basename "$o" .o).c uses only exported symbols"
		fi
	done
else
	skip=$((skip + 1))
	echo "[SKIP] cli: $O/libpbench.so is missing"
fi

echo "layers: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
