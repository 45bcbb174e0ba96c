#!/bin/sh
# where: host
# timeout: 300
# bfq_pd_free() drops the module reference each group holds (so rmmod
# waits for the blkcg core to free every group) and must run no code of
# ours after it: module_put() has to be its tail call, a jmp, not a call
# followed by a return through our text.  Checked in the object code.
. "$(dirname "$0")/lib.sh"
cd "$TOPDIR" || fail "no TOPDIR"
# W=1 as tests/01-build.sh and the guest build: the same flags, no rebuild
make W=1 > /dev/null 2>&1 || fail "build failed"
fn=$(objdump -dr --no-show-raw-insn bfq-cgroup.o | awk '/<bfq_pd_free>:/, /^$/')
[ -n "$fn" ] || fail "no bfq_pd_free in bfq-cgroup.o"
echo "$fn"
# the instruction before the module_put relocation, and what follows it
put=$(echo "$fn" | grep -B 1 'R_X86_64_PLT32[[:space:]]*module_put' | head -n 1)
case $put in
*jmp*) ;;
"") fail "bfq_pd_free does not call module_put" ;;
*) fail "module_put is not a tail call in bfq_pd_free: $put" ;;
esac
[ "$(echo "$fn" | grep -c 'R_X86_64_PLT32[[:space:]]*module_put')" = 1 ] ||
	fail "more than one module_put in bfq_pd_free"
log "bfq_pd_free ends in a jmp to module_put"
