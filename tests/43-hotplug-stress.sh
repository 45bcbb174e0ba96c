#!/bin/sh
# where: guest
# timeout: 180
# Device removal under I/O with bfq selected.  (a) Three times a
# scsi_debug disk with bfq runs fio (libaio randrw, iodepth 16) and a dd
# reader and is deleted 1.5-3 s in (echo 1 > device/delete); bfq is
# unloaded and loaded again while no device uses it, then the host is
# rescanned for the next round.  (b) 12 null_blk devices made through
# configfs (1 or 2 queues, random depth, some memory-backed) get bfq and
# I/O and are powered off and removed 0.2-0.8 s later, while a
# long-lived memory-backed one runs a crc32c verifier.  Fails if I/O
# started before a removal does not end within 20 s, the disk stays, the
# verifier fails, the kernel log is dirty or bfq does not unload.
. "$(dirname "$0")/lib.sh"
KEEP=nbhk
VPID=

cleanup() {
	for p in $(pidof fio) $(pidof dd); do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	for d in "$NULLB_CFS"/*/; do [ -d "$d" ] && nullb_cfs_remove "$(basename "$d")"; done
	unload_bfq
	sdebug_unload
}
bad() { cleanup; fail "$*"; }

# wait_gone PIDS...: every one must exit within 20 s (x TMUL)
wait_gone() {
	n=0
	for p in "$@"; do
		while kill -0 "$p" 2>/dev/null; do
			[ $n -lt $((200 * TMUL)) ] || bad "pid $p ($(tr '\0' ' ' < /proc/$p/cmdline | cut -c1-40)) still running 20 s after the removal"
			sleep 0.1; n=$((n + 1))
		done
		wait "$p" 2>/dev/null
	done
}

load_bfq || fail "insmod failed"

# --- (a) scsi_debug
sd=$(sdebug_load 'dev_size_mb=64 max_queue=32') || bad "scsi_debug did not load"
host=$(ls -d /sys/bus/pseudo/drivers/scsi_debug/adapter*/host* | head -n 1)
host=${host##*/}
[ -e /sys/class/scsi_host/$host/scan ] || bad "no scan file for $host"
r=1
while [ $r -le 3 ]; do
	set_sched "$sd" bfq || bad "round $r: cannot select bfq on $sd"
	fio --name=hot --thread --filename=/dev/$sd --rw=randrw --bs=4k \
		--ioengine=libaio --iodepth=16 --direct=1 --time_based \
		--runtime=120 > /tmp/hp-fio.out 2>&1 &
	fp=$!
	dd if=/dev/$sd of=/dev/null bs=64k iflag=direct 2>/dev/null &
	dp=$!
	usleep $((1500000 + RANDOM % 1500001))
	kill -0 $fp 2>/dev/null || bad "round $r: fio ended before the removal: $(tail -n 2 /tmp/hp-fio.out)"
	echo 1 > /sys/block/$sd/device/delete || bad "round $r: delete of $sd refused"
	wait_gone $fp $dp
	[ ! -e /sys/block/$sd ] || bad "round $r: $sd still there after delete"
	# nobody uses bfq now: it must unload, and load again
	unload_bfq || bad "round $r: rmmod after the removal failed"
	load_bfq || bad "round $r: insmod failed"
	echo '- - -' > /sys/class/scsi_host/$host/scan
	n=0 sd=
	while [ -z "$sd" ] && [ $n -lt 100 ]; do
		for b in /sys/bus/pseudo/drivers/scsi_debug/adapter*/$host/target*/*/block/*; do
			[ -e "$b" ] && sd=${b##*/}
		done
		sleep 0.1; n=$((n + 1))
	done
	[ -n "$sd" ] && wait_dev "$sd" || bad "round $r: no disk after the rescan"
	r=$((r + 1))
done
log "scsi_debug: 3 deletions under I/O, bfq reloaded after each"
set_sched "$sd" mq-deadline
sdebug_unload || bad "rmmod scsi_debug failed"

# --- (b) null_blk via configfs
nullb_cfs_create $KEEP memory_backed=1 size=128 submit_queues=2 \
	hw_queue_depth=8 irqmode=2 completion_nsec=100000 || bad "no null_blk"
set_sched $KEEP bfq || bad "cannot select bfq on $KEEP"
verifier $KEEP 0 32m 8 /tmp/hp-verify.t &
VPID=$!
i=1
while [ $i -le 12 ]; do
	d=nbh$i
	nullb_cfs_create $d size=$((64 + RANDOM % 64)) memory_backed=$((RANDOM % 2)) \
		submit_queues=$((1 + RANDOM % 2)) hw_queue_depth=$((1 + RANDOM % 16)) \
		irqmode=2 completion_nsec=$((50000 + RANDOM % 200000)) || bad "cannot create $d"
	set_sched $d bfq || bad "cannot select bfq on $d"
	fio --name=hot --thread --filename=/dev/$d --rw=randrw --bs=4k \
		--ioengine=libaio --iodepth=16 --direct=1 --time_based \
		--runtime=120 > /dev/null 2>&1 &
	fp=$!
	dd if=/dev/$d of=/dev/null bs=64k 2>/dev/null &
	dp=$!
	usleep $((200000 + RANDOM % 600001))
	echo 0 > $NULLB_CFS/$d/power || bad "power=0 on $d failed"
	[ ! -e /sys/block/$d ] || bad "$d still there after power=0"
	rmdir $NULLB_CFS/$d || bad "rmdir $d failed"
	wait_gone $fp $dp
	kill -0 $VPID 2>/dev/null || bad "the verifier on $KEEP ended: $(grep -v '^3;' /tmp/hp-verify.t | tail -n 2)"
	i=$((i + 1))
done
log "null_blk: 12 devices removed under I/O"
kill -TERM $VPID; wait $VPID; VPID=
why=$(fio_all_ok /tmp/hp-verify.t 1) || bad "verifier: $why $(grep -v '^3;' /tmp/hp-verify.t | tail -n 2 | tr '\n' ' ')"
nullb_cfs_remove $KEEP || bad "cannot remove $KEEP"
unload_bfq || bad "unload_bfq failed"
mod_loaded bfq_iosched && bad "bfq_iosched still loaded"
check_dmesg
log "hotplug stress ok"
