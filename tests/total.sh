#!/bin/sh
# SPDX-License-Identifier: MIT
# Add up the result lines ("DIR: N passed, N failed, N skipped") of the parts that make test
# ran; a part with no result file counts as one failure. The last line is the verdict, with
# the passes that needed a retry after it ("; K passed after retries": of the N passed); above
# it, the names of what failed that the parts wrote beside their result files.
pass=0 fail=0 skip=0 retried=0 failed= files=
for f in "$@"; do
	files="$files $f"
	if [ ! -s "$f" ]; then
		set -- 0 1 0 0
	else
		set -- $(sed 's/^[^:]*://; s/[^0-9 ]//g' "$f")
	fi
	pass=$((pass + $1)) fail=$((fail + $2)) skip=$((skip + $3)) retried=$((retried + ${4:-0}))
	[ "$2" -gt 0 ] && failed="$failed $(sed 's/:.*//' "$f" 2>/dev/null || echo "$f")($2)"
done
if [ -n "$failed" ]; then
	# What failed, by name with its assertion's message, where the parts wrote it (tests/run.sh):
	# a CI log cut to its last lines still says which test to look at.
	for f in $files; do
		[ -s "${f%.txt}-failed.txt" ] && sed 's/^/  /' "${f%.txt}-failed.txt"
	done
	echo "failed in:$failed (each part's log: build/test-<part>.log)"
fi
echo "total: $pass passed, $fail failed, $skip skipped; $retried passed after retries"
[ "$fail" -eq 0 ]
