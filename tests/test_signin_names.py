"""What sign-in keeps of a typed name, and the locked-out only lead (issue 29, item 10).

The name typed at sign-in was stored verbatim and unbounded (a password typed into the name box
was kept in clear in the audit log; a 1,000,000-character name became a 1 MB row). Names that
are not accounts are now kept only as a keyed hash, and names over the length cap are refused
in one line with nothing stored. Ten wrong guesses lock any name, the only lead's too: the
sign-in page says how to lift that on the command line, and ``users unlock`` does.
Passwords here are synthetic; no test prints one.
"""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

import store
from apptest_helpers import LEAD, PASSWORD, demo_app, new_app  # noqa: F401
from cli import main
from dashboard import auth, state
from services import users as accounts
from store import signin as store_signin

TYPED_BY_MISTAKE = "Tr0ub4dor&3 horse staple"      # a password typed into the name box


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "wb.db"
    db = store.connect(p)
    store.create_user(db, "ana", PASSWORD, "annotator")
    store.create_user(db, "lea", PASSWORD, "lead")
    db.close()
    return p


def _everything_stored(db) -> str:
    rows = db.execute("SELECT * FROM audit_log").fetchall() + db.execute("SELECT * FROM signin_failures").fetchall()
    return json.dumps(rows, default=str)


def test_an_unknown_name_is_kept_only_as_a_keyed_hash_and_still_counted(path):
    db = store.connect(path)
    outcomes = [accounts.sign_in(db, TYPED_BY_MISTAKE, "not the password", 3600).outcome for _ in range(store_signin.FREE_FAILURES)]
    assert outcomes == ["refused"] * store_signin.FREE_FAILURES
    stored = _everything_stored(db)
    assert TYPED_BY_MISTAKE not in stored and "Tr0ub4dor" not in stored
    names = [r[0] for r in db.execute("SELECT username FROM signin_failures")]
    assert len(names) == 1 and names[0].startswith(store_signin.UNKNOWN_PREFIX)
    assert db.execute("SELECT failures FROM signin_failures").fetchone()[0] == store_signin.FREE_FAILURES
    failed = [e for e in store.list_audit(db, action="user.login_failed")]
    assert {e.target for e in failed} == {f"user:{names[0]}"}
    # the same wrong name is throttled like an account's, by the app and the command line alike
    assert accounts.sign_in(db, TYPED_BY_MISTAKE, "not the password", 3600).outcome == "throttled"
    # an account's name is kept as it is (the Admin page lists its failures)
    accounts.sign_in(db, "ana", "not the password", 3600)
    assert accounts.sign_in_states(db)["ana"].failures == 1
    db.close()


def test_the_hash_is_keyed_with_the_installation_key(path, tmp_path):
    db = store.connect(path)
    other = store.connect(tmp_path / "other.db")
    ours = store_signin.recorded_name(db, "somebody", accounts.name_key(db))
    theirs = store_signin.recorded_name(other, "somebody", accounts.name_key(other))
    assert ours != theirs and "somebody" not in ours
    db.close()
    other.close()


def test_an_over_long_name_is_refused_in_one_line_and_nothing_is_stored(path):
    db = store.connect(path)
    before = _everything_stored(db)
    for name in ("x" * 1_000_000, "a" * (store.MAX_USERNAME_LENGTH + 1)):
        with pytest.raises(store.InvalidValueError) as e:
            accounts.sign_in(db, name, "not the password", 3600)
        assert str(e.value) == f"a username has at most {store.MAX_USERNAME_LENGTH} characters"
    assert _everything_stored(db) == before
    with pytest.raises(store.InvalidValueError, match="at most"):
        store.create_user(db, "b" * (store.MAX_USERNAME_LENGTH + 1), PASSWORD, "annotator")
    assert accounts.sign_in(db, "a" * store.MAX_USERNAME_LENGTH, "not the password", 3600).outcome == "refused"
    db.close()


def test_the_only_lead_locked_out_is_told_about_and_unlocked_on_the_command_line(demo_app, capsys):
    with demo_app.db() as db:
        for u in accounts.list_users(db):                          # LEAD is the only active lead
            if u.role == "lead" and u.username != LEAD:
                store.set_disabled(db, u.username, True)
        store.set_password(db, LEAD, PASSWORD)
        earlier = datetime.now(timezone.utc) - timedelta(days=1)
        for i in range(store_signin.LOCK_AFTER):                   # ten wrong guesses, spaced out
            store.sign_in_attempt(db, LEAD, "not the password", now=earlier + i * timedelta(minutes=30),
                                  name_key=accounts.name_key(db))
        assert accounts.sign_in(db, LEAD, PASSWORD, 3600).outcome == "locked"
    at = new_app(demo_app)
    at.run()
    at.text_input(key="signin.username").input(LEAD)
    at.text_input(key="signin.password").input(PASSWORD)
    at.button(key="signin.submit").click()
    at.run()
    said = [e.value for e in at.error]
    assert said == [auth.LOCKED] and "python -m pipeline users unlock" in said[0]
    assert state.TOKEN_KEY not in at.session_state
    assert main(["users", "--db", str(demo_app.db_path), "unlock", LEAD]) == 0
    assert "unlocked" in capsys.readouterr().out
    with demo_app.db() as db:
        assert accounts.sign_in(db, LEAD, PASSWORD, 3600).ok
