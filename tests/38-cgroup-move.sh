#!/bin/sh
# where: guest
# timeout: 90
# A process moved to another cgroup in the middle of sequential I/O: what
# it issues after the move is served and accounted in the new group, and
# none of its bios joins a request of its old group.
# One O_DIRECT reader (8 KiB reads, iodepth 32, so that bios merge into the
# queued requests) on a slow depth-1 null_blk starts in t38a and is moved
# to t38b.  Over the 3 s after the move:
#  - the block layer's view (io.stat rbytes, counted as bios are
#    submitted): t38a grows by at most what was in flight at the move
#    (32 x 8 KiB), t38b by at least 90 % of the bytes the device read
#    (/sys/block/nullb0/stat);
#  - ours (bfq.sectors, counted at dispatch): the same two bounds;
#  - traced: every bio the block layer merged (block_bio_backmerge or
#    _frontmerge) from 10 ms after the move lands in a request that bfq
#    dispatched (bfq_dispatch) from a queue of t38b, and there are at least
#    100 such merges, so that the check is not empty.
. "$(dirname "$0")/lib.sh"

A=t38a B=t38b
OLD_BUF=$(sed 's/.*expanded: \([0-9]*\).*/\1/' $TRACEFS/buffer_size_kb)
cleanup() {
	echo 0 > $TRACEFS/tracing_on
	echo 0 > $TRACEFS/events/block/block_bio_backmerge/enable
	echo 0 > $TRACEFS/events/block/block_bio_frontmerge/enable
	trace_off
	echo 1 > $TRACEFS/tracing_on
	echo "$OLD_BUF" > $TRACEFS/buffer_size_kb
	cg_readers_stop; cg_kill_rm $A $B
}
trap cleanup EXIT
# rd_sect: sectors read from nullb0 so far
rd_sect() { awk '{ print $3 }' /sys/block/nullb0/stat; }
snap() { echo "$(cg_snap nullb0 rbytes $A $B) $(cg_snap nullb0 bfq.sectors $A $B) $(rd_sect)"; }

load_bfq || fail "insmod failed"
nullb_load "$NULLB_SLOW" || fail "null_blk"
set_sched nullb0 bfq || fail "cannot select bfq"
echo 128 > /sys/block/nullb0/queue/nr_requests || fail "nr_requests"
cg_make $A && cg_make $B || fail "cannot create the cgroups"
echo 8192 > $TRACEFS/buffer_size_kb || fail "cannot grow the trace buffer"

# --thread: the reads come from the process that is moved, not a child
cg_reader $A nullb0 0 --bs=8k --ioengine=libaio --iodepth=32 --thread
PID=${CG_PIDS# }
cg_wait_io nullb0 rbytes $A || fail "the reader does not run"
sleep 1
trace_on bfq_dispatch || fail "cannot enable bfq_dispatch"
echo 1 > $TRACEFS/events/block/block_bio_backmerge/enable &&
	echo 1 > $TRACEFS/events/block/block_bio_frontmerge/enable ||
	fail "cannot enable the block merge events"
sleep 0.5
echo "$PID" > $CGROOT/$B/cgroup.procs || fail "cannot move $PID to $B"
echo "t38 moved" > $TRACEFS/trace_marker
s1=$(snap)
sleep 3
s2=$(snap)
echo 0 > $TRACEFS/tracing_on
ida=$(sed -n "s/^\/$A id=\([0-9]*\) .*/\1/p" /sys/kernel/debug/block/nullb0/sched/bfq_groups)
idb=$(sed -n "s/^\/$B id=\([0-9]*\) .*/\1/p" /sys/kernel/debug/block/nullb0/sched/bfq_groups)
grep t38 /sys/kernel/debug/block/nullb0/sched/bfq_groups | sed 's/^/bfq_groups: /'
grep -E "cgroup=($ida|$idb) " /sys/kernel/debug/block/nullb0/sched/bfq_queues | sed 's/^/bfq_queues: /'
trace_dump > /tmp/t38.trace
lost=$(cat $TRACEFS/per_cpu/cpu*/stats | awk '/^overrun:/ { n += $2 } END { print n + 0 }')
cleanup
trap - EXIT
unload_bfq || fail "rmmod failed"
check_dmesg
[ "$lost" -eq 0 ] || fail "trace buffer overran ($lost events lost)"
[ -n "$ida" ] && [ -n "$idb" ] || fail "no bfq_groups lines for $A and $B"

set -- $(echo "$s1 $s2" | awk '{ for (i = 1; i <= 5; i++) printf "%d ", $(i + 5) - $i }')
dev=$(($5 << 9))
log "after the move: device read $((dev >> 10)) KiB; io.stat rbytes a=$(($1 >> 10)) b=$(($2 >> 10)) KiB; bfq.sectors a=$(($3 >> 1)) b=$(($4 >> 1)) KiB"
[ "$dev" -gt $((1 << 20)) ] || fail "the reader read only $dev bytes after the move"
[ "$1" -le $((32 << 13)) ] || fail "io.stat: $A still got $1 bytes after the move"
[ $(($2 * 10)) -ge $((dev * 9)) ] || fail "io.stat: $B got $2 of $dev bytes after the move"
[ $(($3 << 9)) -le $((32 << 13)) ] || fail "bfq.sectors: $A still served $(($3 << 9)) bytes after the move"
[ $((($4 << 9) * 10)) -ge $((dev * 9)) ] || fail "bfq.sectors: $B served $(($4 << 9)) of $dev bytes after the move"

# merges after the move, checked against the requests bfq dispatched:
# "bad" merges joined a request of another cgroup than $B
res=$(awk -v idb="$idb" '
	function ts(  i) { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) return substr($i, 1, length($i) - 1) + 0 }
	function val(k,  i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2) }
	/t38 moved/ { moved = ts() }
	/block_bio_(back|front)merge:/ && moved != "" && ts() > moved + 0.01 {
		for (i = 1; i <= NF; i++) if ($i == "+") { pend[$(i - 1) + 0] = 1; break } }
	/bfq_dispatch:/ && moved != "" {
		s = val("sector") + 0; e = s + val("nr_sectors"); c = val("cgroup")
		for (p in pend) if (p + 0 >= s && p + 0 < e) {
			delete pend[p]
			if (c == idb) good++
			else { bad++; if (ex == "") ex = p " in cgroup " c }
		}
	}
	END {
		for (p in pend) unseen++
		printf "%d %d %d %s\n", good, bad, unseen, ex
	}' /tmp/t38.trace)
set -- $res
log "merges after the move: $1 into requests of $B, $2 into other cgroups' requests, $3 not dispatched in the trace${4:+ (first bad: sector $4 $5 $6 $7)}"
[ "$2" -eq 0 ] || fail "$2 bios of $B merged into requests of another cgroup (sector $4 $5 $6 $7)"
[ "$1" -ge 100 ] || fail "only $1 merges traced after the move: the check says nothing"
log "moved reader served and accounted in $B only"
