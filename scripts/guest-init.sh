#!/bin/sh
# /init of the QEMU test guest (busybox sh).  Mounts the usual filesystems,
# loads the virtio stack, then does what the kernel command line asks:
#   bfqmode=run                      the demo (scripts/guest-demo.sh)
#   bfqmode=bench [bfqbench=1,2,..]  benchmarks side by side (scripts/guest-bench.sh)
#   bfqmode=check bfqtests=a,b,...   run guest tests (file names in /tests)
#   bfqmode=shell                    interactive shell on the console
# Console (ttyS0) gets everything human-readable; machine-readable results
# go to the second serial port ttyS1 (a file on the host), one line each:
#   BOOT <uptime>  /  RESULT <test> <rc> <reason>  /  DONE
export PATH=/bin HOME=/root TERM=dumb
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm
mount -t cgroup2 cgroup2 /sys/fs/cgroup
echo +io > /sys/fs/cgroup/cgroup.subtree_control
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
# Enabling the first trace event would also hook sched_switch to record
# comms, live-patching __schedule; under TCG a CPU inside __schedule once
# took a stray int3 from that patching (check-debug, 2026-12-03).  The
# tests read pids, not comms, from the trace.
echo 0 > /sys/kernel/tracing/options/record-cmd
KVER=$(cat /etc/kver)

res() { echo "$*" > /dev/ttyS1 2>/dev/null || echo "@@ $*"; }
res "BOOT $(cut -d' ' -f1 /proc/uptime)"
echo "bfq-guest: init started at uptime $(cut -d' ' -f1 /proc/uptime)s"

# busybox insmod resolves no dependencies: load in dependency order
# (a kernel with virtio built in, like the check-debug one, has none).
for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk; do
	f=$(find /lib/modules/"$KVER" -name "$m.ko")
	[ -n "$f" ] || continue
	insmod "$f" || echo "bfq-guest: insmod $m failed"
done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -b /dev/vda ] || echo "bfq-guest: /dev/vda did not appear"

arg() { tr ' ' '\n' < /proc/cmdline | sed -n "s/^$1=//p" | tail -n 1; }
mode=$(arg bfqmode)
tmul=$(arg bfqtmul)	# test timeouts x this (slow sanitizer kernel)
seq=0
tests=$(arg bfqtests | tr ',' ' ')

# Run one test in its own session (so a timeout can kill all it started),
# teeing its output to the console and to a file for the reason line.
run_test() {
	t=/tests/$1.sh
	out=/tmp/$1.out
	to=$(sed -n 's/^# timeout: *\([0-9]*\).*/\1/p' "$t" | head -n 1)
	to=$(( ${to:-180} * ${tmul:-1} ))
	seq=$((seq + 1))	# a test may be listed more than once
	mark="bfq-test: start $1 #$seq"
	echo "$mark" > /dev/kmsg
	echo "======== $1 (timeout ${to}s)"
	rm -f /tmp/timedout
	BFQ_TEST=$1 BFQ_TEST_MARK=$mark setsid sh -o pipefail -c 'cd /tests && sh "$1" 2>&1 | tee "$2"' sh "$t" "$out" &
	pid=$!
	( sleep "$to"; echo 1 > /tmp/timedout; kill -KILL -"$pid"
	  sleep 60; [ -f /tmp/ended.$seq ] || hung "$1" ) 2>/dev/null &
	wd=$!
	wait "$pid"
	rc=$?
	kill -KILL -"$pid" 2>/dev/null	# leftovers (e.g. background fio)
	if [ -f /tmp/timedout ]; then
		rc=124
		why="timed out after ${to}s"
	elif [ $rc -eq 77 ]; then
		why=$(sed -n 's/^SKIP: *//p' "$out" | tail -n 1)
	else
		why=$(grep -v '^[[:space:]]*$' "$out" | tail -n 1)
	fi
	# a kernel splat during the test fails it, whatever it printed; the
	# ring buffer is large (log_buf_len= of scripts/guest.sh), but if the
	# start mark has still been overwritten, what came after it cannot be
	# checked here: that fails the test too (the host's console scan
	# still sees every splat)
	klog=$(dmesg | sed -n "/$mark\$/,\$p")
	splat=$(echo "$klog" | grep -E 'Oops|BUG:|WARNING:|general protection|Call Trace' | head -n 1)
	if [ -z "$klog" ]; then
		[ $rc -eq 0 ] || [ $rc -eq 77 ] && rc=1
		why="kernel log overflowed: start mark gone from the ring buffer, splats unchecked${why:+ ($why)}"
	elif [ -n "$splat" ]; then
		[ $rc -eq 0 ] || [ $rc -eq 77 ] && rc=1
		why="kernel: $splat"
	fi
	# where our module's code was (tests/kmemleak.sh names leaks by it)
	[ ! -e /sys/module/bfq_iosched/sections/.text ] ||
		echo "$(cat /sys/module/bfq_iosched/sections/.text) $(cat /sys/module/bfq_iosched/coresize)" >> /tmp/bfq-text
	# leave a clean guest for the next test (best effort, bounded)
	timeout 60 sh -c '. /tests/lib.sh; unload_bfq; unload_distro_bfq;
		nullb_unload; sdebug_unload; trace_off' 2>&1 | sed 's/^/cleanup: /'
	echo "======== $1: rc=$rc"
	res "RESULT $1 $rc $(echo "$why" | tr -d '\r' | cut -c1-200)"
	touch /tmp/ended.$seq
	kill "$wd" 2>/dev/null
}

# A test still not over a minute after its timeout's kill: a task in D
# state (an I/O that never completes) survives SIGKILL, and so does a
# cleanup that waits for it.  Say what is stuck, then end the run: the host
# reports the remaining tests as lost instead of waiting for its own
# timeout, the sum of all of them.
hung() {
	echo "bfq-guest: $1 hung; blocked tasks and block layer state:"
	echo w > /proc/sysrq-trigger
	dmesg | tail -n 200
	for f in /sys/kernel/debug/block/*/sched/* /sys/kernel/debug/block/*/hctx*/busy \
		/sys/kernel/debug/block/*/hctx*/dispatch /sys/kernel/debug/block/*/hctx*/sched_tags; do
		[ -f "$f" ] && echo "$f: $(head -c 2000 "$f" 2>&1)"
	done
	res "RESULT $1 124 hung: still running 60 s after its timeout (blocked tasks on the console)"
	poweroff -f
}

case "$mode" in
run)
	sh /scripts/guest-demo.sh
	;;
bench)
	sh /scripts/guest-bench.sh
	;;
check)
	# Tests switch block events on and off while I/O runs, and patching
	# a tracepoint's code while the other vCPU runs it can hang a TCG
	# guest (2026-12-07: a CPU stuck at the tracepoint in
	# dd_insert_requests).  The kernel patches code when a tracepoint gets
	# its first or second probe, or loses them, not in between: two idle
	# instances hold two probes each, so a test's switch (2 <-> 3) patches
	# nothing.
	for i in 0 1; do
		p=/sys/kernel/tracing/instances/pin$i
		mkdir -p $p && echo 0 > $p/tracing_on
		for e in block_rq_insert block_rq_issue block_rq_complete \
			 block_rq_requeue block_bio_queue block_bio_backmerge \
			 block_bio_frontmerge; do
			echo 1 > $p/events/block/$e/enable ||
				echo "bfq-guest: cannot pin block/$e"
		done
	done
	for t in $tests; do
		if [ -f "/tests/$t.sh" ]; then
			run_test "$t"
		else
			res "RESULT $t 1 no such test in the guest"
		fi
	done
	;;
shell)
	echo "bfq-guest: shell; 'poweroff -f' or Ctrl-A x to quit"
	setsid cttyhack sh -l
	;;
*)
	echo "bfq-guest: unknown bfqmode '$mode'"
	;;
esac

echo "bfq-guest: ===== dmesg ====="
dmesg
echo "bfq-guest: ===== end of dmesg ====="
# DONE only once everything but the power-off is over: a guest that hangs
# or dies in the dump or the sync fails the run (scripts/guest.sh)
sync
res DONE
poweroff -f
