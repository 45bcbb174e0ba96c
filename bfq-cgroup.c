// SPDX-License-Identifier: GPL-2.0
/*
 * Hierarchical scheduling: a blkcg policy on the io controller gives every
 * cgroup a bfq_group on each device that uses bfq.  A group is an entity
 * (weight 1..1000, default 100) in its parent's level and has a level of
 * its own for its child groups and its processes' queues.
 *
 * Lifetime.  The blkcg core allocates a group with its policy data (pd) and
 * frees the pd when the blkg dies, possibly long after the cgroup was
 * removed, from a work item and without our lock; meanwhile queues may
 * still hold requests of the group.  So:
 *  - bfq_group.ref (atomic) counts the blkcg core's reference, dropped in
 *    bfq_pd_free(), and the scheduler's, held from online until the group
 *    is "dead": offline and without children.  The memory goes with the
 *    last of the two.
 *  - bfq_group.children (under bfq_data.lock) counts the queues and child
 *    groups whose parent it is; each holds it, and so its level, in place.
 *  - Offline (cgroup removal, or the scheduler leaving the device) happens
 *    while the bfq_data exists: the group drops its async queues and stops
 *    taking new requests (they go to the nearest online ancestor); queued
 *    requests are still served.  When its last child leaves, it is taken
 *    off its parent's trees and lets go of its parent.
 * Only online groups touch their blkg, so a freed blkg is never seen.
 */
#include <linux/cgroup.h>
#include <linux/ctype.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "bfq.h"
#include "elevator.h"

#define BFQ_WEIGHT_MIN		1
#define BFQ_WEIGHT_MAX		1000
#define BFQ_WEIGHT_DEFAULT	100

/* Per cgroup: the weight of its groups on devices without an override. */
struct bfq_cgroup_data {
	struct blkcg_policy_data cpd;
	unsigned int weight;
};

static struct blkcg_policy bfq_policy;

static struct bfq_group *pd_to_bfqg(struct blkg_policy_data *pd)
{
	return pd ? container_of(pd, struct bfq_group, pd) : NULL;
}

static struct bfq_cgroup_data *blkcg_to_bcd(struct blkcg *blkcg)
{
	return container_of(blkcg_to_cpd(blkcg, &bfq_policy),
			    struct bfq_cgroup_data, cpd);
}

static unsigned int bfqg_weight(struct bfq_group *bfqg)
{
	/* written under the queue lock or the blkcg lock, not always ours */
	return READ_ONCE(bfqg->dev_weight) ?:
	       READ_ONCE(blkcg_to_bcd(pd_to_blkg(&bfqg->pd)->blkcg)->weight);
}

void bfq_group_get(struct bfq_group *bfqg)
{
	bfqg->children++;
}

static void bfq_group_free(struct bfq_group *bfqg)
{
	if (refcount_dec_and_test(&bfqg->ref))
		kfree(bfqg);
}

/* Under bfq_data.lock: a child left; an offline group may now die. */
void bfq_group_put(struct bfq_group *bfqg)
{
	while (bfqg) {
		struct bfq_group *parent = bfqg->parent;

		lockdep_assert_held(&bfqg->bfqd->lock);
		if (--bfqg->children || bfqg->online)
			return;
		bfq_forget(&bfqg->entity);
		bfq_group_free(bfqg);
		bfqg = parent;
	}
}

/*
 * The group a bio's requests go to: its cgroup's, or the nearest online
 * ancestor's; NULL is the device level (root cgroup).
 */
struct bfq_group *bfq_bio_group(struct bfq_data *bfqd, struct bio *bio)
{
	struct blkcg_gq *blkg = bio ? bio->bi_blkg : NULL;

	if (!blkg || blkg->q != bfqd->queue)
		return NULL;
	for (; blkg->parent; blkg = blkg->parent) {
		struct bfq_group *bfqg = pd_to_bfqg(blkg_to_pd(blkg,
							       &bfq_policy));

		if (bfqg && bfqg->online)
			return bfqg;
	}
	return NULL;
}

u64 bfq_queue_cgroup_id(struct bfq_queue *bfqq)
{
	return bfqq->bfqg ? bfqq->bfqg->cgroup_id : 1;
}

static struct blkcg_policy_data *bfq_cpd_alloc(gfp_t gfp)
{
	struct bfq_cgroup_data *bcd = kzalloc(sizeof(*bcd), gfp);

	return bcd ? &bcd->cpd : NULL;
}

static void bfq_cpd_init(struct blkcg_policy_data *cpd)
{
	container_of(cpd, struct bfq_cgroup_data, cpd)->weight =
		BFQ_WEIGHT_DEFAULT;
}

static void bfq_cpd_free(struct blkcg_policy_data *cpd)
{
	kfree(container_of(cpd, struct bfq_cgroup_data, cpd));
}

static struct blkg_policy_data *bfq_pd_alloc(gfp_t gfp,
					     struct request_queue *q,
					     struct blkcg *blkcg)
{
	struct bfq_group *bfqg = kzalloc_node(sizeof(*bfqg), gfp, q->node);

	if (!bfqg)
		return NULL;
	refcount_set(&bfqg->ref, 1);
	/*
	 * The blkcg core calls bfq_pd_free() from a work item when the blkg
	 * dies, which can be long after the cgroup and the elevator are gone
	 * (a bio held by blk-throttle pins it).  blkcg_policy_unregister()
	 * does not wait for those, so until then rmmod must say "in use".
	 */
	__module_get(THIS_MODULE);
	return &bfqg->pd;
}

static void bfq_pd_init(struct blkg_policy_data *pd)
{
	struct bfq_group *bfqg = pd_to_bfqg(pd);
	struct blkcg_gq *blkg = pd_to_blkg(pd);
	struct bfq_entity *e = &bfqg->entity;

	/* under the queue lock, with the policy enabled: q->elevator is ours */
	bfqg->bfqd = blkg->q->elevator->elevator_data;
	bfq_sched_init(&bfqg->sd);
	INIT_LIST_HEAD(&bfqg->node);
	bfqg->cgroup_id = cgroup_id(blkg->blkcg->css.cgroup);
	if (blkg->parent && blkg->parent->parent)
		bfqg->parent = pd_to_bfqg(blkg_to_pd(blkg->parent,
						     &bfq_policy));
	e->my_sd = &bfqg->sd;
	e->parent = bfqg->parent ? &bfqg->parent->entity : NULL;
	e->sd = bfqg->parent ? &bfqg->parent->sd : &bfqg->bfqd->root_sd;
	e->class = BFQ_CLASS_BE;
	e->new_class = BFQ_CLASS_BE;
	e->weight = bfqg_weight(bfqg);
	e->new_weight = e->weight;
}

/* The root cgroup's group is not used: its queues are the device level. */
static void bfq_pd_online(struct blkg_policy_data *pd)
{
	struct bfq_group *bfqg = pd_to_bfqg(pd);
	struct bfq_data *bfqd = bfqg->bfqd;
	unsigned long flags;

	if (!pd_to_blkg(pd)->parent)
		return;
	spin_lock_irqsave(&bfqd->lock, flags);
	refcount_inc(&bfqg->ref);
	bfqg->online = true;
	if (bfqg->parent)
		bfq_group_get(bfqg->parent);
	list_add_tail(&bfqg->node, &bfqd->groups);
	spin_unlock_irqrestore(&bfqd->lock, flags);
}

static void bfq_pd_offline(struct blkg_policy_data *pd)
{
	struct bfq_group *bfqg = pd_to_bfqg(pd);
	struct bfq_data *bfqd = bfqg->bfqd;
	unsigned long flags;

	if (!pd_to_blkg(pd)->parent)
		return;
	spin_lock_irqsave(&bfqd->lock, flags);
	bfqg->online = false;
	list_del_init(&bfqg->node);
	/* a dead group is freed by its last child; hold it for this */
	bfqg->children++;
	bfq_put_async_queues(bfqg->async);
	bfq_group_put(bfqg);
	spin_unlock_irqrestore(&bfqd->lock, flags);
}

/*
 * The module reference goes last, as a tail call: nothing of ours runs
 * after it, so rmmod may free our code as soon as it drops to zero
 * (tests/02-pd-free-tail-call.sh checks it in the object code).
 */
static void bfq_pd_free(struct blkg_policy_data *pd)
{
	bfq_group_free(pd_to_bfqg(pd));
	module_put(THIS_MODULE);
}

static void bfq_pd_stat(struct blkg_policy_data *pd, struct seq_file *s)
{
	struct bfq_group *bfqg = pd_to_bfqg(pd);

	if (!pd_to_blkg(pd)->parent)
		return;
	seq_printf(s, " bfq.weight=%u bfq.sectors=%llu bfq.budget_exhausted=%lu bfq.budget_timeout=%lu",
		   READ_ONCE(bfqg->entity.new_weight), READ_ONCE(bfqg->sectors),
		   READ_ONCE(bfqg->exhausted), READ_ONCE(bfqg->timeout));
}

/* Under the queue lock: the weight takes effect at the group's next turn. */
static void bfqg_update_weight(struct bfq_group *bfqg)
{
	struct bfq_data *bfqd = bfqg->bfqd;
	unsigned long flags;

	spin_lock_irqsave(&bfqd->lock, flags);
	WRITE_ONCE(bfqg->entity.new_weight, bfqg_weight(bfqg));
	spin_unlock_irqrestore(&bfqd->lock, flags);
}

static int bfq_parse_weight(const char *s, unsigned int *w)
{
	if (kstrtouint(s, 10, w))
		return -EINVAL;
	return *w < BFQ_WEIGHT_MIN || *w > BFQ_WEIGHT_MAX ? -EINVAL : 0;
}

/* "W" or "default W": the cgroup's weight on every device. */
static int bfq_set_default_weight(struct blkcg *blkcg, char *buf)
{
	struct blkcg_gq *blkg;
	unsigned int w;
	int ret;

	if (!strncmp(buf, "default", 7) && isspace(buf[7]))
		buf = skip_spaces(buf + 7);
	ret = bfq_parse_weight(buf, &w);
	if (ret)
		return ret;

	spin_lock_irq(&blkcg->lock);
	WRITE_ONCE(blkcg_to_bcd(blkcg)->weight, w);
	hlist_for_each_entry(blkg, &blkcg->blkg_list, blkcg_node) {
		struct bfq_group *bfqg = pd_to_bfqg(blkg_to_pd(blkg,
							       &bfq_policy));

		if (bfqg && blkg->parent)
			bfqg_update_weight(bfqg);
	}
	spin_unlock_irq(&blkcg->lock);
	return 0;
}

/* "MAJ:MIN W" or "MAJ:MIN default": the weight on one device. */
static int bfq_set_dev_weight(struct blkcg *blkcg, char *buf)
{
	struct blkg_conf_ctx ctx;
	struct bfq_group *bfqg;
	unsigned int w = 0;
	int ret;

	ret = blkg_conf_prep(blkcg, &bfq_policy, buf, &ctx);
	if (ret)
		return ret == -EOPNOTSUPP ? -ENODEV : ret;
	buf = strim(ctx.body);
	if (strcmp(buf, "default"))
		ret = bfq_parse_weight(buf, &w);
	bfqg = pd_to_bfqg(blkg_to_pd(ctx.blkg, &bfq_policy));
	if (!ret && bfqg) {
		WRITE_ONCE(bfqg->dev_weight, w);
		bfqg_update_weight(bfqg);
	}
	blkg_conf_finish(&ctx);
	return ret;
}

static ssize_t bfq_weight_write(struct kernfs_open_file *of, char *buf,
				size_t nbytes, loff_t off)
{
	struct blkcg *blkcg = css_to_blkcg(of_css(of));
	int ret;

	buf = strim(buf);
	if (isdigit(buf[0]) && strchr(buf, ':'))
		ret = bfq_set_dev_weight(blkcg, buf);
	else
		ret = bfq_set_default_weight(blkcg, buf);
	return ret ?: nbytes;
}

static u64 bfq_prfill_dev_weight(struct seq_file *sf,
				 struct blkg_policy_data *pd, int off)
{
	struct bfq_group *bfqg = pd_to_bfqg(pd);

	if (!bfqg->dev_weight)
		return 0;
	return __blkg_prfill_u64(sf, pd, bfqg->dev_weight);
}

static int bfq_weight_show(struct seq_file *sf, void *v)
{
	struct blkcg *blkcg = css_to_blkcg(seq_css(sf));

	seq_printf(sf, "default %u\n", READ_ONCE(blkcg_to_bcd(blkcg)->weight));
	blkcg_print_blkgs(sf, blkcg, bfq_prfill_dev_weight, &bfq_policy, 0,
			  false);
	return 0;
}

/* cgroup v1: blkio.bfq.weight holds the bare default weight. */
static int bfq_legacy_weight_show(struct seq_file *sf, void *v)
{
	struct bfq_cgroup_data *bcd = blkcg_to_bcd(css_to_blkcg(seq_css(sf)));

	seq_printf(sf, "%u\n", READ_ONCE(bcd->weight));
	return 0;
}

static ssize_t bfq_legacy_weight_write(struct kernfs_open_file *of,
				       char *buf, size_t nbytes, loff_t off)
{
	int ret = bfq_set_default_weight(css_to_blkcg(of_css(of)), strim(buf));

	return ret ?: nbytes;
}

static int bfq_weight_device_show(struct seq_file *sf, void *v)
{
	blkcg_print_blkgs(sf, css_to_blkcg(seq_css(sf)), bfq_prfill_dev_weight,
			  &bfq_policy, 0, false);
	return 0;
}

static ssize_t bfq_weight_device_write(struct kernfs_open_file *of,
				       char *buf, size_t nbytes, loff_t off)
{
	int ret = bfq_set_dev_weight(css_to_blkcg(of_css(of)), strim(buf));

	return ret ?: nbytes;
}

static u64 bfq_prfill_bytes(struct seq_file *sf, struct blkg_policy_data *pd,
			    int off)
{
	return __blkg_prfill_u64(sf, pd, READ_ONCE(pd_to_bfqg(pd)->sectors) << 9);
}

static int bfq_service_bytes_show(struct seq_file *sf, void *v)
{
	blkcg_print_blkgs(sf, css_to_blkcg(seq_css(sf)), bfq_prfill_bytes,
			  &bfq_policy, 0, true);
	return 0;
}

/* v2: io.bfq.weight */
static struct cftype bfq_dfl_files[] = {
	{
		.name = "bfq.weight",
		.seq_show = bfq_weight_show,
		.write = bfq_weight_write,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{ }
};

/* v1: blkio.bfq.weight, blkio.bfq.weight_device, blkio.bfq.io_service_bytes */
static struct cftype bfq_legacy_files[] = {
	{
		.name = "bfq.weight",
		.seq_show = bfq_legacy_weight_show,
		.write = bfq_legacy_weight_write,
		.flags = CFTYPE_NOT_ON_ROOT,
	}, {
		.name = "bfq.weight_device",
		.seq_show = bfq_weight_device_show,
		.write = bfq_weight_device_write,
		.flags = CFTYPE_NOT_ON_ROOT,
	}, {
		.name = "bfq.io_service_bytes",
		.seq_show = bfq_service_bytes_show,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{ }
};

static struct blkcg_policy bfq_policy = {
	.dfl_cftypes		= bfq_dfl_files,
	.legacy_cftypes		= bfq_legacy_files,
	.cpd_alloc_fn		= bfq_cpd_alloc,
	.cpd_init_fn		= bfq_cpd_init,
	.cpd_free_fn		= bfq_cpd_free,
	.pd_alloc_fn		= bfq_pd_alloc,
	.pd_init_fn		= bfq_pd_init,
	.pd_online_fn		= bfq_pd_online,
	.pd_offline_fn		= bfq_pd_offline,
	.pd_free_fn		= bfq_pd_free,
	.pd_stat_fn		= bfq_pd_stat,
};

/* debugfs sched/bfq_groups: the device's view of its cgroups. */
void bfq_groups_show(struct bfq_data *bfqd, struct seq_file *m)
{
	struct bfq_group *bfqg;
	struct bfq_queue *bfqq;
	char path[128];

	list_for_each_entry(bfqg, &bfqd->groups, node) {
		unsigned int backlogged = 0;

		list_for_each_entry(bfqq, &bfqd->queues, all)
			backlogged += bfqq->bfqg == bfqg && bfqq->queued;
		if (blkg_path(pd_to_blkg(&bfqg->pd), path, sizeof(path)) < 0)
			strscpy(path, "?", sizeof(path));
		seq_printf(m, "%s id=%llu weight=%u class=be sectors=%llu backlogged=%u exhausted=%lu timeout=%lu\n",
			   path, bfqg->cgroup_id, bfqg->entity.new_weight,
			   bfqg->sectors, backlogged, bfqg->exhausted,
			   bfqg->timeout);
	}
}

int bfq_cgroup_activate(struct bfq_data *bfqd)
{
	return blkcg_activate_policy(bfqd->queue, &bfq_policy);
}

void bfq_cgroup_deactivate(struct bfq_data *bfqd)
{
	blkcg_deactivate_policy(bfqd->queue, &bfq_policy);
}

int __init bfq_cgroup_register(void)
{
	return blkcg_policy_register(&bfq_policy);
}

void bfq_cgroup_unregister(void)
{
	blkcg_policy_unregister(&bfq_policy);
}
