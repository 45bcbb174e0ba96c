#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the raw results channel of "make bench" (scripts/guest-bench.sh)
into <out>/<stamp>.json, <out>/<stamp>.md and PNG plots (gnuplot), and
optionally paste the table into a markdown file (docs/benchmarks.md) between the bench markers.

Every figure comes from the .results file of one guest boot; nothing here
is a constant except the targets of the issue and the ideal shares (from
the weights the guest reports).  Only ratios within one boot mean anything.
"""
import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

SCHEDS = ["none", "mq-deadline", "kyber", "distro-bfq", "bfq-iosched"]
OURS, DISTRO, DL = "bfq-iosched", "distro-bfq", "mq-deadline"
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
LL0 = OURS + "-ll0"     # w9: ours with low_latency 0 (latency case only)
DISK_FAIR = ("zones", "ionice", "cg")


def stats(vals):
    vals = [v for v in vals if v is not None and not math.isnan(v)]
    if not vals:
        return None
    return {"n": len(vals), "median": statistics.median(vals),
            "min": min(vals), "max": max(vals), "values": vals}


def parse(path):
    d = {"meta": {}, "cases": {}, "samples": [], "profile": [], "errors": [],
         "seconds": {}, "done": False}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip().replace("\r", "")
            if line.startswith("@@ "):
                line = line[3:]
            parts = line.split()
            if not parts:
                continue
            t = parts[0]
            if t == "M" and len(parts) >= 2:
                d["meta"][parts[1]] = " ".join(parts[2:])
            elif t == "C" and len(parts) >= 3:
                kv = dict(p.split("=", 1) for p in parts[3:] if "=" in p)
                d["cases"][(parts[1], parts[2])] = kv
            elif t == "S" and len(parts) == 7:
                try:
                    v = float(parts[6])
                except ValueError:
                    continue
                d["samples"].append({"wl": parts[1], "case": parts[2], "sched": parts[3],
                                     "rep": int(parts[4]), "metric": parts[5], "value": v})
            elif t == "P" and len(parts) >= 8 and parts[1].isdigit():
                d["profile"].append({"wl": parts[1], "case": parts[2], "sched": parts[3],
                                     "children": parts[4], "self": parts[5],
                                     "dso": parts[6], "symbol": " ".join(parts[7:])})
            elif t == "P" and len(parts) >= 6:
                # before w8 had profiles: "P SCHED ...", workload 1 only
                d["profile"].append({"wl": "1", "case": "j2", "sched": parts[1],
                                     "children": parts[2], "self": parts[3],
                                     "dso": parts[4], "symbol": " ".join(parts[5:])})
            elif t == "E":
                d["errors"].append(" ".join(parts[1:]))
            elif t == "T" and len(parts) == 3:
                d["seconds"][parts[1]] = float(parts[2])
            elif t == "DONE":
                d["done"] = True
    return d


def host_summary(path):
    """Lock mode and what else ran on the host during the guest's run
    (bench.sh samples the load average and the QEMU processes, ours
    included, every 20 s from the start of guest.sh; samples without any
    QEMU process, e.g. while waiting for the lock, are left out)."""
    if not path or not os.path.exists(path):
        return None
    lock, samples = "?", []
    with open(path) as f:
        for line in f:
            p = line.split()
            if p[:1] == ["lock"] and len(p) > 1:
                lock = p[1]
            elif p[:1] == ["sample"] and len(p) == 4:
                samples.append((int(p[1]), float(p[2]), int(p[3])))
    run = [s for s in samples if s[2] >= 1]
    if not run:
        return {"lock": lock}
    return {"lock": lock, "samples": len(run),
            "load_avg_mean": round(statistics.mean(s[1] for s in run), 2),
            "load_avg_max": max(s[1] for s in run),
            "qemu_processes_mean": round(statistics.mean(s[2] for s in run), 2),
            "qemu_processes_max": max(s[2] for s in run)}


def by_rep(samples, wl):
    """{(case, sched): {rep: {metric: value}}}"""
    out = {}
    for s in samples:
        if s["wl"] != wl:
            continue
        out.setdefault((s["case"], s["sched"]), {}).setdefault(s["rep"], {})[s["metric"]] = s["value"]
    return out


def fairness(reps, weights):
    """Per rep and over all reps: worst relative error (%) of the shares
    against weights, Jain's index of share/ideal, total MB/s."""
    n = len(weights)
    ideal = [w / sum(weights) for w in weights]

    def one(kib, dt):
        tot = sum(kib)
        if tot <= 0 or len(kib) != n:
            return None
        sh = [k / tot for k in kib]
        x = [s / i for s, i in zip(sh, ideal)]
        return {"err": 100 * max(abs(s - i) / i for s, i in zip(sh, ideal)),
                "jain": sum(x) ** 2 / (n * sum(v * v for v in x)),
                "mbs": tot / 1024 / dt if dt > 0 else None,
                "shares": sh}
    per = {}
    allk, alldt = [0.0] * n, 0.0
    for r, m in sorted(reps.items()):
        kib = [m.get("kib%d" % (i + 1)) for i in range(n)]
        if None in kib or "dt" not in m:
            continue
        per[r] = one(kib, m["dt"])
        allk = [a + k for a, k in zip(allk, kib)]
        alldt += m["dt"]
    whole = one(allk, alldt) if per else None
    return per, whole


class Report:
    def __init__(self, d, args):
        self.d, self.a = d, args
        self.res = []   # aggregated figures for the JSON
        self.targets = []
        self.md = []

    def add(self, wl, case, sched, metric, vals, unit=""):
        st = stats(vals)
        if st:
            st.update({"workload": int(wl), "case": case, "sched": sched,
                       "metric": metric, "unit": unit})
            self.res.append(st)
        return st

    def get(self, wl, case, sched, metric):
        for r in self.res:
            if (r["workload"], r["case"], r["sched"], r["metric"]) == (wl, case, sched, metric):
                return r
        return None

    def target(self, wl, what, met, detail):
        self.targets.append({"workload": wl, "target": what,
                             "met": met, "detail": detail})

    # ------------------------------------------------------------ compute
    def compute(self):
        s = self.d["samples"]
        # w1
        w1 = by_rep(s, "1")
        for (case, sched), reps in w1.items():
            if case.startswith("j"):
                self.add(1, case, sched, "iops", [m.get("iops") for m in reps.values()], "IOPS")
            else:
                for metric in {k for m in reps.values() for k in m}:
                    self.add(1, case, sched, metric, [m.get(metric) for m in reps.values()])
        # w2, w5 fairness
        for wl in ("2", "5"):
            for (case, sched), reps in by_rep(s, wl).items():
                if wl == "2":
                    fcase, label = case, sched
                else:
                    if case != "ionice-2":
                        continue
                    fcase, label = "fair", sched
                w = self.d["cases"].get((wl, fcase), {}).get("weights")
                if not w:
                    continue
                weights = [float(x) for x in w.split(",")]
                per, whole = fairness(reps, weights)
                key = case if wl == "2" else sched
                who = sched if wl == "2" else OURS
                if wl == "5":
                    key = sched
                per = {r: v for r, v in per.items() if v}
                for metric, unit in (("err", "%"), ("jain", ""), ("mbs", "MB/s")):
                    st = self.add(int(wl), key if wl == "2" else "fair:" + sched, who,
                                  metric, [v[metric] for v in per.values()], unit)
                    if st and whole:
                        st["whole_span"] = whole[metric]
                if wl == "2":
                    self.add(2, case, sched, "start_s", [m.get("start_s") for m in reps.values()], "s")
                for i in range(len(weights)):
                    st = self.add(int(wl), key if wl == "2" else "fair:" + sched, who,
                                  "share%d" % (i + 1), [v["shares"][i] for v in per.values()])
                    if st and whole:
                        st["whole_span"] = whole["shares"][i]
                        st["ideal"] = weights[i] / sum(weights)
        # w3
        for (case, sched), reps in by_rep(s, "3").items():
            for metric, scale, name, unit in (("p50_us", 1e-3, "p50", "ms"), ("p99_us", 1e-3, "p99", "ms"),
                                              ("p999_us", 1e-3, "p99.9", "ms"), ("max_us", 1e-3, "max", "ms"),
                                              ("rnd_iops", 1, "rnd_iops", "IOPS"), ("rnd_ios", 1, "rnd_ios", ""),
                                              ("seq_kibs", 1 / 1024, "seq_mbs", "MB/s"),
                                              ("wr_kibs", 1 / 1024, "wr_mbs", "MB/s")):
                vals = [m[metric] * scale for m in reps.values() if metric in m]
                self.add(3, case, sched, name, vals, unit)
        # w4, w5 throughput
        for wl in ("4", "5"):
            for (case, sched), reps in by_rep(s, wl).items():
                if case != "vda-mix":
                    continue
                who = sched if wl == "4" else OURS
                key = case if wl == "4" else "tput:" + sched
                ok = [m for m in reps.values() if {"dt", "seq_kib", "rnd_kib"} <= m.keys() and m["dt"] > 0]
                self.add(int(wl), key, who, "seq_mbs", [m["seq_kib"] / 1024 / m["dt"] for m in ok], "MB/s")
                self.add(int(wl), key, who, "rnd_mbs", [m["rnd_kib"] / 1024 / m["dt"] for m in ok], "MB/s")
                self.add(int(wl), key, who, "total_mbs",
                         [(m["seq_kib"] + m["rnd_kib"]) / 1024 / m["dt"] for m in ok], "MB/s")
        # w7: the chain's wall time idle and under load, and their ratio
        # (a chain cut short is scaled to the whole chain from the reads done)
        for (case, sched), reps in by_rep(s, "7").items():
            ios = float(self.d["cases"].get(("7", case), {}).get("ios", 0) or 0)
            for m in reps.values():
                for k in ("idle", "load"):
                    if k + "_ms" in m and m.get(k + "_reads") and ios:
                        m[k + "_cut"] = m[k + "_reads"] < ios
                        m[k + "_ms"] *= ios / m[k + "_reads"]
            for metric in ("idle_ms", "load_ms", "bg_read_mbs"):
                self.add(7, case, sched, metric, [m[metric] for m in reps.values() if metric in m],
                         "MB/s" if metric == "bg_read_mbs" else "ms")
            cut = sum(1 for m in reps.values() for k in ("idle_cut", "load_cut") if m.get(k))
            if cut:
                self.add(7, case, sched, "cut", [cut], "")
            idle = self.get(7, case, sched, "idle_ms")
            if idle and idle["median"] > 0:
                self.add(7, case, sched, "slowdown",
                         [m["load_ms"] / idle["median"] for m in reps.values() if "load_ms" in m], "x")
        # w8
        for (case, sched), reps in by_rep(s, "8").items():
            for metric, unit in (("iops", "IOPS"), ("us_per_req", "us"), ("iops_under_perf", "IOPS")):
                self.add(8, case, sched, metric, [m[metric] for m in reps.values() if metric in m], unit)
        self.compute_disk(s)
        # w6
        for (case, sched), reps in by_rep(s, "6").items():
            for metric in ("object_size", "slab_size", "objsize", "objects_added"):
                self.add(6, case, sched, metric, [m.get(metric) for m in reps.values()],
                         "" if metric == "objects_added" else "B")

    def compute_disk(self, s):
        """Workload 9 (hddsim): MB/s of N sequential readers and the ratio
        to one reader's, shares of two readers, what a seeky reader costs,
        latency, and hddsim's own seeks per second and busy share."""
        for (case, sched), reps in by_rep(s, "9").items():
            base = case.split("@", 1)[0]
            ok = [m for m in reps.values() if m.get("dt", 0) > 0]
            one = reps.get(1, {})
            if one.get("hs_dt"):
                self.add(9, case, sched, "seeks_per_s", [one["hs_seeks"] / one["hs_dt"]], "/s")
                self.add(9, case, sched, "reqs_per_s", [one["hs_requests"] / one["hs_dt"]], "/s")
                self.add(9, case, sched, "busy_pct", [one["hs_busy_us"] / 1e4 / one["hs_dt"]], "%")
            if base[:1] in ("d", "b") and base[1:].isdigit():
                self.add(9, case, sched, "mbs", [m["kib"] / 1024 / m["dt"] for m in ok if "kib" in m], "MB/s")
                if base[0] == "b":
                    # what the buffered readers' read calls got from memory, not the disk
                    self.add(9, case, sched, "cache_pct", [100 * max(0.0, 1 - m["kib"] / m["rchar_kib"])
                                                           for m in ok if m.get("rchar_kib")], "%")
            elif base in DISK_FAIR:
                w = self.d["cases"].get(("9", base), {}).get("weights")
                if not w:
                    continue
                weights = [float(x) for x in w.split(",")]
                per, whole = fairness(reps, weights)
                per = {r: v for r, v in per.items() if v}
                for metric, unit in (("err", "%"), ("jain", ""), ("mbs", "MB/s")):
                    st = self.add(9, case, sched, metric, [v[metric] for v in per.values()], unit)
                    if st and whole:
                        st["whole_span"] = whole[metric]
                # bytes of the first reader over the second's (outer/inner,
                # be/0 over be/7, weight 100 over 400)
                st = self.add(9, case, sched, "ratio", [v["shares"][0] / v["shares"][1] for v in per.values()
                                                        if v["shares"][1] > 0], "")
                if st and whole and whole["shares"][1] > 0:
                    st["whole_span"] = whole["shares"][0] / whole["shares"][1]
                    st["ideal"] = weights[0] / weights[1]
            elif base == "seeky":
                ok = [m for m in ok if "seq_kib" in m and "rnd_kib" in m]
                self.add(9, case, sched, "seq_mbs", [m["seq_kib"] / 1024 / m["dt"] for m in ok], "MB/s")
                self.add(9, case, sched, "rnd_iops", [m["rnd_kib"] / 4 / m["dt"] for m in ok], "IOPS")
                self.add(9, case, sched, "total_mbs", [(m["seq_kib"] + m["rnd_kib"]) / 1024 / m["dt"] for m in ok],
                         "MB/s")
            elif base == "lat":
                for metric, scale, name, unit in (("p50_us", 1e-3, "p50", "ms"), ("p99_us", 1e-3, "p99", "ms"),
                                                  ("p999_us", 1e-3, "p99.9", "ms"), ("max_us", 1e-3, "max", "ms"),
                                                  ("rnd_ios", 1, "rnd_ios", ""),
                                                  ("seq_kibs", 1 / 1024, "seq_mbs", "MB/s")):
                    self.add(9, case, sched, name, [m[metric] * scale for m in reps.values() if metric in m], unit)
        # against one reader of the same kind and scheduler (a knob's case
        # against ours at its defaults), and the total beside the seeky
        # reader against the same two readers alone (d2)
        for r in [x for x in self.res if x["workload"] == 9]:
            base = r["case"].split("@", 1)[0]
            if r["metric"] == "mbs" and base[:1] in ("d", "b") and base[1:].isdigit():
                one = (self.get(9, base[0] + "1", r["sched"], "mbs") or {}).get("median")
                if one:
                    self.add(9, r["case"], r["sched"], "ratio1", [v / one for v in r["values"]], "x")
                # against the disk's own single-stream rate: one reader
                # under none (a scheduler may slow even one reader down)
                one = (self.get(9, base[0] + "1", "none", "mbs") or {}).get("median")
                if one:
                    self.add(9, r["case"], r["sched"], "ratio_none1", [v / one for v in r["values"]], "x")
            elif r["metric"] == "total_mbs" and base == "seeky":
                d2 = (self.get(9, "d2", r["sched"], "mbs") or {}).get("median")
                if d2:
                    self.add(9, r["case"], r["sched"], "vs_d2", [v / d2 for v in r["values"]], "x")

    # ------------------------------------------------------------ targets
    def judge(self):
        med = lambda *k: (self.get(*k) or {}).get("median")
        self.iops_targets(1, ("j1", "j2", "j4"), 0.8)
        for c in ("ionice-2", "ionice-4", "ionice-8", "cg-2", "cg-4"):
            r = self.get(2, c, OURS, "err")
            if r:
                self.target(2, "worst share error <= 3 %% (%s)" % c, r["whole_span"] <= 3.0,
                            "%.1f %% over the whole run, %.1f %% median of windows" % (r["whole_span"], r["median"]))
        for dev in ("vda", "nullb0"):
            o, di, dl = med(3, dev, OURS, "p99"), med(3, dev, DISTRO, "p99"), med(3, dev, DL, "p99")
            if o is not None and di is not None:
                self.target(3, "p99 <= distro bfq (%s)" % dev, o <= di, "%.1f vs %.1f ms" % (o, di))
            if o is not None and dl is not None:
                self.target(3, "p99 <= mq-deadline (%s)" % dev, o <= dl, "%.1f vs %.1f ms" % (o, dl))
        o, dl = med(4, "vda-mix", OURS, "total_mbs"), med(4, "vda-mix", DL, "total_mbs")
        if o and dl:
            self.target(4, "throughput >= 0.95x mq-deadline", o >= 0.95 * dl, "%.2fx" % (o / dl))
        o, di = med(3, "vda", OURS, "wr_mbs"), med(3, "vda", DISTRO, "wr_mbs")
        if o is not None and di:
            self.target(3, "writer MB/s >= 0.8x distro bfq (vda)", o >= 0.8 * di, "%.2fx" % (o / di))
        for dev in ("nullb0", "vda"):
            o = med(7, dev, OURS, "slowdown")
            if o is not None:
                self.target(7, "start-up under load <= 2x idle (%s)" % dev, o <= 2, "%.2fx" % o)
            o = med(7, dev, OURS, "load_ms")
            for other, name in ((DISTRO, "distro bfq"), (DL, "mq-deadline")):
                t = med(7, dev, other, "load_ms")
                if o is not None and t:
                    self.target(7, "start-up under load <= 0.5x %s (%s)" % (name, dev), o <= 0.5 * t,
                                "%.0f vs %.0f ms (%.2fx)" % (o, t, o / t))
        self.iops_targets(8, ("p2", "p32", "p256"), 0.9)
        for lo, hi in (("p2", "p256"), ("c1", "c128")):
            a, b = med(8, lo, OURS, "us_per_req"), med(8, hi, OURS, "us_per_req")
            if a and b:
                self.target(8, "µs/req at %s <= 1/0.9 of %s (flat in N)" % (hi, lo), b <= a / 0.9,
                            "%.1f vs %.1f µs (%.2fx)" % (b, a, b / a))
        for kind, label in (("d", "direct"), ("b", "buffered")):
            r = self.get(9, kind + "4", OURS, "ratio1")
            if r:
                self.target(9, "4 readers >= 0.85x one reader's MB/s (%s)" % label, r["median"] >= 0.85,
                            "%.2fx" % r["median"])
            r = self.get(9, kind + "4", OURS, "ratio_none1")
            if r:
                self.target(9, "4 readers >= 0.85x one reader's MB/s under none (%s)" % label, r["median"] >= 0.85,
                            "%.2fx" % r["median"])
            o, dl = med(9, kind + "4", OURS, "mbs"), med(9, kind + "4", DL, "mbs")
            if o is not None and dl:
                self.target(9, "4 readers >= 1.5x mq-deadline's MB/s (%s)" % label, o >= 1.5 * dl,
                            "%.1f vs %.1f MB/s, %.2fx" % (o, dl, o / dl))
        for c, what in (("zones", "outer/inner equal-weight readers: equal bytes within 3 %"),
                        ("ionice", "be/0 vs be/7 shares within 3 %"),
                        ("cg", "cgroups 100:400 shares within 3 %")):
            r, q = self.get(9, c, OURS, "err"), self.get(9, c, OURS, "ratio")
            if r and "whole_span" in r:
                self.target(9, what, r["whole_span"] <= 3.0,
                            "%.1f %% over the whole run, %.1f %% median of windows; bytes %.2f:1, ideal %.2f:1"
                            % (r["whole_span"], r["median"], q["whole_span"] if q and "whole_span" in q else float("nan"),
                               q["ideal"] if q and "ideal" in q else float("nan")))
        bo, bd = self.mem_bytes(OURS), self.mem_bytes(DISTRO)
        if bo and bd:
            self.target(6, "bytes per process per device <= half the distro's", bo <= bd / 2,
                        "%d vs %d B (%.0f %%)" % (bo, bd, 100 * bo / bd))

    def iops_targets(self, wl, cases, dl_part):
        """IOPS >= 1.5x the distro bfq and >= dl_part x mq-deadline (w1, w8)."""
        for c in cases:
            o, di, dl = (self.get(wl, c, s, "iops") for s in (OURS, DISTRO, DL))
            o, di, dl = (x["median"] if x else None for x in (o, di, dl))
            if o and di:
                self.target(wl, "IOPS >= 1.5x distro bfq (%s)" % c, o >= 1.5 * di, "%.2fx" % (o / di))
            if o and dl:
                self.target(wl, "IOPS >= %gx mq-deadline (%s)" % (dl_part, c), o >= dl_part * dl,
                            "%.2fx" % (o / dl))

    def mem_bytes(self, sched):
        q, c = self.get(6, "bfq_queue", sched, "objsize"), self.get(6, "bfq_io_cq", sched, "objsize")
        return q["median"] + c["median"] if q and c else None

    # ------------------------------------------------------------ markdown
    def cell(self, wl, case, sched, metric, fmt="%.0f", scale=1.0):
        r = self.get(wl, case, sched, metric)
        if not r:
            return "–"
        m, lo, hi = (r["median"] * scale, r["min"] * scale, r["max"] * scale)
        if r["n"] == 1 or lo == hi:
            return fmt % m
        return (fmt + " <sub>" + fmt + "–" + fmt + "</sub>") % (m, lo, hi)

    def markdown(self):
        d, L = self.d, []
        m = d["meta"]
        secs = self.a.host_seconds
        L.append("Run `%s`: kernel %s, %s vCPUs (TCG), %s MiB, clocksource %s, %s, %s repetitions%s. "
                 "Guest time per workload: %s s; whole `make bench`: %s s (%.1f min)."
                 % (self.a.stamp, m.get("kernel", "?"), m.get("cpus", "?"),
                    int(m.get("mem_kib", "0") or 0) // 1024, m.get("clocksource", "?"),
                    m.get("fio", "fio ?"), m.get("reps", "?"),
                    " — **QUICK smoke run, figures meaningless**" if m.get("quick") == "1" else "",
                    ", ".join("w%s %.0f" % (k, v) for k, v in sorted(d["seconds"].items())),
                    secs, secs / 60))
        h = d.get("host")
        if h and "samples" in h:
            L.append("")
            L.append("Host during the run: lock `GUEST_LOCK=%s`; QEMU guests running (ours included) %.1f on "
                     "average, %d at most; load average %.1f on average, %.1f at most (2 cores)%s."
                     % (h["lock"], h["qemu_processes_mean"], h["qemu_processes_max"], h["load_avg_mean"],
                        h["load_avg_max"],
                        " — **the host was shared: the figures are noisier than on an idle host**"
                        if h["qemu_processes_max"] > 1 else ""))
        L.append("")
        L.append("Cells are median <sub>min–max</sub> over the repetitions. "
                 "Only ratios within this one boot mean anything: absolute figures under TCG do not.")
        if d["errors"]:
            L.append("")
            L.append("Could not measure: " + "; ".join("`%s`" % e for e in d["errors"]))
        if not d["done"] or self.a.guest_rc != 0:
            L.append("")
            L.append("**The guest did not finish cleanly (rc %s): the figures are partial.**" % self.a.guest_rc)
        hdr = "| | " + " | ".join(SCHEDS) + " |"
        sep = "|---" * (len(SCHEDS) + 1) + "|"

        # w1
        if any(r["workload"] == 1 for r in self.res):
            L += ["", "**1. CPU cost** — IOPS, 4 KiB random reads, io_uring QD32, null_blk irqmode=0 "
                  "(µs/req: guest CPU time per request, min(jobs, 2 vCPUs) / IOPS; +µs: more than `none`)", "",
                  hdr, sep]
            for j in ("j1", "j2", "j4"):
                L.append("| %s jobs IOPS | " % j[1:] + " | ".join(self.cell(1, j, s, "iops") for s in SCHEDS) + " |")
            for j in ("j1", "j2", "j4"):
                cpus = min(int(j[1:]), int(m.get("cpus", "2") or 2))
                base = (self.get(1, j, "none", "iops") or {}).get("median")
                cells = []
                for s in SCHEDS:
                    r = self.get(1, j, s, "iops")
                    if not r:
                        cells.append("–")
                        continue
                    us = cpus * 1e6 / r["median"]
                    extra = "" if not base or s == "none" else " (+%.0f)" % (us - cpus * 1e6 / base)
                    cells.append("%.0f%s" % (us, extra))
                L.append("| %s jobs µs/req | " % j[1:] + " | ".join(cells) + " |")
            L.append("")
            ratios = []
            for j in ("j1", "j2", "j4"):
                o = (self.get(1, j, OURS, "iops") or {}).get("median")
                di = (self.get(1, j, DISTRO, "iops") or {}).get("median")
                dl = (self.get(1, j, DL, "iops") or {}).get("median")
                if o and di and dl:
                    ratios.append("%s jobs: %.2f× distro bfq, %.2f× mq-deadline" % (j[1:], o / di, o / dl))
            if ratios:
                L.append("Ours: " + "; ".join(ratios) + ".")
            prof = self.profile_md()
            if prof:
                L += [""] + prof
        # w2
        if any(r["workload"] == 2 for r in self.res):
            cases = ["ionice-2", "ionice-4", "ionice-8", "cg-2", "cg-4"]
            L += ["", "**2. Weighted fairness** — depth-1 null_blk, 2 ms per request, nr_requests 128; "
                  "64 KiB sequential readers (libaio QD4). Worst relative error of a share against its ideal, %: "
                  "**whole run** / median of the windows <sub>min–max</sub>; then Jain's index over share/ideal "
                  "(whole run).", "", hdr, sep]
            for c in cases:
                w = self.d["cases"].get(("2", c), {}).get("weights", "?")
                cells = []
                for s in SCHEDS:
                    r = self.get(2, c, s, "err")
                    cells.append("–" if not r else "**%.1f** / %s" % (r["whole_span"], self.cell(2, c, s, "err", "%.1f")))
                L.append("| %s (weights %s) | " % (c, w.replace(",", ":")) + " | ".join(cells) + " |")
            for c in cases:
                cells = []
                for s in SCHEDS:
                    r = self.get(2, c, s, "jain")
                    cells.append("–" if not r else "%.3f" % r["whole_span"])
                L.append("| %s Jain | " % c + " | ".join(cells) + " |")
            for c in ("ionice-2", "ionice-8", "cg-4"):
                L.append("| %s total MB/s | " % c + " | ".join(self.cell(2, c, s, "mbs", "%.1f") for s in SCHEDS) + " |")
            cells = []
            for s in SCHEDS:
                v = [self.get(2, c, s, "start_s") for c in cases]
                cells.append("/".join("–" if not x else "%.1f" % x["median"] for x in v))
            L.append("| s until every reader read (%s) | " % "/".join(cases) + " | ".join(cells) + " |")
        # w3
        if any(r["workload"] == 3 for r in self.res):
            L += ["", "**3. Latency under load** — 4 KiB O_DIRECT psync random reader beside a buffered "
                  "sequential writer and a 128 KiB O_DIRECT sequential reader; completion latency in ms "
                  "(`n` = random reads completed, so p99.9 of a few hundred samples is close to the maximum).", "",
                  hdr, sep]
            for dev in ("vda", "nullb0"):
                for metric, fmt in (("p50", "%.2f"), ("p99", "%.1f"), ("p99.9", "%.1f"), ("rnd_ios", "%.0f"),
                                    ("seq_mbs", "%.1f"), ("wr_mbs", "%.1f")):
                    label = {"rnd_ios": "n", "seq_mbs": "seq reader MB/s", "wr_mbs": "writer MB/s"}.get(metric, metric + " ms")
                    L.append("| %s %s | " % (dev, label) + " | ".join(self.cell(3, dev, s, metric, fmt) for s in SCHEDS) + " |")
        # w4
        if any(r["workload"] == 4 for r in self.res):
            L += ["", "**4. Aggregate throughput** — vda, 4 sequential 64 KiB + 4 random 4 KiB O_DIRECT psync "
                  "readers at once, MB/s.", "", hdr, sep]
            for metric, label in (("total_mbs", "total"), ("seq_mbs", "sequential"), ("rnd_mbs", "random")):
                L.append("| %s | " % label + " | ".join(self.cell(4, "vda-mix", s, metric, "%.1f") for s in SCHEDS) + " |")
        # w5
        w5 = sorted({r["case"].split(":", 1)[1] for r in self.res if r["workload"] == 5},
                    key=lambda c: ["mb=auto,ts=125", "mb=1024,ts=125", "mb=8192,ts=125",
                                   "mb=65536,ts=125", "mb=auto,ts=20", "mb=auto,ts=500"].index(c)
                    if c in ["mb=auto,ts=125", "mb=1024,ts=125", "mb=8192,ts=125",
                             "mb=65536,ts=125", "mb=auto,ts=20", "mb=auto,ts=500"] else 99)
        if w5:
            L += ["", "**5. Our knobs** — `max_budget` (sectors; auto = 0) and `timeout_sync` (ms): ionice 0 vs 7 "
                  "on the slow null_blk (worst share error %, whole run / windows; ratio, ideal 8) and workload 4 "
                  "on vda (MB/s).", "",
                  "| max_budget, timeout_sync | 0 vs 7 error % | 0:7 ratio | null_blk MB/s | vda mix MB/s |",
                  "|---|---|---|---|---|"]
            for c in w5:
                r = self.get(5, "fair:" + c, OURS, "err")
                s1 = self.get(5, "fair:" + c, OURS, "share1")
                err = "–" if not r else "**%.1f** / %s" % (r["whole_span"], self.cell(5, "fair:" + c, OURS, "err", "%.1f"))
                ratio = "–" if not s1 else "%.2f" % (s1["whole_span"] / (1 - s1["whole_span"]))
                L.append("| %s | %s | %s | %s | %s |" % (
                    c.replace("mb=", "").replace(",ts=", ", ") + " ms", err, ratio,
                    self.cell(5, "fair:" + c, OURS, "mbs", "%.1f"),
                    self.cell(5, "tput:" + c, OURS, "total_mbs", "%.1f")))
        # w6
        if any(r["workload"] == 6 for r in self.res):
            procs = self.d["cases"].get(("6", "nullb0"), {}).get("procs", "?")
            L += ["", "**6. Memory** — slab caches with `slab_nomerge`, %s processes reading one null_blk: "
                  "bytes per slab object (`/proc/slabinfo` objsize; struct size in brackets), objects the "
                  "processes added, bytes per process per device (queue + icq)." % procs, "",
                  "| | distro-bfq | bfq-iosched |", "|---|---|---|"]
            for c in ("bfq_queue", "bfq_io_cq"):
                cells = []
                for s in (DISTRO, OURS):
                    a, b = self.get(6, c, s, "objsize"), self.get(6, c, s, "object_size")
                    cells.append("–" if not a else "%d (%s)" % (a["median"], "%d" % b["median"] if b else "?"))
                L.append("| %s B | " % c + " | ".join(cells) + " |")
            for c in ("bfq_queue", "bfq_io_cq"):
                L.append("| %s objects added | " % c + " | ".join(self.cell(6, c, s, "objects_added") for s in (DISTRO, OURS)) + " |")
            bo, bd = self.mem_bytes(OURS), self.mem_bytes(DISTRO)
            L.append("| bytes / process / device | %s | %s |" % ("%d" % bd if bd else "–", "%d" % bo if bo else "–"))
        # w7
        if any(r["workload"] == 7 for r in self.res):
            ios = self.d["cases"].get(("7", "nullb0"), self.d["cases"].get(("7", "vda"), {})).get("ios", "?")
            L += ["", "**7. Start-up under load** — wall time of a new process reading a chain of %s dependent "
                  "4 KiB O_DIRECT random blocks, on the idle device and beside two 128 KiB sequential readers "
                  "and a buffered writer; slowdown = loaded / idle median of the same scheduler; the "
                  "background's read MB/s while the chains ran. A chain is cut after %s s and its time "
                  "scaled to the whole chain from the reads done (\"n cut\": how many were)."
                  % (ios, self.d["cases"].get(("7", "nullb0"), {}).get("max_s", "?")), "", hdr, sep]
            for dev in ("nullb0", "vda"):
                for metric, fmt, label in (("idle_ms", "%.0f", "idle ms"), ("load_ms", "%.0f", "loaded ms"),
                                           ("slowdown", "%.1f", "slowdown ×"),
                                           ("bg_read_mbs", "%.1f", "background read MB/s")):
                    cells = []
                    for s in SCHEDS:
                        c = self.cell(7, dev, s, metric, fmt)
                        cut = self.get(7, dev, s, "cut")
                        if cut and metric in ("load_ms", "idle_ms"):
                            c += " (%d cut)" % cut["median"]
                        cells.append(c)
                    L.append("| %s %s | " % (dev, label) + " | ".join(cells) + " |")
        # w8
        if any(r["workload"] == 8 for r in self.res):
            L += ["", "**8. Cost as readers and cgroups grow** — 4 KiB O_DIRECT random reads, psync (one "
                  "request in flight per reader), null_blk irqmode=0, nr_requests 256; pN: N threads of one "
                  "fio, cN: N processes, one per cgroup. IOPS from /proc/diskstats; µs/req: the guest's busy "
                  "CPU time (/proc/stat) per completed read.", "", hdr, sep]
            for c in ("p2", "p32", "p256", "c1", "c16", "c128"):
                L.append("| %s IOPS | " % c + " | ".join(self.cell(8, c, s, "iops") for s in SCHEDS) + " |")
            for c in ("p2", "p32", "p256", "c1", "c16", "c128"):
                L.append("| %s µs/req | " % c + " | ".join(self.cell(8, c, s, "us_per_req", "%.1f") for s in SCHEDS) + " |")
            prof = self.scale_profile_md()
            if prof:
                L += [""] + prof
        # w9
        if any(r["workload"] == 9 for r in self.res):
            L += [""] + self.disk_md(hdr, sep)
        # targets
        if self.targets:
            L += ["", "**Targets** (issues 6, 12, 14 and 15):", ""]
            for t in self.targets:
                L.append("- w%d %s: **%s** (%s)" % (t["workload"], t["target"], "met" if t["met"] else "missed", t["detail"]))
        return L

    def disk_md(self, hdr, sep):
        """Workload 9's tables: the claims on hddsim."""
        hs = self.d["meta"].get("hddsim", "?")
        L = ["**9. A disk that seeks** — hddsim at its defaults (`%s`), one request at a time; nr_requests 128 "
             "(`none` keeps the device's 1), every scheduler at its defaults. Sequential readers: 1 MiB O_DIRECT "
             "(psync) or 128 KiB buffered reads, reader i on its own 128 MiB at i × 128 MiB (the outer GiB). "
             "MB/s from the readers' `read_bytes`; seeks/s and busy %% are hddsim's own counters over the "
             "windows." % hs.strip(), "", hdr, sep]
        ns = sorted({int(r["case"][1:]) for r in self.res if r["workload"] == 9 and r["case"][:1] in "db"
                     and r["case"][1:].isdigit()})
        for kind, label in (("d", "direct"), ("b", "buffered")):
            cases = [kind + str(n) for n in ns if any(self.get(9, kind + str(n), s, "mbs") for s in SCHEDS)]
            for c in cases:
                L.append("| %s, %s reader(s) MB/s | " % (label, c[1:]) + " | ".join(self.cell(9, c, s, "mbs", "%.1f")
                                                                        for s in SCHEDS) + " |")
            for c in cases[1:]:
                L.append("| %s, %s readers / 1 reader | " % (label, c[1:])
                         + " | ".join(self.cell(9, c, s, "ratio1", "%.2f") for s in SCHEDS) + " |")
            for c in cases[1:]:
                L.append("| %s, %s readers / 1 reader under none | " % (label, c[1:])
                         + " | ".join(self.cell(9, c, s, "ratio_none1", "%.2f") for s in SCHEDS) + " |")
            for c in cases:
                L.append("| %s, %s reader(s): seeks/s of requests/s, disk busy %% | " % (label, c[1:]) + " | ".join(
                    "–" if not self.get(9, c, s, "seeks_per_s") else "%.0f/%.0f, %.0f" % (
                        self.get(9, c, s, "seeks_per_s")["median"],
                        (self.get(9, c, s, "reqs_per_s") or {"median": float("nan")})["median"],
                        (self.get(9, c, s, "busy_pct") or {"median": float("nan")})["median"]) for s in SCHEDS) + " |")
            if kind == "b" and cases:
                L.append("| buffered: read from the page cache %, worst window | " + " | ".join(
                    "–" if not any(self.get(9, c, s, "cache_pct") for c in cases) else "%.1f" % max(
                        self.get(9, c, s, "cache_pct")["max"] for c in cases if self.get(9, c, s, "cache_pct"))
                    for s in SCHEDS) + " |")
        L += ["", "Two readers at once (O_DIRECT 1 MiB): **worst relative error of a share, whole run** / median of "
              "the windows, %%; bytes of the first reader over the second's over the whole run (ideal in brackets). "
              "zones: equal weights, one reader at the start of the disk (outer zone), one in its last 128 MiB "
              "(inner, %s MB/s in the model); ionice: be/0 and be/7, readers 0 and 1; cg: cgroups with "
              "io.bfq.weight 100 and 400." % self.d["cases"].get(("9", "zones"), {}).get("model_mbps", "?").replace(",", " vs "),
              "", hdr, sep]
        for c in DISK_FAIR:
            cells, rows = [], []
            for s in SCHEDS:
                r, q = self.get(9, c, s, "err"), self.get(9, c, s, "ratio")
                cells.append("–" if not r else "**%.1f** / %s" % (r["whole_span"], self.cell(9, c, s, "err", "%.1f")))
                rows.append("–" if not q or "whole_span" not in q else "%.2f" % q["whole_span"])
            ideal = next(((self.get(9, c, s, "ratio") or {}).get("ideal") for s in SCHEDS
                          if (self.get(9, c, s, "ratio") or {}).get("ideal")), None)
            L.append("| %s error %% | " % c + " | ".join(cells) + " |")
            L.append("| %s bytes 1st:2nd (ideal %s) | " % (c, "?" if ideal is None else "%.2f" % ideal)
                     + " | ".join(rows) + " |")
            L.append("| %s total MB/s | " % c + " | ".join(self.cell(9, c, s, "mbs", "%.1f") for s in SCHEDS) + " |")
        if any(self.get(9, "seeky", s, "total_mbs") for s in SCHEDS):
            L += ["", "A seeky reader beside two sequential ones: readers 0 and 1 of the 2-reader case and a 4 KiB "
                  "O_DIRECT psync random reader over the whole disk; total against the same two readers alone.",
                  "", hdr, sep]
            for metric, fmt, label in (("seq_mbs", "%.1f", "two sequential MB/s"), ("rnd_iops", "%.1f", "random IOPS"),
                                       ("total_mbs", "%.1f", "total MB/s"), ("vs_d2", "%.2f", "total / two alone"),
                                       ("seeks_per_s", "%.0f", "seeks/s")):
                L.append("| %s | " % label + " | ".join(self.cell(9, "seeky", s, metric, fmt) for s in SCHEDS) + " |")
        lat = SCHEDS + [LL0]
        if any(self.get(9, "lat", s, "p99") for s in lat):
            L += ["", "Latency of a 4 KiB O_DIRECT random reader (one request at a time, over the whole disk) beside "
                  "the two sequential readers; completion latency, ms; n = random reads done in the run; "
                  "%s = ours with low_latency 0." % LL0, "",
                  "| | " + " | ".join(lat) + " |", "|---" * (len(lat) + 1) + "|"]
            for metric, fmt, label in (("p50", "%.1f", "p50 ms"), ("p99", "%.1f", "p99 ms"), ("max", "%.1f", "max ms"),
                                       ("rnd_ios", "%.0f", "n"), ("seq_mbs", "%.1f", "two sequential MB/s")):
                L.append("| %s | " % label + " | ".join(self.cell(9, "lat", s, metric, fmt) for s in lat) + " |")
        knobs = []
        for r in self.res:
            if r["workload"] == 9 and "@" in r["case"] and r["case"].split("@", 1)[1] not in knobs:
                knobs.append(r["case"].split("@", 1)[1])
        if knobs:
            L += ["", "Our knobs on the disk, one at a time (the rest at defaults; the first row is the runs above): "
                  "4 sequential readers (direct) MB/s and / 1 reader at defaults; the zones case (error %, whole run "
                  "/ windows; outer:inner bytes).", "",
                  "| knob | 4 readers MB/s | / 1 reader | zones error % | outer:inner |", "|---|---|---|---|---|"]
            for k in ["defaults"] + knobs:
                sfx = "" if k == "defaults" else "@" + k
                r, q = self.get(9, "zones" + sfx, OURS, "err"), self.get(9, "zones" + sfx, OURS, "ratio")
                L.append("| %s | %s | %s | %s | %s |" % (
                    k, self.cell(9, "d4" + sfx, OURS, "mbs", "%.1f"), self.cell(9, "d4" + sfx, OURS, "ratio1", "%.2f"),
                    "–" if not r else "**%.1f** / %s" % (r["whole_span"], self.cell(9, "zones" + sfx, OURS, "err", "%.1f")),
                    "–" if not q or "whole_span" not in q else "%.2f" % q["whole_span"]))
        return L

    HOOKS = ("bio_merge", "prepare_request", "insert_requests", "dispatch_request", "has_work",
             "finish_request", "limit_depth")

    def profile_line(self, wl, case, s, pcase):
        """One scheduler's profile of one case: idle share, the elevator
        hooks' inclusive shares (they do not nest in one another) and what
        they add up to per request: share x vCPUs x time / requests in
        that time."""
        cpus = int(self.d["meta"].get("cpus", "2") or 2)
        rows = [x for x in self.d["profile"] if (x["wl"], x["case"], x["sched"]) == (str(wl), case, s)
                and x["children"] != "total"]
        if not rows:
            return None
        pre = "dd_" if s == "mq-deadline" else "bfq_"
        hooks = [x for x in rows if x["symbol"] in [pre + h for h in self.HOOKS]]
        idle = [x for x in rows if x["symbol"] == "do_idle"]
        unlock = [x for x in rows if x["symbol"] in ("_raw_spin_unlock_irq", "_raw_spin_unlock_irqrestore",
                                                     "native_queued_spin_lock_slowpath")]
        hpet = [x for x in rows if x["symbol"] == "read_hpet"]
        iops = (self.get(wl, pcase, s, "iops_under_perf") or {}).get("median")
        tot = sum(float(x["children"]) for x in hooks)
        line = "%s: idle %s %%" % (s, idle[0]["children"] if idle else "< 0.3")
        if hooks:
            line += "; hooks %.1f %% (%s)" % (tot, ", ".join("%s %s" % (x["symbol"], x["children"]) for x in
                                                          sorted(hooks, key=lambda x: -float(x["children"]))))
            if iops:
                line += " = %.0f µs/req at %.0f IOPS" % (tot / 100 * cpus * 1e6 / iops, iops)
        if unlock:
            line += "; irq-enabling unlocks (self, where interrupts held off land) " + ", ".join(
                "%s %s" % (x["symbol"], x["self"]) for x in unlock)
        if hpet:
            line += "; read_hpet %s" % hpet[0]["self"]
        summary = {"idle_pct": float(idle[0]["children"]) if idle else None, "hooks_pct": tot, "iops": iops,
                   "hooks_us_per_req": tot / 100 * cpus * 1e6 / iops if iops and hooks else None}
        return line, summary

    def profile_md(self):
        """Workload 1's profile, per scheduler."""
        cpus = int(self.d["meta"].get("cpus", "2") or 2)
        L = []
        for s in ("mq-deadline", DISTRO, OURS):
            # w1's rate under perf: case "prof" before w8 had profiles
            pcase = "prof-j2" if self.get(1, "prof-j2", s, "iops_under_perf") else "prof"
            r = self.profile_line(1, "j2", s, pcase)
            if r:
                L.append("- " + r[0])
                self.prof_summary = getattr(self, "prof_summary", {})
                self.prof_summary[s] = r[1]
        if not L:
            return []
        return ["Profile (`perf record -a -g -e cpu-clock` over a 2-job run; %% of all samples on all CPUs, "
                "inclusive/self). Scheduler hooks are the elevator entry points; µs/req in hooks = their "
                "inclusive share × %d vCPUs / IOPS during the profile. Functions under the listing threshold "
                "(0.3 %%, or 2 %% in runs before the threshold was lowered) are missing." % cpus, ""] + L

    def scale_profile_md(self):
        """Workload 8's profiles: each case under mq-deadline and ours."""
        L = []
        for c in ("p2", "p256", "c1", "c128"):
            for s in ("mq-deadline", OURS):
                r = self.profile_line(8, c, s, "prof-" + c)
                if r:
                    L.append("- %s %s" % (c, r[0]))
        if not L:
            return []
        return ["Profiles of each case (as in workload 1: `perf record -a -g`, % of all samples, inclusive; "
                "µs/req in hooks = inclusive share × vCPUs / IOPS under perf):", ""] + L

    # ------------------------------------------------------------ plots
    def plots(self, outdir):
        if not shutil.which("gnuplot"):
            print("bench-report: gnuplot missing (apt-get install gnuplot-nox): no plots", file=sys.stderr)
            return []
        tmp = tempfile.mkdtemp(prefix="bench-plot-")
        made = []

        def dat(name, rows):
            p = os.path.join(tmp, name)
            with open(p, "w") as f:
                for r in rows:
                    f.write(" ".join(str(x) for x in r) + "\n")
            return p

        def trip(r, scale=1.0):
            return ["?", "?", "?"] if not r else ["%g" % (r["median"] * scale), "%g" % (r["min"] * scale), "%g" % (r["max"] * scale)]

        def hist(png, datafile, title, ylabel, extra="", scheds=SCHEDS):
            cols = []
            for i, s in enumerate(scheds):
                b = 2 + 3 * i
                cols.append("'%s' using %d:%d:%d%s title '%s'" % (datafile if i == 0 else "", b, b + 1, b + 2,
                                                                  ":xtic(1)" if i == 0 else "", s))
            gp = """set terminal pngcairo size 900,480 font 'DejaVu Sans,10' noenhanced
set output '%s'
set title "%s"
set ylabel "%s"
set datafile missing '?'
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.85 border -1
set key outside right top
set grid ytics
set yrange [0:*]
%s
plot %s
""" % (png, title, ylabel, extra, ", ".join(cols))
            g = os.path.join(tmp, os.path.basename(png) + ".gp")
            with open(g, "w") as f:
                f.write(gp)
            r = subprocess.run(["gnuplot", g], capture_output=True, text=True)
            if r.returncode != 0 or not os.path.exists(png):
                print("bench-report: gnuplot failed for %s: %s" % (png, r.stderr.strip()[:300]), file=sys.stderr)
            else:
                made.append(png)

        st = self.a.stamp
        note = "\\n(median, bars min-max; TCG guest: compare within one run only)"
        if any(r["workload"] == 1 for r in self.res):
            rows = [["%s_jobs" % j[1:]] + sum((trip(self.get(1, j, s, "iops")) for s in SCHEDS), []) for j in ("j1", "j2", "j4")]
            hist(os.path.join(outdir, st + "-iops.png"), dat("iops.dat", rows),
                 "1. CPU cost: 4 KiB random reads, io_uring QD32, null_blk irqmode=0 " + note, "IOPS")
        if any(r["workload"] == 2 for r in self.res):
            rows = [[c] + sum((trip(self.get(2, c, s, "err")) for s in SCHEDS), [])
                    for c in ("ionice-2", "ionice-4", "ionice-8", "cg-2", "cg-4")]
            hist(os.path.join(outdir, st + "-fairness.png"), dat("fair.dat", rows),
                 "2. Weighted fairness: worst share error per window " + note, "worst relative error of a share (%)",
                 "set logscale y\nset yrange [0.1:*]\nset arrow from graph 0, first 3 to graph 1, first 3 nohead dt 2 lc rgb 'red'")
        if any(r["workload"] == 3 for r in self.res):
            rows = [["%s_%s" % (dev, p)] + sum((trip(self.get(3, dev, s, p)) for s in SCHEDS), [])
                    for dev in ("vda", "nullb0") for p in ("p50", "p99", "p99.9")]
            hist(os.path.join(outdir, st + "-latency.png"), dat("lat.dat", rows),
                 "3. Latency of a 4 KiB random reader beside a writer and a reader " + note, "completion latency (ms)",
                 "set logscale y\nset yrange [0.01:*]")
        if any(r["workload"] == 4 for r in self.res):
            rows = [[lab] + sum((trip(self.get(4, "vda-mix", s, m)) for s in SCHEDS), [])
                    for m, lab in (("total_mbs", "total"), ("seq_mbs", "4_sequential"), ("rnd_mbs", "4_random"))]
            hist(os.path.join(outdir, st + "-throughput.png"), dat("tput.dat", rows),
                 "4. Aggregate throughput on vda, 4 sequential + 4 random readers " + note, "MB/s")
        if any(r["workload"] == 7 for r in self.res):
            rows = [[dev] + sum((trip(self.get(7, dev, s, "slowdown")) for s in SCHEDS), []) for dev in ("nullb0", "vda")]
            hist(os.path.join(outdir, st + "-startup.png"), dat("startup.dat", rows),
                 "7. Start-up under load: chain time loaded / idle " + note, "slowdown (x)",
                 "set logscale y\nset yrange [0.5:*]\nset arrow from graph 0, first 2 to graph 1, first 2 nohead dt 2 lc rgb 'red'")
        if any(r["workload"] == 8 for r in self.res):
            for metric, name, ylabel in (("iops", "scale-iops", "IOPS"), ("us_per_req", "scale-us", "CPU µs per request")):
                rows = [[c] + sum((trip(self.get(8, c, s, metric)) for s in SCHEDS), [])
                        for c in ("p2", "p32", "p256", "c1", "c16", "c128")]
                hist(os.path.join(outdir, "%s-%s.png" % (st, name)), dat(name + ".dat", rows),
                     "8. QD1 readers: N threads (pN) or N cgroups (cN) " + note, ylabel)
        w5 = ["mb=auto,ts=125", "mb=1024,ts=125", "mb=8192,ts=125", "mb=65536,ts=125", "mb=auto,ts=20", "mb=auto,ts=500"]
        if any(r["workload"] == 5 for r in self.res):
            rows = [[c.replace("mb=", "mb_").replace(",ts=", "/ts_")] + trip(self.get(5, "fair:" + c, OURS, "err"))
                    + trip(self.get(5, "tput:" + c, OURS, "total_mbs")) for c in w5]
            f = dat("knobs.dat", rows)
            png = os.path.join(outdir, st + "-knobs.png")
            gp = """set terminal pngcairo size 900,600 font 'DejaVu Sans,10' noenhanced
set output '%s'
set datafile missing '?'
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.85 border -1
set grid ytics
set multiplot layout 2,1 title "5. bfq-iosched knobs: max_budget (sectors) / timeout_sync (ms) %s"
set ylabel "ionice 0 vs 7: worst error (%%)"
set yrange [0:*]
plot '%s' using 2:3:4:xtic(1) title 'share error' lc rgb '#c03030'
set ylabel "vda mix MB/s"
plot '%s' using 5:6:7:xtic(1) title 'throughput' lc rgb '#3060c0'
unset multiplot
""" % (png, note, f, f)
            g = os.path.join(tmp, "knobs.gp")
            with open(g, "w") as fh:
                fh.write(gp)
            r = subprocess.run(["gnuplot", g], capture_output=True, text=True)
            if r.returncode == 0 and os.path.exists(png):
                made.append(png)
            else:
                print("bench-report: gnuplot failed for knobs: %s" % r.stderr.strip()[:300], file=sys.stderr)
        if any(r["workload"] == 9 for r in self.res):
            cases = [c for c in ("d1", "d2", "d4", "d8", "b1", "b2", "b4", "b8")
                     if any(self.get(9, c, s, "mbs") for s in SCHEDS)]
            if cases:
                rows = [[c.replace("d", "direct_").replace("b", "buffered_")]
                        + sum((trip(self.get(9, c, s, "mbs")) for s in SCHEDS), []) for c in cases]
                hist(os.path.join(outdir, st + "-disk-throughput.png"), dat("disk-tput.dat", rows),
                     "9. hddsim: N sequential readers, aggregate " + note, "MB/s")
            rows = [[c] + sum((trip(self.get(9, c, s, "err")) for s in SCHEDS), []) for c in DISK_FAIR
                    if any(self.get(9, c, s, "err") for s in SCHEDS)]
            if rows:
                hist(os.path.join(outdir, st + "-disk-fairness.png"), dat("disk-fair.dat", rows),
                     "9. hddsim: two readers, worst share error per window " + note,
                     "worst relative error of a share (%)",
                     "set logscale y\nset yrange [0.1:*]\nset arrow from graph 0, first 3 to graph 1, first 3 nohead dt 2 lc rgb 'red'")
            lat = SCHEDS + [LL0]
            if any(self.get(9, "lat", s, "p99") for s in lat):
                rows = [[p] + sum((trip(self.get(9, "lat", s, p)) for s in lat), []) for p in ("p50", "p99")]
                hist(os.path.join(outdir, st + "-disk-latency.png"), dat("disk-lat.dat", rows),
                     "9. hddsim: 4 KiB random reader beside two streams " + note, "completion latency (ms)",
                     "set logscale y\nset yrange [0.1:*]", scheds=lat)
        shutil.rmtree(tmp, ignore_errors=True)
        return made


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--stamp", required=True)
    ap.add_argument("--guest-rc", type=int, default=0)
    ap.add_argument("--host-seconds", type=int, default=0)
    ap.add_argument("--readme")
    ap.add_argument("--host-log", help="bench.sh's samples of host load and QEMU processes")
    a = ap.parse_args()
    d = parse(a.results)
    if not d["samples"]:
        print("bench-report: no samples in %s" % a.results, file=sys.stderr)
        return 1
    d["host"] = host_summary(a.host_log)
    rep = Report(d, a)
    rep.compute()
    rep.judge()
    os.makedirs(a.out, exist_ok=True)
    pngs = rep.plots(a.out)
    md = rep.markdown()
    base = os.path.join(a.out, a.stamp)
    with open(base + ".json", "w") as f:
        json.dump({"stamp": a.stamp, "guest_rc": a.guest_rc, "complete": d["done"], "host": d["host"],
                   "host_seconds": a.host_seconds, "workload_seconds": d["seconds"],
                   "meta": d["meta"], "errors": d["errors"],
                   "cases": [{"workload": int(k[0]), "case": k[1], **v} for k, v in d["cases"].items()],
                   "results": rep.res, "targets": rep.targets, "profile": d["profile"],
                   "profile_summary": getattr(rep, "prof_summary", {}),
                   "samples": d["samples"]}, f, indent=1)
    with open(base + ".md", "w") as f:
        f.write("# make bench %s\n\n" % a.stamp + "\n".join(md) + "\n\n"
                + "\n".join("![%s](%s)" % (os.path.basename(p), os.path.basename(p)) for p in pngs) + "\n")
    print("bench-report: %s.json, %s.md, %d plots" % (base, base, len(pngs)), file=sys.stderr)
    if a.readme:
        rel = os.path.relpath(a.out, os.path.dirname(os.path.abspath(a.readme)))
        block = [BEGIN, "", "Latest: [`%s/%s.json`](%s/%s.json), [`.md`](%s/%s.md)." % (rel, a.stamp, rel, a.stamp, rel, a.stamp), ""] \
            + md + [""] + ["![%s](%s/%s)" % (os.path.basename(p), rel, os.path.basename(p)) for p in pngs] + ["", END]
        with open(a.readme) as f:
            text = f.read()
        if BEGIN in text and END in text:
            text = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: "\n".join(block), text, flags=re.S)
        else:
            text = text.rstrip("\n") + "\n\n## Benchmark results\n\n" + "\n".join(block) + "\n"
        with open(a.readme, "w") as f:
            f.write(text)
        print("bench-report: table pasted into %s" % a.readme, file=sys.stderr)
    # the table on stdout too
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
