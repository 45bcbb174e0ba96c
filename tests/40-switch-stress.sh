#!/bin/sh
# where: guest
# timeout: 150
# Scheduler switches on a multi-queue device (28-robustness does vda):
# a memory-backed null_blk made through configfs with submit_queues=2,
# timer completions so requests are in the driver and in the scheduler
# when a switch comes.  Every 50-200 ms (random) the scheduler changes to
# another one of bfq, mq-deadline, none, kyber (random), in two phases of
# 20 s; between them bfq is unloaded and loaded again while I/O goes on.
# Meanwhile two fio jobs, one per CPU (so both hardware queues), write
# 48 MiB each at random (4k-64k, iodepth 8) and read it back with crc32c,
# in a loop, and a buffered dd reads sequentially.  Fails on a verify
# error or short read-back, no progress for 10 s, a verify run not
# finishing in time, a dirty kernel log, or bfq not unloading.
. "$(dirname "$0")/lib.sh"
DEV=nbsw
S=/sys/block/$DEV/queue/scheduler
PHASE=20
LOOP= RD=

cleanup() {
	touch /tmp/sw.stop
	for p in $(pidof fio) $(pidof dd); do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	set_sched $DEV mq-deadline >/dev/null 2>&1
	nullb_cfs_remove $DEV
	unload_bfq
	! mod_loaded kyber_iosched || rmmod kyber_iosched
}
bad() { cleanup; fail "$*"; }

load_bfq || fail "insmod failed"
modprobe kyber-iosched || fail "modprobe kyber-iosched failed"
nullb_cfs_create $DEV memory_backed=1 size=256 submit_queues=2 \
	hw_queue_depth=32 irqmode=2 completion_nsec=100000 || bad "no null_blk"
nq=$(ls -d /sys/block/$DEV/mq/[0-9]* | wc -l)
[ "$nq" -ge 2 ] || bad "$DEV has $nq hardware queue(s), want 2"
for s in bfq mq-deadline none kyber; do
	grep -qw "$s" $S || bad "$s not offered: $(cat $S)"
done
set_sched $DEV bfq || bad "cannot select bfq"

rm -f /tmp/sw.stop /tmp/sw.runs /tmp/sw-v*.t
(
	k=0
	while [ ! -f /tmp/sw.stop ]; do
		k=$((k + 1))
		t=$(now)
		fio --minimal --terse-version=3 --name=verify --filename=/dev/$DEV \
			--ioengine=libaio --direct=1 --numjobs=2 --offset=0 \
			--offset_increment=64m --size=48m --cpus_allowed=0,1 \
			--cpus_allowed_policy=split --rw=randwrite --bsrange=4k-64k \
			--iodepth=8 --verify=crc32c --do_verify=1 --verify_fatal=1 \
			--verify_state_save=0 --randseed=$k > /tmp/sw-v$k.t 2>&1
		echo "$k $? $(( $(now) - t ))" >> /tmp/sw.runs
	done
) &
LOOP=$!
(
	while [ ! -f /tmp/sw.stop ]; do
		dd if=/dev/$DEV of=/dev/null bs=1M skip=160 count=64 2>/dev/null
		echo 1 > /proc/sys/vm/drop_caches
	done
) &
RD=$!

# PHASE seconds of random switches, every 50-200 ms
nsw=0 last=bfq prog=$(io_done $DEV) tprog=$(now)
switch_phase() {
	te=$(( $(now) + PHASE ))
	while [ "$(now)" -lt "$te" ]; do
		s=$last
		while [ "$s" = "$last" ]; do
			case $(rnd 4) in 0) s=bfq ;; 1) s=mq-deadline ;; 2) s=none ;; 3) s=kyber ;; esac
		done
		set_sched $DEV "$s" || bad "switch $nsw to $s failed"
		last=$s nsw=$((nsw + 1))
		usleep $((50000 + $(rnd 150001)))
		# progress: the device must complete I/O at least every 10 s
		p=$(io_done $DEV)
		if [ "$p" != "$prog" ]; then prog=$p tprog=$(now)
		elif [ $(( $(now) - tprog )) -gt $((10 * TMUL)) ]; then
			bad "no I/O completed on $DEV for 10 s (scheduler $s)"
		fi
	done
}

t0=$(now)
switch_phase
# between phases: away from bfq, unload and reload it under I/O
set_sched $DEV mq-deadline || bad "cannot leave bfq"
last=mq-deadline
unload_bfq || bad "rmmod bfq_iosched between phases failed"
load_bfq || bad "insmod bfq_iosched between phases failed"
switch_phase
t1=$(now)
log "$nsw switches in $((t1 - t0)) s, bfq reloaded once"

set_sched $DEV bfq || bad "final switch to bfq failed"
touch /tmp/sw.stop
n=0
while kill -0 $LOOP 2>/dev/null && [ $n -lt $((600 * TMUL)) ]; do sleep 0.1; n=$((n + 1)); done
kill -0 $LOOP 2>/dev/null && bad "the last verify run did not finish within $((60 * TMUL)) s"
wait $LOOP; LOOP=
wait $RD; RD=

tr '\n' ',' < /tmp/sw.runs; echo " (run rc secs)"
ok=$(verify_runs /tmp/sw.runs /tmp/sw-v 49152 0) || bad "$ok"
[ $ok -ge 1 ] || bad "no verify run completed"
log "verify runs: $ok complete and clean"

set_sched $DEV mq-deadline || bad "cannot switch to mq-deadline"
nullb_cfs_remove $DEV || bad "cannot remove $DEV"
rmmod kyber_iosched || bad "rmmod kyber_iosched failed"
unload_bfq || bad "unload_bfq failed"
mod_loaded bfq_iosched && bad "bfq_iosched still loaded"
check_dmesg
log "switch stress ok"
