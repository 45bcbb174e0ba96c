#!/bin/sh
# where: guest
# timeout: 180
# Tunables changed at random under load.  On a 2-queue memory-backed
# null_blk, every 20-100 ms one of the ten iosched tunables gets a random
# value or one of its extremes (slice_idle 0 and 1000 ms, max_budget 1
# sector and 1048576, timeout_* 1 ms, fifo_expire_* 1 ms and 60 s,
# max_budget_async_rq 1 and 1024, back_seek_max 0 / max, penalty 1 and
# 1000), read back at once; two phases of 20 s with bfq unloaded and
# loaded in between (after which every tunable must be at its default).
# Load: two crc32c-verified fio jobs (libaio iodepth 8) in a loop, a
# reader with 2 ms think time (idling), buffered dd writes (async
# queues).  Fails on a rejected or not-kept value, a verify error, a
# verify run over 60 s, no I/O completed for 10 s, a dirty kernel log, or
# bfq not unloading.
. "$(dirname "$0")/lib.sh"
DEV=nbtu
PHASE=20
LOOP= THINK= WB=

cleanup() {
	touch /tmp/tu.stop
	for p in $(pidof fio) $(pidof dd); do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	nullb_cfs_remove $DEV
	unload_bfq
}
bad() { cleanup; fail "$*"; }

# name default value... (the values tried besides random ones)
TUNABLES='max_budget 0 0 1 8 64 1048576
max_budget_async_rq 4 1 2 1024
timeout_sync 125 1 2 10 10000
timeout_async 40 1 2 10 10000
slice_idle 8 0 0 1 1000
slice_idle_us 8000 0 1 500 1000000
fifo_expire_sync 125 1 2 60000
fifo_expire_async 250 1 2 60000
back_seek_max 16384 0 1 1048576
back_seek_penalty 2 1 1000
low_latency 1 0 1'
# the random range of each: max
rmax() {
	case $1 in
	max_budget) echo 65536 ;; max_budget_async_rq) echo 64 ;;
	timeout_*) echo 300 ;; slice_idle) echo 20 ;; slice_idle_us) echo 20000 ;;
	fifo_expire_*) echo 500 ;; back_seek_max) echo 65536 ;; back_seek_penalty) echo 20 ;;
	low_latency) echo 1 ;;
	esac
}
NAMES=$(echo "$TUNABLES" | cut -d' ' -f1 | tr '\n' ' ')

check_defaults() {
	echo "$TUNABLES" | while read -r name def _; do
		v=$(iosched $DEV "$name")
		[ "$v" = "$def" ] || { echo "$name is $v after $1, want $def"; return 1; }
	done
}

load_bfq || fail "insmod failed"
nullb_cfs_create $DEV memory_backed=1 size=256 submit_queues=2 \
	hw_queue_depth=8 irqmode=2 completion_nsec=100000 || bad "no null_blk"
set_sched $DEV bfq || bad "cannot select bfq"
why=$(check_defaults "insmod") || bad "$why"

rm -f /tmp/tu.stop /tmp/tu.runs /tmp/tu-v*.t
(
	k=0
	while [ ! -f /tmp/tu.stop ]; do
		k=$((k + 1))
		t=$(now)
		fio --minimal --terse-version=3 --name=verify --thread --filename=/dev/$DEV \
			--ioengine=libaio --direct=1 --numjobs=2 --offset=0 \
			--offset_increment=32m --size=24m --rw=randwrite --bsrange=4k-64k \
			--iodepth=8 --verify=crc32c --do_verify=1 --verify_fatal=1 \
			--verify_state_save=0 --randseed=$k > /tmp/tu-v$k.t 2>&1
		echo "$k $? $(( $(now) - t ))" >> /tmp/tu.runs
	done
) &
LOOP=$!
fio --minimal --terse-version=3 --name=think --thread --filename=/dev/$DEV \
	--offset=64m --size=64m --rw=randread --bs=4k --direct=1 --thinktime=2000 \
	--time_based --runtime=600 > /tmp/tu-think.t 2>&1 &
THINK=$!
(
	while [ ! -f /tmp/tu.stop ]; do
		dd if=/dev/zero of=/dev/$DEV bs=64k count=64 seek=$((2048 + RANDOM % 1024)) 2>/dev/null
	done
) &
WB=$!

nset=0 nextreme=0
tune_phase() {
	PROG_T=
	set_now; te=$((NOW + PHASE))
	while [ "$NOW" -lt "$te" ]; do
		set -- $NAMES
		shift $((RANDOM % $#))
		name=$1
		if [ $((RANDOM % 2)) = 0 ]; then
			set -- $(echo "$TUNABLES" | sed -n "s/^$name [0-9]* //p")
			shift $((RANDOM % $#))
			v=$1 nextreme=$((nextreme + 1))
		else
			v=$((RANDOM * 32768 + RANDOM))
			v=$((v % ($(rmax "$name") + 1)))
			# ranges that start at 1
			case $name in max_budget|slice_idle*|back_seek_max) ;; *) [ "$v" -gt 0 ] || v=1 ;; esac
		fi
		echo "$v" > /sys/block/$DEV/queue/iosched/$name || bad "$name=$v rejected"
		read -r got < /sys/block/$DEV/queue/iosched/$name
		[ "$got" = "$v" ] || bad "$name reads $got after writing $v"
		nset=$((nset + 1))
		usleep $((20000 + RANDOM % 80001))
		progress $DEV "after $name=$v"
	done
}

t0=$(now)
tune_phase
log "phase 1: $nset writes ($nextreme extremes) in $(( $(now) - t0 )) s: $(cd /sys/block/$DEV/queue/iosched && for f in $NAMES; do printf '%s=%s ' $f "$(cat $f)"; done)"
set_sched $DEV mq-deadline || bad "cannot leave bfq"
unload_bfq || bad "rmmod between phases failed"
load_bfq || bad "insmod between phases failed"
set_sched $DEV bfq || bad "cannot select bfq again"
why=$(check_defaults "reload") || bad "$why"
tune_phase
t1=$(now)
log "$nset writes ($nextreme extremes) in $((t1 - t0)) s"

# back to the defaults; the last verify run must then finish
echo "$TUNABLES" | while read -r name def _; do iosched $DEV "$name" "$def"; done
why=$(check_defaults "restoring them") || bad "$why"
touch /tmp/tu.stop
kill -TERM $THINK; wait $THINK; THINK=
n=0
while kill -0 $LOOP 2>/dev/null && [ $n -lt $((600 * TMUL)) ]; do progress $DEV "last verify"; sleep 0.1; n=$((n + 1)); done
kill -0 $LOOP 2>/dev/null && bad "the last verify run did not finish within $((60 * TMUL)) s"
wait $LOOP; LOOP=
wait $WB; WB=

tr '\n' ',' < /tmp/tu.runs; echo " (run rc secs)"
ok=$(verify_runs /tmp/tu.runs /tmp/tu-v 24576 $((60 * TMUL))) || bad "$ok"
[ $ok -ge 1 ] || bad "no verify run completed"
why=$(fio_all_ok /tmp/tu-think.t 1) || bad "thinking reader: $why"
log "verify runs: $ok complete and clean; thinking reader read $(fio_field /tmp/tu-think.t think 6) KiB"

nullb_cfs_remove $DEV || bad "cannot remove $DEV"
unload_bfq || bad "unload_bfq failed"
check_dmesg
log "tunables stress ok"
