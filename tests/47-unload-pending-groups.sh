#!/bin/sh
# where: guest
# timeout: 180
# rmmod while removed cgroups' blkgs are not freed yet.  The blkcg core
# frees a group (bfq_pd_free) from a work item after the blkg's last
# reference, which may come after the elevator and the policy are gone;
# if the module were gone by then, the free would call into nothing and
# the kernel oops.  So rmmod must be refused ("in use") until then, and
# succeed once it has happened.
#  a) 10 rounds: insmod, bfq on nullb0, two cgroups with 1 s of direct
#     reads each, rmdir both, switch to none, rmmod at once (refused or
#     not, depending on the free's timing); then rmmod once unused.
#  b) A blkg pinned for seconds by a bio that blk-throttle holds (io.max):
#     the reader is moved out and its cgroup removed while the bio waits.
#     rmmod is refused for as long as the bio is held, then succeeds.
# No splat may follow, also seconds after the last free.
. "$(dirname "$0")/lib.sh"

A=t38a B=t38b
cleanup() { cg_readers_stop; cg_kill_rm $A $B; }
trap cleanup EXIT

unload_bfq || fail "bfq still loaded from before"
nullb_load "$NULLB_SLOW" || fail "null_blk"

# try_rmmod: rmmod bfq_iosched now; 0 if it went, 1 if refused while in use.
try_rmmod() {
	rmmod bfq_iosched 2>/dev/null && return 0
	mod_loaded bfq_iosched || fail "rmmod failed and the module is gone"
	return 1
}

refused=0
for round in 1 2 3 4 5 6 7 8 9 10; do
	load_bfq || fail "round $round: insmod failed"
	set_sched nullb0 bfq || fail "round $round: cannot select bfq"
	mkdir $CGROOT/$A $CGROOT/$B || fail "round $round: mkdir"
	cg_reader $A nullb0 0 --runtime=1
	cg_reader $B nullb0 1g --runtime=1
	wait $CG_PIDS; CG_PIDS=
	rmdir $CGROOT/$A $CGROOT/$B || fail "round $round: rmdir"
	set_sched nullb0 none || fail "round $round: cannot select none"
	if ! try_rmmod; then
		refused=$((refused + 1))
		mod_wait_unused bfq_iosched 10
		try_rmmod || fail "round $round: rmmod refused 10 s after rmdir"
	fi
done
log "a) 10 rounds: rmmod right after rmdir was refused $refused times, then went"

# b) one 1 MiB read throttled to 128 KiB/s: held about 8 s in blk-throttle.
load_bfq || fail "b: insmod failed"
set_sched nullb0 bfq || fail "b: cannot select bfq"
mkdir $CGROOT/$A || fail "b: mkdir"
echo "$(cat /sys/block/nullb0/dev) rbps=131072" > $CGROOT/$A/io.max ||
	fail "b: cannot set io.max"
cg_exec $A dd if=/dev/nullb0 of=/dev/null bs=1M count=1 iflag=direct 2>/dev/null &
sleep 1
pid=$(cat $CGROOT/$A/cgroup.procs)
[ -n "$pid" ] || fail "b: dd is not in $A (ended too early?)"
echo "$pid" > $CGROOT/cgroup.procs || fail "b: cannot move dd out"
rmdir $CGROOT/$A || fail "b: rmdir with the bio held"
set_sched nullb0 none || fail "b: cannot select none"
try_rmmod && fail "b: rmmod succeeded while a removed group's blkg is pinned"
t0=$(now)
wait
mod_wait_unused bfq_iosched 10
try_rmmod || fail "b: rmmod refused after the held bio completed"
log "b) rmmod refused while the bio was held, went $(($(now) - t0)) s later"

sleep 2	# a late free would oops about now
check_dmesg
log "unload with pending groups ok"
