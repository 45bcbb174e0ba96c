#!/bin/sh
# where: guest
# timeout: 180
# Failing and requeued requests through bfq.  (a) null_blk badblocks
# (configfs; sectors 8192-8703 fail): four fio readers of the first
# 16 MiB (libaio, iodepth 8, ionice RT/BE/IDLE) must each stop with EIO,
# not hang; 120 short dd processes (random ionice, a third writing) fail
# exactly when they touch the bad range; a crc32c verifier elsewhere on
# the device stays clean; after the range is cleared the whole region
# reads.  (b) scsi_debug injecting a transport error (ABORTED COMMAND,
# retried by SCSI through a blk-mq requeue) every 25th command, then
# "host busy" every 25th: a crc32c verify run stays clean.  (b2) see
# below.  bfq is reloaded between the parts and must unload at the end;
# the kernel log must stay clean.  The fault injections that only some
# kernels have are tests of their own, so that a kernel without them
# reports a skip: 45-fault-requeue (null_blk requeue=) and
# 46-fail-make-request.
. "$(dirname "$0")/lib.sh"
DEV=nbfl
# One range of at most 512 sectors: this kernel's badblocks table stores a
# longer range as 512-sector pieces in descending order, and lookups then
# miss most of it (a request starting at sector 8192 of "+8192-10239" read
# fine in the guest; one starting at 8702 failed).
BAD_FIRST=8192 BAD_LAST=8703
VPID=

cleanup() {
	for p in $(pidof fio) $(pidof dd); do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	nullb_cfs_remove $DEV
	unload_bfq
	sdebug_unload
	nullb_unload
}
bad() { cleanup; fail "$*"; }

diag() {
	for f in /sys/kernel/debug/block/*/sched/bfq_stats; do echo "== $f"; tr '\n' ' ' < $f; echo; done
	for f in /sys/kernel/debug/block/*/sched/bfq_queues; do echo "== $f"; cat $f; done
	for d in /sys/block/nb* /sys/block/sd*; do [ -e $d ] && echo "$d inflight $(cat $d/inflight) stat $(cat $d/stat)"; done
	for p in $(pidof fio); do echo "fio $p: $(tr '\0' ' ' < /proc/$p/cmdline | cut -c1-60)"; for t in /proc/$p/task/*; do echo " ${t##*/} $(cat $t/wchan 2>/dev/null)"; done; done
	for f in /sys/kernel/debug/block/nb*/hctx*/busy /sys/kernel/debug/block/nb*/hctx*/dispatch /sys/kernel/debug/block/nb*/requeue_list; do [ -s $f ] && { echo "== $f"; head -n 5 $f; }; done
}
# wait_bounded PID SECS WHAT: PID must exit within SECS x TMUL
wait_bounded() {
	n=0
	while kill -0 "$1" 2>/dev/null; do
		[ $n -lt $(($2 * TMUL * 10)) ] || { diag; bad "$3 still running after $2 s"; }
		sleep 0.1; n=$((n + 1))
	done
	wait "$1"
}

load_bfq || fail "insmod failed"

# --- (a) badblocks
nullb_cfs_create $DEV memory_backed=1 size=128 submit_queues=2 \
	hw_queue_depth=8 irqmode=2 completion_nsec=100000 || bad "no null_blk"
set_sched $DEV bfq || bad "cannot select bfq"
echo "+$BAD_FIRST-$BAD_LAST" > $NULLB_CFS/$DEV/badblocks || bad "cannot set badblocks"
verifier $DEV 32m 32m 8 /tmp/fl-verify.t &
VPID=$!
# reader k (own result file) at ionice class c
pids= k=0
rm -f /tmp/fl-bad*.t
for c in 1 2 3 2; do
	k=$((k + 1))
	ionice -c $c -n $((RANDOM % 8)) fio --minimal --terse-version=3 --name=bad$k \
		--thread --filename=/dev/$DEV --offset=0 --size=16m --rw=randread \
		--bs=4k --ioengine=libaio --iodepth=8 --direct=1 --loops=100 \
		> /tmp/fl-bad$k.t 2>&1 &
	pids="$pids $!:$c"
done
for p in $pids; do wait_bounded ${p%:*} 60 "the class ${p#*:} reader of the bad range"; done
for i in $(seq 1 $k); do
	e=$(fio_err /tmp/fl-bad$i.t)
	[ "$e" = 5 ] || bad "reader bad$i: error '$e', want 5 (EIO): $(grep -v '^3;' /tmp/fl-bad$i.t | tail -n 1)"
done
log "badblocks: 4 fio readers stopped with EIO"

nbad=0 ngood=0
i=0
while [ $i -lt 120 ]; do
	if [ $((i % 2)) = 0 ]; then	# a 4 KiB block inside the bad range
		blk=$(( (BAD_FIRST + RANDOM % (BAD_LAST - BAD_FIRST - 7)) / 8 )) want=fail
	else				# outside, in the first 16 MiB
		blk=$((RANDOM % 4096))
		[ $((blk * 8 + 7)) -lt $BAD_FIRST ] || [ $((blk * 8)) -gt $BAD_LAST ] || blk=0
		want=ok
	fi
	if [ $((i % 3)) = 0 ]; then
		ionice -c $((1 + RANDOM % 3)) -n $((RANDOM % 8)) dd if=/dev/zero of=/dev/$DEV \
			bs=4k count=1 seek=$blk oflag=direct 2>/dev/null
	else
		ionice -c $((1 + RANDOM % 3)) -n $((RANDOM % 8)) dd if=/dev/$DEV of=/dev/null \
			bs=4k count=1 skip=$blk iflag=direct 2>/dev/null
	fi
	rc=$?
	if [ $want = fail ]; then [ $rc -ne 0 ] || bad "dd of block $blk (bad range) succeeded"; nbad=$((nbad + 1))
	else [ $rc -eq 0 ] || bad "dd of block $blk (good) failed"; ngood=$((ngood + 1)); fi
	i=$((i + 1))
done
log "badblocks: $nbad dd failed in the bad range, $ngood succeeded outside it"
echo "-$BAD_FIRST-$BAD_LAST" > $NULLB_CFS/$DEV/badblocks || bad "cannot clear badblocks"
dd if=/dev/$DEV of=/dev/null bs=1M count=16 iflag=direct 2>/dev/null || bad "region still fails after clearing badblocks"
kill -0 $VPID 2>/dev/null || bad "verifier ended: $(grep -v '^3;' /tmp/fl-verify.t | tail -n 2)"
kill -TERM $VPID; wait $VPID; VPID=
why=$(fio_all_ok /tmp/fl-verify.t 1) || bad "verifier beside the bad range: $why"
set_sched $DEV none || bad "cannot leave bfq"
unload_bfq || bad "rmmod after (a) failed"
load_bfq || bad "insmod after (a) failed"
set_sched $DEV bfq || bad "cannot select bfq again"

# --- (b) scsi_debug transport errors (requeued) and host busy
SD=/sys/bus/pseudo/drivers/scsi_debug
sd=$(sdebug_load 'dev_size_mb=64 statistics=1') || bad "scsi_debug did not load"
set_sched "$sd" bfq || bad "cannot select bfq on $sd"
for opt in 16 32768; do	# SDEBUG_OPT_TRANSPORT_ERR, SDEBUG_OPT_HOST_BUSY
	e0=$(cat /sys/block/$sd/device/ioerr_cnt)
	# not every 5th: a command hit on each of its 5 retries fails for real
	echo 25 > $SD/every_nth && echo $opt > $SD/opts || bad "cannot set scsi_debug opts=$opt"
	fio --minimal --terse-version=3 --name=verify --thread --filename=/dev/$sd \
		--size=16m --rw=randwrite --bsrange=4k-64k --ioengine=libaio \
		--iodepth=8 --direct=1 --verify=crc32c --do_verify=1 --verify_fatal=1 \
		--verify_state_save=0 > /tmp/fl-sd$opt.t 2>&1 &
	wait_bounded $! 90 "verify run with scsi_debug opts=$opt"
	rc=$?
	echo 0 > $SD/opts; echo 0 > $SD/every_nth
	e1=$(cat /sys/block/$sd/device/ioerr_cnt)
	[ $rc -eq 0 ] || bad "scsi_debug opts=$opt: fio exited $rc: $(grep -v '^3;' /tmp/fl-sd$opt.t | tail -n 2 | tr '\n' ' ')"
	why=$(fio_all_ok /tmp/fl-sd$opt.t 16384) || bad "scsi_debug opts=$opt: $why"
	log "scsi_debug opts=$opt every 25th command: verify clean, ioerr_cnt +$(( $(printf '%d' "$e1") - $(printf '%d' "$e0") ))"
done
set_sched "$sd" mq-deadline
sdebug_unload || bad "rmmod scsi_debug failed"

# --- (b2) a requeued last request of the queue in service.  The queue is
# idled for once its last request is in the driver; SCSI sends a retried
# command (RQF_DONTPREP) back to the driver past the scheduler, so its
# completion is not seen: the requeue itself must start the idle timer,
# or the device stalls until that process sends another request.  Six
# sleepers, alive but 40 s between reads, read once each while a reader
# keeps requests queued in bfq on a 2-command device where every 2nd
# command fails once with ABORTED COMMAND.  Reads must keep completing:
# no gap of 5 s (x TMUL) in the device's read count.
sd=$(sdebug_load 'dev_size_mb=64 max_queue=2') || bad "scsi_debug did not load"
set_sched "$sd" bfq || bad "cannot select bfq on $sd"
echo 64 > /sys/block/$sd/queue/nr_requests || bad "cannot set nr_requests on $sd"
echo 2 > $SD/every_nth && echo 16 > $SD/opts || bad "cannot set scsi_debug opts=16"
fio --minimal --terse-version=3 --thread --filename=/dev/$sd --rw=randread \
	--bs=4k --direct=1 --ioengine=psync --name=sleeper --numjobs=6 \
	--thinktime=40s --startdelay=0-6 --time_based --runtime=60 \
	--continue_on_error=all > /tmp/fl-sleep.t 2>&1 &
SPID=$!
fio --minimal --terse-version=3 --thread --filename=/dev/$sd --rw=randread \
	--bs=4k --direct=1 --ioengine=libaio --iodepth=8 --name=busy \
	--time_based --runtime=10 --continue_on_error=all > /tmp/fl-busy.t 2>&1 &
BPID=$!
last=$(awk '{ print $1 }' /sys/block/$sd/stat) gap=0 maxgap=0
while kill -0 $BPID 2>/dev/null; do
	sleep 0.5
	now=$(awk '{ print $1 }' /sys/block/$sd/stat)
	if [ "$now" = "$last" ]; then gap=$((gap + 1)); else gap=0; fi
	last=$now
	[ $gap -le $maxgap ] || maxgap=$gap
	[ $gap -lt $((10 * TMUL)) ] || { diag; bad "requeue: no read completed on $sd for $((gap / 2)) s"; }
done
wait $BPID
kill -9 $SPID 2>/dev/null; wait $SPID 2>/dev/null
echo 0 > $SD/opts; echo 0 > $SD/every_nth
log "requeued last requests: reads kept completing (longest gap $((maxgap * 500)) ms), $(printf "%d" "$(cat /sys/block/$sd/device/ioerr_cnt)") errors injected"
set_sched "$sd" mq-deadline
sdebug_unload || bad "rmmod scsi_debug failed"

nullb_cfs_remove $DEV || bad "cannot remove $DEV"
unload_bfq || bad "unload_bfq failed"
mod_loaded bfq_iosched && bad "bfq_iosched still loaded"
check_dmesg
log "fault stress ok"
