"""Admin (leads): users and roles, assignments, label schema, dictionaries, de-identification
profiles, project settings, new projects. Every write goes through a :mod:`services` function,
which checks the lead's right again on the server and writes (and audits) through the store."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from dashboard import components as C
from dashboard import state
from pipeline.annotation.queue import QUEUE_ORDERS
from pipeline.deid.profile import ACTIONS, SHIFTABLE, Profile
from pipeline.errors import FormatError
from pipeline.formats import READERS
from pipeline.schemas import PRESETS, LabelSchema
from services import deidentification, imports, projects
from services import users as accounts

ctx = state.page_context("admin", need_project=False)
db, user, project, settings = ctx.db, ctx.user, ctx.project, ctx.settings

st.title("Admin")
C.show_flash()
if project is not None:
    st.caption(f"Project: {project.name} · schema {project.schema.name}")
tabs = st.tabs(["Users", "Assignments", "Label schema", "Dictionaries", "De-identification profiles",
                "Settings", "Projects", "Import documents"])

# --- users ----------------------------------------------------------------------------------
with tabs[0]:
    users = accounts.list_users(db)
    st.dataframe(pd.DataFrame([{"username": u.username, "role": u.role, "disabled": u.disabled,
                                "created": u.created_at[:19]} for u in users]), hide_index=True)
    with st.form("admin.create_user", clear_on_submit=True):
        st.markdown("**New user**")
        new_name = st.text_input("Username", key="admin.new_username")
        new_pw = st.text_input("Password (tell it to the user)", type="password", key="admin.new_password")
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
        password = st.text_input("New password", type="password", key="admin.password")
        cols = st.columns(4)
        do_role = cols[0].form_submit_button("Change role", key="admin.do_role")
        do_pw = cols[1].form_submit_button("Reset password", key="admin.do_password")
        do_disable = cols[2].form_submit_button("Disable", key="admin.do_disable")
        do_enable = cols[3].form_submit_button("Enable", key="admin.do_enable")
    if target and (do_role or do_pw or do_disable or do_enable):
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
            st.dataframe(pd.DataFrame([{"user": u, **{k: (round(v / 60, 1) if k == "seconds" else v)
                                                        for k, v in c.items()}} for u, c in per_user.items()])
                         .rename(columns={"seconds": "minutes"}), hide_index=True)
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
        if dicts:
            st.dataframe(pd.DataFrame([{"id": d.id, "name": d.name, "category": d.category, "type": d.type,
                                        "entries": len(d.entries), "by": d.uploaded_by,
                                        "at": d.uploaded_at[:19]} for d in dicts]), hide_index=True)
        labels = [(c, t) for c, ts in project.schema.categories.items() for t in ts]
        with st.form("admin.dictionary", clear_on_submit=True):
            st.markdown("**Upload a dictionary** (.txt, one entry per line; lines starting with # are comments)")
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
                                                 filename=dict_file.name)
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
        if profiles:
            st.dataframe(pd.DataFrame([{"name": p.name, **(p.profile.get("actions") or {}),
                                        "placeholder": p.profile.get("placeholder")} for p in profiles]),
                         hide_index=True)
        with st.form("admin.profile"):
            st.markdown("**Profile**: what to do with each category")
            prof_name = st.text_input("Name", key="admin.profile_name")
            actions = {}
            cols = st.columns(4)
            for i, cat in enumerate(project.schema.categories):
                allowed = [a for a in ACTIONS if a != "shift" or cat in SHIFTABLE]
                default = "shift" if cat in SHIFTABLE else "redact"
                actions[cat] = cols[i % 4].selectbox(cat, allowed, index=allowed.index(default),
                                                     key=f"admin.profile_action.{cat}")
            placeholder = st.text_input("Placeholder for redact", value="[{CATEGORY}]", key="admin.profile_placeholder")
            if st.form_submit_button("Save profile", key="admin.profile_submit"):
                with C.guard():
                    prof = Profile(name=(prof_name or "").strip(), actions=actions, placeholder=placeholder)
                    deidentification.save_profile(db, user, project.id, prof)
                    C.flash(f"Profile {prof.name!r} saved.")
                    st.rerun()

    # --- settings -------------------------------------------------------------------------------
    with tabs[5]:
        with st.form("admin.settings"):
            order = st.selectbox("Queue order", QUEUE_ORDERS,
                                 index=QUEUE_ORDERS.index(settings.queue_order), key="admin.queue_order",
                                 help="assigned: as assigned; random: shuffled per annotator; uncertain: "
                                      "documents whose suggestions sit nearest the model's thresholds first")
            q_seed = st.number_input("Random order seed", value=settings.queue_seed, step=1, key="admin.queue_seed")
            models_dir = st.text_input("Models directory (empty: beside the database)", value=settings.models_dir,
                                       key="admin.models_dir")
            checkpoint = st.text_input("Local checkpoint folder for initialising encoders (optional)",
                                       value=settings.checkpoint_dir, key="admin.checkpoint_dir")
            recall = st.slider("Target recall (per-type threshold tuning on dev)", 0.5, 1.0,
                               float(settings.target_recall), 0.01, key="admin.target_recall")
            low = st.slider("Low-confidence mark below score", 0.0, 1.0, float(settings.low_confidence), 0.05,
                            key="admin.low_confidence")
            if st.form_submit_button("Save settings", key="admin.settings_submit"):
                with C.guard():
                    new = settings.with_(queue_order=order, queue_seed=int(q_seed), models_dir=models_dir.strip(),
                                         checkpoint_dir=checkpoint.strip(), target_recall=float(recall),
                                         low_confidence=float(low))
                    projects.update_settings(db, user, project.id, new)
                    C.flash("Settings saved.")
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
        st.markdown("Plain text (a .txt or a .zip of them), brat (a .zip of .txt + .ann), i2b2 XML or JSONL. "
                    "Everything is checked first; a problem in any file imports nothing.")
        fmt = st.selectbox("Format", list(READERS), index=list(READERS).index("text"), key="admin.import_format")
        into = st.radio("Spans in the files become", ["pre", "gold"], horizontal=True, key="admin.import_layer",
                        format_func=lambda x: "suggestions to correct (pre)" if x == "pre" else "gold")
        up = st.file_uploader("File", key="admin.import_file")
        if up is not None and st.button("Import", key="admin.import", type="primary"):
            with C.guard():
                summary = imports.import_upload(db, project.id, up.name, up.getvalue(), fmt, user=user, layer=into)
                C.flash(f"Imported {summary.documents} document(s) with {summary.spans} span(s) "
                        f"from {summary.filename}.")
                st.rerun()
