#!/bin/sh
# Extract the private kernel files the build needs (block/*.h and
# checkpatch.pl) from the linux-source-6.1 tarball into build/ksrc, once.
# Refuses to go on unless linux-source-6.1 and linux-headers-$KVER come from
# the same upstream release (6.1.N; the Debian revision after "-" may differ:
# the private block/*.h change with upstream, not with Debian's packaging).
# Usage: scripts/ksrc.sh   (env: KVER, TOPDIR, KSRC_TAR, KSRC_PKG)
set -eu
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/.." && pwd)}
KSRC_PKG=${KSRC_PKG:-linux-source-6.1}
KSRC_TAR=${KSRC_TAR:-/usr/src/$KSRC_PKG.tar.xz}
KSRC=$TOPDIR/build/ksrc

die() { echo "ksrc.sh: $*" >&2; exit 1; }

[ -n "${KVER:-}" ] || die "no linux-headers-*-amd64 installed (run scripts/deps.sh as root)"
[ -d "/lib/modules/$KVER/build" ] || die "/lib/modules/$KVER/build missing: install linux-headers-$KVER"

pkgver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }
hv=$(pkgver "linux-headers-$KVER")
sv=$(pkgver "$KSRC_PKG")
[ -n "$hv" ] || die "package linux-headers-$KVER is not installed"
[ -n "$sv" ] || die "package $KSRC_PKG is not installed (run scripts/deps.sh)"
[ "${hv%-*}" = "${sv%-*}" ] || die "version mismatch: linux-headers-$KVER is $hv but $KSRC_PKG is $sv; install the same upstream version (scripts/deps.sh)"
[ "$hv" = "$sv" ] || echo "  NOTE $KSRC_PKG $sv and linux-headers-$KVER $hv: same upstream version, other Debian revision"
[ -r "$KSRC_TAR" ] || die "$KSRC_TAR not found (package $KSRC_PKG)"

# The stamp records the source version; a new version re-extracts.
stamp=$KSRC/.extracted
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sv" ]; then
	exit 0
fi
echo "  EXTRACT block/*.h, checkpatch.pl from $KSRC_TAR ($sv)"
rm -rf "$KSRC"
mkdir -p "$KSRC"
top=$(basename "$KSRC_TAR" .tar.xz)
# The kernel's own bfq-*.h are left out on purpose: this project writes its
# own scheduler, and a stray #include must not pick up the in-tree one.
tar -xJf "$KSRC_TAR" -C "$KSRC" --strip-components=1 --wildcards \
	--exclude="$top/block/bfq-*" \
	"$top/block/*.h" \
	"$top/scripts/checkpatch.pl" \
	"$top/scripts/spelling.txt" \
	"$top/scripts/const_structs.checkpatch"
[ -f "$KSRC/block/elevator.h" ] || die "extraction failed: no block/elevator.h"
echo "$sv" > "$stamp"
