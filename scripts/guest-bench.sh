#!/bin/sh
# Guest side of "make bench" (bfqmode=bench): every workload of the
# benchmark on none, mq-deadline, kyber, the distro bfq and ours, in this
# one boot.  Kernel command line: bfqbench=1,2,...  (workloads, default all)
# and bfqquick=1 (short runs for smoke tests; the figures mean nothing).
#
# Results go to the results channel (ttyS1), one line each, raw: the host
# (scripts/bench-report.py) computes medians, spreads, shares and errors.
#   M KEY VALUE...                      facts about this run
#   C WL CASE KEY=VALUE...              what a case is (weights, ...)
#   S WL CASE SCHED REP METRIC VALUE    one measured figure
#   P WL CASE SCHED CHILDREN% SELF% DSO SYMBOL  perf profile (w1, w8)
#   E WL MESSAGE                        something could not be measured
#   T WL SECONDS                        time a workload took
# Console lines starting with "bench:" show progress.
# Only ratios within one boot mean anything: absolute figures under TCG
# do not.
. /tests/lib.sh

res() { echo "$*" > /dev/ttyS1 2>/dev/null || echo "@@ $*"; }
say() { echo "bench: $*"; }
err() { res "E $1 $2"; say "ERROR ($1): $2"; }
arg() { tr ' ' '\n' < /proc/cmdline | sed -n "s/^$1=//p" | tail -n 1; }
now() { cut -d' ' -f1 /proc/uptime; }

WLS=$(arg bfqbench | tr ',' ' ')
[ -n "$WLS" ] || WLS="1 2 3 4 5 6 7 8 9"
QUICK=$(arg bfqquick)
[ "$QUICK" = 1 ] || QUICK=0
REPS=3
SCHEDS="none mq-deadline kyber distro-bfq bfq-iosched"

# Durations in seconds.  Budget (full run): see docs/benchmarks.md.
if [ "$QUICK" = 1 ]; then
	IOPS_RAMP=1 IOPS_RUN=1		# w1: one fio run per rep
	PROF_SECS=2			# w1, w8: perf record
	FAIR_WARM=1 FAIR_WIN=1		# w2, w5: windows of one run
	LAT_RAMP=1 LAT_RUN=2		# w3: one fio run per rep
	TPUT_WARM=1 TPUT_WIN=1		# w4, w5: windows of one run
	MEM_PROCS=16
	APP_IOS=64 APP_WARM=1 APP_MAX=5	# w7
	SCALE_WARM=1 SCALE_WIN=1	# w8: one window per case and rep
	DISK_WARM=1 DISK_WIN=1 DISK_FWIN=1	# w9: windows of one run
	DLAT_RAMP=1 DLAT_RUN=1		# w9: one fio run per rep
	DISK_NS="1 4" DISK_BNS=4	# w9: sequential readers, direct / buffered
	DISK_KNOBS="slice_idle=0"
else
	IOPS_RAMP=1 IOPS_RUN=3
	PROF_SECS=4
	FAIR_WARM=3 FAIR_WIN=5
	LAT_RAMP=1 LAT_RUN=5
	TPUT_WARM=2 TPUT_WIN=3
	MEM_PROCS=64
	APP_IOS=128 APP_WARM=3 APP_MAX=20
	SCALE_WARM=1 SCALE_WIN=3
	# w9's shares: B-WF2Q+ keeps a queue within about one budget (~100 ms
	# of the disk) of its share, and be/7 gets a ninth of the turns: a 3 %
	# bound needs about 30 s of them, so three 10 s windows
	DISK_WARM=2 DISK_WIN=2 DISK_FWIN=10
	DLAT_RAMP=2 DLAT_RUN=5
	DISK_NS="1 2 4 8" DISK_BNS="1 2 4 8"
	DISK_KNOBS="max_budget=2048 max_budget=65536 timeout_sync=30 timeout_sync=500 slice_idle=0 slice_idle=2 back_seek_max=0"
fi

NB_FAST='queue_mode=2 irqmode=0 submit_queues=2 hw_queue_depth=64'
NB_SLOW=$NULLB_SLOW	# lib.sh: irqmode=2, 2 ms, depth 1, one queue

res "M kernel $(uname -r)"
res "M cpus $(grep -c ^processor /proc/cpuinfo)"
res "M mem_kib $(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)"
res "M clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
res "M cmdline $(cat /proc/cmdline)"
res "M quick $QUICK"
res "M reps $REPS"
res "M fio $(fio --version)"
res "M durations iops_ramp=$IOPS_RAMP iops_run=$IOPS_RUN prof=$PROF_SECS fair_warm=$FAIR_WARM fair_win=$FAIR_WIN lat_ramp=$LAT_RAMP lat_run=$LAT_RUN tput_warm=$TPUT_WARM tput_win=$TPUT_WIN mem_procs=$MEM_PROCS app_ios=$APP_IOS app_warm=$APP_WARM app_max=$APP_MAX scale_warm=$SCALE_WARM scale_win=$SCALE_WIN disk_warm=$DISK_WARM disk_win=$DISK_WIN disk_fwin=$DISK_FWIN dlat_ramp=$DLAT_RAMP dlat_run=$DLAT_RUN"
modprobe kyber-iosched 2>/dev/null || err 0 "kyber-iosched not available"

# use_sched LABEL DEV: make scheduler LABEL (none, mq-deadline, kyber,
# distro-bfq, bfq-iosched) active on DEV, loading and unloading the bfq
# modules as needed (both register "bfq", only one may be loaded).
use_sched() {
	case $1 in
	distro-bfq)
		unload_bfq || return 1
		load_distro_bfq || return 1
		set_sched "$2" bfq ;;
	bfq-iosched)
		unload_distro_bfq || return 1
		load_bfq || return 1
		set_sched "$2" bfq ;;
	*)
		set_sched "$2" "$1" ;;
	esac
}
unload_both() { unload_bfq; unload_distro_bfq; }

# deep DEV: nr_requests 128 (a scheduler is needed for more tags than
# the device's depth; "none" keeps the device's).
deep() {
	[ "$(get_sched "$1")" = none ] && return 0
	echo 128 > "/sys/block/$1/queue/nr_requests" ||
		err x "cannot set nr_requests=128 on $1 under $(get_sched "$1")"
}

# snap PID...: "uptime bytes_1 bytes_2 ..." (read_bytes of each process,
# counted when the bio is submitted; fio --thread keeps all jobs of one
# fio in its process).  PID may be PID/task/TID: one thread.  A vanished
# process gives -1.
snap() {
	_o=$(now)
	for _p in "$@"; do
		_b=$(sed -n 's/^read_bytes: *//p' "/proc/$_p/io" 2>/dev/null)
		_o="$_o ${_b:--1}"
	done
	echo "$_o"
}

# started PID...: wait (60 s at most) until every process has read
# something: starting many fio processes takes seconds under TCG.
started() {
	_n=0 _t0=$(now)
	while [ $_n -lt 600 ]; do
		if snap "$@" | awk '{ for (i = 2; i <= NF; i++) if ($i <= 0) exit 1 }'; then
			STARTED=$(awk -v a="$_t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
			return 0
		fi
		sleep 0.1
		_n=$((_n + 1))
	done
	return 1
}

# dev_started DEV: wait (30 s at most) until DEV completes reads.
dev_reads() { awk '{ print $1 }' "/sys/block/$1/stat"; }
dev_started() {
	_r0=$(dev_reads "$1") _n=0
	while [ "$(dev_reads "$1")" = "$_r0" ] && [ $_n -lt 300 ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
}

# windows WARM WIN PID...: once all PIDs read, WARM seconds, then REPS
# consecutive windows of WIN seconds; one line per window:
# "seconds KiB_1 KiB_2 ...".
windows() {
	_warm=$1 _win=$2; shift 2
	started "$@" || { echo DEAD; return; }
	sleep "$_warm"
	_prev=$(snap "$@")
	_r=1
	while [ $_r -le $REPS ]; do
		sleep "$_win"
		_cur=$(snap "$@")
		echo "$_prev $_cur" | awk '{ n = NF / 2; s = sprintf("%.3f", $(n + 1) - $1)
			for (i = 2; i <= n; i++) {
				if ($i < 0 || $(n + i) < 0) { print "DEAD"; exit }
				s = s " " int(($(n + i) - $i) / 1024) }
			print s }'
		_prev=$_cur
		_r=$((_r + 1))
	done
}

# stop_fio PID...: SIGTERM (fio then reports and exits), reap; SIGKILL
# what is left after 20 s.
stop_fio() {
	kill -TERM "$@" 2>/dev/null
	# shellcheck disable=SC2016
	sh -c 'sleep 20; kill -9 "$@"' sh "$@" 2>/dev/null &
	_wd=$!
	wait "$@" 2>/dev/null
	kill "$_wd" 2>/dev/null
	wait "$_wd" 2>/dev/null
	return 0
}

# dirty_small: dirty limits of 32 MiB (background 8 MiB), so that
# writeback runs all the time (w3, w7); dirty_default: the kernel's.
dirty_small() {
	echo $((32 << 20)) > /proc/sys/vm/dirty_bytes
	echo $((8 << 20)) > /proc/sys/vm/dirty_background_bytes
}
dirty_default() {
	echo 0 > /proc/sys/vm/dirty_bytes
	echo 0 > /proc/sys/vm/dirty_background_bytes
	echo 20 > /proc/sys/vm/dirty_ratio
	echo 10 > /proc/sys/vm/dirty_background_ratio
}

# ---------------------------------------------------------------- w1
# CPU cost: 4 KiB random reads, io_uring QD32, zero-latency null_blk,
# 1/2/4 jobs.  Rounds go over all schedulers in turn (so a slow spell of
# the host hits all of them), REPS rounds; then a perf profile of each.
# iops_round: one fio, three job groups one after the other (stonewall):
# 1, 2 and 4 jobs; prints "JOBS IOPS" lines.  (One fio start instead of
# three: starting fio costs seconds under TCG.)
iops_round() {
	set -- --ioengine=io_uring --iodepth=32 --rw=randread --bs=4k --direct=1 \
		--time_based --runtime="$IOPS_RUN" --ramp_time="$IOPS_RAMP" --group_reporting
	fio --minimal --terse-version=3 --filename=/dev/nullb0 "$@" \
		--name=j1 --numjobs=1 --stonewall --new_group \
		--name=j2 --numjobs=2 --stonewall --new_group \
		--name=j4 --numjobs=4 --stonewall --new_group 2>/dev/null |
		awk -F';' '$1 == 3 && $5 == 0 { print substr($3, 2), $8 }'
}

w1() {
	nullb_load "$NB_FAST" || { err 1 "null_blk"; return 1; }
	res "C 1 j1 jobs=1 iodepth=32 bs=4k engine=io_uring"
	res "C 1 j2 jobs=2 iodepth=32 bs=4k engine=io_uring"
	res "C 1 j4 jobs=4 iodepth=32 bs=4k engine=io_uring"
	r=1
	while [ $r -le $REPS ]; do
		for s in $SCHEDS; do
			use_sched "$s" nullb0 || { err 1 "cannot use $s"; continue; }
			iops_round > /tmp/iops.v
			for j in 1 2 4; do
				v=$(awk -v j=$j '$1 == j { print $2 }' /tmp/iops.v)
				[ -n "$v" ] || { err 1 "fio failed: $s j=$j"; continue; }
				res "S 1 j$j $s $r iops $v"
			done
			say "w1 round $r $s: IOPS at 1/2/4 jobs: $(awk '{ print $2 }' /tmp/iops.v | tr '\n' ' ')"
		done
		unload_both
		r=$((r + 1))
	done
	if command -v perf > /dev/null; then
		for s in mq-deadline distro-bfq bfq-iosched; do
			profile 1 j2 "$s"
		done
		unload_both
	else
		err 1 "perf is not in the guest: no profile"
	fi
	nullb_unload
}

# prof_load WL CASE: start the load a profile of WL runs under, until
# stopped; its fio's pid in $PROF_PID
prof_load() {
	if [ "$1" = 1 ]; then
		fio --minimal --terse-version=3 --name=prof --filename=/dev/nullb0 \
			--rw=randread --bs=4k --direct=1 --ioengine=io_uring \
			--iodepth=32 --numjobs=2 --group_reporting \
			--time_based --runtime=300 > /tmp/prof.t 2>&1 &
		PROF_PID=$!
		return
	fi
	scale_fio "$2"
	PROF_PID=$SCALE_PID
	[ "${2%%[0-9]*}" = p ] || scale_cgroups "${2#?}"
}

# profile WL CASE SCHED: perf (cpu-clock, call graphs, all CPUs) over the
# load of WL's CASE (w1: a 2-job QD32 run); prints inclusive (children)
# and self shares of the scheduler's functions and of the top kernel
# functions, "P WL CASE SCHED ..." lines.
profile() {
	use_sched "$3" nullb0 || { err "$1" "cannot use $3"; return; }
	[ "$1" = 1 ] || echo 256 > /sys/block/nullb0/queue/nr_requests
	# fio runs until stopped: perf takes seconds to start under TCG
	prof_load "$1" "$2" || { err "$1" "$2 $3: no load to profile"; stop_fio $PROF_PID; return; }
	dev_started nullb0
	sleep 1
	_r0=$(dev_reads nullb0) _t0=$(now)
	perf record -q -a -g -e cpu-clock -F 499 -o /tmp/perf.data -- sleep "$PROF_SECS" > /tmp/perf.rec 2>&1 ||
		{ err "$1" "perf record failed: $(tail -n 1 /tmp/perf.rec)"; stop_fio $PROF_PID; return; }
	_iops=$(awk -v r0="$_r0" -v r1="$(dev_reads nullb0)" -v t0="$_t0" -v t1="$(now)" \
		'BEGIN { printf "%.0f", (r1 - r0) / (t1 - t0) }')
	stop_fio $PROF_PID
	res "S $1 prof-$2 $3 1 iops_under_perf $_iops"
	# "Children Self Shared-Object [k] Symbol", percent of all samples
	perf report -i /tmp/perf.data --stdio --children --sort dso,sym -g none \
		--percent-limit 0.3 2>/dev/null |
		awk -v s="$1 $2 $3" '/^ *[0-9.]+% +[0-9.]+% / {
			c = $1; sub(/%/, "", c); f = $2; sub(/%/, "", f)
			sym = $5; for (i = 6; i <= NF; i++) sym = sym " " $i
			print "P " s " " c " " f " " $3 " " sym }' > /tmp/prof.lines
	_n=$(wc -l < /tmp/prof.lines)
	[ "$_n" -gt 0 ] || { err "$1" "perf report gave nothing for $2 $3"; return; }
	# every scheduler function (perf files module symbols, known only from
	# kallsyms, under [kernel.kallsyms]), what the idle loop got (the rest
	# is busy time), and other kernel functions while >= 2 % / 1 % self
	{ awk '$8 ~ /^(bfq_|dd_|kyber_)/ || $8 == "do_idle"' /tmp/prof.lines
	  awk '$8 !~ /^(bfq_|dd_|kyber_)/ && $8 != "do_idle" &&
		$7 == "[kernel.kallsyms]" && ($5 >= 2 || $6 >= 1)' /tmp/prof.lines | head -n 50
	} | while read -r l; do res "$l"; done
	# total self time per module
	awk -v s="$1 $2 $3" '{ self[$7] += $6 } END { for (d in self) if (self[d] >= 0.1) printf "P %s total %.2f %s (self-total)\n", s, self[d], d }' \
		/tmp/prof.lines | while read -r l; do res "$l"; done
	say "w$1 profile $2 $3: $_n symbols, $(wc -c < /tmp/perf.data) bytes of samples, top:"
	sort -k6 -rn /tmp/prof.lines | head -n 12 | sed 's/^/bench:   /'
	rm -f /tmp/perf.data /tmp/perf.data.old
}

# ---------------------------------------------------------------- w2
# Weighted fairness on the depth-1, 2 ms null_blk, nr_requests 128.
# Sequential 64 KiB O_DIRECT readers (libaio QD4), each on its own 8 GiB
# region, either with ioprio best-effort LEVEL (what "ionice -c2 -n LEVEL"
# sets) or one per cgroup with io.bfq.weight.  Each rep is one window of
# one run (after all readers run, and a warm-up).
FAIR_CASES="ionice-2 ionice-4 ionice-8 cg-2 cg-4"
fair_levels() {
	case $1 in
	ionice-2) echo 0 7 ;;
	ionice-4) echo 0 2 4 6 ;;
	ionice-8) echo 0 1 2 3 4 5 6 7 ;;
	cg-2) echo 100 400 ;;
	cg-4) echo 100 200 300 400 ;;
	esac
}
fair_weights() {	# ioprio level -> weight 10 * (8 - level), as both bfqs do
	case $1 in
	ionice-*) for _l in $(fair_levels "$1"); do printf '%s ' $((10 * (8 - _l))); done; echo ;;
	*) fair_levels "$1" ;;
	esac
}

# level_tids PID LEVEL...: the reader threads of fio PID, in the order of
# LEVELS, as "PID/task/TID" (for /proc/.../io).  fio sets each job
# thread's ioprio itself (prioclass/prio: ioprio_set on the thread, as
# ionice does), so a thread is known by its level: "ionice -p TID".
level_tids() {
	_fp=$1; shift
	_n=0
	while [ $_n -lt 300 ]; do
		_o=
		for _l in "$@"; do
			_t=
			for _d in /proc/"$_fp"/task/*; do
				[ "${_d##*/}" != "$_fp" ] || continue
				[ "$(ionice -p "${_d##*/}" 2>/dev/null)" = "best-effort: prio $_l" ] && { _t=${_d##*/}; break; }
			done
			[ -n "$_t" ] || break
			_o="$_o $_fp/task/$_t"
		done
		[ -z "$_t" ] || { echo "$_o"; return 0; }
		kill -0 "$_fp" 2>/dev/null || return 1
		sleep 0.2
		_n=$((_n + 1))
	done
	return 1
}

# fair_run WL CASE LABEL: start the readers of CASE on nullb0 (the
# scheduler is active), print "S WL CASE LABEL rep dt|kibN value" lines.
# ionice cases: one fio, one thread per reader with its own ioprio (and
# so its own queue); cgroup cases: one fio process per cgroup.
fair_run() {
	_wl=$1 _case=$2 _lab=$3
	_ios='' _kill='' _i=0
	_rt=$((FAIR_WARM + REPS * FAIR_WIN + 60))
	set -- --minimal --terse-version=3 --thread --filename=/dev/nullb0 \
		--rw=read --bs=64k --direct=1 --ioengine=libaio --iodepth=4 \
		--size=8g --time_based --runtime=$_rt
	case $_case in
	ionice-*)
		_jobs=
		for _v in $(fair_levels "$_case"); do
			_jobs="$_jobs --name=r$_i --prioclass=2 --prio=$_v --offset=$((_i * 8))g"
			_i=$((_i + 1))
		done
		# shellcheck disable=SC2086
		fio "$@" $_jobs > /tmp/fair.t 2>&1 &
		_kill=$!
		# shellcheck disable=SC2046
		_ios=$(level_tids $_kill $(fair_levels "$_case")) ||
			{ err "$_wl" "$_case $_lab: no reader threads: $(head -c 200 /tmp/fair.t)"; stop_fio $_kill; return 1; }
		;;
	cg-*)
		for _v in $(fair_levels "$_case"); do
			_cg=$CGROOT/bench$_i
			[ -d "$_cg" ] || mkdir "$_cg"
			if [ -e "$_cg/io.bfq.weight" ]; then
				echo "$_v" > "$_cg/io.bfq.weight" || err "$_wl" "cannot set weight $_v on $_cg"
			fi
			sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$_cg" \
				fio "$@" --name="r$_i" --offset=$((_i * 8))g > /tmp/fair$_i.t 2>&1 &
			_kill="$_kill $!"
			_i=$((_i + 1))
		done
		_ios=$_kill
		;;
	esac
	# shellcheck disable=SC2086
	windows "$FAIR_WARM" "$FAIR_WIN" $_ios > /tmp/fair.w
	# shellcheck disable=SC2086
	stop_fio $_kill
	if grep -q DEAD /tmp/fair.w; then
		err "$_wl" "$_case $_lab: a reader died or never started"
		return 1
	fi
	awk -v p="S $_wl $_case $_lab" '{ printf "%s %d dt %s\n", p, NR, $1
		for (i = 2; i <= NF; i++) printf "%s %d kib%d %s\n", p, NR, i - 1, $i }' /tmp/fair.w |
		while read -r l; do res "$l"; done
	# seconds from the readers' start until all had read (after fio's own start)
	res "S $_wl $_case $_lab 1 start_s $STARTED"
	say "$_wl $_case $_lab: s KiB... per window: $(tr '\n' '|' < /tmp/fair.w)"
}

w2() {
	nullb_load "$NB_SLOW" || { err 2 "null_blk"; return 1; }
	for c in $FAIR_CASES; do
		res "C 2 $c weights=$(fair_weights "$c" | sed 's/ *$//; s/ /,/g') kind=${c%-*}"
	done
	for s in $SCHEDS; do
		use_sched "$s" nullb0 || { err 2 "cannot use $s"; continue; }
		deep nullb0
		for c in $FAIR_CASES; do
			fair_run 2 "$c" "$s"
		done
		_f=
		for _x in "$CGROOT"/bench0/*bfq* "$CGROOT"/bench0/*weight*; do [ -e "$_x" ] && _f="$_f ${_x##*/}"; done
		res "M cgroup_files_$s${_f:- (none)}"
	done
	unload_both
	for i in 0 1 2 3; do rmdir "$CGROOT/bench$i" 2>/dev/null; done
	nullb_unload
}

# ---------------------------------------------------------------- w3
# Latency of a 4 KiB sync (psync, O_DIRECT) random reader while a buffered
# sequential writer (1 MiB writes) and a sequential O_DIRECT reader
# (128 KiB) run.  On vda and on the depth-1, 2 ms null_blk.  Dirty limits
# are small (32 MiB, background 8 MiB) so writeback runs all the time.
# The REPS repetitions run back to back in one fio (each with a ramp).
# lat_reps DEV RND_OFF SEQ_OFF WR_OFF SIZE: one fio, REPS groups one after
# the other (stonewall; forking a group is cheap, starting fio is not);
# prints "REP METRIC VALUE" lines.
lat_reps() {
	_jobs='' _r=1
	while [ $_r -le $REPS ]; do
		_jobs="$_jobs --name=rnd$_r --rw=randread --bs=4k --direct=1 --offset=$2 --size=$5 --stonewall --new_group"
		_jobs="$_jobs --name=seq$_r --rw=read --bs=128k --direct=1 --offset=$3 --size=$5"
		_jobs="$_jobs --name=wr$_r --rw=write --bs=1m --direct=0 --offset=$4 --size=$5"
		_r=$((_r + 1))
	done
	# shellcheck disable=SC2086
	fio --minimal --terse-version=3 --percentile_list=50:99:99.9 \
		--filename=/dev/$1 --time_based --runtime="$LAT_RUN" \
		--ramp_time="$LAT_RAMP" --ioengine=psync $_jobs > /tmp/lat.t 2>&1
	awk -F';' '$1 == 3 { j = $3; r = j; sub(/^[a-z]+/, "", r); sub(/[0-9]+$/, "", j) }
		$1 == 3 && j == "rnd" { for (i = 18; i <= 20; i++) { split($i, a, "="); v[i] = a[2] }
			print r, "p50_us", v[18]; print r, "p99_us", v[19]; print r, "p999_us", v[20]
			print r, "rnd_iops", $8; print r, "rnd_ios", int($6 / 4); print r, "max_us", $15 }
		$1 == 3 && j == "seq" { print r, "seq_kibs", $7 }
		$1 == 3 && j == "wr" { print r, "wr_kibs", $48 }
		$1 == 3 && $5 != 0 { print r, "error", $5 }' /tmp/lat.t
}

w3() {
	dirty_small
	for d in vda nullb0; do
		if [ $d = nullb0 ]; then
			nullb_load "$NB_SLOW" || { err 3 "null_blk"; continue; }
			set -- nullb0 2g 4g 10g 1g
			res "C 3 nullb0 device=null_blk-depth1-2ms nr_requests=128"
		else
			set -- vda 0 256m 512m 256m
			res "C 3 vda device=virtio-blk nr_requests=default"
		fi
		for s in $SCHEDS; do
			use_sched "$s" $d || { err 3 "cannot use $s on $d"; continue; }
			[ $d = vda ] || deep $d
			lat_reps "$@" > /tmp/lat.v
			if grep -q ' error ' /tmp/lat.v || ! grep -q ' p99_us [0-9]' /tmp/lat.v; then
				err 3 "$d $s: fio: $(grep -v '^3;' /tmp/lat.t | head -c 200 | tr '\n' ' ')"
			fi
			while read -r r m v; do
				[ "$m" = error ] || res "S 3 $d $s $r $m $v"
			done < /tmp/lat.v
			say "w3 $d $s: $(awk '$2 ~ /p99_us|rnd_ios/ { printf "%s ", $0 }' /tmp/lat.v)"
			sync
			echo 3 > /proc/sys/vm/drop_caches
		done
		unload_both
	done
	nullb_unload
	dirty_default
}

# ---------------------------------------------------------------- w4
# Aggregate throughput on vda: 4 sequential O_DIRECT readers (64 KiB,
# psync, 128 MiB regions) and 4 random 4 KiB O_DIRECT readers (psync,
# over 512 MiB), all at once; each rep is one window of one run.
# tput_run WL CASE LABEL: prints S lines dt/seq_kib/rnd_kib.
tput_run() {
	_rt=$((TPUT_WARM + REPS * TPUT_WIN + 30))
	fio --minimal --terse-version=3 --thread --filename=/dev/vda \
		--time_based --runtime=$_rt --ioengine=psync --direct=1 \
		--name=seq --rw=read --bs=64k --numjobs=4 --size=128m \
		--offset=0 --offset_increment=128m > /tmp/tput-s.t 2>&1 &
	_ps=$!
	fio --minimal --terse-version=3 --thread --filename=/dev/vda \
		--time_based --runtime=$_rt --ioengine=psync --direct=1 \
		--name=rnd --rw=randread --bs=4k --numjobs=4 --size=512m \
		--offset=512m > /tmp/tput-r.t 2>&1 &
	_pr=$!
	windows "$TPUT_WARM" "$TPUT_WIN" $_ps $_pr > /tmp/tput.w
	stop_fio $_ps $_pr
	if grep -q DEAD /tmp/tput.w; then
		err "$1" "$2 $3: a reader died: $(head -c 200 /tmp/tput-s.t /tmp/tput-r.t | tr '\n' ' ')"
		return 1
	fi
	awk -v p="S $1 $2 $3" '{ printf "%s %d dt %s\n%s %d seq_kib %s\n%s %d rnd_kib %s\n", p, NR, $1, p, NR, $2, p, NR, $3 }' \
		/tmp/tput.w | while read -r l; do res "$l"; done
	say "$1 $2 $3: s seqKiB rndKiB per window: $(tr '\n' '|' < /tmp/tput.w)"
}

w4() {
	res "C 4 vda-mix seq=4x64k-psync rnd=4x4k-psync device=virtio-blk"
	for s in $SCHEDS; do
		use_sched "$s" vda || { err 4 "cannot use $s"; continue; }
		tput_run 4 vda-mix "$s"
	done
	unload_both
}

# ---------------------------------------------------------------- w5
# Our knobs: max_budget (auto, 1024, 8192, 65536 sectors) at timeout_sync
# 125 ms, and timeout_sync (20, 500 ms) with the auto budget: fairness of
# ionice 0 vs 7 on the slow null_blk (workload 2's ionice-2) and the
# workload 4 mix on vda.
w5() {
	nullb_load "$NB_SLOW" || { err 5 "null_blk"; return 1; }
	unload_distro_bfq
	load_bfq || { err 5 "cannot load bfq-iosched"; return 1; }
	res "C 5 fair weights=80,10 kind=ionice"
	for k in auto:125 1024:125 8192:125 65536:125 auto:20 auto:500; do
		mb=${k%:*} ts=${k#*:}
		case_=mb=$mb,ts=$ts
		for d in nullb0 vda; do
			set_sched $d bfq || { err 5 "cannot select bfq on $d"; continue 2; }
			[ $d = vda ] || deep $d
			mbv=$mb
			[ "$mb" != auto ] || mbv=0
			iosched $d max_budget "$mbv" &&
				iosched $d timeout_sync "$ts" || err 5 "cannot set $case_ on $d"
		done
		fair_run 5 ionice-2 "$case_"
		tput_run 5 vda-mix "$case_"
		res "M w5_effective_max_budget_$case_ $(sed -n 's/^max_budget=//p' /sys/kernel/debug/block/nullb0/sched/bfq_stats 2>/dev/null) $(sed -n 's/^max_budget=//p' /sys/kernel/debug/block/vda/sched/bfq_stats 2>/dev/null)"
		# fresh scheduler data (auto budget state) for the next setting
		sched_away bfq
	done
	unload_bfq
	nullb_unload
}

# ---------------------------------------------------------------- w6
# Memory per process per device: slab object sizes of the queue and icq
# caches (both bfqs name them bfq_queue and bfq_io_cq; only one is loaded
# at a time), and the objects MEM_PROCS processes doing I/O add.
slab_active() { awk -v c="$1" '$1 == c { print $2; f = 1 } END { if (!f) print 0 }' /proc/slabinfo; }
slab_objsize() { awk -v c="$1" '$1 == c { print $4; f = 1 } END { if (!f) print 0 }' /proc/slabinfo; }
w6() {
	grep -qw slab_nomerge /proc/cmdline || err 6 "booted without slab_nomerge: caches may be merged"
	nullb_load "$NB_FAST" || { err 6 "null_blk"; return 1; }
	res "C 6 nullb0 procs=$MEM_PROCS"
	for s in distro-bfq bfq-iosched; do
		use_sched "$s" nullb0 || { err 6 "cannot use $s"; continue; }
		for c in bfq_queue bfq_io_cq; do
			[ -d /sys/kernel/slab/$c ] || { err 6 "$s: no /sys/kernel/slab/$c"; continue; }
			res "S 6 $c $s 1 object_size $(cat /sys/kernel/slab/$c/object_size)"
			res "S 6 $c $s 1 slab_size $(cat /sys/kernel/slab/$c/slab_size)"
		done
		base_q=$(slab_active bfq_queue) base_c=$(slab_active bfq_io_cq)
		fio --minimal --terse-version=3 --name=mem --filename=/dev/nullb0 \
			--rw=randread --bs=4k --direct=1 --ioengine=psync \
			--numjobs=$MEM_PROCS --rate_iops=20 --time_based --runtime=90 \
			> /tmp/mem.t 2>&1 &
		f=$!
		# wait until there are MEM_PROCS more queues (60 s at most)
		n=0
		while [ $(($(slab_active bfq_queue) - base_q)) -lt $MEM_PROCS ] && [ $n -lt 120 ]; do
			sleep 0.5
			n=$((n + 1))
		done
		sleep 1
		r=1
		while [ $r -le $REPS ]; do
			res "S 6 bfq_queue $s $r objsize $(slab_objsize bfq_queue)"
			res "S 6 bfq_io_cq $s $r objsize $(slab_objsize bfq_io_cq)"
			res "S 6 bfq_queue $s $r objects_added $(($(slab_active bfq_queue) - base_q))"
			res "S 6 bfq_io_cq $s $r objects_added $(($(slab_active bfq_io_cq) - base_c))"
			sleep 1
			r=$((r + 1))
		done
		say "w6 $s: $(grep -E '^bfq_(queue|io_cq) ' /proc/slabinfo | awk '{ print $1, $2, $3, $4 }' | tr '\n' '|')"
		stop_fio $f
	done
	unload_both
	nullb_unload
}

# ---------------------------------------------------------------- w7
# Start-up under heavy I/O: the wall time a new process takes for a chain
# of APP_IOS dependent 4 KiB O_DIRECT random reads (psync: each read waits
# for the one before, like a program paging itself in), first on the idle
# device (the floor), then while two sequential O_DIRECT readers (128 KiB)
# and a buffered sequential writer keep it busy.  Each rep is a new
# process (a fio of its own) and fio's runtime is the chain's wall time.
# No cache invalidation at the start (fio's default BLKFLSBUF would first
# write back the writer's dirty pages: a program does not do that).
# A chain is cut after APP_MAX s (a scheduler may take minutes): the
# report then scales its time to the whole chain from the reads done.
# The background's read MB/s over the loaded reps shows what a scheduler
# took from the streams to start the program fast.
# app_ms DEV OFFSET SIZE: prints "ms reads" of the chain, or nothing.
app_ms() {
	fio --minimal --terse-version=3 --name=app --filename="/dev/$1" \
		--rw=randread --bs=4k --direct=1 --ioengine=psync \
		--offset="$2" --size="$3" --number_ios=$APP_IOS \
		--runtime=$APP_MAX --invalidate=0 2>/dev/null |
		awk -F';' '$1 == 3 && $5 == 0 && $6 >= 4 { print $9, $6 / 4 }'
}

# app_reps WL DEV SCHED KIND OFFSET SIZE: REPS chains, 1 s apart.
app_reps() {
	_r=1
	while [ $_r -le $REPS ]; do
		_v=$(app_ms "$2" "$5" "$6")
		if [ -n "$_v" ]; then
			res "S $1 $2 $3 $_r $4_ms ${_v% *}"
			res "S $1 $2 $3 $_r $4_reads ${_v#* }"
			_all="$_all ${_v% *}/${_v#* }"
		else
			err "$1" "$2 $3: the $4 chain failed"
		fi
		sleep 1
		_r=$((_r + 1))
	done
}

w7() {
	dirty_small
	for d in nullb0 vda; do
		if [ $d = nullb0 ]; then
			nullb_load "$NB_SLOW" || { err 7 "null_blk"; continue; }
			# chain offset, size; first reader, next reader +;
			# writer; size of each stream's region
			set -- 0 1g 2g 2g 10g 1g
			res "C 7 nullb0 device=null_blk-depth1-2ms nr_requests=128 ios=$APP_IOS max_s=$APP_MAX"
		else
			set -- 0 256m 256m 128m 512m 128m
			res "C 7 vda device=virtio-blk nr_requests=default ios=$APP_IOS max_s=$APP_MAX"
		fi
		for s in $SCHEDS; do
			use_sched "$s" $d || { err 7 "cannot use $s on $d"; continue; }
			[ $d = vda ] || deep $d
			_all=''
			app_reps 7 $d "$s" idle "$1" "$2"
			fio --minimal --terse-version=3 --thread --filename=/dev/$d \
				--ioengine=psync --time_based --runtime=600 \
				--name=seq --rw=read --bs=128k --direct=1 --numjobs=2 \
				--offset="$3" --offset_increment="$4" \
				--size="$6" \
				--name=wr --rw=write --bs=1m --direct=0 --offset="$5" \
				--size="$6" > /tmp/app-bg.t 2>&1 &
			bg=$!
			started $bg || err 7 "$d $s: the background did not start"
			sleep "$APP_WARM"
			b0=$(snap $bg)
			app_reps 7 $d "$s" load "$1" "$2"
			b1=$(snap $bg)
			stop_fio $bg
			res "S 7 $d $s 1 bg_read_mbs $(echo "$b0 $b1" | awk '{ printf "%.2f", ($4 - $2) / 1048576 / ($3 - $1) }')"
			say "w7 $d $s: idle, load ms/reads:$_all"
			sync
			echo 3 > /proc/sys/vm/drop_caches
		done
		unload_both
	done
	nullb_unload
	dirty_default
}

# ---------------------------------------------------------------- w8
# Cost as readers and cgroups grow: 4 KiB random O_DIRECT reads, psync
# (one request in flight per reader, so every request is a turn of its
# own under a bfq), on the zero-latency null_blk with 256 tags and
# nr_requests 256.  Readers are threads of one fio (each thread has its
# own I/O context, so its own queue): 2, 32 and 256; or processes of one
# fio, each moved into its own cgroup once it reads: 1, 16 and 128.  Per
# case, one window after a warm-up: the device's completed reads
# (diskstats) and the guest's busy CPU time (/proc/stat), so IOPS and CPU
# µs per request.  Then a perf profile of the ends of each axis under
# mq-deadline and ours: where the cost per request goes as N grows.
SCALE_NB='queue_mode=2 irqmode=0 submit_queues=2 hw_queue_depth=256'
SCALE_CASES="p2 p32 p256 c1 c16 c128"

# cpu_busy: the guest's busy CPU time so far, in USER_HZ ticks (all CPUs)
cpu_busy() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }

# scale_fio CASE: start the readers of CASE on nullb0 in the background;
# their fio's pid in $SCALE_PID
scale_fio() {
	_n=${1#?}
	set -- --minimal --terse-version=3 --filename=/dev/nullb0 --name=r \
		--rw=randread --bs=4k --direct=1 --ioengine=psync --size=8g \
		--time_based --runtime=300 --numjobs="$_n" \
		$([ "${1%%[0-9]*}" = p ] && echo --thread)
	fio "$@" > /tmp/scale.t 2>&1 &
	SCALE_PID=$!
}

# scale_cgroups N: move the N job processes of $SCALE_PID into cgroups
# scale0..scale(N-1), one each
scale_cgroups() {
	_i=0 _t=0
	while [ "$(grep -l "^PPid:[[:space:]]*$SCALE_PID\$" /proc/[0-9]*/status 2>/dev/null | wc -l)" -lt "$1" ]; do
		[ $_t -lt 600 ] || return 1
		sleep 0.1
		_t=$((_t + 1))
	done
	for _s in $(grep -l "^PPid:[[:space:]]*$SCALE_PID\$" /proc/[0-9]*/status); do
		_p=${_s#/proc/}
		_cg=$CGROOT/scale$_i
		[ -d "$_cg" ] || mkdir "$_cg" || return 1
		echo "${_p%/status}" > "$_cg/cgroup.procs" || return 1
		_i=$((_i + 1))
	done
}

# scale_run CASE SCHED REP: one window of CASE; "S 8 ..." lines
scale_run() {
	scale_fio "$1"
	if [ "${1%%[0-9]*}" = c ]; then
		scale_cgroups "${1#?}" || err 8 "$1 $2: cannot put the readers in cgroups"
	fi
	dev_started nullb0
	sleep "$SCALE_WARM"
	_r0=$(dev_reads nullb0) _c0=$(cpu_busy) _t0=$(now)
	sleep "$SCALE_WIN"
	_r1=$(dev_reads nullb0) _c1=$(cpu_busy) _t1=$(now)
	stop_fio $SCALE_PID
	[ "$_r1" -gt "$_r0" ] || { err 8 "$1 $2: no reads: $(head -c 200 /tmp/scale.t)"; return 1; }
	_hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
	res "S 8 $1 $2 $3 iops $(awk -v a="$_r0" -v b="$_r1" -v s="$_t0" -v e="$_t1" 'BEGIN { printf "%.0f", (b - a) / (e - s) }')"
	res "S 8 $1 $2 $3 us_per_req $(awk -v a="$_r0" -v b="$_r1" -v c="$_c0" -v d="$_c1" -v hz="$_hz" 'BEGIN { printf "%.2f", (d - c) * 1e6 / hz / (b - a) }')"
}

w8() {
	nullb_load "$SCALE_NB" || { err 8 "null_blk"; return 1; }
	for c in $SCALE_CASES; do
		res "C 8 $c ${c%%[0-9]*}=${c#?} bs=4k engine=psync"
	done
	r=1
	while [ $r -le $REPS ]; do
		for s in $SCHEDS; do
			use_sched "$s" nullb0 || { err 8 "cannot use $s"; continue; }
			echo 256 > /sys/block/nullb0/queue/nr_requests ||
				err 8 "cannot set nr_requests=256 under $s"
			for c in $SCALE_CASES; do
				scale_run "$c" "$s" "$r"
			done
			say "w8 round $r $s done"
		done
		unload_both
		r=$((r + 1))
	done
	if command -v perf > /dev/null; then
		for s in mq-deadline bfq-iosched; do
			for c in p2 p256 c1 c128; do
				profile 8 "$c" "$s"
			done
		done
		unload_both
	else
		err 8 "perf is not in the guest: no profile"
	fi
	rmdir "$CGROOT"/scale* 2>/dev/null
	nullb_unload
}

# ---------------------------------------------------------------- w9
# The article's claims on a disk that seeks: hddsim (tests/hddsim,
# docs/hddsim.md) at its defaults, a 7200 rpm drive that serves one
# request at a time, 160 MB/s in its outer zone and 80 in its inner one;
# every scheduler at its defaults, nr_requests 128 ("none" keeps the
# device's 1).  Sequential readers read 1 MiB O_DIRECT (psync: one
# request at a time, the device's largest request) or 128 KiB buffered
# (readahead makes the requests).  Reader i reads its own DISK_REG MiB
# at i * DISK_REG MiB: the eight regions lie in the outer GiB (zones 0-2,
# 160 to 149 MB/s in the model), so one reader and eight differ by what
# the scheduler does, not by the zones they read.  Cases:
#   dN / bN  N sequential readers, direct / buffered: aggregate MB/s;
#   zones    two equal-weight readers, one at the start of the disk, one
#            in its last DISK_REG MiB: bytes each got;
#   ionice   be/0 and be/7 readers (weights 80:10);
#   cg       one reader per cgroup, io.bfq.weight 100 and 400;
#   seeky    readers 0 and 1 of d2, and a 4 KiB O_DIRECT random reader
#            over the whole disk: what the seeky one takes from the total;
#   lat      a 4 KiB random reader (one request at a time) beside readers
#            0 and 1 of d2: its completion latency; ours also with
#            low_latency 0 (label bfq-iosched-ll0);
#   KNOB=V   ours with one tunable changed: d4 and zones again.
# Each rep is one window of one run; every window line is followed by
# hddsim's own counters over all the windows (how often the head moved).
HS=hddsim0
DISK_REG=128

# dsnap ID...: like snap, but an ID "rchar:PID" gives the bytes PID's
# read calls returned (page cache hits included) instead of read_bytes
# (bytes it made the block layer read): both over a buffered reader tell
# whether it read the disk or memory.
dsnap() {
	_o=$(now)
	for _p in "$@"; do
		_k=read_bytes
		case $_p in rchar:*) _k=rchar _p=${_p#rchar:} ;; esac
		_b=$(sed -n "s/^$_k: *//p" "/proc/$_p/io" 2>/dev/null)
		_o="$_o ${_b:--1}"
	done
	echo "$_o"
}

# hs_now: uptime, then hddsim's requests, seeks and busy time (µs)
hs_now() { echo "$(now) $(hddsim_stat requests) $(hddsim_stat seeks) $(hddsim_stat busy_time_us)"; }

# dwindows WARM WIN ID...: windows() over dsnap IDs, then one line
# "HS seconds requests seeks busy_us" of hddsim's counters over the span
# of all the windows.
dwindows() {
	_warm=$1 _win=$2; shift 2
	# shellcheck disable=SC2046
	started $(echo "$@" | sed 's/rchar:[0-9]*//g') || { echo DEAD; return; }
	sleep "$_warm"
	_h0=$(hs_now)
	_prev=$(dsnap "$@")
	_r=1
	while [ $_r -le $REPS ]; do
		sleep "$_win"
		_cur=$(dsnap "$@")
		echo "$_prev $_cur" | awk '{ n = NF / 2; s = sprintf("%.3f", $(n + 1) - $1)
			for (i = 2; i <= n; i++) {
				if ($i < 0 || $(n + i) < 0) { print "DEAD"; exit }
				s = s " " int(($(n + i) - $i) / 1024) }
			print s }'
		_prev=$_cur
		_r=$((_r + 1))
	done
	echo "$_h0 $(hs_now)" | awk '{ printf "HS %.3f %d %d %d\n", $5 - $1, $6 - $2, $7 - $3, $8 - $4 }'
}

# dres WL CASE LABEL NAME...: dwindows' lines in /tmp/disk.w as S lines:
# per window dt and one metric per column (NAMEs), then hddsim's
# counters (rep 1: hs_dt, hs_requests, hs_seeks, hs_busy_us).
dres() {
	_wl=$1 _case=$2 _lab=$3; shift 3
	# a reader left running would load the next cases (it happened: a
	# seeky reader outlived its case and slowed the next scheduler's)
	if ps | grep -q '[f]io '; then
		err "$_wl" "$_case $_lab: a fio outlived its case: $(ps | grep '[f]io ' | head -c 200)"
		killall -9 fio 2>/dev/null
		sleep 1
	fi
	if grep -q DEAD /tmp/disk.w; then
		err "$_wl" "$_case $_lab: a reader died or never started: $(cat /tmp/disk*.t | grep -v '^3;' | head -c 200 | tr '\n' ' ')"
		return 1
	fi
	awk -v p="S $_wl $_case $_lab" -v names="$*" 'BEGIN { n = split(names, nm, " ") }
		$1 == "HS" { printf "%s 1 hs_dt %s\n%s 1 hs_requests %s\n%s 1 hs_seeks %s\n%s 1 hs_busy_us %s\n",
			p, $2, p, $3, p, $4, p, $5; next }
		{ w++; printf "%s %d dt %s\n", p, w, $1
		  for (i = 2; i <= NF && i - 1 <= n; i++) printf "%s %d %s %s\n", p, w, nm[i - 1], $i }' /tmp/disk.w |
		while read -r l; do res "$l"; done
	say "$_wl $_case $_lab: s KiB... per window: $(grep -v '^HS' /tmp/disk.w | tr '\n' '|') $(grep '^HS' /tmp/disk.w)"
}

# dpair WL CASE LABEL PID...: a two-reader case's windows (DISK_FWIN),
# its readers stopped, its S lines (columns kib1 kib2)
dpair() {
	_wl=$1 _case=$2 _lab=$3; shift 3
	dwindows "$DISK_WARM" "$DISK_FWIN" "$@" > /tmp/disk.w
	stop_fio "$@"
	dres "$_wl" "$_case" "$_lab" kib1 kib2
}

# disk_seq WL CASE LABEL N d|b: N sequential readers, threads of one fio,
# reader i on [i, i + 1) * DISK_REG MiB; d: O_DIRECT 1 MiB, b: buffered
# 128 KiB.  A buffered reader does not loop inside fio's time_based run
# (its second pass would read the page cache): it runs passes (--loops),
# and fio drops the device's page cache when it opens the region for each
# pass (--invalidate, BLKFLSBUF), which also drops the other readers'
# read-ahead pages not yet read: the rchar column shows what came from
# memory anyway.
disk_seq() {
	rm -f /tmp/disk*.t
	_rt=$((DISK_WARM + REPS * DISK_WIN + 60))
	if [ "$5" = d ]; then
		_k='--direct=1 --bs=1m --time_based'
	else
		_k='--direct=0 --bs=128k --loops=1000000 --invalidate=1'
	fi
	# shellcheck disable=SC2086
	fio --minimal --terse-version=3 --thread --filename=/dev/$HS --name=seq \
		--rw=read --ioengine=psync --numjobs="$4" --size=${DISK_REG}m \
		--offset=0 --offset_increment=${DISK_REG}m --runtime=$_rt $_k \
		> /tmp/disk.t 2>&1 &
	_f=$!
	if [ "$5" = d ]; then
		dwindows "$DISK_WARM" "$DISK_WIN" $_f > /tmp/disk.w
		stop_fio $_f
		dres "$1" "$2" "$3" kib
	else
		dwindows "$DISK_WARM" "$DISK_WIN" $_f rchar:$_f > /tmp/disk.w
		stop_fio $_f
		dres "$1" "$2" "$3" kib rchar_kib
		# the readers' pages out of the way of the next run
		echo 1 > /proc/sys/vm/drop_caches
	fi
}

# disk_zones WL CASE LABEL: two equal-weight sequential readers (O_DIRECT
# 1 MiB, one fio process each, started together): at the start of the
# disk (zone 0, rate_outer_mbps in the model) and in its last DISK_REG
# MiB (zone 15, rate_inner_mbps).  Columns: outer, inner.
disk_zones() {
	rm -f /tmp/disk*.t
	_rt=$((DISK_WARM + REPS * DISK_FWIN + 60))
	_pids=
	for _o in 0 $((DISK_MIB - DISK_REG)); do
		fio --minimal --terse-version=3 --thread --filename=/dev/$HS --name=z$_o \
			--rw=read --bs=1m --direct=1 --ioengine=psync --offset=${_o}m \
			--size=${DISK_REG}m --time_based --runtime=$_rt > /tmp/disk$_o.t 2>&1 &
		_pids="$_pids $!"
	done
	# shellcheck disable=SC2086
	dpair "$1" "$2" "$3" $_pids
}

# disk_ionice WL CASE LABEL: readers 0 and 1 as threads of one fio at
# best-effort levels 0 and 7 (fio's prioclass/prio: what ionice sets).
disk_ionice() {
	rm -f /tmp/disk*.t
	_rt=$((DISK_WARM + REPS * DISK_FWIN + 60))
	fio --minimal --terse-version=3 --thread --filename=/dev/$HS --rw=read \
		--bs=1m --direct=1 --ioengine=psync --size=${DISK_REG}m \
		--time_based --runtime=$_rt \
		--name=p0 --prioclass=2 --prio=0 --offset=0 \
		--name=p7 --prioclass=2 --prio=7 --offset=${DISK_REG}m > /tmp/disk.t 2>&1 &
	_f=$!
	_ios=$(level_tids $_f 0 7) ||
		{ err "$1" "$2 $3: no reader threads: $(head -c 200 /tmp/disk.t)"; stop_fio $_f; return 1; }
	# shellcheck disable=SC2086
	dwindows "$DISK_WARM" "$DISK_FWIN" $_ios > /tmp/disk.w
	stop_fio $_f
	dres "$1" "$2" "$3" kib1 kib2
}

# disk_cg WL CASE LABEL: readers 0 and 1 as fio processes in cgroups
# bench0 and bench1 with io.bfq.weight 100 and 400 (where the active
# scheduler has the file: both bfqs).
disk_cg() {
	rm -f /tmp/disk*.t
	_rt=$((DISK_WARM + REPS * DISK_FWIN + 60))
	_pids='' _i=0
	for _w in 100 400; do
		_cg=$CGROOT/bench$_i
		[ -d "$_cg" ] || mkdir "$_cg"
		if [ -e "$_cg/io.bfq.weight" ]; then
			echo "$_w" > "$_cg/io.bfq.weight" || err "$1" "cannot set weight $_w on $_cg"
		fi
		sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$_cg" \
			fio --minimal --terse-version=3 --thread --filename=/dev/$HS --name=cg$_i \
			--rw=read --bs=1m --direct=1 --ioengine=psync \
			--offset=$((_i * DISK_REG))m --size=${DISK_REG}m \
			--time_based --runtime=$_rt > /tmp/disk$_i.t 2>&1 &
		_pids="$_pids $!"
		_i=$((_i + 1))
	done
	# shellcheck disable=SC2086
	dpair "$1" "$2" "$3" $_pids
}

# disk_seeky WL CASE LABEL: the two readers of d2 (one fio) and a 4 KiB
# O_DIRECT psync random reader over the whole disk (another fio).
# Columns: the two sequential readers together, the random one.
disk_seeky() {
	rm -f /tmp/disk*.t
	_rt=$((DISK_WARM + REPS * DISK_WIN + 60))
	fio --minimal --terse-version=3 --thread --filename=/dev/$HS --name=seq \
		--rw=read --bs=1m --direct=1 --ioengine=psync --numjobs=2 \
		--size=${DISK_REG}m --offset=0 --offset_increment=${DISK_REG}m \
		--time_based --runtime=$_rt > /tmp/disk.t 2>&1 &
	_seq_pid=$!
	fio --minimal --terse-version=3 --thread --filename=/dev/$HS --name=rnd \
		--rw=randread --bs=4k --direct=1 --ioengine=psync --offset=0 \
		--size="${DISK_MIB}m" --time_based --runtime=$_rt > /tmp/disk1.t 2>&1 &
	_rnd_pid=$!
	dwindows "$DISK_WARM" "$DISK_WIN" $_seq_pid $_rnd_pid > /tmp/disk.w
	stop_fio $_seq_pid $_rnd_pid
	dres "$1" "$2" "$3" seq_kib rnd_kib
}

# disk_lat WL LABEL: REPS groups one after the other in one fio (as in
# w3): a 4 KiB O_DIRECT psync random reader over the whole disk beside
# the two readers of d2; the random reader's completion latency, its
# reads, the two streams' KiB/s.
disk_lat() {
	_jobs='' _r=1
	while [ $_r -le $REPS ]; do
		_jobs="$_jobs --name=rnd$_r --rw=randread --bs=4k --offset=0 --size=${DISK_MIB}m --stonewall --new_group"
		_jobs="$_jobs --name=sq$_r --rw=read --bs=1m --offset=0 --size=${DISK_REG}m"
		_jobs="$_jobs --name=sq$_r --rw=read --bs=1m --offset=${DISK_REG}m --size=${DISK_REG}m"
		_r=$((_r + 1))
	done
	# shellcheck disable=SC2086
	fio --minimal --terse-version=3 --percentile_list=50:99:99.9 \
		--filename=/dev/$HS --direct=1 --ioengine=psync --time_based \
		--runtime="$DLAT_RUN" --ramp_time="$DLAT_RAMP" $_jobs > /tmp/dlat.t 2>&1
	awk -F';' '$1 == 3 { j = $3; r = j; sub(/^[a-z]+/, "", r); sub(/[0-9]+$/, "", j) }
		$1 == 3 && $5 != 0 { print r, "error", $5 }
		$1 == 3 && j == "rnd" { for (i = 18; i <= 20; i++) { split($i, a, "="); v[i] = a[2] }
			print r, "p50_us", v[18]; print r, "p99_us", v[19]; print r, "p999_us", v[20]
			print r, "rnd_ios", int($6 / 4); print r, "max_us", $15 }
		$1 == 3 && j == "sq" { sq[r] += $7 }
		END { for (r in sq) print r, "seq_kibs", sq[r] }' /tmp/dlat.t > /tmp/dlat.v
	if grep -q ' error ' /tmp/dlat.v || ! grep -q ' p99_us [0-9]' /tmp/dlat.v; then
		err "$1" "lat $2: fio: $(grep -v '^3;' /tmp/dlat.t | head -c 200 | tr '\n' ' ')"
	fi
	while read -r r m v; do
		[ "$m" = error ] || res "S $1 lat $2 $r $m $v"
	done < /tmp/dlat.v
	say "w$1 lat $2: $(awk '$2 ~ /p50_us|p99_us|rnd_ios/ { printf "%s ", $0 }' /tmp/dlat.v)"
}

w9() {
	hddsim_load || { err 9 "cannot load hddsim (no hddsim.ko in the guest?)"; return 1; }
	DISK_MIB=$(($(blockdev --getsize64 /dev/$HS) >> 20))
	_p=/sys/module/hddsim/parameters
	res "M hddsim $(for k in capacity_mb rpm seek_settle_us seek_full_us rate_outer_mbps rate_inner_mbps depth buffer_kb; do printf '%s=%s ' $k "$(cat $_p/$k)"; done)"
	for n in $DISK_NS; do
		res "C 9 d$n readers=$n bs=1m direct=1 engine=psync region_mib=$DISK_REG"
	done
	for n in $DISK_BNS; do
		res "C 9 b$n readers=$n bs=128k direct=0 engine=psync region_mib=$DISK_REG"
	done
	res "C 9 zones weights=1,1 offsets_mib=0,$((DISK_MIB - DISK_REG)) model_mbps=$(cat $_p/rate_outer_mbps),$(cat $_p/rate_inner_mbps)"
	res "C 9 ionice weights=80,10 levels=0,7"
	res "C 9 cg weights=100,400"
	res "C 9 seeky seq=2x1m-direct rnd=4k-direct-whole-disk"
	res "C 9 lat rnd=4k-direct-psync-whole-disk seq=2x1m-direct ramp_s=$DLAT_RAMP run_s=$DLAT_RUN"
	for s in $SCHEDS; do
		use_sched "$s" $HS || { err 9 "cannot use $s"; continue; }
		deep $HS
		for n in $DISK_NS; do
			disk_seq 9 "d$n" "$s" "$n" d
		done
		for n in $DISK_BNS; do
			disk_seq 9 "b$n" "$s" "$n" b
		done
		disk_zones 9 zones "$s"
		disk_ionice 9 ionice "$s"
		disk_cg 9 cg "$s"
		disk_seeky 9 seeky "$s"
		disk_lat 9 "$s"
		if [ "$s" = bfq-iosched ]; then
			res "M w9_bfq_stats $(tr '\n' ' ' < /sys/kernel/debug/block/$HS/sched/bfq_stats 2>/dev/null)"
			if iosched $HS low_latency 0; then
				disk_lat 9 bfq-iosched-ll0
			else
				err 9 "cannot set low_latency 0"
			fi
		fi
		say "w9 $s done"
	done
	# our knobs, one at a time, each on a fresh instance (sched_away frees
	# it: the measured peak rate and the budgets start again)
	if mod_loaded bfq_iosched; then
		for k in $DISK_KNOBS; do
			sched_away bfq
			set_sched $HS bfq || { err 9 "cannot select bfq for $k"; break; }
			deep $HS
			iosched $HS "${k%%=*}" "${k#*=}" || { err 9 "cannot set $k"; continue; }
			disk_seq 9 "d4@$k" bfq-iosched 4 d
			disk_zones 9 "zones@$k" bfq-iosched
		done
	else
		err 9 "bfq-iosched not loaded: no knob table"
	fi
	unload_both
	for i in 0 1; do rmdir "$CGROOT/bench$i" 2>/dev/null; done
	hddsim_unload
}

for w in $WLS; do
	case $w in 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9) ;; *) err 0 "no workload $w"; continue ;; esac
	say "=== workload $w starts at uptime $(now)"
	t0=$(now)
	w$w
	res "T $w $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')"
	unload_both
done
say "done at uptime $(now)"
