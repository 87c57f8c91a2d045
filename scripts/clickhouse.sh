# SPDX-License-Identifier: GPL-2.0
# Sourced by scripts/check-fleet.sh and scripts/bench-fleet.sh: two
# clickhouse-server processes (Debian's 18.16) on loopback ports, each a
# shard of cluster nsight_fleet, in a configuration written to a
# directory of their own (run as whoever runs the script; 18.16 runs as
# root too).
#
#   ch_start DIR LOGDIR   configure and start both, wait until they answer
#                         (1 if they do not); sets http1 tcp1 http2 tcp2
#   ch_stop               stop both (SIGTERM, then SIGKILL), remove DIR
#   q PORT SQL            a query over HTTP, its TabSeparated answer on stdout
#
# Ports: a block of 6 from the pid, so that two runs at once do not meet.

ch_server=/usr/sbin/clickhouse-server
ch_pids=
ch_dir=

# ch_config N HTTP TCP INTERSERVER: a server's config.xml, users.xml and data under $ch_dir/sN.
ch_config() {
	d=$ch_dir/s$1
	mkdir -p "$d/data"
	cat >"$d/config.xml" <<EOC
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$d/server.log</log><errorlog>$d/error.log</errorlog></logger>
  <http_port>$2</http_port>
  <tcp_port>$3</tcp_port>
  <interserver_http_port>$4</interserver_http_port>
  <listen_host>127.0.0.1</listen_host>
  <path>$d/data/</path>
  <tmp_path>$d/data/tmp/</tmp_path>
  <user_files_path>$d/data/user_files/</user_files_path>
  <format_schema_path>$d/data/format_schemas/</format_schema_path>
  <users_config>$d/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>268435456</mark_cache_size>
  <remote_servers>
    <nsight_fleet>
      <shard><replica><host>127.0.0.1</host><port>$tcp1</port></replica></shard>
      <shard><replica><host>127.0.0.1</host><port>$tcp2</port></replica></shard>
    </nsight_fleet>
  </remote_servers>
</yandex>
EOC
	cat >"$d/users.xml" <<'EOC'
<?xml version="1.0"?>
<yandex>
  <profiles><default></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
EOC
}

ch_start() {
	ch_dir=$1
	base=$((20000 + ($$ % 4000) * 6))
	http1=$base tcp1=$((base + 1)) inter1=$((base + 2))
	http2=$((base + 3)) tcp2=$((base + 4)) inter2=$((base + 5))
	ch_config 1 "$http1" "$tcp1" "$inter1"
	ch_config 2 "$http2" "$tcp2" "$inter2"
	for s in 1 2; do
		"$ch_server" --config-file="$ch_dir/s$s/config.xml" >"$2/server$s.out" 2>&1 &
		ch_pids="$ch_pids $!"
	done
	for i in $(seq 1 150); do
		if [ "$(curl -s "http://127.0.0.1:$http1/ping")" = "Ok." ] &&
		   [ "$(curl -s "http://127.0.0.1:$http2/ping")" = "Ok." ]; then
			return 0
		fi
		sleep 0.2
	done
	return 1
}

ch_stop() {
	for p in $ch_pids; do
		kill "$p" 2>/dev/null
	done
	for p in $ch_pids; do
		# clickhouse-server ends within seconds of SIGTERM; then SIGKILL.
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 100 ]; do
			sleep 0.2
			i=$((i + 1))
		done
		kill -9 "$p" 2>/dev/null
	done
	ch_pids=
	[ -n "$ch_dir" ] && rm -rf "$ch_dir"
	ch_dir=
}

q() {
	curl -sS --max-time "${q_timeout:-60}" "http://127.0.0.1:$1/" --data-binary "$2"
}
