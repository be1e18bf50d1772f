"""Checking the audit log (``python -m pipeline audit --verify``, and every restore): the keyed
chain recomputed oldest row first, the append-only triggers, and the log's end against its head
recorded outside the database (:mod:`store.audit_chain`). Separate from :mod:`store.audit`,
which writes rows, because a check only reads.
"""
from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database

from store.audit import GENESIS_HASH, _CONTENT, _keying, audit_protection_problems, has_hash_chain, is_keyed
from store.audit_chain import Head, HeadFileError, chain_mac, read_heads
from store.db import loads, read_snapshot


@dataclass(frozen=True)
class AuditCheck:
    """What :func:`verify_audit_chain` found. ``problem`` is words about ids and triggers only."""

    ok: bool
    rows: int
    head_hash: str | None = None
    first_bad_id: int | None = None
    problem: str | None = None
    head_id: int | None = None
    #: rows 1 to this one were taken as they were, unverified (re-keyed on upgrade or by a restore
    #: with ``allow_unverified``), as the audit row ``unverified_by`` records
    unverified_up_to: int | None = None
    unverified_by: int | None = None

    def line(self) -> str:
        """One line for a person: whether the chain holds and, if not, where it breaks."""
        if self.ok:
            head = f", head {self.head_hash[:16]}" if self.head_hash else ""
            recorded = (f" up to its recorded head (row {self.head_id})" if self.head_id is not None else "")
            taken = (f"; rows 1 to {self.unverified_up_to} were taken unverified (see audit row {self.unverified_by})"
                     if self.unverified_up_to else "")
            return f"audit log intact: {self.rows} row(s), the keyed chain holds{recorded}{head}{taken}"
        where = f" at row {self.first_bad_id}" if self.first_bad_id is not None else ""
        return f"audit log NOT intact{where}: {self.problem} ({self.rows} row(s) in the log)"


_FROM_FILE = object()


def verify_audit_chain(db: Any, *, key: bytes | None = None, heads: Any = _FROM_FILE, exact_end: bool = False,
                       batch: int = 5000) -> AuditCheck:
    """Recompute the whole keyed chain, oldest row first, check the protective triggers, and
    compare the log's end with its recorded head.

    ``key`` defaults to the connection's chain key (from the installation key beside the file);
    ``heads`` to the head file beside it (read before the log, so it never names a row the
    snapshot cannot see), a list of :class:`~store.audit_chain.Head` (a backup's manifest), or
    ``None`` for no head (an in-memory store). ``exact_end``: the log must end at the head (a
    backup is a snapshot; anywhere else rows past a lagging head are fine when their MACs hold).

    Returns an :class:`AuditCheck`: ``ok`` when every row's MAC matches its content and links to
    the row before it, the log reaches its head and the triggers are in place; otherwise the
    first bad row id in words, without any row's content.

    >>> import store
    >>> db = store.connect(":memory:")
    >>> for n in range(3):
    ...     _ = store.audit(db, "ana", "export", f"project:{n}")
    >>> store.verify_audit_chain(db).line()                  # doctest: +ELLIPSIS
    'audit log intact: 3 row(s), the keyed chain holds, head ...'
    >>> _ = db.execute("DROP TRIGGER audit_log_no_update")    # someone with a SQLite shell...
    >>> _ = db.execute("UPDATE audit_log SET user = 'mallory' WHERE id = 2")
    >>> store.verify_audit_chain(db).line()
    'audit log NOT intact at row 2: the row does not match its MAC (it was altered, added or renumbered without the key); append-only triggers missing or altered: audit_log_no_update (3 row(s) in the log)'
    """
    head_problem: str | None = None
    if key is None:
        key = _keying(db).existing_key
        if key is None:
            rows = int(db.execute("SELECT COUNT(*) FROM audit_log").fetchone()[0])
            return AuditCheck(False, rows, problem=f"the installation key ({_keying(db).key_file.name}) is missing, "
                                                   "so the chain cannot be checked")
    if heads is _FROM_FILE:
        keying = _keying(db)
        heads = None
        if keying.head_file is not None:
            try:
                heads = read_heads(keying.head_file, key)
            except HeadFileError as e:
                head_problem = str(e)
            else:
                if heads is None:
                    head_problem = (f"its recorded head ({keying.head_file.name}) is missing, so rows removed "
                                    "from the end could not be seen")
    if isinstance(db, Database):
        with read_snapshot(db):
            check = _verify(db, key, heads, exact_end, batch)
    else:
        check = _verify(db, key, heads, exact_end, batch)
    if head_problem is None:
        return check
    problem = "; ".join(p for p in (check.problem, head_problem) if p)
    return AuditCheck(False, check.rows, first_bad_id=check.first_bad_id, problem=problem)


def _verify(db: Any, key: bytes, heads: list[Head] | None, exact_end: bool, batch: int) -> AuditCheck:
    if not has_hash_chain(db) or not is_keyed(db):
        rows = int(db.execute("SELECT COUNT(*) FROM audit_log").fetchone()[0])
        return AuditCheck(False, rows, problem="this database has no keyed chain yet (open it with the workbench "
                                                "to bring its schema up to date)")
    bad_triggers = audit_protection_problems(db, chained=True)
    expected_prev, last_id, rows = GENESIS_HASH, 0, 0
    first_bad: int | None = None
    problem: str | None = None
    while first_bad is None:
        chunk = db.execute(f"SELECT {_CONTENT}, prev_hash, row_hash FROM audit_log WHERE id > ? ORDER BY id LIMIT ?",
                           (last_id, int(batch))).fetchall()
        if not chunk:
            break
        for (rid, at, user, action, target, doc_id, detail_json, prev_hash, row_hash) in chunk:
            rows += 1
            last_id = rid
            if row_hash is None or prev_hash is None:
                first_bad, problem = rid, "the row has no MAC (it was added outside the workbench)"
            elif prev_hash != expected_prev:
                first_bad, problem = rid, ("the row does not follow the row before it "
                                           "(a row was removed, inserted or altered before it)")
            elif not hmac.compare_digest(chain_mac(key, prev_hash, rid, at, user, action, target, doc_id,
                                                   detail_json), row_hash):
                first_bad, problem = rid, ("the row does not match its MAC (it was altered, added or renumbered "
                                           "without the key)")
            if first_bad is not None:
                break
            expected_prev = row_hash
    if first_bad is not None:
        rows = int(db.execute("SELECT COUNT(*) FROM audit_log").fetchone()[0])
    head_id = None
    if heads:
        head_bad, head_words = _against_heads(db, heads, exact_end, last_id if first_bad is None else None)
        if head_bad is not None and (first_bad is None or head_bad < first_bad):
            first_bad, problem = head_bad, head_words
        head_id = heads[0].id if head_bad is None else None
    problems = [problem] if problem else []
    if bad_triggers:
        problems.append(f"append-only triggers missing or altered: {', '.join(bad_triggers)}")
    if problems:
        return AuditCheck(False, rows, first_bad_id=first_bad, problem="; ".join(problems))
    up_to, by = _unverified_prefix(db)
    return AuditCheck(True, rows, head_hash=expected_prev if rows else None, head_id=head_id,
                      unverified_up_to=up_to, unverified_by=by)


def _unverified_prefix(db: Any) -> tuple[int | None, int | None]:
    """The newest record of rows taken unverified: an upgrade's ``audit.rekey`` (the rows before
    it) or a ``database.restore`` with ``verified: false`` (its ``unverifiable_up_to``)."""
    for rid, action, detail_json in db.execute(
            "SELECT id, action, detail_json FROM audit_log WHERE action IN ('audit.rekey', 'database.restore') "
            "ORDER BY id DESC"):
        detail = loads(detail_json, {}) or {}
        if action == "audit.rekey":
            return int(rid) - 1, int(rid)
        if detail.get("verified") is False:
            return detail.get("unverifiable_up_to"), int(rid)
    return None, None


def _against_heads(db: Any, heads: list[Head], exact_end: bool, last_id: int | None) -> tuple[int | None, str | None]:
    """The first bad row id and why, when the log does not reach any of its recorded heads."""
    if last_id is None:
        last_id = int(db.execute("SELECT COALESCE(MAX(id), 0) FROM audit_log").fetchone()[0])
    for head in heads:
        if head.id == 0:                                  # the head of an empty log
            if not exact_end or last_id == 0:
                return None, None
            continue
        row = db.execute("SELECT row_hash FROM audit_log WHERE id = ?", [head.id]).fetchone()
        count = int(db.execute("SELECT COUNT(*) FROM audit_log WHERE id <= ?", [head.id]).fetchone()[0])
        if row is not None and row[0] == head.mac and count == head.rows and not (exact_end and last_id > head.id):
            return None, None
    head = heads[0]
    if head.id == 0:
        return 1, "the log goes on past its recorded head (rows were added after it was taken)"
    row = db.execute("SELECT row_hash FROM audit_log WHERE id = ?", [head.id]).fetchone()
    if last_id < head.id:
        return last_id + 1, (f"the log ends at row {last_id}, before its recorded head (row {head.id}): rows were "
                             "removed from the end, or the file was put back from an older copy")
    if row is None or row[0] != head.mac:
        return head.id, (f"row {head.id} is not the row its recorded head names (the log was replaced "
                         "or rewritten)")
    count = int(db.execute("SELECT COUNT(*) FROM audit_log WHERE id <= ?", [head.id]).fetchone()[0])
    if count != head.rows:
        return head.id, f"the log holds {count} row(s) up to its recorded head, which says {head.rows}"
    return head.id + 1, "the log goes on past its recorded head (rows were added after it was taken)"
