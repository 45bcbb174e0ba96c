#!/bin/sh
# Print the kernel release to build for when KVER is not given (used by the
# Makefile and the scripts, so that they all agree):
#   1. the running kernel, if it is a 6.1 kernel and its headers are
#      installed (/lib/modules/$(uname -r)/build), as on a real machine;
#   2. else the newest installed 6.1 headers of Debian's plain amd64
#      flavour, else of any flavour (cloud-amd64, rt-amd64).
# Prints nothing when no 6.1 headers are installed.
run=$(uname -r)
case $run in
6.1.*)
	if [ -e "/lib/modules/$run/build/Makefile" ]; then
		echo "$run"
		exit 0
	fi
	;;
esac
all=$(ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | sed 's|.*/linux-headers-||')
plain=$(echo "$all" | grep -Ev -- '-(cloud|rt)-amd64$')
echo "${plain:-$all}" | sort -V | tail -n 1
