#!/bin/sh
# SPDX-License-Identifier: MIT
# Add up the result lines ("DIR: N passed, N failed, N skipped") of the parts that make test
# ran; a part with no result file counts as one failure. The last line is the verdict, with
# the passes that needed a retry after it ("; K passed after retries": of the N passed).
pass=0 fail=0 skip=0 retried=0 failed=
for f in "$@"; do
	if [ ! -s "$f" ]; then
		set -- 0 1 0 0
	else
		set -- $(sed 's/^[^:]*://; s/[^0-9 ]//g' "$f")
	fi
	pass=$((pass + $1)) fail=$((fail + $2)) skip=$((skip + $3)) retried=$((retried + ${4:-0}))
	[ "$2" -gt 0 ] && failed="$failed $(sed 's/:.*//' "$f" 2>/dev/null || echo "$f")($2)"
done
[ -n "$failed" ] && echo "failed in:$failed (each part's log: build/test-<part>.log)"
echo "total: $pass passed, $fail failed, $skip skipped; $retried passed after retries"
[ "$fail" -eq 0 ]
