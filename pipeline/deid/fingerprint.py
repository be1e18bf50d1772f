"""Which profile and key a run used, without the key: so a resume cannot mix two of either.

A resumed run writes only what the first attempt lacks; with another profile (or another
secret) the result is half one and half the other (some notes redacted, others replaced; two
surrogates for one patient). A run therefore records a fingerprint, and a resume recomputes it
and refuses to go on when it differs:

* ``k``: a key check value, ``HMAC(secret, "key-check")``: equal keys give equal values; the
  value reveals nothing about the key (it is a MAC of a fixed message);
* ``p``: ``HMAC(secret, profile JSON)`` over what changes an output (the profile's name and
  description are left out: renaming a profile changes no byte);
* ``l``: the locale the surrogates are drawn in, where the caller names one (the folder
  command's ``--locale``, a project's locale): a locale code, not a secret.
* ``m``: for a profile with the ``paraphrase`` action only, which language model filled the
  spans (``HMAC(secret, model name)``, or ``none`` when there was none and list surrogates were
  used): a resume with another model, or with one where there was none, would mix two kinds
  of surrogate in one run.
* ``s``: where the caller names one (the folder command), the label schema the inputs were read
  with (``HMAC(secret, schema JSON)``): another schema reads other spans from the same files.
* ``d``: where spans were detected (the folder command's ``--model``), which detection model
  found them (``HMAC(secret, model id)``, the model folder's content digest): another model finds
  other spans. Absent when the input's own spans were used.

Project runs keep it in ``deid_runs.fingerprint``; the folder command in a small owner-only file
beside its outputs (:data:`FINGERPRINT_FILE`), which holds these two values and nothing else.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from pipeline.deid.keys import keyed_bytes
from pipeline.deid.profile import Profile
from pipeline.errors import WorkbenchError

VERSION = "v1"
FINGERPRINT_FILE = ".deid-fingerprint.json"
_IGNORED = ("name", "description")


class FingerprintError(WorkbenchError):
    """A fingerprint file that cannot be read (the message names the file, never a key)."""


def profile_json(profile: Profile) -> str:
    """The profile as canonical JSON, without the fields that change no output."""
    d = {k: v for k, v in profile.to_dict().items() if k not in _IGNORED}
    return json.dumps(d, sort_keys=True, ensure_ascii=True, separators=(",", ":"))


def schema_id(schema) -> str:
    """A schema (:class:`pipeline.schemas.LabelSchema`) as canonical JSON, for ``schema=``."""
    return json.dumps(json.loads(schema.to_json()), sort_keys=True, ensure_ascii=True, separators=(",", ":"))


def run_fingerprint(profile: Profile, secret: bytes, locale: str | None = None, infiller: object | None = None, *,
                    schema: str | None = None, model: str | None = None) -> str:
    """``v1:k=<16 hex>:p=<16 hex>[:l=<locale>][:m=<16 hex>|none][:s=<16 hex>][:d=<16 hex>]`` for
    this profile, key, (effective) locale, for a paraphrase profile language model (``infiller``:
    an object with a ``name``, a name, or None), and where given the schema (its JSON) and the
    detection model (an id or content digest of its folder).

    >>> from pipeline.deid.profile import builtin_profiles
    >>> a = run_fingerprint(builtin_profiles()["redact"], b"0123456789abcdef")
    >>> a.startswith("v1:k=") and a != run_fingerprint(builtin_profiles()["replace"], b"0123456789abcdef")
    True
    """
    key_check = keyed_bytes(secret, "deid-fingerprint", "key-check").hex()[:16]
    prof = keyed_bytes(secret, "deid-fingerprint", "profile", profile_json(profile)).hex()[:16]
    fp = f"{VERSION}:k={key_check}:p={prof}"
    effective = profile.locale or locale
    if effective:
        fp += f":l={effective}"
    if profile.uses_paraphrase():
        name = infiller if isinstance(infiller, str) or infiller is None else getattr(infiller, "name", None)
        fp += ":m=" + (keyed_bytes(secret, "deid-fingerprint", "model", str(name)).hex()[:16] if name else "none")
    if schema is not None:
        fp += ":s=" + keyed_bytes(secret, "deid-fingerprint", "schema", schema).hex()[:16]
    if model is not None:
        fp += ":d=" + keyed_bytes(secret, "deid-fingerprint", "detector", model).hex()[:16]
    return fp


def _parts(fp: str) -> dict[str, str]:
    out = {}
    for part in str(fp).split(":")[1:]:
        k, _, v = part.partition("=")
        out[k] = v
    return out


def mismatch(stored: str, current: str) -> str | None:
    """What differs between two fingerprints: ``"secret key"``, ``"profile"``, ``"locale"``,
    ``"language model"``, ``"schema"``, ``"detection model"`` or None (same).

    A different key changes both values, so the key is compared first.

    >>> mismatch("v1:k=aa:p=bb", "v1:k=aa:p=bb") is None
    True
    >>> mismatch("v1:k=aa:p=bb", "v1:k=cc:p=dd"), mismatch("v1:k=aa:p=bb", "v1:k=aa:p=dd")
    ('secret key', 'profile')
    """
    if stored == current:
        return None
    a, b = _parts(stored), _parts(current)
    if a.get("k") != b.get("k"):
        return "secret key"
    if a.get("p") != b.get("p"):
        return "profile"
    if a.get("l") != b.get("l"):
        return "locale"
    if a.get("m") != b.get("m"):
        return "language model"
    if a.get("s") != b.get("s"):
        return "schema"
    if a.get("d") != b.get("d"):
        return "detection model"
    return "fingerprint version"


def read_fingerprint_file(out_dir: str | os.PathLike) -> str | None:
    """The fingerprint stored in an output folder, or None where there is none."""
    p = Path(out_dir) / FINGERPRINT_FILE
    if not p.is_file():
        return None
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
        return str(data["fingerprint"])
    except (OSError, ValueError, KeyError, TypeError):
        raise FingerprintError(f"{p}: damaged fingerprint file; remove it only if you know which profile and "
                               "key wrote this folder") from None


def write_fingerprint_file(out_dir: str | os.PathLike, fingerprint: str) -> Path:
    """Write the fingerprint beside the outputs: owner-only (0600), complete or not at all."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    final = out / FINGERPRINT_FILE
    tmp = out / f".{FINGERPRINT_FILE}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps({"fingerprint": fingerprint}, sort_keys=True) + "\n")
        os.chmod(tmp, 0o600)
        os.replace(tmp, final)
    finally:
        if tmp.exists():
            tmp.unlink()
    return final
