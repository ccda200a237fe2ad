#!/bin/sh
# SPDX-License-Identifier: MIT
# Add up the result lines ("DIR: N passed, N failed, N skipped") of the parts that make test
# ran; a part with no result file counts as one failure. The last line is the verdict.
pass=0 fail=0 skip=0 failed=
for f in "$@"; do
	if [ ! -s "$f" ]; then
		set -- 0 1 0
	else
		set -- $(sed 's/^[^:]*://; s/[^0-9 ]//g' "$f")
	fi
	pass=$((pass + $1)) fail=$((fail + $2)) skip=$((skip + $3))
	[ "$2" -gt 0 ] && failed="$failed $(sed 's/:.*//' "$f" 2>/dev/null || echo "$f")($2)"
done
[ -n "$failed" ] && echo "failed in:$failed (each part's log: build/test-<part>.log)"
echo "total: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
