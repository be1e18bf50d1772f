"""Admin (leads): users and roles, assignments, label schema, dictionaries, de-identification
profiles, project settings, new projects. Every write goes through a :mod:`services` function,
which checks the lead's right again on the server and writes (and audits) through the store.

Settings, dictionaries and profiles are versioned: the page remembers the version it showed the
lead when the form was filled (settings and a profile being edited are loaded into the form
once, with their version) and passes it with the save; if another lead saved in between, the
save is refused and the page says so in words instead of overwriting their change."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd
import streamlit as st

from dashboard import components as C
from dashboard import state
from dashboard.admin_import import import_section
from dashboard.when import local_time
from pipeline.annotation.queue import QUEUE_ORDER_WORDS, QUEUE_ORDERS
from pipeline.deid.profile import SHIFTABLE, Profile
from pipeline.errors import FormatError
from pipeline.schemas import PRESETS, LabelSchema
from services import projects
from services import users as accounts

NEW_PROFILE = "(new profile)"
PROFILE_PICK_KEY = "admin.profile_pick"
PROFILE_PICK_NEXT = "admin.profile_pick_next"
PROFILE_LOADED_KEY = "admin.profile_loaded"
PROFILE_VERSION_KEY = "admin.profile_version"
SETTINGS_VERSION_KEY = "admin.settings_version"
SETTINGS_KEYS = ("admin.queue_order", "admin.queue_seed", "admin.models_dir", "admin.checkpoint_dir",
                 "admin.target_recall", "admin.low_confidence", "admin.require_red_decided",
                 "admin.require_decided")
DICT_VERSIONS_KEY = "admin.dict_versions_shown"
TABS = ["Users", "Assignments", "Label schema", "Dictionaries", "De-identification profiles", "Settings", "Projects",
        "Import documents"]
#: The assignment table's columns in words (the store's keys are statuses and seconds).
ASSIGNMENT_WORDS = {"assigned": "to do", "in_progress": "in progress", "finished": "finished", "seconds": "minutes"}


def _profile_keys(categories: list[str]) -> list[str]:
    return ["admin.profile_name", "admin.profile_placeholder", *(f"admin.profile_action.{c}" for c in categories)]


def _profile_of(saved) -> Profile:
    data = dict(saved.profile)
    data.setdefault("name", saved.name)
    return Profile.from_json(data)


def _load_profile(saved, categories: list[str]) -> None:
    """Fill the profile form from a saved profile (or the defaults of a new one) and remember the
    version it is at: the save states it, so a profile changed meanwhile is not overwritten."""
    prof = _profile_of(saved) if saved is not None else None
    st.session_state["admin.profile_name"] = saved.name if saved is not None else ""
    st.session_state["admin.profile_placeholder"] = prof.placeholder if prof is not None else "[{CATEGORY}]"
    for cat in categories:
        allowed = Profile.allowed_actions(cat)
        default = "shift" if cat in SHIFTABLE else "redact"
        action = prof.actions.get(cat, prof.default_action) if prof is not None else default
        st.session_state[f"admin.profile_action.{cat}"] = action if action in allowed else default
    st.session_state[PROFILE_VERSION_KEY] = saved.version if saved is not None else None


def _load_settings(project_id: int, version: int, settings) -> None:
    """Fill the settings form from the stored settings and remember their version."""
    st.session_state["admin.queue_order"] = settings.queue_order
    st.session_state["admin.queue_seed"] = int(settings.queue_seed)
    st.session_state["admin.models_dir"] = settings.models_dir
    st.session_state["admin.checkpoint_dir"] = settings.checkpoint_dir
    st.session_state["admin.target_recall"] = float(settings.target_recall)
    st.session_state["admin.low_confidence"] = float(settings.low_confidence)
    st.session_state["admin.require_red_decided"] = bool(settings.require_red_decided)
    st.session_state["admin.require_decided"] = bool(settings.require_decided)
    st.session_state[SETTINGS_VERSION_KEY] = (project_id, int(version))


ctx = state.page_context("admin", need_project=False)
db, user, project, settings = ctx.db, ctx.user, ctx.project, ctx.settings

st.title("Admin")
C.show_flash()
if project is not None:
    st.caption(f"Project: {project.name} · schema {project.schema.name}")
# keyed and bound to the address (?tab=...): an action's rerun, and a reload, stay on the tab
tabs = st.tabs(TABS, key="tab", bind="query-params")

# --- users ----------------------------------------------------------------------------------
with tabs[0]:
    users = accounts.list_users(db)
    signins = accounts.sign_in_states(db)

    def _signin_words(name: str) -> str:
        s_ = signins.get(name)
        if s_ is None:
            return ""
        return "locked" if s_.locked else f"{s_.failures} failed"

    st.dataframe(pd.DataFrame([{"username": u.username, "role": u.role, "disabled": u.disabled,
                                "sign-in": _signin_words(u.username), "created": local_time(u.created_at)} for u in users]),
                 hide_index=True)
    with st.form("admin.create_user", clear_on_submit=True):
        st.markdown("**New user**")
        new_name = st.text_input("Username", key="admin.new_username")
        new_pw = st.text_input("Password (tell it to the user)", type="password", key="admin.new_password",
                               help=f"Passwords: {accounts.PASSWORD_RULES}.")
        new_role = st.selectbox("Role", accounts.ROLES, key="admin.new_role")
        if st.form_submit_button("Create user", key="admin.create_user_submit"):
            with C.guard():
                accounts.create_user(db, user, new_name, new_pw, new_role)
                C.flash(f"Created {new_name.strip()} ({new_role}).")
                st.rerun()
    names = [u.username for u in users]
    with st.form("admin.change_user"):
        st.markdown("**Change a user**")
        target = st.selectbox("User", names, key="admin.target")
        role = st.selectbox("New role", accounts.ROLES, key="admin.role")
        password = st.text_input("New password", type="password", key="admin.password",
                                 help=f"Passwords: {accounts.PASSWORD_RULES}.")
        cols = st.columns(5)
        do_role = cols[0].form_submit_button("Change role", key="admin.do_role")
        do_pw = cols[1].form_submit_button("Reset password", key="admin.do_password")
        do_disable = cols[2].form_submit_button("Disable", key="admin.do_disable")
        do_enable = cols[3].form_submit_button("Enable", key="admin.do_enable")
        do_unlock = cols[4].form_submit_button("Unlock sign-in", key="admin.do_unlock",
                                               help=f"After {accounts.LOCK_AFTER} failed sign-ins an account is "
                                                    "locked until a lead unlocks it here.")
    if target and (do_role or do_pw or do_disable or do_enable or do_unlock):
        with C.guard():
            if do_role:
                accounts.set_role(db, user, target, role)
                C.flash(f"{target} is now {role}.")
                st.rerun()
            elif do_pw:
                accounts.set_password(db, user, target, password)
                C.flash(f"Password of {target} reset; their sessions ended.")
                st.rerun()
            elif do_disable:
                accounts.set_disabled(db, user, target, True)
                C.flash(f"{target} disabled; their sessions ended.")
                st.rerun()
            elif do_unlock:
                was_locked = accounts.unlock(db, user, target)
                C.flash(f"{target} unlocked: they can sign in again." if was_locked
                        else f"{target} was not locked; their failed sign-ins were cleared.")
                st.rerun()
            else:
                accounts.set_disabled(db, user, target, False)
                C.flash(f"{target} enabled.")
                st.rerun()

if project is None:
    for t in (*tabs[1:6], tabs[7]):
        t.info("Create a project first (Projects tab).")

# --- assignments ----------------------------------------------------------------------------
if project is not None:
    with tabs[1]:
        per_user = projects.stats(db, project.id)["assignments_by_user"]
        if per_user:
            st.dataframe(pd.DataFrame([{"user": u, **{ASSIGNMENT_WORDS.get(k, k.replace("_", " ")):
                                                        (round(v / 60, 1) if k == "seconds" else v)
                                                        for k, v in c.items()}} for u, c in per_user.items()]),
                         hide_index=True)
        docs = projects.documents(db, project.id)
        names_by_id = {d.id: d.name for d in docs}
        taken = {a.doc_id for a in projects.assignments(db, project.id)}
        which = st.radio("Documents", ["unassigned", "selected"], horizontal=True, key="admin.assign_which",
                         format_func=lambda w: f"all unassigned ({sum(d.id not in taken for d in docs)})"
                         if w == "unassigned" else "selected below")
        selected = st.multiselect("Documents to assign", list(names_by_id), key="admin.assign_docs",
                                  format_func=lambda i: names_by_id[i], disabled=which != "selected")
        annotators = st.multiselect("Annotators (documents go to them in turn)",
                                    [u.username for u in users if not u.disabled],
                                    default=[u.username for u in users if u.role == "annotator" and not u.disabled],
                                    key="admin.assign_users")
        double = st.slider("Also give this share of the documents to a second annotator (%)", 0, 100, 0,
                           key="admin.assign_double")
        seed = st.number_input("Sample seed", value=0, step=1, key="admin.assign_seed")
        if st.button("Assign", key="admin.assign", type="primary"):
            with C.guard():
                doc_ids = [d.id for d in docs if d.id not in taken] if which == "unassigned" else list(selected)
                plan = projects.assign_documents(db, user, project.id, doc_ids, annotators,
                                                 double_fraction=double / 100.0, seed=int(seed))
                C.flash(f"{len(plan)} assignment(s) for {len(set(d for d, _ in plan))} document(s).")
                st.rerun()

    # --- schema ---------------------------------------------------------------------------------
    with tabs[2]:
        st.markdown(f"Current schema: **{project.schema.name}**")
        st.dataframe(pd.DataFrame([{"category": c, "types": ", ".join(t)}
                                   for c, t in project.schema.categories.items()]), hide_index=True)
        preset = st.selectbox("Preset", list(PRESETS), key="admin.schema_preset")
        if st.button("Use this preset", key="admin.schema_use_preset"):
            with C.guard():
                projects.update_schema(db, user, project.id, PRESETS[preset])
                C.flash(f"Schema is now {preset}.")
                st.rerun()
        upload = st.file_uploader('Custom schema (JSON: {"name": ..., "categories": {"NAME": ["PATIENT", ...]}})',
                                  type=["json"], key="admin.schema_upload")
        if upload is not None and st.button("Use the uploaded schema", key="admin.schema_use_upload"):
            with C.guard():
                try:
                    raw = upload.getvalue().decode("utf-8-sig")
                except UnicodeDecodeError:
                    raise FormatError(upload.name, "is not UTF-8 text") from None
                schema = LabelSchema.from_json(raw)
                projects.update_schema(db, user, project.id, schema)
                C.flash(f"Schema is now {schema.name}.")
                st.rerun()

    # --- dictionaries ---------------------------------------------------------------------------
    with tabs[3]:
        dicts = projects.dictionaries(db, project.id)
        # the versions the lead saw when they chose to upload: the table of the previous run
        shown_dicts: dict = st.session_state.get(DICT_VERSIONS_KEY, {}).get(project.id, {})
        st.session_state[DICT_VERSIONS_KEY] = {project.id: {d.name: d.version for d in dicts}}
        if dicts:
            st.dataframe(pd.DataFrame([{"id": d.id, "name": d.name, "category": d.category, "type": d.type,
                                        "entries": len(d.entries), "version": d.version, "by": d.uploaded_by,
                                        "uploaded": local_time(d.uploaded_at)} for d in dicts]), hide_index=True)
        labels = [(c, t) for c, ts in project.schema.categories.items() for t in ts]
        with st.form("admin.dictionary", clear_on_submit=True):
            st.markdown("**Upload a dictionary** (.txt, one entry per line; lines starting with # are comments). "
                        "A listed name replaces that dictionary.")
            label = st.selectbox("Label", labels, format_func=lambda ct: f"{ct[0]} / {ct[1]}", key="admin.dict_label")
            dict_name = st.text_input("Name", key="admin.dict_name")
            dict_file = st.file_uploader("Entries", type=["txt"], key="admin.dict_file")
            if st.form_submit_button("Save dictionary", key="admin.dict_submit"):
                with C.guard():
                    if dict_file is None:
                        raise FormatError("dictionary", "choose a .txt file")
                    try:
                        lines = dict_file.getvalue().decode("utf-8-sig").splitlines()
                    except UnicodeDecodeError:
                        raise FormatError(dict_file.name, "is not UTF-8 text") from None
                    name = (dict_name or Path(dict_file.name).stem).strip()
                    n = projects.save_dictionary(db, user, project, label[0], label[1], name, lines,
                                                 filename=dict_file.name, expected_version=shown_dicts.get(name))
                    C.flash(f"Dictionary {name!r}: {n} entries.")
                    st.rerun()
        if dicts:
            gone = st.selectbox("Delete a dictionary", [d.id for d in dicts], index=None, key="admin.dict_delete",
                                format_func=lambda i: next(d.name for d in dicts if d.id == i))
            if gone is not None and st.button("Delete", key="admin.dict_delete_go"):
                with C.guard():
                    projects.delete_dictionary(db, user, gone)
                    st.rerun()

    # --- de-identification profiles -------------------------------------------------------------
    with tabs[4]:
        profiles = projects.profiles(db, project.id)
        by_name = {p.name: p for p in profiles}
        if profiles:
            st.dataframe(pd.DataFrame([{"name": p.name, "version": p.version, **(p.profile.get("actions") or {}),
                                        "placeholder": p.profile.get("placeholder")} for p in profiles]),
                         hide_index=True)
        if PROFILE_PICK_NEXT in st.session_state:  # after a save: show what was saved
            st.session_state[PROFILE_PICK_KEY] = st.session_state.pop(PROFILE_PICK_NEXT)
        if st.session_state.get(PROFILE_PICK_KEY) not in (NEW_PROFILE, *by_name):
            st.session_state[PROFILE_PICK_KEY] = NEW_PROFILE
        pick = st.selectbox("Profile to edit", [NEW_PROFILE, *by_name], key=PROFILE_PICK_KEY)
        editing = by_name.get(pick)
        categories = list(project.schema.categories)
        if (st.session_state.get(PROFILE_LOADED_KEY) != (project.id, pick)
                or any(k not in st.session_state for k in _profile_keys(categories))):
            _load_profile(editing, categories)  # into the form, once, with the version shown
            st.session_state[PROFILE_LOADED_KEY] = (project.id, pick)
        started_from = st.session_state.get(PROFILE_VERSION_KEY)
        with st.form("admin.profile"):
            st.markdown("**Profile**: what to do with each category"
                        + (f" (editing {pick!r}, version {started_from})" if editing is not None else ""))
            prof_name = st.text_input("Name", key="admin.profile_name", disabled=editing is not None)
            actions = {}
            cols = st.columns(4)
            for i, cat in enumerate(categories):
                actions[cat] = cols[i % 4].selectbox(cat, Profile.allowed_actions(cat), key=f"admin.profile_action.{cat}")
            placeholder = st.text_input("Placeholder for redact", key="admin.profile_placeholder")
            if st.form_submit_button("Save profile", key="admin.profile_submit"):
                with C.guard():
                    if editing is not None:
                        base = _profile_of(editing)
                        prof = dataclasses.replace(base, actions={**base.actions, **actions}, placeholder=placeholder)
                        projects.save_profile(db, user, project.id, prof, expected_version=started_from)
                    else:
                        prof = Profile(name=(prof_name or "").strip(), actions=actions, placeholder=placeholder)
                        projects.save_profile(db, user, project.id, prof)
                    st.session_state.pop(PROFILE_LOADED_KEY, None)
                    st.session_state[PROFILE_PICK_NEXT] = prof.name
                    C.flash(f"Profile {prof.name!r} saved.")
                    st.rerun()
        if editing is not None and st.button("Discard my changes and reload the profile", key="admin.profile_reload"):
            st.session_state.pop(PROFILE_LOADED_KEY, None)
            st.rerun()

    # --- settings -------------------------------------------------------------------------------
    with tabs[5]:
        loaded = st.session_state.get(SETTINGS_VERSION_KEY)
        if (loaded is None or loaded[0] != project.id
                or any(k not in st.session_state for k in SETTINGS_KEYS)):
            _load_settings(project.id, project.version, settings)  # into the form, once, with the version shown
        started_from = st.session_state[SETTINGS_VERSION_KEY][1]
        with st.form("admin.settings"):
            st.caption(f"Settings as of version {started_from} of the project.")
            order = st.selectbox("Queue order", QUEUE_ORDERS, key="admin.queue_order",
                                 format_func=lambda o: QUEUE_ORDER_WORDS.get(o, o),
                                 help="assigned: as assigned; random: shuffled per annotator; uncertain: "
                                      "documents whose suggestions sit nearest the model's thresholds first")
            q_seed = st.number_input("Random order seed", step=1, key="admin.queue_seed")
            models_dir = st.text_input("Models directory (empty: beside the database)", key="admin.models_dir")
            checkpoint = st.text_input("Local checkpoint folder for initialising encoders (optional)",
                                       key="admin.checkpoint_dir")
            recall = st.slider("Target recall (per-type threshold tuning on dev)", 0.5, 1.0, step=0.01,
                               key="admin.target_recall")
            low = st.slider("Low-confidence mark below score", 0.0, 1.0, step=0.05, key="admin.low_confidence")
            red_decided = st.checkbox("Every red document must have a risk decision before a run is exported",
                                      key="admin.require_red_decided")
            require = st.checkbox("Every suggestion must be decided before a note is finished",
                                  key="admin.require_decided",
                                  help="Annotators then cannot finish a note that still has open (undecided) "
                                       "machine suggestions; accepting those above the threshold in bulk counts "
                                       "as deciding, and is recorded as such.")
            if st.form_submit_button("Save settings", key="admin.settings_submit"):
                with C.guard():
                    new = settings.with_(queue_order=order, queue_seed=int(q_seed), models_dir=models_dir.strip(),
                                         checkpoint_dir=checkpoint.strip(), target_recall=float(recall),
                                         low_confidence=float(low), require_red_decided=bool(red_decided),
                                         require_decided=bool(require))
                    projects.update_settings(db, user, project.id, new, expected_version=started_from)
                    st.session_state.pop(SETTINGS_VERSION_KEY, None)   # show the saved values next run
                    C.flash("Settings saved.")
                    st.rerun()
        if st.button("Discard my changes and reload the settings", key="admin.settings_reload"):
            st.session_state.pop(SETTINGS_VERSION_KEY, None)
            st.rerun()

# --- projects -------------------------------------------------------------------------------
with tabs[6]:
    st.dataframe(pd.DataFrame([{"id": p.id, "name": p.name, "schema": p.schema.name}
                               for p in projects.list_projects(db)]), hide_index=True)
    with st.form("admin.new_project", clear_on_submit=True):
        p_name = st.text_input("New project name", key="admin.project_name")
        p_schema = st.selectbox("Schema", list(PRESETS), key="admin.project_schema")
        if st.form_submit_button("Create project", key="admin.project_submit"):
            with C.guard():
                pid = projects.create_project(db, user, p_name, PRESETS[p_schema])
                state.set_current_project(pid)
                C.flash(f"Project {p_name.strip()!r} created and selected.")
                st.rerun()

# --- import ---------------------------------------------------------------------------------
if project is not None:
    with tabs[7]:
        import_section(db, user, project)
        st.caption("Pre-annotate new documents on the Train page: from this project's model, rules and "
                   "dictionaries, another project's model in the same language, or a pretrained member.")
