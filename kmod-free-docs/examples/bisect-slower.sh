#!/bin/sh
# SPDX-License-Identifier: MIT
# A `git bisect run` step that finds the commit that made a program slower, with pbench
# compare's exit status (kmod-free-docs/history.md, "Bisecting"). The good commit is built
# once, into a worktree of its own; each step builds the commit git bisect checked out and
# runs the two against each other, interleaved, until pbench is sure:
#   exit 0   the commit is not slower than the good one by more than PCT%: good
#   exit 1   it is (pbench compare --fail-if-slower PCT exited 1): bad
#   exit 125 it does not build: git bisect skips it
#   exit 128 pbench could not compare (a usage error: exit 2): git bisect stops
#
# Usage, from the top of the repository:
#   git bisect start BAD GOOD
#   GOOD=GOOD BUILD='make -j2' PROG=./bench ARGS='input.txt' PCT=5 \
#       git bisect run sh /path/to/bisect-slower.sh
#   git bisect reset
# GOOD     the good commit (required)
# BUILD    the command that builds the program in a tree (default: make)
# PROG     the program, relative to the tree (required); ARGS its arguments
# PCT      how much slower is a regression, in percent (default: 5)
# PBENCH   the pbench to use (default: pbench on the PATH)
# COMPARE_OPTS  more options of pbench compare, e.g. '--max-time 120' (a comparison that
#          ends undecided at its budget is not "surely slower": the commit is called good)
set -u
: "${GOOD:?give GOOD, the good commit}" "${PROG:?give PROG, the program to time}"
BUILD=${BUILD:-make} ARGS=${ARGS:-} PCT=${PCT:-5} PBENCH=${PBENCH:-pbench}
COMPARE_OPTS=${COMPARE_OPTS:-}
top=$(git rev-parse --show-toplevel) || exit 128
good=$(git rev-parse --git-common-dir)/pbench-bisect-good

# The good commit, built once and kept for every step (git bisect reset leaves it; remove it
# with git worktree remove).
if [ ! -x "$good/$PROG" ]; then
	[ -d "$good" ] || git worktree add --detach "$good" "$GOOD" >&2 || exit 128
	(cd "$good" && sh -c "$BUILD") >&2 || { echo "bisect: the good commit does not build" >&2; exit 128; }
fi
(cd "$top" && sh -c "$BUILD") >&2 || exit 125

# The two, interleaved, each command one argument (pbench splits it as a shell would).
# shellcheck disable=SC2086 # COMPARE_OPTS: words
"$PBENCH" compare $COMPARE_OPTS -n good -n "$(git rev-parse --short HEAD)" --fail-if-slower "$PCT" \
	"$good/$PROG $ARGS" "$top/$PROG $ARGS"
rc=$?
case $rc in
0 | 1) exit $rc ;;
*) exit 128 ;;
esac
