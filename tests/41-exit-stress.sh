#!/bin/sh
# where: guest
# timeout: 240
# Process exit with I/O queued and in flight, thousands of times.  On a
# 2-queue null_blk with depth 4, 0.2 ms timer completions and 32 KiB
# max_sectors (so one 256 KiB O_DIRECT dd read is 8 requests, most of them waiting
# in bfq), short-lived processes are started 8 at a time: O_DIRECT dd
# reads and writes, buffered dd writes (async queues, writeback after the
# writer is gone), some under ionice; a third of them are SIGKILLed
# 0-20 ms after they start, the rest exit on their own.  Every round one
# live process gets ionice -p with a random class and level; every 100th
# a fio (libaio, iodepth 32) is started and SIGKILLed 2 s later.
# Two phases of 600 processes (400 on the slow sanitizer kernel; 1000
# until 2026-12-08, 24-50 s a phase); between them bfq is unloaded and
# loaded again.  A crc32c verifier runs beside them (its priority changed
# too).
# Fails on a verify error, no progress for 10 s, children that do not
# exit, a queue of an exited process still listed in bfq_queues (or
# requests still counted) once the device is idle, a dirty kernel log, or
# bfq not unloading.
. "$(dirname "$0")/lib.sh"
DEV=nbex
PER_PHASE=600
[ "$TMUL" = 1 ] || PER_PHASE=400	# the sanitizer kernel forks much slower
DBG=/sys/kernel/debug/block/$DEV/sched
VPID=

cleanup() {
	[ -z "$VPID" ] || kill -9 $VPID 2>/dev/null
	for p in $(pidof fio) $(pidof dd); do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	VPID=
	nullb_cfs_remove $DEV
	unload_bfq
}
bad() { cleanup; fail "$*"; }

load_bfq || fail "insmod failed"
nullb_cfs_create $DEV memory_backed=1 size=512 submit_queues=2 \
	hw_queue_depth=4 irqmode=2 completion_nsec=200000 max_sectors=64 || bad "no null_blk"
set_sched $DEV bfq || bad "cannot select bfq"

verifier $DEV 0 16m 4 /tmp/ex-verify.t &
VPID=$!

# spawn KIND: one short-lived process in the background ($! is its pid)
spawn() {
	off=$((64 + RANDOM % 180))	# MiB: O_DIRECT in 64-248 MiB,
	boff=$((256 + RANDOM % 240))	# buffered in 256-500 MiB
	case $1 in
	0) dd if=/dev/$DEV of=/dev/null bs=256k count=2 iflag=direct skip=$((off * 4)) 2>/dev/null & ;;
	1) dd if=/dev/zero of=/dev/$DEV bs=128k count=2 oflag=direct seek=$((off * 8)) 2>/dev/null & ;;
	2) dd if=/dev/zero of=/dev/$DEV bs=64k count=8 seek=$((boff * 16)) 2>/dev/null & ;;
	3) ionice -c $((1 + RANDOM % 3)) -n $((RANDOM % 8)) dd if=/dev/$DEV of=/dev/null \
		bs=256k count=2 iflag=direct skip=$((off * 4)) 2>/dev/null & ;;
	esac
}

nproc=0 nkill=0 nprio=0 nfio=0 FP=
phase() {
	slots="- - - - - - - -"	# pids of the 8 live slots
	i=0 mark=0
	PROG_T=
	while [ $i -lt $PER_PHASE ]; do
		new=
		for p in $slots; do
			if [ "$p" != - ] && kill -0 "$p" 2>/dev/null; then new="$new $p"; continue; fi
			[ "$p" = - ] || wait "$p" 2>/dev/null
			spawn $((RANDOM % 4))
			p=$!
			i=$((i + 1)) nproc=$((nproc + 1))
			if [ $((RANDOM % 3)) = 0 ]; then
				usleep $((RANDOM % 20000))
				kill -9 "$p" 2>/dev/null && nkill=$((nkill + 1))
			fi
			new="$new $p"
		done
		slots=$new
		# a random live one (or the verifier) gets a new priority
		set -- $slots $VPID
		shift $((RANDOM % $#))
		ionice -c $((1 + RANDOM % 3)) -n $((RANDOM % 8)) -p "$1" 2>/dev/null && nprio=$((nprio + 1))
		if [ $((i / 100)) != "$mark" ]; then
			mark=$((i / 100))
			[ $((mark % 3)) != 0 ] || log "  $nproc processes at $(now) s"
			# a fio with 32 requests out, SIGKILLed after a second
			if [ -z "$FP" ] || ! kill -0 $FP 2>/dev/null; then
				[ -z "$FP" ] || wait $FP 2>/dev/null
				fio --name=short --thread --filename=/dev/$DEV --offset=64m --size=184m \
					--rw=randrw --bs=4k --ioengine=libaio --iodepth=32 --direct=1 \
					--time_based --runtime=30 > /dev/null 2>&1 &
				FP=$!
				( sleep 2; kill -9 $FP ) 2>/dev/null &
				nfio=$((nfio + 1))
			fi
		fi
		progress $DEV "phase loop"
	done
	# every child must be gone soon (the verifier excepted)
	n=0
	while [ $n -lt $((300 * TMUL)) ]; do
		[ -z "$(pidof dd)" ] && [ "$(pidof fio)" = "$VPID" ] && break
		sleep 0.1; n=$((n + 1))
	done
	[ -z "$(pidof dd)" ] || bad "dd processes left 30 s after the phase: $(pidof dd)"
	[ "$(pidof fio)" = "$VPID" ] || bad "fio processes left after the phase: $(pidof fio) (verifier $VPID)"
	wait $FP 2>/dev/null; FP=
}

# check_queues: with only the verifier left and writeback done, bfq must
# hold no queue of an exited process, not even as the queue in service:
# when an empty queue's process exits, its turn ends at once.
check_queues() {
	sync_bounded $DEV 60
	n=0
	while [ $n -lt 50 ]; do
		stale=$(awk '/ sync / { sub(/pid=/, "", $1); print $1 }' $DBG/bfq_queues |
			while read -r p; do [ -d /proc/$p ] || echo $p; done)
		[ -z "$stale" ] && break
		sleep 0.1; n=$((n + 1))
	done
	[ -z "$stale" ] || { grep " sync " $DBG/bfq_queues | head -n 5
		bad "bfq_queues still lists sync queues of exited pids: $(echo $stale | cut -c1-100)"; }
	return 0
}

t0=$(now)
phase
check_queues
t1=$(now)
log "phase 1: $nproc processes, $nkill SIGKILLed, $nprio ionice -p, $nfio fio killed, $((t1 - t0)) s"
# between phases: stop the verifier's device use for a moment, reload bfq
set_sched $DEV none || bad "cannot switch to none"
unload_bfq || bad "rmmod between phases failed"
load_bfq || bad "insmod between phases failed"
set_sched $DEV bfq || bad "cannot select bfq again"
phase
check_queues
t2=$(now)
log "total: $nproc processes, $nkill SIGKILLed, $nprio ionice -p, $nfio fio killed, $((t2 - t0)) s"

# idle device: nothing may be counted as queued or in the driver
kill -TERM $VPID; wait $VPID
vrc=$?; VPID=
why=$(fio_all_ok /tmp/ex-verify.t 1) || bad "verifier (rc $vrc): $why $(grep -v '^3;' /tmp/ex-verify.t | tail -n 2 | tr '\n' ' ')"
sync_bounded $DEV 60
n=0
while [ $n -lt 50 ]; do
	q=$(sed -n 's/^queued=//p' $DBG/bfq_stats) d=$(sed -n 's/^in_driver=//p' $DBG/bfq_stats)
	[ "$q" = 0 ] && [ "$d" = 0 ] && break
	sleep 0.1; n=$((n + 1))
done
[ "$q" = 0 ] && [ "$d" = 0 ] || bad "idle device, but bfq_stats says queued=$q in_driver=$d"
check_queues

nullb_cfs_remove $DEV || bad "cannot remove $DEV"
unload_bfq || bad "unload_bfq failed"
mod_loaded bfq_iosched && bad "bfq_iosched still loaded"
check_dmesg
log "exit stress ok"
