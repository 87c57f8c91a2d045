/* SPDX-License-Identifier: MIT */
/*
 * The generic netlink socket of nsightctl: connect, resolve the "nsight"
 * family, send one request and collect its replies and ack, and turn the
 * kernel's error and extended-ack message into a readable error.
 *
 * Functions return 0 or a negative errno and fill a struct nsight_diag
 * whose code is the positive errno.
 */
#ifndef NSIGHTCTL_NL_H
#define NSIGHTCTL_NL_H

#include <stddef.h>
#include <stdint.h>
#include <netlink/netlink.h>

#include "base/diag.h"

struct nsight_nl {
	struct nl_sock *sock;
	int family;
};

/* Where the module shows when it is loaded. */
#define NSIGHT_SYS_MODULE "/sys/module/nsight"

/*
 * The error of resolving the family (@nlerr, a negative libnl error) into
 * @d: not found says how to load the module, or, if @sys_module exists,
 * that the loaded one is not this version's. Returns -d->code.
 */
int nsight_nl_family_error(int nlerr, const char *sys_module, struct nsight_diag *d);

/* Open a socket with extended acks on and resolve the family. */
int nsight_nl_open(struct nsight_nl *nl, struct nsight_diag *d);
void nsight_nl_close(struct nsight_nl *nl);

/* A request message for @cmd with the genl header filled; NULL if no memory. */
struct nl_msg *nsight_nl_msg(struct nsight_nl *nl, uint8_t cmd);

/* Called for every reply message; return 0 or a negative errno (and fill @d). */
typedef int (*nsight_nl_reply_fn)(struct nl_msg *reply, void *arg, struct nsight_diag *d);

/*
 * Send @msg (always freed), pass each reply to @fn (may be NULL) and wait
 * for the kernel's ack. A kernel error becomes its negative errno with a
 * message such as "START: Operation already in progress (kernel: ...)".
 */
int nsight_nl_request(struct nsight_nl *nl, struct nl_msg *msg,
		      nsight_nl_reply_fn fn, void *arg, struct nsight_diag *d);

/*
 * Copy the NLMSGERR_ATTR_MSG string of the NLMSG_ERROR message @nlh (whose
 * nlmsg_len bytes are readable) into @buf. Returns its length, 0 if the
 * message carries none. Never reads past nlmsg_len.
 */
size_t nsight_nl_ext_ack_msg(const struct nlmsghdr *nlh, char *buf, size_t len);

/* Name of a command for messages ("GET_STATUS"). */
const char *nsight_nl_cmd_name(uint8_t cmd);

#endif /* NSIGHTCTL_NL_H */
