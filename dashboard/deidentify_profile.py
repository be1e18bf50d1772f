"""De-identify page: choose a built-in or saved profile and adjust it per category for this run
(saved as a new profile only when a lead asks). The actions each category may take come from
the profile itself (:meth:`pipeline.deid.profile.Profile.allowed_actions`)."""
from __future__ import annotations

import streamlit as st

from dashboard import components as C
from dashboard.state import PageContext
from pipeline.deid import Profile, builtin_profiles
from pipeline.deid.profile import ProfileError
from services import access, projects
from services import deid_batch


def profile_editor(ctx: PageContext) -> Profile:
    """Choose a built-in or saved profile and adjust it per category (not saved unless asked)."""
    db, project = ctx.db, ctx.project
    builtins = builtin_profiles()
    saved = deid_batch.saved_profiles(db, project.id)
    options = list(builtins) + [n for n in saved if n not in builtins]
    c1, c2 = st.columns([2, 3])
    base_name = c1.selectbox("Profile", options, key="deid.profile",
                             format_func=lambda n: n + (" (saved)" if n in saved else " (built-in)"))
    base = deid_batch.resolve_profile(db, project.id, base_name)
    # the version of each saved profile as first shown: a save states it, so a profile someone
    # else saved meanwhile is not overwritten (a stale save is refused, as for layers)
    seen_versions = st.session_state.setdefault("deid.profile_versions", {})
    for name, sp in saved.items():
        seen_versions.setdefault(name, sp.version)
    c2.caption(base.description or "")
    with st.expander("Adjust the profile (per category)"):
        data = _adjusted(base, base_name, list(project.schema.categories))
        try:
            profile = Profile.from_json(data)
        except ProfileError as e:       # e.g. a template with an unknown field: say so, keep the base
            st.error(f"{e}; using profile {base.name} as it is.")
            return base
        if access.can(ctx.user, "manage_profiles"):
            _save_as(ctx, data, seen_versions)
    return profile


def _adjusted(base: Profile, base_name: str, categories: list[str]) -> dict:
    """The base profile's JSON with the action per category, the placeholder and the metadata
    keys as adjusted (named "<base> (edited)" when anything changed)."""
    actions = dict(base.actions)
    cols = st.columns(4)
    for i, cat in enumerate(categories):
        allowed = Profile.allowed_actions(cat)
        current = base.action_for(cat)
        current = current if current in allowed else "redact"
        actions[cat] = cols[i % 4].selectbox(cat, allowed, index=allowed.index(current),
                                             key=f"deid.action.{base_name}.{cat}")
    placeholder = st.text_input("Placeholder template for redact ({CATEGORY}, {Type}, ... or * to keep length)",
                                value=base.placeholder, key=f"deid.placeholder.{base_name}")
    meta_text = st.text_input("Metadata keys to keep in JSONL outputs (comma-separated; every other key is "
                              "dropped, ids are always pseudonymised)", value=", ".join(base.meta_keys),
                              key=f"deid.meta_keys.{base_name}")
    meta_keys = [k.strip() for k in meta_text.split(",") if k.strip()]
    data = base.to_dict()
    data.update(actions=actions, placeholder=placeholder, meta_keys=meta_keys)
    changed = (actions != {c: base.action_for(c) for c in actions} or placeholder != base.placeholder
               or meta_keys != list(base.meta_keys))
    if changed:
        data["name"] = f"{base.name} (edited)"
    return data


def _save_as(ctx: PageContext, data: dict, seen_versions: dict) -> None:
    """Save the adjusted profile under a new name (leads), stating the version first shown."""
    s1, s2 = st.columns([3, 1])
    new_name = s1.text_input("Save as", key="deid.save_as", placeholder="name for a saved profile")
    if s2.button("Save profile", key="deid.save_profile") and new_name.strip():
        with C.guard():     # e.g. saved by someone else since it was shown: say so, keep the edits
            name = new_name.strip()
            data["name"] = name
            projects.save_profile(ctx.db, ctx.user, ctx.project.id, Profile.from_json(data),
                                  expected_version=seen_versions.get(name))
            seen_versions.pop(name, None)
            C.flash(f"Saved profile {name}.")
            st.rerun()
