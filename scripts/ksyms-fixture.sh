#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Regenerate userspace/tests/data/ksyms-TAG.txt.gz, the real symbol tables
# test_categories checks the built-in function rules against: for Debian's
# 6.12 and 6.1 kernels, the text symbols of /proc/kallsyms (read in a guest
# of each: Debian ships a stub System.map) and of the modules listed below
# (from /lib/modules, as "name [module]"), kept when a rule of
# userspace/lib/diagnose/categories.csv matches them. Run it after adding a
# function rule that names functions the files lack. Needs the guests'
# prerequisites (make deps), python3 and xz.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"
out=$top/userspace/tests/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# Modules whose functions a rule names (drivers, file systems, netfilter, qdiscs).
mods="sch_netem sch_tbf sch_htb ip6_tables ip6table_filter ebtables nfnetlink_queue tcp_bic
ext4 jbd2 xfs btrfs nvme nvme-core sd_mod scsi_mod libata ahci libahci virtio_blk virtio_net
dm-mod md-mod nf_conntrack nf_tables x_tables ip_tables iptable_filter nf_nat e1000e igb ixgbe
i40e ice mlx5_core bnxt_en ena veth bridge vxlan fuse overlay tun virtio_ring virtio virtio_pci"

make -s -C "$top/userspace" >/dev/null
make -s -C "$top/selftests" >/dev/null
"$top/scripts/build-modules.sh" deb612="$(kdir_of deb612)" deb61="$(kdir_of deb61)" \
	>"$tmp/modules.list" 2>"$tmp/modules.log"
mkdir "$tmp/tests"
cat >"$tmp/tests/90-kallsyms.sh" <<'EOF'
#!/bin/sh
. /lib/nsight/lib.sh
ktap_plan 1
echo "KALLSYMS-BEGIN"
awk '$2 == "t" || $2 == "T" { print $3 }' /proc/kallsyms | grep -v '^__pfx_' | sort -u |
	gzip -9 | base64 -w 0
echo
echo "KALLSYMS-END"
check "kallsyms" true
ktap_finish
EOF
chmod +x "$tmp/tests/90-kallsyms.sh"

for tag in deb612 deb61; do
	kver=$(basename "$(dirname "$(kdir_of $tag)")")
	ko=$(awk -v t=$tag '$1 == t {print $2}' "$tmp/modules.list")
	testko=$(awk -v t=$tag '$1 == t {print $3}' "$tmp/modules.list")
	guest_initramfs "$tmp/$tag.cpio.gz" "$kver" "$ko" "$testko" --tests "$tmp/tests"
	"$top/selftests/harness/run-guest.sh" --kernel "/boot/vmlinuz-$kver" \
		--initrd "$tmp/$tag.cpio.gz" --log "$tmp/$tag.serial" --tests 90-kallsyms.sh \
		--timeout 600 >/dev/null
	awk '/KALLSYMS-BEGIN/ { on = 1; next } /KALLSYMS-END/ { on = 0 } on' "$tmp/$tag.serial" |
		tr -d '\r\n ' | base64 -d | gunzip >"$tmp/$tag.syms"
	for m in $mods; do
		f=$(find "/lib/modules/$kver/kernel" \( -name "$m.ko" -o -name "$m.ko.xz" \) | head -n 1)
		[ -n "$f" ] || continue	# built in (its symbols are in kallsyms) or absent
		case $f in
		*.xz) xz -dc "$f" >"$tmp/m.ko" ;;
		*) cp "$f" "$tmp/m.ko" ;;
		esac
		nm --defined-only "$tmp/m.ko" |
			awk -v m="$(echo "$m" | tr - _)" '$2 == "t" || $2 == "T" { print $3 " [" m "]" }'
	done >>"$tmp/$tag.syms"
	python3 - "$top/userspace/lib/diagnose/categories.csv" "$tmp/$tag.syms" "$out/ksyms-$tag.txt.gz" \
		"$kver" <<'EOF'
import fnmatch, gzip, re, sys
csv, syms, dest, kver = sys.argv[1:]
pats = [l.split(',')[1] for l in open(csv)
        if l.startswith('func,') and ',<outer>: ' in l and '\\[' not in l]  # not user space
pats = [(re.match(r'[^*?\[\\]*', p).group(0), p) for p in pats if p != '*']
names = sorted({l.strip() for l in open(syms) if l.strip()})
keep = [s for s in names if any(s.startswith(a) and fnmatch.fnmatchcase(s, p) for a, p in pats)]
with gzip.GzipFile(dest, 'wb', 9, mtime=0) as f:
    f.write(("# Debian %s: the kernel's text symbols (/proc/kallsyms, t and T) and those of some "
             "modules\n# (name [module]) that the built-in function rules name; %d of %d. "
             "scripts/ksyms-fixture.sh\n" % (kver, len(keep), len(names))).encode())
    f.write(("\n".join(keep) + "\n").encode())
EOF
	echo "$out/ksyms-$tag.txt.gz"
done
