#!/bin/sh
# SPDX-License-Identifier: MIT
# pbench stat --annotate FUNCTION: the machine code of a function of the command's program,
# after the report, in text, Markdown and JSON; the reason when it cannot be shown. The
# program is compiled here with -O2 and nothing else, so its code is known: a loop kept
# (a jump back), a loop deleted (a ret alone).
# Usage: tests/cli/t_annotate.sh BUILD_DIR (alone, or through tests/cli/run.sh).
# Last line: "cli/annotate: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh

# ---- bad input -------------------------------------------------------------------------------
usage_error "annotate without a command" "give the command after --" stat --annotate main
usage_error "annotate an empty name" "empty function name for --annotate" \
	stat --annotate '' -- true
usage_error "annotate without a name" "annotate" stat --annotate

if ! command -v cc >/dev/null 2>&1; then
	skipped "annotate" "no C compiler to build the program whose code is shown"
	finish cli/annotate
	exit 0
fi
cat >"$T/prog.c" <<'C'
#include <stdint.h>
#include <stdlib.h>

__attribute__((noinline)) uint64_t churn(uint64_t n)
{
	uint64_t s = 1;

	for (uint64_t i = 0; i < n; i++)
		s = s * 6364136223846793005u + i;
	return s;
}

__attribute__((noinline)) void deleted(void)
{
	unsigned s = 0;

	for (unsigned i = 0; i < 1000; i++)
		s += i * i;
	(void)s;
}

/* Kept, or -O2 would drop the call of a function it knows has no side effect. */
volatile uint64_t sink;

int main(int argc, char **argv)
{
	deleted();
	sink = churn(argc > 1 ? strtoull(argv[1], NULL, 10) : 1000);
	return 0;
}
C
if ! cc -O2 -o "$T/prog" "$T/prog.c" 2>"$T/err"; then
	bad "annotate" "cannot build the program: $(head -c 200 "$T/err")"
	finish cli/annotate
	exit 0
fi
STAT="stat -r 2 -q --mode unprepared -e task-clock"

# ---- text: after the report, the loop with its jump back, and where its samples fell ---------
# The listing's lines without the share column: "ADDR:  INSN" (to $T/code).
code() {
	sed -n 's/^    \( *[0-9.]*%\)\{0,1\} *\([0-9a-f]*:  .*\)$/\2/p' "$T/out" | sed 's/   <- hottest$//' >"$T/code"
}
if run "annotate churn" 0 "$PB" $STAT --annotate churn -- "$T/prog" 30000000 &&
	has "$T/out" "^summary: 2 runs" && has "$T/out" "^--annotate churn:" &&
	has "$T/out" "machine code of churn (.*prog, [0-9]* bytes, [0-9]* instructions, jumps back: a loop)" &&
	code && has "$T/code" "^[0-9a-f]*:  ret"; then
	ok "--annotate churn: its instructions under the report, a loop"
else
	miss "annotate churn"
fi
# The jump back, as objdump prints it: "j.. ADDR <churn+0x..>" to an earlier address; the
# hottest instruction (cpu-clock samples of a run of its own) lies in that loop.
back_from=0 back_to=0
while read -r at insn to rest; do
	case "$insn:$rest" in
	j*:"<churn+0x"*)
		if [ $((0x$to)) -le $((0x${at%:})) ]; then back_from=$((0x${at%:})) back_to=$((0x$to)); fi ;;
	esac
done <"$T/code"
if [ "$back_from" -gt 0 ]; then
	ok "--annotate churn: a jump back inside churn is listed"
else
	bad "annotate back edge" "no backward jump in $(wc -l <"$T/code") lines"
fi
hot=$(sed -n 's/^ *[0-9.]*%  \([0-9a-f]*\):.*<- hottest$/\1/p' "$T/out")
if has "$T/out" "^  samples: [1-9][0-9]* of [0-9]* in churn (.*), cpu-clock every 100 us" &&
	[ -n "$hot" ] && [ $((0x$hot)) -ge "$back_to" ] && [ $((0x$hot)) -le "$back_from" ]; then
	ok "--annotate churn: sampled, the hottest instruction is in the loop"
else
	bad "annotate samples" "hottest '$hot' not in the loop $back_to..$back_from: $(grep 'samples:' "$T/out")"
fi
if run "annotate deleted" 0 "$PB" $STAT --annotate deleted -- "$T/prog" 10 &&
	has "$T/out" "machine code of deleted (.*1 instructions\?, no jump back: no loop)\|machine code of deleted (.*[12] instructions, no jump back: no loop)" &&
	code && [ "$(wc -l <"$T/code")" -le 2 ] && has "$T/code" "^[0-9a-f]*:  \(rep \)\{0,1\}ret"; then
	ok "--annotate deleted: the loop -O2 deleted is a ret alone"
else
	miss "annotate deleted"
fi

# ---- the reasons ---------------------------------------------------------------------------
if run "annotate no such" 0 "$PB" $STAT --annotate no_such_function -- "$T/prog" 10 &&
	has "$T/out" "machine code: n/a: no function 'no_such_function' in '.*prog'"; then
	ok "--annotate of a name not in the program says so, and the run is still reported"
else
	miss "annotate no such"
fi
if command -v strip >/dev/null 2>&1 && strip -o "$T/stripped" "$T/prog"; then
	if run "annotate stripped" 0 "$PB" $STAT --annotate churn -- "$T/stripped" 10 &&
		has "$T/out" "machine code: n/a: .*stripped.*do not strip it"; then
		ok "--annotate in a stripped program says it is stripped, and the fix"
	else
		miss "annotate stripped"
	fi
else
	skipped "annotate stripped" "strip (binutils) is not installed"
fi
printf '#!/bin/sh\nexit 0\n' >"$T/script.sh"
chmod +x "$T/script.sh"
if run "annotate script" 0 "$PB" $STAT --annotate main -- "$T/script.sh" &&
	has "$T/out" "machine code: n/a: .*not an ELF file"; then
	ok "--annotate of a script says it is not a program"
else
	miss "annotate script"
fi

# ---- Markdown and JSON -------------------------------------------------------------------------
if run "annotate markdown" 0 "$PB" $STAT --markdown --annotate churn -- "$T/prog" 10 &&
	has "$T/out" '^| Command |' && has "$T/out" '^Machine code of `churn`' &&
	has "$T/out" '^```$' && has "$T/out" '^samples: [0-9]* of [0-9]* in churn'; then
	ok "--annotate --markdown: the code as a fenced block under the table"
else
	miss "annotate markdown"
fi
if [ "$HAVE_PY" -eq 1 ]; then
	if run "annotate json" 0 "$PB" $STAT --json --annotate churn -- "$T/prog" 10 &&
		json "$T/out" 'd["annotate"]["status"] == "ok" and d["annotate"]["symbol"] == "churn"
			and d["annotate"]["backward_jumps"] >= 1
			and any(l.split(":  ")[1].startswith("ret") for l in d["annotate"]["lines"])
			and d["annotate"]["no_samples_reason"] is None
			and d["annotate"]["samples"]["event"] == "cpu-clock"
			and len(d["annotate"]["samples"]["per_line"]) == len(d["annotate"]["lines"])
			and sum(d["annotate"]["samples"]["per_line"]) == d["annotate"]["samples"]["in_function"]'; then
		ok "--annotate --json: the listing as lines, its loop, its samples per line"
	else
		miss "annotate json"
	fi
	# several: every one in "annotations", in the order given, with the name asked; the first
	# also as "annotate" (before: the JSON kept the first alone, the text had them all)
	if run "annotate json several" 0 "$PB" $STAT --json --annotate churn --annotate deleted,nope -- "$T/prog" 10 &&
		json "$T/out" '[a["asked"] for a in d["annotations"]] == ["churn", "deleted", "nope"]
			and [a["symbol"] for a in d["annotations"]] == ["churn", "deleted", None]
			and [a["status"] for a in d["annotations"]] == ["ok", "ok", "no-symbol"]
			and d["annotations"][1]["lines"] and d["annotations"][0] == dict(d["annotate"], asked="churn")'; then
		ok "--annotate A --annotate B,C --json: all three in annotations, in order, the first also annotate"
	else
		miss "annotate json several"
	fi
	if run "annotate json none" 0 "$PB" $STAT --json -- "$T/prog" 10 &&
		json "$T/out" 'd["annotate"] is None and d["annotations"] == []'; then
		ok "without --annotate, the JSON's annotate is null and annotations empty"
	else
		miss "annotate json none"
	fi
	if run "annotate json reason" 0 "$PB" $STAT --json --annotate nope -- "$T/prog" 10 &&
		json "$T/out" 'd["annotate"]["status"] == "no-symbol" and d["annotate"]["lines"] == []
			and "nope" in d["annotate"]["reason"] and d["annotate"]["samples"] is None
			and d["annotate"]["no_samples_reason"].startswith("no code to mark: ")'; then
		ok "--annotate --json of a missing name: the status and the reason, no lines"
	else
		miss "annotate json reason"
	fi
else
	skipped "annotate json" "python3 is not installed"
fi

finish cli/annotate
