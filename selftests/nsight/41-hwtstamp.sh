#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# NIC hardware timestamps for a capture (nsightctl config / record
# --hw-timestamps): turned on through the driver (QEMU's e1000e takes the
# request, though its stamps stay 0), put back as they were at 'nsightctl
# stop', at the end of a record, after a record killed with SIGKILL and
# after an unload of the module (at the next nsightctl command), and
# refused for an interface that does not timestamp (lo) with the other
# interfaces of the request left as they were. linuxptp's hwstamp_ctl
# reads the driver's setting from outside.
. /lib/nsight/lib.sh

ifname=$(nic_of e1000e) || ktap_skip_all "no e1000e in this guest"
ip link set "$ifname" up
STATE=/run/nsight/hwtstamp

hw() { hwts_get "$ifname"; }
is_hw() { hwts_is "$ifname" "$1"; }

ktap_plan 15
nsight_load
# A setting of its own beforehand, which every way out must give back:
# TX off, RX stamps of PTPv2 event packets (e1000e's answer is kept).
hwstamp_ctl -i "$ifname" -t 0 -r 12 >/dev/null 2>&1
before=$(hw)
ktap_diag "$ifname before: tx_type rx_filter $before"

check "config --hw-timestamps: done, the setting saved" sh -c "
	nsightctl config --hw-timestamps $ifname && test -s $STATE"
check "config --hw-timestamps: tx on, rx all in the driver" is_hw "1 1"
check "status names the interface and what comes back" sh -c "
	nsightctl status | grep -q '^hw stamps: *$ifname on (restored to tx off, rx ptp filter' &&
	nsightctl status --json | grep -q '\"ifname\": *\"$ifname\"'"
nsightctl start
check "stop puts the setting back" sh -c "nsightctl stop 2>/tmp/hw.err; cat /tmp/hw.err; grep -q '$ifname: hardware timestamping restored' /tmp/hw.err && ! test -e $STATE"
check "after stop: the driver as before" is_hw "$before"

# Refusal: lo does not timestamp; the request names it, changes nothing.
nsightctl config --hw-timestamps "$ifname,lo" >/tmp/hw.out 2>/tmp/hw.err
rc=$?
cat /tmp/hw.err
check "lo refused: exit 1, the driver's answer named, nothing to restore" sh -c "
	[ $rc -eq 1 ] && grep -q 'lo: the driver does not timestamp packets' /tmp/hw.err && ! test -e $STATE"
check "refused request: $ifname as before" is_hw "$before"
check "unknown interface: exit 1" sh -c "nsightctl config --hw-timestamps nosuch0; [ \$? -eq 1 ]"

# record: on for the capture, back at its end.
nsightctl record --hw-timestamps "$ifname" -D 3 -o /tmp/hw.nsight 2>/tmp/hwrec.err &
rp=$!
wait_until 100 0.1 test -s $STATE
during=$(hw)
wait $rp
cat /tmp/hwrec.err
check "record: tx on, rx all during the capture ($during)" test "$during" = "1 1"
check "record: as before at its end, nothing left to restore" sh -c "
	! test -e $STATE && grep -q '$ifname: hardware timestamping restored' /tmp/hwrec.err"
check "after the record: as before" is_hw "$before"

# A record killed outright: the next nsightctl command restores.
nsightctl record --hw-timestamps "$ifname" -o /tmp/hw2.nsight 2>/dev/null &
rp=$!
wait_until 100 0.1 test -s $STATE
kill -9 $rp
wait $rp 2>/dev/null
nsightctl stop 2>/tmp/hwkill.err
cat /tmp/hwkill.err
check "record killed: the next command restores" sh -c "
	grep -q 'restored .*: the nsightctl record that set it ended without restoring it' /tmp/hwkill.err && ! test -e $STATE"
check "after the killed record: as before" is_hw "$before"

# Unloaded with stamps on: the next command (which then fails) restores.
nsightctl config --hw-timestamps "$ifname"
nsight_unload
nsightctl status >/dev/null 2>/tmp/hwunload.err
cat /tmp/hwunload.err
check "module unloaded: the next command restores" sh -c "
	grep -q 'restored .*: the nsight module was unloaded' /tmp/hwunload.err && ! test -e $STATE"
check "after the unload: as before" is_hw "$before"
ktap_finish
