#!/bin/sh
# where: guest
# timeout: 300
# Not an NN- test: "make check-debug" runs it last, after all the others,
# on the sanitizer kernel (CONFIG_DEBUG_KMEMLEAK).  Two kmemleak scans, then
# the report is printed whole.  Fails if a leaked object was allocated from
# bfq_iosched: a frame named bfq_*/[bfq_iosched], or (the module is unloaded
# by now, so its frames are bare addresses) an address inside one of the
# places the module was loaded at, which /init records in /tmp/bfq-text
# when a test leaves it loaded.  A leak with a bare module address outside
# those places (a module unloaded since: ours when a test unloaded it
# itself, null_blk, scsi_debug, ...) fails too, as "unloaded module".
# Leaks from the kernel proper are counted and listed but do not fail.
. "$(dirname "$0")/lib.sh"

K=/sys/kernel/debug/kmemleak
[ -e "$K" ] || skip "no $K (kernel without CONFIG_DEBUG_KMEMLEAK)"
unload_bfq || fail "cannot unload bfq_iosched before the scan"

# Two scans: an object must be seen unreferenced twice to be reported;
# the pause lets RCU frees and workqueues settle.
echo scan > "$K" || fail "kmemleak scan refused (kmemleak disabled?)"
sleep 5
echo scan > "$K"
cat "$K" > /tmp/kmemleak.txt

# lower 32 bits of module text ranges "0xffffffffc0123000 SIZE", one a line
ranges=
[ -f /tmp/bfq-text ] && ranges=$(sort -u /tmp/bfq-text)
in_bfq() {	# in_bfq ffffffffc0123456
	_a=$((0x${1#ffffffff}))
	echo "$ranges" | while read -r _s _z; do
		[ -n "$_s" ] || continue
		_s=${_s#0x}; _s=$((0x${_s#ffffffff}))
		[ "$_a" -ge "$_s" ] && [ "$_a" -lt $((_s + _z)) ] && { echo y; break; }
	done
}

total=0 ours=0 unk=0
obj=
flush() {
	[ -n "$obj" ] || return 0
	total=$((total + 1))
	hit=
	if echo "$obj" | grep -q 'bfq'; then
		hit=y
	else
		for a in $(echo "$obj" | sed -n 's/.*\[<\(ffffffffc[0-9a-f]*\)>\] 0x.*/\1/p'); do
			if [ -n "$(in_bfq "$a")" ]; then hit=y; break; fi
			hit=u
		done
	fi
	case $hit in
	y) ours=$((ours + 1)); echo "$obj" > "/tmp/kmemleak-bfq-$ours.txt" ;;
	u) unk=$((unk + 1)); echo "$obj" > "/tmp/kmemleak-mod-$unk.txt" ;;
	esac
	obj=
}
while IFS= read -r l; do
	case $l in
	unreferenced\ object*) flush; obj=$l ;;
	*) obj="$obj
$l" ;;
	esac
done < /tmp/kmemleak.txt
flush

echo "---- kmemleak report ($total objects) ----"
cat /tmp/kmemleak.txt
echo "---- end of kmemleak report ----"
echo "bfq_iosched was loaded at: $(echo "$ranges" | cut -d' ' -f1 | tr '\n' ' ')"
if [ "$ours" -gt 0 ] || [ "$unk" -gt 0 ]; then
	for f in /tmp/kmemleak-bfq-*.txt; do [ -f "$f" ] && { echo "== leak from bfq_iosched:"; cat "$f"; }; done
	for f in /tmp/kmemleak-mod-*.txt; do [ -f "$f" ] && { echo "== leak from an unloaded module:"; cat "$f"; }; done
	fail "kmemleak: of $total leaked objects, $ours were allocated by bfq_iosched, $unk by an unloaded module (maybe bfq_iosched)"
fi
log "kmemleak: $total leaked objects, none allocated by bfq_iosched"
