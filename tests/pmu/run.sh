#!/bin/sh
# SPDX-License-Identifier: MIT
# The emulated-PMU suite: tests/pmu/run.sh DIR [PMU]
#
# Cross-builds pbench for arm64 (static, -Werror) and the programs tests/pmu/test_*.c, packs
# them with tests/pmu/init.c as /init into an initramfs, boots an arm64 guest under QEMU's TCG
# with precise icount (the kernel's real armv8_pmuv3 driver on QEMU's emulated PMUv3: exact
# instruction counts; see ../shared/PMU-EMULATION.md), and counts the TAP-like lines the
# programs print on the console (test_profile samples tests/data/profile/shares, built into
# /data with its symbol table). Writes "DIR: N passed, N failed, N skipped" to
# DIR/test-results.txt, which tests/total.sh adds up with the other builds.
# PMU=0 skips on purpose; not root, or nothing reachable, skips with the reason (setup.sh).
# PBENCH_PMU_SHOW=1 adds tests/pmu/show.c to the guest: the whole output of the commands the
# suite checks, as "# show:" lines (transcripts for a person; off by default).
set -u
D=${1:-build/pmu}
PMU=${2:-1}
mkdir -p "$D" || exit 1
start=$(date +%s)

results() { # results PASS FAIL SKIP
	echo "$D: $1 passed, $2 failed, $3 skipped" | tee "$D/test-results.txt"
	[ "$2" -eq 0 ]
}
fail() { echo "FAIL: pmu: $*"; results 0 1 0; exit 1; }

if [ "$PMU" = 0 ]; then
	echo "[SKIP] pmu: the emulated-PMU suite is skipped on purpose (PMU=0)"
	results 0 0 1
	exit 0
fi
if [ "$(uname -m)" != x86_64 ]; then
	echo "[SKIP] pmu: the suite cross-builds from an x86-64 host; this is $(uname -m)"
	results 0 0 1
	exit 0
fi

out=$(sh tests/pmu/setup.sh "$D")
rc=$?
[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/pmu: /'
if [ "$rc" -eq 77 ]; then
	echo "[SKIP] pmu: this host cannot run the emulated-PMU guest: $(printf '%s\n' "$out" | tail -n 1 | sed 's/^skip: //')"
	results 0 0 1
	exit 0
fi
[ "$rc" -eq 0 ] || fail "setup.sh failed (exit $rc)"
setup_s=$(($(date +%s) - start))

# ---- cross build -----------------------------------------------------------------------------
CROSS=aarch64-linux-gnu-
SYSROOT=$(cd "$D/sysroot" && pwd)
B="$D/arm64"
make --no-print-directory -s -j2 CROSS=$CROSS SYSROOT="$SYSROOT" STATIC=1 O="$B" \
	"$B/pbench" "$B/libpbench.a" >"$D/build.log" 2>&1 ||
	{ tail -n 20 "$D/build.log"; fail "the arm64 cross build failed"; }

CFLAGS="-std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
-Wmissing-prototypes -Wno-missing-field-initializers -Ilib/include -Ilib/src \
-isystem $SYSROOT/usr/include"
LIBS="$B/libpbench.a -L$SYSROOT/usr/lib/aarch64-linux-gnu -lpfm -lnuma -ljansson -lsqlite3 -lm -pthread"
R="$D/rootfs"
rm -rf "$R"
mkdir -p "$R/tests" "$R/bin" || exit 1
cc() { # cc OUT SRC [LIBS]
	o=$1 s=$2
	shift 2
	# shellcheck disable=SC2086
	${CROSS}gcc $CFLAGS -static -o "$o" "$s" "$@" >>"$D/build.log" 2>&1 ||
		{ tail -n 20 "$D/build.log"; fail "cannot build $s"; }
}
cc "$R/init" tests/pmu/init.c
cc "$R/tests/loop" tests/pmu/loop.c
for src in tests/pmu/test_*.c; do
	# shellcheck disable=SC2086
	cc "$R/tests/$(basename "$src" .c)" "$src" $LIBS
done
if [ "${PBENCH_PMU_SHOW:-0}" = 1 ]; then
	# shellcheck disable=SC2086
	cc "$R/tests/test_show" tests/pmu/show.c $LIBS
fi
cp "$B/pbench" "$R/bin/pbench" || exit 1
${CROSS}strip "$R/init" "$R/tests/"* "$R/bin/pbench"
# test_profile samples tests/data/profile/shares, built as the Makefile builds it (-O1, with
# frame pointers and without): its debug info stripped, its .symtab kept (the guest has no
# libdw: the test maps addresses to functions through the symbol table).
mkdir -p "$R/data" || exit 1
for fp in shares:-fno-omit-frame-pointer shares-nofp:-fomit-frame-pointer; do
	${CROSS}gcc -std=gnu11 -O1 ${fp#*:} -static -o "$R/data/${fp%%:*}" \
		tests/data/profile/shares.c -pthread >>"$D/build.log" 2>&1 ||
		{ tail -n 20 "$D/build.log"; fail "cannot build ${fp%%:*}"; }
done
# Reproducible: the same sources give the same image (mtimes zeroed, no inode numbers), so
# boots are identical to the instruction, kernel and timer interrupts included.
find "$R" -exec touch -h -d @0 {} +
(cd "$R" && find . | LC_ALL=C sort | cpio -o -H newc --quiet --reproducible) |
	gzip -1 -n >"$D/initrd.gz" ||
	fail "cannot pack the initramfs"
build_s=$(($(date +%s) - start - setup_s))

# ---- boot ------------------------------------------------------------------------------------
# The options and why: ../shared/PMU-EMULATION.md. icount shift=0: exact inst_retired, one
# instruction one ns of virtual time; the N1 identity (midr) for libpfm4's arm_n1 tables;
# pauth-impdef for speed; sleep=off, -seed, -rtc clock=vm, nokaslr: identical runs.
timeout 600 qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on,midr=0x414fd0c1 -accel tcg \
	-icount shift=0,sleep=off -seed 1 -rtc clock=vm -m 512M -smp 1 -nographic -no-reboot \
	-nic none -kernel "$D/vmlinuz" -initrd "$D/initrd.gz" \
	-append "console=ttyAMA0 rdinit=/init panic=-1 cryptomgr.notests quiet nokaslr" \
	</dev/null >"$D/console.raw" 2>&1
qrc=$?
tr -d '\r' <"$D/console.raw" >"$D/console.log"
boot_s=$(($(date +%s) - start - setup_s - build_s))

# What a reader needs: the measured numbers (# lines), skips and failures, not every ok line.
grep -E '^(# |not ok|ok .*# SKIP)' "$D/console.log" | grep -v '^# init: Linux' | sed 's/^/pmu: /'
pass=$(grep -E '^ok ' "$D/console.log" | grep -cv '# SKIP')
skip=$(grep -cE '^ok .*# SKIP' "$D/console.log")
fail=$(grep -cE '^not ok' "$D/console.log")
# A program that died before its plan line, or a guest that never finished, is a failure.
progs=$(ls "$R/tests" | grep -c '^test_')
plans=$(grep -cE '^1\.\.[0-9]+$' "$D/console.log")
if [ "$plans" -ne "$progs" ]; then
	echo "FAIL: pmu: $plans of $progs test programs finished (see $D/console.log)"
	fail=$((fail + 1))
fi
if ! grep -q '^pmu-guest: done' "$D/console.log"; then
	echo "FAIL: pmu: the guest did not finish (qemu exit $qrc); the console's end:"
	tail -n 15 "$D/console.log" | sed 's/^/    /'
	fail=$((fail + 1))
fi
echo "pmu: setup ${setup_s} s, cross build ${build_s} s, boot and tests ${boot_s} s"
results "$pass" "$fail" "$skip"
