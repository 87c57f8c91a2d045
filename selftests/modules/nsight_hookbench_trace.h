/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM nsight_hookbench

#if !defined(_NSIGHT_HOOKBENCH_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _NSIGHT_HOOKBENCH_TRACE_H

#include <linux/tracepoint.h>

/* Fired by the target function on every call. */
TRACE_EVENT(nsight_hookbench_call,
	    TP_PROTO(unsigned long arg),
	    TP_ARGS(arg),
	    TP_STRUCT__entry(__field(unsigned long, arg)),
	    TP_fast_assign(__entry->arg = arg),
	    TP_printk("arg=%lu", __entry->arg)
);

#endif /* _NSIGHT_HOOKBENCH_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE nsight_hookbench_trace
#include <trace/define_trace.h>
