#!/bin/bash
# Test runner behind "make check".  Runs host tests (# where: host) here,
# then all selected guest tests (# where: guest) in one QEMU boot.
# stdout (TAP, so prove reads it): "ok N - name", "ok N - name # SKIP why",
# "not ok N - name # why", the plan "1..N", then one line "P passed,
# F failed[, S skipped]".  Besides the tests, a guest that hangs or dies
# (even after its last test) fails as "guest", and kernel trouble anywhere
# on the guest console as "kernel-log".  Details go to stderr and
# build/logs/.  Env: T=name[,name...] (with or without the NN- prefix; T=none
# runs no NN- test, only GUEST_LAST: make soak).
# For scripts/check-debug.sh (another kernel): HOST_TESTS=0 skips host
# tests; GUEST_PREPARE=cmd builds module + initramfs instead of make +
# scripts/mkinitramfs.sh; GUEST_LAST=name... guest tests run after the
# selected ones (may be non-NN files in tests/); TMUL=n multiplies guest
# test timeouts; BOOT_SLACK=s (default 120) is added to the guest timeout;
# LOG_PREFIX (default check).  KERNEL, INITRD, DISK, MEM, APPEND and
# SPLAT_EXTRA are passed on to scripts/guest.sh.
set -u
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/.." && pwd)}
KVER=${KVER:-$("$TOPDIR"/scripts/kver.sh)}
B=$TOPDIR/build
LOGS=$B/logs
mkdir -p "$LOGS"
export TOPDIR KVER
cd "$TOPDIR" || exit 2

n=0 passed=0 failed=0 skipped=0
report() {	# report NAME RC REASON
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1)); echo "ok $n - $1"
	elif [ "$2" -eq 77 ]; then
		skipped=$((skipped + 1)); echo "ok $n - $1 # SKIP ${3:-}"
	else
		failed=$((failed + 1)); echo "not ok $n - $1 # ${3:-exit $2}"
	fi
}
short() { echo "${1#[0-9][0-9]-}"; }	# 10-load-x -> load-x
field() { sed -n "s/^# $1: *\([^ ]*\).*/\1/p" "$2" | head -n 1; }

# --- select tests
all=$(ls tests/[0-9][0-9]-*.sh 2>/dev/null | sed 's|tests/||; s|\.sh$||' | sort)
sel=
if [ -n "${T:-}" ]; then
	for want in ${T//,/ }; do
		[ "$want" != none ] || continue	# T=none: only GUEST_LAST (make soak)
		hit=
		for t in $all; do
			if [ "$t" = "$want" ] || [ "$(short "$t")" = "$want" ] || [ "$t.sh" = "$want" ] || [ "$(short "$t").sh" = "$want" ]; then hit=$t; fi
		done
		[ -n "$hit" ] || { echo "check: no test named '$want' (have: $(for t in $all; do short "$t"; done | tr '\n' ' '))" >&2; exit 2; }
		sel="$sel $hit"
	done
else
	sel=$all
fi

TMUL=${TMUL:-1}
for t in ${GUEST_LAST:-}; do
	[ -f "tests/$t.sh" ] || { echo "check: no tests/$t.sh" >&2; exit 2; }
	sel="$sel $t"
done
host='' guest='' guest_to=0
for t in $sel; do
	case $(field where "tests/$t.sh") in
	host) [ "${HOST_TESTS:-1}" = 0 ] || host="$host $t" ;;
	guest) guest="$guest $t"; to=$(field timeout "tests/$t.sh"); guest_to=$((guest_to + ${to:-180} * TMUL)) ;;
	*) report "$(short "$t")" 1 "no '# where: host|guest' line" ;;
	esac
done

# --- host tests: one at a time, each with its own timeout and log
for t in $host; do
	to=$(field timeout "tests/$t.sh")
	out=$LOGS/host-$t.log
	timeout -k 5 "${to:-300}" sh "tests/$t.sh" > "$out" 2>&1
	rc=$?
	why=
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then why="timed out after ${to:-300}s"
	elif [ $rc -eq 77 ]; then why=$(sed -n 's/^SKIP: *//p' "$out" | tail -n 1)
	elif [ $rc -ne 0 ]; then why=$(grep -v '^[[:space:]]*$' "$out" | tail -n 1)
	fi
	if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
		{ echo "--- $t failed, last lines of $out:"; tail -n 15 "$out"; } >&2
	fi
	report "$(short "$t")" "$rc" "$why"
done

# --- guest tests: build, pack, boot once
if [ -n "$guest" ]; then
	glog=$LOGS/guest-build.log
	gerr=
	# W=1 like tests/01-build.sh, so a preceding build test is not redone
	if [ -n "${GUEST_PREPARE:-}" ]; then
		glog=$LOGS/${LOG_PREFIX:-check}-build.log
		sh -c "$GUEST_PREPARE" > "$glog" 2>&1 || gerr="module/initramfs build failed (see $glog)"
	elif ! make -s -C "$TOPDIR" modules W=1 > "$glog" 2>&1; then
		gerr="module build failed (see $glog)"
	elif ! scripts/mkinitramfs.sh >> "$glog" 2>&1; then
		gerr="initramfs build failed (see $glog)"
	fi
	if [ -n "$gerr" ]; then
		tail -n 15 "$glog" >&2
		for t in $guest; do report "$(short "$t")" 1 "$gerr"; done
	else
		list=$(echo $guest | tr ' ' ',')
		# boot (~20 s) + the tests' own timeouts + the dmesg dump
		clog=$LOGS/${LOG_PREFIX:-check}-$(date +%Y%m%d-%H%M%S).log
		res=${clog%.log}.results
		[ "$TMUL" = 1 ] || APPEND="${APPEND:+$APPEND }bfqtmul=$TMUL"
		GUEST_LOG=$clog QUIET=1 TIMEOUT=$((guest_to + ${BOOT_SLACK:-120})) APPEND=${APPEND:-} \
			scripts/guest.sh check "$list"
		grc=$?
		case $grc in
		124) lost="guest timed out before this test finished" ;;
		*) lost="guest died before this test finished" ;;
		esac
		declare -A seen=()
		nlost=0
		for t in $guest; do
			# the k-th time a test is listed gets its k-th RESULT line
			seen[$t]=$(( ${seen[$t]:-0} + 1 ))
			line=$(tr -d '\r' < "$res" 2>/dev/null | grep "^RESULT $t " | sed -n "${seen[$t]}p")
			if [ -z "$line" ]; then
				report "$(short "$t")" 1 "$lost (see log)"
				nlost=$((nlost + 1))
				continue
			fi
			set -- $line
			rc=$3; shift 3
			if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
				{ echo "--- $t failed, its last console lines ($clog):"
				  tr -d '\r' < "$clog" | sed -n "/^======== $t (timeout/,/^======== $t: rc=/p" | tail -n 15
				} >&2
			fi
			report "$(short "$t")" "$rc" "$*"
		done
		# every test has its result, but the guest did not end well: the
		# final dmesg dump, sync or power-off hung or died
		if [ $nlost -eq 0 ] && [ $grc -ne 0 ] && [ $grc -ne 4 ]; then
			case $grc in
			124) why="timed out after the last test (dmesg dump, sync or power-off)" ;;
			*) why="died or did not finish after the last test (exit $grc; dmesg dump, sync or power-off)" ;;
			esac
			report "guest" 1 "$why, see $clog"
		fi
		# guest.sh scans the console however the guest ended
		if [ -s "$clog.splat" ]; then
			splat=$(head -n 1 "$clog.splat" | tr -d '\r' | cut -d: -f2- | cut -c1-160)
			report "kernel-log" 1 "kernel trouble on the guest console: $splat"
		fi
	fi
fi

echo "1..$n"
summary="$passed passed, $failed failed"
[ $skipped -eq 0 ] || summary="$summary, $skipped skipped"
echo "$summary"
[ $failed -eq 0 ]
