# shellcheck shell=sh
# Helpers for tests/NN-*.sh.  Source with:  . "$(dirname "$0")/lib.sh"
# Guest helpers run under busybox sh inside QEMU; fail/skip/log also work on
# the host.  Exit codes: 0 pass, 77 skip, anything else fail.  On failure
# the last line printed is the reason shown by "make check".

BFQ_KO=/lib/bfq/bfq-iosched.ko			# ours, module name bfq_iosched
DISTRO_BFQ_KO=/lib/modules-extra/distro-bfq.ko	# Debian's, module name bfq
TRACEFS=/sys/kernel/tracing
SPLAT_RE='Oops|BUG:|WARNING:|general protection|Call Trace'

log()  { echo "$*"; }
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

# mod_loaded NAME: is module NAME (underscores, as in lsmod) loaded?
mod_loaded() { grep -q "^$1 " /proc/modules; }

# get_sched DEV: print the active scheduler of /dev/DEV ("none", "bfq", ...)
get_sched() { sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$1/queue/scheduler"; }

# set_sched DEV NAME: select scheduler NAME for DEV and check it is active.
set_sched() {
	_f=/sys/block/$1/queue/scheduler
	[ -e "$_f" ] || { echo "set_sched: no $_f"; return 1; }
	echo "$2" > "$_f" 2>/dev/null ||
		{ echo "set_sched: cannot select $2 on $1 ($(cat "$_f"))"; return 1; }
	[ "$(get_sched "$1")" = "$2" ] ||
		{ echo "set_sched: $1 shows '$(cat "$_f")' after selecting $2"; return 1; }
}

# sched_away NAME: move every device using scheduler NAME to mq-deadline
# (or none if that is not offered).
sched_away() {
	for _f in /sys/block/*/queue/scheduler; do
		grep -q "\[$1\]" "$_f" || continue
		if grep -q mq-deadline "$_f"; then echo mq-deadline > "$_f"; else echo none > "$_f"; fi
	done
}

# load_bfq [PARAM=VALUE...]: insmod our module (no-op if already loaded).
# Refuses while the distro bfq is loaded: both register elevator "bfq".
load_bfq() {
	mod_loaded bfq && { echo "load_bfq: distro bfq is loaded, refusing"; return 1; }
	mod_loaded bfq_iosched && return 0
	insmod "$BFQ_KO" "$@"
}

# unload_bfq: switch devices away from bfq, then rmmod our module.  Each
# cgroup's group holds the module until the blkcg core frees it, an RCU
# grace period and a work item after rmdir: wait for that (10 s at most).
unload_bfq() {
	mod_loaded bfq_iosched || return 0
	sched_away bfq
	mod_wait_unused bfq_iosched 10
	rmmod bfq_iosched
}

# mod_wait_unused NAME SECONDS: wait until module NAME has no users.
mod_wait_unused() {
	_n=$(($2 * 10))
	while [ "$(cat "/sys/module/$1/refcnt" 2>/dev/null || echo 0)" != 0 ] &&
	      [ "$_n" -gt 0 ]; do
		sleep 0.1; _n=$((_n - 1))
	done
}

# load_distro_bfq / unload_distro_bfq: the same for Debian's bfq.ko.
load_distro_bfq() {
	mod_loaded bfq_iosched && { echo "load_distro_bfq: our bfq_iosched is loaded, refusing"; return 1; }
	mod_loaded bfq && return 0
	insmod "$DISTRO_BFQ_KO" "$@"
}
unload_distro_bfq() {
	mod_loaded bfq || return 0
	sched_away bfq
	rmmod bfq
}

# wait_dev NAME [SECONDS]: wait for /dev/NAME to appear (default 10 s).
wait_dev() {
	_n=$(( ${2:-10} * 10 ))
	while [ ! -b "/dev/$1" ] && [ "$_n" -gt 0 ]; do sleep 0.1; _n=$((_n - 1)); done
	[ -b "/dev/$1" ] || { echo "wait_dev: /dev/$1 did not appear"; return 1; }
}

# nullb_load 'PARAMS': (re)load null_blk with module parameters, e.g.
#   nullb_load 'queue_mode=2 irqmode=2 completion_nsec=2000000 hw_queue_depth=1 submit_queues=1'
# and wait for /dev/nullb0.  nullb_create is the same thing.
nullb_load() {
	mod_loaded null_blk && { nullb_unload || return 1; }
	# shellcheck disable=SC2086 # word splitting of PARAMS is wanted
	modprobe null_blk $* || { echo "nullb_load: modprobe null_blk $* failed"; return 1; }
	wait_dev nullb0 5
}
nullb_create() { nullb_load "$@"; }
# nullb_unload: power off and remove configfs devices (they pin the
# module), then rmmod null_blk.
nullb_unload() {
	mod_loaded null_blk || return 0
	for _d in "$NULLB_CFS"/*/; do
		[ -d "$_d" ] && nullb_cfs_remove "$(basename "$_d")"
	done
	rmmod null_blk
}

# nullb_cfs_create NAME [ATTR=VALUE...]: a null_blk device /dev/NAME made
# through configfs (the only way to get memory_backed, badblocks, mbps,
# ... per device), e.g.
#   nullb_cfs_create nbv memory_backed=1 size=256 submit_queues=2
# Loads null_blk with nr_devices=0 if it is not loaded, mounts configfs if
# needed.  ATTRs are written in order, then power=1.
NULLB_CFS=/sys/kernel/config/nullb
nullb_cfs_create() {
	_nm=$1; shift
	mod_loaded null_blk || modprobe null_blk nr_devices=0 ||
		{ echo "nullb_cfs_create: modprobe null_blk failed"; return 1; }
	grep -q ' /sys/kernel/config ' /proc/mounts ||
		mount -t configfs configfs /sys/kernel/config ||
		{ echo "nullb_cfs_create: cannot mount configfs"; return 1; }
	[ -d "$NULLB_CFS" ] || { echo "nullb_cfs_create: no $NULLB_CFS"; return 1; }
	mkdir "$NULLB_CFS/$_nm" || { echo "nullb_cfs_create: mkdir $_nm failed"; return 1; }
	for _a in "$@"; do
		echo "${_a#*=}" > "$NULLB_CFS/$_nm/${_a%%=*}" ||
			{ echo "nullb_cfs_create: $_nm: cannot set $_a"; rmdir "$NULLB_CFS/$_nm"; return 1; }
	done
	echo 1 > "$NULLB_CFS/$_nm/power" ||
		{ echo "nullb_cfs_create: $_nm: power=1 failed"; rmdir "$NULLB_CFS/$_nm"; return 1; }
	wait_dev "$_nm" 5
}
# nullb_cfs_remove NAME: power=0 (deletes the disk), then rmdir.
nullb_cfs_remove() {
	[ -d "$NULLB_CFS/$1" ] || return 0
	[ "$(cat "$NULLB_CFS/$1/power")" = 0 ] || echo 0 > "$NULLB_CFS/$1/power" || return 1
	rmdir "$NULLB_CFS/$1"
}

# sdebug_load 'PARAMS': load scsi_debug (+ sd_mod) and print its disk name.
sdebug_load() {
	modprobe crct10dif_generic 2>/dev/null
	# shellcheck disable=SC2086
	modprobe scsi_debug $* && modprobe sd_mod || return 1
	_n=50
	while [ "$_n" -gt 0 ]; do
		for _d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
			[ -e "$_d" ] && { wait_dev "${_d##*/}" >/dev/null && echo "${_d##*/}"; return 0; }
		done
		sleep 0.1; _n=$((_n - 1))
	done
	echo "sdebug_load: no scsi_debug disk appeared" >&2; return 1
}
# sdebug_two_parts: a slow scsi_debug disk (2 ms per command, one at a
# time, 64 KiB requests) with two 100 MB partitions, ${D}1 at sector 2048
# and ${D}2 at 204800 (MBR, type 83); prints the disk name (tests 33, 39).
sdebug_two_parts() {
	_d=$(sdebug_load 'dev_size_mb=256 max_queue=1 ndelay=2000000') || { echo "scsi_debug"; return 1; }
	echo 64 > /sys/block/$_d/queue/max_sectors_kb || { echo "max_sectors_kb"; return 1; }
	printf '\0\0\0\0\203\0\0\0\0\10\0\0\100\15\3\0\0\0\0\0\203\0\0\0\0\40\3\0\100\15\3\0' |
		dd of=/dev/$_d bs=1 seek=446 conv=notrunc 2>/dev/null &&
		printf '\125\252' | dd of=/dev/$_d bs=1 seek=510 conv=notrunc 2>/dev/null ||
		{ echo "cannot write the MBR"; return 1; }
	sync; blockdev --rereadpt /dev/$_d || { echo "BLKRRPART on $_d"; return 1; }
	wait_dev ${_d}1 > /dev/null && wait_dev ${_d}2 > /dev/null || { echo "no partitions on $_d"; return 1; }
	echo "$_d"
}
sdebug_unload() { ! mod_loaded scsi_debug || rmmod scsi_debug; }

# hddsim_load [PARAM=VALUE...]: (re)load the seek-modelled test disk
# (tests/hddsim, docs/hddsim.md) and wait for /dev/hddsim0; returns 77 if
# the guest has no hddsim.ko.  hddsim_unload: rmmod it.  hddsim_stat KEY:
# a counter of its debugfs stats file (requests, seeks, busy_time_us, ...).
HDDSIM_KO=/lib/bfq/hddsim.ko
hddsim_load() {
	[ -f "$HDDSIM_KO" ] || { echo "hddsim_load: no $HDDSIM_KO"; return 77; }
	hddsim_unload || return 1
	insmod "$HDDSIM_KO" "$@" || { echo "hddsim_load: insmod hddsim $* failed"; return 1; }
	wait_dev hddsim0 5
}
hddsim_unload() { ! mod_loaded hddsim || rmmod hddsim; }
hddsim_stat() { sed -n "s/^$1 //p" /sys/kernel/debug/hddsim/stats; }

# iosched DEV ATTR [VALUE]: read (or write) /sys/block/DEV/queue/iosched/ATTR.
iosched() {
	if [ $# -ge 3 ]; then echo "$3" > "/sys/block/$1/queue/iosched/$2"
	else cat "/sys/block/$1/queue/iosched/$2"; fi
}

# fio_run [-i CLASS:LEVEL] FIO-ARGS...: run fio with terse (--minimal,
# version 3) output on stdout, one ';'-separated line per job; optionally
# under "ionice -c CLASS -n LEVEL".  Fails if fio fails or a job reports a
# non-zero error field.  Typical use:
#   fio_run -i 2:7 --name=lo --filename=/dev/nullb0 --rw=read ... > /tmp/lo.t &
fio_run() {
	_wrap=
	if [ "$1" = -i ]; then _wrap="ionice -c ${2%%:*} -n ${2#*:}"; shift 2; fi
	# shellcheck disable=SC2086
	_out=$($_wrap fio --minimal --terse-version=3 "$@")
	_rc=$?
	printf '%s\n' "$_out"
	[ $_rc -eq 0 ] || { echo "fio_run: fio exited $_rc" >&2; return $_rc; }
	printf '%s\n' "$_out" | awk -F';' '$1 == 3 && $5 != 0 { bad = 1 } END { exit bad }' ||
		{ echo "fio_run: a job reported an error" >&2; return 1; }
}

# fio_field FILE JOB N: field N of JOB's terse line in FILE (JOB "" = first).
# Terse v3 fields (fio HOWTO): 3 jobname, 5 error, 6 read KiB, 7 read bw
# KiB/s, 8 read IOPS, 47 write KiB, 48 write bw KiB/s, 49 write IOPS.
fio_field() {
	awk -F';' -v j="$2" -v n="$3" '$1 == 3 && (j == "" || $3 == j) { print $n; exit }' "$1"
}
fio_read_bw()  { fio_field "$1" "${2:-}" 7; }	# FILE [JOB]: KiB/s
fio_write_bw() { fio_field "$1" "${2:-}" 48; }	# FILE [JOB]: KiB/s
fio_err()      { fio_field "$1" "${2:-}" 5; }	# FILE [JOB]: errno, 0 = ok
# fio_read_p99 FILE [JOB]: read completion latency p99 in us, of a run
# with --percentile_list=50:99 (field 19 is then "99.000000%=N")
fio_read_p99() { fio_field "$1" "${2:-}" 19 | sed 's/.*=//'; }

# check_dmesg: fail if the kernel log shows Oops/BUG/WARNING/... since this
# test started (the guest runner marks each start in /dev/kmsg), or if that
# mark has left the ring buffer: then part of the log is lost unchecked.
check_dmesg() {
	if [ -n "${BFQ_TEST_MARK:-}" ]; then
		_log=$(dmesg | sed -n "/$BFQ_TEST_MARK\$/,\$p")
		[ -n "$_log" ] || fail "kernel log overflowed: '$BFQ_TEST_MARK' gone from the ring buffer"
	else
		_log=$(dmesg)
	fi
	_bad=$(echo "$_log" | grep -E "$SPLAT_RE")
	[ -z "$_bad" ] || fail "kernel log: $(echo "$_bad" | head -n 1)"
}

# trace_on [EVENT...]: clear the trace buffer and enable events/bfq/EVENT
# (all bfq events if none given).  trace_off: disable them again.
# trace_dump: print the trace buffer.
trace_on() {
	[ -d "$TRACEFS/events/bfq" ] || { echo "trace_on: no bfq trace events"; return 1; }
	echo 0 > "$TRACEFS/tracing_on"
	echo > "$TRACEFS/trace"
	if [ $# -eq 0 ]; then
		echo 1 > "$TRACEFS/events/bfq/enable" || return 1
	else
		for _e in "$@"; do
			echo 1 > "$TRACEFS/events/bfq/$_e/enable" ||
				{ echo "trace_on: no event bfq/$_e"; return 1; }
		done
	fi
	echo 1 > "$TRACEFS/tracing_on"
}
trace_off() { [ ! -d "$TRACEFS/events/bfq" ] || echo 0 > "$TRACEFS/events/bfq/enable"; }
trace_dump() { cat "$TRACEFS/trace"; }

# --- cgroup v2 helpers (the guest mounts cgroup2 at /sys/fs/cgroup, +io)
CGROOT=/sys/fs/cgroup
NULLB_SLOW='queue_mode=2 irqmode=2 completion_nsec=2000000 hw_queue_depth=1 submit_queues=1'

# cg_make PATH [WEIGHT]: mkdir $CGROOT/PATH (parents must exist), set the
# io.bfq.weight default if WEIGHT is given.
cg_make() {
	mkdir "$CGROOT/$1" || { echo "cg_make: mkdir $1 failed"; return 1; }
	[ -z "${2:-}" ] || echo "$2" > "$CGROOT/$1/io.bfq.weight" ||
		{ echo "cg_make: cannot set weight $2 on $1"; return 1; }
}

# cg_exec PATH CMD [ARG...]: run CMD inside cgroup PATH; a child sh moves
# itself and execs CMD, so the caller stays put.  (With "cg_exec ... &",
# $! is a subshell's pid, not CMD's.)
cg_exec() {
	_cg=$1; shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CGROOT/$_cg" "$@"
}

# cg_kill_rm PATH...: SIGKILL every process in each cgroup, then rmdir it
# (deepest paths first; give them in that order).  Quiet, best effort.
cg_kill_rm() {
	for _c in "$@"; do
		[ -d "$CGROOT/$_c" ] || continue
		for _p in $(cat "$CGROOT/$_c/cgroup.procs" 2>/dev/null); do kill -9 "$_p" 2>/dev/null; done
		_n=50
		while ! rmdir "$CGROOT/$_c" 2>/dev/null && [ "$_n" -gt 0 ]; do sleep 0.1; _n=$((_n - 1)); done
	done
}

# cg_stat PATH DEV KEY: KEY's value (rbytes, wbytes, bfq.sectors, ...) in
# PATH's io.stat line for /dev/DEV; 0 if there is no line yet.
cg_stat() {
	_d=$(cat "/sys/block/$2/dev")
	awk -v d="$_d" -v k="$3" '$1 == d { for (i = 2; i <= NF; i++) { split($i, a, "="); if (a[1] == k) { print a[2]; f = 1 } } }
		END { if (!f) print 0 }' "$CGROOT/$1/io.stat"
}

# cg_reader CG DEV OFFSET [FIO-ARGS...]: start, in the background and inside
# cgroup CG, a sequential 64k O_DIRECT reader of /dev/DEV from OFFSET that
# runs until cg_readers_stop; terse output goes to /tmp/CG-DEV.t.  Pids
# collect in $CG_PIDS.
CG_PIDS=
cg_reader() {
	_cg=$1 _dev=$2 _off=$3; shift 3
	# not via cg_exec: "func &" would fork a subshell and $! be its pid
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CGROOT/$_cg" \
		fio --minimal --terse-version=3 --name="$_cg" \
		--filename="/dev/$_dev" --rw=read --bs=64k --direct=1 \
		--offset="$_off" --size=50g --time_based --runtime=300 "$@" \
		> "/tmp/$(echo "$_cg" | tr / _)-$_dev.t" 2>&1 &
	CG_PIDS="$CG_PIDS $!"
}

# cg_wait_io DEV KEY CG...: wait (30 s at most) until KEY in every CG's
# io.stat line for DEV has grown since the call, i.e. its I/O is running.
cg_wait_io() {
	_dev=$1 _key=$2; shift 2
	_n=300
	for _c in "$@"; do
		_v0=$(cg_stat "$_c" "$_dev" "$_key")
		while [ "$(cg_stat "$_c" "$_dev" "$_key")" = "$_v0" ]; do
			[ "$_n" -gt 0 ] || { echo "cg_wait_io: no $_key from $_c on $_dev"; return 1; }
			sleep 0.1; _n=$((_n - 1))
		done
	done
}

# cg_snap DEV KEY CG...: KEY of each CG on DEV, space separated.
cg_snap() {
	_dev=$1 _key=$2; shift 2
	_o=
	for _c in "$@"; do _o="$_o $(cg_stat "$_c" "$_dev" "$_key")"; done
	echo $_o
}

# cg_readers_stop: SIGTERM the readers (fio then prints its results) and
# wait for them; a watchdog SIGKILLs what is left after 20 s.
cg_readers_stop() {
	[ -n "$CG_PIDS" ] || return 0
	# shellcheck disable=SC2086
	kill -TERM $CG_PIDS 2>/dev/null
	# the watchdog's output away from ours: a "$(...)" around the caller
	# would wait for its sleep to close the pipe, 20 s every time
	# shellcheck disable=SC2016,SC2086
	sh -c 'sleep 20; kill -9 "$@"' sh $CG_PIDS > /dev/null 2>&1 &
	_wd=$!
	# shellcheck disable=SC2086
	wait $CG_PIDS 2>/dev/null
	kill "$_wd" 2>/dev/null
	CG_PIDS=
}

# tr_events OUT (tests 20-23): the trace buffer's bfq events as "TS EVENT k=v ..." lines.
tr_events() {
	awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^bfq_[a-z]+:$/) {
		ts = $(i - 1); sub(/:$/, "", ts); ev = $i; sub(/^bfq_/, "", ev); sub(/:$/, "", ev)
		s = ts " " ev; for (j = i + 1; j <= NF; j++) s = s " " $j
		print s; break } }' "$TRACEFS/trace" > "$1"
	_lost=$(cat $TRACEFS/per_cpu/cpu*/stats | awk '/^overrun:/ { n += $2 } END { print n + 0 }')
	[ "$_lost" -eq 0 ] || fail "trace buffer overran ($_lost events lost)"
}
# AWKVAL: awk function val(KEY) giving field KEY=... of an event line.
AWKVAL='function val(k,  j) { for (j = 3; j <= NF; j++) if (index($j, k "=") == 1) return substr($j, length(k) + 2); return "" }'

# --- stress tests (40-44, soak)
# verifier DEV OFFSET SIZE IODEPTH OUT [LOOPS]: a crc32c-verified random
# writer of SIZE at OFFSET, LOOPS times (1000), terse output to OUT.  Run
# it with "&": it execs fio, so $! is fio's pid.
verifier() {
	exec fio --minimal --terse-version=3 --name=verify --thread --filename=/dev/$1 \
		--offset=$2 --size=$3 --rw=randwrite --bsrange=4k-64k --ioengine=libaio \
		--iodepth=$4 --direct=1 --verify=crc32c --do_verify=1 --verify_fatal=1 \
		--verify_state_save=0 --loops=${6:-1000} > "$5" 2>&1
}
# fio_all_ok FILE [MIN_READ_KIB]: every job line of terse FILE has error 0
# (and read back at least MIN_READ_KIB); else print the first bad job.
fio_all_ok() {
	awk -F';' -v m="${2:-0}" '$1 == 3 { n++; if ($5 != 0 || $6 < m) {
		print "job " $3 ": error " $5 ", read " $6 " KiB"; bad = 1; exit } }
		END { if (!n) { print "no fio result in " FILENAME; bad = 1 } exit bad }' "$1"
}

# blk_inflight DEV: the most requests the block layer saw in DEV at once,
# from the block_rq_issue/complete events in the trace buffer
blk_inflight() {
	awk -v devt="$(tr : , < /sys/block/$1/dev)" '
		{ for (i = 2; i <= NF; i++) if ($i ~ /^block_rq_(issue|complete):$/) break }
		i > NF || $(i + 1) != devt { next }
		$i == "block_rq_issue:" { if (++n > m) m = n; next }
		n > 0 { n-- }
		END { print m + 0 }' $TRACEFS/trace
}

# verify_runs RUNS PREFIX KIB MAXSECS: check every "k rc secs" line that a
# stress test's verify loop wrote to RUNS: fio exited 0, PREFIXk.t is clean
# with at least KIB read by each job (fio_all_ok), and the run took at most
# MAXSECS (0: unbounded).  Prints the number of runs, or the first problem
# and returns 1.
verify_runs() {
	_n=0
	while read -r _k _rc _secs; do
		_t=$2$_k.t
		[ "$_rc" -eq 0 ] || { echo "verify run $_k: fio exited $_rc: $(grep -v '^3;' "$_t" | head -n 2 | tr '\n' ' ')"; return 1; }
		_why=$(fio_all_ok "$_t" "$3") || { echo "verify run $_k: $_why"; return 1; }
		[ "$4" -eq 0 ] || [ "$_secs" -le "$4" ] || { echo "verify run $_k took $_secs s"; return 1; }
		_n=$((_n + 1))
	done < "$1"
	echo $_n
}
# rnd N: a random number 0..N-1 (busybox ash $RANDOM).  In hot loops use
# $((RANDOM % N)) directly: every $(...) is a fork, slow under TCG.
rnd() { echo $((RANDOM % $1)); }
# now: uptime in whole seconds.  set_now: the same into $NOW, no fork.
now() { cut -d. -f1 /proc/uptime; }
set_now() { read -r NOW _ < /proc/uptime; NOW=${NOW%.*}; }
# io_done DEV: reads + writes completed on DEV so far (progress meter).
# set_io_done DEV: the same into $IO_DONE, no fork.
io_done() { awk '{ print $1 + $5 }' "/sys/block/$1/stat"; }
set_io_done() { read -r _r1 _ _ _ _w1 _ < "/sys/block/$1/stat"; IO_DONE=$((_r1 + _w1)); }
# progress DEV WHAT: call often; fails (via bad, else fail) when DEV has
# completed no I/O for 10 s x TMUL.  Reset with PROG_T= before a new run.
PROG_N= PROG_T=
progress() {
	set_io_done "$1"; set_now
	if [ "$IO_DONE" != "$PROG_N" ] || [ -z "$PROG_T" ]; then PROG_N=$IO_DONE PROG_T=$NOW
	elif [ $((NOW - PROG_T)) -gt $((10 * TMUL)) ]; then
		if command -v bad > /dev/null; then bad "no I/O completed on $1 for $((NOW - PROG_T)) s ($2)"
		else fail "no I/O completed on $1 for $((NOW - PROG_T)) s ($2)"; fi
	fi
}
# sync_bounded DEV SECS: sync in the background; fail if it takes longer
# than SECS x TMUL or DEV stops making progress meanwhile.
sync_bounded() {
	sync & _sp=$!
	_n=0
	while kill -0 $_sp 2>/dev/null; do
		progress "$1" "sync"
		[ $_n -lt $(($2 * TMUL * 10)) ] || { command -v bad > /dev/null && bad "sync took over $2 s"; fail "sync took over $2 s"; }
		sleep 0.1; _n=$((_n + 1))
	done
	wait $_sp
}
# TMUL: the guest's test timeout factor (bfqtmul= of check-debug, else 1);
# stress tests scale their own progress bounds with it.
TMUL=$(tr ' ' '\n' < /proc/cmdline 2>/dev/null | sed -n 's/^bfqtmul=//p' | tail -n 1)
TMUL=${TMUL:-1}
# blk_events 1|0: trace block_rq_issue, _requeue and _complete (or stop).
# Completions are traced first and last, so that no issue in the trace
# lacks its completion.  Use the global trace clock: an issue and its
# completion may be traced on different CPUs.  Turning them on also turns
# tracing on: an earlier test may have left tracing_on at 0.
blk_events() {
	_l="block_rq_complete block_rq_requeue block_rq_issue"
	[ "$1" = 1 ] || _l="block_rq_issue block_rq_requeue block_rq_complete"
	for _e in $_l; do
		echo "$1" > $TRACEFS/events/block/$_e/enable || return 1
	done
	[ "$1" = 0 ] || echo 1 > $TRACEFS/tracing_on
}
# blk_busy_rate DISK: from the traced block events of DISK, the sectors
# completed per ms of time with a command in the device (the block layer's
# view of the device's rate, think time and idling left out)
blk_busy_rate() {
	awk -v devt="$(tr : , < /sys/block/$1/dev)" '
		{ for (i = 2; i <= NF; i++) if ($i ~ /^block_rq_[a-z]+:$/) break }
		i > NF || $(i + 1) != devt { next }
		{ t = $(i - 1); sub(/:$/, "", t) }
		$i == "block_rq_issue:" { if (!n++) since = t }
		$i == "block_rq_requeue:" && n > 0 { if (!--n) busy += t - since }
		$i == "block_rq_complete:" && n > 0 {
			for (j = i + 2; j < NF; j++) if ($j == "+") break
			sect += $(j + 1); if (!--n) busy += t - since }
		END { printf "%.1f", (busy > 0 ? sect / busy / 1000 : 0) }' $TRACEFS/trace
}
# blk_wait_ms FILE DISK MINSECTOR: from the block_rq_insert and
# block_rq_issue events of DISK in trace FILE, the median time from insert
# to issue of the requests at or above MINSECTOR, and that of the first
# one, in ms ("none none" if there is none)
blk_wait_ms() {
	awk -v devt="$(tr : , < /sys/block/$2/dev)" -v min="$3" '
		{ for (i = 2; i <= NF; i++) if ($i ~ /^block_rq_(insert|issue):$/) break }
		i > NF || $(i + 1) != devt { next }
		{ t = $(i - 1); sub(/:$/, "", t)
		  for (j = i + 2; j < NF; j++) if ($(j + 1) == "+") break
		  if ($j + 0 < min) next }
		$i == "block_rq_insert:" { ins[$j] = t; next }
		$j in ins { w[n++] = (t - ins[$j]) * 1000; delete ins[$j] }
		END { if (!n) { print "none none"; exit }
		      f = w[0]
		      for (a = 0; a < n; a++) for (b = a + 1; b < n; b++)
			if (w[b] < w[a]) { x = w[a]; w[a] = w[b]; w[b] = x }
		      printf "%.2f %.2f\n", w[int(n / 2)], f }' "$1"
}
# blk_wait_events 1|0: trace block_rq_insert and block_rq_issue (what
# blk_wait_ms reads), or stop; turning them on also turns tracing on.
blk_wait_events() {
	for _e in block_rq_insert block_rq_issue; do
		echo "$1" > $TRACEFS/events/block/$_e/enable || return 1
	done
	[ "$1" = 0 ] || echo 1 > $TRACEFS/tracing_on
}
# blk_wait_traced TRACE OUT CMD...: run CMD (its output to OUT) with the
# events blk_wait_ms reads traced, and save the trace to TRACE; fails only
# if the events cannot be enabled
blk_wait_traced() {
	_trace=$1 _out=$2
	shift 2
	echo > $TRACEFS/trace
	blk_wait_events 1 || { echo "cannot enable the block events"; return 1; }
	"$@" > "$_out" 2>&1
	blk_wait_events 0
	cat $TRACEFS/trace > "$_trace"
}
# blk_issue_runs DISK SECTORS [READERS]: from the traced block_rq_issue
# events of DISK, the issues per run of one reader, reader k reading
# sectors k * SECTORS to (k + 1) * SECTORS; only the first READERS
# readers count (all if not given)
blk_issue_runs() {
	awk -v devt="$(tr : , < /sys/block/$1/dev)" -v at="$2" -v nr="${3:-0}" '
		{ for (i = 2; i <= NF; i++) if ($i == "block_rq_issue:") break }
		i > NF || $(i + 1) != devt { next }
		{ for (j = i + 2; j < NF; j++) if ($(j + 1) == "+") break
		  r = int($j / at); if (nr && r >= nr) next
		  n++; if (n == 1 || r != prev) runs++; prev = r }
		END { printf "%.1f", runs ? n / runs : 0 }' $TRACEFS/trace
}
# bfq_stat DISK KEY: KEY's value in bfq's debugfs bfq_stats of DISK
bfq_stat() { sed -n "s/^$2=//p" "/sys/kernel/debug/block/$1/sched/bfq_stats"; }
# frac A B: A / B with two decimals, 0 if B is 0
frac() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 0 }'; }
# ratio A B: B / A with two decimals, 0 if A is 0
ratio() { frac "$2" "$1"; }
# max_budget_used DEV: the max_budget bfq uses on DEV (auto or set), sectors
max_budget_used() { sed -n 's/^max_budget=//p' "/sys/kernel/debug/block/$1/sched/bfq_stats"; }
# lag_tol PCT SECTORS BYTES: PCT plus one budget of SECTORS in % of BYTES.
# B-WF2Q+ keeps a backlogged queue within about one maximum budget of its
# fair share, so a window's edge can fall anywhere in a turn: the bound of
# a test at the defaults is its tuned bound plus that much of the smallest
# share's ideal bytes in the window.
lag_tol() { awk -v p="$1" -v mb="$2" -v b="$3" 'BEGIN { printf "%.1f", p + (b > 0 ? mb * 51200 / b : 1000) }'; }
# share_fail MSG: a measured share or rate is off.  On the sanitizer kernel of
# make check-debug (KASAN + lockdep under TCG, so CPU-bound: readers
# cannot keep even a slow null_blk busy) shares say nothing, so skip there
# with the figures; fail everywhere else.
share_fail() {
	case $(uname -r) in *-bfqdebug) skip "not measurable on the sanitizer kernel (CPU-bound): $*" ;; esac
	fail "$*"
}
