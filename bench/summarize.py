#!/usr/bin/env python3
"""Turn bench/vm/bench.sh's lines into medians (means for MEAN_TESTS),
spreads and BPF/native ratios.

    summarize.py LOG --json OUT.json --md OUT.md [--png OUT.png] [--compare OLD.json]
    summarize.py check RESULTS.json       (make bench-check: ratios against floors)
    summarize.py compare A.json B.json    (how far two runs differ)

LOG lines: "BENCH TEST METRIC KIND REP VALUE", "BENCHMETA KEY VALUE",
"BENCHNOTE TEXT". Ratios are paired per repetition (BPF and native ran in the
same repetition, one after the other) and the median (mean) of those is
reported.
Standard library only.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

# (BPF kind, native kind it replaces)
PAIRS = [("fifo", "pfifo"), ("prio", "pfifo_fast"), ("fq", "sch_fq"), ("edt", "htb"), ("edt", "tbf")]
BPF_KINDS = {b for b, _ in PAIRS}

# Tests reported by the mean of their repetitions, not the median: a TCP
# run's rate sits on one of two levels about 1.3 % apart (edt's one flow
# runs at 2,424 Mbit/s, then moves to 2,456 at a second between the
# first and the third; htb's too), so a median of three picks one level
# or the other and two runs' medians differed by 1.05 %; their means by
# at most 0.45 %.
MEAN_TESTS = {"tcp1", "tcp8"}


def how(test):
    return "mean" if test in MEAN_TESTS else "median"

# test -> (metric, label, higher is better, ratio label)
TESTS = {
    "pktgen": ("ipp", "pktgen queue_xmit, 60 B, 1 flow", False),
    "pktgen1000": ("ipp", "pktgen queue_xmit, 60 B, 1,000 flows", False),
    "pktgen50000": ("ipp", "pktgen queue_xmit, 60 B, 50,000 flows", False),
    "full1": ("ipp", "pktgen, fq's full path (maxrate 30gbit), 1 flow", False),
    "full1000": ("ipp", "pktgen, fq's full path (maxrate 30gbit), 1,000 flows", False),
    "full50000": ("ipp", "pktgen, fq's full path (maxrate 30gbit), 50,000 flows", False),
    "paced": ("ipp", "10,000 paced UDP sockets, 3 datagrams each", False),
    "tcp1": ("mbit", "TCP (iperf3), 1 flow", True),
    "tcp8": ("mbit", "TCP (iperf3), 8 flows", True),
    "rr": ("tps", "TCP request/response, 1 B", True),
}
# The cgroups section: test -> (cgroups configured, cgroups sending).
CG_TESTS = {"cg1": (1, 1), "cg100": (100, 16), "cg1024": (1024, 16), "cg100all": (100, 100), "cg1024all": (1024, 1024)}
for _t, (_n, _a) in CG_TESTS.items():
    TESTS[_t] = ("ipp", f"UDP from {_a:,} of {_n:,} cgroups, backlogged", False)

# The floors `make bench-check` holds the ratios to. kind: "ratio" (BPF /
# native, higher is better), "max" (value <= floor), "abs_dev" (|value - 1|
# <= floor). A target whose measurement is absent (a kind qdiscctl does not
# carry yet) is skipped.
TARGETS = [
    ("fifo vs pfifo, pktgen packets/s", "ratio", ("pktgen", "fifo", "pfifo"), 0.87),
    ("fifo vs pfifo, TCP 1 flow", "ratio", ("tcp1", "fifo", "pfifo"), 0.99),
    ("fifo vs pfifo, TCP 8 flows", "ratio", ("tcp8", "fifo", "pfifo"), 0.99),
    ("prio vs pfifo_fast, pktgen packets/s", "ratio", ("pktgen", "prio", "pfifo_fast"), 0.85),
    ("fq vs sch_fq, pktgen 1 flow", "ratio", ("pktgen", "fq", "sch_fq"), 1.0),
    ("fq vs sch_fq, pktgen 1,000 flows", "ratio", ("pktgen1000", "fq", "sch_fq"), 1.0),
    ("fq vs sch_fq, pktgen 50,000 flows", "ratio", ("pktgen50000", "fq", "sch_fq"), 1.0),
    # Issue 12: fq's TCP throughput and request/response rate.
    ("fq vs sch_fq, TCP 1 flow", "ratio", ("tcp1", "fq", "sch_fq"), 0.99),
    ("fq vs sch_fq, TCP 8 flows", "ratio", ("tcp8", "fq", "sch_fq"), 0.99),
    ("fq vs sch_fq, request/response", "ratio", ("rr", "fq", "sch_fq"), 0.99),
    ("edt vs htb, pktgen packets/s (cost)", "ratio", ("pktgen", "edt", "htb"), 1.0),
] + [(f"edt vs htb, {n:,} cgroup{'s' if n > 1 else ''} ({a:,} sending): packets per instruction (cost)", "ratio",
       (t, "edt", "htb"), 1.0)
      for t, (n, a) in CG_TESTS.items()] + [
    ("edt achieved rate vs configured (1 DCTCP flow)", "abs_dev", ("shaped", "rate_ratio", "edt_dctcp"), 0.005),
    ("show -s, 1,000 qdiscs: qdiscctl / tc time", "max", ("show", "ms", "qdiscctl/tc"), 1.0),
    ("static binary, stripped (bytes)", "max", ("size", "bytes", "qdiscctl"), 2_000_000),
    # Issue 12's budgets: one 128-queue device under mq fq, and 1,024
    # instances of any kind.
    ("fq, registration for 128 instances: map memory (bytes)", "max", ("memory", "bytes", "fq-128"), 32 << 20),
] + [(f"{k}, registration for 1,024 instances: map memory (bytes)", "max", ("memory", "bytes", f"{k}-1024"), 256 << 20)
     for k in ("fifo", "prio", "fq", "edt")]


def parse(path):
    data, meta, notes = {}, {}, []
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        f = line.split()
        if not f:
            continue
        if f[0] == "BENCH" and len(f) == 6:
            _, test, metric, kind, rep, value = f
            try:
                r, v = int(rep), float(value)
                data.setdefault((test, metric, kind), {})[r] = v
            except ValueError:
                notes.append("unparsable: " + line)
        elif f[0] == "BENCHMETA" and len(f) >= 3:
            meta[f[1]] = " ".join(f[2:])
        elif f[0] == "BENCHNOTE":
            notes.append(line[len("BENCHNOTE "):])
        elif line.startswith("run: log ") and "; kernel " in line:
            m = re.search(r"; kernel ([^;]+);", line)
            if m:
                meta["kernel"] = m.group(1)
    return data, meta, notes


def stats(values, by="median"):
    v = sorted(values)
    med = statistics.median(v)
    return {
        "values": values,
        "median": med,
        "mean": statistics.fmean(v),
        "center": by,
        "min": v[0],
        "max": v[-1],
        "spread_pct": (v[-1] - v[0]) / med * 100 if med else 0.0,
    }


def center(s):
    """The figure reported for s: its median, or its mean for MEAN_TESTS.
    (JSON of older runs has no "center": the median.)"""
    return s["mean"] if s.get("center") == "mean" else s["median"]


def paired(a, b, f, by="median"):
    """f(a[rep], b[rep]) over the repetitions both have."""
    reps = sorted(set(a) & set(b))
    if not reps:
        return None
    r = [f(a[i], b[i]) for i in reps]
    return stats(r, by)


def build(data, meta, notes):
    res = {"meta": meta, "notes": notes, "metrics": {}, "ratios": [], "anatomy": {}, "targets": []}
    for (test, metric, kind), reps in data.items():
        vals = [reps[k] for k in sorted(reps)]
        res["metrics"].setdefault(test, {}).setdefault(metric, {})[kind] = stats(vals, how(test))
    # pktgen: packets/s from instructions/packet (icount: 1 ns = 1 instruction)
    for test in ("pktgen", "pktgen1000", "pktgen50000", "full1", "full1000", "full50000"):
        ipp = res["metrics"].get(test, {}).get("ipp", {})
        for kind, s in ipp.items():
            res["metrics"][test].setdefault("pps", {})[kind] = stats([1e9 / v for v in s["values"]])
    # BPF / native, paired per repetition
    for test, (metric, label, higher) in TESTS.items():
        for bpf, native in PAIRS:
            a, b = data.get((test, metric, bpf)), data.get((test, metric, native))
            if not a or not b:
                continue
            # instructions/packet: the rate ratio is native / BPF
            r = paired(a, b, (lambda x, y: x / y) if higher else (lambda x, y: y / x), how(test))
            res["ratios"].append({"test": test, "label": label, "bpf": bpf, "native": native, **r})
    # show: qdiscctl's time over tc's
    for test in ("show", "show-json"):
        a, b = data.get((test, "ms", "qdiscctl")), data.get((test, "ms", "tc"))
        if a and b:
            r = paired(a, b, lambda x, y: x / y)
            res["metrics"][test]["ms"]["qdiscctl/tc"] = r
    res["anatomy"] = anatomy(data)
    res["targets"] = targets(res)
    return res


def one(data, test, metric, kind):
    v = data.get((test, metric, kind))
    return statistics.median(v.values()) if v else None


def anatomy(data):
    """Split a BPF qdisc's instructions per packet: trampolines, bodies, kernel."""
    g = lambda m, k: one(data, "anatomy", m, k)
    pfifo, bfifo, fentry, window = g("ipp", "pfifo"), g("ipp", "bfifo"), g("ipp", "bfifo+fentry"), g("window", "empty")
    if None in (pfifo, bfifo, fentry, window):
        return {}
    tramp = fentry - bfifo
    out = {"pfifo": pfifo, "bfifo": bfifo, "trampoline": tramp, "stats_window_empty": window, "kinds": {}}
    for kind in sorted({k for (t, m, k) in data if t == "anatomy" and m == "enq_window"}):
        total = one(data, "pktgen", "ipp", kind)
        ew, ec = g("enq_window", kind), g("enq_calls", kind)
        dw, dc = g("deq_window", kind), g("deq_calls", kind)
        if None in (total, ew, ec, dw, dc):
            continue
        body_enq = (ew - window) * ec
        body_deq = (dw - window) * dc
        calls = ec + dc
        out["kinds"][kind] = {
            "total": total,
            "calls_per_pkt": calls,
            "enqueue_calls": ec,
            "dequeue_calls": dc,
            "trampolines": tramp * calls,
            "body_enqueue": body_enq,
            "body_dequeue": body_deq,
            "body": body_enq + body_deq,
            "kernel": total - tramp * calls - body_enq - body_deq,
        }
    return out


def find_ratio(res, test, bpf, native):
    for r in res["ratios"]:
        if (r["test"], r["bpf"], r["native"]) == (test, bpf, native):
            return center(r)
    return None


def targets(res):
    out = []
    for name, kind, key, floor in TARGETS:
        if kind == "ratio":
            v = find_ratio(res, *key)
        else:
            test, metric, k = key
            s = res["metrics"].get(test, {}).get(metric, {}).get(k)
            v = center(s) if s else None
        if v is None:
            continue
        if kind == "ratio":
            ok, by = v >= floor, (floor - v) / floor * 100
        elif kind == "max":
            ok, by = v <= floor, (v - floor) / floor * 100
        else:
            ok, by = abs(v - 1) <= floor, (abs(v - 1) - floor) * 100
        out.append({"name": name, "kind": kind, "value": v, "floor": floor, "met": ok, "missed_by_pct": 0 if ok else by})
    return out


# ---------------------------------------------------------------- Markdown

def fmt(v, nd=0):
    if v is None:
        return "–"
    return f"{v:,.{nd}f}"


def md(res, png=None):
    m, meta = res["metrics"], res["meta"]
    L = []
    L.append("# qdiscctl benchmark results\n")
    L.append(f"Run {meta.get('stamp', '?')} (commit {meta.get('git', '?')}), kernel {meta.get('kernel', '?')} "
             f"under qemu TCG with `-icount shift=0,sleep=off`, 1 vCPU: the guest clock counts instructions "
             f"(1 ns = 1 instruction), so pps = 10⁹ / instructions per packet and times are instruction counts. "
             f"{meta.get('reps', '?')} repetitions, native and BPF kinds interleaved inside each, all in one boot; "
             f"{int(meta.get('pkts', 0)):,} pktgen packets per run. Medians (TCP throughput: means); spread = (max − min) / median; "
             f"ratios are paired per repetition (BPF / native, higher is better). "
             f"Whole run: {meta.get('wall_s', '?')} s wall. Method: bench/README.md.\n")
    if png:
        L.append(f"![BPF / native ratios]({png})\n")

    if res["targets"]:
        L.append("## Targets (`make bench-check`)\n")
        L.append("| target | measured | floor | status |")
        L.append("|---|---|---|---|")
        for t in res["targets"]:
            nd = 0 if t["floor"] >= 1000 else 4
            op = {"ratio": "≥", "max": "≤", "abs_dev": "abs(x − 1) ≤"}[t["kind"]]
            st = "met" if t["met"] else f"**missed by {t['missed_by_pct']:.1f} %**"
            L.append(f"| {t['name']} | {fmt(t['value'], nd)} | {op} {fmt(t['floor'], nd if t['kind'] != 'abs_dev' else 3)} | {st} |")
        L.append("")

    ratio_of = lambda test, bpf, nat: find_ratio(res, test, bpf, nat)
    pair_of = {b: n for b, n in PAIRS if b != "edt"}
    pair_of["edt"] = "htb"

    for test in ("pktgen", "pktgen1000", "pktgen50000", "full1", "full1000", "full50000"):
        ipp = m.get(test, {}).get("ipp")
        if not ipp:
            continue
        L.append(f"## {TESTS[test][1]}\n")
        L.append("| qdisc | instr/pkt | packets/s | spread | BPF / native |")
        L.append("|---|---|---|---|---|")
        for kind, s in ipp.items():
            r = ratio_of(test, kind, pair_of.get(kind, "")) if kind in BPF_KINDS else None
            rs = f"{r:.4f} × {pair_of[kind]}" if r else ""
            if kind == "edt":
                r2 = ratio_of(test, "edt", "tbf")
                rs += f", {r2:.4f} × tbf" if r2 else ""
            L.append(f"| {kind} | {center(s):.1f} | {1e9 / center(s):,.0f} | {s['spread_pct']:.3f} % | {rs} |")
        L.append("")

    if m.get("tcp1") or m.get("rr"):
        L.append("## TCP throughput (iperf3) and request/response (benchtool rr, 1-byte TCP_RR)\n")
        L.append(f"Throughput: iperf3's receiver rate over {meta.get('tcp_s', '?')} s runs; request/response: "
                 f"1-byte transactions on one TCP connection for {meta.get('rr_ms', '?')} ms, mean latency. "
                 "Ratios BPF / native (for edt: / htb).\n")
        L.append("| qdisc | 1 flow Mbit/s | × native | 8 flows Mbit/s | × native | transactions/s | latency µs | × native | spreads (1/8/rr) |")
        L.append("|---|---|---|---|---|---|---|---|---|")
        kinds = list((m.get("tcp1", {}).get("mbit") or m.get("rr", {}).get("tps") or {}).keys())
        for kind in kinds:
            g = lambda t, mt: m.get(t, {}).get(mt, {}).get(kind)
            t1, t8, rr, us = g("tcp1", "mbit"), g("tcp8", "mbit"), g("rr", "tps"), g("rr", "us")
            nat = pair_of.get(kind, "") if kind in BPF_KINDS else None
            rt = lambda t: (f"{ratio_of(t, kind, nat):.4f}" if nat and ratio_of(t, kind, nat) else "")
            sp = "/".join(f"{x['spread_pct']:.2f}" for x in (t1, t8, rr) if x)
            L.append(f"| {kind} | {fmt(t1 and center(t1))} | {rt('tcp1')} | {fmt(t8 and center(t8))} | {rt('tcp8')} | "
                     f"{fmt(rr and center(rr))} | {fmt(us and center(us), 2)} | {rt('rr')} | {sp} % |")
        L.append("")

    sh = m.get("shaped", {}).get("rate_ratio")
    if sh:
        L.append("## Shapers at 1 Gbit/s: rate achieved at the qdisc / configured (1 TCP flow: cubic; edt_dctcp: DCTCP)\n")
        L.append("| qdisc | achieved / configured | spread |")
        L.append("|---|---|---|")
        for kind, s in sh.items():
            L.append(f"| {kind} | {center(s):.4f} | {s['spread_pct']:.3f} % |")
        L.append("")

    cg = [t for t in CG_TESTS if m.get(t, {}).get("ipp")]
    if cg:
        L.append("## edt's cgroups against htb's classes, backlogged UDP (cgroups section)\n")
        L.append("N cgroups configured (edt: cgroup entries; htb: classes under one parent, a BPF classifier mapping "
                 "the socket's cgroup id to the classid), 60-byte UDP datagrams from sockets in the sending ones, each "
                 "class at 20 Mbit/s / sending. Instructions per packet: busy guest time over 1 s / packets va sent; "
                 "rates: a class's bytes (the qdisc's count) between two snapshots, over the time between them (the "
                 "packets the classes counted at va's packet rate in the window) / its configured rate, the mean over "
                 "the sending classes and the lowest and highest.\n")
        L.append("| cgroups (sending) | htb instr/pkt | edt instr/pkt | edt × htb (packets per instruction) | "
                 "htb rate (min–max) | edt rate (min–max) | busy share (htb/edt) | spread (htb/edt) |")
        L.append("|---|---|---|---|---|---|---|---|")
        for t in cg:
            ipp = m[t]["ipp"]
            g = lambda mt, k: m[t].get(mt, {}).get(k)
            def rates(k):
                a, lo, hi = g("rate", k), g("class_min", k), g("class_max", k)
                return f"{center(a):.4f} ({center(lo):.4f}–{center(hi):.4f})" if a and lo and hi else "–"
            r = ratio_of(t, "edt", "htb")
            h, e = ipp.get("htb"), ipp.get("edt")
            n, a = CG_TESTS[t]
            sp = "/".join(f"{x['spread_pct']:.2f}" for x in (h, e) if x)
            rs = f"{r:.4f}" if r else "–"
            busy = "/".join(f"{center(g('busy', k)):.3f}" if g("busy", k) else "–" for k in ("htb", "edt"))
            L.append(f"| {n:,} ({a:,}) | {fmt(h and center(h), 1)} | {fmt(e and center(e), 1)} | {rs} | "
                     f"{rates('htb')} | {rates('edt')} | {busy} | {sp} % |")
        L.append("\nBusy share: the window's busy time over its length. Near 1 the CPU, not the shaper, is the "
                 "bottleneck, and instructions per packet read 10⁹ / the packet rate: a floor of what the qdisc "
                 "would take with a CPU to spare.\n")

    an = res.get("anatomy") or {}
    if an.get("kinds"):
        L.append("## Where a BPF qdisc's instructions go (pktgen, 1 flow, per packet)\n")
        L.append(f"pfifo {an['pfifo']:.0f}; bfifo limit 1000 (pfifo without its empty-queue bypass) {an['bfifo']:.0f}; "
                 f"one BPF trampoline round trip (empty fentry program on bfifo_enqueue) {an['trampoline']:.0f}. "
                 f"Program bodies from bpf_stats under icount, less the {an['stats_window_empty']:.0f} the same "
                 f"window reads for an empty program.\n")
        L.append("| kind | total | calls/pkt | trampolines | program bodies (enqueue + dequeue) | kernel path (rest) | pfifo |")
        L.append("|---|---|---|---|---|---|---|")
        for kind, a in an["kinds"].items():
            L.append(f"| {kind} | {a['total']:.0f} | {a['calls_per_pkt']:.2f} | {a['trampolines']:.0f} | "
                     f"{a['body']:.0f} ({a['body_enqueue']:.0f} + {a['body_dequeue']:.0f}) | {a['kernel']:.0f} | {an['pfifo']:.0f} |")
        L.append("")

    pc = m.get("paced", {})
    if pc.get("ipp"):
        L.append("## 10,000 paced UDP sockets through one fq (SO_MAX_PACING_RATE 1,100 bytes/s, 3 datagrams of 1,042 bytes each)\n")
        L.append("tests/vm/cases/28-fq-paced.sh's load on va (`limit 100000 buckets 16384 initial_quantum 2084`): "
                 "each socket's first datagram leaves at once, its second and third 0.95 s apart, about 20,000 "
                 "wait behind throttled flows when the sender is done. Instructions per datagram: the guest's busy "
                 "time (the run less its idle time, counted by a SCHED_IDLE spinner) from the sender's start to the "
                 "sink's last datagram, over the 30,000 datagrams; it includes the sockets' setup and teardown and "
                 "the receiver, the same for both, so the difference is the qdiscs'. While sending: udpflows' first to "
                 "last send. Achieved rate at the receiver: a socket's bytes after its first datagram over the time "
                 "from its first to its last; beyond the rate: bytes − rate × (last − first), at least one "
                 "datagram (1,042) for a socket paced exactly.\n")
        L.append("| qdisc | instr/datagram | × sch_fq (rate) | while sending | idle ms | queued at the end of sending | "
                 "achieved / pacing rate: min, median, max | most bytes beyond the rate | sockets beyond initial_quantum | spread |")
        L.append("|---|---|---|---|---|---|---|---|---|---|")
        base = pc["ipp"].get("sch_fq")
        for kind, s in pc["ipp"].items():
            g = lambda mt: pc.get(mt, {}).get(kind)
            r = ratio_of("paced", kind, pair_of.get(kind, "")) if kind in BPF_KINDS else None
            rs = f"{r:.4f} ({center(s) - center(base):+,.0f})" if r and base else ""
            rates = ", ".join(f"{center(g(x)):.4f}" if g(x) else "–" for x in ("rate_min", "rate_median", "rate_max"))
            L.append(f"| {kind} | {center(s):,.0f} | {rs} | {fmt(g('send_ipp') and center(g('send_ipp')))} | "
                     f"{fmt(g('idle_ms') and center(g('idle_ms')))} | {fmt(g('queued') and center(g('queued')))} | {rates} | "
                     f"{fmt(g('over_bytes_max') and center(g('over_bytes_max')))} | "
                     f"{fmt(center(g('over_iq')) if g('over_iq') else None)} | {s['spread_pct']:.3f} % |")
        ti, nt = pc.get("timer_irqs", {}), pc.get("net_tx", {})
        if ti:
            L.append("\nA run's local timer interrupts (ticks, and the watchdog's wakeups) and NET_TX softirqs (qdisc "
                     "runs the watchdog or a blocked queue started): "
                     + "; ".join(f"{k} {center(ti[k]):,.0f} and {center(nt[k]):,.0f}" for k in ti if k in nt) + ".")
        skb, flo = pc.get("skb_objs", {}), pc.get("flow_objs", {})
        if skb:
            L.append("\nSlab objects in use at the end of sending beyond the start (SLUB's count, read without shrinking "
                     "the caches: low by the free objects it keeps per CPU, tens): "
                     + "; ".join(f"{k}: {center(skb[k]):,.0f} sk_buff heads (256 bytes each), "
                                 f"{center(flo[k]):,.0f} fq_flow_cache objects" for k in skb if k in flo)
                     + ". The packets' sk_buffs are the senders', whichever qdisc queues them.")
        L.append("")

    add = m.get("add", {}).get("ms")
    show = m.get("show", {}).get("ms")
    size = m.get("size", {}).get("bytes", {})
    if add or show or size:
        L.append("## qdiscctl's own cost (guest time under icount: 1 ms = 10⁶ instructions)\n")
        L.append("| what | ms | spread |")
        L.append("|---|---|---|")
        for kind, s in (add or {}).items():
            what = {"tc-pfifo": "tc qdisc add … pfifo", "qdiscctl-pfifo": "qdiscctl add … pfifo (native kind)"}.get(kind)
            if not what:
                if kind.startswith("del-") and kind.endswith("-last"):
                    what = f"qdiscctl del, last {kind[4:-5]} (unregisters)"
                elif kind.startswith("del-"):
                    what = f"qdiscctl del, another {kind[4:-4]}"
                elif kind.endswith("-2nd"):
                    what = f"qdiscctl add {kind[:-4]}, kind already registered (attach only)"
                else:
                    what = f"qdiscctl add {kind}: load + verify + register + attach"
            L.append(f"| {what} | {center(s):.2f} | {s['spread_pct']:.2f} % |")
        for test, label in (("show", "-s"), ("show-json", "-s -j")):
            s = m.get(test, {}).get("ms", {})
            if "qdiscctl" in s:
                r = s.get("qdiscctl/tc")
                L.append(f"| `qdiscctl {label} show`, 1,000 qdiscs | {center(s['qdiscctl']):.2f} | {s['qdiscctl']['spread_pct']:.2f} % |")
                L.append(f"| `tc {label} qdisc show`, same | {center(s['tc']):.2f} | {s['tc']['spread_pct']:.2f} % |")
                if r:
                    L.append(f"| qdiscctl / tc ({label}) | {center(r):.3f} × | |")
        cnt = m.get("show", {}).get("count", {})
        if cnt:
            parts = ", ".join(f"{int(s['median'])} {k}" for k, s in cnt.items() if k != "total")
            L.append(f"\nThe 1,000 qdiscs: {parts} (each BPF kind holds as many instances as its slots allow), "
                     f"{int(cnt['total']['median']) if 'total' in cnt else '?'} in all, on dummy devices in one namespace.\n")
        if "qdiscctl" in size:
            L.append(f"Static binary: {int(size['qdiscctl']['median']):,} bytes stripped "
                     f"({int(size.get('qdiscctl-unstripped', {}).get('median', 0)):,} as built).\n")
    mem = m.get("memory", {}).get("bytes", {})
    if mem:
        sizes = sorted({int(k.rsplit("-", 1)[1]) for k in mem})
        kinds = sorted({k.rsplit("-", 1)[0] for k in mem})
        L.append("## Map memory of a registration (bytes_memlock, MiB, by the instances it has room for)\n")
        L.append("| kind | " + " | ".join(f"{n:,} instances" for n in sizes) + " | per instance |")
        L.append("|---|" + "---|" * (len(sizes) + 1))
        for kind in kinds:
            row = [mem.get(f"{kind}-{n}", {}).get("median") for n in sizes]
            lo, hi = sizes[0], sizes[-1]
            a, b = mem.get(f"{kind}-{lo}", {}).get("median"), mem.get(f"{kind}-{hi}", {}).get("median")
            per = f"{(b - a) / (hi - lo) / 1024:.1f} KiB" if a is not None and b is not None else "?"
            L.append(f"| {kind} | " + " | ".join("?" if v is None else f"{v / 1048576:.1f}" for v in row)
                     + f" | {per} |")
        L.append("")
    mm = m.get("memory", {})
    slots, sb = mm.get("slots", {}), mm.get("slot_bytes", {})
    if "fq-flow" in sb or "sch_fq-10000" in mm.get("flows", {}):
        L.append("## fq's flows and packets against sch_fq's (bytes)\n")
        L.append("qdiscctl fq: its pools' maps (the slots and the stacks of free ones, bytes_memlock) over their "
                 "entries, allocated at registration whatever the load. sch_fq: the flows it allocates from its slab "
                 "cache fq_flow_cache as packets of new flows come (pktgen's UDP source ports 1..N, full path, "
                 "orphan_mask 65535: N ports hash to fewer flows), objects in use read from /sys/kernel/slab before and "
                 "after (SLUB merges the cache with other caches of 128-byte objects, idle here). "
                 "Packets: sch_fq links a packet through its own sk_buff, fq keeps a slot for it besides; the "
                 "sk_buff itself is the sender's either way.\n")
        L.append("| qdisc | per flow | per packet | how | held |")
        L.append("|---|---|---|---|---|")
        if "fq-flow" in sb:
            f, p = sb["fq-flow"], sb.get("fq-packet")
            fs, ps = slots.get("fq-flow"), slots.get("fq-packet")
            L.append(f"| fq | {center(f):.1f} | {center(p):.1f} | "
                     f"{int(center(fs)):,} flow slots, {int(center(ps)):,} packet slots in the registration's pools "
                     f"({center(f) * center(fs) / 1048576:.1f} + {center(p) * center(ps) / 1048576:.1f} MiB) | "
                     f"from registration on |")
        fl, so = mm.get("flows", {}), mm.get("slab_objs", {})
        osz, ssz = mm.get("object_size", {}).get("fq_flow_cache"), mm.get("slab_size", {}).get("fq_flow_cache")
        runs = sorted((int(k.rsplit("-", 1)[1]), k) for k in fl if k.startswith("sch_fq-"))
        if runs and ssz:
            meas = "; ".join(f"{n:,} ports: {int(center(fl[k])):,} flows, {int(center(so[k])):,} objects "
                             f"({center(so[k]) * center(ssz) / 1048576:.2f} MiB)" for n, k in runs if k in so)
            per = [center(so[k]) * center(ssz) / center(fl[k]) for _, k in runs if k in so and center(fl[k])]
            L.append(f"| sch_fq | {per[-1]:.1f} ({int(center(osz))}-byte objects in {int(center(ssz))}-byte slots) | "
                     f"0 | {meas} | while the flow lives (freed 3 s idle, or with the qdisc) |")
        elif "fq-flow" in sb:
            L.append("| sch_fq | not exposed: this kernel has no /sys/kernel/slab/fq_flow_cache | 0 | | |")
        L.append("")
    if res["notes"]:
        warn = [n for n in res["notes"] if n.startswith("warning") or n.startswith("unparsable")]
        if warn:
            L.append("## Warnings\n")
            L.extend(f"- {w}" for w in warn)
            L.append("")
    return "\n".join(L) + "\n"


# ---------------------------------------------------------------- chart

def chart(res, png):
    rows = []
    for r in res["ratios"]:
        rows.append((f"{r['bpf']}/{r['native']} {r['test']}", center(r), r["min"], r["max"]))
    s = res["metrics"].get("show", {}).get("ms", {}).get("qdiscctl/tc")
    if s:
        # time ratio: invert so that higher is better like the others
        rows.append(("show -s: tc/qdiscctl", 1 / center(s), 1 / s["max"], 1 / s["min"]))
    if not rows:
        return False
    dat = png + ".dat"
    with open(dat, "w") as f:
        for i, (name, med, lo, hi) in enumerate(rows):
            f.write(f'{i} "{name}" {med:.5f} {lo:.5f} {hi:.5f}\n')
    top = max(1.1, max(r[3] for r in rows) * 1.08)
    script = f"""
set terminal pngcairo size 1200,600 font "sans,10"
set output "{png}"
set title "qdiscctl: BPF qdisc / native qdisc (icount VM; higher is better; red dotted: fifo's pktgen floor 0.87)"
set rmargin 10
set style fill solid 0.6 border -1
set boxwidth 0.7
set yrange [0:{top:.3f}]
set grid ytics
set xtics rotate by -35 left noenhanced
set ylabel "ratio"
set key off
set arrow from graph 0, first 1.0 to graph 1, first 1.0 nohead lc rgb "black" dt 2
set arrow from graph 0, first 0.87 to graph 1, first 0.87 nohead lc rgb "red" dt 3
plot "{dat}" using 1:3:xtic(2) with boxes lc rgb "#3a7bd5", \\
     "" using 1:3:4:5 with yerrorbars lc rgb "black" pt 0, \\
     "" using 1:3:(sprintf("%.3f", $3)) with labels offset 0,0.8
"""
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    finally:
        os.unlink(dat)
    return True


# ---------------------------------------------------------------- compare / check

def flat(res):
    out = {}
    for test, metrics in res["metrics"].items():
        for metric, kinds in metrics.items():
            for kind, s in kinds.items():
                out[f"{test} {metric} {kind}"] = center(s)
    for r in res["ratios"]:
        out[f"ratio {r['test']} {r['bpf']}/{r['native']}"] = center(r)
    return out


def compare(a, b, out=sys.stdout):
    fa, fb = flat(a), flat(b)
    rows = []
    for k in sorted(set(fa) & set(fb)):
        x, y = fa[k], fb[k]
        if x:
            rows.append((abs(y - x) / abs(x) * 100, k, x, y))
    rows.sort(reverse=True)
    def group(k):
        w = k.split()
        t = w[1] if w[0] == "ratio" else w[0]
        t = {"pktgen1000": "pktgen", "pktgen50000": "pktgen", "full1": "fullpath",
             "full1000": "fullpath", "full50000": "fullpath", "tcp1": "tcp", "tcp8": "tcp", "show-json": "show",
             "anatomy-stats": "anatomy", "add": "add/del", **{c: "cgroups" for c in CG_TESTS}}.get(t, t)
        return ("ratios " if w[0] == "ratio" else "") + t
    worst = {}
    for d, k, x, y in rows:
        g = group(k)
        if g not in worst or d > worst[g][0]:
            worst[g] = (d, k, x, y)
    print(f"compare {a['meta'].get('stamp')} -> {b['meta'].get('stamp')}: {len(rows)} figures", file=out)
    for g, (d, k, x, y) in sorted(worst.items()):
        print(f"  {g:16s} largest difference {d:.3f} % ({k}: {x:.4g} -> {y:.4g})", file=out)
    over = [r for r in rows if r[0] >= 1.0]
    if over:
        print(f"  {len(over)} figures differ by 1 % or more:", file=out)
        for d, k, x, y in over[:20]:
            print(f"    {d:.2f} %  {k}: {x:.4g} -> {y:.4g}", file=out)
    else:
        print("  every figure agrees within 1 %", file=out)
    return {g: w[0] for g, w in worst.items()}, len(over)


def check(path):
    if not os.path.exists(path):
        print(f"bench-check: no {path}: run `make bench` first")
        return 1
    res = json.load(open(path))
    print(f"bench-check: {path} (run {res['meta'].get('stamp')})")
    missed = 0
    for t in res["targets"]:
        op = {"ratio": ">=", "max": "<=", "abs_dev": "|x-1| <="}[t["kind"]]
        st = "ok" if t["met"] else f"MISSED by {t['missed_by_pct']:.1f} %"
        v = f"{t['value']:,.0f}" if t["floor"] >= 1000 else f"{t['value']:.4f}"
        print(f"  {st:18s} {t['name']}: {v} ({op} {t['floor']:,})")
        missed += not t["met"]
    present = {t["name"] for t in res["targets"]}
    for name, *_ in TARGETS:
        if name not in present:
            print(f"  {'skipped':18s} {name}: not measured (kind absent)")
    print(f"{len(res['targets']) - missed} passed, {missed} failed")
    return 1 if missed else 0


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "results", "latest.json")))
    if len(sys.argv) == 4 and sys.argv[1] == "compare":
        _, n = compare(json.load(open(sys.argv[2])), json.load(open(sys.argv[3])))
        sys.exit(1 if n else 0)
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--json", required=True)
    ap.add_argument("--md", required=True)
    ap.add_argument("--png")
    ap.add_argument("--png-link", help="how RESULTS.md refers to the chart (default: the --png path)")
    ap.add_argument("--compare")
    a = ap.parse_args()
    data, meta, notes = parse(a.log)
    if not data:
        sys.exit(f"summarize: no BENCH lines in {a.log}")
    res = build(data, meta, notes)
    drew = bool(a.png) and chart(res, a.png)
    if a.compare and os.path.exists(a.compare):
        import io
        buf = io.StringIO()
        worst, n = compare(json.load(open(a.compare)), res, buf)
        res["compare"] = {"with": json.load(open(a.compare))["meta"].get("stamp"), "largest_diff_pct": worst,
                          "medians_over_1pct": n}
        print(buf.getvalue(), end="")
    json.dump(res, open(a.json, "w"), indent=1)
    text = md(res, (a.png_link or a.png) if drew else None)
    if "compare" in res:
        c = res["compare"]
        text += (f"\nCompared with the previous run ({c['with']}): largest differences "
                 + ", ".join(f"{g} {d:.3f} %" for g, d in sorted(c["largest_diff_pct"].items()))
                 + f"; {c['medians_over_1pct']} figures differ by 1 % or more.\n")
    open(a.md, "w").write(text)
    print(text)


if __name__ == "__main__":
    main()
