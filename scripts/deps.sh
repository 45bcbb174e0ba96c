#!/bin/sh
# Install what building and testing bfq-iosched needs on Debian 12.
# Usage: scripts/deps.sh [build|all]   (default all)
#   build  what "make" needs: compiler, headers, linux-source-6.1 (for the
#          private block headers), kmod (modinfo, depmod)
#   all    also what "make run", "make check" and "make bench" need: the
#          guest kernel, QEMU, busybox, fio, sparse, gnuplot-nox, python3,
#          linux-perf, trace-cmd and blktrace (copied into the guest), the
#          cloud-amd64 and rt-amd64 headers of the same ABI (build test)
# Idempotent and quick: one dpkg-query call when everything is installed,
# which needs no root; "apt-get update" and "apt-get install" (as root)
# only run when a package is missing.  Checks that linux-source is the same
# upstream version as linux-headers (the private headers match; the Debian
# revision may differ) and, for "all", that linux-image is the same Debian
# version (the QEMU kernel is the one we build for).
set -eu
export DEBIAN_FRONTEND=noninteractive
MODE=${1:-all}

BUILD_PKGS="linux-headers-amd64 linux-source-6.1 kmod gcc make libc6-dev bc
xz-utils perl"
ALL_PKGS="$BUILD_PKGS linux-image-amd64 qemu-system-x86 busybox-static fio
cpio gzip sparse util-linux coreutils gnuplot-nox python3 linux-perf trace-cmd
blktrace"
case $MODE in
build) PKGS=$BUILD_PKGS ;;
all) PKGS=$ALL_PKGS ;;
*) echo "usage: scripts/deps.sh [build|all]" >&2; exit 2 ;;
esac

die() { echo "deps.sh: $*" >&2; exit 1; }

# the names among "$@" that are not installed (one dpkg-query for all)
missing_of() {
	# shellcheck disable=SC2016
	dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "$@" 2>/dev/null |
		awk -v want="$*" '$1 == "ii" { have[$2] = 1 }
			END { n = split(want, w, " ")
			      for (i = 1; i <= n; i++) if (!(w[i] in have)) printf " %s", w[i] }'
}
updated=
need() {
	missing=$(missing_of "$@")
	[ -n "$missing" ] || return 0
	[ "$(id -u)" = 0 ] || die "missing:$missing; run scripts/deps.sh $MODE as root"
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
[ -n "$KVER" ] || die "cannot tell the kernel ABI from linux-headers-amd64"
if [ "$MODE" = build ]; then
	need "linux-headers-$KVER"
else
	# the other flavours' headers: tests/03-flavours builds for them too
	abi=${KVER%-amd64}
	need "linux-headers-$KVER" "linux-image-$KVER" \
		"linux-headers-$abi-cloud-amd64" "linux-headers-$abi-rt-amd64"
fi

vers=$(dpkg-query -W -f='${Package} ${Version}\n' "linux-headers-$KVER" \
	"linux-image-$KVER" linux-source-6.1 2>/dev/null || true)
v() { echo "$vers" | awk -v p="$1" '$1 == p { print $2 }'; }
hv=$(v "linux-headers-$KVER"); sv=$(v linux-source-6.1)
[ "${hv%-*}" = "${sv%-*}" ] || die "version mismatch: linux-headers-$KVER $hv, linux-source-6.1 $sv"
if [ "$MODE" = all ]; then
	iv=$(v "linux-image-$KVER")
	[ "$hv" = "$iv" ] || die "version mismatch: linux-headers-$KVER $hv, linux-image-$KVER $iv"
	[ -r "/boot/vmlinuz-$KVER" ] || die "/boot/vmlinuz-$KVER missing"
fi
echo "deps.sh: ok ($MODE), kernel $KVER ($hv)"
