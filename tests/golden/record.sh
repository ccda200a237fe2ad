#!/bin/sh
# SPDX-License-Identifier: MIT
# Re-record tests/golden/expected/ from BUILD_DIR's pbench: every case of tests/golden/run.sh,
# its stdout (CASE.out) and its stderr with its exit status (CASE.err), normalized as run.sh
# says. Usage: tests/golden/record.sh BUILD_DIR (from the top of the tree).
#
# Run it only when a change of output is on purpose, and commit the new files with the change
# that made them, saying in the commit which outputs changed and why ('git diff --stat
# tests/golden/expected' lists them). Anything else that changes them is what the golden test
# is there to catch. Files of cases that no longer exist are removed.
set -u
O=${1:-build}
E=tests/golden/expected
[ -x "$O/pbench" ] || { echo "usage: tests/golden/record.sh BUILD_DIR (no $O/pbench)" >&2; exit 2; }
rm -rf "$E"
mkdir -p "$E"
GOLDEN_RECORD=1 sh tests/golden/run.sh "$O" | grep -v '^ok '
echo "recorded $(ls "$E" | grep -c '\.out$') cases in $E; review: git diff --stat $E"
