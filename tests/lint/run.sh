#!/bin/sh
# SPDX-License-Identifier: MIT
# Lints of the tests themselves: tests/lint/skips.sh (every skip names a reason a machine
# really has), first on samples whose offenders are known (so a lint that finds nothing
# fails), then on every test file under tests/. Then one of the code, the same way:
# tests/lint/long_functions.sh (no function of lib/src/*/*.c and cli/*.c over 80 lines).
# Usage: tests/lint/run.sh [BUILD_DIR] (the build is not used). Last line:
# "lint: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh

# ---- the lint on samples: each offender found at its line, each good reason let through ------
cat >"$T/sample.sh" <<'SAMPLE'
skipped "a" ""
skipped "b" "skip"
skipped b2 "not supported"
skipped "c" "TODO: fix on arm"
skipped "d" "$why"
skipped "e" "python3 is not installed"
[ "$NCPU" -ge 2 ] || skipped "f" "one CPU only"
# skipped "g" "" (a comment is no site)
echo "this test is skipped on purpose"
echo "[SKIP] h: n/a"
skipped "i" \
	"needs root"
skip "it rained"
SAMPLE
cat >"$T/sample.c" <<'SAMPLE'
	cr_skip_test("%s", why);
	cr_skip_test("no hardware CPU PMU (a VM without "
		     "passthrough)");
	cr_skip_test("");
	cr_skip("disabled");
	skip("cannot write " ACCESS);
	cr_skip_test("at %d, in the afternoon", h);
SAMPLE
sh tests/lint/skips.sh "$T/sample.sh" "$T/sample.c" >"$T/lint" 2>&1
want="sample.sh:1 empty
sample.sh:2 generic
sample.sh:3 generic
sample.sh:4 generic
sample.sh:5 empty
sample.sh:10 generic
sample.sh:13 names nothing
sample.c:1 empty
sample.c:4 empty
sample.c:5 generic
sample.c:7 names nothing"
saw=$(sed -n 's|^FAIL [^ ]*/\(sample\.[a-z]*:[0-9]*\): the reason is \([a-z]*\).*|\1 \2|p; s|^FAIL [^ ]*/\(sample\.[a-z]*:[0-9]*\): the reason \(names nothing\).*|\1 \2|p' "$T/lint")
oks=$(grep -c '^ok ' "$T/lint")
if [ "$saw" = "$want" ] && [ "$oks" -eq 5 ]; then
	ok "skips lint: the 11 offenders of the samples at their lines, the 5 good reasons let through"
else
	bad "skips lint samples" "expected these offenders: $(printf '%s' "$want" | tr '\n' ',') and 5 ok; saw: $(printf '%s' "$saw" | tr '\n' ',') and $oks ok"
	sed 's/^/    /' "$T/lint"
fi

# ---- every skip site of the tests ----------------------------------------------------------------
sh tests/lint/skips.sh >"$T/lint" 2>&1
n=$(grep -c '^ok ' "$T/lint")
grep '^FAIL ' "$T/lint" | while IFS= read -r l; do echo "$l"; done
nbad=$(grep -c '^FAIL ' "$T/lint")
if [ "$nbad" -eq 0 ] && [ "$n" -gt 50 ]; then
	ok "skips: each of the $n skip sites under tests/ names what the machine lacks or has"
else
	bad "skips" "$nbad skip sites with no real reason (above), $n good ones (a reader that finds under 50 sites has lost some)"
fi

# ---- no function over 80 lines (issue 35): the measure on a sample, then on the tree ---------
# body N: N lines of a function's body
body() { i=0; while [ "$i" -lt "$1" ]; do printf '\tx++;\n'; i=$((i + 1)); done; }
{
	printf '/* a comment above */\nstatic int at_limit(int x)\n{\n'; body 77; printf '}\n\n'
	printf 'static inline int\none_over(int x,\n\t int y)\n{\n'; body 76; printf '}\n'
	printf '/* no blank line */\nint knr_long(int x) {\n'; body 88; printf '}\n\n'
	printf 'struct big\n{\n'; body 90; printf '};\n\n'
	printf 'static const int table[] =\n{\n'; body 90; printf '};\n\n'
	printf 'static void *\nptr_over(void) /* a comment after */\n{\n'; body 78; printf '}\n'
	printf '#define M(n) \\\n\tcase n: \\\n\t\tbreak\n'
	printf '__attribute__((format(printf, 1, 2))) static int attr_over(const char *f, ...)\n{\n'
	body 78; printf '}\n'
} >"$T/sample_fns.c"
sh tests/lint/long_functions.sh "$T/sample_fns.c" >"$T/lint" 2>&1
rc=$?
want="sample_fns.c:$(grep -n '^static inline int$' "$T/sample_fns.c" | cut -d: -f1): one_over is 81 lines
sample_fns.c:$(grep -n '^int knr_long' "$T/sample_fns.c" | cut -d: -f1): knr_long is 90 lines
sample_fns.c:$(grep -n '^static void \*$' "$T/sample_fns.c" | cut -d: -f1): ptr_over is 82 lines
sample_fns.c:$(grep -n '^__attribute__' "$T/sample_fns.c" | cut -d: -f1): attr_over is 81 lines"
saw=$(sed -n 's|^FAIL [^ ]*/\(sample_fns\.c:[0-9]*: [a-z_]* is [0-9]* lines\) (over 80)$|\1|p' "$T/lint")
if [ "$saw" = "$want" ] && [ "$rc" -eq 1 ] && grep -q '^measured 5 functions, ' "$T/lint"; then
	ok "long functions lint: the sample's 4 functions over 80 lines at their opening lines,\
 the one of 80, a struct and a table let through"
else
	bad "long functions lint sample" "expected (exit 1, 5 functions):\
 $(printf '%s' "$want" | tr '\n' ','); saw (exit $rc): $(printf '%s' "$saw" | tr '\n' ',')"
	sed 's/^/    /' "$T/lint"
fi
sh tests/lint/long_functions.sh >"$T/lint" 2>&1
rc=$?
grep '^FAIL ' "$T/lint" | while IFS= read -r l; do echo "$l"; done
nfun=$(sed -n 's/^measured \([0-9]*\) functions.*/\1/p' "$T/lint")
if [ "$rc" -eq 0 ] && [ "${nfun:-0}" -gt 1000 ]; then
	ok "no function over 80 lines: $(sed -n 's/^measured //p' "$T/lint")"
else
	bad "long functions" "$(grep -c '^FAIL ' "$T/lint") functions over 80 lines (above),\
 ${nfun:-no} functions measured (a reader that finds under 1000 has lost some)"
fi

finish lint
