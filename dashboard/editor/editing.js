// Editing the spans (added to SpanEditor, editor.js): every change goes through edit(), which
// keeps undo / redo, sends the draft to Python a little after the last edit and keeps it in this
// browser (saving.js). Labelling a selection or the current span, accepting, removing, marking
// every occurrence. The span arithmetic itself is pure, in core.js.

Object.assign(SpanEditor.prototype, {
  // ------------------------------------------------------------------ editing

  snapshot() { return { spans: this.spans, decided: this.dis.map((d) => d.decided) }; },

  restore(snap) {
    this.spans = snap.spans;
    snap.decided.forEach((v, i) => { if (this.dis[i]) this.dis[i].decided = v; });
  },

  edit(spans, message, kind = "info") {
    this.undoStack.push(this.snapshot());
    if (this.undoStack.length > 500) this.undoStack.shift();
    this.redoStack = [];
    this.spans = spans;
    this.changed(message, kind);
  },

  changed(message, kind = "info") {
    this.seq += 1;
    if (this.cur && !this.spans.includes(this.cur)) this.cur = null;
    this.render();
    if (message) this.say(message, kind);
    this.keepLocal();
    clearTimeout(this.draftTimer);
    this.draftTimer = setTimeout(() => this.sendDraft(), DRAFT_DELAY_MS);
  },

  markEdited(a, b) {
    if (this.mode !== "review") return;
    for (const d of this.dis) if (d.start < b && a < d.end) d.decided = "edited";
  },

  undo() {
    if (!this.undoStack.length) { this.say("Nothing to undo."); return; }
    this.redoStack.push(this.snapshot());
    this.restore(this.undoStack.pop());
    this.cur = null; this.sel = null;
    this.changed("Undone.");
  },

  redo() {
    if (!this.redoStack.length) { this.say("Nothing to redo."); return; }
    this.undoStack.push(this.snapshot());
    this.restore(this.redoStack.pop());
    this.cur = null; this.sel = null;
    this.changed("Redone.");
  },

  applyLabel(type, cut = null) {
    const label = this.byType.get(type);
    if (!label) return;
    if (cut && cut.span === this.cur) {          // split: the words Shift+← cut off get this label
      const tail = trimToWords(this.text, cut.a, cut.b);
      if (tail && !this.spans.some((s) => overlaps(s, tail[0], tail[1]))) {
        const r = labelRange(this.spans, tail[0], tail[1], label.type, label.category);
        this.markEdited(tail[0], tail[1]);
        this.edit(r.spans, `Split: ${this.describe(r.added)} is apart from ${this.describe(this.cur)}.`);
        this.cur = r.added;
        this.renderNote();
        return;
      }
    }
    if (this.sel) {
      const { a, b } = this.sel;
      const r = labelRange(this.spans, a, b, label.type, label.category, this.text);
      this.sel = null;
      this.markEdited(r.split ? r.split.start : a, r.split ? r.split.end : b);
      this.edit(r.spans, r.split ? `Split ${this.describe(r.split)}: ${this.describe(r.added)} is apart.`
        : r.replaced.length ? `${this.describe(r.added)} replaces ${r.replaced.map((s) => this.describe(s)).join(", ")}.`
          : `Added ${this.describe(r.added)}.`);
      this.cur = r.added;
      this.renderNote();
      return;
    }
    if (this.cur) {
      const before = this.describe(this.cur);
      const r = relabel(this.spans, this.cur, label.type, label.category);
      this.markEdited(this.cur.start, this.cur.end);
      this.edit(r.spans, `${before} is now ${label.type}.`);
      this.cur = r.changed;
      this.renderNote();
      return;
    }
    this.say("Select text (or a span) first, then press a label's key.", "warn");
  },

  acceptCurrent() {
    if (!this.cur) { this.stepOpen(1); return; }
    if (!this.cur.sugg) { this.say(`${this.describe(this.cur)} is already accepted.`); return; }
    const r = accept(this.spans, this.cur);
    const next = stepIndex(r.spans, r.spans.indexOf(r.changed), 1, (s) => s.sugg);
    this.edit(r.spans, `Accepted ${this.describe(r.changed)}.`);
    this.cur = next >= 0 ? this.spans[next] : r.changed;
    this.renderNote();
    if (next >= 0) this.setCurrentQuiet(this.spans[next]);
  },

  setCurrentQuiet(s) { this.reveal(s.start, s.end); },

  removeCurrent() {
    const s = this.cur;
    if (!s) {
      if (this.sel) {
        const hit = this.spans.filter((x) => overlaps(x, this.sel.a, this.sel.b));
        if (hit.length) {
          this.markEdited(this.sel.a, this.sel.b);
          this.edit(this.spans.filter((x) => !hit.includes(x)), `Removed ${hit.map((x) => this.describe(x)).join(", ")}.`);
          this.sel = null; this.renderNote();
          return;
        }
      }
      this.say("No current span: click one or press . (period).", "warn");
      return;
    }
    const i = this.spans.indexOf(s);
    this.markEdited(s.start, s.end);
    this.edit(removeSpan(this.spans, s), `Removed ${this.describe(s)}.`);
    this.cur = this.spans[Math.min(i, this.spans.length - 1)] || null;
    this.renderNote();
  },

  removeAllSameText() {
    if (!this.cur) { this.say("No current span: click one or press . (period).", "warn"); return; }
    const s = this.cur;
    const r = removeSameText(this.text, this.spans, s);
    for (const x of this.spans) if (!r.spans.includes(x)) this.markEdited(x.start, x.end);
    this.edit(r.spans, `Removed ${r.removed} span${r.removed === 1 ? "" : "s"} with the text '${shorten(this.text.slice(s.start, s.end))}'.`);
  },

  markAll() {
    if (!this.cur) { this.say("No current span: click one or press . (period).", "warn"); return; }
    const s = this.cur;
    const r = markAllOccurrences(this.text, this.spans, s);
    for (const x of r.spans) if (!this.spans.includes(x)) this.markEdited(x.start, x.end);
    if (!r.added) { this.say(`No other free occurrence of '${shorten(this.text.slice(s.start, s.end))}'.`); return; }
    this.edit(r.spans, `Marked ${r.added} more occurrence${r.added === 1 ? "" : "s"} of ${this.describe(s)}.`);
    this.cur = this.spans.find((x) => x.start === s.start && x.end === s.end) || null;
    this.renderNote();
  },

  acceptAll() {
    const t = Number(this.threshold.value);
    if (!Number.isFinite(t)) { this.say("The threshold must be a number between 0 and 1.", "warn"); return; }
    const r = acceptAll(this.spans, t);
    if (!r.accepted) { this.say(`No open suggestion is scored ${t.toFixed(2)} or more.`); return; }
    this.cur = null;
    this.edit(r.spans, `Accepted ${r.accepted} suggestion${r.accepted === 1 ? "" : "s"} scored ${t.toFixed(2)} or more.`);
  },
});
