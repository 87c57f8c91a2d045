// SPDX-License-Identifier: GPL-2.0
/*
 * nsight: reconstruct the lifetime of network messages inside a host and
 * put every CPU's activity on one timeline.
 *
 * Module init and exit. Init brings up the buffers, then the interfaces
 * that control them; exit stops any capture first (every probe detached and
 * synchronized), removes the interfaces, and frees the buffers last.
 */
#include <linux/module.h>
#include <linux/init.h>
#include <net/genetlink.h>
#include <linux/nsight.h>
#include "control.h"
#include "sysfs.h"
#include "netlink.h"
#include "request.h"

static int __init nsight_init(void)
{
	int ret;

	ret = nsight_control_init();
	if (ret)
		return ret;
	ret = nsight_sysfs_init();
	if (ret)
		goto err_control;
	ret = nsight_netlink_init();
	if (ret)
		goto err_sysfs;
	ret = nsight_request_init();
	if (ret)
		goto err_netlink;
	pr_info("loaded\n");
	return 0;

err_netlink:
	nsight_netlink_exit();
err_sysfs:
	nsight_sysfs_exit();
err_control:
	nsight_control_shutdown();
	nsight_control_exit();
	return ret;
}

static void __exit nsight_exit(void)
{
	nsight_control_shutdown();
	nsight_request_exit();
	nsight_netlink_exit();
	nsight_sysfs_exit();
	nsight_control_exit();
	pr_info("unloaded\n");
}

module_init(nsight_init);
module_exit(nsight_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The nsight developers");
MODULE_DESCRIPTION("Network message lifetime and CPU activity profiler");
MODULE_ALIAS_GENL_FAMILY(NSIGHT_GENL_NAME);
