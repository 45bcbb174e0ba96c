#!/bin/sh
# where: guest
# timeout: 150
# Buffered writes beside a reader: on the slow null_blk (2 ms a command,
# depth 1, nr_requests 128) a sequential O_DIRECT reader (psync, 128 KiB)
# and a buffered sequential writer (1 MiB writes, dirty limits 32 MiB,
# background 8 MiB, so writeback runs all the time), the same weight.
# The async queue gets its share in sectors like the reader's: the block
# layer's sectors written over sectors read (/proc/diskstats) >= 0.6 (the
# ideal is about 1, measured 1.22 as mq-deadline's 1.21: a reader's turn
# that times out pays its whole budget; the writer may not always have
# writeback queued).
#  - low_latency=1 (the default): an async turn is charged what it got
#    (or its device time at the peak rate), so the bound holds;
#  - low_latency=0 (the 2008 rule: an async turn is charged a whole
#    budget): the control, which must stay under it, or the bound would
#    not tell the two apart;
#  - mq-deadline, for reference.
. "$(dirname "$0")/lib.sh"
DEV=nullb0
VM=/proc/sys/vm
OLD_DB=$(cat $VM/dirty_bytes) OLD_DBB=$(cat $VM/dirty_background_bytes)
OLD_DR=$(cat $VM/dirty_ratio) OLD_DBR=$(cat $VM/dirty_background_ratio)

cleanup() {
	for _p in $(pidof fio); do kill -9 "$_p"; done
	sync
	echo "$OLD_DB" > $VM/dirty_bytes
	echo "$OLD_DBB" > $VM/dirty_background_bytes
	[ "$OLD_DB" != 0 ] || echo "$OLD_DR" > $VM/dirty_ratio
	[ "$OLD_DBB" != 0 ] || echo "$OLD_DBR" > $VM/dirty_background_ratio
	sched_away bfq
	nullb_unload
	unload_bfq
} > /dev/null 2>&1
trap cleanup EXIT

# sectors read and written on the device so far
sectors() { awk '{ print $3, $7 }' /sys/block/$DEV/stat; }
# mixed: "read_KiB/s write_KiB/s written/read" of one run: fio's rates,
# and the block layer's ratio over the run
mixed() {
	set -- $(sectors)
	fio --minimal --terse-version=3 --filename=/dev/$DEV --ioengine=psync \
		--time_based --runtime=8 \
		--name=seq --rw=read --bs=128k --direct=1 --offset=4g --size=1g \
		--name=wr --rw=write --bs=1m --direct=0 --offset=10g --size=1g \
		> /tmp/54.t 2>&1
	_r0=$1 _w0=$2
	set -- $(sectors)
	for _j in seq wr; do
		[ "$(fio_err /tmp/54.t $_j)" = 0 ] || { echo "$_j: $(head -c 200 /tmp/54.t)"; return 1; }
	done
	echo "$(fio_read_bw /tmp/54.t seq) $(fio_write_bw /tmp/54.t wr)" \
		"$(awk -v r=$(($1 - _r0)) -v w=$(($2 - _w0)) 'BEGIN { printf "%.2f", r ? w / r : 0 }')"
	sync
	echo 3 > $VM/drop_caches
}
sched() {
	set_sched $DEV "$1" && echo 128 > /sys/block/$DEV/queue/nr_requests
}

load_bfq || fail "insmod failed"
nullb_load "$NULLB_SLOW" || fail "null_blk"
echo $((32 << 20)) > $VM/dirty_bytes
echo $((8 << 20)) > $VM/dirty_background_bytes

sched mq-deadline || fail "mq-deadline"
dl=$(mixed) || fail "mq-deadline: $dl"
log "mq-deadline: read/write KiB/s and written/read sectors: $dl"
sched bfq || fail "bfq"
[ "$(cat /sys/block/$DEV/queue/iosched/low_latency)" = 1 ] || fail "low_latency is not 1 by default"
ll=$(mixed) || fail "bfq: $ll"
log "bfq low_latency=1: $ll (want >= 0.6)"
echo 0 > /sys/block/$DEV/queue/iosched/low_latency || fail "cannot write low_latency"
off=$(mixed) || fail "bfq low_latency=0: $off"
log "bfq low_latency=0: $off (the control: want < 0.6)"

cleanup
trap - EXIT
check_dmesg
set -- $ll
awk -v r="$3" 'BEGIN { exit !(r >= 0.6) }' ||
	fail "low_latency=1: the writer got $3 of the reader's sectors"
set -- $off
awk -v r="$3" 'BEGIN { exit !(r < 0.6) }' ||
	fail "control: low_latency=0 also gave the writer $3 of the reader's sectors"
log "async share ok"
