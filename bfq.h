/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Budget Fair Queueing (after Checconi and Valente, 2008): shared types.
 *
 * Every field below is protected by bfq_data.lock unless its comment
 * says otherwise.
 */
#ifndef _BFQ_H
#define _BFQ_H

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/hrtimer.h>
#include <linux/iocontext.h>
#include <linux/rbtree.h>
#include <linux/refcount.h>

#include "blk-cgroup.h"

/* Virtual times are sectors * 2^BFQ_VT_SHIFT / weight. */
#define BFQ_VT_SHIFT		22

/* Scheduling classes, in the order they are served. */
enum bfq_class {
	BFQ_CLASS_RT,
	BFQ_CLASS_BE,
	BFQ_CLASS_IDLE,
	BFQ_NR_CLASSES,
};

/* Why a queue left service; exported by tracepoints and debugfs. */
enum bfq_expiry {
	BFQ_EXP_EXHAUSTED,
	BFQ_EXP_TIMEOUT,
	BFQ_EXP_TOO_IDLE,
	BFQ_EXP_NO_MORE,
	BFQ_EXP_ASYNC_RQ,
	BFQ_EXP_GRACE,
	BFQ_EXP_PREEMPTED,
	BFQ_NR_EXPIRY,
};

/*
 * Why a queue is served ahead of its weight (low_latency): a process that
 * starts doing I/O, or comes back after a long pause, is probably one a
 * user waits for (interactive); one that reads a little at a time, now
 * and then, far below its share, is probably a player or a recorder with
 * a deadline of its own (soft real-time).
 */
enum bfq_boost {
	BFQ_BOOST_NONE,
	BFQ_BOOST_INTERACTIVE,
	BFQ_BOOST_SOFT_RT,
};

/* A boosted queue's weight is its own times this. */
#define BFQ_BOOST_FACTOR	10

struct bfq_sched_data;

/*
 * Anything B-WF2Q+ schedules: a process queue or (later) a group.
 * @start/@finish are virtual times; @min_start is the smallest start
 * in the active-tree subtree rooted here (augmented rbtree).
 */
struct bfq_entity {
	struct rb_node node;
	struct rb_root *tree;		/* active, idle or none (NULL) */
	u64 start;
	u64 finish;
	u64 min_start;
	unsigned int weight;
	unsigned int budget;		/* sectors granted for this turn */
	unsigned int service;		/* sectors received in this turn */
	enum bfq_class class;
	unsigned int new_weight;	/* ioprio or weight changes wait here */
	enum bfq_class new_class;	/* until the entity is off the trees */
	bool active;			/* backlogged: counted in the weight sum */
	bool boosted;			/* weight * BFQ_BOOST_FACTOR from the */
					/* next time it goes on a tree */
	bool weight_boosted;		/* @weight has the boost in it */
	struct bfq_entity *parent;	/* NULL at the device level */
	struct bfq_sched_data *sd;	/* the level this entity belongs to */
	struct bfq_sched_data *my_sd;	/* a group's children; NULL for queues */
};

struct bfq_service_tree {
	struct rb_root active;		/* by finish, augmented with min start */
	struct rb_root idle;		/* recently idle entities, by finish */
	u64 vtime;
	unsigned long wsum;		/* weights of active entities */
	unsigned long idle_wsum;	/* weights on the idle tree */
	unsigned long bsum;		/* active weights without boosts */
	unsigned long bsq;		/* and their squares */
	unsigned int nr;		/* active entities */
};

/*
 * A backlogged class that a higher one has kept from the device this long
 * gets one request through, so that no process waits for ever.
 */
#define BFQ_CLASS_GRACE		(HZ / 5)

/* A queue's weight at ioprio level @level of its class: 80 down to 10. */
#define BFQ_PRIO_WEIGHT(level)	(10 * (IOPRIO_NR_LEVELS - (level)))

/* One scheduling level: the device, or a group. */
struct bfq_sched_data {
	struct bfq_service_tree st[BFQ_NR_CLASSES];
	/* jiffies: each class's last pick, or when it became backlogged */
	unsigned long class_since[BFQ_NR_CLASSES];
};

/*
 * A cgroup on one device (see bfq-cgroup.c for its lifetime).  The root
 * cgroup has none: its queues live at the device level, bfq_data.root_sd.
 */
struct bfq_group {
	struct blkg_policy_data pd;	/* blkcg core's part */
	struct bfq_entity entity;	/* in the parent group's level */
	struct bfq_sched_data sd;	/* the level of its children */
	struct bfq_data *bfqd;
	struct bfq_group *parent;	/* NULL below the root cgroup */
	struct bfq_queue *async[BFQ_NR_CLASSES][IOPRIO_NR_LEVELS];
	refcount_t ref;			/* the blkcg core's and the scheduler's */
	unsigned int children;		/* queues and groups whose parent it is */
	bool online;
	unsigned int dev_weight;	/* this device's weight, 0 = default */
	u64 cgroup_id;
	struct list_head node;		/* on bfq_data.groups while online */

	/* statistics: io.stat and debugfs */
	u64 sectors;			/* served to queues in its subtree */
	unsigned long exhausted;	/* expiries of its own queues */
	unsigned long timeout;
};

/* The requests of one process (sync), or shared async ones, on a device. */
struct bfq_queue {
	struct bfq_entity entity;
	struct bfq_data *bfqd;
	struct bfq_group *bfqg;		/* NULL at the device level */
	int ref;
	pid_t pid;			/* 0 for async queues */
	bool sync;
	bool abandoned;			/* no process adds to it: never idle */
	bool seen;			/* its process's I/O came back before */
	bool in_burst;			/* started in a crowd: not boosted */
	u32 idle_since;			/* jiffies: its last request came back */

	struct rb_root sort_list;	/* queued requests by sector */
	struct list_head fifo;		/* queued requests by arrival */
	unsigned int queued;
	unsigned int dispatched;	/* in the driver */

	sector_t last_end;		/* end of the last request queued */
	u16 seeks;			/* 1 bits: far jumps, last 16 requests */
	bool idled_out;			/* its last turn ended by the idle timer */

	enum bfq_boost boost;
	u32 boost_since;		/* jiffies: when the boost began */
	unsigned int boost_left;	/* sectors it may still get boosted */
	/* soft real-time: when it last became backlogged, served until then */
	u32 active_since;
	u32 active_served;		/* low bits of total_served */

	unsigned int next_budget;	/* the budget of the next turn */
	unsigned int turn_rqs;		/* requests dispatched in this turn */
	u64 turn_start_ns;		/* first dispatch of this turn, or 0 */

	/* statistics for debugfs */
	u64 total_served;
	unsigned long expiries[BFQ_NR_EXPIRY];
	struct list_head all;		/* on bfq_data.queues */
};

/* Per-process, per-device context; the core allocates and frees it. */
struct bfq_io_cq {
	struct io_cq icq;		/* must be first */
	struct bfq_queue *sync_bfqq;	/* holds a reference */
	pid_t pid;			/* the process that created the context */
	int prio;			/* class and level, set at each request */
	/*
	 * Tag depth for the async request this context is about to allocate,
	 * from the share of the bio's queue; 0 = none.  Written by bio_merge
	 * under bfq_data.lock, taken (read and cleared) by limit_depth
	 * without it.
	 */
	unsigned int alloc_depth;
};

struct bfq_data {
	spinlock_t lock;		/* the one lock of the scheduler */
	struct request_queue *queue;
	struct bfq_sched_data root_sd;
	struct bfq_queue *in_service;	/* holds a reference */
	struct bfq_queue *challenger;	/* bfq_challenge; holds a reference */
	struct bfq_queue *preemptor;	/* bfq_preempts; holds a reference */
	struct list_head dispatch;	/* at-head and passthrough requests */
	struct list_head queues;	/* every bfq_queue of this device */
	struct list_head groups;	/* online bfq_groups of this device */
	/* async queues shared by all processes of a class and level */
	struct bfq_queue *async[BFQ_NR_CLASSES][IOPRIO_NR_LEVELS];
	struct bfq_queue oom_bfqq;	/* when no queue can be allocated */

	/* read locklessly by has_work */
	unsigned int queued;
	bool waiting;			/* idling or draining the queue in service */
	bool grace;			/* in service for one request only */

	unsigned int in_driver;
	/* the device serves several commands at once: bfq_sample_queueing */
	bool queueing;
	unsigned int depth_max;
	unsigned int depth_samples;
	sector_t last_pos;		/* end of the last dispatched request */
	struct hrtimer idle_timer;
	struct bfq_queue *merge_bfqq;	/* the bio's queue during bio_merge */

	/* async tag limits: written under the lock, read without it */
	unsigned int async_depth;	/* bits of a word any async rq may use */
	unsigned int min_async_depth;	/* of a queue at its share */
	unsigned int async_tags;	/* tags async requests may hold */

	u64 peak_rate;			/* sectors per ms << 16, 0 if unknown */
	bool rate_seeky;		/* peak_rate only from seeky samples */
	/* the sample being taken: see bfq_rate_sample() */
	u64 rate_busy_since;		/* ns: in_driver last went above 0 */
	u64 rate_busy_ns;		/* busy time banked before that */
	u64 rate_sectors;		/* completed */
	unsigned int rate_rqs;		/* dispatched */
	unsigned int rate_seeks;	/* of them, far from the previous */
	u32 rate_window_jif;		/* jiffies: the window started */
	/* whether seeks cost: see bfq_solo_sample() */
	bool seeks_free;		/* measured so on a rotational device */
	bool solo;			/* the read in the driver is alone */
	bool solo_far;			/* the last dispatch is a far read */
	u8 far_n, near_n;		/* samples taken, up to BFQ_SOLO_SAMPLES */
	u32 far_us, near_us;		/* average service time of each kind */
	u32 near_sectors;		/* average size of the near ones */
	unsigned int turn_far;		/* far reads of the turn in service */
	unsigned int auto_max_budget;
	unsigned long total_expiries[BFQ_NR_EXPIRY];
	unsigned long boosts;		/* started, for debugfs */
	/* processes new on the device, come close together */
	u32 burst_last;			/* jiffies: the latest one */
	unsigned int burst_len;

	/* tunables, stored in the units the code uses */
	unsigned int max_budget;	/* sectors, 0 = auto */
	unsigned int max_budget_async_rq;
	u64 timeout_ns[2];		/* [async, sync] */
	u64 slice_idle_ns;
	u64 fifo_expire_ns[2];		/* [async, sync] */
	unsigned int back_seek_max;	/* KiB */
	unsigned int back_seek_penalty;
	bool low_latency;
};

static inline struct bfq_queue *bfq_entity_queue(struct bfq_entity *e)
{
	return container_of(e, struct bfq_queue, entity);
}

static inline struct bfq_queue *rq_bfqq(struct request *rq)
{
	return rq->elv.priv[0];
}

static inline struct bfq_io_cq *icq_to_bic(struct io_cq *icq)
{
	return container_of(icq, struct bfq_io_cq, icq);
}

/* bfq-sched.c: B-WF2Q+ */
void bfq_sched_init(struct bfq_sched_data *sd);
void bfq_activate(struct bfq_entity *e, bool resume);
struct bfq_entity *bfq_next_queue(struct bfq_sched_data *sd, bool *grace,
				  struct bfq_entity *first);
void bfq_served(struct bfq_entity *e, unsigned int sectors);
void bfq_requeue(struct bfq_entity *e, bool backlogged);
void bfq_deactivate(struct bfq_entity *e);
void bfq_forget(struct bfq_entity *e);
unsigned int bfq_share_as(struct bfq_entity *e, unsigned int weight);
bool bfq_symmetric(struct bfq_entity *e);
bool bfq_boosted_alone(struct bfq_entity *e);
bool bfq_comes_first(struct bfq_entity *e, struct bfq_entity *cur, bool cut);

/* bfq-ioc.c: per-process queues */
int bfq_slab_init(void);
void bfq_slab_exit(void);
int bfq_current_prio(struct io_context *ioc);
struct bfq_queue *bfq_rq_queue(struct bfq_data *bfqd, struct request *rq);
struct bfq_queue *bfq_bio_queue(struct bfq_data *bfqd, struct bio *bio,
				struct bfq_io_cq *bic);
void bfq_get_queue(struct bfq_queue *bfqq);
void bfq_put_queue(struct bfq_queue *bfqq);
void bfq_init_queue(struct bfq_data *bfqd, struct bfq_queue *bfqq,
		    struct bfq_group *bfqg, bool sync, pid_t pid, int prio);
void bfq_put_async_queues(struct bfq_queue *async[][IOPRIO_NR_LEVELS]);
void bfq_init_icq(struct io_cq *icq);
void bfq_exit_icq(struct io_cq *icq);

/* bfq-cgroup.c: groups */
int bfq_cgroup_register(void);
void bfq_cgroup_unregister(void);
int bfq_cgroup_activate(struct bfq_data *bfqd);
void bfq_cgroup_deactivate(struct bfq_data *bfqd);
struct bfq_group *bfq_bio_group(struct bfq_data *bfqd, struct bio *bio);
void bfq_group_get(struct bfq_group *bfqg);
void bfq_group_put(struct bfq_group *bfqg);
u64 bfq_queue_cgroup_id(struct bfq_queue *bfqq);
void bfq_groups_show(struct bfq_data *bfqd, struct seq_file *m);

/* bfq-iosched.c: budgets and boosts */
unsigned int bfq_default_budget(struct bfq_data *bfqd);
unsigned int bfq_max_budget(struct bfq_data *bfqd);
void bfq_boost_end(struct bfq_queue *bfqq);

#endif /* _BFQ_H */
