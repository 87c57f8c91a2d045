# shellcheck shell=sh
# Helpers for nsight guest test scripts (POSIX sh / busybox ash). In the guest:
#
#   . "$NSIGHT_LIB"            # /lib/nsight/lib.sh
#   ktap_plan 3
#   nsight_load                # insmod $NSIGHT_KO; on failure: not ok + exit 1
#   check "stats readable" cat /sys/kernel/debug/nsight/stats
#   netns_pair a b 10.0.0.1 10.0.0.2
#   check "ping over veth" ip netns exec a ping -c 1 -W 2 10.0.0.2
#   ktap_skip "ptp" "no PHC in this guest"
#   ktap_finish                # exit 0 all ok, 4 all skipped, 1 otherwise
#
# Results are printed as a nested (4-space indented) KTAP document; guest-init
# adds the top-level result from the exit code. On exit (also when the script
# dies early, but not when killed by the timeout) the namespaces made by
# netns_pair are deleted and nsight is unloaded if it is loaded. Register
# more cleanup with `at_exit "command"`; do not replace the EXIT trap.
#
# The busybox shell runs its own applets before PATH lookups, and busybox's
# ip has no netns, so ip/insmod/rmmod/modprobe/lsmod/modinfo are wrapped as
# functions calling the real tools. Inside `ip netns exec NS sh -c '...'`
# those wrappers do not exist: call /sbin/ip there.

ip() { /sbin/ip "$@"; }
insmod() { /sbin/insmod "$@"; }
rmmod() { /sbin/rmmod "$@"; }
modprobe() { /sbin/modprobe "$@"; }
lsmod() { /sbin/lsmod "$@"; }
modinfo() { /sbin/modinfo "$@"; }

: "${NSIGHT_KO:=/lib/nsight/nsight.ko}"
: "${KVER:=$(uname -r)}"

_ktap_n=0 _ktap_plan= _ktap_fail=0 _ktap_skip=0 _ktap_header=0 _ktap_done=0
_at_exit=
# Namespaces made by netns_pair, in a file: netns_pair may run in a subshell
# (check "pair" netns_pair ...), and $$ is the script's PID there too.
_netns_state=/tmp/.nsight-netns.$$

_ktap_version() {
	[ "$_ktap_header" = 1 ] && return
	echo "    KTAP version 1"
	_ktap_header=1
}

# ktap_plan N: the indented header and plan; call once, before any result.
# (Without it the document has no plan, which KTAP allows but discourages.)
ktap_plan() {
	_ktap_version
	_ktap_plan=$1
	echo "    1..$1"
}

# ktap_diag TEXT: TEXT (may be several lines) as indented "# " diagnostics.
ktap_diag() {
	printf '%s\n' "$*" | sed 's/^/    # /'
}

ktap_ok() {
	_ktap_version
	_ktap_n=$((_ktap_n + 1))
	echo "    ok $_ktap_n - $1"
}

# ktap_fail NAME [REASON]
ktap_fail() {
	_ktap_version
	_ktap_n=$((_ktap_n + 1))
	_ktap_fail=$((_ktap_fail + 1))
	echo "    not ok $_ktap_n - $1"
	[ $# -lt 2 ] || ktap_diag "$2"
}

# ktap_skip NAME REASON
ktap_skip() {
	_ktap_version
	_ktap_n=$((_ktap_n + 1))
	_ktap_skip=$((_ktap_skip + 1))
	echo "    ok $_ktap_n - $1 # SKIP${2:+ $2}"
}

# check NAME CMD [ARGS...]: one result from CMD's exit status; on failure its
# output (stdout+stderr, last 50 lines) follows as diagnostics. CMD runs in a
# subshell: variables it sets are lost. Returns CMD's status.
check() {
	_name=$1
	shift
	_out=$("$@" 2>&1)
	_rc=$?
	if [ $_rc -eq 0 ]; then
		ktap_ok "$_name"
	else
		ktap_fail "$_name" "'$*' exited $_rc"
		[ -z "$_out" ] || ktap_diag "$(printf '%s\n' "$_out" | tail -n 50)"
	fi
	return $_rc
}

# _ktap_verdict: 0 all passed, 4 all skipped (or plan 1..0), 1 otherwise
# (also with no plan and no results).
_ktap_verdict() {
	if [ -z "$_ktap_plan" ]; then
		# KTAP allows omitting the plan (not a trailing one: kunit.py loops on that).
		ktap_diag "no plan; $_ktap_n results"
	elif [ "$_ktap_n" -ne "$_ktap_plan" ]; then
		ktap_diag "planned $_ktap_plan results, got $_ktap_n"
		return 1
	fi
	[ "$_ktap_fail" -eq 0 ] || return 1
	if [ "$_ktap_n" -eq 0 ] && [ -z "$_ktap_plan" ]; then
		ktap_diag "no results at all"
		return 1
	fi
	[ "$_ktap_skip" -ne "$_ktap_n" ] || return 4
	return 0
}

ktap_finish() {
	_ktap_verdict
	_rc=$?
	_ktap_done=1
	exit $_rc
}

# ktap_skip_all REASON: skip the whole script (or all results still planned).
ktap_skip_all() {
	if [ -z "$_ktap_plan" ] && [ "$_ktap_n" -eq 0 ]; then
		_ktap_version
		_ktap_plan=0
		echo "    1..0 # SKIP $1"
	else
		while [ "$_ktap_n" -lt "${_ktap_plan:-0}" ]; do
			ktap_skip "(not run)" "$1"
		done
	fi
	ktap_finish
}

# ktap_bail REASON: give up; results still planned are not reported.
ktap_bail() {
	ktap_diag "bailing out: $1"
	_ktap_done=1
	exit 1
}

# wait_until TRIES SECONDS CMD...: run CMD until it succeeds, sleeping
# SECONDS after each failure, at most TRIES times; 0 once CMD succeeded, 1
# if it never did.
wait_until() {
	_wu_n=$1 _wu_s=$2
	shift 2
	until "$@"; do
		[ "$_wu_n" -gt 0 ] || return 1
		sleep "$_wu_s"
		_wu_n=$((_wu_n - 1))
	done
}

# exited PID...: none of the PIDs is running.
exited() {
	for _ex_p; do
		kill -0 "$_ex_p" 2>/dev/null && return 1
	done
	return 0
}

# at_exit CMD: run CMD (eval'd) when the script exits, before the built-in cleanup.
at_exit() {
	_at_exit="$1
$_at_exit"
}

_lib_exit() {
	_st=$?
	trap - EXIT
	[ -z "$_at_exit" ] || eval "$_at_exit"
	netns_cleanup
	rm -f "$_netns_state"
	nsight_unload >/dev/null 2>&1
	if [ "$_ktap_done" = 0 ]; then
		# The script ended without ktap_finish (fell off the end, or died).
		_ktap_verdict
		_v=$?
		[ "$_st" -ne 0 ] && [ "$_st" -ne 4 ] && _v=$_st
		[ "$_st" -eq 4 ] && [ "$_v" -eq 0 ] && _v=4
		_st=$_v
	fi
	exit $_st
}
# No TERM trap on purpose: a trapped TERM waits for the foreground command,
# so a timed-out test would hang on until KILL. guest-init kills what a
# timed-out test leaves running and unloads nsight/deletes namespaces itself.
trap _lib_exit EXIT

_nsight_modname() {
	_m=${NSIGHT_KO##*/}
	echo "${_m%%.ko*}"
}

# Every source name in bit order, as NSIGHT_SOURCE_NAMES in the uapi header,
# and the ones selected after loading (all but sample, pt and futex).
NSIGHT_DEFAULT_SOURCES=sched_switch,handoff,clock,net_rx,net_tx,app,sched_waking,irq,softirq,idle,fault,workqueue,napi,request
NSIGHT_ALL_SOURCES=sched_switch,handoff,clock,net_rx,net_tx,app,sched_waking,irq,softirq,idle,fault,workqueue,napi,sample,pt,futex,request

# write_fails FILE VALUE ERRTEXT: one write(2) of VALUE to FILE (a sysfs
# file) must fail with an error whose text contains ERRTEXT, and leave the
# value read back unchanged. Needs the write_file test program.
write_fails() {
	_before=$(cat "$1")
	_out=$(write_file "$1" "$2" 2>&1) && { echo "accepted '$2'"; return 1; }
	case $_out in
	*"$3"*) ;;
	*) echo "wrong error for '$2': $_out"; return 1 ;;
	esac
	[ "$(cat "$1")" = "$_before" ] || { echo "value changed"; return 1; }
}

# nsight_load [PARAM=VALUE...]: insmod $NSIGHT_KO. Not a result of its own;
# if it fails, a failed result "load nsight" with insmod's message, then exit 1.
nsight_load() {
	if [ ! -f "$NSIGHT_KO" ]; then
		ktap_fail "load $(_nsight_modname)" "$NSIGHT_KO: no such file"
		ktap_bail "module missing"
	fi
	if ! _out=$(/sbin/insmod "$NSIGHT_KO" "$@" 2>&1); then
		ktap_fail "load $(_nsight_modname)" "insmod $NSIGHT_KO${*:+ $*}: $_out"
		_dm=$(dmesg | tail -n 10)
		[ -z "$_dm" ] || ktap_diag "last kernel messages:
$_dm"
		ktap_bail "cannot load the module"
	fi
}

# nsight_unload: rmmod if loaded; on failure prints rmmod's message as
# diagnostics and returns non-zero (no result of its own: wrap it in check if
# it is a test). Also done on exit.
nsight_unload() {
	_m=$(_nsight_modname)
	grep -q "^$_m " /proc/modules || return 0
	if _out=$(/sbin/rmmod "$_m" 2>&1); then
		return 0
	fi
	ktap_diag "rmmod $_m: $_out"
	return 1
}

# _cidr ADDR: ADDR as given if it has a prefix, else /24 (IPv4) or /64 (IPv6).
_cidr() {
	case $1 in
	*/*) echo "$1" ;;
	*:*) echo "$1/64" ;;
	*) echo "$1/24" ;;
	esac
}

# netns_pair NS_A NS_B ADDR_A ADDR_B: two network namespaces joined by a veth
# pair; the device is veth0 on both sides, lo and veth0 up. Namespaces of the
# same name are replaced. Prints errors on stderr and returns 1 on failure.
netns_pair() {
	if [ $# -ne 4 ]; then
		echo "usage: netns_pair NS_A NS_B ADDR_A ADDR_B" >&2
		return 2
	fi
	for _ns in "$1" "$2"; do
		/sbin/ip netns del "$_ns" 2>/dev/null
		/sbin/ip netns add "$_ns" || return 1
		echo "$_ns" >>"$_netns_state"
	done
	/sbin/ip link add veth0 netns "$1" type veth peer name veth0 netns "$2" || return 1
	_a=$1 _b=$2 _aa=$3 _ab=$4
	for _x in "$_a $_aa" "$_b $_ab"; do
		set -- $_x
		_opt=
		case $2 in *:*) _opt=nodad ;; esac
		/sbin/ip -n "$1" link set lo up &&
			/sbin/ip -n "$1" addr add "$(_cidr "$2")" dev veth0 $_opt &&
			/sbin/ip -n "$1" link set veth0 up || return 1
	done
}

# netns_cleanup [NS...]: delete the given namespaces, or all made by netns_pair.
netns_cleanup() {
	if [ $# -eq 0 ] && [ -f "$_netns_state" ]; then
		set -- $(cat "$_netns_state")
		: >"$_netns_state"
	fi
	for _ns in "$@"; do
		/sbin/ip netns del "$_ns" 2>/dev/null
	done
	return 0
}

# nic_of DRIVER: the first interface DRIVER drives (after modprobe DRIVER);
# nothing if none.
nic_of() {
	modprobe "$1" 2>/dev/null
	for _d in /sys/class/net/*; do
		if [ "$(basename "$(readlink "$_d/device/driver" 2>/dev/null)")" = "$1" ]; then
			basename "$_d"
			return 0
		fi
	done
	return 1
}

# hwts_get IFNAME: the driver's hardware timestamping setting, "tx_type
# rx_filter" as numbers, read from outside by linuxptp's hwstamp_ctl.
hwts_get() {
	hwstamp_ctl -i "$1" 2>&1 |
		awk '$1 == "tx_type" { t = $2 } $1 == "rx_filter" { r = $2 } END { print t " " r }'
}

# hwts_is IFNAME WANT: whether the setting is WANT ("1 1": tx on, rx all);
# if not, says what it is.
hwts_is() {
	_now=$(hwts_get "$1")
	[ "$_now" = "$2" ] && return 0
	echo "# $1: tx_type rx_filter are '$_now', expected '$2'"
	return 1
}
