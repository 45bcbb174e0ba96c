// SPDX-License-Identifier: GPL-2.0
/*
 * Per-process contexts and the queues they lead to.
 *
 * Reference counting of a bfq_queue (all under bfq_data.lock):
 *  - the io context's bfq_io_cq holds one on its sync queue, dropped
 *    when the process's context exits (bfq_exit_icq);
 *  - the async table of the device or group holds one on each async queue;
 *  - every request assigned to the queue holds one until it is freed;
 *  - the queue in service holds one, so idling on a queue whose process
 *    has exited stays safe; so do the challenger and the preemptor.
 * A queue with requests is therefore never freed; a freed queue is taken
 * off the idle tree it may still be on, and lets go of its group.
 */
#include <linux/ioprio.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "bfq.h"
#include "elevator.h"

static struct kmem_cache *bfq_queue_cache;

int __init bfq_slab_init(void)
{
	bfq_queue_cache = KMEM_CACHE(bfq_queue, 0);
	return bfq_queue_cache ? 0 : -ENOMEM;
}

void bfq_slab_exit(void)
{
	kmem_cache_destroy(bfq_queue_cache);
}

/* Class and level packed as in an ioprio value. */
static void prio_unpack(int prio, enum bfq_class *class, unsigned int *level)
{
	switch (IOPRIO_PRIO_CLASS(prio)) {
	case IOPRIO_CLASS_RT:
		*class = BFQ_CLASS_RT;
		break;
	case IOPRIO_CLASS_IDLE:
		*class = BFQ_CLASS_IDLE;
		break;
	default:
		*class = BFQ_CLASS_BE;
	}
	*level = IOPRIO_PRIO_LEVEL(prio);
}

/* The priority the current task's requests get: ionice, or nice if none. */
int bfq_current_prio(struct io_context *ioc)
{
	int prio = ioc->ioprio;

	if (IOPRIO_PRIO_CLASS(prio) == IOPRIO_CLASS_NONE)
		return IOPRIO_PRIO_VALUE(task_nice_ioclass(current),
					 task_nice_ioprio(current));
	return prio;
}

/* The idle class is isolated by class alone: its level does not count. */
static void bfq_set_prio(struct bfq_queue *bfqq, int prio)
{
	struct bfq_entity *e = &bfqq->entity;
	unsigned int level;

	prio_unpack(prio, &e->new_class, &level);
	e->new_weight = e->new_class == BFQ_CLASS_IDLE ?
			BFQ_PRIO_WEIGHT(IOPRIO_NR_LEVELS - 1) :
			BFQ_PRIO_WEIGHT(level);
}

void bfq_init_queue(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		    struct bfq_group *bfqg, bool sync, pid_t pid, int prio)
{
	memset(bfqq, 0, sizeof(*bfqq));
	bfqq->bfqd = bfqd;
	bfqq->ref = 1;
	bfqq->sync = sync;
	bfqq->pid = pid;
	bfqq->sort_list = RB_ROOT;
	INIT_LIST_HEAD(&bfqq->fifo);
	bfqq->bfqg = bfqg;
	if (bfqg) {
		bfq_group_get(bfqg);
		bfqq->entity.parent = &bfqg->entity;
		bfqq->entity.sd = &bfqg->sd;
	} else {
		bfqq->entity.sd = &bfqd->root_sd;
	}
	bfq_set_prio(bfqq, prio);
	bfqq->entity.class = bfqq->entity.new_class;
	bfqq->entity.weight = bfqq->entity.new_weight;
	bfqq->next_budget = sync ? bfq_default_budget(bfqd) :
				   bfq_max_budget(bfqd);
	list_add_tail(&bfqq->all, &bfqd->queues);
}

static struct bfq_queue *bfq_new_queue(struct bfq_data *bfqd,
				       struct bfq_group *bfqg, bool sync,
				       pid_t pid, int prio)
{
	struct bfq_queue *bfqq;

	/* under a spinlock, and on the I/O path: do not sleep or recurse */
	bfqq = kmem_cache_alloc_node(bfq_queue_cache, GFP_NOWAIT | __GFP_NOWARN,
				     bfqd->queue->node);
	if (!bfqq)
		return NULL;
	bfq_init_queue(bfqd, bfqq, bfqg, sync, pid, prio);
	return bfqq;
}

void bfq_get_queue(struct bfq_queue *bfqq)
{
	bfqq->ref++;
}

void bfq_put_queue(struct bfq_queue *bfqq)
{
	lockdep_assert_held(&bfqq->bfqd->lock);
	if (--bfqq->ref)
		return;
	if (bfqq->boost != BFQ_BOOST_NONE)
		bfq_boost_end(bfqq);
	bfq_forget(&bfqq->entity);
	list_del(&bfqq->all);
	if (bfqq->bfqg)
		bfq_group_put(bfqq->bfqg);
	kmem_cache_free(bfq_queue_cache, bfqq);
}

static struct bfq_queue **async_slot(struct bfq_data *bfqd,
				     struct bfq_group *bfqg, int prio)
{
	enum bfq_class class;
	unsigned int level;

	prio_unpack(prio, &class, &level);
	return bfqg ? &bfqg->async[class][level] : &bfqd->async[class][level];
}

/*
 * The queue a bio of this context goes to, if it exists; no allocation.
 * A context has one sync queue, in the group of its last sync request.
 * After the process moved to another cgroup, or for a bio it writes back
 * on behalf of another cgroup, that queue is in another group than the
 * bio: the bio has no queue yet (its request makes one) and must not be
 * merged into that queue's requests.
 */
struct bfq_queue *bfq_bio_queue(struct bfq_data *bfqd, struct bio *bio,
				struct bfq_io_cq *bic)
{
	struct bfq_group *bfqg = bfq_bio_group(bfqd, bio);
	struct bfq_queue *bfqq;

	lockdep_assert_held(&bfqd->lock);
	if (!op_is_sync(bio->bi_opf))
		return *async_slot(bfqd, bfqg, READ_ONCE(bic->prio));
	bfqq = bic->sync_bfqq;
	return bfqq && bfqq->bfqg == bfqg ? bfqq : NULL;
}

/*
 * No process adds to @bfqq any more (it exited, or moved to another
 * cgroup): what it holds is served without idling after.  An empty queue
 * in service would stay there until another queue's request came, which
 * would then wait up to slice_idle for a request that cannot come: end
 * the turn now through the timer, which also restarts dispatching (we may
 * hold other locks here).
 */
static void bfq_abandon(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	bfqq->abandoned = true;
	if (bfqq == bfqd->in_service && !bfqq->queued) {
		WRITE_ONCE(bfqd->waiting, true);
		hrtimer_start(&bfqd->idle_timer, 0, HRTIMER_MODE_REL);
	}
}

/*
 * A process moved to another cgroup is not new there: its queue there
 * takes over the old one's history and boost.
 */
static void bfq_moved(struct bfq_queue *bfqq, struct bfq_queue *old)
{
	bfqq->seen = old->seen;
	bfqq->in_burst = old->in_burst;
	bfqq->idle_since = old->idle_since;
	bfqq->active_since = jiffies;
	bfqq->boost = old->boost;
	bfqq->boost_since = old->boost_since;
	bfqq->boost_left = old->boost_left;
	bfqq->entity.boosted = old->entity.boosted;
	old->boost = BFQ_BOOST_NONE;
	old->boost_left = 0;
	old->entity.boosted = false;
}

/*
 * The queue of a request being inserted, with a reference for it.  When no
 * context or queue can be had, the request goes to the device's shared
 * fallback queue rather than fail.  A process that moved to another cgroup
 * gets a new sync queue there; the old one serves what it holds and dies.
 */
struct bfq_queue *bfq_rq_queue(struct bfq_data *bfqd, struct request *rq)
{
	struct bfq_io_cq *bic = rq->elv.icq ? icq_to_bic(rq->elv.icq) : NULL;
	struct bfq_group *bfqg = bfq_bio_group(bfqd, rq->bio);
	struct bfq_queue **slot, *bfqq, *moved = NULL;
	int prio;

	lockdep_assert_held(&bfqd->lock);
	if (!bic) {
		bfqq = &bfqd->oom_bfqq;
		goto out;
	}
	prio = READ_ONCE(bic->prio);
	if (rq_is_sync(rq)) {
		slot = &bic->sync_bfqq;
		if (*slot && (*slot)->bfqg != bfqg) {
			/* keep the slot's reference until bfq_moved() */
			moved = *slot;
			bfq_abandon(bfqd, moved);
			*slot = NULL;
		}
	} else {
		slot = async_slot(bfqd, bfqg, prio);
	}
	bfqq = *slot;
	if (!bfqq) {
		bfqq = bfq_new_queue(bfqd, bfqg, rq_is_sync(rq),
				     rq_is_sync(rq) ? bic->pid : 0, prio);
		if (!bfqq) {
			bfqq = &bfqd->oom_bfqq;
			goto out;
		}
		*slot = bfqq;	/* the reference bfq_new_queue returned */
		if (moved)
			bfq_moved(bfqq, moved);
	}
	if (bfqq->sync)
		bfq_set_prio(bfqq, prio);
out:
	if (moved)
		bfq_put_queue(moved);
	bfq_get_queue(bfqq);
	return bfqq;
}

/* Drop a device's or a group's table of async queues; they drain alone. */
void bfq_put_async_queues(struct bfq_queue *async[][IOPRIO_NR_LEVELS])
{
	int c, l;

	for (c = 0; c < BFQ_NR_CLASSES; c++)
		for (l = 0; l < IOPRIO_NR_LEVELS; l++) {
			if (async[c][l])
				bfq_put_queue(async[c][l]);
			async[c][l] = NULL;
		}
}

void bfq_init_icq(struct io_cq *icq)
{
	struct bfq_io_cq *bic = icq_to_bic(icq);

	bic->pid = current->pid;
	bic->prio = bfq_current_prio(icq->ioc);
}

/*
 * The process's context dies, or the device's scheduler goes away.  Called
 * with the ioc lock (and maybe the queue lock) held, interrupts off.
 */
void bfq_exit_icq(struct io_cq *icq)
{
	struct bfq_io_cq *bic = icq_to_bic(icq);
	struct bfq_data *bfqd = icq->q->elevator->elevator_data;
	struct bfq_queue *bfqq;
	unsigned long flags;

	spin_lock_irqsave(&bfqd->lock, flags);
	bfqq = bic->sync_bfqq;
	if (bfqq) {
		bfq_abandon(bfqd, bfqq);
		bfq_put_queue(bfqq);
	}
	bic->sync_bfqq = NULL;
	spin_unlock_irqrestore(&bfqd->lock, flags);
}
