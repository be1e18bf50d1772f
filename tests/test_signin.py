"""Sign-in hardening from a security review (defect 9): failed sign-ins are counted per name in
the database (a new browser session gets no fresh start), back off after 5 and lock after 10
until a lead unlocks (Admin page or ``users unlock``, audited); one password policy for the
store, the Admin page and the command line; scrypt at n=2**17 with old hashes rehashed at the
next sign-in; the sign-in page shows throttling and lockout in words that are the same for
names that are not accounts. Passwords here are synthetic; no test prints one."""
from __future__ import annotations

import io
import re
import sys
from datetime import datetime, timedelta, timezone

import pytest

import store
from apptest_helpers import LEAD, PASSWORD, demo_app, errors, new_app, open_page, sign_in  # noqa: F401
from cli import main
from dashboard import auth, state
from services import users as accounts
from store import passwords as store_passwords
from store import signin as store_signin

T0 = datetime(2070, 1, 2, tzinfo=timezone.utc)


@pytest.fixture
def db(tmp_path):
    conn = store.connect(tmp_path / "wb.db")
    store.create_user(conn, "ana", PASSWORD, "annotator")
    store.create_user(conn, LEAD, PASSWORD, "lead")
    yield conn
    conn.close()


def _fail(db, name: str, times: int, *, start: datetime = T0, spacing: timedelta = timedelta(hours=1)) -> list[str]:
    """``times`` failed sign-ins spaced so that none waits (an hour apart by default)."""
    key = accounts.name_key(db)      # the app's key: names that are not accounts are kept hashed with it
    return [store.sign_in_attempt(db, name, "not the password", now=start + i * spacing, name_key=key).outcome
            for i in range(times)]


# --------------------------------------------------------------------------- counting in the database

def test_9_failures_are_counted_per_account_in_the_database_not_per_session(tmp_path, db):
    # five failures from five different connections (five browser sessions, or five processes)
    for i in range(store_signin.FREE_FAILURES):
        other = store.connect(tmp_path / "wb.db")
        assert store.sign_in_attempt(other, "ana", "not the password", now=T0 + timedelta(seconds=i)).outcome == "refused"
        other.close()
    fresh = store.connect(tmp_path / "wb.db")                     # a brand-new session...
    r = store.sign_in_attempt(fresh, "ana", PASSWORD, now=T0 + timedelta(seconds=10))
    assert r.outcome == "throttled" and r.user is None          # ...waits, even with the right password
    assert r.retry_after_s == pytest.approx(store_signin.BASE_DELAY_S - 6)
    assert store.sign_in_attempt(fresh, LEAD, PASSWORD, now=T0 + timedelta(seconds=10)).ok   # per account
    assert store.sign_in_attempt(fresh, "ana", PASSWORD, now=T0 + timedelta(seconds=40)).ok  # after the wait
    assert store.sign_in_states(fresh) == {}                    # a success clears the count
    refused = store.list_audit(fresh, action="user.login_refused")
    assert [e.detail["reason"] for e in refused] == ["throttled"] and PASSWORD not in str(refused[0].detail)
    fresh.close()


def test_9_the_delay_grows_then_the_account_locks_until_a_lead_unlocks(db):
    assert [store_signin.delay_after(n) for n in range(4, 10)] == [0, 30, 60, 120, 240, 480]
    outcomes = _fail(db, "ana", store_signin.LOCK_AFTER)
    assert outcomes == ["refused"] * 9 + ["locked"]
    later = T0 + timedelta(days=20)
    r = store.sign_in_attempt(db, "ana", PASSWORD, now=later)
    assert r.outcome == "locked" and r.user is None             # the right password does not open it
    assert store.sign_in_states(db)["ana"].locked
    with pytest.raises(store.NotFoundError):
        store.unlock_user(db, "nobody", user="lea")
    assert accounts.unlock(db, store.get_user(db, LEAD), "ana") is True
    assert store.sign_in_attempt(db, "ana", PASSWORD, now=later).ok
    entry = store.list_audit(db, action="user.unlock")[0]
    assert (entry.user, entry.target, entry.detail) == (LEAD, "user:ana", {"failures": 10, "was_locked": True})


def test_9_unlock_needs_a_lead(db):
    _fail(db, "ana", store_signin.LOCK_AFTER)
    from pipeline.errors import PermissionDenied
    with pytest.raises(PermissionDenied):
        accounts.unlock(db, store.get_user(db, "ana"), "ana")
    assert store.sign_in_states(db)["ana"].locked


def test_9_users_unlock_command(tmp_path, db, capsys):
    _fail(db, "ana", store_signin.LOCK_AFTER)
    path = str(tmp_path / "wb.db")
    assert main(["users", "--db", path, "list"]) == 0
    assert "ana\tannotator\tactive\tlocked" in capsys.readouterr().out
    assert main(["users", "--db", path, "unlock", "ana"]) == 0
    assert capsys.readouterr().out.strip() == "user ana unlocked"
    assert store.sign_in_attempt(db, "ana", PASSWORD).ok
    assert store.list_audit(db, action="user.unlock")[0].user.startswith("cli")
    assert main(["users", "--db", path, "unlock", "nobody"]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_9_names_that_are_not_accounts_get_the_same_answers(db):
    known = _fail(db, "ana", 12)
    unknown = _fail(db, "nobody-here", 12)
    assert known == unknown == ["refused"] * 9 + ["locked"] * 3
    quick_known = [store.sign_in_attempt(db, LEAD, "x" * 12, now=T0 + timedelta(seconds=i)) for i in range(7)]
    quick_unknown = [store.sign_in_attempt(db, "ghost", "x" * 12, now=T0 + timedelta(seconds=i)) for i in range(7)]
    assert [(r.outcome, r.retry_after_s) for r in quick_known] == [(r.outcome, r.retry_after_s) for r in quick_unknown]
    assert [r.outcome for r in quick_known] == ["refused"] * 5 + ["throttled"] * 2


def test_9_parallel_guesses_are_counted_before_the_password_check(db):
    """The count goes up before the slow hash, so a burst of guesses cannot all pass one window."""
    r = None
    for i in range(8):
        r = store.sign_in_attempt(db, "ana", "not the password", now=T0)   # all at the same instant
    assert r.outcome == "throttled"
    assert db.execute("SELECT failures FROM signin_failures WHERE username = 'ana'").fetchone()[0] == 5


# --------------------------------------------------------------------------- password policy

@pytest.mark.parametrize("bad,words", [
    ("a", "too short"), ("abc", "too short"), ("short pass", "too short"),
    ("password1234", "too common"), ("Password2024!", "too common"), ("qwertyuiop12", "too common"),
    ("correct horse battery staple", "too common"), ("aaaaaaaaaaaaaaa", "too easy to guess"),
    ("ana-ana-ana-12345", "username"),
])
def test_9_password_policy_refuses_weak_passwords_everywhere(db, bad, words):
    assert words in accounts.password_problem(bad, "ana")
    with pytest.raises(store.InvalidValueError, match=words):
        store.set_password(db, "ana", bad)
    with pytest.raises(store.InvalidValueError, match=words):
        store.create_user(db, "ana" if words == "username" else "zoe", bad, "annotator")
    assert store.get_user(db, "zoe") is None
    assert store.authenticate(db, "ana", PASSWORD) is not None   # the old password still works


def test_9_command_line_refuses_weak_passwords_with_the_policys_words(tmp_path, db, capsys, monkeypatch):
    path = str(tmp_path / "wb.db")
    for bad in ("a", "abc", "password1234"):
        monkeypatch.setattr(sys, "stdin", io.StringIO(bad + "\n"))
        assert main(["users", "--db", path, "add", "zoe", "--role", "annotator", "--password-stdin"]) == 1
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and ("too short" in err or "too common" in err)
        assert len(bad) < 4 or bad not in err
    assert store.get_user(db, "zoe") is None
    monkeypatch.setattr(sys, "stdin", io.StringIO("abc\n"))
    assert main(["users", "--db", path, "reset-password", "ana", "--password-stdin"]) == 1
    monkeypatch.setattr(sys, "stdin", io.StringIO("abc\n"))
    assert main(["init-project", "--db", str(tmp_path / "new.db"), "--no-demo", "--lead-password-stdin"]) == 1
    assert "too short" in capsys.readouterr().err


def test_9_admin_page_refuses_weak_passwords_in_words(demo_app):
    at = new_app(demo_app)
    sign_in(at, demo_app, LEAD, "lead")
    open_page(at, "admin")
    at.text_input(key="admin.new_username").input("zoe")
    at.text_input(key="admin.new_password").input("abc")
    at.button(key="admin.create_user_submit").click().run()
    assert any("password too short: at least 12 characters" in e for e in errors(at))
    with demo_app.db() as db:
        assert store.get_user(db, "zoe") is None
    at.selectbox(key="admin.target").set_value("ana")
    at.text_input(key="admin.password").input("iloveyou2024")
    at.button(key="admin.do_password").click().run()
    assert any("password too common" in e for e in errors(at))


def test_9_admin_page_unlocks_a_locked_account(demo_app):
    with demo_app.db() as db:
        store.set_password(db, "ana", PASSWORD)
        _fail(db, "ana", store_signin.LOCK_AFTER, start=datetime.now(timezone.utc) - timedelta(days=1),
              spacing=timedelta(minutes=30))
    at = new_app(demo_app)
    sign_in(at, demo_app, LEAD, "lead")
    open_page(at, "admin")
    table = at.dataframe[0].value
    assert table.loc[table.username == "ana", "sign-in"].item() == "locked"
    at.selectbox(key="admin.target").set_value("ana")
    at.button(key="admin.do_unlock").click().run()
    assert not errors(at)
    assert any("ana unlocked" in s.value for s in at.success)
    with demo_app.db() as db:
        assert store.authenticate(db, "ana", PASSWORD) is not None
        assert store.list_audit(db, action="user.unlock")[0].user == LEAD


# --------------------------------------------------------------------------- hashing cost

def test_9_scrypt_default_cost_is_2_17_and_tests_lower_it(monkeypatch):
    assert store_passwords.SCRYPT_N == 2 ** 17
    assert store_passwords.scrypt_cost() == 2 ** 10             # set by tests/conftest.py, for speed
    monkeypatch.delenv(store_passwords.TEST_COST_ENV)
    assert store_passwords.scrypt_cost() == 2 ** 17
    hashed = store_passwords.hash_password("correct horse battery")   # one real hash: ~0.6 s, 128 MiB
    assert hashed.startswith("scrypt$131072$8$1$")
    assert store_passwords.verify_password("correct horse battery", hashed)
    monkeypatch.setenv(store_passwords.TEST_COST_ENV, "1000")   # not a power of two
    with pytest.raises(store.InvalidValueError):
        store_passwords.scrypt_cost()


def test_9_old_hash_is_rehashed_at_the_next_successful_sign_in(db, monkeypatch):
    old = store_passwords.hash_password(PASSWORD, n=2 ** 14)    # what the workbench stored before
    db.execute("UPDATE users SET password_hash = ? WHERE username = 'ana'", [old])
    db.conn.commit()
    monkeypatch.delenv(store_passwords.TEST_COST_ENV)           # the production cost
    assert store.authenticate(db, "ana", "not the password") is None
    assert db.execute("SELECT password_hash FROM users WHERE username = 'ana'").fetchone()[0] == old
    assert store.authenticate(db, "ana", PASSWORD).username == "ana"
    new = db.execute("SELECT password_hash FROM users WHERE username = 'ana'").fetchone()[0]
    assert new.startswith("scrypt$131072$8$1$") and new != old
    assert store.list_audit(db, action="user.login")[0].detail == {"rehashed": True}
    assert store.authenticate(db, "ana", PASSWORD).username == "ana"
    assert store.list_audit(db, action="user.login")[0].detail == {}   # once


# --------------------------------------------------------------------------- the sign-in page

def _attempt(at, username: str, password: str) -> list[str]:
    at.text_input(key="signin.username").input(username)
    at.text_input(key="signin.password").input(password)
    at.button(key="signin.submit").click().run()
    return errors(at)


def _digits_out(messages: list[str]) -> list[str]:
    return [re.sub(r"\d+", "N", m) for m in messages]


def test_9_sign_in_page_throttles_across_browser_sessions_and_says_so(demo_app):
    with demo_app.db() as db:
        store.set_password(db, "ana", PASSWORD)
    first = new_app(demo_app)
    first.run()
    for _ in range(store_signin.FREE_FAILURES - 1):
        assert _attempt(first, "ana", "not the password") == [auth.REFUSED]
    last = _attempt(first, "ana", "not the password")
    assert last[0].startswith(auth.REFUSED) and "wait" in last[0]
    second = new_app(demo_app)                                  # a new browser session: no fresh start
    second.run()
    msg = _attempt(second, "ana", PASSWORD)
    assert len(msg) == 1 and msg[0].startswith("Too many failed sign-ins with this username: wait ")
    assert state.TOKEN_KEY not in second.session_state


def test_9_sign_in_page_shows_the_lockout_without_saying_whether_the_user_exists(demo_app):
    with demo_app.db() as db:
        store.set_password(db, "ana", PASSWORD)
        yesterday = datetime.now(timezone.utc) - timedelta(days=1)
        _fail(db, "ana", store_signin.LOCK_AFTER, start=yesterday, spacing=timedelta(minutes=30))
        _fail(db, "nobody-here", store_signin.LOCK_AFTER, start=yesterday, spacing=timedelta(minutes=30))
        now = datetime.now(timezone.utc)
        _fail(db, "ben", store_signin.FREE_FAILURES, start=now, spacing=timedelta(0))      # throttled from now on
        _fail(db, "ghost", store_signin.FREE_FAILURES, start=now, spacing=timedelta(0))
    at = new_app(demo_app)
    at.run()
    locked_known = _attempt(at, "ana", PASSWORD)
    locked_unknown = _attempt(at, "nobody-here", PASSWORD)
    assert locked_known == locked_unknown == [auth.LOCKED]
    assert "locked until a lead unlocks it" in auth.LOCKED
    throttled_known = _attempt(at, "ben", "not the password")
    throttled_unknown = _attempt(at, "ghost", "not the password")
    assert len(throttled_known) == 1 and throttled_known[0].startswith("Too many failed sign-ins with this username")
    assert _digits_out(throttled_known) == _digits_out(throttled_unknown)
    wrong_known = _attempt(at, LEAD, "not the password")
    wrong_unknown = _attempt(at, "someone-else", "not the password")
    assert wrong_known == wrong_unknown == [auth.REFUSED]
    assert state.TOKEN_KEY not in at.session_state
