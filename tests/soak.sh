#!/bin/sh
# where: guest
# timeout: 1200
# Not an NN- test: "make soak" runs it alone (not in make check or CI).
# About 10 minutes (bfqsoak=SECONDS on the kernel command line, i.e.
# "make soak SOAK=120") of everything the stress tests do, at once:
#  - nbsa (2 queues, memory-backed): crc32c verify runs in a loop while
#    its scheduler is switched at random between bfq, mq-deadline, none
#    and kyber;
#  - nbsb (2 queues, depth 4, 32 KiB max_sectors, memory-backed, a bad
#    range): a crc32c verifier, short-lived dd processes exiting or
#    SIGKILLed with I/O queued, ionice -p on live ones, dd reads of the
#    bad range that must fail, cgroups made, weighted, given a dd and
#    removed; its tunables change at random (extremes included);
#  - every ~40 s a null_blk device gets bfq and I/O and is powered off
#    and removed under it; every ~80 s a scsi_debug disk is deleted under
#    fio and rescanned; every ~90 s bfq is unloaded and loaded again.
# Fails on a verify error, a bad-range read that succeeds, a device
# without progress for 10 s, a verify run over 90 s, no completed verify
# run on nbsa at all, leftovers that do not exit, a dirty kernel log, or
# bfq not unloading at the end.
. "$(dirname "$0")/lib.sh"
SOAK=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^bfqsoak=//p' | tail -n 1)
SOAK=${SOAK:-600}
A=nbsa B=nbsb
BAD=262144	# sectors BAD..BAD+511 of nbsb fail (see 44-fault-stress)
ST=/tmp/soak.stop
BGS=

cleanup() {
	touch $ST
	for p in $BGS $(pidof fio) $(pidof dd); do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	for i in $(seq 0 999); do [ -d $CGROOT/soak/c$i ] && cg_kill_rm soak/c$i; done
	cg_kill_rm soak/park soak
	for d in "$NULLB_CFS"/*/; do [ -d "$d" ] && nullb_cfs_remove "$(basename "$d")"; done
	unload_bfq
	sdebug_unload
	! mod_loaded kyber_iosched || rmmod kyber_iosched
}
bad() { cleanup; fail "$*"; }

load_bfq || fail "insmod failed"
modprobe kyber-iosched || fail "modprobe kyber-iosched failed"
nullb_cfs_create $A memory_backed=1 size=256 submit_queues=2 hw_queue_depth=16 \
	irqmode=2 completion_nsec=100000 || bad "no $A"
nullb_cfs_create $B memory_backed=1 size=256 submit_queues=2 hw_queue_depth=4 \
	irqmode=2 completion_nsec=200000 max_sectors=64 || bad "no $B"
echo "+$BAD-$((BAD + 511))" > $NULLB_CFS/$B/badblocks || bad "badblocks"
set_sched $A bfq && set_sched $B bfq || bad "cannot select bfq"
cg_make soak && echo +io > $CGROOT/soak/cgroup.subtree_control && cg_make soak/park ||
	bad "cgroup soak"
rm -f $ST /tmp/soak-*

# verify loop on A: each run 2 x 32 MiB, one job per CPU
(
	k=0
	while [ ! -f $ST ]; do
		k=$((k + 1)); t=$(now)
		fio --minimal --terse-version=3 --name=verify --thread --filename=/dev/$A \
			--ioengine=libaio --direct=1 --numjobs=2 --offset=0 \
			--offset_increment=64m --size=32m --cpus_allowed=0,1 \
			--cpus_allowed_policy=split --rw=randwrite --bsrange=4k-64k \
			--iodepth=8 --verify=crc32c --do_verify=1 --verify_fatal=1 \
			--verify_state_save=0 --randseed=$k > /tmp/soak-a$k.t 2>&1
		echo "$k $? $(( $(now) - t ))" >> /tmp/soak-a.runs
	done
) &
BGS="$BGS $!"
# verifier on B (first 32 MiB), moved between cgroups by the churn loop
verifier $B 0 32m 4 /tmp/soak-b.t 100000 &
VB=$!
# short-lived processes on B, 6 at a time, a third SIGKILLed
(
	slots="- - - - - -" n=0 nk=0
	while [ ! -f $ST ]; do
		new=
		for p in $slots; do
			if [ "$p" != - ] && kill -0 "$p" 2>/dev/null; then new="$new $p"; continue; fi
			[ "$p" = - ] || wait "$p" 2>/dev/null
			off=$((64 + RANDOM % 56)) boff=$((160 + RANDOM % 90))
			case $((RANDOM % 4)) in
			0) dd if=/dev/$B of=/dev/null bs=256k count=2 iflag=direct skip=$((off * 4)) 2>/dev/null & ;;
			1) dd if=/dev/zero of=/dev/$B bs=128k count=2 oflag=direct seek=$((off * 8)) 2>/dev/null & ;;
			2) dd if=/dev/zero of=/dev/$B bs=64k count=8 seek=$((boff * 16)) 2>/dev/null & ;;
			3) ionice -c $((1 + RANDOM % 3)) -n $((RANDOM % 8)) dd if=/dev/$B of=/dev/null \
				bs=256k count=2 iflag=direct skip=$((off * 4)) 2>/dev/null & ;;
			esac
			p=$! n=$((n + 1))
			if [ $((RANDOM % 3)) = 0 ]; then usleep $((RANDOM % 20000)); kill -9 $p 2>/dev/null && nk=$((nk + 1)); fi
			new="$new $p"
		done
		slots=$new
		set -- $slots
		shift $((RANDOM % $#))
		ionice -c $((1 + RANDOM % 3)) -n $((RANDOM % 8)) -p "$1" 2>/dev/null
		# now and then a read of the bad range, which must fail
		if [ $((n % 50)) = 0 ]; then
			if dd if=/dev/$B of=/dev/null bs=4k count=1 skip=$((BAD / 8 + RANDOM % 64)) iflag=direct 2>/dev/null; then
				echo "bad-range read succeeded" >> /tmp/soak-errors
			fi
		fi
		echo "$n $nk" > /tmp/soak-spawn
	done
	wait
) &
BGS="$BGS $!"
# cgroup churn on B: make, weigh, run a dd inside, sometimes move the
# verifier in and out, remove
(
	i=0
	while [ ! -f $ST ]; do
		G=soak/c$((i % 1000))
		mkdir $CGROOT/$G 2>/dev/null || { sleep 0.2; i=$((i + 1)); continue; }
		echo $((1 + RANDOM % 1000)) > $CGROOT/$G/io.bfq.weight 2>/dev/null
		sh -c 'echo $$ > "$0/cgroup.procs" && exec dd if=/dev/'$B' of=/dev/null bs=64k iflag=direct skip='$((1024 + RANDOM % 900))' count=64' \
			$CGROOT/$G 2>/dev/null &
		dp=$!
		[ $((i % 4)) != 0 ] || echo $VB > $CGROOT/$G/cgroup.procs 2>/dev/null
		usleep $((100000 + RANDOM % 300000))
		# back to a leaf (soak itself may hold no process: it has +io)
		echo $VB > $CGROOT/soak/park/cgroup.procs || echo "cannot move the verifier out of $G" >> /tmp/soak-errors
		[ $((i % 2)) = 0 ] && kill -9 $dp 2>/dev/null
		wait $dp 2>/dev/null
		n=0
		while ! rmdir $CGROOT/$G 2>/dev/null && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
		[ -d $CGROOT/$G ] && echo "cgroup $G could not be removed" >> /tmp/soak-errors
		i=$((i + 1))
		echo $i > /tmp/soak-cg
	done
) &
BGS="$BGS $!"

TUN='max_budget 0 1 8 1048576 4096
max_budget_async_rq 1 1024 4
timeout_sync 1 2 10000 125
timeout_async 1 2 10000 40
slice_idle 0 1 8 20
slice_idle_us 0 1 500 8000
fifo_expire_sync 1 2 60000 125
fifo_expire_async 1 2 60000 250
back_seek_max 0 1048576 16384
back_seek_penalty 1 1000 2
low_latency 0 1 1'
NAMES=$(echo "$TUN" | cut -d' ' -f1 | tr '\n' ' ')
tune_b() {
	set -- $NAMES; shift $((RANDOM % $#)); name=$1
	set -- $(echo "$TUN" | sed -n "s/^$name //p"); shift $((RANDOM % $#))
	[ "$(get_sched $B)" = bfq ] || return 0
	echo "$1" > /sys/block/$B/queue/iosched/$name || bad "$name=$1 rejected"
}

nsw=0 ntune=0 nhot=0 nsd=0 nreload=0 sd=
PA= PB= TA= TB=
prog2() {	# progress on A and B
	PROG_N=$PA PROG_T=$TA; progress $A "soak, scheduler $(get_sched $A)"; PA=$PROG_N TA=$PROG_T
	PROG_N=$PB PROG_T=$TB; progress $B "soak"; PB=$PROG_N TB=$PROG_T
}
hot_nullb() {
	d=nbsh$nhot
	nullb_cfs_create $d size=64 memory_backed=$((RANDOM % 2)) submit_queues=$((1 + RANDOM % 2)) \
		hw_queue_depth=$((1 + RANDOM % 16)) irqmode=2 completion_nsec=100000 || bad "cannot create $d"
	set_sched $d bfq || bad "cannot select bfq on $d"
	fio --name=hot --thread --filename=/dev/$d --rw=randrw --bs=4k --ioengine=libaio \
		--iodepth=16 --direct=1 --time_based --runtime=60 > /dev/null 2>&1 &
	fp=$!
	usleep $((200000 + RANDOM % 600000))
	nullb_cfs_remove $d || bad "cannot remove $d under I/O"
	n=0
	while kill -0 $fp 2>/dev/null; do
		[ $n -lt $((200 * TMUL)) ] || bad "fio on removed $d still running after 20 s"
		sleep 0.1; n=$((n + 1))
	done
	wait $fp 2>/dev/null
	nhot=$((nhot + 1))
}
hot_scsi() {
	if [ -z "$sd" ]; then
		sd=$(sdebug_load 'dev_size_mb=32') || bad "scsi_debug did not load"
		host=$(ls -d /sys/bus/pseudo/drivers/scsi_debug/adapter*/host* | head -n 1); host=${host##*/}
	fi
	set_sched "$sd" bfq || bad "cannot select bfq on $sd"
	fio --name=hot --thread --filename=/dev/$sd --rw=randrw --bs=4k --ioengine=libaio \
		--iodepth=16 --direct=1 --time_based --runtime=60 > /dev/null 2>&1 &
	fp=$!
	usleep $((500000 + RANDOM % 1000000))
	echo 1 > /sys/block/$sd/device/delete || bad "delete of $sd refused"
	n=0
	while kill -0 $fp 2>/dev/null; do
		[ $n -lt $((200 * TMUL)) ] || bad "fio on deleted $sd still running after 20 s"
		sleep 0.1; n=$((n + 1))
	done
	wait $fp 2>/dev/null
	echo '- - -' > /sys/class/scsi_host/$host/scan
	n=0 sd=
	while [ -z "$sd" ] && [ $n -lt 100 ]; do
		for b in /sys/bus/pseudo/drivers/scsi_debug/adapter*/$host/target*/*/block/*; do [ -e "$b" ] && sd=${b##*/}; done
		sleep 0.1; n=$((n + 1))
	done
	[ -n "$sd" ] && wait_dev "$sd" || bad "no scsi_debug disk after the rescan"
	nsd=$((nsd + 1))
}

t0=$(now)
set_now; tend=$((NOW + SOAK)) thot=$((NOW + 40)) tsd=$((NOW + 80)) trel=$((NOW + 90)) tlog=$((NOW + 60))
last=bfq
while [ "$NOW" -lt "$tend" ]; do
	if [ $((RANDOM % 2)) = 0 ]; then
		s=$last
		while [ "$s" = "$last" ]; do
			case $((RANDOM % 4)) in 0) s=bfq ;; 1) s=mq-deadline ;; 2) s=none ;; 3) s=kyber ;; esac
		done
		set_sched $A "$s" || bad "switch $nsw of $A to $s failed"
		last=$s nsw=$((nsw + 1))
	else
		tune_b; ntune=$((ntune + 1))
	fi
	usleep $((50000 + RANDOM % 150001))
	prog2
	[ ! -s /tmp/soak-errors ] || bad "$(head -n 1 /tmp/soak-errors)"
	kill -0 $VB 2>/dev/null || bad "the verifier on $B ended: $(grep -v '^3;' /tmp/soak-b.t | tail -n 2 | tr '\n' ' ')"
	set_now
	if [ $NOW -ge $thot ]; then hot_nullb; set_now; thot=$((NOW + 40)); fi
	if [ $NOW -ge $tsd ]; then hot_scsi; set_now; tsd=$((NOW + 80)); fi
	if [ $NOW -ge $trel ]; then
		sched_away bfq
		unload_bfq || bad "rmmod bfq_iosched during the soak failed"
		load_bfq || bad "insmod bfq_iosched during the soak failed"
		set_sched $B bfq && set_sched $A bfq || bad "cannot select bfq after the reload"
		last=bfq nreload=$((nreload + 1))
		set_now; trel=$((NOW + 90))
	fi
	if [ $NOW -ge $tlog ]; then
		log "$((NOW - t0)) s: $nsw switches, $ntune tunables, $nhot null_blk and $nsd scsi_debug removals, $nreload reloads, spawned/killed $(cat /tmp/soak-spawn 2>/dev/null), $(cat /tmp/soak-cg 2>/dev/null) cgroups, $(wc -l < /tmp/soak-a.runs 2>/dev/null) verify runs on $A"
		tlog=$((NOW + 60))
	fi
done
t1=$(now)

# wind down: bfq everywhere, default tunables, let the last runs finish
set_sched $A bfq || bad "final switch to bfq failed"
echo "$TUN" | while read -r name _; do
	case $name in
	max_budget) v=0 ;; max_budget_async_rq) v=4 ;; timeout_sync) v=125 ;; timeout_async) v=40 ;;
	slice_idle) v=8 ;; slice_idle_us) v=8000 ;; fifo_expire_sync) v=125 ;; fifo_expire_async) v=250 ;;
	back_seek_max) v=16384 ;; back_seek_penalty) v=2 ;; low_latency) v=1 ;;
	esac
	iosched $B $name $v
done
touch $ST
n=0
for p in $BGS; do
	while kill -0 $p 2>/dev/null; do
		[ $n -lt $((900 * TMUL)) ] || bad "background loop $p did not finish within 90 s"
		prog2; sleep 0.1; n=$((n + 1))
	done
	wait $p
done
BGS=
kill -TERM $VB; wait $VB
[ ! -s /tmp/soak-errors ] || bad "$(head -n 1 /tmp/soak-errors)"
why=$(fio_all_ok /tmp/soak-b.t 1) || bad "verifier on $B: $why $(grep -v '^3;' /tmp/soak-b.t | tail -n 2 | tr '\n' ' ')"
ok=$(verify_runs /tmp/soak-a.runs /tmp/soak-a 32768 $((90 * TMUL))) || bad "on $A: $ok"
# a loop whose fio never finished leaves no run to check: that is no pass
[ "$ok" -ge 1 ] || bad "no verify run on $A completed in $((t1 - t0)) s"
log "soak: $((t1 - t0)) s, $nsw switches, $ntune tunable writes, $nhot null_blk and $nsd scsi_debug removals under I/O, $nreload reloads, spawned/killed $(cat /tmp/soak-spawn), $(cat /tmp/soak-cg) cgroups; $ok verify runs on $A clean, verifier on $B clean"

cg_kill_rm soak/park soak
[ -z "$sd" ] || set_sched "$sd" mq-deadline
sdebug_unload || bad "rmmod scsi_debug failed"
nullb_cfs_remove $A && nullb_cfs_remove $B || bad "cannot remove $A/$B"
rmmod kyber_iosched || bad "rmmod kyber_iosched failed"
unload_bfq || bad "unload_bfq failed"
mod_loaded bfq_iosched && bad "bfq_iosched still loaded"
check_dmesg
log "soak ok"
