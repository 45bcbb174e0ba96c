#!/bin/sh
# where: guest
# timeout: 300
# Data integrity through bfq: 64 MiB of random writes (4k..64k, iodepth 8,
# libaio, O_DIRECT) read back and checked with crc32c, while a second job
# keeps random reads going on another region of vda.
. "$(dirname "$0")/lib.sh"

load_bfq || fail "insmod failed"
set_sched vda bfq || fail "cannot select bfq on vda"

fio_run --ioengine=libaio --direct=1 --filename=/dev/vda --verify_state_save=0 \
	--name=verify --offset=0 --size=64m --rw=randwrite --bsrange=4k-64k \
	--iodepth=8 --verify=crc32c --do_verify=1 --verify_fatal=1 \
	--name=reader --offset=256m --size=64m --rw=randread --bs=16k \
	--iodepth=4 --time_based --runtime=20 > /tmp/verify.t
rc=$?
cat /tmp/verify.t | cut -d';' -f1-9
[ -s /tmp/verify.t ] || fail "fio printed no result (rc $rc)"
[ "$(fio_err /tmp/verify.t verify)" = 0 ] || fail "verify job error $(fio_err /tmp/verify.t verify)"
[ "$(fio_err /tmp/verify.t reader)" = 0 ] || fail "reader job error $(fio_err /tmp/verify.t reader)"
[ $rc -eq 0 ] || fail "fio exited $rc"
log "written $(fio_field /tmp/verify.t verify 47) KiB, verified $(fio_field /tmp/verify.t verify 6) KiB"
[ "$(fio_field /tmp/verify.t verify 6)" -ge 65536 ] || fail "less than 64 MiB was read back for verification"

unload_bfq || fail "rmmod after the verify run failed"
check_dmesg
log "verify ok"
