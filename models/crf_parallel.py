"""Fitting an ensemble's CRF members side by side, one process each, features extracted once.

Why: crfsuite fits on one core, so on a 2-core machine one core idled while the three default
CRF members were fitted one after another; and ``crf``, ``crf-l1`` and ``crf-rules`` read the
same word features (``crf-rules`` adds only the rule-hit features), which were extracted three
times. Here the parent extracts each distinct set of base features once, then forks one process
per member (at most ``workers`` at a time); the children inherit the features copy-on-write, fit,
save the member into the version being written, and send back its dev probabilities.

Progress (each crfsuite iteration) and cancel keep working: the children report iterations
through a queue, the parent passes them on and asks ``should_stop`` between messages; on a stop,
an error, or a child that dies, every child is terminated and the exception is raised in the
parent (the version being written is then discarded by its writer, as before).

Falls back to fitting in this process, one member after another, when there is one member, one
worker, or no ``fork`` (the results are the same; only the wall time differs).
"""
from __future__ import annotations

import json
import multiprocessing as mp
import os
import queue
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Callable

import numpy as np

from models.crf import CRFConfig, CRFMember, _features, rule_tags
from models.crf_feature_spec import tag_features
from models.crf_tags import Gazetteer
from models.words import Words

Items = list[tuple[str, Words]]


@dataclass
class CRFFitResult:
    """One fitted member: where it was saved, its dev probabilities, and what it cost."""

    name: str
    dev_probs: list[np.ndarray] | None
    seconds: float
    cpu_seconds: float


class CRFFitFailed(RuntimeError):
    """A child process failed or died (the message names the member and the error type only)."""


def _base_key(config: CRFConfig, clusters: dict | None) -> str:
    d = asdict(replace(config, rule_features=False))
    for k in ("c1", "c2", "max_iterations", "min_freq"):
        d.pop(k)
    return json.dumps([d, id(clusters) if config.clusters else None], sort_keys=True)


def shared_features(configs: dict[str, CRFConfig], items: Items, gazetteer: Gazetteer | None,
                    clusters: dict | None) -> dict[str, list[list[list[str]]]]:
    """Per member, its training features; members with the same base features get the same
    lists (extracted once), a rule-feature member its base plus the rule-hit features (also
    shared by members with the same base and rule features, e.g. a member and its refit)."""
    base: dict[str, list] = {}
    out: dict[str, list] = {}
    with_rules: dict[tuple[str, str], list] = {}
    for name, cfg in configs.items():
        key = _base_key(cfg, clusters)
        if key not in base:
            plain = replace(cfg, rule_features=False)
            base[key] = [_features(t, w, plain, gazetteer if cfg.gazetteer else None,
                                   clusters if cfg.clusters else None) for t, w in items]
        if cfg.rule_features:
            rkey = (key, cfg.locale)
            if rkey not in with_rules:
                with_rules[rkey] = [[b + r for b, r in zip(fb, tag_features(rule_tags(t, w, cfg.locale)))]
                                    for fb, (t, w) in zip(base[key], items)]
            out[name] = with_rules[rkey]
        else:
            out[name] = base[key]
    return out


# What the forked children read (set in the parent just before forking, cleared after).
_JOB: dict = {}


def _fit_one(name: str, events, stop) -> None:
    """Child process: fit ``name``, save it, send ``("done", name, dev_probs, s, cpu)``."""
    job = _JOB
    t0, c0 = time.time(), time.process_time()
    try:
        def on_iteration(i: int, loss: float) -> None:
            if stop.is_set():
                raise _Stop()
            events.put(("iter", name, i, loss))

        tags, labels = job["targets"].get(name, (job["tags"], job["labels"]))
        n = job["fit_on"].get(name, len(job["items"]))
        member = CRFMember.train(job["member_names"].get(name, name), job["items"][:n], tags[:n], labels,
                                 job["configs"][name], gazetteer=job["gazetteer"], clusters=job["clusters"],
                                 on_iteration=on_iteration, features=job["features"][name][:n])
        member.save(Path(job["save_root"]) / name)
        probs = member.predict_proba(job["dev_items"]) \
            if job["dev_items"] is not None and (job["dev_for"] is None or name in job["dev_for"]) else None
        events.put(("done", name, probs, time.time() - t0, time.process_time() - c0))
    except _Stop:
        events.put(("stopped", name))
    except BaseException as e:  # noqa: BLE001 - reported to the parent by type only (no text)
        events.put(("error", name, type(e).__name__))


class _Stop(Exception):
    pass


def fit_crfs(configs: dict[str, CRFConfig], items: Items, tags: list[list[str]], labels: list[str], *,
             gazetteer: Gazetteer | None, clusters: dict | None, save_root: str | Path,
             dev_items: Items | None = None, workers: int | None = None,
             on_iteration: Callable[[str, int, float], None] | None = None,
             check: Callable[[], None] | None = None,
             on_done: Callable[[CRFFitResult], None] | None = None,
             targets: dict[str, tuple[list[list[str]], list[str]]] | None = None,
             fit_on: dict[str, int] | None = None, dev_for: set[str] | None = None,
             member_names: dict[str, str] | None = None) -> dict[str, CRFFitResult]:
    """Fit every member of ``configs`` on ``items``/``tags``, save each to ``save_root/<name>``,
    and return their results (dev probabilities when ``dev_items`` is given).

    ``on_iteration(name, i, loss)`` is called in this process for every crfsuite iteration of
    every member; it and ``check()`` (called at least twice a second) may raise, e.g. on a
    cancel, to stop them all. ``on_done`` is called as each member is saved. ``workers``: processes at a
    time (default: every member at once, up to twice the usable cores: the members take unequal
    times, so three members on two cores end sooner all together than two then one). ``targets``: for a member that learns
    other labels than ``tags``/``labels`` (a hierarchical ensemble's category member), its own
    ``(tags, labels)``; it still shares the features of the members with its base.

    The keys of ``configs`` name fits, not necessarily members: one member can be fitted twice at
    once, e.g. on the training split (to tune on dev) and on training plus dev (to publish).
    ``fit_on``: per fit, how many of the leading ``items`` it learns from (default all);
    ``dev_for``: the fits that predict ``dev_items`` (default all); ``member_names``: per fit, the
    name its member is saved under inside its directory (default the fit's)."""
    names = list(configs)
    feats = shared_features(configs, items, gazetteer, clusters)
    n_workers = min(len(names), workers or 2 * _cores())
    if n_workers <= 1 or "fork" not in mp.get_all_start_methods():
        return _fit_here(configs, items, tags, labels, gazetteer, clusters, save_root, dev_items, feats,
                         on_iteration, check, on_done, targets or {}, fit_on or {}, dev_for, member_names or {})
    ctx = mp.get_context("fork")
    events = ctx.Queue()
    stop = ctx.Event()
    _JOB.update(items=items, tags=tags, labels=labels, configs=configs, gazetteer=gazetteer, clusters=clusters,
                features=feats, save_root=str(save_root), dev_items=dev_items, targets=targets or {},
                fit_on=fit_on or {}, dev_for=dev_for, member_names=member_names or {})
    pending = list(names)
    running: dict[str, mp.Process] = {}
    results: dict[str, CRFFitResult] = {}
    try:
        while pending or running:
            while pending and len(running) < n_workers:
                name = pending.pop(0)
                p = ctx.Process(target=_fit_one, args=(name, events, stop), name=f"crf-fit-{name}")
                p.start()
                running[name] = p
            try:
                msg = events.get(timeout=0.5)
            except queue.Empty:
                msg = None
            if check is not None:
                check()
            if msg is None:
                for name, p in list(running.items()):
                    if not p.is_alive() and p.exitcode not in (0, None):
                        raise CRFFitFailed(f"the process fitting {name} died (exit code {p.exitcode})")
                continue
            kind, name = msg[0], msg[1]
            if kind == "iter":
                if on_iteration is not None:
                    on_iteration(name, int(msg[2]), float(msg[3]))
            elif kind == "done":
                results[name] = CRFFitResult(name, msg[2], round(msg[3], 1), round(msg[4], 1))
                running.pop(name).join()
                if on_done is not None:
                    on_done(results[name])
            elif kind == "error":
                raise CRFFitFailed(f"fitting {name} failed ({msg[2]})")
            else:  # stopped: only after the parent set the stop flag
                running.pop(name).join()
    finally:
        stop.set()
        for p in running.values():
            p.terminate()
        for p in running.values():
            p.join()
        events.close()
        _JOB.clear()
    return {n: results[n] for n in names}


def _fit_here(configs, items, tags, labels, gazetteer, clusters, save_root, dev_items, feats, on_iteration,
              check, on_done, targets, fit_on, dev_for, member_names) -> dict[str, CRFFitResult]:
    out = {}
    for name, cfg in configs.items():
        if check is not None:
            check()
        t0, c0 = time.time(), time.process_time()
        cb = (lambda i, loss, _n=name: on_iteration(_n, i, loss)) if on_iteration is not None else None
        m_tags, m_labels = targets.get(name, (tags, labels))
        n = fit_on.get(name, len(items))
        member = CRFMember.train(member_names.get(name, name), items[:n], m_tags[:n], m_labels, cfg,
                                 gazetteer=gazetteer, clusters=clusters, on_iteration=cb, features=feats[name][:n])
        member.save(Path(save_root) / name)
        probs = member.predict_proba(dev_items) if dev_items is not None and (dev_for is None or name in dev_for) \
            else None
        out[name] = CRFFitResult(name, probs, round(time.time() - t0, 1), round(time.process_time() - c0, 1))
        if on_done is not None:
            on_done(out[name])
    return out


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)
