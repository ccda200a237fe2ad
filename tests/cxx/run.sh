#!/bin/sh
# SPDX-License-Identifier: MIT
# pbench.h from C++, as a user gets it: tests/cxx/header.cc built against the installed header
# and library (make test's staged install, through pkg-config) with g++ and clang++ (where
# installed), -std=c++17 and -std=c++20, -Wall -Wextra -Werror -pedantic, then run: no
# warning, and the option initializers give C's defaults.
# Usage: tests/cxx/run.sh BUILD_DIR. Last line: "cxx: N passed, N failed, N skipped".
set -u
O=${1:-build}
. tests/cli/lib.sh
STAGE=$(cd "$O" 2>/dev/null && pwd)/stage
SAN=""
[ "$IS_ASAN" -eq 1 ] && SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"

if ! [ -f "$STAGE/usr/include/pbench.h" ]; then
	skipped "c++" "no staged install in $O/stage (make examples makes one)"
	finish cxx
	exit 0
fi
flags=$(PKG_CONFIG_SYSROOT_DIR="$STAGE" PKG_CONFIG_LIBDIR="$STAGE/usr/lib/pkgconfig" \
	pkg-config --cflags --libs pbench) || { bad "pkg-config" "no flags for pbench"; finish cxx; exit 1; }
for cxx in g++ clang++; do
	if ! command -v "$cxx" >/dev/null 2>&1; then
		skipped "$cxx" "$cxx is not installed"
		continue
	fi
	# The sanitizer build's library carries gcc's ASan runtime, which clang's cannot share a
	# process with: clang++ is tested against the normal build's install.
	if [ "$IS_ASAN" -eq 1 ] && [ "$cxx" = clang++ ]; then
		skipped "$cxx (ASan)" "the library was built with gcc's ASan runtime; the normal build tests clang++"
		continue
	fi
	for std in c++17 c++20; do
		exe="$T/header-$cxx-$std"
		# shellcheck disable=SC2086
		if ! $cxx -std=$std -O2 -Wall -Wextra -Werror -pedantic $SAN -o "$exe" tests/cxx/header.cc \
			$flags >"$T/err" 2>&1; then
			bad "$cxx -std=$std" "$(head -5 "$T/err")"
			continue
		fi
		if run "$cxx -std=$std run" 0 env LD_LIBRARY_PATH="$STAGE/usr/lib" "$exe" &&
		   has "$T/out" ": ok$"; then
			ok "$cxx -std=$std -Wall -Wextra -Werror -pedantic: pbench.h builds and works"
		else
			miss "$cxx -std=$std run"
		fi
	done
done
finish cxx
