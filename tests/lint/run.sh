#!/bin/sh
# SPDX-License-Identifier: MIT
# Lints of the tests themselves: tests/lint/skips.sh (every skip names a reason a machine
# really has), first on samples whose offenders are known (so a lint that finds nothing
# fails), then on every test file under tests/.
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

finish lint
