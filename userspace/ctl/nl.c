// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <linux/netlink.h>
#include <linux/nsight.h>

#include "nl.h"
#include "base/version.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

const char *nsight_nl_cmd_name(uint8_t cmd)
{
	switch (cmd) {
	case NSIGHT_CMD_START:		return "START";
	case NSIGHT_CMD_STOP:		return "STOP";
	case NSIGHT_CMD_GET_STATUS:	return "GET_STATUS";
	case NSIGHT_CMD_SET_CONFIG:	return "SET_CONFIG";
	case NSIGHT_CMD_BUFFER_FULL:	return "BUFFER_FULL";
	default:			return "unknown command";
	}
}

int nsight_nl_family_error(int nlerr, const char *sys_module, struct nsight_diag *d)
{
	struct stat st;

	if (nlerr != -NLE_OBJ_NOTFOUND)
		return nsight_diag_set(d, EIO, "cannot resolve genl family '%s': %s",
				       NSIGHT_GENL_NAME, nl_geterror(nlerr));
	/*
	 * Loaded, yet no family: it exists in the initial network namespace
	 * only, or the module is another version's.
	 */
	if (!stat(sys_module, &st))
		return nsight_diag_set(d, ENOENT,
				       "nsight.ko is loaded but its genl family '%s' is not here: run nsightctl "
				       "in the initial network namespace, or load the module of this version (%s)",
				       NSIGHT_GENL_NAME, NSIGHT_TOOLS_VERSION);
	return nsight_diag_set(d, ENOENT,
			       "nsight.ko is not loaded (no genl family '%s'): load it with 'insmod nsight.ko' "
			       "(or 'modprobe nsight' when installed)", NSIGHT_GENL_NAME);
}

int nsight_nl_open(struct nsight_nl *nl, struct nsight_diag *d)
{
	int one = 1, fd, err;

	nl->family = -1;
	nl->sock = nl_socket_alloc();
	if (!nl->sock)
		return nsight_diag_set(d, ENOMEM, "cannot allocate a netlink socket");
	err = genl_connect(nl->sock);
	if (err) {
		nsight_diag_set(d, EIO, "cannot open a generic netlink socket: %s", nl_geterror(err));
		goto fail;
	}
	/* Replies may be larger than libnl's default buffer (many CPUs). */
	nl_socket_enable_msg_peek(nl->sock);
	/*
	 * Ask for the kernel's error strings; libnl 3.7 has no helper for
	 * this. Older kernels refuse the options, which only costs detail.
	 */
	fd = nl_socket_get_fd(nl->sock);
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));

	nl->family = genl_ctrl_resolve(nl->sock, NSIGHT_GENL_NAME);
	if (nl->family < 0) {
		nsight_nl_family_error(nl->family, NSIGHT_SYS_MODULE, d);
		goto fail;
	}
	return 0;
fail:
	nl_socket_free(nl->sock);
	nl->sock = NULL;
	return -d->code;
}

void nsight_nl_close(struct nsight_nl *nl)
{
	if (nl->sock)
		nl_socket_free(nl->sock);
	nl->sock = NULL;
}

struct nl_msg *nsight_nl_msg(struct nsight_nl *nl, uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, 0, cmd,
			 NSIGHT_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

size_t nsight_nl_ext_ack_msg(const struct nlmsghdr *nlh, char *buf, size_t len)
{
	const struct nlmsgerr *e;
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t total = nlh->nlmsg_len, off, n;
	struct nlattr *attrs;

	if (len)
		buf[0] = '\0';
	if (!len || !(nlh->nlmsg_flags & NLM_F_ACK_TLVS) ||
	    total < NLMSG_HDRLEN + sizeof(*e))
		return 0;
	e = (const struct nlmsgerr *)((const char *)nlh + NLMSG_HDRLEN);

	/* The TLVs follow the echoed request, or just its header if capped. */
	off = NLMSG_HDRLEN + sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < sizeof(e->msg))
			return 0;
		off += (((size_t)e->msg.nlmsg_len + NLMSG_ALIGNTO - 1) & ~(size_t)(NLMSG_ALIGNTO - 1)) -
		       sizeof(e->msg);
	}
	if (off >= total || total - off < NLA_HDRLEN)
		return 0;

	attrs = (struct nlattr *)((const char *)nlh + off);
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, attrs, (int)(total - off), NULL) < 0 ||
	    !tb[NLMSGERR_ATTR_MSG])
		return 0;
	n = strnlen(nla_data(tb[NLMSGERR_ATTR_MSG]), (size_t)nla_len(tb[NLMSGERR_ATTR_MSG]));
	if (n >= len)
		n = len - 1;
	memcpy(buf, nla_data(tb[NLMSGERR_ATTR_MSG]), n);
	buf[n] = '\0';
	return n;
}

struct req_state {
	bool done;
	int kernel_err;		/* positive errno from NLMSG_ERROR */
	char ext_ack[256];
	int reply_err;		/* first error of the reply callback */
	nsight_nl_reply_fn fn;
	void *arg;
	struct nsight_diag *d;
};

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct req_state *s = arg;

	if (s->fn && !s->reply_err)
		s->reply_err = s->fn(msg, s->arg, s->d);
	return NL_OK;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct req_state *s = arg;

	(void)msg;
	s->done = true;
	return NL_STOP;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	/* libnl hands us the payload; the header sits right before it. */
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)((const char *)e - NLMSG_HDRLEN);
	struct req_state *s = arg;

	(void)nla;
	s->kernel_err = -e->error;
	nsight_nl_ext_ack_msg(nlh, s->ext_ack, sizeof(s->ext_ack));
	s->done = true;
	return NL_STOP;
}

static int kernel_error(struct req_state *s, uint8_t cmd, struct nsight_diag *d)
{
	const char *name = nsight_nl_cmd_name(cmd);
	int err = s->kernel_err;

	if (err == EPERM || err == EACCES)
		nsight_diag_set(d, err, "%s: %s: nsightctl needs CAP_NET_ADMIN", name, strerror(err));
	else if (s->ext_ack[0])
		nsight_diag_set(d, err, "%s: %s (kernel: %s)", name, strerror(err), s->ext_ack);
	else
		nsight_diag_set(d, err, "%s: %s", name, strerror(err));
	return -err;
}

int nsight_nl_request(struct nsight_nl *nl, struct nl_msg *msg,
		      nsight_nl_reply_fn fn, void *arg, struct nsight_diag *d)
{
	struct req_state s = { .fn = fn, .arg = arg, .d = d };
	uint8_t cmd = genlmsg_hdr(nlmsg_hdr(msg))->cmd;
	struct nl_cb *cb, *orig;
	int err;

	/* nl_socket_get_cb() takes a reference of its own. */
	orig = nl_socket_get_cb(nl->sock);
	cb = orig ? nl_cb_clone(orig) : NULL;
	nl_cb_put(orig);
	if (!cb) {
		nlmsg_free(msg);
		return nsight_diag_set(d, ENOMEM, "cannot allocate netlink callbacks");
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &s);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &s);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &s);

	err = nl_send_auto(nl->sock, msg);
	nlmsg_free(msg);
	if (err < 0) {
		nl_cb_put(cb);
		return nsight_diag_set(d, EIO, "%s: cannot send request: %s",
					nsight_nl_cmd_name(cmd), nl_geterror(err));
	}

	while (!s.done) {
		err = nl_recvmsgs(nl->sock, cb);
		if (err < 0 && !s.done) {
			nl_cb_put(cb);
			return nsight_diag_set(d, EIO, "%s: netlink receive failed: %s",
						nsight_nl_cmd_name(cmd), nl_geterror(err));
		}
	}
	nl_cb_put(cb);

	if (s.kernel_err)
		return kernel_error(&s, cmd, d);
	return s.reply_err;
}
