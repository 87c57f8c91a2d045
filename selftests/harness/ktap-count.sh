#!/bin/sh
# usage: ktap-count.sh < KTAP
#
# Prints "PASSED FAILED SKIPPED", counting leaf results of KTAP on stdin
# (several concatenated documents and nested subtests allowed). A result line
# is a leaf unless more deeply indented results came right before it (then it
# is their aggregate and is not counted again). A top-level result with no
# nested results - a script that died before printing any, or a timeout -
# counts as one, and so does a failed aggregate all of whose leaves passed
# (the script died after them). "# SKIP" (any case) counts as skipped.
# Lines that are not results (diagnostics, plans, other output) are ignored.
exec awk '
function indent(s) { match(s, /^[ \t]*/); return RLENGTH }
{ sub(/\r$/, "") }
/^KTAP version|^TAP version/ {
	# A new top-level document: forget any unterminated nesting.
	split("", kids); split("", kidfail)
	next
}
/^[ \t]*(not )?ok [0-9]+/ {
	d = indent($0)
	line = $0
	sub(/^[ \t]*/, "", line)
	skip = line ~ /#[ \t]*[Ss][Kk][Ii][Pp]([^A-Za-z]|$)/
	fail = !skip && line ~ /^not ok/
	leaf = !kids[d]
	sawfail = kidfail[d]
	# Deeper levels start afresh (they belong to the next sibling).
	for (k in kids) if (k + 0 >= d) { delete kids[k]; delete kidfail[k] }
	if (leaf) {
		if (skip) skipped++
		else if (fail) failed++
		else passed++
	} else if (fail && !sawfail) {
		# A failed aggregate whose leaves all passed (the script died after
		# them, or exited non-zero): the failure must still be counted.
		failed++
		fail = 1
	}
	# Every shallower level now has a child result.
	for (k = 0; k < d; k++) { kids[k] = 1; if (fail || sawfail) kidfail[k] = 1 }
}
END { printf "%d %d %d\n", passed, failed, skipped }
'
