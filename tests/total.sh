#!/bin/sh
# SPDX-License-Identifier: MIT
# Add up the result lines of the builds that make test ran; the last line is the verdict.
pass=0 fail=0 skip=0
for f in "$@"; do
	set -- $(sed 's/^[^:]*://; s/[^0-9 ]//g' "$f")
	pass=$((pass + $1)) fail=$((fail + $2)) skip=$((skip + $3))
done
echo "total: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
