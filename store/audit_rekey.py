"""Re-keying the audit chain: every row's MAC recomputed with this installation's key.

Done once when a database is upgraded from the unkeyed SHA-256 chain of schemas 6 to 9 (the
migration to schema 10), and when a restore is accepted with ``--allow-unverified`` (a backup
from before the keyed chain, or one without a head in its manifest). Either way the rows are
taken as they are, which is exactly what cannot be verified, so the caller records it in the
log (``audit.rekey``, ``database.restore`` with ``verified: false``) in the same transaction.
"""
from __future__ import annotations

from typing import Any

from store.audit import APPEND_ONLY_TRIGGERS, GENESIS_HASH, _CONTENT, chain_hash
from store.audit_chain import chain_mac


def legacy_chain_break(conn: Any) -> int | None:
    """The first row id where the unkeyed SHA-256 chain breaks (``None`` when it holds).

    >>> import store
    >>> from store.audit_rekey import legacy_chain_break
    >>> db = store.connect(":memory:", migrate_to=9)          # a file of schema 9: unkeyed chain
    >>> for n in range(3):
    ...     _ = store.audit(db, "ana", "export", f"project:{n}")
    >>> legacy_chain_break(db) is None
    True
    >>> _ = db.execute("DROP TRIGGER audit_log_no_update")
    >>> _ = db.execute("UPDATE audit_log SET user = 'mallory' WHERE id = 2")
    >>> legacy_chain_break(db)
    2
    """
    prev = GENESIS_HASH
    for (*row, prev_hash, row_hash) in conn.execute(
            f"SELECT {_CONTENT}, prev_hash, row_hash FROM audit_log ORDER BY id"):
        if prev_hash != prev or row_hash != chain_hash(prev, *row):
            return int(row[0])
        prev = row_hash
    return None


def rekey_chain(conn: Any, key: bytes, *, batch: int = 5000) -> int:
    """Recompute every row's ``prev_hash`` and ``row_hash`` with ``key``, in id order; return the
    number of rows. Run inside the caller's write transaction: the update trigger is lifted for
    the rewrite and put back before it returns."""
    conn.execute("DROP TRIGGER IF EXISTS audit_log_no_update")
    prev, last_id, n = GENESIS_HASH, 0, 0
    while True:
        rows = conn.execute(f"SELECT {_CONTENT} FROM audit_log WHERE id > ? ORDER BY id LIMIT ?",
                            [last_id, int(batch)]).fetchall()
        if not rows:
            break
        for row in rows:
            mac = chain_mac(key, prev, *row)
            conn.execute("UPDATE audit_log SET prev_hash = ?, row_hash = ? WHERE id = ?", [prev, mac, row[0]])
            prev, last_id, n = mac, row[0], n + 1
    conn.execute(APPEND_ONLY_TRIGGERS["audit_log_no_update"])
    return n
