#!/bin/sh
# SPDX-License-Identifier: MIT
# One way down, for modules and for files, with no exception (lib/layers.txt says the order):
#  - every lib/src/<module>/<name>.c is listed once, in the section of its folder, and every
#    section is a folder;
#  - each library object file references (nm) only files on lower lines: nothing on its own
#    line, nothing above;
#  - no module references a module opened after it;
#  - a private header ("<module>/<header>.h") is included only from its own module or from a
#    module above it;
#  - a module's inner header ("<module>/<name>_inner.h": its structs) is included only from its
#    own folder, anywhere in the tree (lib, cli, tests, bench, kmod-free-docs), but for the
#    whitebox files listed with their reason in tests/layers/inner.txt;
#  - nothing lies outside the module folders, and private header names are unique;
#  - the CLI references only what libpbench.so exports, and includes only pbench.h, its own
#    headers and its support library's (support/support.h);
#  - the CLI's support library (cli/support/, build/libpbench-cli.a, linked into pbench only)
#    defines only cli_* globals, includes pbench.h, support.h and at most base/base.h of
#    lib/src, and references what libpbench.so exports or, in a file whose top comment names
#    base/base.h (and says why), what the base module defines; the library defines no cli_*.
# Usage: tests/layers/run.sh BUILD_DIR [LIST]. Last line: "layers: N passed, N failed, N skipped".
set -u
O=${1:-build}
LIST=${2:-lib/layers.txt}
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

# The list: "file line module rank" for every file ("line" counts the file lines from the
# bottom of the whole list, "rank" the modules), "module rank" for every module, and a
# line per mistake of form (nothing but [module] lines, names and comments is accepted).
if ! awk -v files="$T/layers" -v mods="$T/modules" -v list="$LIST" '
	{ sub(/#.*/, "") }
	!NF { next }
	/^\[[a-z0-9_]+\][ \t]*$/ {
		m = $0; sub(/^\[/, "", m); sub(/\].*/, "", m)
		if (m in rank) { print list ":" NR ": module [" m "] opened twice: one section a module"; next }
		rank[m] = ++nmod; cur = m; print m, nmod >mods
		next
	}
	{
		if (cur == "") { print list ":" NR ": \"" $0 "\" comes before any [module] line"; next }
		line++
		for (i = 1; i <= NF; i++) {
			if ($i ~ /\+/) {
				print list ":" NR ": \"" $i "\": no \"+\": files that use each other are a cycle; move what they share into a file below both and give each its own line"
				continue
			}
			if ($i !~ /^[a-z0-9_]+$/) {
				print list ":" NR ": \"" $i "\" is not a file name (<name> of lib/src/" cur "/<name>.c)"
				continue
			}
			print $i, line, cur, rank[cur] >files
		}
	}' "$LIST" >"$T/form"; then
	bad "$LIST" "cannot be read"
fi
touch "$T/layers" "$T/modules"
if [ -s "$T/form" ]; then
	bad "$LIST" "$(tr '\n' ';' <"$T/form")"
else
	ok "$LIST is [module] sections of file names, with no '+'"
fi

# "name module" of every source file, lib/src/<module>/<name>.c.
ls lib/src/*/*.c | sed 's|^lib/src/||; s|\.c$||' | awk -F/ '{ print $2, $1 }' | sort >"$T/paths"

# Every file once, in the section of its folder; every section a folder, every folder a section.
cut -d' ' -f1 "$T/paths" | sort >"$T/sources"
cut -d' ' -f1 "$T/layers" | sort >"$T/listed"
twice=$(uniq -d "$T/listed" | tr '\n' ' ')
unlisted=$(comm -23 "$T/sources" "$T/listed" | tr '\n' ' ')
gone=$(sort -u "$T/listed" | comm -13 "$T/sources" - | tr '\n' ' ')
dup=$(cut -d' ' -f1 "$T/paths" | uniq -d | tr '\n' ' ')
misplaced=$(awk 'FILENAME == ARGV[1] { dir[$1] = $2; next }
	($1 in dir) && dir[$1] != $3 { printf "%s (in lib/src/%s/, listed under [%s]) ", $1, dir[$1], $3 }' \
	"$T/paths" "$T/layers")
ls -d lib/src/*/ | sed 's|^lib/src/||; s|/$||' | sort >"$T/folders"
cut -d' ' -f1 "$T/modules" | sort >"$T/sections"
nosection=$(comm -23 "$T/folders" "$T/sections" | tr '\n' ' ')
nofolder=$(comm -13 "$T/folders" "$T/sections" | tr '\n' ' ')
if [ -z "$twice$unlisted$gone$dup$misplaced$nosection$nofolder" ]; then
	ok "$LIST lists every lib/src/*/*.c once, in the section of its folder"
else
	bad "$LIST" "${unlisted:+not listed: $unlisted(add each to its module's section, on the line of its layer) }${twice:+listed twice: $twice}${gone:+no such file: $gone}${dup:+file names not unique across lib/src: $dup}${misplaced:+in the wrong section: $misplaced(list a file under its folder's [module], or move the file) }${nosection:+folders with no [module] section: $nosection}${nofolder:+sections with no lib/src/<module>/ folder: $nofolder}"
fi

# Who defines what: global symbols only (a static helper is no one else's business). One nm
# for all the objects (-A: each line names its object), not one per file: ~200 processes less.
objs=
while read -r f m; do
	o="$O/lib/src/$m/$f.o"
	if [ -f "$o" ]; then
		objs="$objs $o"
	else
		bad "layers" "$o is missing: build first (make O=$O)"
	fi
done <"$T/paths"
: >"$T/defs"
: >"$T/uses"
if [ -n "$objs" ]; then
	# "path/name.o:address T sym": the file's name, from its object's.
	nm -A --defined-only $objs | awk 'NF == 3 && $2 ~ /^[A-Z]$/ {
		f = $1; sub(/\.o:.*$/, "", f); sub(/.*\//, "", f); print $3, f }' >"$T/defs"
	# Each file's references to other library files: "sym from".
	nm -A -u $objs | awk '{ f = $1; sub(/\.o:.*$/, "", f); sub(/.*\//, "", f); print $NF, f }' >"$T/uses"
fi

# "from to sym" for every reference to another file, with both ends listed.
awk 'FILENAME == ARGV[1] { def[$1] = $2; next }
	{ to = def[$1]; if (to != "" && to != $2) print $2, to, $1 }' "$T/defs" "$T/uses" |
	sort -u >"$T/refs"

# Files: "from: why to (syms); ..." for each file that references a file it must not.
if ! awk '
	FILENAME == ARGV[1] { line[$1] = $2; mod[$1] = $3; next }
	{
		from = $1; to = $2; sym = $3
		if (!(from in line) || !(to in line) || line[to] < line[from]) next
		k = from " " to
		if (!(k in syms)) {
			why[k] = line[to] == line[from] ? "on its own line:" : "above it:"
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
				msg = msg (i > 1 ? "; " : "") why[k] " " mod[ft[2]] "/" ft[2] ".c (" syms[k] ")"
			}
			print f ": " msg
		}
	}' "$T/layers" "$T/refs" >"$T/wrong"; then
	bad "layers" "the reference check itself failed (awk)"
fi
while read -r f n m r; do
	[ -f "$O/lib/src/$m/$f.o" ] || continue
	w=
	[ -s "$T/wrong" ] && w=$(sed -n "s/^$f: //p" "$T/wrong")
	if [ -z "$w" ]; then
		ok "lib/src/$m/$f.c references only files on lower lines"
	else
		bad "lib/src/$m/$f.c" "references $w; move what it uses into a file below it (the leaves of base/ for what many modules need), or list $f above what it uses in $LIST"
	fi
done <"$T/layers"

# Modules: "from to file->file (syms)" for each module that references a module opened after
# its own (the file check above names them too; this says it at the scale of the modules).
awk 'FILENAME == ARGV[1] { mod[$1] = $3; rank[$1] = $4; next }
	{
		if (!($1 in mod) || !($2 in mod) || rank[$2] <= rank[$1]) next
		k = mod[$1] " " mod[$2]
		w[k] = (n[k]++ ? w[k] ", " : "") $1 ".c -> " $2 ".c (" $3 ")"
	}
	END { for (k in w) print k, w[k] }' "$T/layers" "$T/refs" >"$T/upward"
while read -r m r; do
	w=
	[ -s "$T/upward" ] && w=$(awk -v m="$m" '$1 == m { $1 = ""; sub(/^ /, ""); print }' "$T/upward" |
		sed 's/^\([^ ]*\) /[\1]: /' | tr '\n' ';')
	if [ -z "$w" ]; then
		ok "module [$m] references only modules below it"
	else
		bad "module [$m]" "references a module above it, $w move what it needs down (into [$m] or below), or the module up in $LIST"
	fi
done <"$T/modules"

# Nothing outside the modules' folders; private header names unique across lib/src.
loose=$(ls lib/src/*.c lib/src/*.h 2>/dev/null | tr '\n' ' ')
hdup=$(ls lib/src/*/*.h | sed 's|.*/||' | sort | uniq -d | tr '\n' ' ')
if [ -z "$loose$hdup" ]; then
	ok "lib/src has its files in module folders, private header names unique"
else
	bad "lib/src" "${loose:+not in a module folder: $loose(move it to lib/src/<module>/; a declaration goes to that module's header) }${hdup:+header names used twice: $hdup(name each for its own module's concept)}"
fi

# Private headers: lib/src/<module>/<header>.h is for its module and the modules above it.
# "module included-module" of each include, from one grep of all the files.
grep -H -o '^[ \t]*#[ \t]*include[ \t]*"[a-z0-9_]*/[a-z0-9_]*\.h"' lib/src/*/*.c lib/src/*/*.h |
	sed 's|^lib/src/\([^/]*\)/[^:]*:.*"\([a-z0-9_]*\)/.*|\1 \2|' | sort -u >"$T/includes"
awk -v list="$LIST" 'FILENAME == ARGV[1] { rank[$1] = $2; next }
	!($2 in rank) { print "[" $1 "] includes a header of \"" $2 "/\", which is no module of " list; next }
	rank[$2] > rank[$1] { print "[" $1 "] includes a private header of [" $2 "], a module above it" }' \
	"$T/modules" "$T/includes" | sort -u >"$T/incwrong"
if [ -s "$T/incwrong" ]; then
	bad "lib/src includes" "$(tr '\n' ';' <"$T/incwrong") include only the headers of a module's own folder and of modules below it"
else
	ok "lib/src includes only private headers of its own module or below"
fi

# Inner headers: lib/src/<module>/<name>_inner.h holds a module's structs (opaque outside it,
# whose files use the module's function header): #included only from lib/src/<module>/, or
# by a file listed with its reason in $INNER. Every #include of a "*_inner.h" under lib, cli,
# tests, bench and kmod-free-docs, with its line.
INNER=${INNER:-tests/layers/inner.txt}
ls lib/src/*/*_inner.h 2>/dev/null | sed 's|^lib/src/||' >"$T/inner"
[ -f "$INNER" ] || bad "$INNER" "is missing (the files outside a module that may include its inner header)"
sed 's/#.*//' "$INNER" 2>/dev/null | awk 'NF { print $1, $2 }' >"$T/inner_ok"
find lib cli tests bench kmod-free-docs \( -name '*.c' -o -name '*.h' -o -name '*.cc' \) \
	2>/dev/null | sort | xargs grep -n -H -E '^[ \t]*#[ \t]*include[ \t]*"[^"]*_inner\.h"' \
	2>/dev/null >"$T/inner_inc"
# "module<TAB>file:line: what" for each include out of place ("?" for a header of no module);
# "file module/header" in inner_used for each listed exception met.
awk -v ok="$T/inner_ok" -v used="$T/inner_used" -v list="$INNER" '
	BEGIN { while ((getline l < ok) > 0) { split(l, f, " "); except[f[1] " " f[2]] = 1 } }
	FILENAME == ARGV[1] { split($1, p, "/"); owner[p[2]] = p[1]; next }
	{
		file = $0; sub(/:.*/, "", file)
		line = substr($0, length(file) + 2); sub(/:.*/, "", line)
		h = $0; sub(/^[^"]*"/, "", h); sub(/".*/, "", h)
		b = h; sub(/.*\//, "", b)
		if (!(b in owner)) {
			print "?\t" file ":" line ": includes \"" h "\", and no lib/src/<module>/" b " is"
			next
		}
		m = owner[b]
		d = file; sub(/\/[^\/]*$/, "", d)
		if (d == "lib/src/" m) next
		if ((file " " m "/" b) in except) { print file, m "/" b >used; next }
		print m "\t" file ":" line ": includes " m "/" b ", the inner header of [" m "] (its " \
			"structs): outside lib/src/" m "/ include its function header and call its " \
			"functions, or list the file with its reason in " list
	}' "$T/inner" "$T/inner_inc" >"$T/inner_wrong"
touch "$T/inner_used"
while read -r h; do
	m=${h%%/*}
	w=$(awk -F '\t' -v m="$m" '$1 == m { print $2 }' "$T/inner_wrong" | tr '\n' ';')
	n=$(grep -c " $h\$" "$T/inner_used")
	if [ -z "$w" ]; then
		ok "lib/src/$h is included only from lib/src/$m/ (and $n listed exception(s))"
	else
		bad "lib/src/$h" "$w"
	fi
done <"$T/inner"
stray=$(awk -F '\t' '$1 == "?" { print $2 }' "$T/inner_wrong" | tr '\n' ';')
sort -u "$T/inner_ok" >"$T/inner_ok_s"
stale=$(sort -u "$T/inner_used" | comm -13 - "$T/inner_ok_s" | tr '\n' ';')
if [ -z "$stray$stale" ]; then
	ok "$INNER lists only includes still made; every *_inner.h included is a module's"
else
	bad "$INNER" "${stray:+$stray }${stale:+listed but no such include (take the line out): $stale}"
fi

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
			bad "cli/$(basename "$o" .o).c" "uses library internals: $(tr '\n' ' ' <"$T/internal")(export what the CLI needs: PBENCH_API, lib/libpbench.map)"
		else
			ok "cli/$(basename "$o" .o).c uses only exported symbols"
		fi
	done
else
	skip=$((skip + 1))
	echo "[SKIP] cli: $O/libpbench.so is missing"
fi

# The commands' includes: the public header, their own, the support library's (C files and
# cmds.h; help.h is generated); system headers as they like.
for f in cli/*.c cli/*.h; do
	w=$(grep -n -E '^[ \t]*#[ \t]*include[ \t]*"' "$f" |
		grep -v -E '"(pbench\.h|cmds\.h|help\.h|support/support\.h)"' | tr '\n' ' ')
	if [ -z "$w" ]; then
		ok "$f includes only pbench.h, the CLI's headers and support/support.h"
	else
		bad "$f" "includes $w(the CLI is a client: pbench.h, and what only a command line needs in cli/support/)"
	fi
done

# The support library: its includes, the top comment of a file that includes base/base.h.
for f in cli/support/*.c cli/support/*.h; do
	[ -f "$f" ] || continue
	w=$(grep -n -E '^[ \t]*#[ \t]*include[ \t]*"' "$f" |
		grep -v -E '"(pbench\.h|support\.h|base/base\.h)"' | tr '\n' ' ')
	# the first comment after the SPDX line: up to its " */"
	top=$(awk 'NR > 1 { print } / \*\/$/ && NR > 1 { exit }' "$f")
	if grep -q -E '^[ \t]*#[ \t]*include[ \t]*"base/base\.h"' "$f" &&
	   ! printf '%s\n' "$top" | grep -q 'base/base\.h'; then
		w="$w base/base.h without its reason (the file's top comment names base/base.h and why)"
	fi
	if [ -z "$w" ]; then
		ok "$f includes only pbench.h, support.h and base/base.h (with its reason)"
	else
		bad "$f" "includes $w; the support library uses the public API, and base/base.h at most"
	fi
done

if [ -f "$O/libpbench.so" ] && [ -f "$O/libpbench-cli.a" ]; then
	# What the base module defines: the support library may use it where it says so.
	ls lib/src/base/*.c | sed 's|.*/||; s|\.c$||' | sort >"$T/basefiles"
	awk 'FILENAME == ARGV[1] { b[$1] = 1; next } ($2 in b) { print $1 }' \
		"$T/basefiles" "$T/defs" | sort -u >"$T/basesyms"
	for o in "$O"/cli/support/*.o; do
		[ -f "$o" ] || continue
		n=$(basename "$o" .o)
		src=cli/support/$n.c
		nm -u "$o" | awk '{ print $2 }' | sort -u | comm -12 - "$T/libsyms" |
			comm -23 - "$T/exported" >"$T/internal"
		notbase=$(comm -23 "$T/internal" "$T/basesyms" | tr '\n' ' ')
		said=$(awk 'NR > 1 { print } / \*\/$/ && NR > 1 { exit }' "$src" 2>/dev/null |
			grep -c 'base/base\.h')
		globals=$(nm --defined-only "$o" | awk 'NF == 3 && $2 ~ /^[A-Z]$/ && $3 !~ /^cli_/ { print $3 }' |
			tr '\n' ' ')
		if [ -n "$notbase" ]; then
			bad "$src" "uses library internals outside base/: $notbase(the support library uses the public API, and the base module's helpers at most)"
		elif [ -s "$T/internal" ] && [ "$said" -eq 0 ]; then
			bad "$src" "uses $(tr '\n' ' ' <"$T/internal")of base/ without saying so: name base/base.h and why in the file's top comment"
		elif [ -n "$globals" ]; then
			bad "$src" "defines $globals(the support library's functions are cli_*: no ABI, no clash with the library's names)"
		elif [ -s "$T/internal" ]; then
			ok "$src references only exports and base/'s helpers (said), defines only cli_*"
		else
			ok "$src references only exports, defines only cli_*"
		fi
	done
	clilib=$(cut -d' ' -f1 "$T/defs" | grep '^cli_' | tr '\n' ' ')
	if [ -z "$clilib" ]; then
		ok "the library defines no cli_* (the command line's support stays out of it)"
	else
		bad "lib/src" "defines $clilib(the command line's support goes to cli/support/)"
	fi
else
	skip=$((skip + 1))
	echo "[SKIP] cli/support: $O/libpbench.so or $O/libpbench-cli.a is missing"
fi

echo "layers: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
