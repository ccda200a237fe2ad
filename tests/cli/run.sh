#!/bin/sh
# SPDX-License-Identifier: MIT
# End-to-end tests of the built pbench binary: exit codes, messages, output formats, and that
# nothing is left behind. One script per command, tests/cli/t_<command>.sh (t_help.sh: what is
# no command's), each runnable alone: sh tests/cli/t_stat.sh build.
# Usage: tests/cli/run.sh BUILD_DIR. Last line: "cli: N passed, N failed, N skipped" (then
# "; K passed after retries" when a retry loop passed on a later try).
set -u
O=${1:-build}
pass=0 fail=0 skip=0 retried=0

for t in tests/cli/t_*.sh; do
	name=cli/$(basename "$t" .sh | sed 's/^t_//')
	t0=$(date +%s)
	out=$(sh "$t" "$O" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	echo "[TIME] $name: $(($(date +%s) - t0)) s"
	line=$(printf '%s\n' "$out" | grep -E "^$name: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped(; [0-9]+ passed after retries)?$" | tail -n 1)
	if [ -z "$line" ]; then
		echo "FAIL $name: $t printed no summary (exit $rc)"
		fail=$((fail + 1))
		continue
	fi
	set -- $(printf '%s' "$line" | sed 's/^[^:]*://; s/[^0-9 ]//g')
	pass=$((pass + $1)) fail=$((fail + $2)) skip=$((skip + $3)) retried=$((retried + ${4:-0}))
	if [ "$rc" -ne 0 ] && [ "$2" -eq 0 ]; then
		echo "FAIL $name: $t exited $rc with no failure counted"
		fail=$((fail + 1))
	fi
done

if [ "$retried" -gt 0 ]; then
	echo "cli: $pass passed, $fail failed, $skip skipped; $retried passed after retries"
else
	echo "cli: $pass passed, $fail failed, $skip skipped"
fi
[ "$fail" -eq 0 ]
