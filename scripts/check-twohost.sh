#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The two-host test: two Debian 6.12 QEMU guests joined by a QEMU socket
# network backend, nsight in each, a UDP request/response load from the
# client guest to the server guest, and nsight-analyze --merge on the host
# over the two captures (selftests/twohost/twohost.sh runs in the guests).
#
#   scripts/check-twohost.sh [OUTDIR [NSIGHT.KO]]
#
# Three scenarios, a pair of guests each: "client-egress" steps the
# server's clock +37 s and makes it run +300 ppm fast (adjtimex) and delays
# the client's egress on the guest link with netem (every request 0 to 40
# ms); "server-egress" steps it -5 s, -200 ppm, and delays the server's
# egress (every response); "server-hog" steps it +600 s, +100 ppm, and runs
# a periodic CPU hog (10 ms of every 27 ms at nice -5) beside the echo
# server on its one vCPU. The true clock
# offset is measured independently: each guest probes the host's
# CLOCK_MONOTONIC_RAW (timeprobe, over a second, user-mode NIC; a reference
# the host's time daemon cannot step or slew) before and after the load,
# which bounds guest - host at two instants; the offset between the
# guests at the merge's reference instant is interpolated from those, with
# the sum of the probes' bounds as its uncertainty, and the drift likewise.
# Checks per scenario: every request matched on both hosts, the estimated
# offset's bound overlaps the measured offset's, the drift's likewise, no
# wire time below zero, and the tail's deviation is put on the delayed
# host's send layer (netem) or the server's wakeup layer (hog), ranked by
# the tail requests each is the main part of. Prints
# KTAP on stdout; files in OUTDIR/twohost/SCENARIO (default OUTDIR
# build/check).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
out=${1:-$top/build/check}/twohost
ko=${2:-}
N=${NSIGHT_TWOHOST_REQUESTS:-300}
NETEM="delay 20ms 20ms"
rm -rf "$out"
mkdir -p "$out"

n=0 failed=0
finish() {
	echo "1..$n"
	exit $((failed > 0))
}

echo "KTAP version 1"
kdir=$(kdir_of deb612)
kver=$(basename "$(dirname "$kdir")")
kernel=/boot/vmlinuz-$kver
if [ -z "$kdir" ] || [ ! -r "$kernel" ] || ! command -v jq >/dev/null; then
	echo "ok 1 - twohost # SKIP needs Debian 6.12 (image and headers) and jq"
	echo "1..1"
	exit 0
fi
if [ -z "$ko" ]; then
	ko=$("$top/scripts/build-modules.sh" "deb612=$kdir" 2>"$out/build.err" | awk '{print $2}')
fi
make -s -C "$top/userspace" >/dev/null 2>"$out/build.err" &&
	make -s -C "$top/selftests" >/dev/null 2>>"$out/build.err"
if [ ! -r "$ko" ] || ! "$top/selftests/harness/mkinitramfs.sh" --out "$out/twohost.cpio.gz" \
	--kver "$kver" --kmods "e1000e sch_netem" --file "$ko:/lib/nsight/nsight.ko" \
	--bin "$top/userspace/nsightctl" --bin "$top/build/selftests/msgload" \
	--bin "$top/build/selftests/timeprobe" --bin "$top/build/selftests/hog" --bin /usr/sbin/tc \
	--tests "$top/selftests/twohost" 2>"$out/initramfs.err"; then
	ktap_result FAIL "build the guests' initramfs" "$(cat "$out/build.err" "$out/initramfs.err" | tail -n 20)"
	finish
fi

# free_port tcp|udp: a random port nothing listens on.
free_port() {
	while :; do
		p=$(shuf -i 20000-60000 -n 1)
		[ -z "$(ss -Hln"$(echo "$1" | cut -c1)" "sport = :$p")" ] && echo "$p" && return
	done
}
probe_port=$(free_port udp)
initrd=$out/twohost.cpio.gz
"$top/build/selftests/timeprobe" serve "$probe_port" &
probe_pid=$!
trap 'kill $probe_pid 2>/dev/null' EXIT

# guest ROLE MAC NETDEV-OPTION EXTRA-APPEND [VCPUS] (in $out, the scenario's)
guest() {
	"$top/selftests/harness/run-guest.sh" --kernel "$kernel" --initrd "$initrd" \
		--smp "${5:-2}" \
		--log "$out/$1.serial.log" --tests twohost --timeout 280 --test-timeout 240 \
		--append "tsc=reliable nsight_role=$1 nsight_mac=$2 nsight_requests=$N" \
		--append "nsight_probe_port=$probe_port $4" \
		--qemu-args "-netdev user,id=h0 -device e1000e,netdev=h0,mac=${2%?}f" \
		--qemu-args "-netdev socket,id=n1,$3 -device e1000e,netdev=n1,mac=$2" \
		>"$out/$1.ktap" 2>"$out/$1.err"
}
# scenario NAME STEP FREQ_PPM DELAY: one pair of guests. DELAY is what
# slows requests down: "client" or "server" (netem on that host's egress:
# its send layer must lead the tail) or "hog" (a CPU hog on the server's
# application core: the server's wakeup layer must).
scenario() {
name=$1 STEP=$2 FREQ_PPM=$3 delay=$4
out=$base/$1
mkdir -p "$out"
echo "# scenario $name: server clock step $STEP s, frequency $FREQ_PPM ppm; delay: $delay"
link_port=$(free_port tcp)
netem="nsight_netem=$(echo "$NETEM" | tr ' ' '+')"
case $delay in
server) snetem=$netem cnetem= want_host=server want_layer="server send" ;;
client) snetem= cnetem=$netem want_host=client want_layer="client send" ;;
hog) snetem=nsight_hog=1 cnetem= want_host=server want_layer="server wakeup" ;;
esac
# The hog's server has one vCPU. The scenario was set up while hog still
# spun without PAUSE, which under single-threaded TCG stalls the guest's
# other vCPU (selftests/progs/hog.c): with two, the NIC's receive (its n,
# on the other vCPU) came late and the hog showed as wire time. On one
# vCPU interrupts preempt the hog at once; it stays so, as validated.
svcpus=2
[ "$delay" = hog ] && svcpus=1
t0=$(date +%s)
guest server 52:54:00:77:00:02 "listen=127.0.0.1:$link_port" \
	"nsight_clock_step=$STEP nsight_clock_freq=$((FREQ_PPM * 65536)) $snetem" "$svcpus" &
spid=$!
sleep 2
guest client 52:54:00:77:00:01 "connect=127.0.0.1:$link_port" "$cnetem" &
cpid=$!
wait $spid
src=$?
wait $cpid
crc=$?
for r in server client; do
	if [ "$r" = server ]; then rc=$src; else rc=$crc; fi
	if [ "$rc" -eq 0 ]; then
		ktap_result OK "$name: $r guest: every check passed"
	else
		ktap_result FAIL "$name: $r guest: every check passed" \
			"$(grep -E 'not ok|^#' "$out/$r.ktap" | tail -n 15; tail -n 5 "$out/$r.err")"
	fi
	tr -d '\r' <"$out/$r.serial.log" |
		sed -n "/^NSIGHT-CAPTURE-BEGIN $r\$/,/^NSIGHT-CAPTURE-END $r\$/p" | sed '1d;$d' |
		base64 -d 2>/dev/null | gunzip >"$out/$r.nsight" 2>/dev/null
done
echo "# guests ran in $(( $(date +%s) - t0 )) s"
if [ ! -s "$out/client.nsight" ] || [ ! -s "$out/server.nsight" ]; then
	ktap_result FAIL "$name: captures copied out of both guests"
	return
fi
ktap_result OK "$name: captures copied out of both guests"

an=$top/userspace/nsight-analyze
"$an" --merge "$out/client.nsight" "$out/server.nsight" >"$out/merge.txt" 2>"$out/merge.err"
if ! "$an" --merge --json "$out/client.nsight" "$out/server.nsight" >"$out/merge.json" \
	2>>"$out/merge.err"; then
	ktap_result FAIL "$name: nsight-analyze --merge" "$(cat "$out/merge.err")"
	return
fi
ktap_result OK "$name: nsight-analyze --merge" "$(cat "$out/merge.txt")"
j() { jq -r "$1" "$out/merge.json"; }

# Joined: every part of every request found on both hosts; "untimed" (a
# stage of one host's message missing, as when a record was lost there)
# is a joined request and may be up to 1% of them.
complete=$(j '.states.complete') untimed=$(j '.states.untimed')
ktap_result "$([ "$(j .requests)" = "$N" ] && [ $((complete + untimed)) -eq "$N" ] &&
	[ $((untimed * 100)) -le "$N" ] && echo OK || echo FAIL)" \
	"$name: all $N requests matched on both hosts" \
	"requests $(j .requests), complete $complete, untimed $untimed"

# The probes: "probe MID OFFSET HALF" per guest, before (1) and after (2).
probe() { # probe ROLE 1|2 -> "MID OFFSET HALF"
	tr -d '\r' <"$out/$1.serial.log" | sed -n "s/^ *# probe$2 probe //p" | head -n 1
}
truth=$(awk -v x0="$(j .clock.at_client_ns)" -v c1="$(probe client 1)" -v c2="$(probe client 2)" \
	-v s1="$(probe server 1)" -v s2="$(probe server 2)" '
function interp(a, b, x) { # a, b: "mid off half"; off (host - guest) at guest time x
	split(a, p); split(b, q)
	return p[2] + (q[2] - p[2]) * (x - p[1]) / (q[1] - p[1])
}
BEGIN {
	if (c1 == "" || c2 == "" || s1 == "" || s2 == "") { print "none"; exit }
	split(c1, a); split(c2, b); split(s1, c); split(s2, d)
	oc = interp(c1, c2, x0)			# host - client at client time x0
	h0 = x0 + oc				# the host time of x0
	# server time at h0: h0 - off_s; off_s(x) interpolated at server time x
	# (found by one fixed-point step from x = h0 - first offset).
	xs = h0 - c[2]; os = interp(s1, s2, xs); xs = h0 - os; os = interp(s1, s2, xs)
	theta = oc - os				# server - client at x0
	u = (a[3] > b[3] ? a[3] : b[3]) + (c[3] > d[3] ? c[3] : d[3])
	# Drift: the change of (host - server) - (host - client) per client ns.
	dc = (b[2] - a[2]) / (b[1] - a[1]); ds = (d[2] - c[2]) / (d[1] - c[1])
	drift = (dc - ds) * 1e6
	ud = ((a[3] + b[3]) / (b[1] - a[1]) + (c[3] + d[3]) / (d[1] - c[1])) * 1e6
	printf "%.0f %.0f %.3f %.3f\n", theta, u, drift, ud
}')
if [ "$truth" = none ] || [ -z "$truth" ]; then
	ktap_result FAIL "$name: the probes measured both guests' clocks"
	return
fi
set -- $truth
theta=$1 u=$2 drift=$3 ud=$4
lo=$(j .clock.offset_lo_ns) hi=$(j .clock.offset_hi_ns) est=$(j .clock.offset_ns)
dlo=$(j .clock.drift_lo_ppm) dhi=$(j .clock.drift_hi_ppm) dest=$(j .clock.drift_ppm)
ok=$(awk -v lo="$lo" -v hi="$hi" -v t="$theta" -v u="$u" 'BEGIN { print (lo <= t + u && t - u <= hi) ? "OK" : "FAIL" }')
ktap_result "$ok" "$name: estimated offset's bound overlaps the measured offset" \
	"$(awk -v e="$est" -v lo="$lo" -v hi="$hi" -v t="$theta" -v u="$u" -v s="$STEP" 'BEGIN {
		printf "estimate %.3f us, bound [%.3f, %.3f] us; measured (probes) %.3f +- %.3f us; set: step %d s",
			e / 1000, lo / 1000, hi / 1000, t / 1000, u / 1000, s }')"
ok=$(awk -v lo="$dlo" -v hi="$dhi" -v t="$drift" -v u="$ud" 'BEGIN { print (lo <= t + u && t - u <= hi) ? "OK" : "FAIL" }')
ktap_result "$ok" "$name: estimated drift's bound overlaps the measured drift" \
	"estimate $dest ppm, bound [$dlo, $dhi] ppm; measured (probes) $drift +- $ud ppm; set: adjtimex $FREQ_PPM ppm"
ktap_result "$([ "$(j .clamped)" = 0 ] && [ "$(j .clock.consistent)" = true ] && echo OK || echo FAIL)" \
	"$name: no negative wire time (consistent fit, nothing clamped)" \
	"clamped $(j .clamped), consistent $(j .clock.consistent), violation $(j .clock.violation_ns) ns"
# The leading layer and host as the diagnosis ranks causes: by the tail
# requests they are the main part of, then by deviation (one outlier on
# the emulated wire cannot outweigh a cause in most of the tail).
top_layer=$(jq -r '.layers | max_by([.main, .tail_dev_ns]) | .layer' "$out/merge.json")
top_host=$(jq -r '.hosts | max_by([.main, .tail_dev_ns]) | .host' "$out/merge.json")
share=$(jq -r ".layers[] | select(.layer == \"$want_layer\") | \"\\(.share) \\(.main)\"" "$out/merge.json")
# The margin: the runner-up layer by the same ranking.
second=$(jq -r '.layers | sort_by([.main, .tail_dev_ns]) | reverse | .[1] // {} | "\(.layer) \(.share) \(.main)"' "$out/merge.json")
ktap_result "$([ "$top_layer" = "$want_layer" ] && [ "$top_host" = "$want_host" ] && echo OK || echo FAIL)" \
	"$name: delay ($delay): the tail's deviation is the $want_layer layer" \
	"top layer '$top_layer', top host '$top_host'; $want_layer: share and main of $(j .tail) tail requests: $share; runner-up layer, share, main: $second"
echo "# $name: $(( $(date +%s) - t0 )) s"
}

base=$out
t00=$(date +%s)
scenario client-egress 37 300 client
scenario server-egress -5 -200 server
scenario server-hog 600 100 hog
echo "# total $(( $(date +%s) - t00 )) s"
finish
