// SPDX-License-Identifier: GPL-2.0
/*
 * nl_probe: send well-formed and malformed requests to the nsight generic
 * netlink family and check the kernel's answer (the errno in its ack).
 *
 *   nl_probe           the attribute-validation cases (run as root, with no
 *                      capture running)
 *   nl_probe --eperm   every command must fail with EPERM (run unprivileged)
 *
 * Prints one line per case: "PASS <name>" or "FAIL <name>: <why>", with the
 * kernel's extended ack message when there is one. Exit 0 if all passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <linux/nsight.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct nl_result {
	int err;		/* 0 or a positive errno */
	char msg[256];		/* extended ack message */
	int done;
};

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	(void)nla;
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct nl_result *r = arg;
	size_t off;

	r->err = -e->error;
	r->done = 1;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	/* TLVs follow the echoed request (only its header if capped). */
	off = NLMSG_HDRLEN + sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	while (off + NLA_HDRLEN <= nlh->nlmsg_len) {
		struct nlattr *a = (struct nlattr *)((char *)nlh + off);

		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > nlh->nlmsg_len)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG)
			snprintf(r->msg, sizeof(r->msg), "%.*s",
				 (int)(a->nla_len - NLA_HDRLEN),
				 (char *)a + NLA_HDRLEN);
		off += NLA_ALIGN(a->nla_len);
	}
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	(void)msg;
	struct nl_result *r = arg;

	r->err = 0;
	r->done = 1;
	return NL_STOP;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

/* Raw attribute bytes, so that wrong lengths can be sent. */
struct raw_attr {
	uint16_t type;
	uint16_t len;		/* payload bytes */
	uint8_t data[16];
};

struct nl_case {
	const char *name;
	uint8_t cmd;
	struct raw_attr attrs[3];
	int nattrs;
	int truncated;		/* append an attribute header that lies */
	int expect;		/* positive errno or 0 */
};

#define U32(v) { (v) & 0xff, ((v) >> 8) & 0xff, ((v) >> 16) & 0xff, (v) >> 24 }

static const struct nl_case cases[] = {
	{ "status_ok", NSIGHT_CMD_GET_STATUS, {}, 0, 0, 0 },
	{ "status_with_attr", NSIGHT_CMD_GET_STATUS,
	  { { NSIGHT_A_ENABLED, 1, { 1 } } }, 1, 0, EINVAL },
	{ "start_with_attr", NSIGHT_CMD_START,
	  { { NSIGHT_A_SOURCES, 4, U32(1) } }, 1, 0, EINVAL },
	{ "stop_with_attr", NSIGHT_CMD_STOP,
	  { { NSIGHT_A_PAD, 0, {} } }, 1, 0, EINVAL },
	{ "config_empty", NSIGHT_CMD_SET_CONFIG, {}, 0, 0, EINVAL },
	{ "config_sources_u64", NSIGHT_CMD_SET_CONFIG,
	  { { NSIGHT_A_SOURCES, 8, { 1 } } }, 1, 0, EINVAL },
	{ "config_sources_u16", NSIGHT_CMD_SET_CONFIG,
	  { { NSIGHT_A_SOURCES, 2, { 1 } } }, 1, 0, EINVAL },
	{ "config_sources_badbit", NSIGHT_CMD_SET_CONFIG,
	  { { NSIGHT_A_SOURCES, 4, U32(0x80000000u) } }, 1, 0, EINVAL },
	{ "config_size_too_small", NSIGHT_CMD_SET_CONFIG,
	  { { NSIGHT_A_BUFFER_SIZE, 4, U32(4096u) } }, 1, 0, ERANGE },
	{ "config_size_too_big", NSIGHT_CMD_SET_CONFIG,
	  { { NSIGHT_A_BUFFER_SIZE, 4, U32(1u << 30) } }, 1, 0, ERANGE },
	{ "config_size_oversized_attr", NSIGHT_CMD_SET_CONFIG,
	  { { NSIGHT_A_BUFFER_SIZE, 16, U32(1u << 20) } }, 1, 0, EINVAL },
	{ "config_unknown_attr", NSIGHT_CMD_SET_CONFIG,
	  { { NSIGHT_A_MAX + 5, 4, U32(1) } }, 1, 0, EINVAL },
	{ "config_output_only_attr", NSIGHT_CMD_SET_CONFIG,
	  { { NSIGHT_A_ENABLED, 1, { 1 } } }, 1, 0, EINVAL },
	{ "config_valid_plus_unknown", NSIGHT_CMD_SET_CONFIG,
	  { { NSIGHT_A_SOURCES, 4, U32(1) },
	    { NSIGHT_A_HOOK_HITS, 8, {} } }, 2, 0, EINVAL },
	{ "config_truncated_attr", NSIGHT_CMD_SET_CONFIG,
	  { { NSIGHT_A_SOURCES, 4, U32(1) } }, 1, 1, EINVAL },
	{ "unknown_command", 99, {}, 0, 0, EOPNOTSUPP },
	{ "config_ok_sources", NSIGHT_CMD_SET_CONFIG,
	  { { NSIGHT_A_SOURCES, 4, U32(NSIGHT_SOURCES_ALL) } }, 1, 0, 0 },
	{ "config_ok_size", NSIGHT_CMD_SET_CONFIG,
	  { { NSIGHT_A_BUFFER_SIZE, 4, U32(NSIGHT_BUFFER_DEFAULT) } }, 1, 0, 0 },
};

static const struct nl_case eperm_cases[] = {
	{ "unpriv_start", NSIGHT_CMD_START, {}, 0, 0, EPERM },
	{ "unpriv_stop", NSIGHT_CMD_STOP, {}, 0, 0, EPERM },
	{ "unpriv_status", NSIGHT_CMD_GET_STATUS, {}, 0, 0, EPERM },
	{ "unpriv_config", NSIGHT_CMD_SET_CONFIG,
	  { { NSIGHT_A_SOURCES, 4, U32(1) } }, 1, 0, EPERM },
};

static int run_case(struct nl_sock *sk, int family, const struct nl_case *c)
{
	struct nl_result r = { .err = -1 };
	struct nl_msg *msg;
	struct nl_cb *cb;
	int i, ret = 1;

	msg = nlmsg_alloc();
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!msg || !cb ||
	    !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
			 NLM_F_REQUEST | NLM_F_ACK, c->cmd, NSIGHT_GENL_VERSION))
		goto out;
	for (i = 0; i < c->nattrs; i++)
		if (nla_put(msg, c->attrs[i].type, c->attrs[i].len,
			    c->attrs[i].data))
			goto out;
	if (c->truncated) {
		/* Claims 64 bytes of payload, carries none. */
		struct nlattr lie = { .nla_len = NLA_HDRLEN + 64,
				      .nla_type = NSIGHT_A_BUFFER_SIZE };

		if (nlmsg_append(msg, &lie, sizeof(lie), NLMSG_ALIGNTO))
			goto out;
	}
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &r);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &r);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &r);
	if (nl_send_auto(sk, msg) < 0) {
		printf("FAIL %s: send failed\n", c->name);
		goto out;
	}
	while (!r.done)
		if (nl_recvmsgs(sk, cb) < 0 && !r.done)
			break;
	if (r.done && r.err == c->expect) {
		printf("PASS %s (%s%s%s)\n", c->name,
		       r.err ? strerror(r.err) : "ok", r.msg[0] ? ": " : "",
		       r.msg);
		ret = 0;
	} else {
		printf("FAIL %s: got %s, want %s%s%s\n", c->name,
		       r.done ? (r.err ? strerror(r.err) : "success") :
				"no answer",
		       c->expect ? strerror(c->expect) : "success",
		       r.msg[0] ? "; kernel says: " : "", r.msg);
	}
out:
	nl_cb_put(cb);
	nlmsg_free(msg);
	return ret;
}

int main(int argc, char **argv)
{
	const struct nl_case *list = cases;
	size_t i, n = sizeof(cases) / sizeof(cases[0]);
	struct nl_sock *sk;
	int family, one = 1, failed = 0;

	if (argc == 2 && !strcmp(argv[1], "--eperm")) {
		list = eperm_cases;
		n = sizeof(eperm_cases) / sizeof(eperm_cases[0]);
	} else if (argc != 1) {
		fprintf(stderr, "usage: nl_probe [--eperm]\n");
		return 2;
	}
	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk)) {
		fprintf(stderr, "nl_probe: cannot open a generic netlink socket\n");
		return 1;
	}
	family = genl_ctrl_resolve(sk, NSIGHT_GENL_NAME);
	if (family < 0) {
		fprintf(stderr, "nl_probe: family %s not found\n",
			NSIGHT_GENL_NAME);
		return 1;
	}
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one,
		   sizeof(one));
	nl_socket_disable_auto_ack(sk);
	for (i = 0; i < n; i++)
		failed += run_case(sk, family, &list[i]);
	nl_socket_free(sk);
	return failed ? 1 : 0;
}
