#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The demo's guest side: a UDP echo server on CPU 1 (the application core)
# answers an open-loop client on CPU 0 over veth, while a CPU hog named
# "hog" runs beside the server at a higher priority. nsightctl record
# captures it;
# the capture goes to the host over the console (base64 between markers),
# where nsight-analyze must name the hog.
. /lib/nsight/lib.sh

N=${nsight_demo_count:-1000}
RATE=${nsight_demo_rate:-200}

ktap_plan 7
nsight_load
nsightctl config --buffer-size 32M
netns_pair nsa nsb 10.13.0.1 10.13.0.2
ip netns exec nsb taskset -c 1 hog -5 >/dev/null 2>&1 &
hog=$!
at_exit "kill $hog 2>/dev/null"

nsightctl record -o /tmp/demo.nsight 2>/tmp/record.err &
rec=$!
until grep -q 1 /sys/kernel/nsight/enable; do sleep 0.1; done
check "nsightctl record started the capture" kill -0 $rec
ip netns exec nsb taskset -c 1 msgload server -p udp -P 9100 -n "$N" >/tmp/server.out 2>&1 &
until grep -q listening /tmp/server.out; do sleep 0.1; done
ktap_diag "server pid $(awk '/^listening/ {print $4}' /tmp/server.out)"
check "client: $N requests at $RATE/s" sh -c "/sbin/ip netns exec nsa taskset -c 0 msgload client -p udp -a 10.13.0.2 -P 9100 -n $N -r $RATE -s 7 | tee /tmp/client.out | grep -q 'received $N'"
ktap_diag "client: $(cat /tmp/client.out)"
kill -INT $rec
wait $rec
check "nsightctl record stopped on SIGINT with a whole stream" test $? -eq 0
ktap_diag "record: $(tail -n 1 /tmp/record.err)"
kill $hog
echo "NSIGHT-CAPTURE-BEGIN"
base64 /tmp/demo.nsight
echo "NSIGHT-CAPTURE-END"
check "capture sent" test -s /tmp/demo.nsight

# The flight recorder: the hog now burns 40 ms of every second, and only
# the windows around the requests it delays past 1 ms are kept.
ip netns exec nsb taskset -c 1 hog -10 0 40000 1000000 >/dev/null 2>&1 &
hog=$!
taskset -c 0 nsightctl record --flight-recorder --trigger 'latency>1ms' --port 9100 \
	--no-ksyms -o /tmp/flight.nsight 2>/tmp/flight.err &
rec=$!
until grep -q 1 /sys/kernel/nsight/enable; do sleep 0.1; done
ip netns exec nsb taskset -c 1 msgload server -p udp -P 9100 -n "$N" >/tmp/server2.out 2>&1 &
until grep -q listening /tmp/server2.out; do sleep 0.1; done
check "flight recorder: $N requests at $RATE/s" sh -c "/sbin/ip netns exec nsa taskset -c 0 msgload client -p udp -a 10.13.0.2 -P 9100 -n $N -r $RATE -s 7 | tee /tmp/client2.out | grep -q 'received $N'"
kill -INT $rec
wait $rec
kill $hog
ktap_diag "flight recorder: $(tail -n 1 /tmp/flight.err)"
check "flight recorder: windows saved" grep -q ' [1-9][0-9]* windows saved' /tmp/flight.err
echo "NSIGHT-FLIGHT-BEGIN"
base64 /tmp/flight.nsight
echo "NSIGHT-FLIGHT-END"
check "flight capture sent" test -s /tmp/flight.nsight
ktap_finish
