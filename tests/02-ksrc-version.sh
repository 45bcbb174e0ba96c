#!/bin/sh
# where: host
# timeout: 30
# scripts/ksrc.sh takes the private headers from any linux-source-6.1 of
# the same upstream release as linux-headers-$KVER: another Debian
# revision passes (with a note), another upstream version is refused.
# dpkg-query is a stub on PATH that reports the versions of a scenario; a
# stamp that already names the source version spares the extraction.
. "$(dirname "$0")/lib.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/.." && pwd)}
W=$(mktemp -d /tmp/bfq-ksrc.XXXXXX) || fail "mktemp"
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/bin" "$W/build/ksrc" "$W/lib/modules"
K=$(sh "$TOPDIR/scripts/kver.sh")
[ -n "$K" ] && [ -d "/lib/modules/$K/build" ] || skip "no linux-headers installed"
# scenario HEADERS SOURCE: run ksrc.sh with these package versions
scenario() {
	printf '#!/bin/sh\ncase "$*" in *linux-headers-*) echo %s ;; *) echo %s ;; esac\n' \
		"$1" "$2" > "$W/bin/dpkg-query" && chmod +x "$W/bin/dpkg-query"
	echo "$2" > "$W/build/ksrc/.extracted"
	PATH="$W/bin:$PATH" TOPDIR="$W" KVER="$K" KSRC_TAR=/dev/null \
		sh "$TOPDIR/scripts/ksrc.sh" > "$W/out" 2>&1
}
scenario 6.1.192-3 6.1.192-3 || fail "same versions refused: $(cat "$W/out")"
scenario 6.1.192-3 6.1.192-4 || fail "same upstream, other revision refused: $(cat "$W/out")"
grep -q "same upstream version" "$W/out" || fail "no note for another revision: $(cat "$W/out")"
log "other Debian revision: $(cat "$W/out")"
scenario 6.1.192-3 6.1.193-1 && fail "another upstream version accepted"
grep -q "version mismatch" "$W/out" || fail "no clear error: $(cat "$W/out")"
log "other upstream version: $(cat "$W/out")"
scenario 6.1.192-3 6.1.19-3 && fail "6.1.19 taken for 6.1.192"
log "ksrc.sh matches upstream versions, not Debian revisions"
