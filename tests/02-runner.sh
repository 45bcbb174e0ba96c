#!/bin/sh
# where: host
# timeout: 180
# The runner itself: scripts/check.sh and scripts/guest.sh on a fake QEMU
# (QEMU=...) that prints a console and writes the results channel as a
# scenario says, for two fake guest tests that both pass.  A guest that
# hangs or dies after its last RESULT line (dmesg dump, sync, power-off)
# must fail the run as "guest"; a splat on the console must fail it as
# "kernel-log" also when the guest timed out; a guest that dies inside a
# test fails that test, and one that locks up inside a test is stopped soon
# after that test's timeout.  Every output is TAP with a plan that prove
# accepts, and ends with the "P passed, F failed" line.
. "$(dirname "$0")/lib.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/.." && pwd)}
command -v timeout > /dev/null || skip "no timeout(1)"
W=$(mktemp -d /tmp/bfq-runner.XXXXXX) || fail "mktemp"
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/scripts" "$W/tests" "$W/build/logs"
cp "$TOPDIR/scripts/check.sh" "$TOPDIR/scripts/guest.sh" "$W/scripts/" || fail "copy"
for t in 50-alpha 51-beta; do
	printf '#!/bin/sh\n# where: guest\n# timeout: 1\n' > "$W/tests/$t.sh"
done
: > "$W/kernel"; : > "$W/initrd"; : > "$W/disk"

# the fake QEMU: console on stdout, results to the "-serial file:" path
cat > "$W/qemu" << 'EOF'
#!/bin/sh
res=
for a; do case $a in file:*) res=${a#file:} ;; esac; done
r() { printf '%s\r\n' "$*" >> "$res"; }
echo "Linux version 6.1.0-fake"
r "BOOT 1.00"
for t in 50-alpha 51-beta; do
	echo "======== $t (timeout 1s)"
	if [ $t = 51-beta ]; then
		case $FAKE in
		die-in-test) echo "Kernel panic - not syncing: fake"; exit 0 ;;
		splat-in-test) echo "[    2.0] WARNING: CPU: 1 PID: 9 at fake.c:1 fake+0x0/0x9" ;;
		hang-in-test) exec sleep 60 ;;
		esac
	fi
	echo "======== $t: rc=0"
	r "RESULT $t 0 "
done
echo "bfq-guest: ===== dmesg ====="
case $FAKE in
hang-dump) exec sleep 60 ;;
die-dump) echo "Kernel panic - not syncing: fake"; exit 0 ;;	# panic=-1, -no-reboot
splat-hang) echo "BUG: kernel NULL pointer dereference, address: 0"; exec sleep 60 ;;
esac
echo "bfq-guest: ===== end of dmesg ====="
r DONE
case $FAKE in
hang-poweroff) exec sleep 60 ;;
qemu-fails) exit 1 ;;
esac
exit 0
EOF
chmod +x "$W/qemu"

# run SCENARIO WANT_LAST_LINE [PATTERN...]: check.sh on the fake guest must
# end with WANT_LAST_LINE and print a line matching each PATTERN (ERE)
nrun=0
run() {
	sc=$1 want=$2; shift 2
	FAKE=$sc QEMU=$W/qemu KERNEL=$W/kernel INITRD=$W/initrd DISK=$W/disk \
		GUEST_LOCK=none GUEST_PREPARE=true HOST_TESTS=0 BOOT_SLACK=${SLACK:-3} \
		STALL=${STALL:-180} STALL_POLL=1 \
		LOG_PREFIX=$sc TOPDIR=$W T='' GUEST_LAST='' TMUL=1 APPEND='' SPLAT_EXTRA='' \
		bash "$W/scripts/check.sh" \
		> "$W/$sc.tap" 2> "$W/$sc.err"
	rc=$?
	sed "s/^/$sc: /" "$W/$sc.tap"
	last=$(tail -n 1 "$W/$sc.tap")
	[ "$last" = "$want" ] || fail "$sc: last line '$last', want '$want'"
	case $want in
	*" 0 failed") [ $rc -eq 0 ] || fail "$sc: check.sh exited $rc after '$last'" ;;
	*) [ $rc -ne 0 ] || fail "$sc: check.sh exited 0 after '$last'" ;;
	esac
	for p in "$@"; do
		grep -qE "$p" "$W/$sc.tap" || fail "$sc: no line matching '$p'"
	done
	# the plan covers every test line; prove reads it (exit 0 only if all ok)
	nt=$(grep -cE '^(not )?ok [0-9]+ ' "$W/$sc.tap")
	grep -qx "1\\.\\.$nt" "$W/$sc.tap" || fail "$sc: no plan line 1..$nt"
	if command -v prove > /dev/null; then
		prove --exec cat "$W/$sc.tap" > "$W/$sc.prove" 2>&1
		prc=$?
		grep -q 'Parse errors\|No plan found\|Bad plan' "$W/$sc.prove" &&
			fail "$sc: prove: $(grep -m 1 'Parse errors\|plan' "$W/$sc.prove")"
		if [ $rc -eq 0 ]; then [ $prc -eq 0 ] || fail "$sc: prove failed a passing run: $(tail -n 1 "$W/$sc.prove")"
		else [ $prc -ne 0 ] || fail "$sc: prove passed a failing run"; fi
	fi
	nrun=$((nrun + 1))
}

run ok "2 passed, 0 failed" '^ok 1 - alpha$' '^ok 2 - beta$'
run hang-dump "2 passed, 1 failed" '^not ok 3 - guest # timed out after the last test'
run die-dump "2 passed, 1 failed" '^not ok 3 - guest # died or did not finish after the last test'
run hang-poweroff "2 passed, 1 failed" '^not ok 3 - guest # timed out after the last test'
run qemu-fails "2 passed, 1 failed" '^not ok 3 - guest # died or did not finish'
run splat-hang "2 passed, 2 failed" '^not ok 3 - guest # timed out' \
	'^not ok 4 - kernel-log # .*BUG: kernel NULL pointer'
run splat-in-test "2 passed, 1 failed" '^not ok 3 - kernel-log # .*WARNING: CPU'
run die-in-test "1 passed, 1 failed" '^not ok 2 - beta # guest died before this test finished'
# a guest locked up in a test is stopped STALL s after that test's
# timeout, long before the guest timeout (the sum of all tests + SLACK)
t0=$(date +%s)
SLACK=100 STALL=2
run hang-in-test "1 passed, 1 failed" '^not ok 2 - beta # guest timed out before this test finished'
SLACK=3 STALL=180
[ $(($(date +%s) - t0)) -lt 30 ] || fail "hang-in-test: took $(($(date +%s) - t0)) s, the stall watch did not stop it"
grep -q 'no progress' "$W/hang-in-test.err" || fail "hang-in-test: no 'no progress' line from guest.sh"
log "runner: $nrun fake-guest scenarios reported as they should$(command -v prove > /dev/null && echo ', prove accepts each')"
