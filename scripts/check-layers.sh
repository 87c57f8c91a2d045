#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The layers of userspace/lib (userspace/lib/README): a folder includes its
# own headers and those of the layers below it, each named with its folder
# ("format/records.h"), in this order:
#
#   base < format < capture < lifetime < pt < diagnose, merge < pipeline < export
#
# diagnose and merge side by side (neither includes the other). lib/
# includes nothing of analyze/ or ctl/, and the two commands none of each
# other's headers. Prints FILE:LINE and the include of each that breaks
# this; exits 1 if one does. Run by scripts/lint.sh (make lint, make check).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top/userspace" || exit 1

order="base:0 format:1 capture:2 lifetime:3 pt:4 diagnose:5 merge:5 pipeline:6 export:7"
headers=$(find lib analyze ctl -name '*.h' | sort)
# shellcheck disable=SC2046
grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' \
	$(find lib analyze ctl -name '*.[ch]' | sort) /dev/null |
awk -v order="$order" -v headers="$headers" '
BEGIN {
	n = split(order, o, " ")
	for (i = 1; i <= n; i++) {
		split(o[i], kv, ":")
		rank[kv[1]] = kv[2]
		names = names (i == 1 ? "" : kv[2] == last ? ", " : " < ") kv[1]
		last = kv[2]
	}
	n = split(headers, h, "\n")
	for (i = 1; i <= n; i++) {
		have[h[i]] = 1
		d = h[i]
		sub(/\/[^\/]*$/, "", d)
		if (d ~ /^lib\//)
			dirs[d] = 1
	}
	bad = 0
}
function fail(why) {
	printf "userspace/%s:%s: #include \"%s\": %s\n", file, line, inc, why
	bad = 1
}
{
	file = $0
	sub(/:.*/, "", file)
	line = substr($0, length(file) + 2)
	sub(/:.*/, "", line)
	inc = $0
	sub(/^[^"]*"/, "", inc)
	sub(/".*/, "", inc)
	np = split(file, p, "/")
	cmd = p[1]
	g = index(inc, "/") ? substr(inc, 1, index(inc, "/") - 1) : ""

	if (cmd == "lib") {
		f = np == 3 ? p[2] : ""
		if (!(f in rank)) {
			fail("lib/" f " is not a layer (" names ")")
		} else if (g == "analyze" || g == "ctl") {
			fail("lib/ includes nothing of " g "/")
		} else if (g in rank) {
			if (g != f && rank[g] >= rank[f])
				fail(f " may not include " g " (" names ")")
		} else if (g != "" && ("lib/" g) in dirs) {
			fail("lib/" g " is not a layer (" names ")")
		} else if (g == "" && ("lib/" f "/" inc) in have) {
			fail("name its folder: \"" f "/" inc "\"")
		} else if (g == "" && (("analyze/" inc) in have || ("ctl/" inc) in have)) {
			fail("lib/ includes nothing of analyze/ or ctl/")
		}
		next
	}
	# analyze/ and ctl/: any layer of lib/, not the other command.
	other = cmd == "analyze" ? "ctl" : "analyze"
	if (g == other || (g == "" && !((cmd "/" inc) in have) && ((other "/" inc) in have)))
		fail(cmd "/ includes nothing of " other "/")
}
END {
	exit bad
}'
