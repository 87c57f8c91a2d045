#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The HTML report (nsight-analyze --html) opened in headless Chromium, on
# synthetic captures (five causes and head-of-line blocking, with a clean
# baseline; tests/gen_scenario.c): no console errors,
# every plot's SVG present and drawn, a screenshot that is not blank. The
# checks are shown to fail first on pages made to fail them. Prints KTAP.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
work=$(mktemp -d /tmp/nsight-html-XXXXXX)
trap 'rm -rf "$work"' EXIT
n=0
failed=0

chromium_run() {	# chromium_run ARGS... FILE: headless, no network, no profile left
	timeout 90 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --user-data-dir="$work/profile" \
		--enable-logging=stderr --v=0 "$@"
}

# console_errors FILE: the page's console errors and uncaught exceptions.
console_errors() {
	chromium_run --dump-dom "file://$1" >"$work/dom.html" 2>"$work/console.log"
	grep -E 'CONSOLE|Uncaught' "$work/console.log" || true
}

# svg_ok DOM: every plot section has an <svg> with drawn elements.
svg_ok() {
	python3 - "$1" <<'EOF'
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
plots = ["balloon", "causes", "timelines", "idle", "queuing", "contexts", "cdf"]
bad = []
for p in plots:
    secs = re.findall(r'<section class="plot" data-plot="%s"[^>]*>(.*?)</section>' % p, dom, re.S)
    if not secs:
        bad.append(p + ": missing")
    for sec in secs:
        svg = re.search(r"<svg.*?</svg>", sec, re.S)
        shapes = len(re.findall(r"<(circle|rect|path|line)\b", svg.group(0))) if svg else 0
        if shapes == 0:
            bad.append(p + ": empty svg")
        else:
            print("%s: %d shapes" % (p, shapes))
if bad:
    print("\n".join(bad))
    sys.exit(1)
EOF
}

# png_ok FILE: decode the PNG (8-bit RGB/RGBA) and require drawn content:
# at least 1% non-white pixels and 8 distinct colours.
png_ok() {
	python3 - "$1" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit("not a PNG")
pos, idat, w = 8, b"", 0
while pos < len(data):
    ln, typ = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + ln]
    if typ == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        if depth != 8 or ctype not in (2, 6):
            sys.exit("unsupported PNG type %d/%d" % (depth, ctype))
        bpp = 3 if ctype == 2 else 4
    elif typ == b"IDAT":
        idat += body
    pos += 12 + ln
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
colors, nonwhite, total, i = set(), 0, 0, 0
for y in range(h):
    f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    if y % 4:
        continue
    for x in range(0, stride, bpp * 4):
        px = bytes(line[x:x + 3])
        total += 1
        colors.add(px)
        if px != b"\xff\xff\xff":
            nonwhite += 1
share = nonwhite / total if total else 0
print("%dx%d, %.1f%% non-white, %d colours" % (w, h, share * 100, len(colors)))
sys.exit(0 if share >= 0.01 and len(colors) >= 8 else 1)
EOF
}

echo "KTAP version 1"
echo "1..8"
if ! command -v chromium >/dev/null; then
	echo "# chromium is not installed (scripts/deps.sh installs it)"
	for t in 1 2 3 4 5 6 7 8; do echo "not ok $t - chromium available"; done
	exit 1
fi
if ! make -s -C "$top/userspace" check-tools >"$work/build.log" 2>&1; then
	ktap_result FAIL "build gen_scenario and nsight-analyze" "$(tail -n 20 "$work/build.log")"
	for t in 2 3 4 5 6 7 8; do echo "not ok $t - not run: the build failed"; done
	exit 1
fi
gen=$top/userspace/build-asan/gen_scenario
analyze=$top/userspace/build-asan/nsight-analyze

# The checks themselves must catch what they are for.
printf '<!DOCTYPE html><html><body><script>undefinedFunction();</script></body></html>\n' \
	>"$work/bad.html"
if [ -n "$(console_errors "$work/bad.html")" ]; then
	ktap_result OK "a page with a script error is caught"
else
	ktap_result FAIL "a page with a script error is caught" "$(tail -n 5 "$work/console.log")"
fi
# Every plot there but the CDF, whose <svg> has nothing drawn.
for p in balloon causes timelines idle queuing contexts cdf; do
	shape='<rect x="1" y="1" width="5" height="5"/>'
	[ $p = cdf ] && shape='<text x="1" y="9">no data</text>'
	printf '<section class="plot" data-plot="%s"><svg>%s</svg></section>\n' $p "$shape"
done >"$work/empty.html"
if ! svg_ok "$work/empty.html" >"$work/empty.txt" 2>&1 && grep -q "cdf: empty svg" "$work/empty.txt"; then
	ktap_result OK "a plot with an empty SVG is caught"
else
	ktap_result FAIL "a plot with an empty SVG is caught" "$(cat "$work/empty.txt")"
fi
printf '<!DOCTYPE html><html><body></body></html>\n' >"$work/blank.html"
chromium_run --screenshot="$work/blank.png" --window-size=800,600 "file://$work/blank.html" \
	>/dev/null 2>&1
if [ -s "$work/blank.png" ] && ! png_ok "$work/blank.png" >"$work/blank.txt" 2>&1; then
	ktap_result OK "a blank screenshot is caught" 
else
	ktap_result FAIL "a blank screenshot is caught" "$(cat "$work/blank.txt" 2>/dev/null)"
fi

# Five causes, idle after an irq among them: every plot has data.
"$gen" mixed "$work/mixed.nsight" && "$gen" clean "$work/clean.nsight" &&
	"$analyze" --html "$work/report.html" --baseline "$work/clean.nsight" "$work/mixed.nsight" \
		>"$work/report.txt" 2>&1
if [ -s "$work/report.html" ]; then
	ktap_result OK "report written ($(wc -c <"$work/report.html") bytes)"
else
	ktap_result FAIL "report written" "$(cat "$work/report.txt")"
fi

t0=$(date +%s)
errors=$(console_errors "$work/report.html")
if [ -s "$work/dom.html" ] && [ -z "$errors" ]; then
	ktap_result OK "no console errors"
else
	ktap_result FAIL "no console errors" "$errors"
fi
if out=$(svg_ok "$work/dom.html" 2>&1); then
	printf '%s\n' "$out" | sed 's/^/# /'
	ktap_result OK "every plot's SVG present and drawn"
else
	ktap_result FAIL "every plot's SVG present and drawn" "$out"
fi
if grep -q 'class="cdf baseline"' "$work/dom.html"; then
	ktap_result OK "the baseline's CDF is drawn"
else
	ktap_result FAIL "the baseline's CDF is drawn"
fi
chromium_run --screenshot="$work/report.png" --window-size=1280,2000 \
	"file://$work/report.html" >/dev/null 2>&1
if [ -s "$work/report.png" ] && out=$(png_ok "$work/report.png" 2>&1); then
	ktap_result OK "screenshot not blank ($out)"
else
	ktap_result FAIL "screenshot not blank" "${out:-no screenshot}"
fi
echo "# chromium checks took $(($(date +%s) - t0)) s"
exit $failed
