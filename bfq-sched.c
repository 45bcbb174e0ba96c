// SPDX-License-Identifier: GPL-2.0
/*
 * B-WF2Q+: the budget-based worst-case fair weighted fair queueing that
 * decides which entity gets the device next.
 *
 * Each service tree keeps its backlogged entities in an rbtree ordered by
 * virtual finish time F, with every node also holding the smallest start
 * time S of its subtree.  The next entity is the one with the smallest F
 * among those with S <= V (eligible); the subtree minimum lets one
 * descent from the root find it.  The entity in service is taken off its
 * tree but still counts in the weight sum until it is requeued.
 *
 * All of it runs under bfq_data.lock.  Entities do not know their
 * bfq_data, so the callers in bfq-iosched.c, bfq-ioc.c and bfq-cgroup.c
 * assert the lock (lockdep_assert_held) instead.
 */
#include <linux/math64.h>
#include <linux/rbtree_augmented.h>

#include "bfq.h"

/* a > b, for virtual times that may wrap */
static inline bool vt_after(u64 a, u64 b)
{
	return (s64)(a - b) > 0;
}

static inline u64 vt_delta(unsigned long sectors, unsigned long weight)
{
	return div64_ul((u64)sectors << BFQ_VT_SHIFT, weight);
}

static inline struct bfq_entity *node_entity(struct rb_node *n)
{
	return n ? rb_entry(n, struct bfq_entity, node) : NULL;
}

static inline struct bfq_service_tree *entity_st(struct bfq_entity *e)
{
	return &e->sd->st[e->class];
}

/* The weight bfq_symmetric() compares: a boost is not a share to keep. */
static unsigned long base_weight(struct bfq_entity *e)
{
	return e->weight_boosted ? e->weight / BFQ_BOOST_FACTOR : e->weight;
}

/* @e becomes backlogged in, or leaves, the weight sums of its tree. */
static void st_add(struct bfq_entity *e)
{
	struct bfq_service_tree *st = entity_st(e);

	st->wsum += e->weight;
	st->bsum += base_weight(e);
	st->bsq += base_weight(e) * base_weight(e);
	if (!st->nr++)
		e->sd->class_since[e->class] = jiffies;
}

static void st_sub(struct bfq_entity *e)
{
	struct bfq_service_tree *st = entity_st(e);

	st->wsum -= e->weight;
	st->bsum -= base_weight(e);
	st->bsq -= base_weight(e) * base_weight(e);
	st->nr--;
}

static bool min_start_compute(struct bfq_entity *e, bool exit)
{
	struct bfq_entity *l = node_entity(e->node.rb_left);
	struct bfq_entity *r = node_entity(e->node.rb_right);
	u64 min = e->start;

	if (l && vt_after(min, l->min_start))
		min = l->min_start;
	if (r && vt_after(min, r->min_start))
		min = r->min_start;
	if (exit && e->min_start == min)
		return true;
	e->min_start = min;
	return false;
}

RB_DECLARE_CALLBACKS(static, min_start_cb, struct bfq_entity, node,
		     min_start, min_start_compute);

/* Both trees are ordered by F; min_start only matters in the active one. */
static void tree_insert(struct rb_root *root, struct bfq_entity *e)
{
	struct rb_node **link = &root->rb_node, *parent = NULL;

	e->min_start = e->start;
	while (*link) {
		struct bfq_entity *p = node_entity(*link);

		parent = *link;
		if (vt_after(p->min_start, e->start))
			p->min_start = e->start;
		if (vt_after(p->finish, e->finish))
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&e->node, parent, link);
	rb_insert_augmented(&e->node, root, &min_start_cb);
	e->tree = root;
}

static void tree_remove(struct bfq_entity *e)
{
	struct bfq_service_tree *st = entity_st(e);

	if (e->tree == &st->idle)
		st->idle_wsum -= e->weight;
	rb_erase_augmented(&e->node, e->tree, &min_start_cb);
	e->tree = NULL;
}

/* Idle entities whose F is behind V could gain nothing by staying. */
static void forget_idle(struct bfq_service_tree *st)
{
	struct bfq_entity *e;

	while ((e = node_entity(rb_first(&st->idle))) &&
	       !vt_after(e->finish, st->vtime))
		tree_remove(e);
}

void bfq_sched_init(struct bfq_sched_data *sd)
{
	int i;

	for (i = 0; i < BFQ_NR_CLASSES; i++) {
		sd->st[i].active = RB_ROOT;
		sd->st[i].idle = RB_ROOT;
		sd->st[i].vtime = 0;
		sd->st[i].wsum = 0;
		sd->st[i].idle_wsum = 0;
		sd->st[i].bsum = 0;
		sd->st[i].bsq = 0;
		sd->st[i].nr = 0;
	}
}

/*
 * Apply a pending weight, class or boost change; the entity is on no tree.
 * Returns true if the class changed, so the old stamps mean nothing.
 */
static bool apply_prio(struct bfq_entity *e)
{
	bool moved = e->class != e->new_class;

	if (e->active)
		st_sub(e);
	e->class = e->new_class;
	e->weight = e->new_weight * (e->boosted ? BFQ_BOOST_FACTOR : 1);
	e->weight_boosted = e->boosted;
	if (e->active)
		st_add(e);
	return moved;
}

static void insert_active(struct bfq_entity *e)
{
	e->finish = e->start + vt_delta(e->budget, e->weight);
	tree_insert(&entity_st(e)->active, e);
}

static bool sd_backlogged(struct bfq_sched_data *sd)
{
	int i;

	for (i = 0; i < BFQ_NR_CLASSES; i++)
		if (!RB_EMPTY_ROOT(&sd->st[i].active))
			return true;
	return false;
}

/* The eligible entity with the smallest F, V moved up if none is. */
static struct bfq_entity *lookup_next(struct bfq_service_tree *st)
{
	struct rb_node *n = st->active.rb_node;
	struct bfq_entity *e = node_entity(n);

	if (vt_after(e->min_start, st->vtime)) {
		st->vtime = e->min_start;
		forget_idle(st);
	}
	while (n) {
		struct bfq_entity *l = node_entity(n->rb_left);

		e = node_entity(n);
		if (l && !vt_after(l->min_start, st->vtime)) {
			n = n->rb_left;
			continue;
		}
		if (!vt_after(e->start, st->vtime))
			return e;
		n = n->rb_right;
	}
	return NULL;	/* not reached: the root's min_start is <= V */
}

/*
 * The entity @sd would serve next.  Classes are strict, except that with
 * @grace given a lower class that has waited BFQ_CLASS_GRACE since it was
 * last picked goes first; *@grace is then set.
 */
static struct bfq_entity *peek_next(struct bfq_sched_data *sd, bool *grace)
{
	struct bfq_service_tree *first = NULL;
	int i;

	for (i = 0; i < BFQ_NR_CLASSES; i++) {
		if (RB_EMPTY_ROOT(&sd->st[i].active))
			continue;
		if (!first) {
			first = &sd->st[i];
			if (!grace)
				break;
		} else if (time_after(jiffies,
				      sd->class_since[i] + BFQ_CLASS_GRACE)) {
			*grace = true;
			return lookup_next(&sd->st[i]);
		}
	}
	return first ? lookup_next(first) : NULL;
}

/*
 * A non-backlogged entity gets requests: it starts at V, or at its old F if
 * it went idle so recently that it is still on the idle tree.  With
 * @resume (bfq_resumes) it starts at its old F even if V has passed it:
 * it keeps the place it had, and is owed what the others got meanwhile.
 * Its groups become backlogged with it, and resume with it: they went
 * idle when it did, or later.  A group's budget is that of the child it
 * will serve.
 */
void bfq_activate(struct bfq_entity *e, bool resume)
{
	unsigned int budget = e->budget;

	for (; e && !e->active; e = e->parent) {
		struct bfq_service_tree *st = entity_st(e);
		u64 start = st->vtime;

		if (resume || (e->tree && vt_after(e->finish, start)))
			start = e->finish;
		if (e->tree)
			tree_remove(e);
		if (apply_prio(e))
			start = entity_st(e)->vtime;
		e->start = start;
		e->budget = budget;
		e->active = true;
		st_add(e);
		insert_active(e);
	}
}

/* @first's ancestor (or itself) at the level of @sd, or NULL. */
static struct bfq_entity *entity_at(struct bfq_entity *first,
				    struct bfq_sched_data *sd)
{
	for (; first; first = first->parent)
		if (first->sd == sd)
			return first;
	return NULL;
}

/*
 * Walk down from the device level, taking the next entity of each level
 * off its tree, to the queue to serve next.  *@grace tells whether a
 * starved class was picked on the way: that queue gets one request only.
 * @first, if not NULL, is a preemptor (bfq_preempts): at each level the
 * entity on its path is taken instead, if backlogged and of the class
 * next there.  Its groups are those whose turn the preemption cut, and it
 * is served out of order once, with its own stamps, so that what it gets
 * is charged to it as usual.  (A group's budget, from the child it was
 * to serve, may then not be that of the preemptor: its F is made right
 * from its service when it is requeued.)
 */
struct bfq_entity *bfq_next_queue(struct bfq_sched_data *sd, bool *grace,
				  struct bfq_entity *first)
{
	struct bfq_entity *e, *f;

	*grace = false;
	for (;;) {
		e = peek_next(sd, grace);
		if (!e)
			return NULL;
		f = entity_at(first, sd);
		if (f && f != e && f->class == e->class &&
		    f->tree == &entity_st(f)->active)
			e = f;
		sd->class_since[e->class] = jiffies;
		tree_remove(e);
		if (!e->my_sd)
			return e;
		sd = e->my_sd;
	}
}

/* Charge @sectors to @e and its ancestors; V advances by sectors / wsum. */
void bfq_served(struct bfq_entity *e, unsigned int sectors)
{
	for (; e; e = e->parent) {
		struct bfq_service_tree *st = entity_st(e);

		e->service += sectors;
		st->vtime += vt_delta(sectors, st->wsum);
		forget_idle(st);
	}
}

static void go_idle(struct bfq_entity *e)
{
	struct bfq_service_tree *st = entity_st(e);

	st_sub(e);
	e->active = false;
	if (vt_after(e->finish, st->vtime)) {
		tree_insert(&st->idle, e);
		st->idle_wsum += e->weight;
	}
}

/*
 * The queue in service, and with it each group above it, leaves service:
 * F becomes S + service / weight.  An entity still backlogged starts its
 * next turn at that F with its new budget (the caller sets the queue's),
 * otherwise it goes idle.
 */
void bfq_requeue(struct bfq_entity *e, bool backlogged)
{
	for (; e; e = e->parent) {
		e->finish = e->start + vt_delta(e->service, e->weight);
		e->service = 0;
		if (backlogged) {
			e->start = e->finish;
			if (apply_prio(e))
				e->start = entity_st(e)->vtime;
			insert_active(e);
		} else {
			go_idle(e);
		}
		if (!e->parent)
			break;
		backlogged = sd_backlogged(e->sd);
		if (backlogged)
			e->parent->budget = peek_next(e->sd, NULL)->budget;
	}
}

/*
 * A backlogged entity, not in service, lost its last request to a merge;
 * groups left with nothing backlogged, and not in service, follow it.
 */
void bfq_deactivate(struct bfq_entity *e)
{
	do {
		tree_remove(e);
		go_idle(e);
		e = e->parent;
	} while (e && e->tree && !sd_backlogged(e->my_sd));
}

/* The entity is about to be freed: nothing may point at it any more. */
void bfq_forget(struct bfq_entity *e)
{
	/* a queue kept backlogged after its turn may go with nothing queued */
	if (e->active)
		bfq_deactivate(e);
	if (e->tree)
		tree_remove(e);
}

/*
 * The part of the device, in 1/1024ths, that @e gets while backlogged: its
 * weight over the weights of its tree's backlogged entities and of those
 * that went idle ahead of V (they will be back soon), times the same for
 * each group above it, were its own weight @weight (a boosted queue's
 * share at its unboosted weight).  Classes are ignored.
 */
unsigned int bfq_share_as(struct bfq_entity *e, unsigned int weight)
{
	unsigned int share = 1024;

	while (e) {
		struct bfq_service_tree *st = entity_st(e);
		unsigned long wsum = st->wsum + st->idle_wsum + weight;

		/* its own weight, if counted, is replaced by @weight */
		if (e->active || e->tree == &st->idle)
			wsum -= e->weight;
		share = share * weight / max(wsum, 1UL);
		e = e->parent;
		if (e)
			weight = e->weight;
	}
	return share;
}

/*
 * True if @e, a queue at the device level, is backlogged only beside
 * queues of its own class and weight: then each gets the same share
 * whether or not a queue that runs empty is waited for.  All weights are
 * equal exactly when bsum^2 == nr * bsq.  Boosts do not count: a boosted
 * queue is waited for itself (bfq_worth_idling), and the others need not
 * keep a share from it.  Queues in groups are never symmetric: a group
 * keeps its share only by being waited for.
 */
bool bfq_symmetric(struct bfq_entity *e)
{
	struct bfq_service_tree *st = entity_st(e);
	int i;

	if (e->parent)
		return false;
	for (i = 0; i < BFQ_NR_CLASSES; i++)
		if (i != e->class && !RB_EMPTY_ROOT(&e->sd->st[i].active))
			return false;
	return st->bsum * st->bsum == st->nr * st->bsq;
}

/* True if @e, active at the device level, is the only boosted one there. */
bool bfq_boosted_alone(struct bfq_entity *e)
{
	struct bfq_service_tree *st = entity_st(e);

	return e->weight_boosted &&
	       st->wsum - st->bsum == e->weight - base_weight(e);
}

static unsigned int entity_depth(struct bfq_entity *e)
{
	unsigned int depth = 0;

	for (; e->parent; e = e->parent)
		depth++;
	return depth;
}

/*
 * Whether @e, active, would be picked before @cur, the queue in service,
 * had @cur been requeued with its stamps: its F as at its pick, or with
 * @cut, as if its turn ended now (F = S + service so far / weight).  They
 * are compared where their paths from the device level part: the two
 * entities there (themselves, or the groups they are in) compete at the
 * same level, and the one of a higher class, or eligible with an earlier
 * finish time, wins.  The ancestors of @cur are in service with valid
 * stamps, those of @e active.
 */
bool bfq_comes_first(struct bfq_entity *e, struct bfq_entity *cur, bool cut)
{
	unsigned int de = entity_depth(e), dc = entity_depth(cur);
	u64 finish;

	for (; de > dc; de--)
		e = e->parent;
	for (; dc > de; dc--)
		cur = cur->parent;
	while (e->sd != cur->sd) {
		e = e->parent;
		cur = cur->parent;
	}
	if (e->class != cur->class)
		return e->class < cur->class;
	finish = cut ? cur->start + vt_delta(cur->service, cur->weight) :
		       cur->finish;
	return !vt_after(e->start, entity_st(e)->vtime) &&
	       vt_after(finish, e->finish);
}
