#!/bin/sh
# SPDX-License-Identifier: MIT
# The library's examples (kmod-free-docs/examples, built by make test against the installed
# library): per-call set-up outside the timed region (setup_each.c) against a setup per batch,
# and -v, the library's log callback, in each. tests/run.sh runs each example plainly too.
# First, `make install` itself into a temporary PREFIX: how a program finds the library.
# Usage: tests/cli/t_examples.sh BUILD_DIR. Last line: "cli/examples: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh
EX="$O/examples"
L="$O/stage/usr/lib"

# ---- make install PREFIX=tmp: everything under it, and a note on how programs find the library
# (scripts/ldconfig.sh). The real ldconfig is only asked (-v -N -X: it writes nothing); the
# branch that runs it gets a stand-in that says which directories it searches. -o all: the
# build as it is (all again would write this PREFIX into $O/pbench.pc).
if [ -e "$O/libpbench.so" ]; then
	P="$T/inst"
	# every absolute path of the install's commands (make -n), those outside the prefix
	outside=$(make --no-print-directory -o all -n install O="$O" PREFIX="$P" DESTDIR= LDCONFIG= 2>&1 |
		  tr ' ' '\n' | tr -d "'" | grep '^/' | grep -v "^$P/")
	if run "install" 0 make --no-print-directory -o all install O="$O" PREFIX="$P" DESTDIR= LDCONFIG= &&
	   [ -e "$P/lib/libpbench.so.2" ] && [ -x "$P/bin/pbench" ] && [ -z "$outside" ] &&
	   has "$T/out" "^note: the dynamic loader does not search $P/lib: link programs with -Wl,-rpath,$P/lib, or run them with LD_LIBRARY_PATH=$P/lib"; then
		ok "make install PREFIX=tmp: all under it, and how to make the library found (rpath, LD_LIBRARY_PATH, ld.so.conf.d)"
	else
		miss "install" "${outside:+paths outside the prefix: $outside}"
	fi
	cat >"$T/ldconfig" <<EOF
#!/bin/sh
echo "ran: \$*" >>"$T/ldconfig.log"
case "\$*" in *-N*) echo "$P/lib: (from /etc/ld.so.conf.d/test.conf:1)" ;; esac
EOF
	chmod +x "$T/ldconfig"
	if [ "$(id -u)" -eq 0 ]; then
		if run "install (ldconfig)" 0 make --no-print-directory -o all install O="$O" PREFIX="$P" DESTDIR= LDCONFIG="$T/ldconfig" &&
		   nothas "$T/out" "^note:" && [ "$(cat "$T/ldconfig.log")" = "$(printf 'ran: -v -N -X\nran: ')" ]; then
			ok "make install as root into a directory ldconfig searches: ldconfig runs, no note"
		else
			miss "install (ldconfig)" "ldconfig calls: $(tr '\n' '|' <"$T/ldconfig.log" 2>/dev/null)"
		fi
	else
		skipped "install (ldconfig)" "not root: ldconfig would not run"
	fi
	rm -f "$T/ldconfig.log"
	if run "install (DESTDIR)" 0 make --no-print-directory -o all install O="$O" PREFIX="$P" DESTDIR="$T/stage" LDCONFIG="$T/ldconfig" &&
	   nothas "$T/out" "^note:" && ! [ -e "$T/ldconfig.log" ] && [ -e "$T/stage$P/lib/libpbench.so.2" ]; then
		ok "make install DESTDIR=...: staged, ldconfig neither asked nor run, no note"
	else
		miss "install (DESTDIR)"
	fi
else
	skipped "install" "$O/libpbench.so not built"
fi

if ! [ -x "$EX/setup_each" ] || ! [ -x "$EX/count" ]; then
	skipped "examples" "not built in $EX (make examples)"
	finish cli/examples
	exit 0
fi

# ---- setup_each: a sort of shuffled data, the shuffle before each call and never timed ------
# the medians in ns, whatever unit they were printed in
ns() { sed -n 's/^  median *\([0-9.]*\) \([num]*s\)$/\1 \2/p' |
	awk '{ print $1 * ($2 == "ms" ? 1e6 : $2 == "us" ? 1e3 : $2 == "s" ? 1e9 : 1) }'; }
# A sort of shuffled data against one of sorted data: 1.3x apart at least. The host of this VM
# slows it for stretches that can fall on one of the two (1.26x once, under ASan): three tries,
# of the timing only. What does not depend on the timing (the warning, the flag in the
# report) fails at once; each try's medians are its own; a pass on a later try is counted as
# one (ok_after).
tries=0 each= batch= m1= m2= apart=0
while [ "$tries" -lt 3 ]; do
	tries=$((tries + 1))
	each= batch= m1= m2= apart=0
	run "setup_each" 0 env LD_LIBRARY_PATH="$L" "$EX/setup_each" -v || break
	each=$(sed -n '/(setup_each: shuffled/,/^$/p' "$T/out")
	batch=$(sed -n '/(shuffled once per batch/,$p' "$T/out")
	m1=$(printf '%s\n' "$each" | ns)
	m2=$(printf '%s\n' "$batch" | ns)
	has "$T/err" "^setup_each: warning: setup runs once per batch of [0-9]* calls" &&
	   printf '%s\n' "$batch" | grep -q "warning: setup ran once per batch of" &&
	   ! printf '%s\n' "$each" | grep -q "setup ran once per batch" || break
	if [ -n "$m1" ] && [ -n "$m2" ] && awk -v a="$m1" -v b="$m2" 'BEGIN { exit !(a > 1.3 * b) }'; then
		apart=1
		break
	fi
done
if [ "$RUN_FAILED" -eq 0 ]; then
	if has "$T/err" "^setup_each: warning: setup runs once per batch of [0-9]* calls" &&
	   printf '%s\n' "$batch" | grep -q "warning: setup ran once per batch of" &&
	   ! printf '%s\n' "$each" | grep -q "setup ran once per batch" && [ "$apart" -eq 1 ]; then
		ok_after "$tries" "setup_each: shuffled before every call ($m1 ns a sort) against sorted data ($m2 ns), flagged and logged"
	else
		bad "setup_each" "try $tries: medians '$m1' and '$m2' ns (want the first > 1.3x the second), the warning and the flag in the report; stderr: $(head -c 300 "$T/err")"
	fi
fi

# ---- -v: the library's diagnostics through the log callback, and only with -v ---------------
if [ "$HAVE_PMU" -eq 0 ]; then
	if run "count -v" 0 env LD_LIBRARY_PATH="$L" "$EX/count" -v &&
	   has "$T/err" "^count: info: event 'instructions' not opened: not supported" &&
	   run "count" 0 env LD_LIBRARY_PATH="$L" "$EX/count" && ! [ -s "$T/err" ]; then
		ok "count -v: the event that could not be opened, in the log; nothing without -v"
	else
		miss "count -v"
	fi
else
	skipped "count -v" "this machine has a PMU: every event of count.c opens"
fi
for ex in time_function compare; do
	if run "$ex -v" 0 env LD_LIBRARY_PATH="$L" "$EX/$ex" -v && [ -s "$T/out" ]; then
		ok "$ex takes -v"
	else
		miss "$ex -v"
	fi
done

# ---- memory.c: memory per call through the allocator shim it is linked with -----------------
# Under ASan the sanitizer's malloc comes first: the example must say "not counted" and why,
# and count once the shim is preloaded before it.
# 18 allocations a call: 9 strdup and 9 realloc. ASan's strdup allocates inside the sanitizer,
# never through malloc, so under ASan the shim sees the 9 reallocs only.
mem_counted() {
	has "$T/out" "into a buffer: exactly 0 B per call, on the heap: exactly [1-9][0-9]* B per call" &&
	has "$T/out" "into a buffer: exactly 0 per call, on the heap: exactly $1 per call" &&
	has "$T/out" "on the heap allocates, into a buffer does not"
}
if [ -x "$EX/memory" ]; then
	if [ "$IS_ASAN" -eq 1 ]; then
		if run "memory (asan)" 0 env LD_LIBRARY_PATH="$L" "$EX/memory" &&
		   has "$T/out" "memory        not counted: the allocator is not interposed: libpbench-mem.so is loaded but another malloc comes first"; then
			ok "memory: under ASan without the shim preloaded, not counted, and why"
		else
			miss "memory (asan)"
		fi
		if run "memory (asan, preloaded)" 0 env LD_LIBRARY_PATH="$L" LD_PRELOAD="$L/libpbench-mem.so" \
			ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$EX/memory" &&
		   mem_counted 9; then
			ok "memory: under ASan with the shim preloaded, 9 allocations per call (the reallocs; ASan's strdup is its own) against none"
		else
			miss "memory (asan, preloaded)"
		fi
	elif run "memory" 0 env LD_LIBRARY_PATH="$L" "$EX/memory" && mem_counted 18; then
		ok "memory: a heap join allocates exactly 18 times per call, a buffer join never"
	else
		miss "memory"
	fi
else
	skipped "memory" "not built in $EX (make examples)"
fi

finish cli/examples
