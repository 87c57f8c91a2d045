/* SPDX-License-Identifier: MIT */
/*
 * NIC hardware timestamps for a capture: nsightctl asks each named
 * interface's driver for RX stamps of every packet and TX stamps
 * (SIOCSHWTSTAMP; Debian's 6.1 and 6.12 kernels have no ethtool netlink
 * request for it), and puts the previous setting back when the capture
 * stops through nsightctl.
 *
 * The settings to put back live in a state file (NSIGHT_HWTS_STATE,
 * /run: gone at reboot, as the drivers' settings are), written before the
 * first driver is changed, so that a crash at any point leaves what to
 * restore. Its format, one item per line:
 *
 *   # comment
 *   owner PID        nsightctl record's pid, or 0 (set by nsightctl config)
 *   IFNAME IFINDEX TX_TYPE RX_FILTER FLAGS   one per interface
 *
 * The kernel offers a module no way to call a driver's SIOCSHWTSTAMP
 * (6.1's drivers take it through ndo_eth_ioctl with a user pointer), so
 * restoring is nsightctl's: at 'nsightctl stop', at the end of 'nsightctl
 * record', with 'config --hw-timestamps off', and, after a crash of the
 * record that set them or an unload of the module, at the next nsightctl
 * command.
 */
#ifndef NSIGHTCTL_HWTSTAMP_H
#define NSIGHTCTL_HWTSTAMP_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <net/if.h>
#include <json-c/json.h>

#include "base/diag.h"

#define NSIGHT_HWTS_STATE	"/run/nsight/hwtstamp"
/* Present while the module is loaded. */
#define NSIGHT_SYSFS_DIR	"/sys/kernel/nsight"
#define NSIGHT_HWTS_MAX		16

/* One interface's setting before nsightctl changed it. */
struct nsight_hwts_saved {
	char ifname[IF_NAMESIZE];
	int ifindex;
	int tx_type;		/* enum hwtstamp_tx_types */
	int rx_filter;		/* enum hwtstamp_rx_filters */
	int flags;		/* struct hwtstamp_config's flags */
};

struct nsight_hwts_state {
	pid_t owner;		/* the record that set them, 0 for config */
	size_t n;
	struct nsight_hwts_saved ifs[NSIGHT_HWTS_MAX];
};

/* The state file's path: $NSIGHT_HWTS_STATE if set (tests), else the default. */
const char *nsight_hwts_path(void);

/*
 * Read the state file at @path into @st. Returns 0, -ENOENT if there is
 * none (st empty), or another negative errno with "PATH:LINE: ..." in @d.
 */
int nsight_hwts_state_read(const char *path, struct nsight_hwts_state *st,
			   struct nsight_diag *d);

/* Write @st to @path atomically (a temporary file renamed); n == 0 removes it. */
int nsight_hwts_state_write(const char *path, const struct nsight_hwts_state *st,
			    struct nsight_diag *d);

/* Split "eth0,eth1" into names; 0 or -EINVAL (message in @d). */
int nsight_hwts_parse_list(const char *list, char names[][IF_NAMESIZE], size_t *n,
			   struct nsight_diag *d);

/*
 * Turn on RX stamps of every packet and TX stamps on each interface of
 * @list, saving what to restore (interfaces already saved keep their
 * first setting; saved ones not in @list are restored). @owner is written
 * as the state's owner. On a refusal every interface this call changed is
 * put back and the error names the interface and the driver's answer.
 * Lines on @out say what was set.
 */
int nsight_hwts_enable(const char *list, pid_t owner, FILE *out, struct nsight_diag *d);

/*
 * Put back every saved setting and remove the state file; @why ("the
 * capture stopped") goes into the line printed on @out per interface.
 * Nothing saved: 0, silently. An interface that is gone or refuses is
 * reported on stderr and counted; returns -EIO then (the rest restored).
 */
int nsight_hwts_restore(const char *why, FILE *out, struct nsight_diag *d);

/* nsight_hwts_restore() with lines and problems on stderr; never fails. */
void nsight_hwts_put_back(const char *why);

/*
 * Before a command: restore when the state's owner (a record) is dead or
 * the nsight module is not loaded (@module_dir missing). Problems are
 * printed on stderr; it never fails the command.
 */
void nsight_hwts_restore_stale(const char *module_dir);

/* One line per interface nsightctl turned stamps on for, each after @prefix. */
void nsight_hwts_print(FILE *f, const char *prefix);

/*
 * The same as a JSON array (empty if none); NULL if the state file cannot
 * be read or memory runs out.
 */
struct json_object *nsight_hwts_json(void);

/* "tx on, rx all" etc. for a saved setting, into @buf. */
const char *nsight_hwts_describe(int tx_type, int rx_filter, char *buf, size_t len);

#endif /* NSIGHTCTL_HWTSTAMP_H */
