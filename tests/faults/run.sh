#!/bin/sh
# SPDX-License-Identifier: MIT
# The fault suite: what pbench promises a user whatever goes wrong (README, "What pbench never
# does"). Nothing of the user's is deleted or truncated, nothing pbench started is left
# running, no descriptor leaks into the measured command, no number is printed that was not
# measured, bad input is one line and exit 2, signals are handled as shells expect. Each test
# failed on the code before issue 10's fixes. Usage: tests/faults/run.sh BUILD_DIR; last line:
# "faults: N passed, ...".
set -u
O=${1:-build}
. tests/cli/lib.sh
U=$$	# in every sleep's argument, so that pgrep finds this run's processes only

# ---- 1. output paths are never deleted; files are replaced whole or not at all ------------
echo "the user's old file" >"$T/keep.json"
cp "$T/keep.json" "$T/keep.svg"
cp "$T/keep.json" "$T/keep.csv"
run "bad event keeps the old files" 2 "$PB" stat -e cylces --json="$T/keep.json" \
	--plot "$T/keep.svg" --export-csv "$T/keep.csv" &&
	if cmp -s "$T/keep.json" "$T/keep.svg" && cmp -s "$T/keep.json" "$T/keep.csv" &&
	   has "$T/keep.json" "the user's old file"; then
		ok "a failed stat leaves the old --json, --plot and --csv files as they were"
	else
		bad "old files" "an output file was removed or changed"
	fi
run "command not found keeps the old file" 2 "$PB" stat --plot "$T/keep.svg" -- pbench-no-such-$U &&
	if has "$T/keep.svg" "the user's old file"; then ok "command not found: old plot kept"
	else bad "old plot" "removed or changed"; fi
# Nothing new appears in the directory after a run fails.
mkdir "$T/empty"
run "failed stat creates nothing" 2 "$PB" stat -e cylces --json="$T/empty/new.json" \
	--plot "$T/empty/new.svg" --export-csv "$T/empty/new.csv"
if [ -z "$(ls -A "$T/empty")" ]; then ok "a failed stat creates no file"
else bad "no new file" "$(ls -A "$T/empty" | tr '\n' ' ')"; fi
# A run that writes replaces the file whole, with the old file's mode.
chmod 640 "$T/keep.json"
if run "successful stat replaces" 0 "$PB" stat --mode unprepared -r 2 --iterations 100000 \
	-e task-clock --json="$T/keep.json" && nothas "$T/keep.json" "the user's old file" &&
   [ "$(stat -c %a "$T/keep.json")" = 640 ] && { [ "$HAVE_PY" -eq 0 ] || json "$T/keep.json" 'd["schema"] == 2'; }; then
	ok "a finished stat replaces the file whole and keeps its mode"
else
	miss "successful stat replaces"
fi
# A symlink to a regular file stays a symlink; the file it names gets the report.
echo old >"$T/target.json"
ln -s target.json "$T/link.json"
if run "symlink output" 0 "$PB" stat --mode unprepared -r 2 --iterations 100000 -e task-clock \
	--json="$T/link.json" && [ -L "$T/link.json" ] && has "$T/target.json" '"schema"'; then
	ok "an output symlink is kept and its target written"
else
	miss "symlink output"
fi
# Devices, FIFOs and symlinks to devices are written directly and never removed. Our own
# device node (a copy of /dev/null's numbers) where we may make one, else /dev/null itself.
if mknod "$T/null" c 1 3 2>/dev/null; then dev="$T/null"; else dev=/dev/null; fi
ln -s "$dev" "$T/devlink"
if run "jitter plot to a device" 0 "$PB" jitter --cpu 0 -d 0.05 --plot "$dev" &&
   [ -c "$dev" ] && run "stat to a device" 2 "$PB" stat -e cylces --plot "$dev" --export-csv "$T/devlink" &&
   [ -c "$dev" ] && [ -L "$T/devlink" ]; then
	ok "a device (and a symlink to one) given as output is never removed ($dev)"
else
	bad "device output" "$dev or $T/devlink is gone"
fi
mkfifo "$T/fifo"
cat "$T/fifo" >"$T/fifo.out" &
catpid=$!
if run "stat csv to a fifo" 0 "$PB" stat --mode unprepared -r 2 --iterations 100000 \
	-e task-clock --export-csv "$T/fifo" && wait "$catpid" && [ -p "$T/fifo" ] &&
   has "$T/fifo.out" "^mode,run,"; then
	ok "a FIFO gets the CSV directly and stays a FIFO"
else
	miss "stat csv to a fifo"
	kill "$catpid" 2>/dev/null
fi
# Interrupted while preparing: nothing reported, the old file as it was. --reprobe keeps the
# preparation under way past 0.5 s (with a kept priority choice it can all end before).
echo "old" >"$T/prep.json"
$PBI stat -r 5 --iterations 1000000 --reprobe --json="$T/prep.json" >"$T/out" 2>"$T/err" &
pbpid=$!
listening "$pbpid"
sleep 0.5
kill -INT "$pbpid"
wait "$pbpid"
rc=$?
if [ "$rc" -eq 1 ] && [ "$(cat "$T/prep.json")" = old ]; then
	ok "interrupted while preparing: the old --json file is untouched"
else
	bad "interrupted preparation" "exit $rc, file now: $(head -c 60 "$T/prep.json")"
fi

# ---- 2. nothing pbench started is left running ---------------------------------------------
start=$(date +%s)
run "timeout kills the group" 1 "$PB" stat --mode unprepared -r 2 --timeout 0.3 -e task-clock \
	-- sh -c "sleep 30.1$U; true"
took=$(( $(date +%s) - start ))
sleep 0.2
if gone "sleep 30.1$U" && [ "$took" -lt 5 ]; then ok "--timeout ends the command's children too"
else bad "timeout grandchildren" "a 'sleep 30.1$U' was left, or it took $took s"; pkill -f "sleep 30.1$U"; fi
# A command that ignores SIGTERM is killed after the grace period.
start=$(date +%s)
run "timeout, TERM ignored" 1 "$PB" stat --mode unprepared -r 1 --timeout 0.3 -e task-clock \
	-- sh -c "trap '' TERM; sleep 30.2$U"
took=$(( $(date +%s) - start ))
sleep 0.2
if gone "sleep 30.2$U" && [ "$took" -lt 6 ]; then ok "a command that ignores SIGTERM is killed after the grace period"
else bad "TERM ignored" "left running, or it took $took s"; pkill -9 -f "sleep 30.2$U"; fi
# A command that leaves a background job and a daemon (setsid) behind.
if run "leftovers" 0 "$PB" stat --mode unprepared -r 2 -e task-clock \
	-- sh -c "sleep 30.3$U & setsid sleep 30.4$U >/dev/null 2>&1 & true"; then
	sleep 0.2
	if gone "sleep 30.3$U" && gone "sleep 30.4$U" && has "$T/err" "left 4 processes running after 2 runs"; then
		ok "a background job and a daemon the command left are ended and said"
	else
		bad "leftovers" "still running, or not said"
		pkill -f "sleep 30.[34]$U"
	fi
fi
# Ctrl-C while a command's children run.
$PBI stat --mode unprepared -r 3 -e task-clock -- sh -c "sleep 30.5$U & sleep 30.6$U" \
	>"$T/out" 2>"$T/err" &
pbpid=$!
sleep 1
kill -INT "$pbpid"
wait "$pbpid"
rc=$?
sleep 0.2
if [ "$rc" -eq 1 ] && gone "sleep 30.5$U" && gone "sleep 30.6$U"; then
	ok "Ctrl-C ends the command and everything it started"
else
	bad "Ctrl-C grandchildren" "exit $rc, or a sleep left"
	pkill -f "sleep 30.[56]$U"
fi
# SIGTERM at several moments of a prepared stat, a contrast and a jitter: exit 1, nothing left,
# what was measured printed, and the state restored (the report says so, or nothing ran).
for at in 0.3 1.5 3.0; do
	for what in prepared contrast; do
		$PBI stat --mode $what -r 200 --warmup-ms 100 -e task-clock \
			-- sh -c "sleep 31.$U & sleep 0.06$U" >"$T/out" 2>"$T/err" &
		pbpid=$!
		listening "$pbpid"
		sleep "$at"
		kill -TERM "$pbpid"
		wait "$pbpid"
		rc=$?
		sleep 0.1
		if [ "$rc" -eq 1 ] && gone "sleep 31.$U" && gone "sleep 0.06$U" &&
		   has "$T/err" "interrupted" &&
		   { ! has "$T/out" "^prepared:" || has "$T/out" "restored" ||
		     has "$T/out" "^prepared: not done"; }; then
			ok "SIGTERM at $at s of a $what stat: exit 1, nothing left, state restored"
		else
			bad "SIGTERM $what at $at" "exit $rc"
			pkill -f "sleep 31.$U"
			pkill -f "sleep 0.06$U"
		fi
	done
	$PBI jitter -d 5 >"$T/out" 2>"$T/err" &
	pbpid=$!
	listening "$pbpid"
	sleep "$at"
	kill -TERM "$pbpid"
	wait "$pbpid"
	rc=$?
	if [ "$rc" -eq 1 ] && has "$T/err" "interrupted" && has "$T/out" "^pbench jitter:"; then
		ok "SIGTERM at $at s of a jitter: the partial result, exit 1"
	else
		bad "SIGTERM jitter at $at" "exit $rc"
	fi
done

# ---- 3. the measured command inherits no descriptor of pbench's ----------------------------
# pbench is started with 0, 1 and 2 only; the command lists its own descriptors.
run_clean() { # run_clean CMD...: with every descriptor above 2 closed
	python3 -c 'import os,sys; os.closerange(3, 65536); os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}
if [ "$HAVE_PY" -eq 1 ]; then
	if run "fds" 0 run_clean "$PB" stat --mode unprepared -r 1 -e task-clock,page-faults \
		--json="$T/fd.json" --export-csv "$T/fd.csv" --plot "$T/fd.svg" \
		-- sh -c 'ls /proc/$$/fd' &&
	   [ "$(grep -x '[0-9][0-9]*' "$T/out" | tr '\n' ' ')" = "0 1 2 " ]; then
		ok "a command sees only descriptors 0, 1 and 2 (not --json, --csv, --plot, counters)"
	else
		bad "fds" "the command saw: $(grep -x '[0-9][0-9]*' "$T/out" | tr '\n' ' ')"
	fi
else
	skipped "fds" "python3 is not installed"
fi

# ---- 4. recorded trees are for pbench check only -------------------------------------------
# tuned-server isolates CPU 2, which this machine may not have; laptop IRQs are not ours.
# A machine that isolates CPUs itself may rightly pick an isolated CPU 2: there only the
# warning can tell the tree was not used.
live_iso=$(cat /sys/devices/system/cpu/isolated 2>/dev/null)
if run "stat with a recorded tree" 0 env PBENCH_SYSFS_ROOT=tests/fixtures/tuned-server/sys \
	PBENCH_PROCFS_ROOT=tests/fixtures/tuned-server/proc "$PB" stat -r 2 --warmup-ms 50 \
	--iterations 100000 -e task-clock &&
   has "$T/err" "measures the live machine" &&
   { [ -n "$live_iso" ] || nothas "$T/out" "CPU 2 is isolated"; }; then
	ok "stat with PBENCH_*_ROOT picks its CPU on the live machine and says so${live_iso:+ (this machine isolates $live_iso: the pick not checked)}"
else
	miss "stat with a recorded tree"
fi
# A recorded /proc/interrupts does not change during a run: read from it, the spinning probe's
# own timer ticks would count 0 and every gap would be put on the hypervisor.
if run "jitter with a recorded tree" 0 env PBENCH_SYSFS_ROOT=tests/fixtures/intel-laptop/sys \
	PBENCH_PROCFS_ROOT=tests/fixtures/intel-laptop/proc "$PB" jitter --cpu 0 -d 0.3 &&
   has "$T/err" "measures the live machine" && has "$T/out" "local timer interrupts [1-9]"; then
	ok "jitter with PBENCH_*_ROOT attributes from the live /proc"
else
	miss "jitter with a recorded tree"
fi

# ---- 5. output paths are checked before measuring; a late write error keeps the text --------
start=$(date +%s)
usage_error "jitter json in a missing directory" "cannot write the JSON '/nonexistent/x.json'" \
	jitter -d 3 --json=/nonexistent/x.json
if [ $(( $(date +%s) - start )) -gt 1 ]; then bad "jitter json path" "not refused at once"; fi
seq 1 5 >"$T/a5.txt"
if [ -w /dev/full ]; then
	if run "json to /dev/full" 1 "$PB" stat --mode unprepared -r 2 --iterations 100000 \
		-e task-clock --json=/dev/full && has "$T/out" "^summary: 2 runs" &&
	   has "$T/err" "cannot write the JSON '/dev/full'"; then
		ok "a JSON that cannot be written: the text is printed anyway, exit 1 with the reason"
	else
		miss "json to /dev/full"
	fi
	if run "markdown to /dev/full" 1 "$PB" analyze --export-markdown /dev/full "$T/a5.txt" &&
	   has "$T/out" "mean" && has "$T/err" "cannot write the Markdown '/dev/full'"; then
		ok "a Markdown table that cannot be written: the text anyway, exit 1 with the reason"
	else
		miss "markdown to /dev/full"
	fi
	if ! "$PB" stat --profile --mode unprepared -r 1 -e task-clock -- true >/dev/null 2>&1; then
		skipped "folded to /dev/full" "sampling a command is refused here (perf_event_open)"
	elif run "folded to /dev/full" 1 "$PB" stat --profile --mode unprepared -r 1 \
		-e task-clock --export-folded /dev/full -- true && has "$T/out" "^Profile: " &&
	   has "$T/err" "cannot write --export-folded '/dev/full'"; then
		ok "folded stacks that cannot be written: the text anyway, exit 1 with the reason"
	else
		miss "folded to /dev/full"
	fi
	for x in flamegraph export-pprof; do
		if ! "$PB" stat --profile --mode unprepared -r 1 -e task-clock -- true >/dev/null 2>&1; then
			skipped "--$x to /dev/full" "sampling a command is refused here (perf_event_open)"
		elif run "--$x to /dev/full" 1 "$PB" stat --profile --mode unprepared -r 1 \
			-e task-clock --$x /dev/full -- true && has "$T/out" "^Profile: " &&
		   has "$T/err" "cannot write --$x '/dev/full': No space left on device" &&
		   [ "$(grep -c . "$T/err")" -eq 1 ]; then
			ok "--$x that cannot be written: the text anyway, exit 1 with the one-line reason"
		else
			miss "--$x to /dev/full"
		fi
	done
	if run "stdout to /dev/full" 1 sh -c "'$PB' stat --mode unprepared -r 2 --iterations 100000 -e task-clock >/dev/full" &&
	   has "$T/err" "cannot write to standard output"; then
		ok "stdout on /dev/full: exit 1 with the reason"
	else
		miss "stdout to /dev/full"
	fi
else
	skipped "/dev/full" "this machine has no /dev/full (a container without it?)"
fi
# A full disk is said as one (ENOSPC from the write that failed), not as an I/O error: on a
# 64 KiB tmpfs filled up, as root; the old file on it stays whole.
if [ "$(id -u)" = 0 ] && mkdir "$T/full" && mount -t tmpfs -o size=64k pbench-full "$T/full" \
	2>/dev/null; then
	echo "the user's old file" >"$T/full/old.json"
	dd if=/dev/zero of="$T/full/fill" bs=4k 2>/dev/null
	seq 1 3000 >"$T/a3000.txt"
	if run "json on a full disk" 1 "$PB" analyze --export-json "$T/full/old.json" "$T/a3000.txt" &&
	   has "$T/out" "mean" &&
	   has "$T/err" "cannot write the JSON '$T/full/old.json': No space left on device" &&
	   has "$T/full/old.json" "^the user's old file$" &&
	   run "markdown on a full disk" 1 "$PB" analyze --export-markdown "$T/full/x.md" \
		"$T/a3000.txt" "$T/a3000.txt" &&
	   has "$T/err" "cannot write the Markdown '$T/full/x.md': No space left on device"; then
		ok "a full disk is said as 'No space left on device', the old file kept"
	else
		miss "full disk"
	fi
	umount "$T/full"
else
	skipped "full disk" "needs root to mount a small tmpfs"
fi
# A file with another hard link is rewritten in place once complete: both names get the new
# report (a rename would leave the other name the old data).
echo "the user's old file" >"$T/link1.json"
ln "$T/link1.json" "$T/link2.json"
if run "hard-linked output" 0 "$PB" analyze --export-json "$T/link1.json" "$T/a5.txt" &&
   has "$T/link2.json" '"schema"' && cmp -s "$T/link1.json" "$T/link2.json" &&
   [ "$(stat -c %h "$T/link1.json")" = 2 ]; then
	ok "a hard-linked output is written in place: every link has the new report"
else
	miss "hard-linked output"
fi
# A FIFO nobody writes to (or reads) holds no command forever: after a second, one line says
# what pbench waited for (timeout 20: a hang is a failure, not a stuck suite).
mkfifo "$T/nofifo"
printf '#!/bin/sh\nexec timeout 20 "%s" "$@"\n' "$PB" >"$T/pb20" && chmod +x "$T/pb20"
PB_REAL=$PB PB=$T/pb20
usage_error "fifo with no writer" "'$T/nofifo' is a FIFO that no program wrote to in 1000 ms" \
	analyze "$T/nofifo"
usage_error "baseline fifo with no writer" "cannot read the baseline: '$T/nofifo' is a FIFO that" \
	compare --baseline "$T/nofifo" true
usage_error "export to a fifo with no reader" "'$T/nofifo' is a FIFO that no program read in" \
	analyze --export-json "$T/nofifo" "$T/a5.txt"
(sleep 0.3; seq 1 5 >"$T/nofifo") &
writer=$!
if run "fifo with a late writer" 0 "$PB" analyze "$T/nofifo" && has "$T/out" "nofifo: 5 samples"
then
	ok "a FIFO whose writer comes within the second is read"
else
	miss "fifo with a late writer"
fi
wait "$writer"
PB=$PB_REAL
if run "closed stdout" 1 sh -c "'$PB' stat --mode unprepared -r 2 --iterations 100000 -e task-clock >&-"; then
	ok "a closed stdout is exit 1"
else
	miss "closed stdout"
fi
# A broken pipe: pbench ends quietly with no child left, whatever the reader did.
sh -c "'$PB' stat --mode unprepared -r 50 -e task-clock -- sleep 0.01$U | head -c 1 >/dev/null" \
	2>"$T/err"
sleep 0.2
if gone "sleep 0.01$U" && nothas "$T/err" "error"; then ok "a broken pipe: quiet, nothing left"
else bad "broken pipe" "$(head -1 "$T/err")"; fi
sh -c "'$PB' stat --mode unprepared -r 30 -e task-clock --markdown -- sleep 0.01$U | head -c 1 >/dev/null" \
	2>"$T/err"
sleep 0.2
if gone "sleep 0.01$U" && nothas "$T/err" "error"; then ok "a broken pipe under --markdown: quiet, nothing left"
else bad "broken pipe markdown" "$(head -1 "$T/err")"; fi

# Two outputs that are one file by another name (before it exists): refused before anything
# is written; a --record that cannot be (an empty name, no directory to make the store in)
# refused before anything runs (it was said after all of them).
ln -s same2.json "$T/same2link.json"
PBA=$(cd "$(dirname "$PB")" && pwd)/pbench	# absolute: run from $T
if run "one file by two names" 2 sh -c "cd '$T' && exec '$PBA' analyze --export-json same.json --export-markdown ./same.json a5.txt" &&
   has "$T/err" "both write to './same.json'" && [ ! -e "$T/same.json" ] &&
   run "one file through a link" 2 "$PB" analyze --export-json "$T/same2.json" \
	--export-markdown "$T/same2link.json" "$T/a5.txt" && [ ! -e "$T/same2.json" ]; then
	ok "two outputs naming one file ('./a', a link to it) are refused before writing"
else
	miss "one file by two names"
fi
usage_error "stat --record ''" "--record: the series' NAME is empty" stat --mode unprepared \
	-r 1 -e task-clock --record "" -- sleep 5.$U
usage_error "stat --history with no directory" "no directory '/nonexistent-$U' to make the store's in" \
	stat --mode unprepared -r 1 -e task-clock --record x --history "/nonexistent-$U/sub/h.db" \
	-- sleep 5.$U
usage_error "compare --record ''" "--record: the series' NAME is empty" compare \
	--mode unprepared --max-runs 2 --min-runs 2 --record "" "sleep 5.$U" "sleep 5.$U"

# ---- 6. no figure that was not measured ------------------------------------------------------
if run "stat -r 1" 0 "$PB" stat --mode unprepared -r 1 --iterations 100000 -e task-clock &&
   has "$T/out" "stddev n/a, cv n/a, spread n/a" && nothas "$T/out" "fences" &&
   has "$T/out" "^outliers: n/a"; then
	ok "one run: stddev, cv, spread and fences are n/a, not 0"
else
	miss "stat -r 1"
fi
printf '1\n1\n1\n1e300\n' >"$T/big.txt"
if run "analyze huge" 0 "$PB" analyze "$T/big.txt" && has "$T/out" "stddev *n/a" &&
   ! grep -qiw "nan\|inf" "$T/out" && has "$T/out" "median *1\$"; then
	ok "analyze on 1 1 1 1e300: stddev n/a, no nan or inf, median 1"
else
	miss "analyze huge"
fi
if [ "$HAVE_PY" -eq 1 ] && run "analyze huge json" 0 "$PB" analyze --json "$T/big.txt" &&
   json "$T/out" 'all(k in d["inputs"][0]["summary"] for k in ("stddev","sem","cv_pct","ci_lo","median")) and d["inputs"][0]["summary"]["stddev"] is None'; then
	ok "analyze --json keeps every key, null where not computable"
else
	miss "analyze huge json"
fi
usage_error "jitter tiny duration" "invalid duration '1e-300'" jitter -d 1e-300
if run "jitter tiny threshold" 0 "$PB" jitter --cpu 0 -d 0.05 -t 0.0001 &&
   has "$T/out" "asked, rounded up to whole clock ticks" && nothas "$T/out" "(as given)" &&
   has "$T/out" "below the loop's period"; then
	ok "a threshold below a clock tick is said as rounded, and warned about"
else
	miss "jitter tiny threshold"
fi
# --compare-prepared stopped during the prepared half: no comparison, no 'inf' (the normal
# half is 0.5 s after a 0.2 s look for the CPU; these land in the prepared half or just before).
for at in 0.9 1.2; do
	$PBI jitter --compare-prepared -d 0.5 >"$T/out" 2>"$T/err" &
	pbpid=$!
	listening "$pbpid"
	sleep $at
	kill -INT "$pbpid"
	wait "$pbpid"
	rc=$?
	if [ "$rc" -eq 1 ] && ! grep -q "times less\|inf" "$T/out" &&
	   { ! has "$T/out" "^prepared against" || has "$T/out" "no comparison, the prepared run was stopped early"; }; then
		ok "jitter --compare-prepared interrupted at $at s: no invented comparison"
	else
		bad "compare-prepared interrupted at $at s" "exit $rc: $(grep -h 'verdict\|against' "$T/out")"
	fi
done
if run "prepared harness" 0 "$PB" stat -r 3 --warmup-ms 50 -e task-clock -- sleep 0.02 &&
   has "$T/out" "time in exec n/a (pbench and the command share one CPU"; then
	ok "prepared: the time in exec is n/a, not the whole run"
else
	miss "prepared harness"
fi

# ---- 7. analyze reads what pbench writes, and refuses the rest in one line ----------------
for m in unprepared prepared contrast; do
	"$PB" stat --mode $m -r 3 --warmup-ms 50 --iterations 100000 -e task-clock \
		--json="$T/$m.json" >/dev/null 2>&1
	nsets=1	# not "want": run() uses that name
	[ $m = contrast ] && nsets=2
	if run "analyze $m json" 0 "$PB" analyze "$T/$m.json" &&
	   [ "$(grep -c ': 3 samples$' "$T/out")" -eq "$nsets" ]; then
		ok "analyze reads pbench stat's $m JSON ($nsets set(s))"
	else
		miss "analyze $m json"
	fi
done
"$PB" compare --mode unprepared --max-runs 12 --full-budget -e task-clock -n a -n b true true \
	--export-json "$T/compare.json" >/dev/null 2>&1
if run "analyze compare json" 0 "$PB" analyze "$T/compare.json" &&
   has "$T/out" "^a: 12 samples$" && has "$T/out" "^b: 12 samples$" && has "$T/out" "^a vs b:"; then
	ok "analyze reads pbench compare's JSON (a set per command)"
else
	miss "analyze compare json"
fi
if [ -x "$O/examples/time_function" ]; then
	LD_LIBRARY_PATH="$O/stage/usr/lib" "$O/examples/time_function" --json >"$T/result.json"
	if run "analyze result json" 0 "$PB" analyze "$T/result.json" &&
	   has "$T/out" "^sum of 4096 integers: [0-9]* samples$"; then
		ok "analyze reads the library's result JSON"
	else
		miss "analyze result json"
	fi
else
	skipped "analyze result json" "the time_function example is not built"
fi
seq 1 10 >"$T/a.txt"
seq 3 12 >"$T/b.txt"
seq 2 11 >"$T/c.txt"
if run "analyze three" 0 "$PB" analyze "$T/a.txt" "$T/b.txt" "$T/c.txt" &&
   has "$T/out" "a.txt vs .*b.txt:" && has "$T/out" "a.txt vs .*c.txt:"; then
	ok "analyze compares the first input with each other one"
else
	miss "analyze three"
fi
usage_error "analyze a directory" "is a directory" analyze "$T"
printf '1\n2\0003\n' >"$T/nul.txt"
usage_error "analyze NUL" "a NUL byte at offset 3" analyze "$T/nul.txt"
mkdir -p "$T/d"
seq 1 5 >"$T/d/$(printf '%0250d' 0)"
if run "analyze long name" 0 "$PB" analyze "$T/d/$(printf '%0250d' 0)" "$T/a.txt" &&
   has "$T/out" "$(printf '%0250d' 0): 5 samples"; then
	ok "analyze keeps names longer than 255 characters whole"
else
	miss "analyze long name"
fi
printf '5\n5\n5\n' >"$T/k1"
printf '7\n7\n' >"$T/k2"
if run "analyze constants" 0 "$PB" analyze "$T/k1" "$T/k2" &&
   has "$T/out" "both are constant (every sample 5 against 7)" && nothas "$T/err" "Invalid"; then
	ok "two constant inputs: said in a sentence"
else
	miss "analyze constants"
fi
if [ "$IS_ASAN" -eq 0 ] && command -v prlimit >/dev/null 2>&1; then
	seq 1 3000000 >"$T/many.txt"
	if run "analyze out of memory" 1 prlimit --as=60000000 "$PB" analyze "$T/many.txt" &&
	   [ "$(wc -l <"$T/err")" -eq 1 ] && has "$T/err" "out of memory"; then
		ok "analyze out of memory: one line, exit 1"
	else
		miss "analyze out of memory"
	fi
	rm -f "$T/many.txt"
else
	skipped "analyze out of memory" "an ASan build or no prlimit"
fi

# ---- 8. options ---------------------------------------------------------------------------
usage_error "missing -r value" "option '-r' needs a value" stat -r
usage_error "missing --cpu value" "option '--cpu' needs a value" check --cpu
usage_error "missing -d value" "option '-d' needs a value" jitter -d
usage_error "missing --unit value" "option '--unit' needs a value" analyze --unit
for v in " 5" "5 " 0x10 5% 1e2x inf nan; do
	usage_error "-r '$v'" "invalid run count '$v' for -r" stat -r "$v"
done
usage_error "timeout with %" "invalid timeout '5%'" stat --timeout 5%
usage_error "timeout hex" "invalid timeout '0x1'" stat --timeout 0x1
if run "-r 1e1" 0 "$PB" stat --mode unprepared -r 1e1 --iterations 10000 -e task-clock &&
   has "$T/out" "10 runs"; then ok "-r takes 1e1 as 10, as every number option does"; else miss "-r takes 1e1 as 10, as every number option does"; fi
if run "target-sem with %" 0 "$PB" stat --mode unprepared --target-sem 50% --iterations 10000 -e task-clock; then
	ok "--target-sem takes a trailing %"
else
	miss "target-sem with %"
fi
usage_error "same file twice" "both write to" stat --json="$T/same" --export-csv "$T/same"
ln -s same "$T/same-link.svg"
usage_error "same file through a link" "both write to" stat --json="$T/same" --export-csv "$T/same" --plot "$T/same-link.svg"
usage_error "help nope" "no help on 'nope'" help nope

# ---- 9. signals ignored at start stay ignored ----------------------------------------------
# ignored_stays SIG RUNS WAIT: pbench started with SIG ignored and sent SIG after WAIT seconds
# finishes its RUNS runs of sleep 0.1 and exits 0.
ignored_stays() {
	env --ignore-signal="$1" "$PB" stat --mode unprepared -r "$2" -e task-clock -- sleep 0.1 \
		>"$T/out" 2>"$T/err" &
	pbpid=$!
	sleep "$3"
	kill -"$1" "$pbpid"
	wait "$pbpid"
	rc=$?
	runs=$(grep -c 'exit 0$' "$T/out")
	if [ "$rc" -eq 0 ] && [ "$runs" -eq "$2" ]; then
		ok "SIG$1 ignored when pbench started stays ignored (nohup)"
	else
		bad "ignored SIG$1" "expected exit 0 and $2 runs 'exit 0'; saw exit $rc and $runs"
	fi
}
ignored_stays TERM 10 0.4
"$PB" stat --mode unprepared -r 10 -e task-clock -- sleep 0.1 >"$T/out" 2>"$T/err" &
pbpid=$!
sleep 0.4
kill -INT "$pbpid"
wait "$pbpid"
rc=$?
if [ "$rc" -eq 0 ] && [ "$(grep -c 'exit 0$' "$T/out")" -eq 10 ]; then
	ok "SIGINT ignored (a background job of a script) stays ignored"
else
	bad "ignored SIGINT" "exit $rc"
fi

# Every signal whose default ends pbench ends its runs first, whatever the command (issue 25):
# the command and what it started are ended (a prepared run's command would keep pbench's
# pinned CPU and FIFO priority), then pbench dies of that signal (129 for SIGHUP, a closed
# terminal). INT and TERM keep their exit 1 ("interrupted").
# stop_at S PID [PATTERN]: wait until PID ends, at most S seconds, else kill it (SIGKILL),
# and first what matches PATTERN (a command that keeps it from running): the checks that
# follow then fail on its exit status, and the script does not hang on its wait.
stop_at() {
	_n=0
	while kill -0 "$2" 2>/dev/null; do
		if [ "$_n" -ge $(($1 * 10)) ]; then
			[ -n "${3:-}" ] && pkill -9 -f "$3"
			kill -9 "$2" 2>/dev/null
			return 1
		fi
		sleep 0.1
		_n=$((_n + 1))
	done
}
for sig in HUP USR1 ALRM QUIT; do
	case $sig in HUP) want=129 mode=prepared ;; USR1) want=138 mode=unprepared ;;
		     ALRM) want=142 mode=unprepared ;; QUIT) want=131 mode=unprepared ;; esac
	# A script's background job starts with SIGINT and SIGQUIT ignored: QUIT's default back.
	(ulimit -c 0; exec env --default-signal=QUIT "$PB" stat --mode $mode --warmup-ms 100 -r 2 -e task-clock \
		-- sleep 10.9$U) >"$T/out" 2>"$T/err" &
	pbpid=$!
	sleep 1
	kill -$sig "$pbpid"
	stop_at 3 "$pbpid"
	wait "$pbpid"
	rc=$?
	if [ "$rc" -eq "$want" ] && gone "sleep 10.9$U" && has "$T/err" "interrupted after 0 of 2 runs"; then
		ok "SIG$sig during a $mode stat: the command ended, pbench died of SIG$sig ($rc)"
	else
		bad "SIG$sig stat" "exit $rc (want $want), or 'sleep 10.9$U' left: $(pgrep -af "sleep 10.9$U" | head -1)"
		pkill -9 -f "sleep 10.9$U"
	fi
done
# jitter and compare, through the same handler: the partial result, then the signal.
"$PB" jitter -d 5 >"$T/out" 2>"$T/err" &
pbpid=$!
sleep 0.5
kill -HUP "$pbpid"
wait "$pbpid"
rc=$?
if [ "$rc" -eq 129 ] && has "$T/err" "interrupted" && has "$T/out" "^pbench jitter:"; then
	ok "SIGHUP during a jitter: the partial result, then pbench dies of SIGHUP"
else
	bad "SIGHUP jitter" "exit $rc"
fi
"$PB" compare --mode unprepared --max-runs 50 --min-runs 50 -e task-clock \
	"sleep 0.05$U" "sh -c 'sleep 0.05$U'" >"$T/out" 2>"$T/err" &
pbpid=$!
sleep 1
kill -USR1 "$pbpid"
stop_at 3 "$pbpid"
wait "$pbpid"
rc=$?
if [ "$rc" -eq 138 ] && gone "sleep 0.05$U" && has "$T/err" "interrupted after"; then
	ok "SIGUSR1 during a compare: its commands ended, pbench died of SIGUSR1"
else
	bad "SIGUSR1 compare" "exit $rc"
	pkill -f "sleep 0.05$U"
fi
# SIGHUP ignored at start (nohup) stays ignored.
ignored_stays HUP 3 0.2
# compare says what its commands left running, as stat does (issue 25).
if run "compare leftovers" 0 "$PB" compare --mode unprepared --min-runs 2 --max-runs 2 \
	-e task-clock --shell "sleep 30.8$U & true" "true" &&
   has "$T/err" "left 2 processes running after 2 runs" && gone "sleep 30.8$U"; then
	ok "compare: a background job its command left is ended and said"
else
	miss "compare leftovers"
	pkill -f "sleep 30.8$U"
fi
# --memory's runs are covered too: the timed run's report is kept, the counted run under way
# is ended (issue 25: exit 130, no report, the command left with PPID 1). The command sleeps
# only under the allocator shim (LD_PRELOAD): in the counted runs.
$PBI stat -r 1 --mode unprepared -q --memory=3 -e task-clock \
	-- sh -c "[ -n \"\$LD_PRELOAD\" ] && sleep 30.5$U; true" >"$T/out" 2>"$T/err" &
pbpid=$!
sleep 1.5
kill -INT "$pbpid"
stop_at 3 "$pbpid"
wait "$pbpid"
rc=$?
if [ "$rc" -eq 1 ] && gone "sleep 30.5$U" && has "$T/out" "^summary: 1 run" &&
   has "$T/out" "stopped during the run" && has "$T/err" "interrupted"; then
	ok "SIGINT during --memory's runs: the report kept, the run under way ended, exit 1"
else
	bad "SIGINT stat --memory" "exit $rc, or no report, or 'sleep 30.5$U' left"
	pkill -f "sleep 30.5$U"
fi
$PB compare --mode unprepared --memory=3 --min-runs 2 --max-runs 2 -e task-clock \
	--export-json "$T/m.json" --shell "[ -n \"\$LD_PRELOAD\" ] && sleep 30.7$U; true" true \
	>"$T/out" 2>"$T/err" &
pbpid=$!
sleep 1.5
kill -TERM "$pbpid"
stop_at 3 "$pbpid"
wait "$pbpid"
rc=$?
if [ "$rc" -eq 1 ] && gone "sleep 30.7$U" && has "$T/out" "stopped during the run" &&
   json "$T/m.json" 'len(d["entrants"]) == 2'; then
	ok "SIGTERM during compare --memory's runs: the text and the JSON kept, nothing left"
else
	bad "SIGTERM compare --memory" "exit $rc, or no report, or 'sleep 30.7$U' left"
	pkill -f "sleep 30.7$U"
fi
# pbench itself stopped (SIGSTOP) for 2 s during a run, then continued: the run says so, as
# its outlier's cause and in a warning. Before: "run 2, 3.12 s" blamed on "2.6 s off the CPU
# ... preempted once". The stop must fall in a timed run (not between two): up to three tries.
try=1
while :; do
	"$PB" stat -r 6 --mode unprepared -e task-clock -- sleep 0.5$U >"$T/out" 2>"$T/err" &
	pbpid=$!
	sleep 1.6
	kill -STOP "$pbpid"
	sleep 2
	kill -CONT "$pbpid"
	stop_at 10 "$pbpid"
	wait "$pbpid"
	rc=$?
	if [ "$rc" -eq 0 ] &&
	   has "$T/err" "pbench itself was stopped (SIGSTOP or SIGTSTP) and continued during 1 run" &&
	   has "$T/out" "^  run [2-6]: pbench itself was stopped"; then
		ok_after "$try" "pbench stopped (SIGSTOP) during a run: the run says so, not 'off the CPU'"
		break
	fi
	if [ "$try" -ge 3 ]; then
		bad "SIGSTOP pbench" "exit $rc, or the stop not said ($LAST_WANT)"
		break
	fi
	try=$((try + 1))
done
# Two small programs: one that spins (spin S: for S seconds, 0 for ever), one that forks N
# daemons (setsid, then a sleep of 30 s; their command line is their parent's, with this run's
# $U) and exits.
HAVE_CC=0
if command -v cc >/dev/null 2>&1 &&
   printf '%s\n' '#include <stdlib.h>' '#include <time.h>' 'int main(int argc, char **argv) {' \
	'time_t end = atoi(argv[1]) > 0 ? time(NULL) + atoi(argv[1]) : 0;' \
	'for (volatile unsigned i = 0;; i++)' \
	'if (!(i & 0xfffff) && end && time(NULL) >= end) return 0; }' >"$T/spin.c" &&
   cc -O1 -o "$T/spin" "$T/spin.c" 2>/dev/null &&
   printf '%s\n' '#include <stdlib.h>' '#include <unistd.h>' 'int main(int argc, char **argv) {' \
	'for (int i = 0, n = atoi(argv[1]); i < n; i++)' \
	'if (fork() == 0) { setsid(); sleep(30); _exit(0); }' 'return 0; }' >"$T/daemons.c" &&
   cc -O1 -o "$T/daemons" "$T/daemons.c" 2>/dev/null &&
   cat >"$T/hopper.c" <<'EOF_HOPPER' && cc -O1 -o "$T/hopper" "$T/hopper.c" 2>/dev/null &&
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
/* hopper S: spin 1 ms, fork, exit; the child does the same, SIGTERM ignored, until S seconds
 * after the first start by the clock (so the chain ends itself whatever pbench does) */
static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}
int main(int argc, char **argv)
{
	double end = now() + atof(argv[1]);

	signal(SIGTERM, SIG_IGN);
	for (;;) {
		double t = now();

		while (now() < t + 0.001)
			;
		if (now() >= end || fork() != 0)
			_exit(0);
	}
}
EOF_HOPPER
   cat >"$T/fifospin.c" <<'EOF_FIFOSPIN' && cc -O1 -o "$T/fifospin" "$T/fifospin.c" 2>/dev/null; then
#include <sched.h>
#include <stdlib.h>
#include <time.h>
/* fifospin PRIO S: SCHED_FIFO at PRIO (0: as started), then spin for S seconds by its own
 * clock, whatever happens to pbench; exit 3 when the priority cannot be taken */
static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}
int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = atoi(argv[1]) };
	double end = now() + atof(argv[2]);

	if (sp.sched_priority && sched_setscheduler(0, SCHED_FIFO, &sp))
		return 3;
	for (volatile unsigned i = 0;; i++)
		if (!(i & 0xffff) && now() >= end)
			return 0;
}
EOF_FIFOSPIN
	HAVE_CC=1
fi
# No limit on what is ended: 700 daemons (before: "left 256", 188 still running).
if [ "$HAVE_CC" -eq 0 ]; then
	skipped "700 daemons" "no C compiler for the forking program"
elif run "700 daemons" 0 "$PB" stat -r 1 --mode unprepared -q -e task-clock -- "$T/daemons" 700 "$U" &&
   has "$T/err" "left 700 processes running after 1 run" && { sleep 0.2; gone "daemons 700 $U"; }; then
	ok "700 daemons a command left are all ended and counted"
else
	miss "700 daemons" "$(pgrep -fc "daemons 700 $U") left"
	pkill -f "daemons 700 $U"
fi
# A command that keeps forking a daemon (each spins 1 ms, forks and exits, SIGTERM ignored):
# the run is counted up to its command's exit, not through the sweep that ends the chain (its
# counters, and its CPU time: wait4's, not the reaped chain's).
# Before: a run of 1.1 ms with task-clock 310 ms, "used 287 CPUs' worth ... give it 314 CPUs".
if [ "$HAVE_CC" -eq 0 ]; then
	skipped "hopper" "no C compiler for the forking program"
elif run "hopper" 0 "$PB" stat -r 2 --mode unprepared -e task-clock --export-json "$T/hop.json" \
	-- "$T/hopper" 20 "$U" &&
   has "$T/err" "their time after the command's exit is not counted" &&
   nothas "$T/err" "CPUs' worth" && { [ "$HAVE_PY" -eq 0 ] || json "$T/hop.json" \
	'all(r["counters"]["task-clock"]["scaled"] <= (int(sys.argv[2]) + 1) * r["ns"] for r in d["modes"][0]["runs"]) and
	 all(r["user_ns"] + r["system_ns"] <= (int(sys.argv[2]) + 1) * r["ns"] for r in d["modes"][0]["runs"])' "$NCPU"; } &&
   { sleep 0.2; gone "hopper 20 $U"; }; then
	ok "a command that keeps forking daemons: counted to its exit, the chain ended"
else
	miss "hopper"
	pkill -9 -f "hopper 20 $U"
fi
# --annotate's sampled run is covered too: a command that never ends is ended on SIGINT.
if [ "$HAVE_CC" -eq 1 ]; then
	$PBI stat -r 1 --mode unprepared -q --annotate main -- "$T/spin" 0 10.9$U \
		>"$T/out" 2>"$T/err" &
	pbpid=$!
	sleep 1
	kill -INT "$pbpid"
	stop_at 3 "$pbpid" "spin 0 10.9$U"
	wait "$pbpid"
	rc=$?
	if [ "$rc" -eq 1 ] && gone "spin 0 10.9$U" && has "$T/err" "interrupted after 0 of 1 runs"; then
		ok "SIGINT during --annotate's sampled run: the command ended, exit 1"
	else
		bad "SIGINT annotate" "exit $rc, or 'spin 0 10.9$U' left"
		pkill -9 -f "spin 0 10.9$U"
	fi
else
	skipped "SIGINT annotate" "no C compiler for the spinning program"
fi

# pbench SIGKILLed: its command dies with it (PR_SET_PDEATHSIG), with the default events and
# with one named.
for ev in "-e task-clock" ""; do
	"$PB" stat -r 1 --mode unprepared $ev -- sleep 10.7$U >"$T/out" 2>"$T/err" &
	pbpid=$!
	sleep 0.5
	kill -KILL "$pbpid"
	wait "$pbpid"
	sleep 0.2
	if gone "sleep 10.7$U"; then
		ok "pbench killed (SIGKILL) during a run (${ev:-default events}): its command ends with it"
	else
		bad "SIGKILL pbench ($ev)" "'sleep 10.7$U' left running"
		pkill -f "sleep 10.7$U"
	fi
done
# --timeout holds, and SIGINT is handled, when the command spins on pbench's CPU at pbench's
# SCHED_FIFO priority (the AUTO probe's choice, kept in $XDG_CACHE_HOME, set here): pbench's
# thread waits above it, on another CPU when there is one. Before: the run reported as 3 s "exit 0"; a command
# that never ends kept pbench from running at all.
cpu=$((NCPU - 1))
if [ "$HAVE_CC" -eq 0 ]; then
	skipped "FIFO timeout" "no C compiler for the spinning program"
elif ! command -v chrt >/dev/null 2>&1 || ! chrt -f 1 true 2>/dev/null; then
	skipped "FIFO timeout" "SCHED_FIFO is not allowed here (root or RLIMIT_RTPRIO)"
else
	mkdir -p "$T/cache/pbench"
	echo "$(cat /proc/sys/kernel/random/boot_id) $cpu xor 3 10 1 50 50 20 $(date +%s)" \
		>"$T/cache/pbench/priority"
	start=$(date +%s)
	if run "FIFO timeout" 1 env XDG_CACHE_HOME="$T/cache" "$PB" stat -r 1 --cpu $cpu \
		--warmup-ms 100 --timeout 0.5 -e task-clock -- "$T/spin" 3 10.6$U &&
	   has "$T/out" "^priority: SCHED_FIFO" && has "$T/out" "timed out (killed)$" &&
	   [ $(($(date +%s) - start)) -lt 3 ] && gone "spin 3 10.6$U"; then
		ok "--timeout ends a command that spins at pbench's SCHED_FIFO priority on its CPU"
	else
		miss "FIFO timeout" "took $(($(date +%s) - start)) s"
		pkill -9 -f "spin 3 10.6$U"
	fi
	env XDG_CACHE_HOME="$T/cache" $PBI stat -r 1 --cpu $cpu --warmup-ms 100 -e task-clock \
		-- "$T/spin" 0 10.6$U >"$T/out" 2>"$T/err" &
	pbpid=$!
	sleep 1.5
	kill -INT "$pbpid"
	stop_at 3 "$pbpid" "spin 0 10.6$U"
	wait "$pbpid"
	rc=$?
	sleep 0.2
	if [ "$rc" -eq 1 ] && gone "spin 0 10.6$U" && has "$T/err" "interrupted after 0 of 1 runs"; then
		ok "SIGINT ends a command that spins at pbench's SCHED_FIFO priority on its CPU"
	else
		bad "FIFO SIGINT" "exit $rc, or 'spin 0 10.6$U' left"
		pkill -9 -f "spin 0 10.6$U"
	fi
	# The spinner a grandchild under timeout(1), which puts its command in a group of its
	# own: the shell and timeout, at its priority, never run again, and the end of the run
	# must reach the spinner itself. Before: the run never ended (here, killed at 15 s).
	start=$(date +%s)
	if run "FIFO timeout(1)" 1 timeout -s KILL 15 env XDG_CACHE_HOME="$T/cache" "$PB" stat \
		-r 1 --cpu $cpu --warmup-ms 100 --timeout 0.5 -e task-clock \
		-- sh -c "timeout 30 $T/spin 0 10.5$U; true" &&
	   has "$T/out" "^priority: SCHED_FIFO" && has "$T/out" "timed out (killed)$" &&
	   [ $(($(date +%s) - start)) -lt 4 ] && { sleep 0.2; gone "spin 0 10.5$U"; }; then
		ok "--timeout ends a SCHED_FIFO spinner that timeout(1) put in a group of its own"
	else
		miss "FIFO timeout(1)" "took $(($(date +%s) - start)) s"
		pkill -9 -f "spin 0 10.5$U"
	fi
	# A command that raises itself above pbench (SCHED_FIFO 52: above the prepared 50 and
	# the watcher's old 51; 99: the top) on the prepared CPU: pbench's thread waits on
	# another CPU, so the timeout and -I's intervals come on time. Before: a 0.5 s timeout
	# ran the spinner's 3 s and the run said "exit 0" (fifospin 52, 3 of 3); with -I 100 one
	# "interval of 100 ms" spanned the whole run.
	for prio in 52 99; do
		if [ "$NCPU" -lt 2 ]; then
			skipped "FIFO $prio timeout" "one CPU only: pbench's thread has no other CPU to wait on"
			continue
		elif [ "$HAVE_PY" -eq 0 ]; then
			skipped "FIFO $prio timeout" "python3 is not installed (the check reads the JSON)"
			continue
		fi
		if run "FIFO $prio timeout" 1 timeout -s KILL 20 env XDG_CACHE_HOME="$T/cache" \
			"$PB" stat -r 1 --cpu $cpu --warmup-ms 100 --timeout 0.5 -I 100 -e task-clock \
			--export-json "$T/f$prio.json" -- "$T/fifospin" $prio 3 10.4$U &&
		   has "$T/out" "timed out (killed)$" && nothas "$T/out" "exit 0$" &&
		   json "$T/f$prio.json" '(r := d["modes"][0]["runs"][0])["timed_out"] and r["ns"] < 1.5e9 and
			r["intervals"] and all(i["ns"] < 0.35e9 for i in r["intervals"])' &&
		   { sleep 0.2; gone "fifospin $prio 3 10.4$U"; }; then
			ok "--timeout and -I hold when the command raises itself to SCHED_FIFO $prio on pbench's CPU"
		else
			miss "FIFO $prio timeout"
			pkill -9 -f "fifospin $prio 3 10.4$U"
		fi
	done
fi

# ---- 10. messages ----------------------------------------------------------------------------
printf '#!/nonexistent/interpreter-%s\necho hi\n' "$U" >"$T/script.sh"
chmod +x "$T/script.sh"
usage_error "missing interpreter" "its interpreter '/nonexistent/interpreter-$U' (its #! line) is not found" \
	stat -- "$T/script.sh"
mkdir -p "$T/tree/sys/devices/system/cpu" "$T/tree/proc"
echo zz >"$T/tree/sys/devices/system/cpu/online"
echo 0-1 >"$T/tree/sys/devices/system/cpu/present"
if run "broken tree" 1 env PBENCH_SYSFS_ROOT="$T/tree/sys" PBENCH_PROCFS_ROOT="$T/tree/proc" \
	"$PB" check && nothas "$T/err" "--cpu" && has "$T/err" "cannot check the recorded tree"; then
	ok "a broken recorded tree is blamed, not a --cpu that was not given"
else
	miss "broken tree"
fi
if [ "$(nproc)" -ge 2 ]; then
	# A copy of pbench under a name of this test's own: pbench knows another pbench by its
	# name, so the pbench processes of other tests (make test runs two builds at once) and
	# other users are not this test's rival.
	PBR="$T/pbr$$"
	cp "$PB" "$PBR"
	"$PBR" stat -r 60 --cpu 1 --warmup-ms 50 -e task-clock -- sleep 0.05 >/dev/null 2>"$T/err1" &
	first=$!
	sleep 3
	if run "two prepared" 0 "$PBR" stat -r 3 --cpu 1 --warmup-ms 50 -e task-clock -- sleep 0.01 &&
	   has "$T/err" "another pbench (pid $first) is pinned to CPU 1 too"; then
		ok "two prepared stats on one CPU: the second warns"
	else
		miss "two prepared"
	fi
	wait "$first"
else
	skipped "two prepared" "one CPU only"
fi

# ---- 11. pbench compare: old files kept, nothing left, one line -----------------------------
# A compare that fails (bad input, or the output check refusing) leaves the user's files as
# they were and creates none.
echo "the user's old file" >"$T/cmp.json"
cp "$T/cmp.json" "$T/cmp.svg"
mkdir "$T/cmpdir"
if run "compare bad input keeps" 2 "$PB" compare --export-json "$T/cmp.json" --plot "$T/cmp.svg" \
	-e cylces true true &&
   run "compare refused keeps" 1 "$PB" compare --mode unprepared --export-json "$T/cmp.json" \
	--plot "$T/cmp.svg" --export-csv "$T/cmpdir/new.csv" "echo a" "echo b" &&
   cmp -s "$T/cmp.json" "$T/cmp.svg" && has "$T/cmp.json" "the user's old file" &&
   [ -z "$(ls -A "$T/cmpdir")" ]; then
	ok "a failed compare (bad input, the output check) keeps the old files and makes none"
else
	miss "compare keeps" "old files changed, or $(ls -A "$T/cmpdir")"
fi
# SIGTERM mid-compare, interleaved and as a duet, unprepared and prepared: every command and
# what it started ended, exit 1, the rounds so far reported, the state restored. --same 0:
# with the default 1% margin the two identical commands can be decided "the same" before the
# signal on a quiet machine (seen: exit 0, as t_compare's interrupt).
for how in "--mode unprepared" "--warmup-ms 100" "--duet"; do
	[ "$how" = "--duet" ] && [ "$NCPU" -lt 2 ] && continue
	$PBI compare $how --same 0 -e task-clock --max-runs 1000 \
		"sh -c 'sleep 32.$U & sleep 0.05$U'" "sh -c 'sleep 32.$U & sleep 0.05$U'" \
		>"$T/out" 2>"$T/err" &
	pbpid=$!
	sleep 2.5
	kill -TERM "$pbpid"
	wait "$pbpid"
	rc=$?
	sleep 0.2
	if [ "$rc" -eq 1 ] && gone "sleep 32.$U" && gone "sleep 0.05$U" &&
	   has "$T/err" "interrupted" && { ! has "$T/out" "^prepared:" || has "$T/out" "restored after"; }; then
		ok "SIGTERM mid-compare ($how): exit 1, every command and child ended"
	else
		bad "SIGTERM compare $how" "exit $rc"
		pkill -f "sleep 32.$U"
		pkill -f "sleep 0.05$U"
	fi
done
# The commands inherit no descriptor of pbench's: not the output files, not the check's.
if [ "$HAVE_PY" -eq 1 ]; then
	if run "compare fds" 0 run_clean "$PB" compare --mode unprepared --max-runs 2 --min-runs 2 \
		--show-output --export-json "$T/fd2.json" --plot "$T/fd2.svg" -e task-clock \
		--shell 'ls /proc/$$/fd' 'ls /proc/$$/fd' &&
	   [ "$(grep -x '[0-9][0-9]*' "$T/out" | sort -u | tr '\n' ' ')" = "0 1 2 " ] &&
	   json "$T/fd2.json" 'd["entrants"][0]["check"]["stdout_bytes"] == 6'; then
		ok "compared commands see only 0, 1 and 2 (the check's too: 6 bytes, '0 1 2')"
	else
		bad "compare fds" "the command saw: $(grep -x '[0-9][0-9]*' "$T/out" | sort -u | tr '\n' ' ')"
	fi
fi
usage_error "compare: bad input is one line" "invalid run count 'x' for --max-runs" \
	compare --max-runs x true true

# ---- 12. shared /tmp: another user's links are not followed -----------------------------------
# As root, with a second user (nobody) who plants links in a sticky world-writable directory
# (a /tmp of this test's own) to root's files, to root's directories and to names not made yet:
# every output and the history store refuse them in one line, the target as it was and nothing
# made where they point, as the kernel's protected_symlinks rule would (pbench keeps it itself:
# fs.protected_symlinks may be 0). A link of root's own, or of the directory's owner, is
# followed as before.
as_nobody=
if [ "$(id -u)" != 0 ]; then
	skipped "shared /tmp" "not root: the links are planted by a second user, made with setpriv"
elif ! id nobody >/dev/null 2>&1; then
	skipped "shared /tmp" "no user 'nobody' to plant the links"
elif command -v setpriv >/dev/null 2>&1; then
	as_nobody="setpriv --reuid=$(id -u nobody) --regid=$(id -g nobody) --clear-groups"
elif command -v runuser >/dev/null 2>&1; then
	as_nobody="runuser -u nobody --"
else
	skipped "shared /tmp" "neither setpriv nor runuser is installed to act as nobody"
fi
# nobody must reach the sticky directory (mktemp -d under $TMPDIR, which may sit under a
# directory closed to others: issue 37), or nobody's links cannot be planted
if [ -n "$as_nobody" ]; then
	S=$(mktemp -d)	# nobody reaches it where $TMPDIR is open ($T is root's 0700)
	chmod 1777 "$S"
	if ! $as_nobody test -w "$S" 2>/dev/null; then
		skipped "shared /tmp" "user nobody cannot reach $S (a directory above it is closed to others)"
		rm -rf "$S"
		as_nobody=
	fi
fi
if [ -n "$as_nobody" ]; then
	trap 'rm -rf "$T" "$S"' EXIT
	nuid=$(id -u nobody)
	R=$T/root
	mkdir "$R"
	echo "root's secret" >"$R/secret"
	chmod 600 "$R/secret"
	$as_nobody ln -s "$R/secret" "$S/o.json"
	$as_nobody ln -s "$R/secret" "$S/o.csv"
	$as_nobody ln -s "$R/secret" "$S/o.md"
	$as_nobody ln -s "$R/secret" "$S/o.svg"
	$as_nobody ln -s "$R/new.json" "$S/new.json"
	$as_nobody ln -s "$R/new.db" "$S/h.db"
	$as_nobody ln -s "$R" "$S/evil"
	$as_nobody ln -s "$R/wal" "$S/w.db-wal"
	secret_sum=$(cksum <"$R/secret")
	# refused NAME EXIT CMD...: exit EXIT, one error line naming the link's owner, root's file
	# as it was and nothing new in its directory.
	refused() {
		name=$1 want=$2
		shift 2
		if run "$name" "$want" "$PB" "$@" &&
		   has "$T/err" "is a link owned by uid $nuid in the sticky directory '$S'" &&
		   [ "$(grep -c '^pbench: error:' "$T/err")" -eq 1 ] &&
		   [ "$(cksum <"$R/secret")" = "$secret_sum" ] && [ "$(ls "$R")" = secret ]; then
			ok "shared /tmp: $name: refused in one line, root's files as they were"
		else
			miss "$name" "$(ls "$R" | tr '\n' ' ')"
		fi
	}
	refused "analyze --export-json through nobody's link" 2 analyze --export-json "$S/o.json" "$T/a5.txt"
	refused "analyze --export-markdown through nobody's link" 2 analyze --export-markdown "$S/o.md" "$T/a5.txt"
	refused "stat --export-csv through nobody's link" 2 stat --mode unprepared -r 2 \
		--iterations 100000 -e task-clock --export-csv "$S/o.csv"
	refused "stat --plot through nobody's link" 2 stat --mode unprepared -r 2 \
		--iterations 100000 -e task-clock --plot "$S/o.svg"
	refused "compare --export-json through nobody's link" 2 compare --mode unprepared \
		--max-runs 2 --min-runs 2 -e task-clock --export-json "$S/o.json" true true
	refused "a new file through nobody's link" 2 analyze --export-json "$S/new.json" "$T/a5.txt"
	refused "a directory on the way that is nobody's link" 2 analyze --export-json \
		"$S/evil/made.json" "$T/a5.txt"
	refused "history add --history through nobody's link" 1 history --history "$S/h.db" \
		add x "$T/a5.txt"
	refused "history add --history through nobody's link to a directory" 1 history \
		--history "$S/evil/h.db" add x "$T/a5.txt"
	if run "a store whose WAL is nobody's link" 1 "$PB" history --history "$S/w.db" add x "$T/a5.txt" &&
	   has "$T/err" "w.db-wal' is a symbolic link (owned by uid $nuid)" && [ "$(ls "$R")" = secret ]; then
		ok "shared /tmp: a link planted as the store's WAL: refused in one line, nothing made"
	else
		miss "a store whose WAL is nobody's link"
	fi
	# before any run (pbench_history_path_check()): a usage error, nothing measured
	refused "stat --record --history through nobody's link" 2 stat --mode unprepared -r 2 \
		--iterations 100000 -e task-clock --record x --history "$S/h.db"
	refused "compare --record --history through nobody's link" 2 compare --mode unprepared \
		--max-runs 2 --min-runs 2 --record x --history "$S/h.db" "sleep 5.$U" "sleep 5.$U"
	# A link of root's own in the same directory, and one of the owner of a sticky directory
	# nobody owns: followed, the file written where they point.
	ln -s "$R/mine.json" "$S/mine.json"
	ln -s "$R/mine.db" "$S/mine.db"
	S2=$S/nobodys
	mkdir "$S2" && chown nobody "$S2" && chmod 1777 "$S2"
	$as_nobody ln -s "$R/theirs.json" "$S2/theirs.json"
	if run "root's own link" 0 "$PB" analyze --export-json "$S/mine.json" "$T/a5.txt" &&
	   has "$R/mine.json" '"schema"' && [ -L "$S/mine.json" ] &&
	   run "the directory owner's link" 0 "$PB" analyze --export-json "$S2/theirs.json" \
		"$T/a5.txt" && has "$R/theirs.json" '"schema"' &&
	   run "root's own link to a store" 0 "$PB" history --history "$S/mine.db" add x "$T/a5.txt" &&
	   [ -f "$R/mine.db" ] && [ -L "$S/mine.db" ]; then
		ok "shared /tmp: root's own link, and the directory owner's, are followed"
	else
		miss "links the rule allows"
	fi
fi

echo "faults: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
