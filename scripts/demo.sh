#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo: build everything, boot a Debian 6.12 guest, load nsight, run a
# UDP echo server with a CPU hog ("hog") injected on its core, capture,
# bring the capture to the host and print nsight-analyze's report, whose
# diagnosis must name the hog; the HTML report and the Perfetto trace are
# written beside it. Then a flight recording of the same server with the
# hog running 40 ms of every second: its first saved window, the slow
# request that fired it first.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
harness=$top/selftests/harness
out=$top/build/demo
mkdir -p "$out"

step() { echo "== $*" >&2; }

step "building nsight.ko (Debian 6.12), nsightctl, nsight-analyze"
kdir=$(kdir_of deb612) || { echo "demo: no Debian 6.12 headers (make deps)" >&2; exit 1; }
ko=$("$top/scripts/build-modules.sh" "deb612=$kdir" | awk '{print $2}')
make -s -C "$top/userspace"
make -s -C "$top/selftests"
kver=$(basename "$(dirname "$kdir")")

step "building the guest initramfs"
"$harness/mkinitramfs.sh" --out "$out/demo.cpio.gz" --kver "$kver" --kmods veth \
	--file "$ko:/lib/nsight/nsight.ko" \
	--bin "$top/userspace/nsightctl" --bin "$top/userspace/nsight-analyze" \
	--bin "$top/build/selftests/msgload" --bin "$top/build/selftests/hog" \
	--tests "$top/selftests/demo"

step "booting Linux $kver under QEMU (TCG, -icount) and capturing"
if ! "$harness/run-guest.sh" --kernel "/boot/vmlinuz-$kver" --initrd "$out/demo.cpio.gz" \
	--log "$out/serial.log" --tests all --timeout 900 --icount \
	--append tsc=reliable >"$out/guest.ktap"; then
	cat "$out/guest.ktap" >&2
	echo "demo: the guest run failed (serial log: $out/serial.log)" >&2
	exit 1
fi
grep '^    #' "$out/guest.ktap" | sed 's/^    # \{0,1\}/   guest: /' >&2

tr -d '\r' <"$out/serial.log" |
	sed -n '/^NSIGHT-CAPTURE-BEGIN$/,/^NSIGHT-CAPTURE-END$/p' | sed '1d;$d' |
	base64 -d >"$out/capture.nsight"
step "capture: $out/capture.nsight ($(wc -c <"$out/capture.nsight") bytes); nsight-analyze:"
"$top/userspace/nsight-analyze" --html "$out/report.html" --perfetto "$out/trace.json" \
	"$out/capture.nsight" >"$out/report.txt"
cat "$out/report.txt"
# The server's diagnosis: its requests are the messages the hog delays.
spid=$(sed -n 's/.*# server pid \([0-9]*\).*/\1/p' "$out/guest.ktap" | head -n 1)
first=$(awk -v p="[$spid]" '$1 == "diagnosis:" && index($2, p) && $3 == "rx:" {on = 2; next}
	on == 2 {on = 1; next} on == 1 {sub(/^ +/, ""); sub(/ +[0-9].*$/, ""); print; exit}' \
	"$out/report.txt")
step "the server (pid ${spid:-?}): first cause of its slow requests: ${first:-none}"
step "plots: $out/report.html (open in a browser); trace: $out/trace.json (open in https://ui.perfetto.dev or chrome://tracing)"

tr -d '\r' <"$out/serial.log" |
	sed -n '/^NSIGHT-FLIGHT-BEGIN$/,/^NSIGHT-FLIGHT-END$/p' | sed '1d;$d' |
	base64 -d >"$out/flight.nsight"
"$top/userspace/nsight-analyze" --color never "$out/flight.nsight" >"$out/flight.txt"
step "flight recorder (nsightctl record --flight-recorder --trigger 'latency>1ms', the hog 40 ms of every second): $out/flight.nsight ($(wc -c <"$out/flight.nsight") bytes); its first window:"
sed -n '/^windows:/p' "$out/flight.txt"
awk '/^window 0:/ { on = 1 } /^window 1:/ { exit } on' "$out/flight.txt"
step "every window: $out/flight.txt"
