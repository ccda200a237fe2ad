#!/bin/sh
# SPDX-License-Identifier: MIT
# pbench list: the event table, --all, --json. Usage: tests/cli/t_list.sh BUILD_DIR (alone, or
# through tests/cli/run.sh). Last line: "cli/list: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh

# ---- list ---------------------------------------------------------------------------------
if run "list" 0 "$PB" list && has "$T/out" "^software events:" &&
   has "$T/out" "task-clock  *ok"; then
	ok "list"
else
	miss "list"
fi
if run "list all" 0 "$PB" list --all; then
	n1=$("$PB" list | wc -l)
	n2=$(wc -l <"$T/out")
	if [ "$n2" -ge "$n1" ]; then ok "list --all"; else bad "list --all" "shorter than list"; fi
fi
usage_error "list extra arg" "unexpected argument" list foo

if [ "$HAVE_PY" -eq 1 ]; then
	if run "list json" 0 "$PB" list --json &&
	   json "$T/out" 'd["schema"] == 2 and any(e["name"] == "task-clock" and e["status"] == "ok" for e in d["events"])
		and all(e["reason"] for e in d["events"] if e["status"] != "ok")'; then
		ok "list json"
	else
		miss "list json"
	fi
else
	skipped "list json" "python3 is not installed: the JSON checks need it"
fi

# ---- with a recorded tree: the list is the live machine's, and says so ---------------------
# pbench list opens each event here, so it lists this machine's sysfs events whatever
# PBENCH_SYSFS_ROOT says (the trees' names are resolved and listed in tests/unit/test_events.c).
# The AMD Zen 3 host tree has msr/aperf/, msr/mperf/, msr/irperf/ and power/energy-pkg/: each
# must be listed exactly when this machine has it.
live_has() { [ -e "/sys/bus/event_source/devices/$1/events/$2" ]; }
tree_ok=1
if run "list on a tree" 0 env PBENCH_SYSFS_ROOT=tests/fixtures/amd-workstation/sys \
	PBENCH_PROCFS_ROOT=tests/fixtures/amd-workstation/proc "$PB" list &&
   has "$T/err" "^pbench: warning: 'pbench list' measures the live machine: PBENCH_SYSFS_ROOT"; then
	for pe in msr/aperf msr/mperf msr/irperf power/energy-pkg; do
		if live_has "${pe%/*}" "${pe#*/}"; then
			has "$T/out" "^  $pe/ " || { tree_ok=0; break; }
		else
			nothas "$T/out" "^  $pe/ " || { tree_ok=0; break; }
		fi
	done
	if [ "$tree_ok" -eq 1 ]; then
		ok "list with a recorded tree: this machine's events, and a warning that says so"
	else
		miss "list on a tree"
	fi
else
	miss "list on a tree"
fi

# ---- as a user without privileges, on a machine with no PMU: each event's true cause ---------
# The kernel refuses an unprivileged user (perf_event_paranoid 2) before it looks for a PMU:
# a hardware event that does not exist here is not-supported (ENOENT), as perf stat says, not
# "no permission" with a sysctl that would not help; msr/tsc/ is named only where it opens.
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 0)
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 && [ "$HAVE_PMU" -eq 0 ] && [ "$paranoid" -ge 2 ]; then
	NBD=$(mktemp -d)
	chmod 755 "$NBD"
	cp "$PB" "$NBD/pbench"
	chmod 755 "$NBD/pbench"
fi
# nobody must reach the copy (mktemp -d under $TMPDIR, which may sit under a directory closed
# to others: issue 37)
if [ -n "${NBD:-}" ] && ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$NBD/pbench" 2>/dev/null; then
	skipped "list as a user" "user 65534 cannot reach $NBD/pbench (a directory above it is closed to others)"
	rm -rf "$NBD"
elif [ -n "${NBD:-}" ]; then
	# The msr PMU's events are the machine's: Intel hosts have smi, aperf, mperf..., AMD ones
	# often only tsc. Each one this machine lists must be no-permission, the first with its
	# cause (the rows after it say "(as above)").
	msr_ok=1
	if run "list as nobody" 0 setpriv --reuid=65534 --regid=65534 --clear-groups "$NBD/pbench" list; then
		for e in /sys/bus/event_source/devices/msr/events/*; do
			[ -e "$e" ] || continue
			case "${e##*/}" in *.*) continue ;; esac
			has "$T/out" "^  msr/${e##*/}/  *no-permission" || { msr_ok=0; break; }
		done
		if [ -d /sys/bus/event_source/devices/msr/events ]; then
			[ "$msr_ok" -eq 1 ] && has "$T/out" "^  msr/[a-z_]*/  *no-permission  .*perf_event_paranoid is" ||
				msr_ok=0
		fi
	fi
	if [ "$RUN_FAILED" -eq 0 ] && [ "$msr_ok" -eq 1 ] &&
	   has "$T/out" "^  cycles  *not-supported  not supported by this CPU/VM (ENOENT): no hardware PMU is exposed" &&
	   nothas "$T/out" "^  \(cycles\|instructions\|cache-misses\) .*no-permission" &&
	   nothas "$T/out" "software events and msr/tsc/ work" &&
	   has "$T/out" "^note: no hardware PMU is exposed here .*the software events can$"; then
		ok "list as a user: hardware events not-supported (ENOENT), msr/ events no-permission, each its true cause"
	else
		miss "list as nobody"
	fi
	if run "stat as nobody" 0 setpriv --reuid=65534 --regid=65534 --clear-groups "$NBD/pbench" stat \
		--mode unprepared -r 2 --iterations 10000 -e task-clock,cycles &&
	   has "$T/out" "^cycles  *<not supported> not supported by this CPU/VM (ENOENT)"; then
		ok "stat as a user: cycles <not supported>, as perf stat says"
	else
		miss "stat as nobody"
	fi
	rm -rf "$NBD"
else
	skipped "list as a user" "needs root (to become nobody), setpriv, no hardware PMU and perf_event_paranoid >= 2"
fi

# -v: the library's diagnostics, but not one per event the list already shows with its reason
if run "list -v" 0 "$PB" -v list && nothas "$T/err" "not opened" &&
   [ "$(wc -l <"$T/err")" -lt 10 ]; then
	ok "pbench -v list: no diagnostic repeating each event's status ($(wc -l <"$T/err") lines)"
else
	miss "list -v" "$(grep -c 'not opened' "$T/err") 'not opened' lines on stderr"
fi

# A warning wraps at the width under its text (COLUMNS stands in for a terminal); unset, one line.
if run "list warning COLUMNS=60" 0 env COLUMNS=60 PBENCH_SYSFS_ROOT=/nonexistent "$PB" list &&
   has "$T/err" "^pbench: warning: 'pbench list' measures the live machine:$" &&
   has "$T/err" "^                 are read by 'pbench check' only$" &&
   [ -z "$(overlong 60 "$T/err")" ] &&
   run "list warning" 0 env PBENCH_SYSFS_ROOT=/nonexistent "$PB" list &&
   has "$T/err" "^pbench: warning: 'pbench list' measures the live machine: PBENCH_SYSFS_ROOT and PBENCH_PROCFS_ROOT are read by 'pbench check' only$"; then
	ok "list: a warning wraps at COLUMNS under its text, one line without"
else
	miss "list warning COLUMNS=60"
fi

finish cli/list
