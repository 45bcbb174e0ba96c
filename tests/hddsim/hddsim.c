// SPDX-License-Identifier: GPL-2.0
/*
 * hddsim: a blk-mq block device that takes the time a rotating disk would.
 *
 * One disk, /dev/hddsim0, rotational, one hardware queue.  Each request is
 * served by a model of a single actuator over a zoned platter:
 *
 *   - seek: from the cylinder distance d between the head and the request,
 *     over the full stroke D: settle + (full - settle) * sqrt(3d/D) / 2 up
 *     to a third of the stroke, then linear up to full at d = D (the two
 *     pieces meet with the same value and slope at D/3); no seek for d = 0
 *     or for a request that starts where the previous one ended;
 *   - rotation: the platter's angle is a function of the clock and the RPM
 *     (ktime modulo the period); a sector's angle is its offset in its
 *     track; the head waits from the end of the seek until the first sector
 *     comes round;
 *   - transfer: 16 zones of equal radial width, sectors per track falling
 *     linearly from the outer zone (low LBAs, rate_outer_mbps) to the inner
 *     one (rate_inner_mbps); a track passes in one revolution.
 *
 * A request that starts where the previous one ended and arrives within
 * the time the platter takes to pass buffer_kb after that end is served as
 * if it had arrived at the end (the drive's buffer reads ahead, or takes the
 * data, meanwhile): no seek, no rotation, the transfer continues the stream.
 * A later one waits for the platter.  buffer_kb=0 leaves that out.
 *
 * The head serves one request at a time: a request's service starts at
 * max(arrival, end of the previous one) and it completes on an hrtimer at
 * the modelled end.  With depth > 1 the device holds up to depth requests
 * and serves next the one with the shortest positioning time (seek +
 * rotation), unless one has waited over a second: then the oldest.
 *
 * Data lives in memory, one page per 4 KiB written (an xarray); never
 * written sectors read as zeros.  Flushes complete at once.  Counters are
 * in debugfs, hddsim/stats.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/xarray.h>
#include <linux/highmem.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/math64.h>
#include <linux/math.h>

#define HS_ZONES		16
#define HS_MAX_DEPTH		32
#define HS_AGE_NS		NSEC_PER_SEC
#define HS_SECT_PER_PAGE_SHIFT	(PAGE_SHIFT - SECTOR_SHIFT)
#define HS_MAX_SECTORS		2048	/* 1 MiB per request */

static unsigned int capacity_mb = 4096;
module_param(capacity_mb, uint, 0444);
MODULE_PARM_DESC(capacity_mb, "Capacity in MiB (default 4096; only written pages use memory)");

static unsigned int rpm = 7200;
module_param(rpm, uint, 0444);
MODULE_PARM_DESC(rpm, "Spindle speed, revolutions per minute (default 7200)");

static unsigned int seek_settle_us = 800;
module_param(seek_settle_us, uint, 0444);
MODULE_PARM_DESC(seek_settle_us, "Seek time of one cylinder (track-to-track), us (default 800)");

static unsigned int seek_full_us = 17000;
module_param(seek_full_us, uint, 0444);
MODULE_PARM_DESC(seek_full_us, "Seek time of the full stroke, us (default 17000)");

static unsigned int rate_outer_mbps = 160;
module_param(rate_outer_mbps, uint, 0444);
MODULE_PARM_DESC(rate_outer_mbps, "Media rate of the outer zone (LBA 0), MB/s (10^6 bytes) (default 160)");

static unsigned int rate_inner_mbps = 80;
module_param(rate_inner_mbps, uint, 0444);
MODULE_PARM_DESC(rate_inner_mbps, "Media rate of the inner zone (end of disk), MB/s (default 80)");

static unsigned int depth = 1;
module_param(depth, uint, 0444);
MODULE_PARM_DESC(depth, "Requests the device holds, 1-32 (default 1); >1: shortest positioning time first");

static unsigned int buffer_kb = 1024;
module_param(buffer_kb, uint, 0444);
MODULE_PARM_DESC(buffer_kb, "A sequential request arriving within the time this much passes under the head streams on (default 1024, 0 = none)");

struct hs_zone {
	sector_t start;		/* first LBA */
	u64 cyl0;		/* first cylinder */
	u32 spt;		/* sectors per track */
};

/* per request (the blk-mq pdu) */
struct hs_cmd {
	struct list_head list;
	u64 arrival;		/* ns */
};

struct hs_pos {			/* where a request goes, and what it costs */
	u64 seek, rot, xfer;	/* ns */
	u64 cyl;
	bool streamed;		/* served as the continuation of a stream */
};

struct hs_stats {
	u64 requests, reads, writes, flushes, sectors;
	u64 seeks, streamed;
	u64 seek_ns, rot_ns, xfer_ns, busy_ns;
	u64 late_ns;		/* completions after the modelled end */
};

struct hddsim {
	struct blk_mq_tag_set tag_set;
	struct gendisk *disk;
	struct xarray pages;
	struct dentry *debugfs;

	/* geometry, fixed at load */
	sector_t capacity;
	u64 period_ns;		/* one revolution */
	u64 settle_ns, full_ns;
	u64 max_cyl;		/* full stroke, in cylinders */
	u64 cyl_per_zone;
	struct hs_zone zone[HS_ZONES];

	/* the actuator, under lock */
	spinlock_t lock;
	struct hrtimer timer;
	struct list_head queued;	/* in the device, not yet served */
	struct request *cur;		/* in service */
	u64 busy_until;			/* end of the last service, ns */
	u64 head_cyl;
	sector_t next_seq;		/* sector after the last one served */
	struct hs_stats st;
};

static struct hddsim *hs_dev;

static int hs_zone_of(struct hddsim *hs, sector_t lba)
{
	int z = HS_ZONES - 1;

	while (z > 0 && lba < hs->zone[z].start)
		z--;
	return z;
}

/* cylinder of lba; *angle_ns: when in a revolution its sector passes */
static u64 hs_cyl(struct hddsim *hs, sector_t lba, u64 *angle_ns)
{
	const struct hs_zone *zn = &hs->zone[hs_zone_of(hs, lba)];
	u64 rel = lba - zn->start;
	u32 off;
	u64 trk = div_u64_rem(rel, zn->spt, &off);

	if (angle_ns)
		*angle_ns = div_u64(hs->period_ns * off, zn->spt);
	return zn->cyl0 + trk;
}

static u64 hs_xfer_ns(struct hddsim *hs, sector_t lba, u64 nr)
{
	u64 t = 0;

	while (nr) {
		int z = hs_zone_of(hs, lba);
		u64 n = nr;

		if (z < HS_ZONES - 1)
			n = min_t(u64, n, hs->zone[z + 1].start - lba);
		t += div_u64(n * hs->period_ns, hs->zone[z].spt);
		lba += n;
		nr -= n;
	}
	return t;
}

static u64 hs_seek_ns(struct hddsim *hs, u64 d)
{
	u64 range = hs->full_ns - hs->settle_ns;
	u64 d3 = 3 * d;
	u32 sq;

	if (!d)
		return 0;
	if (d >= hs->max_cyl)
		return hs->full_ns;
	if (d3 < hs->max_cyl) {
		/* sqrt(3d/D) in 16-bit fixed point */
		sq = int_sqrt64(div64_u64(d3 << 32, hs->max_cyl));
		return hs->settle_ns + ((range * sq) >> 17);
	}
	return hs->settle_ns + div64_u64(range * (d3 + hs->max_cyl),
					 4 * hs->max_cyl);
}

/* time the platter takes to pass buffer_kb at lba */
static u64 hs_buffer_ns(struct hddsim *hs, sector_t lba)
{
	u32 spt = hs->zone[hs_zone_of(hs, lba)].spt;

	return div_u64((u64)buffer_kb * 2 * hs->period_ns, spt);
}

/* cost of rq if its service starts at @start */
static void hs_position(struct hddsim *hs, struct request *rq, u64 start,
			struct hs_pos *p)
{
	sector_t lba = blk_rq_pos(rq);
	u64 angle, t, d;

	p->xfer = hs_xfer_ns(hs, lba, blk_rq_sectors(rq));
	p->cyl = hs_cyl(hs, lba + blk_rq_sectors(rq) - 1, NULL);
	p->streamed = false;
	p->seek = 0;
	p->rot = 0;
	if (lba == hs->next_seq &&
	    start - hs->busy_until <= hs_buffer_ns(hs, lba)) {
		/* the stream goes on as if rq had come at busy_until */
		p->streamed = true;
		if (hs->busy_until + p->xfer > start)
			p->xfer = hs->busy_until + p->xfer - start;
		else
			p->xfer = 0;
		return;
	}
	d = hs_cyl(hs, lba, &angle);
	if (lba != hs->next_seq) {
		d = d > hs->head_cyl ? d - hs->head_cyl : hs->head_cyl - d;
		p->seek = hs_seek_ns(hs, d);
	}
	div64_u64_rem(start + p->seek, hs->period_ns, &t);
	p->rot = angle >= t ? angle - t : angle + hs->period_ns - t;
}

/*
 * Take the next request off hs->queued and start its service when the head
 * is free (at @now, or at the end of the previous service if later) but not
 * before it arrived.  Returns its modelled end.  Called with the lock held
 * and hs->queued not empty; @now is 0 when the previous service just ended.
 */
static u64 hs_start_next(struct hddsim *hs, u64 now)
{
	u64 base = max(now, hs->busy_until), start = 0, s;
	struct hs_cmd *cmd, *best = NULL;
	struct hs_pos p, bp;
	struct request *rq;

	cmd = list_first_entry(&hs->queued, struct hs_cmd, list);
	if (list_is_singular(&hs->queued) || base > cmd->arrival + HS_AGE_NS) {
		best = cmd;
		start = max(base, cmd->arrival);
		hs_position(hs, blk_mq_rq_from_pdu(best), start, &bp);
	} else {
		list_for_each_entry(cmd, &hs->queued, list) {
			s = max(base, cmd->arrival);
			hs_position(hs, blk_mq_rq_from_pdu(cmd), s, &p);
			if (!best || s + p.seek + p.rot < start + bp.seek + bp.rot) {
				best = cmd;
				start = s;
				bp = p;
			}
		}
	}
	list_del_init(&best->list);
	rq = blk_mq_rq_from_pdu(best);

	hs->cur = rq;
	hs->busy_until = start + bp.seek + bp.rot + bp.xfer;
	hs->head_cyl = bp.cyl;
	hs->next_seq = blk_rq_pos(rq) + blk_rq_sectors(rq);

	hs->st.requests++;
	if (req_op(rq) == REQ_OP_WRITE)
		hs->st.writes++;
	else
		hs->st.reads++;
	hs->st.sectors += blk_rq_sectors(rq);
	if (bp.seek)
		hs->st.seeks++;
	if (bp.streamed)
		hs->st.streamed++;
	hs->st.seek_ns += bp.seek;
	hs->st.rot_ns += bp.rot;
	hs->st.xfer_ns += bp.xfer;
	hs->st.busy_ns += hs->busy_until - start;
	return hs->busy_until;
}

static enum hrtimer_restart hs_timer_fn(struct hrtimer *timer)
{
	struct hddsim *hs = container_of(timer, struct hddsim, timer);
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	u64 now = ktime_get_ns();
	struct request *done;
	unsigned long flags;

	spin_lock_irqsave(&hs->lock, flags);
	if (now > hs->busy_until)
		hs->st.late_ns += now - hs->busy_until;
	done = hs->cur;
	hs->cur = NULL;
	if (!list_empty(&hs->queued)) {
		hrtimer_set_expires(timer, ns_to_ktime(hs_start_next(hs, 0)));
		ret = HRTIMER_RESTART;
	}
	spin_unlock_irqrestore(&hs->lock, flags);

	if (done)
		blk_mq_end_request(done, BLK_STS_OK);
	return ret;
}

/* the page holding storage page @idx, allocated if @alloc */
static struct page *hs_page(struct hddsim *hs, pgoff_t idx, bool alloc)
{
	struct page *pg = xa_load(&hs->pages, idx), *old;

	if (pg || !alloc)
		return pg;
	pg = alloc_page(GFP_NOIO | __GFP_ZERO);
	if (!pg)
		return NULL;
	old = xa_cmpxchg(&hs->pages, idx, NULL, pg, GFP_NOIO);
	if (old) {
		__free_page(pg);
		if (xa_is_err(old))
			return NULL;
		pg = old;
	}
	return pg;
}

static int hs_copy(struct hddsim *hs, struct request *rq)
{
	bool write = req_op(rq) == REQ_OP_WRITE;
	sector_t sector = blk_rq_pos(rq);
	struct req_iterator iter;
	struct bio_vec bv;

	rq_for_each_segment(bv, rq, iter) {
		unsigned int done = 0;

		while (done < bv.bv_len) {
			pgoff_t idx = sector >> HS_SECT_PER_PAGE_SHIFT;
			unsigned int off = (sector << SECTOR_SHIFT) & ~PAGE_MASK;
			unsigned int len = min_t(unsigned int, bv.bv_len - done,
						 PAGE_SIZE - off);
			struct page *pg = hs_page(hs, idx, write);

			if (write) {
				if (!pg)
					return -ENOMEM;
				memcpy_page(pg, off, bv.bv_page,
					    bv.bv_offset + done, len);
			} else if (pg) {
				memcpy_page(bv.bv_page, bv.bv_offset + done,
					    pg, off, len);
			} else {
				memzero_page(bv.bv_page, bv.bv_offset + done,
					     len);
			}
			done += len;
			sector += len >> SECTOR_SHIFT;
		}
	}
	return 0;
}

static blk_status_t hs_queue_rq(struct blk_mq_hw_ctx *hctx,
				const struct blk_mq_queue_data *bd)
{
	struct hddsim *hs = hctx->queue->queuedata;
	struct request *rq = bd->rq;
	struct hs_cmd *cmd = blk_mq_rq_to_pdu(rq);
	u64 now = ktime_get_ns();
	unsigned long flags;

	switch (req_op(rq)) {
	case REQ_OP_FLUSH:
		blk_mq_start_request(rq);
		spin_lock_irqsave(&hs->lock, flags);
		hs->st.flushes++;
		spin_unlock_irqrestore(&hs->lock, flags);
		blk_mq_end_request(rq, BLK_STS_OK);
		return BLK_STS_OK;
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		break;
	default:
		return BLK_STS_NOTSUPP;
	}

	if (hs_copy(hs, rq))
		return BLK_STS_RESOURCE;
	blk_mq_start_request(rq);

	cmd->arrival = now;
	spin_lock_irqsave(&hs->lock, flags);
	list_add_tail(&cmd->list, &hs->queued);
	if (!hs->cur)
		hrtimer_start(&hs->timer, ns_to_ktime(hs_start_next(hs, now)),
			      HRTIMER_MODE_ABS);
	spin_unlock_irqrestore(&hs->lock, flags);
	return BLK_STS_OK;
}

static const struct blk_mq_ops hs_mq_ops = {
	.queue_rq	= hs_queue_rq,
};

static const struct block_device_operations hs_fops = {
	.owner		= THIS_MODULE,
};

static int hs_stats_show(struct seq_file *m, void *v)
{
	struct hddsim *hs = m->private;
	struct hs_stats st;
	unsigned long flags;
	int z;

	spin_lock_irqsave(&hs->lock, flags);
	st = hs->st;
	spin_unlock_irqrestore(&hs->lock, flags);

	seq_printf(m, "requests %llu\n", st.requests);
	seq_printf(m, "reads %llu\n", st.reads);
	seq_printf(m, "writes %llu\n", st.writes);
	seq_printf(m, "flushes %llu\n", st.flushes);
	seq_printf(m, "sectors %llu\n", st.sectors);
	seq_printf(m, "seeks %llu\n", st.seeks);
	seq_printf(m, "streamed %llu\n", st.streamed);
	seq_printf(m, "seek_time_us %llu\n", div_u64(st.seek_ns, NSEC_PER_USEC));
	seq_printf(m, "rotation_time_us %llu\n", div_u64(st.rot_ns, NSEC_PER_USEC));
	seq_printf(m, "transfer_time_us %llu\n", div_u64(st.xfer_ns, NSEC_PER_USEC));
	seq_printf(m, "busy_time_us %llu\n", div_u64(st.busy_ns, NSEC_PER_USEC));
	seq_printf(m, "timer_late_us %llu\n", div_u64(st.late_ns, NSEC_PER_USEC));
	seq_printf(m, "period_ns %llu\n", hs->period_ns);
	seq_printf(m, "cylinders %llu\n", hs->max_cyl + 1);
	for (z = 0; z < HS_ZONES; z++)
		seq_printf(m, "zone%d start %llu cylinder %llu spt %u\n", z,
			   (u64)hs->zone[z].start, hs->zone[z].cyl0,
			   hs->zone[z].spt);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hs_stats);

static int hs_check_params(void)
{
	if (!capacity_mb || capacity_mb > 1024 * 1024 ||
	    rpm < 1000 || rpm > 30000 ||
	    !rate_inner_mbps || rate_inner_mbps > rate_outer_mbps ||
	    rate_outer_mbps > 10000 ||
	    seek_settle_us > seek_full_us || seek_full_us > 1000000 ||
	    !depth || depth > HS_MAX_DEPTH || buffer_kb > 1024 * 1024) {
		pr_err("bad parameters: capacity_mb=%u rpm=%u seek_settle_us=%u seek_full_us=%u rate_outer_mbps=%u rate_inner_mbps=%u depth=%u buffer_kb=%u\n",
		       capacity_mb, rpm, seek_settle_us, seek_full_us,
		       rate_outer_mbps, rate_inner_mbps, depth, buffer_kb);
		return -EINVAL;
	}
	return 0;
}

/* zones of equal radial width, sectors per track linear from outer to inner */
static void hs_geometry(struct hddsim *hs)
{
	u64 spt_o, spt_i, sum = 0;
	sector_t lba = 0;
	int z;

	hs->capacity = (sector_t)capacity_mb << (20 - SECTOR_SHIFT);
	hs->period_ns = div_u64(60 * NSEC_PER_SEC, rpm);
	hs->settle_ns = (u64)seek_settle_us * NSEC_PER_USEC;
	hs->full_ns = (u64)seek_full_us * NSEC_PER_USEC;
	/* bytes per revolution / 512 */
	spt_o = div_u64((u64)rate_outer_mbps * 1000000 * 60, 512ULL * rpm);
	spt_i = div_u64((u64)rate_inner_mbps * 1000000 * 60, 512ULL * rpm);
	spt_o = max_t(u64, spt_o, 1);
	spt_i = clamp_t(u64, spt_i, 1, spt_o);
	for (z = 0; z < HS_ZONES; z++) {
		hs->zone[z].spt = spt_o - div_u64((spt_o - spt_i) * z, HS_ZONES - 1);
		sum += hs->zone[z].spt;
	}
	hs->cyl_per_zone = div64_u64(hs->capacity + sum - 1, sum);
	for (z = 0; z < HS_ZONES; z++) {
		hs->zone[z].start = lba;
		hs->zone[z].cyl0 = z * hs->cyl_per_zone;
		lba += hs->cyl_per_zone * hs->zone[z].spt;
	}
	hs->max_cyl = hs_cyl(hs, hs->capacity - 1, NULL);
}

static int __init hs_init(void)
{
	struct hddsim *hs;
	struct gendisk *disk;
	int ret;

	ret = hs_check_params();
	if (ret)
		return ret;
	hs = kzalloc(sizeof(*hs), GFP_KERNEL);
	if (!hs)
		return -ENOMEM;
	hs_geometry(hs);
	xa_init(&hs->pages);
	spin_lock_init(&hs->lock);
	INIT_LIST_HEAD(&hs->queued);
	hrtimer_init(&hs->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	hs->timer.function = hs_timer_fn;
	hs->next_seq = (sector_t)-1;

	hs->tag_set.ops = &hs_mq_ops;
	hs->tag_set.nr_hw_queues = 1;
	hs->tag_set.queue_depth = depth;
	hs->tag_set.numa_node = NUMA_NO_NODE;
	hs->tag_set.cmd_size = sizeof(struct hs_cmd);
	/* blocking: queue_rq allocates pages with GFP_NOIO */
	hs->tag_set.flags = BLK_MQ_F_SHOULD_MERGE | BLK_MQ_F_BLOCKING;
	hs->tag_set.driver_data = hs;
	ret = blk_mq_alloc_tag_set(&hs->tag_set);
	if (ret)
		goto out_free;

	disk = blk_mq_alloc_disk(&hs->tag_set, hs);
	if (IS_ERR(disk)) {
		ret = PTR_ERR(disk);
		goto out_tags;
	}
	hs->disk = disk;
	disk->fops = &hs_fops;
	disk->private_data = hs;
	snprintf(disk->disk_name, DISK_NAME_LEN, "hddsim0");
	set_capacity(disk, hs->capacity);
	blk_queue_flag_clear(QUEUE_FLAG_NONROT, disk->queue);
	blk_queue_logical_block_size(disk->queue, SECTOR_SIZE);
	blk_queue_max_hw_sectors(disk->queue, HS_MAX_SECTORS);
	blk_queue_max_segments(disk->queue, HS_MAX_SECTORS >> HS_SECT_PER_PAGE_SHIFT);
	/* flushes come down (and complete at once): data is stored on arrival */
	blk_queue_write_cache(disk->queue, true, false);

	ret = add_disk(disk);
	if (ret)
		goto out_disk;

	hs->debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("stats", 0444, hs->debugfs, hs, &hs_stats_fops);
	hs_dev = hs;
	pr_info("%s: %u MiB, %u rpm, %llu cylinders, %u-%u sectors/track, seek %u-%u us, depth %u\n",
		disk->disk_name, capacity_mb, rpm, hs->max_cyl + 1,
		hs->zone[HS_ZONES - 1].spt, hs->zone[0].spt, seek_settle_us,
		seek_full_us, depth);
	return 0;

out_disk:
	put_disk(disk);
out_tags:
	blk_mq_free_tag_set(&hs->tag_set);
out_free:
	kfree(hs);
	return ret;
}

static void __exit hs_exit(void)
{
	struct hddsim *hs = hs_dev;
	struct page *pg;
	unsigned long idx;

	debugfs_remove_recursive(hs->debugfs);
	del_gendisk(hs->disk);	/* waits for the requests in flight */
	hrtimer_cancel(&hs->timer);
	put_disk(hs->disk);
	blk_mq_free_tag_set(&hs->tag_set);
	xa_for_each(&hs->pages, idx, pg)
		__free_page(pg);
	xa_destroy(&hs->pages);
	kfree(hs);
}

module_init(hs_init);
module_exit(hs_exit);

MODULE_DESCRIPTION("hddsim: a block device timed like a rotating disk (bfq-iosched tests)");
MODULE_LICENSE("GPL");
