#!/bin/sh
# where: guest
# timeout: 120
# Cgroups outlive the module: create them before loading, load, do I/O in
# them, unload with the cgroups left, reload: io.bfq.weight is back with
# the default weight and works; twice; then rmdir everything.
. "$(dirname "$0")/lib.sh"

A=t36a A1=t36a/x B=t36b
cleanup() { cg_readers_stop; cg_kill_rm $A1 $A $B; }
trap cleanup EXIT
BG=/sys/kernel/debug/block/nullb0/sched/bfq_groups

unload_bfq || fail "bfq still loaded from before"
mkdir $CGROOT/$A $CGROOT/$B || fail "mkdir"
echo +io > $CGROOT/$A/cgroup.subtree_control || fail "+io in /a"
mkdir $CGROOT/$A1 || fail "mkdir $A1"
[ ! -e $CGROOT/$A/io.bfq.weight ] || fail "io.bfq.weight exists before the module is loaded"
nullb_load "$NULLB_SLOW" || fail "null_blk"

for round in 1 2 3; do
	load_bfq || fail "round $round: insmod failed"
	for g in $A $A1 $B; do
		w=$(head -n 1 $CGROOT/$g/io.bfq.weight 2>&1)
		[ "$w" = "default 100" ] || fail "round $round: $g io.bfq.weight reads '$w'"
	done
	echo $((100 * round + 50)) > $CGROOT/$A1/io.bfq.weight || fail "round $round: weight write"
	echo 300 > $CGROOT/$B/io.bfq.weight || fail "round $round: weight write"
	set_sched nullb0 bfq || fail "round $round: cannot select bfq"
	cg_reader $A1 nullb0 0 --runtime=3
	cg_reader $B nullb0 10g --runtime=3
	cg_wait_io nullb0 rbytes $A1 $B || fail "round $round: no I/O"
	grep t36 $BG | sed "s/^/round $round: /"
	grep -q "^/$A1 .* weight=$((100 * round + 50)) " $BG || fail "round $round: $A1 missing in bfq_groups"
	grep -q "^/$A .* weight=100 " $BG || fail "round $round: $A missing in bfq_groups"
	grep -q "^/$B .* weight=300 " $BG || fail "round $round: $B missing in bfq_groups"
	if [ "$round" = 2 ] && rmmod bfq_iosched 2>/dev/null; then
		fail "round 2: rmmod succeeded with nullb0 on bfq"
	fi
	# rounds 1, 2: after the I/O; round 3: switch away with I/O running
	[ "$round" = 3 ] || wait $CG_PIDS
	CG_PIDS_SAVED=$CG_PIDS
	unload_bfq || fail "round $round: rmmod failed"
	wait $CG_PIDS_SAVED; CG_PIDS=
	[ ! -e $CGROOT/$A/io.bfq.weight ] || fail "round $round: io.bfq.weight still there after rmmod"
	for g in $A1 $B; do
		f=/tmp/$(echo $g | tr / _)-nullb0.t
		[ "$(fio_err "$f")" = 0 ] || fail "round $round: fio in $g: $(tail -n 1 "$f")"
	done
	log "round $round: loaded, I/O in groups, unloaded with the cgroups left"
done

cleanup
for g in $A1 $A $B; do [ ! -d $CGROOT/$g ] || fail "cannot rmdir $g"; done
load_bfq || fail "last insmod failed"
set_sched nullb0 bfq || fail "cannot select bfq at the end"
[ -z "$(grep t36 $BG)" ] || fail "removed cgroups in bfq_groups: $(grep t36 $BG | head -n 1)"
unload_bfq || fail "last rmmod failed"
check_dmesg
log "unload/reload with cgroups ok"
