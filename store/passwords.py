"""Password hashing (scrypt) and the password policy: what a password must be and how it is kept.

Split out of :mod:`store.users` because it is the one part of the account code that touches no
table: :mod:`store.users` hashes and checks new passwords with it, :mod:`store.signin` verifies
(and rehashes) them.

**Hashes.** Passwords are hashed with scrypt (n=2**17, r=8, p=1, 16-byte random salt, about
128 MiB and well over half a second per hash on a small server); the parameters are stored with
the hash (``scrypt$n$r$p$salt$hash``), so a hash made with a lower cost (the old n=2**14) still
verifies and is rehashed at the current cost on the next successful sign-in. The test suite
lowers the cost with ``$WORKBENCH_TEST_SCRYPT_N`` (set only by ``tests/conftest.py``); nothing
else should set it.

**Policy.** :func:`password_problem` is the one place that says what a password must be (the
store enforces it on every create and reset; the Admin page and the command line show its
words): at least :data:`MIN_PASSWORD_LENGTH` characters (a passphrase of several words is the
easy way there), not one of the most common passwords (``common_passwords.txt`` beside this
module, checked case-insensitively, also with digits and symbols stripped), not the username,
and hard to guess: zxcvbn (Dropbox's estimator, the ``zxcvbn`` package) must score it at least
:data:`MIN_STRENGTH`, so repeats, sequences, keyboard rows, dates, dictionary words and the
username count against it, while a random string of symbols and digits does not.
"""
from __future__ import annotations

import functools
import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

from store.errors import InvalidValueError

#: The scrypt cost of new hashes (n); r and p are fixed.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2 ** 17, 8, 1
#: Lowers the scrypt cost for the test suite only (a power of two); unset in production.
TEST_COST_ENV = "WORKBENCH_TEST_SCRYPT_N"
_MAX_N = 2 ** 20  # never verify a stored hash that asks for more (1 GiB of memory)

MIN_PASSWORD_LENGTH = 12
MAX_PASSWORD_LENGTH = 1024
#: The least zxcvbn score (0-4) a password must reach: 3 is "safely unguessable" (about 10**8
#: guesses and more), which an attacker holding a hash must pay scrypt's cost for each.
MIN_STRENGTH = 3
STRENGTH_PREFIX = 100
COMMON_PASSWORDS_FILE = Path(__file__).with_name("common_passwords.txt")
#: The policy in one sentence, for forms and ``--help``.
PASSWORD_RULES = (f"at least {MIN_PASSWORD_LENGTH} characters (a passphrase of several words is easiest), "
                  "not a common password, not the username, not easy to guess")


# --------------------------------------------------------------------------- hashing

def scrypt_cost() -> int:
    """The scrypt ``n`` for new hashes: :data:`SCRYPT_N`, unless the test suite lowered it.

    >>> from store.passwords import scrypt_cost, SCRYPT_N, TEST_COST_ENV
    >>> import os
    >>> scrypt_cost() == int(os.environ.get(TEST_COST_ENV) or SCRYPT_N)
    True
    """
    raw = os.environ.get(TEST_COST_ENV, "").strip()
    if not raw:
        return SCRYPT_N
    try:
        n = int(raw)
    except ValueError:
        n = 0
    if n < 2 or n & (n - 1) or n > _MAX_N:
        raise InvalidValueError(f"{TEST_COST_ENV} must be a power of two between 2 and {_MAX_N}")
    return n


def _maxmem(n: int, r: int, p: int) -> int:
    """Memory scrypt needs (OpenSSL refuses above ``maxmem``, 32 MiB by default)."""
    return 128 * r * (n + p + 2) + 2 ** 20


def hash_password(password: str, *, n: int | None = None, r: int = SCRYPT_R, p: int = SCRYPT_P) -> str:
    n = scrypt_cost() if n is None else n
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=32, maxmem=_maxmem(n, r, p))
    return f"scrypt${n}${r}${p}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt_hex, digest_hex = stored.split("$")
        if scheme != "scrypt" or not 2 <= int(n) <= _MAX_N or int(r) > 64 or int(p) > 16:
            return False
        digest = hashlib.scrypt(password.encode("utf-8"), salt=bytes.fromhex(salt_hex), n=int(n), r=int(r),
                                p=int(p), dklen=len(digest_hex) // 2, maxmem=_maxmem(int(n), int(r), int(p)))
    except (ValueError, TypeError, MemoryError):
        return False
    return hmac.compare_digest(digest.hex(), digest_hex)


def needs_rehash(stored: str) -> bool:
    """Whether a stored hash was made at a lower cost than new hashes get (rehash on sign-in)."""
    try:
        scheme, n, r, p, _salt, _digest = stored.split("$")
        return scheme != "scrypt" or int(n) < scrypt_cost() or int(r) < SCRYPT_R or int(p) < SCRYPT_P
    except ValueError:
        return True


@functools.lru_cache(maxsize=4)
def _dummy_hash(n: int) -> str:
    """Checked against for unknown users, so "no such user" takes as long as "wrong password"."""
    return hash_password("not a password", n=n)


# --------------------------------------------------------------------------- password policy

@functools.lru_cache(maxsize=1)
def _common_passwords() -> frozenset[str]:
    lines = COMMON_PASSWORDS_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip().casefold() for line in lines if line.strip() and not line.startswith("#"))


def _forms(password: str) -> set[str]:
    """The password as typed (case-folded), without spaces, and its letters alone (so
    ``Password2024!`` is caught as ``password``)."""
    folded = password.casefold().strip()
    letters = "".join(ch for ch in folded if ch.isalpha())
    forms = {folded, re.sub(r"\s+", "", folded)}
    if len(letters) >= 4:
        forms.add(letters)
    return forms


def _strength(password: str, username: str) -> dict:
    """zxcvbn's estimate, with the username as a word an attacker would try first. Only the
    first :data:`STRENGTH_PREFIX` characters are scored (zxcvbn's matching grows fast with
    length; a password that long is past any guessing anyway)."""
    from zxcvbn import zxcvbn

    return zxcvbn(password[:STRENGTH_PREFIX], user_inputs=[username] if username else [])


def _uses_username(matches: list) -> bool:
    """Whether zxcvbn found the username among the parts (also inside a repeated part)."""
    return any((m.get("pattern") == "dictionary" and m.get("dictionary_name") == "user_inputs")
               or _uses_username(m.get("base_matches") or []) for m in matches)


def password_problem(password: str, username: str | None = None) -> str | None:
    """Why ``password`` is not acceptable, in words (never quoting it), or ``None`` if it is.

    >>> import store
    >>> print(store.password_problem("correct horse battery"))
    None
    >>> print(store.password_problem("7$9#2!4&8*1%", username="ana"))    # strong, whatever its letters
    None
    >>> store.password_problem("abc")
    'password too short: at least 12 characters (a passphrase of several words is easiest)'
    >>> store.password_problem("Password1234!")
    'password too common: it is one of the most used passwords; choose another'
    >>> store.password_problem("anastasia1234", username="anastasia")
    'the password must not be (or be made from) the username'
    >>> store.password_problem("abcdeabcdeab")
    'password too easy to guess: repeats like "abcabcabc" are only slightly harder to guess than "abc"'
    """
    if not isinstance(password, str) or not password:
        return "a password cannot be empty"
    if len(password) < MIN_PASSWORD_LENGTH:
        return (f"password too short: at least {MIN_PASSWORD_LENGTH} characters "
                "(a passphrase of several words is easiest)")
    if len(password) > MAX_PASSWORD_LENGTH:
        return f"password too long: at most {MAX_PASSWORD_LENGTH} characters"
    name = (username or "").strip().casefold()
    if name and name in _forms(password):
        return "the password must not be (or be made from) the username"
    if _forms(password) & _common_passwords():
        return "password too common: it is one of the most used passwords; choose another"
    result = _strength(password, name)
    if result["score"] >= MIN_STRENGTH:
        return None
    if name and (_uses_username(result.get("sequence", [])) or name in password.casefold()):
        return "the password must not be (or be made from) the username"
    warning = str(result.get("feedback", {}).get("warning") or "").strip().rstrip(".")
    reason = (warning[:1].lower() + warning[1:]) if warning else (
        "it follows a pattern (repeats, sequences, keyboard rows, dates or common words)")
    return f"password too easy to guess: {reason}"


def check_password_policy(password: str, username: str | None = None) -> None:
    """Raise :class:`InvalidValueError` with :func:`password_problem`'s words, if any.

    >>> import store
    >>> store.check_password_policy("a long enough passphrase")
    >>> store.check_password_policy("qwerty123456")
    Traceback (most recent call last):
    ...
    store.errors.InvalidValueError: password too common: it is one of the most used passwords; choose another
    """
    problem = password_problem(password, username)
    if problem:
        raise InvalidValueError(problem)
