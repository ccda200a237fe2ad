#!/bin/sh
# SPDX-License-Identifier: MIT
# Install what building and testing pbench needs, on Debian and derivatives.
# As root: apt-get installs the missing packages. Otherwise: print the exact command and stop.
# `deps.sh bench`: what the optional benchmarks need (Google Benchmark). Its exit status says
# whether it is there; without it, one line says what is not measured and the command.
set -u
mode=${1:-build}

missing=""
need() { # need PACKAGE TEST...
	pkg=$1; shift
	if ! "$@" >/dev/null 2>&1; then missing="$missing $pkg"; fi
}
has_header() { [ -f "/usr/include/$1" ] || [ -f "/usr/include/$(uname -m)-linux-gnu/$1" ]; }

if [ "$mode" = bench ]; then
	need libbenchmark-dev has_header benchmark/benchmark.h
else
	need gcc command -v cc
	need make command -v make
	need pkg-config command -v pkg-config
	need libpfm4-dev has_header perfmon/pfmlib_perf_event.h
	need libnuma-dev has_header numa.h
	need libjansson-dev has_header jansson.h
	need libcriterion-dev has_header criterion/criterion.h
	need linux-libc-dev has_header linux/perf_event.h
	need binutils command -v nm
fi

[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ]; then
	echo "pbench: installing:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 && apt-get install -y -qq $missing >&2 || {
		echo "pbench: error: apt-get could not install:$missing" >&2
		exit 1
	}
	exit 0
fi
if [ "$mode" = bench ]; then
	echo "gbench_xor: not measured: Google Benchmark is not installed" \
	     "(run: sudo apt-get install -y$missing)"
	exit 1
fi
echo "pbench: error: missing build dependencies:$missing" >&2
echo "hint: run: sudo apt-get install -y$missing" >&2
exit 1
