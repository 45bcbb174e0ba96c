#!/bin/sh
# where: guest
# timeout: 150
# hddsim (tests/hddsim, docs/hddsim.md) at its defaults, scheduler none,
# against what it models:
#  (a) sequential 1 MiB O_DIRECT reads at offset 0 and at the end of the
#      disk: each within 15 % of rate_outer_mbps / rate_inner_mbps, and
#      outer/inner within 15 % of the configured ratio;
#  (b) 4 KiB random reads at QD1 over the whole disk: the device's own
#      rate (1 / its mean service time) 75-150 IOPS (a 7200 rpm drive), and
#      fio's at least 0.8x that (the rest is the guest's own time per
#      request, about 1 ms under TCG); the driver's mean rotational wait
#      within 15 % of half a revolution and its mean seek 6-11 ms;
#  (c) the driver's mean service time (busy_time_us / requests) within
#      10 % of the block layer's (read ticks / reads in /sys/block/.../stat)
#      over that random run;
#  (d) crc32c-verified writes (random 4-64k at QD 8, and sequential) read
#      back right, and never written sectors read as zeros;
#  (e) depth=4 (shortest positioning time first) at QD 8 serves at least
#      1.2x the IOPS of depth=1 at the same QD 8; depth=1 at QD 8 is within
#      15 % of QD1 (FIFO: no reordering with none);
#  (f) buffer_kb=0: the same outer stream at QD1 waits for the platter on
#      every request: at most 0.7x the buffered rate;
#  plus bad parameters refused at load, and a clean unload.
. "$(dirname "$0")/lib.sh"
D=hddsim0
P=/sys/module/hddsim/parameters

[ -f "$HDDSIM_KO" ] || skip "no hddsim.ko in the guest"
trap 'hddsim_unload' EXIT

# --- bad parameters: refused, nothing left loaded
for args in rpm=0 depth=0 depth=33 capacity_mb=0 "rate_outer_mbps=50 rate_inner_mbps=80" \
	"seek_settle_us=2000 seek_full_us=1000"; do
	# shellcheck disable=SC2086
	if insmod "$HDDSIM_KO" $args 2>/dev/null; then
		rmmod hddsim
		fail "insmod hddsim $args was accepted"
	fi
	! mod_loaded hddsim || fail "hddsim loaded after a refused insmod $args"
done
log "bad parameters refused"

hddsim_load || fail "cannot load hddsim"
set_sched $D none || fail "cannot select none"
[ "$(cat /sys/block/$D/queue/rotational)" = 1 ] || fail "$D is not rotational"
cap=$(blockdev --getsize64 /dev/$D) || fail "blockdev"
[ "$cap" -eq $(($(cat $P/capacity_mb) * 1048576)) ] || fail "capacity $cap"
rate_o=$(cat $P/rate_outer_mbps) rate_i=$(cat $P/rate_inner_mbps)
log "hddsim: $(grep -E '^zone(0|15) ' /sys/kernel/debug/hddsim/stats | tr '\n' ';')"
log "hddsim: $((cap >> 20)) MiB, $(cat $P/rpm) rpm, $(hddsim_stat cylinders) cylinders, seek $(cat $P/seek_settle_us)-$(cat $P/seek_full_us) us, $rate_o/$rate_i MB/s"

# bad MSG: a figure is off; the test goes on (to log every figure) and
# fails at the end with the first such reason
why=
bad() { log "BAD: $*"; [ -n "$why" ] || why=$*; }
# within A B PCT: is A within PCT % of B?
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { exit !(b > 0 && a >= b * (1 - p / 100) && a <= b * (1 + p / 100)) }'; }
mbps() { awk -v k="$1" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }'; }

# --- (a) sequential rates, outer and inner zone
# seqstat: requests, streamed, rotation and busy time so far
seqstat() { echo "$(hddsim_stat requests) $(hddsim_stat streamed) $(hddsim_stat rotation_time_us) $(hddsim_stat busy_time_us)"; }
q0=$(seqstat)
fio_run --name=outer --filename=/dev/$D --rw=read --bs=1M --direct=1 \
	--ioengine=psync --offset=0 --size=256M --time_based --runtime=4 > /tmp/outer.t ||
	fail "fio outer: $(tail -n 1 /tmp/outer.t)"
fio_run --name=inner --filename=/dev/$D --rw=read --bs=1M --direct=1 \
	--ioengine=psync --offset=$((cap - 128 * 1048576)) --size=128M \
	--time_based --runtime=4 > /tmp/inner.t || fail "fio inner: $(tail -n 1 /tmp/inner.t)"
q1=$(seqstat)
# shellcheck disable=SC2086
set -- $q0 $q1
log "sequential: $(($5 - $1)) requests, $(($6 - $2)) streamed on, rotation $(($7 - $3)) us, busy $(($8 - $4)) us in 8 s"
out=$(mbps "$(fio_read_bw /tmp/outer.t)") in=$(mbps "$(fio_read_bw /tmp/inner.t)")
log "sequential read: outer $out MB/s (model $rate_o), inner $in MB/s (model $rate_i), ratio $(frac "$out" "$in") (model $(frac "$rate_o" "$rate_i"))"
within "$out" "$rate_o" 15 || bad "outer zone reads at $out MB/s, model $rate_o"
within "$in" "$rate_i" 15 || bad "inner zone reads at $in MB/s, model $rate_i"
within "$(frac "$out" "$in")" "$(frac "$rate_o" "$rate_i")" 15 ||
	bad "outer/inner $(frac "$out" "$in"), model $(frac "$rate_o" "$rate_i")"

# --- (b) random 4 KiB reads at QD1, (c) service time, driver vs block layer
snap() { echo "$(hddsim_stat requests) $(hddsim_stat busy_time_us) $(hddsim_stat seeks) $(hddsim_stat seek_time_us) $(hddsim_stat rotation_time_us) $(awk '{ print $1, $4 }' /sys/block/$D/stat) $(hddsim_stat timer_late_us)"; }
s0=$(snap)
fio_run --name=rand --filename=/dev/$D --rw=randread --bs=4k --direct=1 \
	--ioengine=psync --time_based --runtime=6 > /tmp/rand.t || fail "fio rand: $(tail -n 1 /tmp/rand.t)"
s1=$(snap)
iops=$(fio_field /tmp/rand.t rand 8)
clat=$(fio_field /tmp/rand.t rand 16)
nreq='' svc='' seek='' rot='' blk='' late=''
# shellcheck disable=SC2086
set -- $s0 $s1
eval "$(awk -v r0="$1" -v b0="$2" -v k0="$3" -v t0="$4" -v o0="$5" -v n0="$6" -v m0="$7" -v l0="$8" \
	-v r1="$9" -v b1="${10}" -v k1="${11}" -v t1="${12}" -v o1="${13}" -v n1="${14}" -v m1="${15}" -v l1="${16}" 'BEGIN {
	r = r1 - r0; n = n1 - n0; k = k1 - k0; svc = 0; seek = 0; rot = 0; blk = 0; late = 0
	if (r) { svc = (b1 - b0) / r; rot = (o1 - o0) / r; late = (l1 - l0) / r }
	if (k) seek = (t1 - t0) / k
	if (n) blk = (m1 - m0) * 1000 / n
	printf "nreq=%d svc=%.0f seek=%.0f rot=%.0f blk=%.0f late=%.0f\n", r, svc, seek, rot, blk, late }')"
half=$(awk -v p="$(hddsim_stat period_ns)" 'BEGIN { printf "%.0f", p / 2000 }')
log "random 4k QD1: $iops IOPS, $nreq requests; driver: service ${svc} us (seek ${seek} us, rotation ${rot} us, half a turn $half us); block layer ${blk} us per read (timer late by $late us); fio clat ${clat} us"
# The device's own rate (1 / mean service) is what a 7200 rpm drive gives
# at QD1; fio's is lower by the guest's time per request outside the
# device (submission, a late timer, waking fio: about 1 ms under TCG),
# which a real machine does not have: that part may cost at most 20 %.
dev_iops=$(awk -v s="$svc" 'BEGIN { printf "%.1f", s ? 1e6 / s : 0 }')
log "random 4k QD1: the device's own rate $dev_iops IOPS, fio's $iops ($(frac "$iops" "$dev_iops")x)"
awk -v x="$dev_iops" 'BEGIN { exit !(x >= 75 && x <= 150) }' || bad "the device's random QD1 rate is $dev_iops IOPS, outside 75-150"
awk -v a="$iops" -v b="$dev_iops" 'BEGIN { exit !(a >= 0.8 * b) }' || bad "fio's random QD1 rate $iops IOPS is under 0.8x the device's $dev_iops"
within "$rot" "$half" 15 || bad "mean rotational wait $rot us, half a turn is $half us"
awk -v x="$seek" 'BEGIN { exit !(x >= 6000 && x <= 11000) }' || bad "mean seek $seek us, outside 6-11 ms"
within "$svc" "$blk" 10 || bad "driver's mean service $svc us, block layer's $blk us"

# --- (d) data: never written reads zeros, verified writes
nz=$(dd if=/dev/$D bs=4096 count=16 skip=300000 iflag=direct 2>/dev/null | tr -d '\000' | wc -c)
[ "$nz" -eq 0 ] || fail "never written sectors read $nz non-zero bytes"
fio_run --name=vrand --filename=/dev/$D --offset=1G --size=16M --rw=randwrite \
	--bsrange=4k-64k --ioengine=libaio --iodepth=8 --direct=1 --verify=crc32c \
	--do_verify=1 --verify_fatal=1 --verify_state_save=0 > /tmp/vrand.t ||
	fail "random verify: $(grep -v '^3;' /tmp/vrand.t | head -n 2 | tr '\n' ' ')"
fio_run --name=vseq --filename=/dev/$D --offset=3G --size=64M --rw=write \
	--bs=128k --ioengine=psync --direct=1 --verify=crc32c \
	--do_verify=1 --verify_fatal=1 --verify_state_save=0 > /tmp/vseq.t ||
	fail "sequential verify: $(grep -v '^3;' /tmp/vseq.t | head -n 2 | tr '\n' ' ')"
log "verify: random $(fio_field /tmp/vrand.t vrand 47) KiB written, $(fio_field /tmp/vrand.t vrand 6) KiB read back; sequential $(fio_field /tmp/vseq.t vseq 47) KiB, $(fio_field /tmp/vseq.t vseq 6) KiB; all crc32c ok"

# --- (e) depth: FIFO at depth 1, shortest positioning time first at 4
qd8() {
	fio_run --name=qd8 --filename=/dev/$D --rw=randread --bs=4k --direct=1 \
		--ioengine=libaio --iodepth=8 --time_based --runtime=4 > /tmp/qd8.t ||
		fail "fio qd8: $(tail -n 1 /tmp/qd8.t)"
	fio_field /tmp/qd8.t qd8 8
}
d1=$(qd8)
hddsim_load depth=4 || fail "cannot load hddsim depth=4"
set_sched $D none || fail "cannot select none"
d4=$(qd8)
log "random 4k QD8: depth=1 $d1 IOPS ($(frac "$d1" "$iops")x QD1), depth=4 $d4 IOPS ($(frac "$d4" "$d1")x depth=1)"
within "$d1" "$iops" 15 || bad "depth=1 at QD8 gives $d1 IOPS, QD1 $iops"
awk -v a="$d4" -v b="$d1" 'BEGIN { exit !(a >= 1.2 * b) }' || bad "depth=4 gives $d4 IOPS, under 1.2x depth=1's $d1"

# --- (f) no buffer: a stream read at QD1 waits for the platter each time
hddsim_load buffer_kb=0 || fail "cannot load hddsim buffer_kb=0"
set_sched $D none || fail "cannot select none"
q0=$(seqstat)
fio_run --name=nobuf --filename=/dev/$D --rw=read --bs=1M --direct=1 \
	--ioengine=psync --offset=0 --size=256M --time_based --runtime=3 > /tmp/nobuf.t ||
	fail "fio nobuf: $(tail -n 1 /tmp/nobuf.t)"
q1=$(seqstat)
# shellcheck disable=SC2086
set -- $q0 $q1
nb=$(mbps "$(fio_read_bw /tmp/nobuf.t)")
log "buffer_kb=0: outer $nb MB/s ($(frac "$nb" "$out")x buffered), $(($5 - $1)) requests, $(($6 - $2)) streamed on, rotation $((($7 - $3) / ($5 - $1 + 1))) us per request"
awk -v a="$nb" -v b="$out" 'BEGIN { exit !(a <= 0.7 * b) }' || bad "buffer_kb=0 reads at $nb MB/s, over 0.7x the buffered $out"

trap - EXIT
hddsim_unload || fail "rmmod hddsim failed"
check_dmesg
[ -z "$why" ] || fail "$why"
log "hddsim calibration ok"
