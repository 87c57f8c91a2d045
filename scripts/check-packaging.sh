#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Packaging and documentation checks, as KTAP: make install with DESTDIR
# and PREFIX, the man pages under man --warnings, nsight.rst under
# docutils with warnings as errors, the bash completions of nsightctl and
# nsight-analyze, and
# DKMS add/build/install/remove against each installed Debian kernel's
# headers (the module lands in /lib/modules/<kernel>/updates/dkms and is
# removed again).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
work=$(mktemp -d /tmp/nsight-pkg-XXXXXX)
trap 'rm -rf "$work"' EXIT
n=0
failed=0


kernels=
for tag in deb612 deb61; do
	d=$(kdir_of $tag 2>/dev/null) && [ -n "$d" ] && kernels="$kernels $(basename "$(dirname "$d")")"
done
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")

echo "KTAP version 1"
echo "1..$((9 + $(echo $kernels | wc -w)))"

# make install: every file where it belongs, nothing outside DESTDIR.
if make -s -C "$top" install DESTDIR="$work/root" PREFIX=/usr >"$work/install.log" 2>&1; then
	missing=
	for f in bin/nsightctl bin/nsight-analyze share/man/man1/nsight-analyze.1 \
		share/man/man4/nsight.4 share/man/man8/nsightctl.8 include/linux/nsight.h \
		include/nsight_request.h \
		share/bash-completion/completions/nsightctl \
		share/bash-completion/completions/nsight-analyze share/doc/nsight/nsight.rst; do
		[ -e "$work/root/usr/$f" ] || missing="$missing $f"
	done
	# The applications' header compiles as installed, alone.
	printf '#include <nsight_request.h>\nint main(void) { return nsight_request_end(1) == 0; }\n' \
		>"$work/req.c"
	cc -std=c11 -Wall -Wextra -Werror -I"$work/root/usr/include" -o "$work/req" "$work/req.c" \
		>>"$work/install.log" 2>&1 || missing="$missing (nsight_request.h does not compile)"
	if [ -z "$missing" ] && [ -x "$work/root/usr/bin/nsightctl" ]; then
		ktap_result OK "make install DESTDIR PREFIX=/usr"
	else
		echo "missing:$missing" >>"$work/install.log"
		ktap_result FAIL "make install DESTDIR PREFIX=/usr" "$(tail -n 20 "$work/install.log" 2>/dev/null)"
	fi
else
	ktap_result FAIL "make install DESTDIR PREFIX=/usr" "$(tail -n 20 "$work/install.log" 2>/dev/null)"
fi

# man --warnings: groff's warnings go to stderr; there must be none.
for page in nsightctl.8 nsight-analyze.1 nsight.4; do
	MANWIDTH=80 man --warnings -l "$top/Documentation/$page" >"$work/man.out" 2>"$work/man.err"
	if [ -s "$work/man.out" ] && [ ! -s "$work/man.err" ]; then
		ktap_result OK "man --warnings $page"
	else
		ktap_result FAIL "man --warnings $page" "$(tail -n 20 "$work/man.err" 2>/dev/null)"
	fi
done

if rst2html --halt=warning --report=warning "$top/Documentation/nsight.rst" \
	>"$work/nsight.html" 2>"$work/rst.err" && [ ! -s "$work/rst.err" ]; then
	ktap_result OK "Documentation/nsight.rst renders without warnings"
else
	ktap_result FAIL "Documentation/nsight.rst renders without warnings" "$(tail -n 20 "$work/rst.err" 2>/dev/null)"
fi

# bash completion: commands, a source list, options of a command.
cat >"$work/comp.sh" <<EOF
. "$top/userspace/completion/nsightctl"
t() { COMP_WORDS=("\$@"); COMP_CWORD=\$((\$# - 1)); _nsightctl; echo "\${COMPREPLY[*]}"; }
[ "\$(t nsightctl st)" = "start stop status" ] || { echo "commands: \$(t nsightctl st)"; exit 1; }
[ "\$(t nsightctl config --sources clock,sa)" = "clock,sample" ] ||
	{ echo "sources: \$(t nsightctl config --sources clock,sa)"; exit 1; }
[ "\$(t nsightctl dump --no)" = "--no-phc --no-ksyms" ] || { echo "dump: \$(t nsightctl dump --no)"; exit 1; }
[ "\$(t nsightctl record --m)" = "--max-size" ] || { echo "record: \$(t nsightctl record --m)"; exit 1; }
complete -p nsightctl | grep -q _nsightctl
EOF
if bash "$work/comp.sh" >"$work/comp.log" 2>&1; then
	ktap_result OK "bash completion of nsightctl"
else
	ktap_result FAIL "bash completion of nsightctl" "$(tail -n 20 "$work/comp.log" 2>/dev/null)"
fi

# nsight-analyze's: options, an option's values, files for a file option,
# the commands and a command's options, fleet's queries.
mkdir -p "$work/files" && touch "$work/files/quiet.nsight" "$work/files/busy.nsight"
cat >"$work/comp-analyze.sh" <<EOF
. "$top/userspace/completion/nsight-analyze"
cd "$work/files" || exit 1
t() { COMP_WORDS=("\$@"); COMP_CWORD=\$((\$# - 1)); _nsight_analyze; echo "\${COMPREPLY[*]}"; }
[ "\$(t nsight-analyze --w)" = "--what-if --window --whole --whole-diagnosis" ] || { echo "options: \$(t nsight-analyze --w)"; exit 1; }
[ "\$(t nsight-analyze --color a)" = "auto always" ] || { echo "color: \$(t nsight-analyze --color a)"; exit 1; }
[ "\$(t nsight-analyze --clock m)" = "monotonic" ] || { echo "clock: \$(t nsight-analyze --clock m)"; exit 1; }
[ "\$(t nsight-analyze --baseline q)" = "quiet.nsight" ] || { echo "baseline: \$(t nsight-analyze --baseline q)"; exit 1; }
[ "\$(t nsight-analyze --json b)" = "busy.nsight" ] || { echo "capture: \$(t nsight-analyze --json b)"; exit 1; }
[ -z "\$(t nsight-analyze --window 1)" ] || { echo "window: \$(t nsight-analyze --window 1)"; exit 1; }
[ "\$(t nsight-analyze ti)" = "time-check" ] || { echo "command: \$(t nsight-analyze ti)"; exit 1; }
[ "\$(t nsight-analyze merge --s)" = "--synced" ] || { echo "merge: \$(t nsight-analyze merge --s)"; exit 1; }
[ "\$(t nsight-analyze window --wh)" = "--whole-diagnosis" ] || { echo "window: \$(t nsight-analyze window --wh)"; exit 1; }
[ "\$(t nsight-analyze help w)" = "window" ] || { echo "help: \$(t nsight-analyze help w)"; exit 1; }
[ "\$(t nsight-analyze fleet clickhouse://ch1/nsight s)" = "slowest" ] ||
	{ echo "fleet: \$(t nsight-analyze fleet clickhouse://ch1/nsight s)"; exit 1; }
[ "\$(t nsight-analyze --fleet clickhouse://ch1/nsight latency --fr)" = "--from --from2" ] ||
	{ echo "--fleet: \$(t nsight-analyze --fleet clickhouse://ch1/nsight latency --fr)"; exit 1; }
complete -p nsight-analyze | grep -q _nsight_analyze
EOF
if bash "$work/comp-analyze.sh" >"$work/comp.log" 2>&1; then
	ktap_result OK "bash completion of nsight-analyze"
else
	ktap_result FAIL "bash completion of nsight-analyze" "$(tail -n 20 "$work/comp.log" 2>/dev/null)"
fi

# DKMS: from the installed sources, for each Debian kernel with headers.
dkms remove "nsight/$version" --all >/dev/null 2>&1
rm -rf "/usr/src/nsight-$version"
if make -s -C "$top" install-dkms >"$work/dkms.log" 2>&1 &&
   dkms add "nsight/$version" >>"$work/dkms.log" 2>&1; then
	ktap_result OK "dkms add nsight/$version"
else
	ktap_result FAIL "dkms add nsight/$version" "$(tail -n 20 "$work/dkms.log" 2>/dev/null)"
fi
for k in $kernels; do
	if dkms build "nsight/$version" -k "$k" >>"$work/dkms.log" 2>&1 &&
	   dkms install "nsight/$version" -k "$k" >>"$work/dkms.log" 2>&1 &&
	   ls "/lib/modules/$k/updates/dkms/" | grep -q '^nsight\.ko' &&
	   modinfo -k "$k" nsight 2>/dev/null | grep -q "updates/dkms"; then
		ktap_result OK "dkms build and install for $k"
	else
		ktap_result FAIL "dkms build and install for $k" "$(tail -n 20 "$work/dkms.log" 2>/dev/null)"
	fi
done
if dkms remove "nsight/$version" --all >>"$work/dkms.log" 2>&1 &&
   ! ls /lib/modules/*/updates/dkms/nsight.ko* >/dev/null 2>&1; then
	ktap_result OK "dkms remove: the module is gone"
else
	ktap_result FAIL "dkms remove: the module is gone" "$(tail -n 20 "$work/dkms.log" 2>/dev/null)"
fi
rm -rf "/usr/src/nsight-$version"
exit $failed
