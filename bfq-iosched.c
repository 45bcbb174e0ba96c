// SPDX-License-Identifier: GPL-2.0
/*
 * Budget Fair Queueing I/O scheduler, after P. Valente and F. Checconi,
 * "High Throughput Disk Scheduling with Fair Bandwidth Distribution",
 * IEEE Transactions on Computers, 2010 (the 2008 design).
 *
 * Each process gets a queue per device (async requests share one queue
 * per priority).  The queue in service owns the device until it has used
 * its budget of sectors, has been served for longer than the budget
 * timeout, or has no more requests even after idling briefly for the next
 * one.  B-WF2Q+ (bfq-sched.c) then picks the next queue in proportion to
 * the weights.  This file holds the elevator glue, the budget policy, the
 * order of requests inside a queue, and the sysfs and debugfs files.
 */
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "elevator.h"
#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-debugfs.h"
#include "blk-mq-sched.h"
#include "blk-mq-tag.h"
#include "blk-wbt.h"
#include "bfq.h"

/* block_rq_insert only: blktrace's "I" events (declared, defined in the kernel) */
#include <trace/events/block.h>

#define CREATE_TRACE_POINTS
#include "bfq-trace.h"

/* Budget used until the peak rate is known, and the auto-tuned range. */
#define BFQ_START_MAX_BUDGET	16384
#define BFQ_MIN_AUTO_BUDGET	256
#define BFQ_MAX_BUDGET		BIT(20)
/* Budget feedback steps (sectors). */
#define BFQ_BUDGET_GROW		1024
#define BFQ_BUDGET_SHRINK	128
/* Busy time over which one sample of the device's rate is taken. */
#define BFQ_RATE_WINDOW_NS	(100 * NSEC_PER_MSEC)
/* Rates are in sectors per millisecond, fixed point. */
#define BFQ_RATE_SHIFT		16
/* A request this far from the previous one's end is a seek. */
#define BFQ_SEEK_SECTORS	1024
/* A device that took this many commands at once queues them itself. */
#define BFQ_QUEUEING_DEPTH	4
#define BFQ_QUEUEING_SAMPLES	32
/* requests timed alone in the driver, of each kind, before they count */
#define BFQ_SOLO_SAMPLES	8
/*
 * low_latency: a sync queue that was idle this long (or is new) gets a
 * boost worth BFQ_BOOST_MS of the device's peak rate, for at most
 * BFQ_BOOST_TIME; its budgets may shrink to what it uses, not below
 * BFQ_LL_MIN_BUDGET.
 */
#define BFQ_BOOST_IDLE		(2 * HZ)
#define BFQ_BOOST_MS		250
/* The weight that boost is for (be/4, the default); others scale it. */
#define BFQ_BOOST_WEIGHT	BFQ_PRIO_WEIGHT(IOPRIO_BE_NORM)
#define BFQ_BOOST_TIME		(2 * HZ)
#define BFQ_LL_MIN_BUDGET	64
/*
 * Processes new on the device within BFQ_BURST_GAP of each other form a
 * burst; only the first BFQ_BURST_MAX of a burst are boosted, the others
 * not until they come back after BFQ_BURST_FORGET without I/O.
 */
#define BFQ_BURST_GAP		(HZ / 5)
#define BFQ_BURST_MAX		8
#define BFQ_BURST_FORGET	(10 * HZ)
/* Soft real-time: served at most this part of its share. */
#define BFQ_SOFT_RT_PART	4

/*
 * Where a request is, kept in the low bits of rq->elv.priv[1]; above them,
 * while it is in the driver, its size: at completion the request's own
 * count of sectors has gone to 0.
 */
enum bfq_rq_state {
	BFQ_RQ_NONE,		/* not (or no longer) in a queue */
	BFQ_RQ_QUEUED,		/* in its queue's sort list and fifo */
	BFQ_RQ_DRIVER,		/* dispatched, not yet completed */
};

#define BFQ_RQ_STATE_BITS	2

static inline enum bfq_rq_state rq_state(struct request *rq)
{
	return (uintptr_t)rq->elv.priv[1] & GENMASK(BFQ_RQ_STATE_BITS - 1, 0);
}

static inline void set_rq_state(struct request *rq, enum bfq_rq_state s)
{
	rq->elv.priv[1] = (void *)(uintptr_t)s;
}

static inline bool bfq_rq_moves_data(struct request *rq)
{
	return req_op(rq) == REQ_OP_READ || req_op(rq) == REQ_OP_WRITE;
}

static inline unsigned int rq_driver_sectors(struct request *rq)
{
	return (uintptr_t)rq->elv.priv[1] >> BFQ_RQ_STATE_BITS;
}

unsigned int bfq_max_budget(struct bfq_data *bfqd)
{
	return bfqd->max_budget ?: bfqd->auto_max_budget;
}

unsigned int bfq_default_budget(struct bfq_data *bfqd)
{
	return max(bfq_max_budget(bfqd) * 3 / 4, 1U);
}

static unsigned int bfq_min_budget(struct bfq_data *bfqd)
{
	return max(bfq_max_budget(bfqd) / 2, 1U);
}

/* Sectors the device moves in 3/4 of timeout_sync at its peak rate. */
static void bfq_update_auto_budget(struct bfq_data *bfqd)
{
	u64 ms = div_u64(bfqd->timeout_ns[1], NSEC_PER_MSEC);
	u64 b;

	if (!bfqd->peak_rate)
		return;
	b = (bfqd->peak_rate * ms * 3 / 4) >> BFQ_RATE_SHIFT;
	bfqd->auto_max_budget = clamp_t(u64, b, BFQ_MIN_AUTO_BUDGET,
					BFQ_MAX_BUDGET);
}

/*
 * The peak rate is what the device completes while it has work: sectors
 * completed over busy time (time with requests in the driver, so a
 * process's think time does not count), one sample per
 * BFQ_RATE_WINDOW_NS of it.  A window in which more than a quarter of the
 * dispatches seeked tells about the workload rather than the device: it
 * is used only until the first window that did not seek, which then
 * replaces what the seeky ones gave.  Without them a load that only seeks
 * would keep the start budget, its turns of BFQ_START_MAX_BUDGET would
 * all end by timeout, and a light group would wait seconds for one
 * request.  The samples enter an average that falls as readily as it
 * rises: budgets follow a device that slows down, and turns that end by
 * timeout because the budget became too large for it end by budget again.
 */
static void bfq_rate_sample(struct bfq_data *bfqd, u64 busy_ns)
{
	bool seeky = bfqd->rate_seeks * 4 > bfqd->rate_rqs;
	u64 rate;

	if (!bfqd->rate_sectors ||
	    (seeky && bfqd->peak_rate && !bfqd->rate_seeky))
		return;
	rate = mul_u64_u64_div_u64(bfqd->rate_sectors,
				   NSEC_PER_MSEC << BFQ_RATE_SHIFT, busy_ns);
	if (!bfqd->peak_rate || bfqd->rate_seeky != seeky)
		bfqd->peak_rate = rate;
	else
		bfqd->peak_rate = (bfqd->peak_rate * 3 + rate) / 4;
	bfqd->rate_seeky = seeky;
	bfq_update_auto_budget(bfqd);
}

/*
 * The time in ns, read once per call into the scheduler and only if it is
 * needed (*@now is 0 until then).  A turn of one request, the common case
 * with many processes that each have one request in flight, needs none.
 */
static u64 bfq_now(u64 *now)
{
	if (!*now)
		*now = ktime_get_ns();
	return *now;
}

/* A window starts: the busy time counts from @now. */
static void bfq_rate_window(struct bfq_data *bfqd, u64 now)
{
	bfqd->rate_busy_ns = 0;
	bfqd->rate_busy_since = now;
	bfqd->rate_window_jif = jiffies;
	bfqd->rate_sectors = 0;
	bfqd->rate_rqs = 0;
	bfqd->rate_seeks = 0;
}

static void bfq_rate_dispatched(struct bfq_data *bfqd, struct request *rq,
				u64 *now)
{
	sector_t pos = blk_rq_pos(rq);
	bool far = (pos > bfqd->last_pos ? pos - bfqd->last_pos :
					   bfqd->last_pos - pos) > BFQ_SEEK_SECTORS;
	/* a disk's write cache answers writes at once, wherever they go */
	bool read = req_op(rq) == REQ_OP_READ;

	bfqd->solo = !bfqd->in_driver && read;
	bfqd->solo_far = far && read;
	if (!bfqd->in_driver) {
		bfqd->rate_busy_since = bfq_now(now);
		if (!bfqd->rate_busy_ns && !bfqd->rate_rqs)
			bfqd->rate_window_jif = jiffies;
	}
	bfqd->rate_rqs++;
	if (far)
		bfqd->rate_seeks++;
}

/*
 * A read of @sectors that was alone in the driver from dispatch to
 * completion took @ns: the device's time for it, with no other command to
 * share it with.  Reads far from the one before and those that follow on
 * are averaged apart (the near ones' size too, for bfq_seek_sectors),
 * each sample counting 1/BFQ_SOLO_SAMPLES once there are that many
 * (and at most 4x the average plus 1 ms then: a read behind a cache flush
 * we never saw).  The clock was read anyway: the device went idle.
 *
 * Moving to another place of the device costs time if far reads take
 * over twice as long as near ones (on a disk, a seek and part of a turn
 * against a transfer; far reads are mostly the smaller ones, so size does
 * not make up the difference); it is free once they take under 1.5x, so
 * that averages near the line do not flip the idling at each read.  A
 * rotational device is taken for a disk until both kinds were timed: a
 * virtual disk backed by a file, or an array, shows that it is not one.
 */
static void bfq_solo_sample(struct bfq_data *bfqd, u64 ns,
			    unsigned int sectors)
{
	u32 us = min_t(u64, div_u64(ns, NSEC_PER_USEC), USEC_PER_SEC);
	u32 *avg = bfqd->solo_far ? &bfqd->far_us : &bfqd->near_us;
	u8 *n = bfqd->solo_far ? &bfqd->far_n : &bfqd->near_n;

	if (*n < BFQ_SOLO_SAMPLES)
		(*n)++;
	else
		us = min(us, 4 * *avg + USEC_PER_MSEC);
	/* the mean of the first ones (the first alone may be an odd one) */
	*avg = (*avg * (*n - 1) + us) / *n;
	if (!bfqd->solo_far)
		bfqd->near_sectors = (bfqd->near_sectors * (*n - 1) +
				      min(sectors, BFQ_MAX_BUDGET)) / *n;
	if (bfqd->far_n < BFQ_SOLO_SAMPLES || bfqd->near_n < BFQ_SOLO_SAMPLES)
		return;
	if (bfqd->far_us > 2 * bfqd->near_us)
		bfqd->seeks_free = false;
	else if (2 * bfqd->far_us < 3 * bfqd->near_us)
		bfqd->seeks_free = true;
}

static bool bfq_seeks_cost(struct bfq_data *bfqd)
{
	return !blk_queue_nonrot(bfqd->queue) && !bfqd->seeks_free;
}

/*
 * low_latency: what a far read costs beyond a near one, in the sectors
 * near reads move in that time (their measured size and time), once
 * measured on a disk that queues commands; at most max_budget, 0
 * elsewhere.  B-WF2Q+ counts sectors: without this a reader of small
 * random blocks, which ends its turns after one request instead of being
 * waited for, is charged 8 sectors for a read that took the head away for
 * as long as a stream moves thousands, wins every challenge
 * (bfq_challenge), and takes most of the disk's time from the streams
 * beside it.  Not the peak rate: that one is the mix's, and falls with
 * the seeks it would charge.  A disk that takes one command at a time
 * has no challenger, and keeps its 2008 turns (not measured with this).
 */
static unsigned int bfq_seek_sectors(struct bfq_data *bfqd)
{
	u64 s;

	if (!bfqd->low_latency || !bfqd->queueing || !bfq_seeks_cost(bfqd) ||
	    bfqd->far_n < BFQ_SOLO_SAMPLES || bfqd->near_n < BFQ_SOLO_SAMPLES ||
	    bfqd->far_us <= bfqd->near_us)
		return 0;
	s = div_u64((u64)(bfqd->far_us - bfqd->near_us) * bfqd->near_sectors,
		    max(bfqd->near_us, 1U));
	return min_t(u64, s, bfq_max_budget(bfqd));
}

/* After in_driver was decremented; @sectors is 0 for a requeue. */
static void bfq_rate_completed(struct bfq_data *bfqd, unsigned int sectors)
{
	u64 now, busy;

	bfqd->rate_sectors += sectors;
	/*
	 * Busy time is at most the time since the window started: while
	 * that is short of a window, and the device stays busy, no clock
	 * read is needed (a jiffy is left for the one the window started
	 * in).  Under a steady load that is most completions.
	 */
	if (bfqd->in_driver && (u32)jiffies - bfqd->rate_window_jif <
	    nsecs_to_jiffies(BFQ_RATE_WINDOW_NS) - 1)
		return;
	now = ktime_get_ns();
	if (!bfqd->in_driver && bfqd->solo && sectors)
		bfq_solo_sample(bfqd, now - bfqd->rate_busy_since, sectors);
	busy = bfqd->rate_busy_ns + now - bfqd->rate_busy_since;
	if (busy < BFQ_RATE_WINDOW_NS) {
		/* an idle gap starts: bank the busy time so far */
		if (!bfqd->in_driver)
			bfqd->rate_busy_ns = busy;
		return;
	}
	bfq_rate_sample(bfqd, busy);
	bfq_rate_window(bfqd, now);
}

/*
 * The 2008 feedback: the budget of the queue's next turn, from the one it
 * was given (the turn resumed after a preemption ran on what was left of
 * it) and how this turn ended.  With low_latency a queue that ran dry
 * gets what it used: small requests now and then make short turns, which
 * B-WF2Q+ can slot in early, instead of being stamped as if they would
 * use half the maximum.
 */
static unsigned int bfq_next_budget(struct bfq_data *bfqd,
				    struct bfq_queue *bfqq,
				    enum bfq_expiry reason)
{
	unsigned int budget = max(bfqq->entity.budget, bfqq->next_budget);
	unsigned int used = bfqq->entity.service;

	if (!bfqq->sync)
		return bfq_max_budget(bfqd);
	if (bfqd->low_latency &&
	    (reason == BFQ_EXP_TOO_IDLE || reason == BFQ_EXP_NO_MORE))
		return min(max(used, BFQ_LL_MIN_BUDGET), bfq_max_budget(bfqd));
	switch (reason) {
	case BFQ_EXP_EXHAUSTED:
	case BFQ_EXP_PREEMPTED:
		return min(budget + BFQ_BUDGET_GROW, bfq_max_budget(bfqd));
	case BFQ_EXP_TIMEOUT:
		return bfq_default_budget(bfqd);
	case BFQ_EXP_TOO_IDLE:
		if (budget < bfq_min_budget(bfqd) + BFQ_BUDGET_SHRINK)
			return bfq_min_budget(bfqd);
		return budget - BFQ_BUDGET_SHRINK;
	default:
		return min(budget, bfq_max_budget(bfqd));
	}
}

static struct request *bfq_first_rq(struct bfq_queue *bfqq)
{
	return list_first_entry(&bfqq->fifo, struct request, queuelist);
}

/*
 * C-LOOK from the device's head: the nearest request at or after it, else
 * wrap to the lowest.  A request behind the head within back_seek_max is
 * taken instead if its distance, times back_seek_penalty, is shorter.
 */
static struct request *bfq_clook(struct bfq_data *bfqd,
				 struct bfq_queue *bfqq)
{
	struct rb_node *n = bfqq->sort_list.rb_node;
	sector_t head = bfqd->last_pos;
	struct request *next = NULL, *prev = NULL;
	u64 back;

	while (n) {
		struct request *rq = rb_entry_rq(n);

		if (blk_rq_pos(rq) >= head) {
			next = rq;
			n = n->rb_left;
		} else {
			prev = rq;
			n = n->rb_right;
		}
	}
	if (prev) {
		back = head - blk_rq_pos(prev);
		if (back <= (u64)bfqd->back_seek_max * 2 &&
		    (!next || back * bfqd->back_seek_penalty <
			      blk_rq_pos(next) - head))
			return prev;
	}
	return next ?: rb_entry_rq(rb_first(&bfqq->sort_list));
}

/* The oldest request if it waited too long, otherwise C-LOOK order. */
static struct request *bfq_choose_rq(struct bfq_data *bfqd,
				     struct bfq_queue *bfqq, u64 *now)
{
	struct request *rq = bfq_first_rq(bfqq);

	if (bfqq->queued == 1 || bfq_now(now) >= rq->fifo_time)
		return rq;
	return bfq_clook(bfqd, bfqq);
}

/*
 * Whether the sync queue in service, now empty, is worth waiting for.
 * The 2008 scheduler always waits, so that a queue that empties between
 * two requests keeps its share, and a disk's head stays where it reads.
 * The wait protects a share only where shares differ: unequal weights or
 * classes, or groups.  A boost (low_latency) is not such a difference for
 * the other queues.  Otherwise the wait pays for throughput, or for a
 * boosted queue.  Not so on a device that serves many commands at once
 * and where seeks cost nothing (flash, or a virtual disk backed by a
 * file): the wait would hand it to one process at a time, while it does
 * better with every queue's requests.  There only a program starting
 * (an interactive boost) that is the only boosted queue is waited for:
 * its next read would otherwise find the device full of the streams'.
 * Boosted queues that started together (up to a burst's BFQ_BURST_MAX)
 * are not: waiting for each in turn starved many processes with one
 * request each; nor a soft real-time queue, which reads at its own pace
 * for as long as it runs.  The challenger gives a boosted queue the
 * device back as soon as its next request comes.  Elsewhere a boosted
 * queue is waited for, and a sequential reader: a disk keeps its head
 * where it reads, even if it queues commands.  A queue that mostly seeks
 * has no head to keep.
 * Nothing comes to a queue whose process exited or moved away; async
 * queues, and every queue with slice_idle=0, are never waited for.
 */
static bool bfq_worth_idling(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	if (!bfqq->sync || !bfqd->slice_idle_ns || bfqq->abandoned)
		return false;
	if (!bfq_symmetric(&bfqq->entity))
		return true;
	if (bfqd->queueing && !bfq_seeks_cost(bfqd))
		return bfqq->boost == BFQ_BOOST_INTERACTIVE &&
		       bfq_boosted_alone(&bfqq->entity);
	return bfqq->entity.boosted || hweight16(bfqq->seeks) <= 8;
}

/*
 * A sync queue whose turn ends while its request is in the driver (at its
 * timeout, during a slow command) has nothing queued, yet its next request
 * will most likely follow the completion.  Were it to leave the tree,
 * B-WF2Q+ would move V up to serve whoever is left, and it would lose its
 * share at every such turn.  So it stays backlogged; picked again before
 * its next request comes, it idles for it like the queue in service does.
 */
static bool bfq_keep_backlogged(struct bfq_data *bfqd, struct bfq_queue *bfqq,
				enum bfq_expiry reason)
{
	/* not a turn of one request (grace), nor one that never dispatched */
	if (reason != BFQ_EXP_TIMEOUT && reason != BFQ_EXP_EXHAUSTED &&
	    reason != BFQ_EXP_PREEMPTED)
		return false;
	return bfqq->dispatched &&
	       (bfqq->turn_rqs || reason == BFQ_EXP_PREEMPTED) &&
	       bfq_worth_idling(bfqd, bfqq);
}

/*
 * A queue too slow for its budget pays for it in time: the whole budget.
 * The 2008 rule charges async turns so too, and buffered writes beside a
 * reader then get a fraction of their share; with low_latency an async
 * turn that ends by its request count pays for what it got, like a sync
 * one.
 */
static bool bfq_pays_budget(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			    enum bfq_expiry reason)
{
	return reason == BFQ_EXP_TIMEOUT || (!bfqq->sync && !bfqd->low_latency);
}

/*
 * The far reads of the turn ending (bfq_seek_sectors), the one that took
 * the head here from the queue before included: each switch is paid by
 * the queue it goes to.  A turn pays at most what its timeout would have
 * made it pay (its budget, or max_budget), so that a deep seeky queue
 * cut after many reads is not charged more than one that ran out its
 * time.
 */
static void bfq_charge_seeks(struct bfq_data *bfqd, struct bfq_entity *e)
{
	unsigned int cap = max(e->budget, bfq_max_budget(bfqd));
	u64 seeks;

	if (!bfqd->turn_far || e->service >= cap)
		return;
	seeks = (u64)bfqd->turn_far * bfq_seek_sectors(bfqd);
	if (seeks)
		bfq_served(e, min_t(u64, seeks, cap - e->service));
}

/* End the turn of the queue in service. */
static void bfq_expire(struct bfq_data *bfqd, enum bfq_expiry reason,
		       u64 *now)
{
	struct bfq_queue *bfqq = bfqd->in_service;
	struct bfq_entity *e = &bfqq->entity;
	unsigned int served = e->service;
	u64 elapsed = bfqq->turn_start_ns ?
		      bfq_now(now) - bfqq->turn_start_ns : 0;
	/* what a preempted queue had left; its budget feedback waits */
	unsigned int left = 0;

	lockdep_assert_held(&bfqd->lock);
	if (reason == BFQ_EXP_PREEMPTED && served < e->budget)
		left = e->budget - served;
	else if (bfq_pays_budget(bfqd, bfqq, reason) && served < e->budget)
		bfq_served(e, e->budget - served);
	if (!left)
		bfqq->next_budget = bfq_next_budget(bfqd, bfqq, reason);
	/* after the feedback: budgets stay in sectors */
	if (!bfq_pays_budget(bfqd, bfqq, reason))
		bfq_charge_seeks(bfqd, e);
	bfqd->turn_far = 0;
	bfqq->idled_out = reason == BFQ_EXP_TOO_IDLE;
	bfqq->expiries[reason]++;
	bfqd->total_expiries[reason]++;
	if (bfqq->bfqg && reason == BFQ_EXP_EXHAUSTED)
		WRITE_ONCE(bfqq->bfqg->exhausted, bfqq->bfqg->exhausted + 1);
	if (bfqq->bfqg && reason == BFQ_EXP_TIMEOUT)
		WRITE_ONCE(bfqq->bfqg->timeout, bfqq->bfqg->timeout + 1);
	trace_bfq_expire(bfqq, reason, served, div_u64(elapsed, NSEC_PER_USEC));

	bfqd->in_service = NULL;
	WRITE_ONCE(bfqd->waiting, false);
	hrtimer_try_to_cancel(&bfqd->idle_timer);
	if (bfqq->queued) {
		e->budget = max(left ?: bfqq->next_budget,
				blk_rq_sectors(bfq_first_rq(bfqq)));
		bfq_requeue(e, true);
	} else if (bfq_keep_backlogged(bfqd, bfqq, reason)) {
		e->budget = left ?: bfqq->next_budget;
		bfq_requeue(e, true);
	} else {
		bfq_requeue(e, false);
	}
	bfq_put_queue(bfqq);
}

static void bfq_note_seek(struct bfq_queue *bfqq, struct request *rq)
{
	sector_t pos = blk_rq_pos(rq);
	sector_t dist = pos > bfqq->last_end ? pos - bfqq->last_end :
					       bfqq->last_end - pos;

	bfqq->seeks = (bfqq->seeks << 1) | (dist > BFQ_SEEK_SECTORS);
	bfqq->last_end = pos + blk_rq_sectors(rq);
}

/*
 * Whether the sync queue in service has had nothing queued and nothing in
 * the driver for longer than slice_idle.  The idle timer would have ended
 * its turn, but only a dispatch starts it, and none runs while the device
 * has nothing else to do: its turn, and its timeout, would go on.
 */
static bool bfq_idled_out(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	u32 end = bfqq->idle_since + nsecs_to_jiffies(bfqd->slice_idle_ns) + 1;

	return bfqq->sync && !bfqd->waiting && !bfqq->queued &&
	       !bfqq->dispatched && time_after32((u32)jiffies, end);
}

/* How that turn would have ended: by the timer, or at once if not idled. */
static enum bfq_expiry bfq_idled_out_reason(struct bfq_data *bfqd,
					    struct bfq_queue *bfqq)
{
	if (bfq_worth_idling(bfqd, bfqq))
		return BFQ_EXP_TOO_IDLE;
	return BFQ_EXP_NO_MORE;
}

static void bfq_arm_idle_timer(struct bfq_data *bfqd)
{
	hrtimer_start(&bfqd->idle_timer, ns_to_ktime(bfqd->slice_idle_ns),
		      HRTIMER_MODE_REL);
}

static bool bfq_timed_out(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			  u64 *now)
{
	return bfqq->turn_start_ns &&
	       bfq_now(now) - bfqq->turn_start_ns >= bfqd->timeout_ns[bfqq->sync];
}

/*
 * The queue in service starts waiting for its next request.  With nothing
 * in the driver, the think time starts now.  Otherwise it starts when the
 * last request comes back (bfq_left_driver), and a slow command could
 * hold the device past the budget timeout: nothing else dispatches while
 * we wait, so the timer ends the turn at the timeout.
 */
static void bfq_start_waiting(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			      u64 *now)
{
	u64 end;

	/* a turn of one request was not timed: it is from now on */
	if (!bfqq->turn_start_ns)
		bfqq->turn_start_ns = bfq_now(now);
	end = bfqq->turn_start_ns + bfqd->timeout_ns[bfqq->sync];
	if (!bfqq->dispatched)
		bfq_arm_idle_timer(bfqd);
	else
		hrtimer_start(&bfqd->idle_timer, ns_to_ktime(end - bfq_now(now)),
			      HRTIMER_MODE_REL);
	WRITE_ONCE(bfqd->waiting, true);
}

/* Let go of the queue a challenger or preemptor slot holds, if any. */
static void bfq_drop(struct bfq_queue **slot)
{
	if (*slot) {
		bfq_put_queue(*slot);
		*slot = NULL;
	}
}

/*
 * low_latency: a sync queue just activated that does not preempt becomes
 * the challenger of the queue in service, and takes the device as soon as
 * B-WF2Q+ would pick it were that turn cut there (bfq_challenger_wins).
 * A small reader then waits for a few of a stream's requests, not for its
 * whole turn; the order is B-WF2Q+'s, only served in smaller slices.  One
 * challenger at a time keeps the check at each dispatch O(depth).
 * Not on a disk that serves one command at a time: there each switch is a
 * seek pair and the 2008 turns keep its throughput.  A rotational device
 * that queues commands (an NCQ disk, a virtual disk backed by a file)
 * orders them itself; without a challenge a small reader would wait for a
 * stream's whole turn there.  The price on a real disk: a seek pair per
 * small read.
 */
static void bfq_challenge(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	if (!bfqd->low_latency || !bfqq->sync || !bfqd->in_service ||
	    bfqd->challenger ||
	    (!blk_queue_nonrot(bfqd->queue) && !bfqd->queueing))
		return;
	bfq_get_queue(bfqq);
	bfqd->challenger = bfqq;
}

static bool bfq_challenger_wins(struct bfq_data *bfqd, struct bfq_queue *cur)
{
	struct bfq_queue *ch = bfqd->challenger;

	if (!ch)
		return false;
	if (!ch->queued || !ch->entity.active || !bfqd->low_latency) {
		bfq_drop(&bfqd->challenger);
		return false;
	}
	return bfq_comes_first(&ch->entity, &cur->entity, true);
}

/*
 * The next request of the queue in service, or NULL: then either it is
 * idling (bfqd->waiting) or its turn is over and it has been expired.
 */
static struct request *bfq_in_service_rq(struct bfq_data *bfqd, u64 *now)
{
	struct bfq_queue *bfqq = bfqd->in_service;
	struct bfq_entity *e = &bfqq->entity;
	enum bfq_expiry reason;
	struct request *rq;

	if (bfq_idled_out(bfqd, bfqq)) {
		reason = bfq_idled_out_reason(bfqd, bfqq);
	} else if (bfq_timed_out(bfqd, bfqq, now)) {
		reason = BFQ_EXP_TIMEOUT;
	} else if (bfq_challenger_wins(bfqd, bfqq)) {
		reason = BFQ_EXP_PREEMPTED;
	} else if (bfqq->queued) {
		rq = bfq_choose_rq(bfqd, bfqq, now);
		/* picked with nothing queued: as at the pick, the first goes */
		if (!bfqq->turn_rqs)
			e->budget = max(e->budget, blk_rq_sectors(rq));
		if (blk_rq_sectors(rq) <= e->budget - e->service)
			return rq;
		reason = BFQ_EXP_EXHAUSTED;
	} else if (bfq_worth_idling(bfqd, bfqq)) {
		/*
		 * A sync queue idles even with its budget used up: it is
		 * exhausted when its next request does not fit, and it must
		 * still be backlogged then, or it leaves the weight sum and
		 * loses its share between two requests.
		 */
		if (!bfqd->waiting)
			bfq_start_waiting(bfqd, bfqq, now);
		return NULL;
	} else if (e->service >= e->budget) {
		reason = BFQ_EXP_EXHAUSTED;
	} else {
		reason = BFQ_EXP_NO_MORE;
	}
	bfq_expire(bfqd, reason, now);
	return NULL;
}

/*
 * The next queue to serve, with a reference for the caller; NULL if none.
 * A preemptor still backlogged goes first (bfq_next_queue).
 */
static struct bfq_queue *bfq_pick_queue(struct bfq_data *bfqd)
{
	struct bfq_queue *first = bfqd->preemptor, *bfqq = NULL;
	struct bfq_entity *e;

	bfqd->preemptor = NULL;
	while ((e = bfq_next_queue(&bfqd->root_sd, &bfqd->grace,
				   first ? &first->entity : NULL))) {
		bfqq = bfq_entity_queue(e);
		/* only a sync queue is kept backlogged with nothing queued */
		WARN_ON_ONCE(!bfqq->queued && !bfqq->sync);
		/* kept backlogged (bfq_keep_backlogged): nothing may come */
		if (bfqq->queued || !bfqq->abandoned)
			break;
		bfq_requeue(e, false);
		bfqq = NULL;
	}
	if (bfqq)
		bfq_get_queue(bfqq);
	if (first)
		bfq_put_queue(first);
	return bfqq;
}

/*
 * The request to dispatch next, from the queue in service or, when that
 * queue's turn is over, from the next queue B-WF2Q+ picks.  NULL while
 * idling for the queue in service.
 */
static struct request *bfq_select_rq(struct bfq_data *bfqd, u64 *now)
{
	struct bfq_queue *bfqq;
	struct bfq_entity *e;
	struct request *rq;

	if (bfqd->in_service) {
		rq = bfq_in_service_rq(bfqd, now);
		if (rq || bfqd->waiting)
			return rq;
	}

	bfqq = bfq_pick_queue(bfqd);
	if (!bfqq)
		return NULL;
	e = &bfqq->entity;
	if (bfqq == bfqd->challenger)
		bfq_drop(&bfqd->challenger);
	bfqd->in_service = bfqq;
	bfqq->turn_start_ns = 0;
	bfqq->turn_rqs = 0;
	/*
	 * Its budget was set at its last expiry: the budgets in use may have
	 * fallen since (peak rate, max_budget).  A timeout charges the whole
	 * budget, and a stale one would cost it many turns of the others.
	 */
	e->budget = min(e->budget, bfq_max_budget(bfqd));
	if (!bfqq->queued) {
		/* its turn, and its time, start now: wait for its request */
		bfqq->turn_start_ns = bfq_now(now);
		bfq_start_waiting(bfqd, bfqq, now);
		return NULL;
	}
	rq = bfq_choose_rq(bfqd, bfqq, now);
	/* a request larger than the whole budget still has to go */
	e->budget = max(e->budget, blk_rq_sectors(rq));
	trace_bfq_budget(bfqq);
	return rq;
}

void bfq_boost_end(struct bfq_queue *bfqq)
{
	trace_bfq_boost(bfqq, true);
	bfqq->boost = BFQ_BOOST_NONE;
	bfqq->boost_left = 0;
	/* the weight falls back when the queue next goes on a tree */
	bfqq->entity.boosted = false;
}

/*
 * A boost lasts for so much service, or so long, whichever ends first; a
 * queue moved to the idle class loses it.
 */
static bool bfq_boost_over(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	return !bfqd->low_latency || !bfqq->boost_left ||
	       (u32)jiffies - bfqq->boost_since > BFQ_BOOST_TIME ||
	       bfqq->entity.new_class == BFQ_CLASS_IDLE;
}

static void bfq_boost_check(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	if (bfqq->boost != BFQ_BOOST_NONE && bfq_boost_over(bfqd, bfqq))
		bfq_boost_end(bfqq);
}

/*
 * A process new on the device, or back after a long pause: someone
 * probably waits for what it reads (a program starting, a file opened).
 * Not so when many start together (a build, a parallel job): boosting
 * them all would take the device from everyone else, and none of them
 * alone is what a user waits for.  Such a process is not boosted, not
 * even as soft real-time later, until it comes back after a long pause
 * (bfq_boost_start): with hundreds of threads that each wait
 * their turn, every one of them looks like a player that reads little
 * (it is served little because there are so many), and boosting them
 * all only costs preemptions.
 */
static bool bfq_interactive(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	if (bfqq->seen)
		return (u32)jiffies - bfqq->idle_since > BFQ_BOOST_IDLE;
	if ((u32)jiffies - bfqd->burst_last > BFQ_BURST_GAP)
		bfqd->burst_len = 0;
	bfqd->burst_last = jiffies;
	bfqq->in_burst = ++bfqd->burst_len > BFQ_BURST_MAX;
	return !bfqq->in_burst;
}

/*
 * A queue that comes back after thinking for longer than we would idle
 * for it, having been served since it last came back at a rate well
 * under its share: a player or a recorder.  Returns the service its boost
 * is worth, twice what it took last time (its own rate, not a fixed one,
 * bounds it), or 0.  Called at each activation: it also starts the next
 * period.
 */
static unsigned int bfq_soft_rt(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	struct bfq_entity *e = &bfqq->entity;
	u32 now = jiffies, ms = jiffies_to_msecs(now - bfqq->active_since);
	u32 served = (u32)bfqq->total_served - bfqq->active_served;
	u64 share;

	bfqq->active_since = now;
	bfqq->active_served = bfqq->total_served;
	if (!bfqq->seen || !bfqd->peak_rate || !ms || bfqq->dispatched ||
	    now - bfqq->idle_since <= nsecs_to_jiffies(bfqd->slice_idle_ns) + 1)
		return 0;
	/* its share at its own weight: a boost it had does not count */
	share = bfqd->peak_rate * bfq_share_as(e, e->new_weight) >> 10;
	if (div_u64((u64)served << BFQ_RATE_SHIFT, ms) >
	    share / BFQ_SOFT_RT_PART)
		return 0;
	return max_t(u32, 2 * served, BFQ_LL_MIN_BUDGET);
}

/*
 * What an interactive boost is worth: the service the device gives in
 * BFQ_BOOST_MS at its peak rate, in proportion to the queue's weight.
 * Two streams that start together then use up their boosts together.
 * With the same amount for all, a be/0 stream used its boost up in an
 * eighth of the time a be/7 one took, which then ran boosted beside it
 * at more than the be/0 weight: test 29's be/0 vs be/7 ratio fell from
 * the ideal 8 to about 5.
 */
static unsigned int bfq_boost_service(struct bfq_data *bfqd,
				      struct bfq_entity *e)
{
	u64 left = BFQ_START_MAX_BUDGET;

	if (bfqd->peak_rate)
		left = clamp_t(u64, (bfqd->peak_rate * BFQ_BOOST_MS) >>
				    BFQ_RATE_SHIFT,
			       BFQ_MIN_AUTO_BUDGET, BFQ_MAX_BUDGET);
	return max_t(u64, div_u64(left * e->new_weight, BFQ_BOOST_WEIGHT),
		     BFQ_LL_MIN_BUDGET);
}

/*
 * A sync queue becomes backlogged: boost it if it looks interactive (for
 * as much service as the device gives in BFQ_BOOST_MS) or soft real-time
 * (renewed at each activation while it stays so).  A stream uses its
 * boost up quickly and goes back to its weight.  Returns true if an
 * interactive boost starts now (a program starting, bfq_preempts).
 */
static bool bfq_boost_start(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	unsigned int left, soft_rt = bfq_soft_rt(bfqd, bfqq);
	enum bfq_boost kind = BFQ_BOOST_INTERACTIVE;

	bfq_boost_check(bfqd, bfqq);
	/* back after a long pause: a user's action more than the job's */
	if (bfqq->in_burst && bfqq->seen && !bfqq->dispatched &&
	    (u32)jiffies - bfqq->idle_since > BFQ_BURST_FORGET)
		bfqq->in_burst = false;
	if (!bfqd->low_latency || !bfqq->sync || bfqq->abandoned ||
	    bfqq->in_burst || bfqq->entity.new_class == BFQ_CLASS_IDLE ||
	    bfqq->boost == BFQ_BOOST_INTERACTIVE)
		return false;
	if (!bfqq->dispatched && bfq_interactive(bfqd, bfqq)) {
		left = bfq_boost_service(bfqd, &bfqq->entity);
	} else if (soft_rt) {
		kind = BFQ_BOOST_SOFT_RT;
		left = soft_rt;
	} else {
		if (bfqq->boost != BFQ_BOOST_NONE)
			bfq_boost_end(bfqq);
		return false;
	}
	if (bfqq->boost == BFQ_BOOST_NONE)
		bfqd->boosts++;
	bfqq->boost = kind;
	bfqq->boost_since = jiffies;
	bfqq->boost_left = left;
	bfqq->entity.boosted = true;
	trace_bfq_boost(bfqq, false);
	return kind == BFQ_BOOST_INTERACTIVE;
}

/* Charge a dispatch to the queue's boost. */
static void bfq_boost_used(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			   unsigned int sectors)
{
	if (bfqq->boost == BFQ_BOOST_NONE)
		return;
	bfqq->boost_left -= min(sectors, bfqq->boost_left);
	bfq_boost_check(bfqd, bfqq);
}

/*
 * low_latency: a boosted sync queue just activated takes the device from
 * a queue in service that is not boosted, at once rather than at the end
 * of that queue's turn; so does a sync queue of a higher class.  Other
 * queues wait for the turn to end: a switch costs a seek on a disk, and
 * they are not the ones a user waits for.  The queue preempted keeps its
 * place: it resumes with what it had left of its budget.
 *
 * The newcomer must come first in B-WF2Q+ order where their paths part
 * (a higher class, or an earlier finish time), or other groups' shares
 * would suffer; but a program just started (@started: its interactive
 * boost starts now) in the group of the queue in service goes first
 * anyway, once (bfqd->preemptor): a queue owed service can have its
 * finish time behind V, where every newcomer starts, and the program
 * would wait for the rest of that queue's turn.  Only then: a boosted
 * queue comes back at every request for the whole boost, and would cut
 * the other queues' turns as often (a be/7 reader took almost three
 * times its share beside a be/0 one that way in test 29).
 */
static bool bfq_preempts(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			 bool started)
{
	struct bfq_queue *cur = bfqd->in_service;

	if (!bfqd->low_latency || !bfqq->sync || !cur || cur == bfqq)
		return false;
	bfq_boost_check(bfqd, cur);
	if (bfqq->entity.class >= cur->entity.class &&
	    (!bfqq->entity.boosted || cur->entity.boosted))
		return false;
	if (bfq_comes_first(&bfqq->entity, &cur->entity, false))
		return true;
	if (!started || bfqq->entity.parent != cur->entity.parent ||
	    bfqq->entity.class != cur->entity.class)
		return false;
	bfq_get_queue(bfqq);
	bfq_drop(&bfqd->preemptor);
	bfqd->preemptor = bfqq;
	return true;
}

static void bfq_remove_rq(struct bfq_data *bfqd, struct request *rq)
{
	struct request_queue *q = bfqd->queue;
	struct bfq_queue *bfqq = rq_bfqq(rq);

	lockdep_assert_held(&bfqd->lock);
	list_del_init(&rq->queuelist);
	elv_rb_del(&bfqq->sort_list, rq);
	elv_rqhash_del(q, rq);
	if (q->last_merge == rq)
		q->last_merge = NULL;
	set_rq_state(rq, BFQ_RQ_NONE);
	bfqq->queued--;
	WRITE_ONCE(bfqd->queued, bfqd->queued - 1);
}

/*
 * Whether the device serves several commands at once, from what it does:
 * the most it held in BFQ_QUEUEING_SAMPLES dispatches made while we had
 * enough to give it.  blk-mq may hold one request more than a device that
 * takes one command at a time: the threshold is above that.  While we
 * keep the device for a queue that has less, our idling, not the device,
 * limits what it holds: no sample.
 */
static void bfq_sample_queueing(struct bfq_data *bfqd)
{
	struct bfq_queue *cur = bfqd->in_service;

	if (bfqd->in_driver + bfqd->queued < BFQ_QUEUEING_DEPTH ||
	    (cur && cur->queued + cur->dispatched < BFQ_QUEUEING_DEPTH &&
	     bfq_worth_idling(bfqd, cur)))
		return;
	bfqd->depth_max = max(bfqd->depth_max, bfqd->in_driver);
	if (++bfqd->depth_samples < BFQ_QUEUEING_SAMPLES)
		return;
	bfqd->queueing = bfqd->depth_max >= BFQ_QUEUEING_DEPTH;
	bfqd->depth_max = 0;
	bfqd->depth_samples = 0;
}

static void bfq_to_driver(struct bfq_data *bfqd, struct request *rq,
			  u64 *now)
{
	bfq_rate_dispatched(bfqd, rq, now);
	rq_bfqq(rq)->dispatched++;
	bfqd->in_driver++;
	bfq_sample_queueing(bfqd);
	/* discards and the like move no data at the rate of reads and writes */
	rq->elv.priv[1] = (void *)(uintptr_t)(BFQ_RQ_DRIVER |
		(uintptr_t)(bfq_rq_moves_data(rq) ? blk_rq_sectors(rq) : 0) <<
		BFQ_RQ_STATE_BITS);
}

static struct request *bfq_dispatch(struct bfq_data *bfqd)
{
	struct request *rq;
	struct bfq_queue *bfqq;
	struct bfq_group *bfqg;
	u64 now = 0;

	lockdep_assert_held(&bfqd->lock);
	rq = list_first_entry_or_null(&bfqd->dispatch, struct request,
				      queuelist);
	if (rq) {
		list_del_init(&rq->queuelist);
		/* priv shares its space with the flush data of the others */
		if ((rq->rq_flags & RQF_ELVPRIV) && rq_bfqq(rq))
			bfq_to_driver(bfqd, rq, &now);
		return rq;
	}
	if (!bfqd->queued)
		return NULL;

	rq = bfq_select_rq(bfqd, &now);
	if (!rq)
		return NULL;
	bfqq = rq_bfqq(rq);
	/* the turn's accounting below is the queue in service's */
	WARN_ON_ONCE(bfqq != bfqd->in_service);
	bfq_remove_rq(bfqd, rq);
	bfq_to_driver(bfqd, rq, &now);
	bfqq->turn_rqs++;
	bfqd->turn_far += bfqd->solo_far;
	/* a turn that may outlast this request is timed (bfq_now) */
	if (!bfqq->turn_start_ns &&
	    (bfqq->queued || bfqq->turn_rqs > 1 || bfq_worth_idling(bfqd, bfqq)))
		bfqq->turn_start_ns = bfq_now(&now);
	bfqq->total_served += blk_rq_sectors(rq);
	for (bfqg = bfqq->bfqg; bfqg; bfqg = bfqg->parent)
		WRITE_ONCE(bfqg->sectors, bfqg->sectors + blk_rq_sectors(rq));
	bfq_served(&bfqq->entity, blk_rq_sectors(rq));
	bfq_boost_used(bfqd, bfqq, blk_rq_sectors(rq));
	bfqd->last_pos = blk_rq_pos(rq) + blk_rq_sectors(rq);
	trace_bfq_dispatch(bfqq, rq);

	if (bfqd->grace)
		bfq_expire(bfqd, BFQ_EXP_GRACE, &now);
	else if (!bfqq->sync && bfqq->turn_rqs >= bfqd->max_budget_async_rq)
		bfq_expire(bfqd, BFQ_EXP_ASYNC_RQ, &now);
	return rq;
}

static struct request *bfq_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct bfq_data *bfqd = hctx->queue->elevator->elevator_data;
	struct request *rq;

	spin_lock_irq(&bfqd->lock);
	rq = bfq_dispatch(bfqd);
	spin_unlock_irq(&bfqd->lock);
	return rq;
}

/* Called often and without the lock: a cheap, possibly stale answer. */
static bool bfq_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct bfq_data *bfqd = hctx->queue->elevator->elevator_data;

	return !list_empty_careful(&bfqd->dispatch) ||
	       (READ_ONCE(bfqd->queued) && !READ_ONCE(bfqd->waiting));
}

/*
 * The bio's io_cq on @q: the context's hint if it is ours, which RCU keeps
 * readable (a destroyed one has no sync queue left), else the locked
 * lookup, which also sets the hint.  The queue lock nests outside ours.
 */
static struct io_cq *bfq_bio_icq(struct request_queue *q)
{
	struct io_context *ioc = current->io_context;
	struct io_cq *icq;
	unsigned long flags;

	if (!ioc)
		return NULL;
	icq = rcu_dereference(ioc->icq_hint);
	if (icq && icq->q == q)
		return icq;
	spin_lock_irqsave(&q->queue_lock, flags);
	icq = ioc_lookup_icq(q);
	spin_unlock_irqrestore(&q->queue_lock, flags);
	return icq;
}

/*
 * Async writes come mostly from the flusher threads, and they wait for
 * scheduler tags.  Freed tags go to the waiters in turn, whatever their
 * weight: a light cgroup's writeback would end up holding most tags and
 * leave a heavy cgroup's async queue empty, and an empty queue cannot get
 * its share.  So an async queue may hold about its share of the async
 * tags.  A depth limit is a prefix of each bitmap word, so a light queue's
 * bits are also a heavy queue's: a limit that followed the share would let
 * the heavy cgroup's flusher take the light one's freed tags, and the
 * light queue would run dry in its own turn.  So the cap is on the count:
 * under its share a queue may take any async tag, at it only the few bits
 * every waiter may take.
 * The queue is the bio's: its group (one flusher writes back for many
 * cgroups) and its priority.  limit_depth is not given the bio, but in
 * blk_mq_submit_bio the same task has just offered that bio to bio_merge,
 * which finds its queue anyway: bio_merge leaves the depth in the task's
 * context for the one allocation that follows a failed merge.
 */
static unsigned int bfq_async_alloc_depth(struct bfq_data *bfqd,
					  struct bfq_queue *bfqq)
{
	unsigned int cap;

	lockdep_assert_held(&bfqd->lock);
	/* a group's first async request: its queue does not exist yet */
	if (!bfqq)
		return bfqd->async_depth;
	cap = bfqd->async_tags *
	      bfq_share_as(&bfqq->entity, bfqq->entity.weight) >> 10;
	return bfqq->queued + bfqq->dispatched < max(cap, 1U) ?
	       bfqd->async_depth : bfqd->min_async_depth;
}

/*
 * Without a depth from bio_merge (the context's first request, merges
 * disabled, a bio that may not merge, a request made without a bio), the
 * request is not limited beyond what any async request may use.
 */
static void bfq_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data)
{
	struct bfq_data *bfqd = data->q->elevator->elevator_data;
	unsigned int depth = 0;
	struct io_cq *icq;

	if (op_is_sync(opf))
		return;
	rcu_read_lock();
	icq = bfq_bio_icq(data->q);
	if (icq)
		depth = xchg(&icq_to_bic(icq)->alloc_depth, 0);
	rcu_read_unlock();
	/*
	 * A depth left by a bio_merge whose allocation never came (a cached
	 * request) may predate an nr_requests change: keep it in range.
	 */
	data->shallow_depth = depth ? clamp(depth,
					    READ_ONCE(bfqd->min_async_depth),
					    READ_ONCE(bfqd->async_depth)) :
				      READ_ONCE(bfqd->async_depth);
}

/* Called with the queue frozen when nr_requests changes. */
static void bfq_depth_updated(struct blk_mq_hw_ctx *hctx)
{
	struct bfq_data *bfqd = hctx->queue->elevator->elevator_data;
	struct sbitmap_queue *bt = &hctx->sched_tags->bitmap_tags;
	unsigned int word = 1U << bt->sb.shift;

	/* sync requests always keep a quarter of the tags */
	spin_lock_irq(&bfqd->lock);
	WRITE_ONCE(bfqd->async_depth, max(word * 3 / 4, 1U));
	bfqd->async_tags = bt->sb.depth * 3 / 4;
	WRITE_ONCE(bfqd->min_async_depth, max(word / 16, 1U));
	spin_unlock_irq(&bfqd->lock);
	/* wake-up batches small enough for the shallowest waiter */
	sbitmap_queue_min_shallow_depth(bt, bfqd->min_async_depth);
}

static int bfq_init_hctx(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx)
{
	bfq_depth_updated(hctx);
	return 0;
}

/*
 * low_latency: a queue whose turn the idle timer ended, and whose next
 * request comes within timeout_sync of its last completion, keeps its
 * place in B-WF2Q+ (its old F) instead of starting at V.  Waiting
 * slice_idle is a guess at its think time; when the guess was short (a
 * stall of the process, a slow guest), the 2008 rule took from it all
 * that the others got meanwhile, and V may have jumped to a light
 * queue's start: a be/0 reader beside a be/7 one lost a whole be/7 turn
 * of its share at each stall.  What it can be owed is bounded by what
 * the others got in timeout_sync.
 */
static bool bfq_resumes(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	bool back = bfqq->idled_out && bfqd->low_latency &&
		    (u32)jiffies - bfqq->idle_since <=
		    nsecs_to_jiffies(bfqd->timeout_ns[1]);

	bfqq->idled_out = false;
	return back;
}

static void bfq_add_rq(struct bfq_data *bfqd, struct request *rq)
{
	struct bfq_queue *bfqq = bfq_rq_queue(bfqd, rq);
	struct request_queue *q = bfqd->queue;
	u64 now = 0;

	lockdep_assert_held(&bfqd->lock);
	/* the request comes after the turn should have ended: end it now */
	if (bfqq == bfqd->in_service && bfq_idled_out(bfqd, bfqq))
		bfq_expire(bfqd, bfq_idled_out_reason(bfqd, bfqq), &now);
	rq->elv.priv[0] = bfqq;
	set_rq_state(rq, BFQ_RQ_QUEUED);
	elv_rb_add(&bfqq->sort_list, rq);
	/* blk-mq stamped the request already: no second clock read */
	rq->fifo_time = rq->start_time_ns + bfqd->fifo_expire_ns[bfqq->sync];
	list_add_tail(&rq->queuelist, &bfqq->fifo);
	/*
	 * The core frees a request merged into a multi-range discard without
	 * telling the scheduler: keep queued discards out of request merges.
	 */
	if (rq_mergeable(rq) && !blk_discard_mergable(rq)) {
		elv_rqhash_add(q, rq);
		if (!q->last_merge)
			q->last_merge = rq;
	}
	bfqq->queued++;
	WRITE_ONCE(bfqd->queued, bfqd->queued + 1);
	if (bfqq->sync)
		bfq_note_seek(bfqq, rq);

	if (!bfqq->entity.active) {
		bool started;

		bfqq->entity.budget = max(bfqq->next_budget,
					  blk_rq_sectors(rq));
		started = bfq_boost_start(bfqd, bfqq);
		bfq_activate(&bfqq->entity, bfq_resumes(bfqd, bfqq));
		if (bfq_preempts(bfqd, bfqq, started))
			bfq_expire(bfqd, BFQ_EXP_PREEMPTED, &now);
		else
			bfq_challenge(bfqd, bfqq);
	} else if (bfqq == bfqd->in_service && bfqd->waiting) {
		/* the request we idled for */
		WRITE_ONCE(bfqd->waiting, false);
		hrtimer_try_to_cancel(&bfqd->idle_timer);
	}
}

static void bfq_insert_request(struct bfq_data *bfqd, struct request *rq,
			       bool at_head, struct list_head *free)
{
	/*
	 * Requeued requests come back at the head with their queue still
	 * attached; passthrough and unprepared requests have none.  All go
	 * to the driver first, in order.
	 */
	if (at_head || blk_rq_is_passthrough(rq) ||
	    !(rq->rq_flags & RQF_ELVPRIV)) {
		trace_block_rq_insert(rq);
		if (at_head)
			list_add(&rq->queuelist, &bfqd->dispatch);
		else
			list_add_tail(&rq->queuelist, &bfqd->dispatch);
		return;
	}
	/*
	 * blk-mq traces inserts only when there is no scheduler: the insert
	 * event blktrace shows ("I") is ours to emit, for what stays a request.
	 */
	if (blk_mq_sched_try_insert_merge(bfqd->queue, rq, free))
		return;
	trace_block_rq_insert(rq);
	bfq_add_rq(bfqd, rq);
}

static void bfq_insert_requests(struct blk_mq_hw_ctx *hctx,
				struct list_head *list, bool at_head)
{
	struct bfq_data *bfqd = hctx->queue->elevator->elevator_data;
	LIST_HEAD(free);

	spin_lock_irq(&bfqd->lock);
	while (!list_empty(list)) {
		struct request *rq = list_first_entry(list, struct request,
						      queuelist);

		list_del_init(&rq->queuelist);
		bfq_insert_request(bfqd, rq, at_head, &free);
	}
	spin_unlock_irq(&bfqd->lock);
	/* merged-away requests: freeing them takes our lock again */
	blk_mq_free_requests(&free);
}

static void bfq_prepare_request(struct request *rq)
{
	struct io_cq *icq = ioc_find_get_icq(rq->q);

	rq->elv.icq = icq;
	rq->elv.priv[0] = NULL;
	set_rq_state(rq, BFQ_RQ_NONE);
	/* the submitter's priority, read here in its own context */
	if (icq)
		WRITE_ONCE(icq_to_bic(icq)->prio, bfq_current_prio(icq->ioc));
}

/* A request is back from the driver: completed, or requeued. */
static void bfq_left_driver(struct bfq_data *bfqd, struct request *rq,
			    bool completed)
{
	struct bfq_queue *bfqq = rq_bfqq(rq);

	lockdep_assert_held(&bfqd->lock);
	if (WARN_ON_ONCE(!bfqq->dispatched || !bfqd->in_driver))
		return;
	bfqq->dispatched--;
	bfqd->in_driver--;
	bfq_rate_completed(bfqd, completed ? rq_driver_sectors(rq) : 0);
	set_rq_state(rq, BFQ_RQ_NONE);
	bfqq->idle_since = jiffies;
	bfqq->seen = true;
	/* the think time we idle for starts now; none for an abandoned one */
	if (bfqq == bfqd->in_service && bfqd->waiting && !bfqq->dispatched) {
		if (bfqq->abandoned)
			hrtimer_start(&bfqd->idle_timer, 0, HRTIMER_MODE_REL);
		else
			bfq_arm_idle_timer(bfqd);
	}
}

static void bfq_finish_request(struct request *rq)
{
	struct bfq_queue *bfqq = rq_bfqq(rq);

	if (bfqq) {
		struct bfq_data *bfqd = bfqq->bfqd;
		unsigned long flags;

		spin_lock_irqsave(&bfqd->lock, flags);
		if (rq_state(rq) == BFQ_RQ_DRIVER)
			bfq_left_driver(bfqd, rq, true);
		rq->elv.priv[0] = NULL;
		bfq_put_queue(bfqq);
		spin_unlock_irqrestore(&bfqd->lock, flags);
	}
	if (rq->elv.icq) {
		put_io_context(rq->elv.icq->ioc);
		rq->elv.icq = NULL;
	}
}

/*
 * A dispatched request comes back.  It is inserted again at the head, or,
 * prepared already (a SCSI retry), goes straight back to the driver and
 * we never see its completion: either way its queue idles from now on.
 */
static void bfq_requeue_request(struct request *rq)
{
	struct bfq_queue *bfqq = rq_bfqq(rq);
	struct bfq_data *bfqd;
	unsigned long flags;

	if (!bfqq || rq_state(rq) != BFQ_RQ_DRIVER)
		return;
	bfqd = bfqq->bfqd;
	spin_lock_irqsave(&bfqd->lock, flags);
	bfq_left_driver(bfqd, rq, false);
	spin_unlock_irqrestore(&bfqd->lock, flags);
}

/*
 * The timer of a queue waiting in service fired.  With requests still in
 * the driver, it is the budget timeout (bfq_start_waiting); otherwise the
 * think time ran out, or the queue was abandoned (bfq_abandon).  A queue
 * that used its whole budget is exhausted, not too idle.
 */
static void bfq_wait_over(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			  u64 *now)
{
	enum bfq_expiry reason;

	if (bfqq->entity.service >= bfqq->entity.budget)
		reason = BFQ_EXP_EXHAUSTED;
	else if (bfqq->abandoned)
		reason = BFQ_EXP_NO_MORE;
	else if (!bfqq->dispatched)
		reason = BFQ_EXP_TOO_IDLE;
	else if (bfq_timed_out(bfqd, bfqq, now))
		reason = BFQ_EXP_TIMEOUT;
	else
		return;
	bfq_expire(bfqd, reason, now);
}

static enum hrtimer_restart bfq_idle_timer_fn(struct hrtimer *timer)
{
	struct bfq_data *bfqd = container_of(timer, struct bfq_data,
					     idle_timer);
	struct bfq_queue *bfqq;
	unsigned long flags;
	u64 now = 0;

	spin_lock_irqsave(&bfqd->lock, flags);
	bfqq = bfqd->in_service;
	/*
	 * Re-armed while we waited for the lock (for the next queue after a
	 * preemption, or for a new think time): the wait this call timed is
	 * over and the new one is not.
	 */
	if (bfqd->waiting && bfqq && !bfqq->queued && !hrtimer_is_queued(timer))
		bfq_wait_over(bfqd, bfqq, &now);
	spin_unlock_irqrestore(&bfqd->lock, flags);
	/* blk-mq does not poll us: get the next queue dispatched */
	blk_mq_run_hw_queues(bfqd->queue, true);
	return HRTIMER_NORESTART;
}

/* Merges stay inside the queue of the bio's process. */
static bool bfq_allow_merge(struct request_queue *q, struct request *rq,
			    struct bio *bio)
{
	struct bfq_data *bfqd = q->elevator->elevator_data;

	return bfqd->merge_bfqq && rq_bfqq(rq) == bfqd->merge_bfqq;
}

static int bfq_request_merge(struct request_queue *q, struct request **req,
			     struct bio *bio)
{
	struct bfq_data *bfqd = q->elevator->elevator_data;
	struct request *rq;

	if (!bfqd->merge_bfqq)
		return ELEVATOR_NO_MERGE;
	rq = elv_rb_find(&bfqd->merge_bfqq->sort_list, bio_end_sector(bio));
	if (!rq || !elv_bio_merge_ok(rq, bio))
		return ELEVATOR_NO_MERGE;
	*req = rq;
	return blk_discard_mergable(rq) ? ELEVATOR_DISCARD_MERGE :
					  ELEVATOR_FRONT_MERGE;
}

static bool bfq_bio_merge(struct request_queue *q, struct bio *bio,
			  unsigned int nr_segs)
{
	struct bfq_data *bfqd = q->elevator->elevator_data;
	struct request *free = NULL;
	struct io_cq *icq;
	bool merged;

	rcu_read_lock();
	icq = bfq_bio_icq(q);
	spin_lock_irq(&bfqd->lock);
	bfqd->merge_bfqq = icq ? bfq_bio_queue(bfqd, bio, icq_to_bic(icq)) :
				 NULL;
	/*
	 * Only the queue's own queued requests can take the bio: a process
	 * with one request at a time has none, and the lookups are skipped.
	 */
	merged = bfqd->merge_bfqq && bfqd->merge_bfqq->queued &&
		 blk_mq_sched_try_merge(q, bio, nr_segs, &free);
	if (icq && !op_is_sync(bio->bi_opf))
		WRITE_ONCE(icq_to_bic(icq)->alloc_depth, merged ? 0 :
			   bfq_async_alloc_depth(bfqd, bfqd->merge_bfqq));
	bfqd->merge_bfqq = NULL;
	spin_unlock_irq(&bfqd->lock);
	rcu_read_unlock();

	if (free)
		blk_mq_free_request(free);
	return merged;
}

/* A front merge moved the request's start: re-sort it. */
static void bfq_request_merged(struct request_queue *q, struct request *rq,
			       enum elv_merge type)
{
	struct bfq_queue *bfqq = rq_bfqq(rq);

	if (type != ELEVATOR_FRONT_MERGE || rq_state(rq) != BFQ_RQ_QUEUED)
		return;
	elv_rb_del(&bfqq->sort_list, rq);
	elv_rb_add(&bfqq->sort_list, rq);
}

/* @next was merged into @rq and will be freed. */
static void bfq_requests_merged(struct request_queue *q, struct request *rq,
				struct request *next)
{
	struct bfq_data *bfqd = q->elevator->elevator_data;
	struct bfq_queue *bfqq = rq_bfqq(next);

	if (rq_state(next) != BFQ_RQ_QUEUED)
		return;
	/* the merged request keeps the older deadline */
	if (rq_bfqq(rq) == bfqq && rq_state(rq) == BFQ_RQ_QUEUED &&
	    next->fifo_time < rq->fifo_time) {
		list_move(&rq->queuelist, &next->queuelist);
		rq->fifo_time = next->fifo_time;
	}
	bfq_remove_rq(bfqd, next);
	if (!bfqq->queued && bfqq != bfqd->in_service)
		bfq_deactivate(&bfqq->entity);
}

/* Neighbours for request merging: same queue, no discards (see above). */
static bool bfq_rq_merges(struct request *rq)
{
	return rq_state(rq) == BFQ_RQ_QUEUED && !blk_discard_mergable(rq);
}

static struct request *bfq_former_request(struct request_queue *q,
					  struct request *rq)
{
	struct rb_node *n = bfq_rq_merges(rq) ? rb_prev(&rq->rb_node) : NULL;

	return n ? rb_entry_rq(n) : NULL;
}

static struct request *bfq_next_request(struct request_queue *q,
					struct request *rq)
{
	struct rb_node *n = bfq_rq_merges(rq) ? rb_next(&rq->rb_node) : NULL;

	return n ? rb_entry_rq(n) : NULL;
}

/* Set once bfq_init has registered everything, the cgroup policy included. */
static bool bfq_ready;

static int bfq_init_sched(struct request_queue *q, struct elevator_type *e)
{
	struct elevator_queue *eq;
	struct bfq_data *bfqd;
	int ret;

	/*
	 * The elevator core does not drop the module reference it took for
	 * us when init_sched fails; releasing the elevator_queue does.
	 */
	eq = elevator_alloc(q, e);
	if (!eq)
		return -ENOMEM;
	ret = -EAGAIN;
	/*
	 * Selected in the window between elv_register and the cgroup policy
	 * registration (acquire: pairs with the release in bfq_init).
	 */
	if (!smp_load_acquire(&bfq_ready))
		goto out_put;
	ret = -ENOMEM;
	bfqd = kzalloc_node(sizeof(*bfqd), GFP_KERNEL, q->node);
	if (!bfqd)
		goto out_put;
	eq->elevator_data = bfqd;
	spin_lock_init(&bfqd->lock);
	bfqd->queue = q;
	bfq_sched_init(&bfqd->root_sd);
	INIT_LIST_HEAD(&bfqd->dispatch);
	INIT_LIST_HEAD(&bfqd->queues);
	INIT_LIST_HEAD(&bfqd->groups);
	hrtimer_init(&bfqd->idle_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	bfqd->idle_timer.function = bfq_idle_timer_fn;

	bfqd->auto_max_budget = BFQ_START_MAX_BUDGET;
	bfqd->max_budget_async_rq = 4;
	bfqd->timeout_ns[1] = 125 * NSEC_PER_MSEC;
	bfqd->timeout_ns[0] = 40 * NSEC_PER_MSEC;
	bfqd->slice_idle_ns = 8 * NSEC_PER_MSEC;
	bfqd->fifo_expire_ns[1] = 125 * NSEC_PER_MSEC;
	bfqd->fifo_expire_ns[0] = 250 * NSEC_PER_MSEC;
	bfqd->back_seek_max = 16384;
	bfqd->back_seek_penalty = 2;
	bfqd->low_latency = true;
	/* shared by whoever could not get a queue: no idling for it */
	bfq_init_queue(bfqd, &bfqd->oom_bfqq, NULL, false, 0,
		       IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, IOPRIO_BE_NORM));

	/* the group callbacks find bfqd through q->elevator */
	q->elevator = eq;
	ret = bfq_cgroup_activate(bfqd);
	if (ret) {
		kfree(bfqd);
		goto out_put;
	}
	/* one scheduler state for all hardware queues */
	blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);
	/* writeback throttling would hold writes back outside our budgets */
	wbt_disable_default(q);
	return 0;

out_put:
	kobject_put(&eq->kobj);
	return ret;
}

static void bfq_exit_sched(struct elevator_queue *eq)
{
	struct bfq_data *bfqd = eq->elevator_data;
	u64 now = 0;

	hrtimer_cancel(&bfqd->idle_timer);
	spin_lock_irq(&bfqd->lock);
	if (bfqd->in_service)
		bfq_expire(bfqd, BFQ_EXP_NO_MORE, &now);
	bfq_drop(&bfqd->challenger);
	bfq_drop(&bfqd->preemptor);
	bfq_put_async_queues(bfqd->async);
	list_del(&bfqd->oom_bfqq.all);
	spin_unlock_irq(&bfqd->lock);
	/* offlines every group; with no queue left, each one dies */
	bfq_cgroup_deactivate(bfqd);
	wbt_enable_default(bfqd->queue);
	kfree(bfqd);
}

/* sysfs: one show/store pair per tunable, parsed strictly. */
static ssize_t bfq_show_u64(char *page, u64 v)
{
	return sprintf(page, "%llu\n", v);
}

static int bfq_parse(const char *page, unsigned int min, unsigned int max,
		     unsigned int *v)
{
	int ret = kstrtouint(page, 10, v);

	if (ret)
		return ret;
	return *v < min || *v > max ? -EINVAL : 0;
}

/*
 * After any write: an auto max_budget follows timeout_sync, and
 * low_latency=0 ends every boost now, not at each queue's next dispatch.
 */
static void bfq_tunables_changed(struct bfq_data *bfqd)
{
	struct bfq_queue *bfqq;

	bfq_update_auto_budget(bfqd);
	list_for_each_entry(bfqq, &bfqd->queues, all)
		bfq_boost_check(bfqd, bfqq);
}

#define BFQ_ATTR(name, field, unit, min, max)				\
static ssize_t bfq_##name##_show(struct elevator_queue *eq, char *page)	\
{									\
	struct bfq_data *bfqd = eq->elevator_data;			\
	u64 v;								\
									\
	spin_lock_irq(&bfqd->lock);					\
	v = bfqd->field;						\
	spin_unlock_irq(&bfqd->lock);					\
	return bfq_show_u64(page, div_u64(v, unit));			\
}									\
static ssize_t bfq_##name##_store(struct elevator_queue *eq,		\
				  const char *page, size_t count)	\
{									\
	struct bfq_data *bfqd = eq->elevator_data;			\
	unsigned int v;							\
	int ret = bfq_parse(page, min, max, &v);			\
									\
	if (ret)							\
		return ret;						\
	spin_lock_irq(&bfqd->lock);					\
	bfqd->field = (u64)v * (unit);					\
	bfq_tunables_changed(bfqd);					\
	spin_unlock_irq(&bfqd->lock);					\
	return count;							\
}

BFQ_ATTR(max_budget, max_budget, 1, 0, BFQ_MAX_BUDGET)
BFQ_ATTR(max_budget_async_rq, max_budget_async_rq, 1, 1, 1024)
BFQ_ATTR(timeout_sync, timeout_ns[1], NSEC_PER_MSEC, 1, 10000)
BFQ_ATTR(timeout_async, timeout_ns[0], NSEC_PER_MSEC, 1, 10000)
BFQ_ATTR(slice_idle, slice_idle_ns, NSEC_PER_MSEC, 0, 1000)
BFQ_ATTR(slice_idle_us, slice_idle_ns, NSEC_PER_USEC, 0, 1000000)
BFQ_ATTR(fifo_expire_sync, fifo_expire_ns[1], NSEC_PER_MSEC, 1, 60000)
BFQ_ATTR(fifo_expire_async, fifo_expire_ns[0], NSEC_PER_MSEC, 1, 60000)
BFQ_ATTR(back_seek_max, back_seek_max, 1, 0, 1048576)
BFQ_ATTR(back_seek_penalty, back_seek_penalty, 1, 1, 1000)
BFQ_ATTR(low_latency, low_latency, 1, 0, 1)

#define BFQ_ATTR_ENTRY(name) \
	__ATTR(name, 0644, bfq_##name##_show, bfq_##name##_store)

static struct elv_fs_entry bfq_attrs[] = {
	BFQ_ATTR_ENTRY(max_budget),
	BFQ_ATTR_ENTRY(max_budget_async_rq),
	BFQ_ATTR_ENTRY(timeout_sync),
	BFQ_ATTR_ENTRY(timeout_async),
	BFQ_ATTR_ENTRY(slice_idle),
	BFQ_ATTR_ENTRY(slice_idle_us),
	BFQ_ATTR_ENTRY(fifo_expire_sync),
	BFQ_ATTR_ENTRY(fifo_expire_async),
	BFQ_ATTR_ENTRY(back_seek_max),
	BFQ_ATTR_ENTRY(back_seek_penalty),
	BFQ_ATTR_ENTRY(low_latency),
	__ATTR_NULL
};

#ifdef CONFIG_BLK_DEBUG_FS
static const char *const bfq_class_names[] = { "rt", "be", "idle" };
static const char *const bfq_boost_names[] = {
	"none", "interactive", "soft_rt"
};

/* debugfs sched/bfq_queues: one line per queue of the device. */
static int bfq_queues_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct bfq_data *bfqd = q->elevator->elevator_data;
	struct bfq_queue *bfqq;

	spin_lock_irq(&bfqd->lock);
	list_for_each_entry(bfqq, &bfqd->queues, all) {
		struct bfq_entity *e = &bfqq->entity;
		enum bfq_boost boost;

		seq_printf(m, "pid=%d cgroup=%llu %s class=%s weight=%u budget=%u next_budget=%u served=%llu queued=%u dispatched=%u",
			   bfqq->pid, bfq_queue_cgroup_id(bfqq),
			   bfqq->sync ? "sync" : "async",
			   bfq_class_names[e->class], e->weight, e->budget,
			   bfqq->next_budget, bfqq->total_served,
			   bfqq->queued, bfqq->dispatched);
		seq_printf(m, " exhausted=%lu timeout=%lu too_idle=%lu no_more=%lu async_rq=%lu grace=%lu preempted=%lu",
			   bfqq->expiries[BFQ_EXP_EXHAUSTED],
			   bfqq->expiries[BFQ_EXP_TIMEOUT],
			   bfqq->expiries[BFQ_EXP_TOO_IDLE],
			   bfqq->expiries[BFQ_EXP_NO_MORE],
			   bfqq->expiries[BFQ_EXP_ASYNC_RQ],
			   bfqq->expiries[BFQ_EXP_GRACE],
			   bfqq->expiries[BFQ_EXP_PREEMPTED]);
		/* a boost that is over ends at the queue's next dispatch */
		boost = bfq_boost_over(bfqd, bfqq) ? BFQ_BOOST_NONE :
						     bfqq->boost;
		seq_printf(m, " boost=%s boost_ms=%u boost_left=%u%s\n",
			   bfq_boost_names[boost],
			   boost ? jiffies_to_msecs((u32)jiffies -
						    bfqq->boost_since) : 0,
			   boost ? bfqq->boost_left : 0,
			   bfqq == bfqd->in_service ? " in_service" : "");
	}
	spin_unlock_irq(&bfqd->lock);
	return 0;
}

/* debugfs sched/bfq_stats: device totals. */
static int bfq_stats_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct bfq_data *bfqd = q->elevator->elevator_data;

	spin_lock_irq(&bfqd->lock);
	seq_printf(m, "peak_rate_sectors_per_ms=%llu\n",
		   bfqd->peak_rate >> BFQ_RATE_SHIFT);
	seq_printf(m, "max_budget=%u\n", bfq_max_budget(bfqd));
	seq_printf(m, "auto_max_budget=%s\n", bfqd->max_budget ? "no" : "yes");
	seq_printf(m, "queued=%u\nin_driver=%u\nqueueing=%d\n", bfqd->queued,
		   bfqd->in_driver, bfqd->queueing);
	seq_printf(m, "seeks_cost=%d\nfar_us=%u\nfar_n=%u\nnear_us=%u\nnear_n=%u\nnear_sectors=%u\nseek_sectors=%u\n",
		   bfq_seeks_cost(bfqd), bfqd->far_us, bfqd->far_n,
		   bfqd->near_us, bfqd->near_n, bfqd->near_sectors,
		   bfq_seek_sectors(bfqd));
	seq_printf(m, "exhausted=%lu\ntimeout=%lu\ntoo_idle=%lu\nno_more=%lu\nasync_rq=%lu\ngrace=%lu\npreempted=%lu\n",
		   bfqd->total_expiries[BFQ_EXP_EXHAUSTED],
		   bfqd->total_expiries[BFQ_EXP_TIMEOUT],
		   bfqd->total_expiries[BFQ_EXP_TOO_IDLE],
		   bfqd->total_expiries[BFQ_EXP_NO_MORE],
		   bfqd->total_expiries[BFQ_EXP_ASYNC_RQ],
		   bfqd->total_expiries[BFQ_EXP_GRACE],
		   bfqd->total_expiries[BFQ_EXP_PREEMPTED]);
	seq_printf(m, "boosts=%lu\n", bfqd->boosts);
	spin_unlock_irq(&bfqd->lock);
	return 0;
}

/* debugfs sched/bfq_groups: every cgroup on this device. */
static int bfq_groups_attr_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct bfq_data *bfqd = q->elevator->elevator_data;

	spin_lock_irq(&bfqd->lock);
	bfq_groups_show(bfqd, m);
	spin_unlock_irq(&bfqd->lock);
	return 0;
}

static const struct blk_mq_debugfs_attr bfq_debugfs_attrs[] = {
	{ "bfq_queues", 0400, bfq_queues_show },
	{ "bfq_stats", 0400, bfq_stats_show },
	{ "bfq_groups", 0400, bfq_groups_attr_show },
	{},
};
#endif

static struct elevator_type bfq_elv = {
	.ops = {
		.init_sched		= bfq_init_sched,
		.exit_sched		= bfq_exit_sched,
		.allow_merge		= bfq_allow_merge,
		.bio_merge		= bfq_bio_merge,
		.request_merge		= bfq_request_merge,
		.request_merged		= bfq_request_merged,
		.requests_merged	= bfq_requests_merged,
		.prepare_request	= bfq_prepare_request,
		.finish_request		= bfq_finish_request,
		.limit_depth		= bfq_limit_depth,
		.depth_updated		= bfq_depth_updated,
		.init_hctx		= bfq_init_hctx,
		.requeue_request	= bfq_requeue_request,
		.insert_requests	= bfq_insert_requests,
		.dispatch_request	= bfq_dispatch_request,
		.has_work		= bfq_has_work,
		.former_request		= bfq_former_request,
		.next_request		= bfq_next_request,
		.init_icq		= bfq_init_icq,
		.exit_icq		= bfq_exit_icq,
	},
	.icq_size = sizeof(struct bfq_io_cq),
	.icq_align = __alignof__(struct bfq_io_cq),
	.elevator_attrs = bfq_attrs,
#ifdef CONFIG_BLK_DEBUG_FS
	.queue_debugfs_attrs = bfq_debugfs_attrs,
#endif
	.elevator_name = "bfq",
	.elevator_owner = THIS_MODULE,
};

/*
 * Debian's bfq.ko registers an elevator of the same name.  Loaded after us,
 * it would register its blkcg policy first: with any cgroup present its
 * io.bfq.* files clash with ours, the kernel WARNs and, failing, removes
 * the files by name, ours included.  So while we are loaded we refuse any
 * other module named "bfq" before its init runs.
 */
static int bfq_module_notify(struct notifier_block *nb, unsigned long state,
			     void *data)
{
	struct module *mod = data;

	if (state != MODULE_STATE_COMING || strcmp(mod->name, "bfq"))
		return NOTIFY_DONE;
	pr_err("bfq-iosched: refusing module bfq: bfq_iosched provides bfq already\n");
	return notifier_from_errno(-EBUSY);
}

static struct notifier_block bfq_module_nb = {
	.notifier_call = bfq_module_notify,
};

/*
 * The elevator goes before the cgroup policy: if another "bfq" is
 * registered, elv_register fails before we have touched the cgroup files,
 * which belong to that other module then.  Until init is complete,
 * bfq_init_sched refuses.  Should the policy fail to register (all blkcg
 * policy slots taken), a scheduler switch that found us in that window
 * may still hold a reference to a module that is going away: the kernel
 * offers no way to wait for it, and no other order detects the other bfq.
 */
static int __init bfq_init(void)
{
	int ret = bfq_slab_init();

	if (ret)
		return ret;
	/* first in, last out: no window for Debian's bfq to load beside us */
	ret = register_module_notifier(&bfq_module_nb);
	if (ret)
		goto out_slab;
	ret = elv_register(&bfq_elv);
	if (ret) {
		if (ret == -EBUSY)
			pr_err("bfq-iosched: another bfq is loaded (Debian's bfq.ko?), unload it first\n");
		goto out_notifier;
	}
	ret = bfq_cgroup_register();
	if (ret)
		goto out_elv;
	/* pairs with the acquire in bfq_init_sched: all of the above first */
	smp_store_release(&bfq_ready, true);
	return 0;

out_elv:
	elv_unregister(&bfq_elv);
out_notifier:
	unregister_module_notifier(&bfq_module_nb);
out_slab:
	bfq_slab_exit();
	return ret;
}

static void __exit bfq_exit(void)
{
	bfq_cgroup_unregister();
	elv_unregister(&bfq_elv);
	unregister_module_notifier(&bfq_module_nb);
	bfq_slab_exit();
}

module_init(bfq_init);
module_exit(bfq_exit);

MODULE_AUTHOR("bfq-iosched developers");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Budget Fair Queueing I/O scheduler (2008 design)");
MODULE_ALIAS("bfq-iosched");
MODULE_VERSION(BFQ_VERSION);
