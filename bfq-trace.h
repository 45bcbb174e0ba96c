/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the bfq-iosched module: events/bfq/ in tracefs.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM bfq

#if !defined(_BFQ_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _BFQ_TRACE_H

#include <linux/tracepoint.h>
#include "bfq.h"

/*
 * The enums below only reach the print fmt in events/bfq/EVENT/format as
 * names; TRACE_DEFINE_ENUM makes the kernel put their values there
 * instead, so that trace-cmd and perf, which parse that format in user
 * space, can decode the class and reason fields.
 */
TRACE_DEFINE_ENUM(BFQ_CLASS_RT);
TRACE_DEFINE_ENUM(BFQ_CLASS_BE);
TRACE_DEFINE_ENUM(BFQ_CLASS_IDLE);
TRACE_DEFINE_ENUM(BFQ_EXP_EXHAUSTED);
TRACE_DEFINE_ENUM(BFQ_EXP_TIMEOUT);
TRACE_DEFINE_ENUM(BFQ_EXP_TOO_IDLE);
TRACE_DEFINE_ENUM(BFQ_EXP_NO_MORE);
TRACE_DEFINE_ENUM(BFQ_EXP_ASYNC_RQ);
TRACE_DEFINE_ENUM(BFQ_EXP_GRACE);
TRACE_DEFINE_ENUM(BFQ_EXP_PREEMPTED);
TRACE_DEFINE_ENUM(BFQ_BOOST_NONE);
TRACE_DEFINE_ENUM(BFQ_BOOST_INTERACTIVE);
TRACE_DEFINE_ENUM(BFQ_BOOST_SOFT_RT);

#define bfq_trace_class(c)					\
	__print_symbolic(c, { BFQ_CLASS_RT, "rt" },		\
			 { BFQ_CLASS_BE, "be" },		\
			 { BFQ_CLASS_IDLE, "idle" })

#define bfq_trace_reason(r)					\
	__print_symbolic(r, { BFQ_EXP_EXHAUSTED, "exhausted" },	\
			 { BFQ_EXP_TIMEOUT, "timeout" },	\
			 { BFQ_EXP_TOO_IDLE, "too_idle" },	\
			 { BFQ_EXP_NO_MORE, "no_more" },	\
			 { BFQ_EXP_ASYNC_RQ, "async_rq" },	\
			 { BFQ_EXP_GRACE, "grace" },		\
			 { BFQ_EXP_PREEMPTED, "preempted" })

#define bfq_trace_boost(b)					\
	__print_symbolic(b, { BFQ_BOOST_NONE, "none" },		\
			 { BFQ_BOOST_INTERACTIVE, "interactive" },	\
			 { BFQ_BOOST_SOFT_RT, "soft_rt" })

/* A queue is selected for service with this budget. */
TRACE_EVENT(bfq_budget,
	TP_PROTO(struct bfq_queue *bfqq),
	TP_ARGS(bfqq),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(pid_t, pid)
		__field(u64, cgroup)
		__field(int, class)
		__field(unsigned int, weight)
		__field(unsigned int, budget)
	),
	TP_fast_assign(
		__entry->dev = disk_devt(bfqq->bfqd->queue->disk);
		__entry->pid = bfqq->pid;
		__entry->cgroup = bfq_queue_cgroup_id(bfqq);
		__entry->class = bfqq->entity.class;
		__entry->weight = bfqq->entity.weight;
		__entry->budget = bfqq->entity.budget;
	),
	TP_printk("dev=%d,%d pid=%d cgroup=%llu class=%s weight=%u budget=%u",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->pid,
		  __entry->cgroup,
		  bfq_trace_class(__entry->class), __entry->weight,
		  __entry->budget)
);

/* The queue in service leaves it. */
TRACE_EVENT(bfq_expire,
	TP_PROTO(struct bfq_queue *bfqq, int reason, unsigned int served,
		 u64 elapsed_us),
	TP_ARGS(bfqq, reason, served, elapsed_us),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(pid_t, pid)
		__field(u64, cgroup)
		__field(int, reason)
		__field(unsigned int, budget)
		__field(unsigned int, served)
		__field(u64, elapsed_us)
		__field(unsigned int, next_budget)
		__field(unsigned int, rqs)
	),
	TP_fast_assign(
		__entry->dev = disk_devt(bfqq->bfqd->queue->disk);
		__entry->pid = bfqq->pid;
		__entry->cgroup = bfq_queue_cgroup_id(bfqq);
		__entry->reason = reason;
		__entry->budget = bfqq->entity.budget;
		__entry->served = served;
		__entry->elapsed_us = elapsed_us;
		__entry->next_budget = bfqq->next_budget;
		__entry->rqs = bfqq->turn_rqs;
	),
	TP_printk("dev=%d,%d pid=%d cgroup=%llu reason=%s budget=%u served=%u elapsed_us=%llu next_budget=%u rqs=%u",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->pid,
		  __entry->cgroup,
		  bfq_trace_reason(__entry->reason), __entry->budget,
		  __entry->served, __entry->elapsed_us, __entry->next_budget,
		  __entry->rqs)
);

/* A request of a queue goes to the driver. */
TRACE_EVENT(bfq_dispatch,
	TP_PROTO(struct bfq_queue *bfqq, struct request *rq),
	TP_ARGS(bfqq, rq),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(pid_t, pid)
		__field(u64, cgroup)
		__field(sector_t, sector)
		__field(unsigned int, nr_sectors)
	),
	TP_fast_assign(
		__entry->dev = disk_devt(bfqq->bfqd->queue->disk);
		__entry->pid = bfqq->pid;
		__entry->cgroup = bfq_queue_cgroup_id(bfqq);
		__entry->sector = blk_rq_pos(rq);
		__entry->nr_sectors = blk_rq_sectors(rq);
	),
	TP_printk("dev=%d,%d pid=%d cgroup=%llu sector=%llu nr_sectors=%u",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->pid,
		  __entry->cgroup,
		  (unsigned long long)__entry->sector, __entry->nr_sectors)
);

/*
 * A queue's boost starts or is renewed (left: the service it may get), or
 * ends (left: what it did not use; ms: how long it lasted).  An end with
 * service left and ms under 2000 came from low_latency=0, the idle class,
 * the queue being freed, or a soft real-time queue that no longer
 * qualified.
 */
TRACE_EVENT(bfq_boost,
	TP_PROTO(struct bfq_queue *bfqq, bool end),
	TP_ARGS(bfqq, end),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(pid_t, pid)
		__field(u64, cgroup)
		__field(int, boost)
		__field(bool, end)
		__field(unsigned int, left)
		__field(unsigned int, ms)
	),
	TP_fast_assign(
		__entry->dev = disk_devt(bfqq->bfqd->queue->disk);
		__entry->pid = bfqq->pid;
		__entry->cgroup = bfq_queue_cgroup_id(bfqq);
		__entry->boost = bfqq->boost;
		__entry->end = end;
		__entry->left = bfqq->boost_left;
		__entry->ms = jiffies_to_msecs((u32)jiffies -
					       bfqq->boost_since);
	),
	TP_printk("dev=%d,%d pid=%d cgroup=%llu boost=%s %s left=%u ms=%u",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->pid,
		  __entry->cgroup, bfq_trace_boost(__entry->boost),
		  __entry->end ? "end" : "start", __entry->left, __entry->ms)
);

#endif /* _BFQ_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE bfq-trace
#include <trace/define_trace.h>
