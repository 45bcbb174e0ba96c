#!/bin/bash
# Boot /boot/vmlinuz-$KVER with build/initramfs.cpio.gz in QEMU.
# Usage: scripts/guest.sh MODE [TEST,TEST...]     MODE: run | bench | check | shell
# Env:   TIMEOUT  seconds before a hung guest is killed (default 180)
#        STALL    seconds a test may run past its own timeout before the
#                 guest is taken for locked up and killed (default 180)
#        KVM=1    use /dev/kvm instead of TCG
#        QUIET=1  don't copy the console to stdout (it always goes to the log)
#        GUEST_LOG=path  console log name (default build/logs/MODE-TIME.log)
#        For another kernel (make check-debug): KERNEL (default
#        /boot/vmlinuz-$KVER), INITRD (build/initramfs.cpio.gz), DISK
#        (build/disk.img), MEM (MiB, 2048), APPEND (more kernel arguments),
#        SPLAT_EXTRA (more console patterns that fail the run, ERE)
#        QEMU     the emulator (default qemu-system-x86_64; tests/02-runner.sh
#                 puts a fake one here)
#        GUEST_LOCK  x (default): no other guest runs at the same time, so
#                 timing and fairness figures are not distorted on a small
#                 host; s: may share the host with other "s" guests
#                 (functional runs); none: no locking
# Console log: build/logs/<mode>-<timestamp>.log; results channel (ttyS1):
# the same name with .results.  Exit 0 only if the guest finished (DONE,
# written after the final dmesg dump and sync), powered off by itself with
# QEMU exiting 0, and the console shows no Oops / BUG: / WARNING: / general
# protection / Call Trace.  Else 124 on a timeout, 3 if the guest died or
# did not finish, 4 for kernel trouble on the console.  The console is
# scanned whatever the ending: its matching lines, if any, are in
# <log>.splat (so a timeout with a splat shows both).
set -u
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/.." && pwd)}
KVER=${KVER:-$("$TOPDIR"/scripts/kver.sh)}
MODE=${1:?usage: guest.sh run|check|shell [tests]}
TESTS=${2:-}
TIMEOUT=${TIMEOUT:-180}
B=$TOPDIR/build
mkdir -p "$B/logs"
LOG=${GUEST_LOG:-$B/logs/$MODE-$(date +%Y%m%d-%H%M%S).log}
RES=${LOG%.log}.results
rm -f "$RES" "$LOG.splat"

KERNEL=${KERNEL:-/boot/vmlinuz-$KVER}
INITRD=${INITRD:-$B/initramfs.cpio.gz}
DISK=${DISK:-$B/disk.img}
MEM=${MEM:-2048}
SPLAT_RE='Oops|BUG:|WARNING:|general protection|Call Trace'
[ -z "${SPLAT_EXTRA:-}" ] || SPLAT_RE="$SPLAT_RE|$SPLAT_EXTRA"
[ -r "$KERNEL" ] || { echo "guest.sh: $KERNEL missing (install linux-image-$KVER)" >&2; exit 2; }
[ -f "$INITRD" ] || { echo "guest.sh: run scripts/mkinitramfs.sh first" >&2; exit 2; }
# sparse 1 GiB scratch disk, /dev/vda in the guest; tests may scribble on it
[ -f "$DISK" ] || truncate -s 1G "$DISK"

if [ "${KVM:-0}" = 1 ]; then accel=(-accel kvm -cpu host); else accel=(-accel tcg); fi
# loglevel=5: KERN_WARNING and worse reach the console as they happen.
# log_buf_len=16M: each test's start mark must stay in the ring buffer
# for the guest's per-test splat check (it fails the test if it does not).
qemu=("${QEMU:-qemu-system-x86_64}" "${accel[@]}" -smp 2 -m "$MEM" -nographic -no-reboot
	-nic none -kernel "$KERNEL" -initrd "$INITRD"
	-append "console=ttyS0 panic=-1 loglevel=5 log_buf_len=16M bfqmode=$MODE bfqtests=$TESTS${APPEND:+ $APPEND}"
	-drive "file=$DISK,if=virtio,format=raw,cache=unsafe"
	-serial mon:stdio -serial "file:$RES")

if [ "$MODE" = shell ]; then
	"${qemu[@]}" 2>&1 | tee "$LOG"
	exit 0
fi

# One flock over all checkouts on this host (helpers work in copies).
LOCK=${GUEST_LOCK:-x}
case $LOCK in
x | s)
	exec 9> /tmp/bfq-guest.lock
	if ! flock -n "-$LOCK" 9; then
		echo "guest: waiting for /tmp/bfq-guest.lock (GUEST_LOCK=$LOCK)" >&2
		flock "-$LOCK" 9
	fi
	;;
esac

# Each guest test starts with "======== NAME (timeout Ns)" on the console,
# and the guest gives up on a test 60 s after killing it at N.  A console
# still showing that line STALL s (default 180) after N is a guest locked
# up: stop it now, not at TIMEOUT, which is the sum of all the tests.
watch_progress() {
	local last='' since=0 to='' line now
	while sleep "${STALL_POLL:-5}"; do
		line=$(grep -a '^======== ' "$LOG" | tail -n 1 | tr -d '\r')
		now=$(date +%s)
		if [ "$line" != "$last" ]; then
			last=$line since=$now
			to=$(echo "$line" | sed -n 's/.*(timeout \([0-9]*\)s)$/\1/p')
		elif [ -n "$to" ] && [ $((now - since)) -gt $((to + ${STALL:-180})) ]; then
			echo "guest: no progress $((now - since))s after '$line'; stopping QEMU" >&2
			: > "$LOG.stalled"
			kill "$1"
			return
		fi
	done
}

start=$(date +%s)
rm -f "$LOG.stalled"
timeout -k 5 "$TIMEOUT" "${qemu[@]}" < /dev/null > "$LOG" 2>&1 &
qpid=$!
[ "${QUIET:-0}" = 1 ] || { tail -n +1 -f --pid=$qpid "$LOG" & }
watch_progress $qpid &
wpid=$!
wait $qpid
rc=$?
kill $wpid 2>/dev/null
wait
[ ! -e "$LOG.stalled" ] || rc=124
echo "guest: $MODE took $(( $(date +%s) - start ))s, console log $LOG" >&2

ending=0
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	echo "guest: TIMEOUT after ${TIMEOUT}s; last 40 console lines:" >&2
	ending=124
elif ! tr -d '\r' < "$RES" 2>/dev/null | grep -q '^DONE$' || [ $rc -ne 0 ]; then
	echo "guest: the guest died or did not finish (qemu rc $rc); last 40 console lines:" >&2
	ending=3
fi
[ $ending -eq 0 ] || tail -n 40 "$LOG" | tr -d '\r' | sed 's/^/  | /' >&2
# a hung or dead guest may have said why on the console: scan it anyway
if grep -nE "$SPLAT_RE" "$LOG" > "$LOG.splat"; then
	echo "guest: kernel trouble in the console log:" >&2
	head -n 20 "$LOG.splat" | tr -d '\r' | sed 's/^/  | /' >&2
	[ $ending -ne 0 ] || ending=4
else
	rm -f "$LOG.splat"
fi
exit $ending
