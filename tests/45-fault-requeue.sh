#!/bin/sh
# where: guest
# timeout: 150
# Requeued requests from null_blk's requeue= fault injection (part of the
# fault tests of 44-fault-stress): with every 10th command requeued, a
# crc32c verify run through bfq stays clean and ends in time, and bfq
# unloads afterwards.  Needs CONFIG_BLK_DEV_NULL_BLK_FAULT_INJECTION,
# which neither Debian's kernel nor the check-debug one has: there it is
# reported as a skip.
. "$(dirname "$0")/lib.sh"
DEV=nbrq

cleanup() {
	for p in $(pidof fio); do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	nullb_cfs_remove $DEV
	unload_bfq
	nullb_unload
}
bad() { cleanup; fail "$*"; }

nullb_unload || fail "null_blk is in use"
modprobe null_blk nr_devices=0 || fail "modprobe null_blk failed"
if [ ! -e /sys/module/null_blk/parameters/requeue ]; then
	nullb_unload
	skip "null_blk has no requeue= (CONFIG_BLK_DEV_NULL_BLK_FAULT_INJECTION unset)"
fi
nullb_unload || fail "rmmod null_blk failed"
load_bfq || fail "insmod failed"
modprobe null_blk nr_devices=0 requeue=1,10,0,-1 || bad "modprobe null_blk requeue= failed"
nullb_cfs_create $DEV memory_backed=1 size=128 submit_queues=2 \
	hw_queue_depth=8 irqmode=2 completion_nsec=100000 || bad "no null_blk"
set_sched $DEV bfq || bad "cannot select bfq"
fio --minimal --terse-version=3 --name=verify --thread --filename=/dev/$DEV \
	--size=16m --rw=randwrite --bsrange=4k-64k --ioengine=libaio \
	--iodepth=8 --direct=1 --verify=crc32c --do_verify=1 --verify_fatal=1 \
	--verify_state_save=0 > /tmp/rq.t 2>&1 &
fp=$!
n=0
while kill -0 $fp 2>/dev/null; do
	[ $n -lt $((900 * TMUL)) ] || bad "verify run with null_blk requeues still running after 90 s"
	sleep 0.1; n=$((n + 1))
done
wait $fp || bad "fio exited $?: $(grep -v '^3;' /tmp/rq.t | tail -n 2 | tr '\n' ' ')"
why=$(fio_all_ok /tmp/rq.t 16384) || bad "null_blk requeue=: $why"
nullb_cfs_remove $DEV || bad "cannot remove $DEV"
unload_bfq || bad "unload_bfq failed"
mod_loaded bfq_iosched && bad "bfq_iosched still loaded"
nullb_unload
check_dmesg
log "null_blk requeue=1,10,0,-1: verify clean"
