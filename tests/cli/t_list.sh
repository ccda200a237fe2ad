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

finish cli/list
