#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# NIC hardware stamps from a NIC that gives them: QEMU 10's igb (an 82576),
# in the guest of make check's guest-igb suite (QEMU from
# scripts/qemu-igb.sh; the other guests have no igb and skip this).
# nsightctl config --hw-timestamps is refused, exit 1 with the driver's
# answer (Linux's igb cannot stamp every received packet on an 82576:
# ERANGE), and the interface keeps its setting. TX stamps, turned on alone
# by hwts_tx (SIOCSHWTSTAMP tx on, rx none; its setting before put back
# at its end), for a UDP socket that asks for them
# (SOF_TIMESTAMPING_TX_HARDWARE | RAW_HARDWARE) reach a capture taken
# meanwhile: its TX_TSTAMP packet records hold the very stamps the socket
# got, and no other; a stamp 1 ns off is found in none (the control).
. /lib/nsight/lib.sh

N=${nsight_igb_count:-20}
ifname=$(nic_of igb) || ktap_skip_all "no igb in this guest (QEMU 10's: make check's guest-igb)"
# The datagrams go to a neighbour of a permanent entry: no answer to ARP
# is needed, the NIC stamps them as they leave.
ip link set "$ifname" up
ip addr add 192.0.2.1/24 dev "$ifname"
ip neigh replace 192.0.2.2 lladdr 02:00:00:00:00:02 dev "$ifname" nud permanent
# Sent before the link is up, a datagram would be dropped unstamped.
wait_until 300 0.1 grep -qx 1 "/sys/class/net/$ifname/carrier" ||
	ktap_diag "$ifname: no carrier after 30 s"
STATE=/run/nsight/hwtstamp

ktap_plan 10
nsight_load
# A setting of its own beforehand (TX off, RX stamps of PTPv2 event
# packets, which the 82576 has), which each step must leave as it was.
hwstamp_ctl -i "$ifname" -t 0 -r 12 >/dev/null 2>&1
before=$(hwts_get "$ifname")
ktap_diag "$ifname before: tx_type rx_filter $before"

nsightctl config --hw-timestamps "$ifname" >/tmp/igb.out 2>/tmp/igb.err
rc=$?
cat /tmp/igb.err
check "config --hw-timestamps refused: exit 1, the driver's ERANGE named" sh -c "
	[ $rc -eq 1 ] &&
	grep -q '$ifname: the driver cannot stamp every received packet.*Numerical result out of range' /tmp/igb.err"
check "refused: nothing left to restore" sh -c "! test -e $STATE"
check "refused: $ifname's setting as before" hwts_is "$ifname" "$before"

check "start" nsightctl start
hwts_tx send "$ifname" 192.0.2.2 "$N" /tmp/igb.stamps >/tmp/igb.send 2>&1
rc=$?
check "stop" nsightctl stop
check "$N datagrams sent, each with its hardware TX stamp" sh -c "
	cat /tmp/igb.send; [ $rc -eq 0 ] && [ \$(grep -c -v '^0\$' /tmp/igb.stamps) -eq $N ]"
check "hwts_tx put $ifname's setting back" hwts_is "$ifname" "$before"
check "dump" nsightctl dump -o /tmp/igb.nsight

hwts_tx check /tmp/igb.stamps /tmp/igb.nsight >/tmp/igb.check 2>&1
rc=$?
ktap_diag "$(cat /tmp/igb.check)"
check "the TX_TSTAMP records hold the socket's stamps, and no other" test $rc -eq 0
# Control: the same stamps with the first one 1 ns later.
first=$(head -n 1 /tmp/igb.stamps)
first=${first:-0}
{ echo $((first + 1)); tail -n +2 /tmp/igb.stamps; } >/tmp/igb.bad
check "control: a stamp 1 ns off is in no record" sh -c "! hwts_tx check /tmp/igb.bad /tmp/igb.nsight"
ktap_finish
