#!/bin/sh
# SPDX-License-Identifier: MIT
# Install what building and testing pbench needs, on Debian and derivatives.
# As root: apt-get installs the missing packages. Otherwise: print the exact command and stop.
#
# `deps.sh bench`: what the optional benchmarks need, the tools pbench is measured against:
# Google Benchmark (gbench_xor), hyperfine, perf (linux-perf), stress-ng (the background load
# of bench_stat) and rt-tests (cyclictest). As root the missing ones are installed; otherwise
# one line says what is not measured, with the exact apt-get command. Each bench checks for
# its tools again when it runs and skips with the reason. `make test` needs none of them.
# The exit status says whether Google Benchmark is there (the Makefile builds gbench_xor then).
#
# `deps.sh fuzz`: what `make fuzz` needs, clang and its libFuzzer runtime (libclang-rt-dev).
# `make test` does not: it replays the fuzz corpus with the normal compiler.
set -u
mode=${1:-build}

missing=""
unmeasured=""
need() { # need PACKAGE TEST...
	pkg=$1; shift
	if ! "$@" >/dev/null 2>&1; then missing="$missing $pkg"; fi
}
# need_for WHAT PACKAGE TEST...: as need, and WHAT is not measured without it
need_for() {
	what=$1; shift
	before=$missing
	need "$@"
	if [ "$missing" != "$before" ]; then
		unmeasured="${unmeasured:+$unmeasured; }$what"
	fi
}
has_header() { [ -f "/usr/include/$1" ] || [ -f "/usr/include/$(uname -m)-linux-gnu/$1" ]; }
# Debian's /usr/bin/perf is a wrapper that fails when the kernel's own perf is not installed;
# linux-perf provides the versioned binaries it falls back to.
has_perf() { command -v perf && perf --version; }
# clang links a libFuzzer target only with the runtime of its own version.
has_libfuzzer() {
	dir=$(mktemp -d) || return 1
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\n{ return !d && n; }\n' \
		> "$dir/t.c"
	clang -fsanitize=fuzzer -o "$dir/t" "$dir/t.c"
	rc=$?
	rm -rf "$dir"
	return $rc
}

if [ "$mode" = bench ]; then
	need_for "gbench_xor (Google Benchmark)" libbenchmark-dev has_header benchmark/benchmark.h
	need_for "bench_stat against hyperfine" hyperfine command -v hyperfine
	need_for "bench_stat against perf stat" linux-perf has_perf
	need_for "bench_stat under load (stress-ng)" stress-ng command -v stress-ng
	need_for "cyclictest" rt-tests command -v cyclictest
elif [ "$mode" = fuzz ]; then
	need clang command -v clang
	need libclang-rt-dev has_libfuzzer
else
	need gcc command -v cc
	# tests/cxx: pbench.h from C++ (clang++ too where clang is installed)
	need g++ command -v g++
	need make command -v make
	need pkg-config command -v pkg-config
	need libpfm4-dev has_header perfmon/pfmlib_perf_event.h
	need libnuma-dev has_header numa.h
	need libjansson-dev has_header jansson.h
	need libsqlite3-dev has_header sqlite3.h
	# the history's PostgreSQL backend (libpq), and a server that tests/history_pg starts
	need libpq-dev has_header postgresql/libpq-fe.h
	need postgresql sh -c 'ls /usr/lib/postgresql/*/bin/initdb'
	# symbols and DWARF unwinding of a profile's samples (libdw, libelf: elfutils)
	need libdw-dev has_header elfutils/libdwfl.h
	need libelf-dev has_header gelf.h
	# a profile's pprof export (profile.proto, gzipped): protobuf-c, its compiler (protoc-c
	# makes the C of lib/src/profile/pprof.proto at build time) and zlib
	need libprotobuf-c-dev has_header protobuf-c/protobuf-c.h
	need protobuf-c-compiler command -v protoc-c
	need zlib1g-dev has_header zlib.h
	need libcriterion-dev has_header criterion/criterion.h
	need linux-libc-dev has_header linux/perf_event.h
	# nm: tests/layers; objdump: libpbench runs it to show a measured function's machine code
	# (show_code, pbench stat --annotate), and test_listing and t_annotate.sh check that
	need binutils sh -c 'command -v nm && command -v objdump'
	# tests/schema: the JSON of every command validated against schema/ by a real validator
	need python3-jsonschema python3 -c 'import jsonschema'
	# tests/cli/t_man.sh: each man page renders without a warning
	need groff-base command -v groff
fi

gbench_ok() { has_header benchmark/benchmark.h; }

if [ -z "$missing" ]; then
	exit 0
fi

if [ "$(id -u)" = 0 ]; then
	echo "pbench: installing:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	if apt-get update -qq >&2 && apt-get install -y -qq $missing >&2; then
		exit 0
	fi
	echo "pbench: error: apt-get could not install:$missing" >&2
	if [ "$mode" = bench ]; then
		# The benches skip what is still missing, with the reason.
		gbench_ok && exit 0
		exit 1
	fi
	exit 1
fi
if [ "$mode" = fuzz ]; then
	echo "fuzz: error: missing:$missing" >&2
	echo "hint: run: sudo apt-get install -y$missing" >&2
	exit 1
fi
if [ "$mode" = bench ]; then
	echo "bench: not measured: $unmeasured (run: sudo apt-get install -y$missing)"
	gbench_ok && exit 0
	exit 1
fi
echo "pbench: error: missing build dependencies:$missing" >&2
echo "hint: run: sudo apt-get install -y$missing" >&2
exit 1
