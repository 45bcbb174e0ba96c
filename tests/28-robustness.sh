#!/bin/sh
# where: guest
# timeout: 240
# Robustness on vda while I/O runs: 200 scheduler switches (every second
# one to bfq, the others rotating mq-deadline / none / kyber), ioprio
# changes of the running fio processes (ionice -p, all classes), kill -9
# of a busy fio and a restart, twice, plus one kill -9 of a verify run.
# Meanwhile fio writes 64 MiB at random (4k..64k, iodepth 8) and reads it
# back with crc32c, in a loop.  No verify error, a clean kernel log, and
# bfq unloads at the end.
. "$(dirname "$0")/lib.sh"
S=/sys/block/vda/queue/scheduler
SWITCHES=200
VICTIM= VLOOP=

cleanup() {
	touch /tmp/rb.stop
	[ -z "$VICTIM" ] || kill -9 "$VICTIM" 2>/dev/null
	[ -z "$VLOOP" ] || { for _p in $(pidof fio); do kill -9 "$_p" 2>/dev/null; done; }
	wait 2>/dev/null
	VICTIM= VLOOP=
	set_sched vda mq-deadline >/dev/null 2>&1
	unload_bfq
	! mod_loaded kyber_iosched || rmmod kyber_iosched
}
bad() { cleanup; fail "$*"; }

load_bfq || fail "insmod failed"
modprobe kyber-iosched || fail "modprobe kyber-iosched failed"
for s in bfq mq-deadline none kyber; do
	grep -qw "$s" $S || bad "$s not offered: $(cat $S)"
done
set_sched vda bfq || bad "cannot select bfq"

rm -f /tmp/rb.stop /tmp/rb.runs /tmp/rb-v*.t
# the verify loop: each run writes 64 MiB and checks it
(
	k=0
	while [ ! -f /tmp/rb.stop ]; do
		k=$((k + 1))
		fio --minimal --terse-version=3 --name=verify --filename=/dev/vda \
			--ioengine=libaio --direct=1 --offset=0 --size=64m \
			--rw=randwrite --bsrange=4k-64k --iodepth=8 --verify=crc32c \
			--do_verify=1 --verify_fatal=1 --verify_state_save=0 \
			--randseed=$k > /tmp/rb-v$k.t 2>&1
		echo "$k $?" >> /tmp/rb.runs
	done
) &
VLOOP=$!

start_victim() {
	fio --name=victim --filename=/dev/vda --ioengine=libaio --direct=1 \
		--offset=512m --size=64m --rw=randrw --bs=4k --iodepth=16 \
		--time_based --runtime=600 > /dev/null 2>&1 &
	VICTIM=$!
}
start_victim

t0=$(cut -d. -f1 /proc/uptime)
others="mq-deadline none kyber"
i=0 nprio=0 nkill=0
while [ $i -lt $SWITCHES ]; do
	i=$((i + 1))
	if [ $((i % 2)) -eq 1 ]; then
		s=bfq
	else
		s=$(echo $others | cut -d' ' -f$(( (i / 2) % 3 + 1 )))
	fi
	set_sched vda "$s" || bad "switch $i to $s failed"
	if [ $((i % 7)) -eq 0 ]; then
		c=$(( (i / 7) % 3 + 1 ))
		for p in $(pidof fio); do
			ionice -c $c -n $((i % 8)) -p "$p" 2>/dev/null && nprio=$((nprio + 1))
		done
	fi
	case $i in
	60|130)
		kill -9 "$VICTIM" && wait "$VICTIM" 2>/dev/null
		start_victim
		nkill=$((nkill + 1)) ;;
	100)
		# the verify fio in flight (not the victim)
		for p in $(pidof fio); do
			[ "$p" = "$VICTIM" ] && continue
			kill -9 "$p" 2>/dev/null && nkill=$((nkill + 1))
		done ;;
	esac
	usleep 150000
done
t1=$(cut -d. -f1 /proc/uptime)
log "$SWITCHES switches in $((t1 - t0))s, $nprio ionice -p changes, $nkill kill -9"

# back to normal: bfq, everybody best-effort; let the verify run finish
set_sched vda bfq || bad "final switch to bfq failed"
for p in $(pidof fio); do ionice -c 2 -n 4 -p "$p" 2>/dev/null; done
touch /tmp/rb.stop
kill -9 "$VICTIM" 2>/dev/null; wait "$VICTIM" 2>/dev/null; VICTIM=
n=0
while kill -0 "$VLOOP" 2>/dev/null && [ $n -lt 900 ]; do sleep 0.1; n=$((n + 1)); done
kill -0 "$VLOOP" 2>/dev/null && bad "the last verify run did not finish within 90 s"
wait "$VLOOP"; VLOOP=
t2=$(cut -d. -f1 /proc/uptime)

cat /tmp/rb.runs | tr '\n' ' '; echo "(run rc)"
ok=0 killed=0
while read -r k rc; do
	if [ "$rc" -eq 137 ]; then killed=$((killed + 1)); continue; fi
	[ "$rc" -eq 0 ] || { cut -d';' -f1-9 /tmp/rb-v$k.t; bad "verify run $k: fio exited $rc: $(grep -i verify /tmp/rb-v$k.t | head -n 1)"; }
	[ "$(fio_err /tmp/rb-v$k.t verify)" = 0 ] || bad "verify run $k reported error $(fio_err /tmp/rb-v$k.t verify)"
	[ "$(fio_field /tmp/rb-v$k.t verify 6)" -ge 65536 ] || bad "verify run $k read back only $(fio_field /tmp/rb-v$k.t verify 6) KiB"
	ok=$((ok + 1))
done < /tmp/rb.runs
log "verify runs: $ok complete and clean, $killed killed; finishing took $((t2 - t1))s"
[ $ok -ge 1 ] || bad "no verify run completed"

set_sched vda mq-deadline || bad "cannot switch vda to mq-deadline"
rmmod kyber_iosched || bad "rmmod kyber_iosched failed"
unload_bfq || bad "unload_bfq failed"
mod_loaded bfq_iosched && bad "bfq_iosched still loaded"
check_dmesg
log "robustness ok"
