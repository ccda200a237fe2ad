#!/bin/sh
# SPDX-License-Identifier: MIT
# After `make install` with DESTDIR empty: make the installed libpbench.so.2 one that programs
# find at run time. `make install PREFIX=/tmp/x` gave a library no program could load, and
# nothing said why (issue 26).
#
# Usage: scripts/ldconfig.sh LIBDIR [LDCONFIG]
#   LIBDIR is one the dynamic loader searches (a directory `ldconfig -v` lists: the trusted
#   /lib and /usr/lib, and those of /etc/ld.so.conf and /etc/ld.so.conf.d/*.conf):
#     as root, run ldconfig so that its cache has the new library; otherwise say to.
#   LIBDIR is not: one line saying the ways to make it found (rpath at link, LD_LIBRARY_PATH,
#   an ld.so.conf.d entry), and nothing system-wide is touched.
# LDCONFIG (the Makefile's variable): the ldconfig to ask and run; a test gives a stand-in.
# The question asked is read-only: -N (no cache) -X (no links) -v (list the directories).
set -u
libdir=$1
ldconfig=${2:-}
if [ -z "$ldconfig" ]; then
	ldconfig=$(command -v ldconfig 2>/dev/null) ||
		for l in /sbin/ldconfig /usr/sbin/ldconfig; do
			[ -x "$l" ] && ldconfig=$l && break
		done
fi

real=$(cd "$libdir" 2>/dev/null && pwd -P) || exit 0
searched=0
if [ -n "$ldconfig" ]; then
	for d in $("$ldconfig" -v -N -X 2>/dev/null | sed -n 's|^\(/[^:]*\):.*|\1|p'); do
		if [ "$(cd "$d" 2>/dev/null && pwd -P)" = "$real" ]; then
			searched=1
			break
		fi
	done
fi

if [ "$searched" -eq 1 ]; then
	if [ "$(id -u)" -eq 0 ]; then
		echo "  LDCONFIG $libdir"
		"$ldconfig"
	else
		echo "note: run 'sudo ldconfig' so that programs find libpbench.so.2 in $libdir"
	fi
else
	echo "note: the dynamic loader does not search $libdir: link programs with" \
	     "-Wl,-rpath,$libdir, or run them with LD_LIBRARY_PATH=$libdir, or list it in" \
	     "/etc/ld.so.conf.d/pbench.conf and run ldconfig"
fi
exit 0
