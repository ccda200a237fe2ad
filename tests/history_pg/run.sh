#!/bin/sh
# SPDX-License-Identifier: MIT
# The history on a real PostgreSQL server (issue 24, lib/src/history/history_pg.c): a server of
# its own in a temporary directory (Debian's postgresql package: initdb and pg_ctl, as an
# unprivileged user when run as root, since postgres refuses root), listening on a unix socket
# in that directory only (no TCP port to collide with anything), then the Criterion tests of
# tests/history_pg/test_history_pg.c against it, and pbench's own error on a stopped server.
# The server is stopped and the directory removed on exit, whatever happened. Skips, with the
# reason, where there is no postgres, no libpq in the build, or no unprivileged user.
# Usage: tests/history_pg/run.sh BUILD_DIR; last line "history_pg: N passed, N failed, N
# skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh
start=$(date +%s)
BIN=$O/tests/history_pg/test_history_pg

if [ ! -x "$BIN" ]; then
	skipped "history_pg" "this build has no PostgreSQL backend (libpq-dev was not installed: make PG=1 needs it)"
	finish history_pg
	exit 0
fi
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$PGBIN" ] || PGBIN=$(dirname "$(command -v initdb 2>/dev/null || echo /none/x)")
if [ ! -x "$PGBIN/initdb" ] || [ ! -x "$PGBIN/pg_ctl" ]; then
	skipped "history_pg" "no PostgreSQL server installed (initdb, pg_ctl: Debian's postgresql package)"
	finish history_pg
	exit 0
fi

# The server's user: this one, or nobody when this is root (the data directory is its own).
AS=
if [ "$(id -u)" = 0 ]; then
	if ! id nobody >/dev/null 2>&1 || ! command -v runuser >/dev/null 2>&1; then
		skipped "history_pg" "running as root without a user 'nobody' or runuser to run postgres as"
		finish history_pg
		exit 0
	fi
	AS="runuser -u nobody --"
fi

D=$(mktemp -d /tmp/pbench-pg.XXXXXX) || exit 1
[ -n "$AS" ] && chown nobody "$D"
# A test that failed between its SIGSTOP and its SIGCONT leaves the postmaster or a server
# process of its own stopped: they are continued (this server's, by its pid and its children)
# before the stop, which waits for them.
stop_server() {
	if [ -f "$D/data/postmaster.pid" ]; then
		pm=$(head -n 1 "$D/data/postmaster.pid")
		kill -CONT "$pm" $(pgrep -P "$pm") 2>/dev/null
		$AS "$PGBIN/pg_ctl" -D "$D/data" -m immediate -w stop >/dev/null 2>&1
	fi
}
trap 'stop_server; rm -rf "$D" "$T"' EXIT
trap 'exit 130' INT TERM

# fsync off: a test server, thrown away after; a killed client is what the tests kill, never
# the server.
if ! $AS "$PGBIN/initdb" -D "$D/data" -U pbench --auth=trust -E UTF8 --locale=C -N \
	>"$D/initdb.log" 2>&1; then
	skipped "history_pg" "initdb could not make a PostgreSQL cluster here: $(tail -n 2 "$D/initdb.log" | tr '\n' ' ')"
	finish history_pg
	exit 0
fi
t_initdb=$(($(date +%s) - start))
if ! $AS "$PGBIN/pg_ctl" -D "$D/data" -l "$D/server.log" -w -t 30 \
	-o "-k $D -c listen_addresses= -p 5432 -c fsync=off -c max_connections=40" start \
	>"$D/pg_ctl.log" 2>&1; then
	skipped "history_pg" "the PostgreSQL server could not start here: $(tail -n 2 "$D/server.log" | tr '\n' ' ')"
	finish history_pg
	exit 0
fi
PMPID=$(head -n 1 "$D/data/postmaster.pid")
URI="postgresql://pbench@/postgres?host=$D&port=5432"
t_server=$(($(date +%s) - start))

# ---- the Criterion tests: first with the server up, then once it is stopped ----------------
# criterion FILTER [VAR=VALUE...]: the tests of FILTER, counted into this suite's totals
criterion() {
	filter=$1
	shift
	out=$(env PBENCH_TEST_HISTORY_URI="$URI" PBENCH_TEST_PG_PID="$PMPID" "$@" "$BIN" \
		--verbose --jobs 1 --filter "$filter" 2>&1)
	rc=$?
	# The tests the filter leaves out are "disabled": neither shown nor counted.
	out=$(printf '%s\n' "$out" | grep -v 'Test is disabled$')
	printf '%s\n' "$out" | grep -E '^\[(FAIL|SKIP|----)\]|Synthesis' | grep -v 'Criterion v' |
		head -n 60
	tested=$(printf '%s\n' "$out" | sed -n 's/.*Tested: \([0-9]*\).*/\1/p' | tail -n 1)
	passing=$(printf '%s\n' "$out" | sed -n 's/.*Passing: \([0-9]*\).*/\1/p' | tail -n 1)
	if [ -z "$tested" ]; then
		bad "test_history_pg $filter" "no Criterion synthesis (exit $rc)"
		return
	fi
	for f in $(printf '%s\n' "$out" | sed -n 's/^\[FAIL\] \([^ ]*\): .*/\1/p' | sed 's,::,/,'); do
		echo "FAIL $f: its assertion is above"
	done
	pass=$((pass + passing))
	fail=$((fail + tested - passing))
	skip=$((skip + $(printf '%s\n' "$out" | grep -c '^\[SKIP\]')))
	if [ "$rc" -ne 0 ] && [ "$tested" -eq "$passing" ]; then
		bad "test_history_pg $filter" "exit $rc with every test passing"
	fi
}
criterion 'history_pg/*'
t_tests=$(($(date +%s) - start))
stop_server
if [ ! -e "$D/data/postmaster.pid" ]; then
	ok "the server is stopped"
else
	bad "server stop" "postmaster.pid is still there"
fi
criterion 'history_pg_stopped/*' PBENCH_TEST_PG_STOPPED=1
echo "history_pg: timings: initdb ${t_initdb} s, server up at ${t_server} s, tests done at ${t_tests} s, all $(($(date +%s) - start)) s"
finish history_pg
