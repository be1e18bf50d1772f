// What leaves the editor (added to SpanEditor, editor.js): the unsaved spans kept in this
// browser across a reload (offered back only on the same stored version), finishing (never
// accepting a suggestion unseen), and the draft and actions sent to Python.

Object.assign(SpanEditor.prototype, {
  // ------------------------------------------------------------------ the draft in this browser
  // Unsaved spans (offsets and labels, never text) are kept in the browser's localStorage under
  // data.local_key, with the stored version they build on, so a reload can offer them back. They
  // are offered only on that same version: a newer save is never overwritten by an old draft.

  keepLocal() {
    if (!this.localKey) return;
    try {
      const p = this.payload();
      localStorage.setItem(this.localKey, JSON.stringify({ version: this.version, spans: p.spans, decided: p.decided }));
    } catch (_) { /* storage full or off: the server-side draft still holds the spans */ }
  },

  dropLocal() {
    if (!this.localKey) return;
    try { localStorage.removeItem(this.localKey); } catch (_) { /* nothing to drop */ }
  },

  offerLocal() {
    if (!this.localKey) return;
    let kept = null;
    try { kept = JSON.parse(localStorage.getItem(this.localKey) || "null"); } catch (_) { kept = null; }
    if (!kept || !Array.isArray(kept.spans)) return;
    const spans = kept.spans.filter((x) => this.byType.has(x.type) && x.start >= 0 && x.end <= this.text.length && x.start < x.end)
      .map((x) => ({ start: x.start, end: x.end, type: x.type, category: this.byType.get(x.type).category,
        sugg: !x.accepted, how: typeof x.how === "string" ? x.how : "",
        score: (this.spans.find((o) => o.start === x.start && o.end === x.end && o.type === x.type) || {}).score ?? 1 }))
      .sort(bySpanOrder);
    if (spansKey(spans) === spansKey(this.spans) || (this.baseline !== null && spansKey(spans) === this.baseline)) {
      if (kept.version !== this.version) this.dropLocal();  // what was kept has been saved
      return;
    }
    if (kept.version !== this.version) {
      this.dropLocal();
      this.say("Unsaved edits kept in this browser were made on an older version of this layer; someone saved since, so they were not restored.", "warn");
      return;
    }
    this.localOffer = { spans, decided: Array.isArray(kept.decided) ? kept.decided : [] };
    this.status.replaceChildren(
      document.createTextNode("This browser kept unsaved edits of this document from before a reload. "),
      button("Restore them", "restore_local", "Put the kept edits back (undo takes them out again)"),
      document.createTextNode(" "),
      button("Discard them", "discard_local", "Forget the kept edits"));
    this.status.dataset.kind = "warn";
  },

  restoreLocal() {
    const offer = this.localOffer;
    this.localOffer = null;
    if (!offer) return;
    for (const i of offer.decided) if (this.dis[i]) this.dis[i].decided = this.dis[i].decided || "edited";
    this.edit(offer.spans, "Restored the edits kept in this browser (not saved yet).");
  },

  // ------------------------------------------------------------------ finishing
  // Finishing never accepts a suggestion unseen: with open suggestions it asks once, naming the
  // count, and offers to accept those scored at or above the threshold (recorded as accepted in
  // bulk) or to go to the first one; unless the project requires every suggestion decided, it
  // also offers to finish leaving them open (they stay suggestions, never counted as the
  // annotator's). Review (save gold) asks nothing: disagreements are checked by Python.

  finish() {
    if (this.mode === "review") { this.send("save_next"); return; }
    const open = this.spans.filter((s) => s.sugg);
    if (!open.length) { this.asking = false; this.send("finish"); return; }
    this.askFinish(open);
  },

  askFinish(open) {
    const t = Number(this.threshold.value);
    const n = open.length;
    const above = Number.isFinite(t) ? open.filter((s) => s.score >= t).length : 0;
    this.asking = true;
    const parts = [document.createTextNode(`${n} suggestion${n === 1 ? " is" : "s are"} still open (undecided)`
      + (this.requireDecided ? "; this project requires every suggestion decided before finishing. " : ". "))];
    if (above) {
      const b = button(above === n ? `Accept all ${n} (scored ≥ ${t.toFixed(2)}) and finish`
        : `Accept the ${above} scored ≥ ${t.toFixed(2)}` + (this.requireDecided ? "" : " and finish"), "finish_accept",
      "Accept the open suggestions scored at or above the threshold, recorded as accepted in bulk");
      parts.push(b, document.createTextNode(" "));
    }
    const first = button("Go to the first one", "finish_first", "Show the first open suggestion (] steps through them)");
    parts.push(first);
    if (!this.requireDecided) {
      parts.push(document.createTextNode(" "), button(`Finish, leaving ${n === 1 ? "it" : "them"} open`, "finish_anyway",
        "Finish without accepting: open suggestions are not counted as your annotations"));
    }
    parts.push(document.createTextNode(" · ← → choose, Enter takes it, Esc: not now."));
    this.status.replaceChildren(...parts);
    this.status.dataset.kind = "warn";
    this.root.dataset.asking = String(n);
    first.focus({ preventScroll: true });
  },

  finishAccepting() {
    this.asking = false;
    const t = Number(this.threshold.value);
    const r = acceptAll(this.spans, t);
    if (r.accepted) {
      this.cur = null;
      this.edit(r.spans, `Accepted ${r.accepted} suggestion${r.accepted === 1 ? "" : "s"} scored ${t.toFixed(2)} or more (in bulk).`);
    }
    const left = this.spans.filter((s) => s.sugg).length;
    if (left && this.requireDecided) {
      this.stepOpen(1);
      this.say(`${left} suggestion${left === 1 ? " is" : "s are"} below ${t.toFixed(2)} and still open: decide ${left === 1 ? "it" : "each"} before finishing.`, "warn");
      this.note.focus({ preventScroll: true });
      return;
    }
    this.send("finish");
  },

  // ------------------------------------------------------------------ to Python

  payload() {
    return {
      token: this.token,
      seq: this.seq,
      spans: this.spans.map((s) => ({ start: s.start, end: s.end, type: s.type, accepted: !s.sugg, how: s.how || "" })),
      decided: this.dis.map((d, i) => (d.decided ? i : -1)).filter((i) => i >= 0),
    };
  },

  sendDraft() {
    if (this.setState) this.setState("draft", this.payload());
  },

  send(name) {
    clearTimeout(this.draftTimer);
    if (name === "next" && this.nextBtn.disabled) { this.say("This is the last document of the queue."); return; }
    if (name === "prev" && this.prevBtn.disabled) { this.say("This is the first document of the queue."); return; }
    this.say(name === "save" ? "Saving…" : name === "finish" || name === "save_next" ? "Saving and opening the next document…" : "Opening…");
    if (this.setTrigger) this.setTrigger("action", { name, ...this.payload() });
  },
});
