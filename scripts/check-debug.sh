#!/bin/bash
# "make check-debug": every guest test (or T=...) on the sanitizer kernel of
# scripts/debug-kernel.sh (KASAN, lockdep, kmemleak, ...), then
# tests/kmemleak.sh, in one QEMU boot; prints "P passed, F failed" like
# make check.  Our module is built against that kernel's tree into
# build/debug-mod/ (the main build's bfq-iosched.ko is left alone).
# Any KASAN / lockdep / sleeping-in-atomic / "BUG:" / "WARNING:" / leak
# report on the console fails the run; all such lines are printed.
# Env: T, KVM=1, TMUL (test timeout factor, default 3), MEM (default 3072).
set -u
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$TOPDIR" || exit 2
B=$TOPDIR/build

[ "${1:-}" = --prepare ] || scripts/debug-kernel.sh || exit 2
C=$(scripts/debug-kernel.sh --print) || exit 2
DK=$C/linux
DKVER=$(cat "$C/release")

# --prepare (run by check.sh): sources to a separate M= directory, private
# headers from the tree itself; then build/initramfs-debug.cpio.gz.
if [ "${1:-}" = --prepare ]; then
	set -e
	M=$B/debug-mod
	mkdir -p "$M"
	for f in Kbuild *.c *.h; do
		case $f in *.mod.c) continue ;; esac
		cmp -s "$f" "$M/$f" || cp "$f" "$M/$f"
	done
	make -s -C "$DK" M="$M" BFQ_BLOCKDIR="$DK/block" modules
	KVER=$DKVER MODBASE=$C/modroot KO=$M/bfq-iosched.ko \
		OUT=$B/initramfs-debug.cpio.gz scripts/mkinitramfs.sh
	exit 0
fi

export KERNEL=$C/bzImage INITRD=$B/initramfs-debug.cpio.gz DISK=$B/disk-debug.img
export MEM=${MEM:-3072} TMUL=${TMUL:-3} BOOT_SLACK=${BOOT_SLACK:-240}
export HOST_TESTS=0 GUEST_LAST=kmemleak LOG_PREFIX=check-debug
export GUEST_PREPARE="$TOPDIR/scripts/check-debug.sh --prepare"
# lockdep / atomic-sleep / kmemleak reports that do not say BUG: or WARNING:
SPLAT_EXTRA='possible circular locking|inconsistent lock state|possible recursive locking'
SPLAT_EXTRA="$SPLAT_EXTRA|sleeping function called|KASAN|suspected memory leak|list_(add|del) corruption"
export SPLAT_EXTRA

T=${T:-} KVER=$DKVER scripts/check.sh
rc=$?

# Every sanitizer line of the console log, not just the first.
clog=$(ls -t "$B"/logs/check-debug-*.log 2>/dev/null | head -n 1)
if [ -n "$clog" ]; then
	re="Oops|BUG:|WARNING:|general protection|Call Trace|$SPLAT_EXTRA"
	if grep -qE "$re" "$clog"; then
		echo "--- sanitizer/kernel reports in $clog:" >&2
		grep -nE "$re" "$clog" | tr -d '\r' | sed 's/^/  | /' >&2
		rc=1
	fi
	echo "check-debug: console log $clog" >&2
fi
exit $rc
