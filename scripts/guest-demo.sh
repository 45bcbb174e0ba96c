#!/bin/sh
# "make run" inside the guest: select bfq, show its tunables, race two
# sequential readers with different ionice levels, show debugfs files.
. /tests/lib.sh

load_bfq || { echo "demo: cannot load $BFQ_KO"; exit 1; }
set_sched vda bfq || exit 1
echo "vda scheduler: $(cat /sys/block/vda/queue/scheduler)"
echo "--- /sys/block/vda/queue/iosched/"
for f in /sys/block/vda/queue/iosched/*; do
	[ -e "$f" ] && printf '  %-28s %s\n' "${f##*/}" "$(cat "$f" 2>&1)"
done

# depth-1 null_blk, 2 ms per request: the scheduler decides who gets the slot
dev=nullb0
nullb_load 'queue_mode=2 irqmode=2 completion_nsec=2000000 hw_queue_depth=1 submit_queues=1' || exit 1
set_sched $dev bfq || exit 1
echo 128 > /sys/block/$dev/queue/nr_requests
echo "--- two sequential readers on $dev (depth 1, nr_requests 128), 5 s"
# $common is split into words on purpose below
common="--filename=/dev/$dev --rw=read --bs=64k --ioengine=psync --direct=1 --time_based --runtime=5"
fio_run -i 2:0 --name=prio0 $common --offset=0 > /tmp/p0.t &
fio_run -i 2:7 --name=prio7 $common --offset=512m > /tmp/p7.t &
wait
b0=$(fio_read_bw /tmp/p0.t prio0)
b7=$(fio_read_bw /tmp/p7.t prio7)
printf '  %-22s %-22s\n' "ionice -c2 -n0" "ionice -c2 -n7"
printf '  %-22s %-22s\n' "${b0:-?} KiB/s" "${b7:-?} KiB/s"
[ -n "$b0" ] && [ -n "$b7" ] && [ "$b7" -gt 0 ] &&
	echo "  ratio n0/n7: $(awk -v a="$b0" -v b="$b7" 'BEGIN { printf "%.2f", a / b }')"

for d in $dev vda; do
	s=/sys/kernel/debug/block/$d/sched
	echo "--- $s/"
	found=
	for f in "$s"/*; do
		[ -f "$f" ] || continue
		found=1
		echo "  == ${f##*/}"
		cat "$f" 2>&1 | head -n 40 | sed 's/^/     /'
	done
	[ -n "$found" ] || echo "  (no files)"
done
nullb_unload
unload_bfq
