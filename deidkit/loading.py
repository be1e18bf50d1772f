"""Loading a :class:`~deidkit.model.Model`: a model version folder, a project's detector, or rules alone."""
from __future__ import annotations

from deidkit.model import DeidkitError, Model, PathLike, resolve_secret


def _from_store(store: PathLike, project: str, secret: bytes | PathLike | None, workers: int | None) -> Model:
    """The project's own detector (:func:`services.detectors.detector_for`: its active model, else
    rules and dictionaries), its locale, its saved profiles and the database's key."""
    from services.deid_batch import saved_profiles
    from services.detectors import detector_for
    from services.projects import find_project, open_db
    from services.settings import project_locale
    from pipeline.deid import Profile

    with open_db(store) as db:
        found = find_project(db, project)
        if found is None:
            raise DeidkitError(f"no project named {project!r} in {store}")
        choice = detector_for(db, found)
        profiles = {name: Profile.from_json({"name": name, **dict(p.profile)})
                    for name, p in saved_profiles(db, found.id).items()}
    return Model(choice.detector, resolve_secret(secret, store), project_locale(found), choice.source,
                 choice.model_version, workers, profiles)


def load(model: PathLike | None = None, *, store: PathLike | None = None, project: str | None = None,
         schema: str = "i2b2-2014", locale: str | None = None, secret: bytes | PathLike | None = None,
         workers: int | None = None) -> Model:
    """A :class:`~deidkit.model.Model` from one of:

    * ``model``: a model version folder (or a models folder: its ``ACTIVE`` version), with its
      locale's rules and dictionaries, as ``python -m pipeline detect --model`` loads it;
    * ``store`` + ``project``: that project's detector, locale and saved profiles, as its runs use;
    * neither: the rules and dictionaries of ``schema``'s locale (or ``locale``).

    ``secret``: the key of surrogates and pseudonyms (see :func:`deidkit.model.resolve_secret`).
    ``workers``: processes a list is detected in (default: the usable cores, where safe).

    >>> m = load(schema="i2b2-2014", secret=b"0123456789abcdef-example")
    >>> m.locale, m.schema.name
    ('en', 'i2b2-2014')
    """
    from pipeline.detection.detector import Detector

    if store is not None or project is not None:
        if store is None or project is None:
            raise DeidkitError("name both store= (the database) and project=")
        return _from_store(store, project, secret, workers)
    if model is not None:
        try:
            det = Detector.load(model)
        except (OSError, ValueError, KeyError) as e:
            raise DeidkitError(f"{model}: not a loadable model version ({type(e).__name__})") from None
        return Model(det, resolve_secret(secret), locale or det.locale, "+".join(det.parts),
                     getattr(getattr(det.ensemble, "info", None), "name", None), workers)
    det = Detector.without_model(schema, locale)
    if not det.parts:
        raise DeidkitError(f"there are no rules or dictionaries for locale {det.locale!r}: load a model")
    return Model(det, resolve_secret(secret), det.locale, "+".join(det.parts), None, workers)
