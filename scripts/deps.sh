#!/bin/sh
# Install what building and testing bfq-iosched needs on Debian 12 (root).
# "make bench" also needs gnuplot-nox (plots), python3 (the report) and
# linux-perf (perf is copied into the guest for the profile).
# Idempotent: "apt-get update" and "apt-get install" only run when a package
# is missing.  Makes sure linux-image, linux-headers and linux-source are the
# same Debian version, so the private headers and the QEMU kernel match.
set -eu
export DEBIAN_FRONTEND=noninteractive

PKGS="linux-headers-amd64 linux-image-amd64 linux-source-6.1 kmod
qemu-system-x86 busybox-static fio cpio gzip sparse xz-utils bc gcc make
util-linux coreutils perl libc6-dev gnuplot-nox python3 linux-perf"

[ "$(id -u)" = 0 ] || { echo "deps.sh: run as root" >&2; exit 1; }

installed() { dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null | grep -q '^ii'; }
updated=
need() {
	missing=
	for p in "$@"; do installed "$p" || missing="$missing $p"; done
	[ -n "$missing" ] || return 0
	if [ -z "$updated" ]; then apt-get update; updated=1; fi
	echo "deps.sh: installing$missing"
	# shellcheck disable=SC2086
	apt-get install -y --no-install-recommends $missing
}

# shellcheck disable=SC2086
need $PKGS

# The ABI the meta package points at: linux-headers-amd64 depends on it.
KVER=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 |
	tr ',' '\n' | sed -n 's/^ *linux-headers-\([^ ]*-amd64\).*/\1/p' | head -n 1)
[ -n "$KVER" ] || { echo "deps.sh: cannot tell the kernel ABI from linux-headers-amd64" >&2; exit 1; }
need "linux-headers-$KVER" "linux-image-$KVER"

v() { dpkg-query -W -f='${Version}' "$1"; }
hv=$(v "linux-headers-$KVER"); iv=$(v "linux-image-$KVER"); sv=$(v linux-source-6.1)
if [ "$hv" != "$iv" ] || [ "$hv" != "$sv" ]; then
	echo "deps.sh: version mismatch: linux-headers-$KVER $hv, linux-image-$KVER $iv, linux-source-6.1 $sv" >&2
	exit 1
fi
[ -r "/boot/vmlinuz-$KVER" ] || { echo "deps.sh: /boot/vmlinuz-$KVER missing" >&2; exit 1; }
echo "deps.sh: ok, kernel $KVER ($hv)"
