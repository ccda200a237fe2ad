#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The baseline gate's error rates on this machine (issue 27 item 3): an old and a new pbench
# alternating try by try against one stored baseline, the way kmod-free-docs/compare.md's
# measurement was made. The baseline is the xor workload at A iterations, 50 runs of pbench
# stat (written by NEW, whose JSON carries the speed readings both can read); each try runs
#   pbench compare --baseline BASE --workload xor --iterations N --fail-if-slower PCT --max-time T
# with N = A (the same command: exit 1 is a false alarm) and N = B (B/A more work: exit 1 is a
# detection), old and new in turn. Each try's line: the kind, the build, the exit status, the
# gate's word, the host's speed today over the baseline's by the clock reading (ns an
# iteration, median over the runs; n/a where the JSON has no clock iterations: an older
# pbench) and by the throughput reading, the runs today, the load average. Then the rates.
#
#   sh bench/baseline_gate.sh OLD_PBENCH NEW_PBENCH [TRIES [A [B [PCT [MAX_TIME]]]]]
#   sh bench/baseline_gate.sh ../old/build/pbench build/pbench 20 40000000 42000000 2 8
#
# Needs python3 (reads the JSON). Writes into a directory of its own under ${TMPDIR:-/tmp}.
set -u
OLD=${1:?usage: baseline_gate.sh OLD_PBENCH NEW_PBENCH [TRIES [A [B [PCT [MAX_TIME]]]]]}
NEW=${2:?usage: baseline_gate.sh OLD_PBENCH NEW_PBENCH [TRIES [A [B [PCT [MAX_TIME]]]]]}
TRIES=${3:-20}
A=${4:-40000000}
B=${5:-42000000}
PCT=${6:-2}
MAXT=${7:-8}
D=$(mktemp -d "${TMPDIR:-/tmp}/baseline_gate.XXXXXX") || exit 1
trap 'rm -rf "$D"' EXIT

speed() {	# speed JSON BASE: the host today over the baseline, by the clock and throughput
	python3 - "$1" "$2" <<'EOF'
import json, sys, statistics as st
def per_iter(s, key):
    sp = s.get('speed') or {}
    ref = sp if key == 'speed' else (sp.get('clock') or {})
    best, iters = ref.get('ref_best_ns'), ref.get('ref_iterations')
    v = [best / r[key] / iters for r in s['runs'] if r.get(key) and best and iters]
    return st.median(v) if v else None
def sets(path):
    d = json.load(open(path))
    if 'modes' in d:
        return [m for m in d['modes'] if m['mode'] == 'prepared'] or d['modes']
    return [e['set'] for e in d['entrants'] if not e['stored']]
now, base = sets(sys.argv[1])[0], sets(sys.argv[2])[0]
out = []
for key in ('clock', 'speed'):
    a, b = per_iter(base, key), per_iter(now, key)
    out.append('%.3f' % (a / b) if a and b else 'n/a')
out.append(str(len([r for r in now['runs'] if not r['timed_out']])))
print(' '.join(out))
EOF
}

figures() {	# the gate's figures from its line: the shift, its interval, the allowance in %
	python3 - "$1" <<'EOF'
import re, sys
t = ' '.join(l for l in open(sys.argv[1]) if
             re.match(r'pbench: (regression|no regression|undecided):', l))
est = re.search(r'([0-9.e+-]+)x (its|the baseline.s) time', t)
iv = re.search(r'interval ([0-9.e+-]+)-([0-9.e+-]+)\)', t)
al = re.search(r'\+-([0-9.]+)%', t)
print(' '.join(x if x else 'n/a' for x in (est and est.group(1), iv and iv.group(1),
                                           iv and iv.group(2), al and al.group(1))))
EOF
}

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# old: $OLD ($($OLD --version 2>/dev/null | head -1)); new: $NEW ($($NEW --version 2>/dev/null | head -1))"
"$NEW" stat --workload xor --iterations "$A" --runs 50 --json="$D/base.json" >/dev/null 2>&1 ||
	{ echo "baseline_gate: the baseline could not be measured" >&2; exit 1; }
echo "# baseline: xor $A, 50 runs (pbench stat, new); tries: xor $A (same) and $B (more), --fail-if-slower $PCT --max-time $MAXT"
printf '%-4s %-4s %-4s %-3s %-14s %-6s %-6s %-5s %-5s %-7s %-7s %-7s %s\n' try kind gate rc word clock thr runs load est lo hi allow
for t in $(seq 1 "$TRIES"); do
	for kind in same more; do
		[ $kind = same ] && n=$A || n=$B
		# old first on odd tries, new first on even ones
		[ $((t % 2)) = 1 ] && order="old new" || order="new old"
		for g in $order; do
			[ $g = old ] && bin=$OLD || bin=$NEW
			"$bin" compare --baseline "$D/base.json" --workload xor --iterations "$n" \
				--fail-if-slower "$PCT" --max-time "$MAXT" --export-json "$D/t.json" \
				>"$D/out" 2>"$D/err"
			rc=$?
			word=$(sed -n 's/^pbench: \(regression\|no regression\|undecided\):.*/\1/p' "$D/err" | head -1)
			fig=$(figures "$D/err")
			s=$(speed "$D/t.json" "$D/base.json" 2>/dev/null || echo "n/a n/a n/a")
			printf '%-4s %-4s %-4s %-3s %-14s %-6s %-6s %-5s %-5s %-7s %-7s %-7s %s\n' "$t" $kind $g $rc \
				"$(echo "${word:-none}" | tr ' ' _)" $s "$(cut -d' ' -f1 /proc/loadavg)" $fig
			[ $g = new ] && sed -n 's/^pbench: \(undecided\|regression\|no regression\): /#   /p' "$D/err" | cut -c1-400
		done
	done
done >"$D/log"
cat "$D/log"
awk '!/^#/ && $1 != "try" {
	k = $2 " " $3; n[k]++; if ($4 == 1) fail[k]++; if ($5 == "undecided") und[k]++
	if ($9 + 0 > 0) { load[k] += $9; if (!(k in lo) || $9 < lo[k]) lo[k] = $9; if ($9 > hi[k]) hi[k] = $9 }
	if ($6 != "n/a") { if (!(k in cl) || $6 < cl[k]) cl[k] = $6; if ($6 > ch[k]) ch[k] = $6 }
}
END {
	for (g = 1; g <= 2; g++) {
		G = g == 1 ? "old" : "new"
		printf "%s gate: same command failed %d of %d (false alarms), undecided %d; %s more work failed %d of %d (detected), undecided %d; load %.1f-%.1f",
			G, fail["same " G], n["same " G], und["same " G], "B/A", fail["more " G], n["more " G], und["more " G], lo["same " G], hi["same " G]
		if (("same " G) in cl) printf "; host clock %.2fx-%.2fx of the baseline'"'"'s", cl["same " G], ch["same " G]
		printf "\n"
	}
}' "$D/log"
