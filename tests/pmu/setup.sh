#!/bin/sh
# SPDX-License-Identifier: MIT
# What the emulated-PMU suite needs, into the build tree: tests/pmu/setup.sh DIR
#
# 1. Host tools (amd64 packages, installed with apt-get like scripts/deps.sh when run as root):
#    qemu-system-aarch64, the aarch64 cross compiler and libc, cpio.
# 2. arm64 packages, downloaded (never installed) through apt working from a private state
#    directory DIR/apt with APT::Architecture=arm64: the host's dpkg architectures, package
#    lists and configuration are not touched (no `dpkg --add-architecture`). Unpacked with
#    dpkg-deb -x: the kernel's vmlinuz into DIR/vmlinuz, the -dev packages' headers and static
#    libraries (libpfm4, libnuma, jansson, sqlite3) into DIR/sysroot. The .debs stay in DIR/debs, so a
#    second run downloads nothing.
#
# Exit 0 ready, 77 skipped (the reason on the last line of stdout: not root, nothing
# reachable), anything else an error.
set -u
D=${1:?usage: setup.sh DIR}
mkdir -p "$D" || exit 1
D=$(cd "$D" && pwd)

skip() { echo "skip: $*"; exit 77; }

# ---- host tools ------------------------------------------------------------------------------
missing=""
command -v qemu-system-aarch64 >/dev/null 2>&1 || missing="$missing qemu-system-arm"
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || missing="$missing gcc-aarch64-linux-gnu"
[ -f /usr/aarch64-linux-gnu/include/stdio.h ] || missing="$missing libc6-dev-arm64-cross"
command -v cpio >/dev/null 2>&1 || missing="$missing cpio"
command -v dpkg-deb >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 ||
	skip "no apt-get/dpkg-deb: the suite needs a Debian-based host"
if [ -n "$missing" ]; then
	[ "$(id -u)" = 0 ] || skip "not root, cannot install:$missing (run: sudo apt-get install" \
		"-y$missing)"
	echo "pmu: installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	# qemu-system-arm recommends a whole desktop stack (ipxe, vde, spice...): not needed.
	if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing; } \
	   >"$D/apt-host.log" 2>&1; then
		tail -n 5 "$D/apt-host.log"
		skip "apt-get could not install:$missing (network or mirror unreachable?)"
	fi
fi

# ---- arm64 packages through a private apt state ----------------------------------------------
PKGS="libpfm4-dev libnuma-dev libjansson-dev libsqlite3-dev"
A="$D/apt"
set -- -o Dir::State::Lists="$A/lists" -o Dir::Cache="$A/cache" \
	-o Dir::State::status="$A/status" -o APT::Architecture=arm64 \
	-o APT::Architectures=arm64 -o APT::Sandbox::User=root -o Debug::NoLocking=1 -qq

have_debs() {
	for p in $PKGS linux-image; do
		ls "$D/debs/${p}"_*_arm64.deb >/dev/null 2>&1 ||
			ls "$D/debs/${p}"-*-cloud-arm64_*_arm64.deb >/dev/null 2>&1 || return 1
	done
}
if ! have_debs; then
	mkdir -p "$A/lists/partial" "$A/cache/archives/partial" "$D/debs" || exit 1
	: >"$A/status"
	apt-get "$@" update >"$D/apt-arm64.log" 2>&1 ||
		{ tail -n 5 "$D/apt-arm64.log"; skip "apt-get update of the arm64 index failed" \
			"(network or mirror unreachable?)"; }
	# The metapackage names the current kernel: linux-image-6.1.0-<n>-cloud-arm64.
	kpkg=$(apt-cache "$@" depends linux-image-cloud-arm64 2>/dev/null |
	       sed -n 's/^ *Depends: \(linux-image-[0-9].*-cloud-arm64\)$/\1/p' | head -n 1)
	[ -n "$kpkg" ] || skip "no linux-image-*-cloud-arm64 in the arm64 index"
	(cd "$D/debs" && rm -f ./*.deb && apt-get "$@" download $PKGS "$kpkg") \
		>>"$D/apt-arm64.log" 2>&1 ||
		{ tail -n 5 "$D/apt-arm64.log"; skip "apt-get download of the arm64 packages" \
			"failed (network or mirror unreachable?)"; }
	rm -rf "$D/sysroot" "$D/vmlinuz"
fi

if [ ! -f "$D/sysroot/.done" ]; then
	rm -rf "$D/sysroot"
	mkdir -p "$D/sysroot" || exit 1
	for p in $PKGS; do
		dpkg-deb -x "$D/debs/${p}"_*_arm64.deb "$D/sysroot" || exit 1
	done
	touch "$D/sysroot/.done"
fi
if [ ! -s "$D/vmlinuz" ]; then
	k=$(ls "$D"/debs/linux-image-*-cloud-arm64_*_arm64.deb | head -n 1)
	# Only the kernel image: the modules are not needed (the guest has no disk, no network).
	dpkg-deb --fsys-tarfile "$k" | tar -x -O --wildcards './boot/vmlinuz-*' \
		>"$D/vmlinuz.tmp" && mv "$D/vmlinuz.tmp" "$D/vmlinuz" || exit 1
fi
exit 0
