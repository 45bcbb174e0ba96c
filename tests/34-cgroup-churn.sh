#!/bin/sh
# where: guest
# timeout: 180
# Group lifetimes under churn, on a slow depth-1 null_blk where requests sit
# in the scheduler: 100 times (30 on the sanitizer kernel, where a round
# takes ~14 s instead of ~1.5 s) a cgroup is created, gets readers, and is
# removed as soon as they are gone: every 10th round a fresh fio (libaio
# iodepth 16, random) is SIGKILLed with I/O in flight; other even rounds
# SIGKILL four O_DIRECT dd (a fio start costs ~2 s under TCG); odd rounds
# move a long-lived libaio iodepth-16 fio in, then out again with its
# requests still queued in the group, which is removed at once.  Meanwhile a crc32c-verified writer is
# moved between two cgroups every few rounds.  The kernel log stays clean,
# the verify passes and bfq_groups lists no removed cgroup at the end.
. "$(dirname "$0")/lib.sh"

ROUNDS=100
[ "$TMUL" = 1 ] || ROUNDS=30
P=t34 V1=t34/v1 V2=t34/v2 PARK=t34/park
cleanup() {
	for i in $(seq 0 99); do cg_kill_rm $P/c$i; done
	cg_kill_rm $PARK $V1 $V2 $P
}
trap cleanup EXIT
BG=/sys/kernel/debug/block/nullb0/sched/bfq_groups

load_bfq || fail "insmod failed"
nullb_load "$NULLB_SLOW memory_backed=1" || fail "null_blk"	# the verifier needs the data
set_sched nullb0 bfq || fail "cannot select bfq"
echo 128 > /sys/block/nullb0/queue/nr_requests || fail "nr_requests"
cg_make $P && echo +io > $CGROOT/$P/cgroup.subtree_control || fail "cgroup $P"
cg_make $V1 200 && cg_make $V2 50 && cg_make $PARK || fail "cgroups"

sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CGROOT/$V1" \
	fio --minimal --terse-version=3 --name=verify --filename=/dev/nullb0 \
	--offset=0 --size=16m --rw=randwrite --bsrange=4k-64k --ioengine=libaio \
	--iodepth=4 --direct=1 --verify=crc32c --do_verify=1 --verify_fatal=1 \
	--verify_state_save=0 --loops=1000 > /tmp/verify.t 2>&1 &
vpid=$!

# a long-lived reader that is moved into cgroups and out again
sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CGROOT/$PARK" \
	fio --name=mover --filename=/dev/nullb0 --offset=2g --size=1g \
	--rw=randread --bs=4k --ioengine=libaio --iodepth=16 --direct=1 \
	--time_based --runtime=600 > /dev/null 2>&1 &
mpid=$!
cg_wait_io nullb0 rbytes $PARK || fail "the mover does no I/O"

t0=$(cut -d. -f1 /proc/uptime)
i=0 moved=0 maxn=0 maxr=
while [ $i -lt $ROUNDS ]; do
	G=$P/c$i
	[ $((i % 10)) != 0 ] || log "round $i at $(cut -d' ' -f1 /proc/uptime) s"
	mkdir $CGROOT/$G || fail "mkdir $G"
	echo $((i * 9 + 10)) > $CGROOT/$G/io.bfq.weight || fail "weight of $G"
	if [ $((i % 10)) = 0 ]; then
		how="fio libaio iodepth 16, SIGKILL"
		sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CGROOT/$G" \
			fio --name=churn --filename=/dev/nullb0 --offset=$((i % 8))g --size=1g \
			--rw=randread --bs=4k --ioengine=libaio --iodepth=16 --direct=1 \
			--time_based --runtime=60 > /dev/null 2>&1 &
	elif [ $((i % 2)) = 0 ]; then
		how="4 O_DIRECT dd, SIGKILL"
		# shellcheck disable=SC2016
		sh -c 'echo $$ > "$0/cgroup.procs" && for k in 1 2 3 4; do
			dd if=/dev/nullb0 of=/dev/null bs=4k iflag=direct skip=$((k * 100000)) 2>/dev/null &
			done; wait' "$CGROOT/$G" &
	else
		how="the mover moved in and out"
		for p in $(cat $CGROOT/$PARK/cgroup.procs); do echo $p > $CGROOT/$G/cgroup.procs; done
	fi
	cg_wait_io nullb0 rbytes $G || fail "round $i ($how): no I/O"
	procs=$(cat $CGROOT/$G/cgroup.procs)
	if [ $((i % 2)) = 0 ]; then
		# shellcheck disable=SC2086
		kill -9 $procs
	else
		# out with its requests still queued in the group
		for p in $procs; do echo $p > $CGROOT/$PARK/cgroup.procs; done
	fi
	# a killed process leaves only when its requests are served, at its
	# group's share: a new group waits at most until V passes its F =
	# S + budget / weight, ~600 sectors x 300 (the weights beside it) /
	# its weight of the device's ~7k sectors/s: weight 1 (the weights
	# were i * 9 + 1 until 2026-12-08) waited 2.4-5.4 s in 20 runs, 31 s
	# once in a full run; 10 waits at most ~3 s
	n=0
	while ! rmdir $CGROOT/$G 2>/dev/null; do
		[ $n -lt 1200 ] || fail "round $i ($how): cannot rmdir $G in 60 s ($(cat $CGROOT/$G/cgroup.procs | tr '\n' ' '))"
		sleep 0.05; n=$((n + 1))
	done
	[ $n -le "$maxn" ] || { maxn=$n maxr="round $i, weight $((i * 9 + 10))"; }
	[ $((i % 2)) = 1 ] || wait $! 2>/dev/null
	# move the verifier now and then, its I/O in flight
	if [ $((i % 7)) = 3 ]; then
		to=$V2; [ $((moved % 2)) = 1 ] && to=$V1
		for p in $(cat $CGROOT/$V1/cgroup.procs $CGROOT/$V2/cgroup.procs); do
			echo $p > $CGROOT/$to/cgroup.procs || fail "cannot move verifier pid $p"
		done
		moved=$((moved + 1))
	fi
	i=$((i + 1))
done
t1=$(cut -d. -f1 /proc/uptime)
log "$ROUNDS churn rounds in $((t1 - t0)) s, verifier moved $moved times, longest rmdir wait $(printf %d.%02d $((maxn / 20)) $((maxn % 20 * 5))) s ($maxr)"
kill -0 $mpid 2>/dev/null || fail "the mover died"
kill -9 $mpid
kill -0 $vpid 2>/dev/null || fail "verifier ended early: $(tail -n 3 /tmp/verify.t)"
kill -TERM $vpid; wait $vpid
vrc=$?
log "verify: $(cut -d';' -f1-9 /tmp/verify.t | tail -n 1) (rc $vrc)"
grep -q 'verify' /tmp/verify.t && grep -i 'verify.*fail\|bad' /tmp/verify.t && fail "verify failed"
[ "$(fio_err /tmp/verify.t verify)" = 0 ] || fail "verifier error $(fio_err /tmp/verify.t verify): $(grep -v '^3;' /tmp/verify.t | tail -n 2)"
[ "$(fio_field /tmp/verify.t verify 6)" -gt 0 ] || fail "the verifier read nothing back"

cg_kill_rm $PARK $V1 $V2 $P
n=50
while grep -q "^/$P" $BG && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
! grep -q "^/$P" $BG || fail "removed cgroups still in bfq_groups: $(grep "^/$P" $BG | head -n 2 | tr '\n' ' ')"
unload_bfq || fail "rmmod failed"
check_dmesg
log "churn ok"
