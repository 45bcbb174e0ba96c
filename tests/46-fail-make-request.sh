#!/bin/sh
# where: guest
# timeout: 120
# Bios failed by fail_make_request (part of the fault tests of
# 44-fault-stress): with 20 % of the submissions to a bfq device failed,
# fio stops with EIO instead of hanging, the device reads fine once
# make-it-fail is cleared, and bfq unloads.  Needs CONFIG_FAIL_MAKE_REQUEST
# with debugfs (the check-debug kernel has it, Debian's does not: there it
# is reported as a skip).
. "$(dirname "$0")/lib.sh"
DEV=nbfm
FMR=/sys/kernel/debug/fail_make_request

cleanup() {
	[ ! -e /sys/block/$DEV/make-it-fail ] || echo 0 > /sys/block/$DEV/make-it-fail
	for p in $(pidof fio) $(pidof dd); do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	nullb_cfs_remove $DEV
	unload_bfq
	nullb_unload
}
bad() { cleanup; fail "$*"; }

[ -d $FMR ] || skip "no $FMR (CONFIG_FAIL_MAKE_REQUEST unset)"
load_bfq || fail "insmod failed"
nullb_cfs_create $DEV memory_backed=1 size=128 submit_queues=2 \
	hw_queue_depth=8 irqmode=2 completion_nsec=100000 || bad "no null_blk"
[ -e /sys/block/$DEV/make-it-fail ] || bad "$FMR exists but /sys/block/$DEV/make-it-fail does not"
set_sched $DEV bfq || bad "cannot select bfq"
# verbose=0 first: the default prints a stack trace per failure
echo 0 > $FMR/verbose && echo 20 > $FMR/probability && echo 1 > $FMR/interval &&
	echo -1 > $FMR/times || bad "cannot set up fail_make_request"
echo 1 > /sys/block/$DEV/make-it-fail || bad "make-it-fail refused"
fio --minimal --terse-version=3 --name=fmr --thread --filename=/dev/$DEV \
	--size=16m --rw=randrw --bs=4k --ioengine=libaio --iodepth=8 \
	--direct=1 --loops=100 > /tmp/fmr.t 2>&1 &
fp=$!
n=0
while kill -0 $fp 2>/dev/null; do
	[ $n -lt $((600 * TMUL)) ] || bad "fio under fail_make_request still running after 60 s"
	sleep 0.1; n=$((n + 1))
done
wait $fp
echo 0 > /sys/block/$DEV/make-it-fail
e=$(fio_err /tmp/fmr.t)
[ "$e" = 5 ] || bad "fail_make_request: fio error '$e', want 5 (EIO)"
dd if=/dev/$DEV of=/dev/null bs=1M count=16 iflag=direct 2>/dev/null || bad "$DEV fails after make-it-fail=0"
nullb_cfs_remove $DEV || bad "cannot remove $DEV"
unload_bfq || bad "unload_bfq failed"
mod_loaded bfq_iosched && bad "bfq_iosched still loaded"
nullb_unload
check_dmesg
log "fail_make_request (20 %): fio stopped with EIO, device fine afterwards"
