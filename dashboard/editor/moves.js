// The span editor's moves (issue 31), added to SpanEditor (editor.js, loaded before this file):
// jump to text, resizing the current span, and stepping by span, word (unit) and line. Pure
// helpers (units, findMatches, resize, ...) are in core.js.

Object.assign(SpanEditor.prototype, {
  // ------------------------------------------------------------------ jump to text
  // Ctrl+F opens the field; what is typed selects the first match after the cursor at once (a
  // preview); Enter keeps it and gives the keys back to the note (Enter again: the next match),
  // Esc puts the selection back as it was. Ctrl+F in the field opens the browser's own find.
  // Shift+Enter (in the field or right after a jump) selects from the match to the end of its
  // phrase (phrases.js): a full name found by its first letters.

  openFind() {
    this.findFrom = { sel: this.sel, cur: this.cur };
    const base = this.focusRange();
    this.findStart = base ? base.a + 1 : 0;
    this.find.value = "";
    this.find.focus();
    this.say("Jump to text: type a few letters of it, Enter selects the match (Shift+Enter: to the end of its phrase), Esc goes back.");
  },

  // Select the whole words (units) of a match; one that starts a span makes that span current.
  // With `phrase`: from the match to the end of its phrase. Remembers where Enter looks next.
  landOn(q, m, phrase = false) {
    const [a, b] = unitsAround(this.text, m[0], m[1]) || m;
    if (phrase && this.phraseFrom(a)) this.pickPhrase(a);
    else this.landOnWords(a, b);
    // Enter looks on after what it landed on; after a phrase, after the match's own words
    this.jumped = { q, ...this.focusRange(), after: phrase ? b : this.focusRange().b };
  },

  landOnWords(a, b) {
    const s = this.spans.find((x) => x.start === a && b <= x.end);
    if (s) this.setCurrent(s);
    else this.select(a, b);
  },

  // While typing, the match Enter would select is highlighted (CSS Custom Highlight API: the
  // page's selection is left alone, so the field keeps every key typed).
  previewFind() {
    const matches = findMatches(this.text, this.find.value);
    this.highlight(null);
    if (!matches.length) {
      if (this.find.value.trim()) this.say("No match.", "warn");
      return;
    }
    const [a, b] = unitsAround(this.text, ...nextMatch(matches, this.findStart)) || nextMatch(matches, this.findStart);
    this.highlight(this.rangeOf(a, b));
    this.reveal(a, b);
    this.say(`${matches.length} match${matches.length === 1 ? "" : "es"}: Enter selects the one shown, Shift+Enter it and the rest of its phrase.`);
  },

  highlight(range) {
    if (typeof CSS === "undefined" || !CSS.highlights || typeof Highlight === "undefined") return;
    if (range) CSS.highlights.set("wb-find", new Highlight(range));
    else CSS.highlights.delete("wb-find");
  },

  onFindKey(e) {
    if (e.key === "Enter") {
      const q = this.find.value;
      const matches = findMatches(this.text, q);
      if (!matches.length) { this.say("No match.", "warn"); e.preventDefault(); return; }
      const m = nextMatch(matches, this.findStart);
      this.closeFind();
      this.landOn(q, m, e.shiftKey);
    } else if (e.key === "Escape") {
      const back = this.findFrom || {};
      this.closeFind();
      this.sel = back.sel || null; this.cur = back.cur || null;
      this.renderNote();
      this.say("Jump cancelled.");
    } else {
      return;
    }
    e.preventDefault();
    e.stopPropagation();
  },

  closeFind() {
    this.find.value = "";
    this.highlight(null);
    this.note.focus({ preventScroll: true });
  },

  jumpNext(jumped, phrase = false) {
    const matches = findMatches(this.text, jumped.q);
    if (matches.length) this.landOn(jumped.q, nextMatch(matches, jumped.after), phrase);
  },

  // ------------------------------------------------------------------ resizing the current span
  // Shift+→ / Shift+← move the current span's end by one word, Ctrl+Shift+→ / ← its start; a
  // span it reaches into is taken in whole (two spans merged in one key).

  // Shift+← remembers what it cut off (over consecutive presses): a label's key pressed next
  // labels that part (a split in two keys); any other key forgets it.
  moveEnd(dir, cut = null) {
    const s = this.cur, us = units(this.text);
    const u = dir > 0 ? us.find(([, b]) => b > s.end) : [...us].reverse().find(([, b]) => b < s.end && b > s.start);
    if (!u) { this.say(dir > 0 ? "Nothing after it to take in." : "It is one word: Delete removes it.", "warn"); return; }
    const oldEnd = cut && cut.span === s ? cut.b : s.end;
    this.resizeCurrent(s.start, u[1]);
    if (dir < 0) {
      this.cutOff = { a: u[1], b: oldEnd, span: this.cur };
      this.say(`${this.status.textContent} A label's key now labels the part cut off (a split).`);
    }
  },

  moveStart(dir) {
    const s = this.cur;
    if (!s) { this.say("No current span: click one or press . (period).", "warn"); return; }
    const us = units(this.text);
    const u = dir < 0 ? [...us].reverse().find(([a]) => a < s.start) : us.find(([a]) => a > s.start && a < s.end);
    if (!u) { this.say(dir < 0 ? "Nothing before it to take in." : "It is one word: Delete removes it.", "warn"); return; }
    this.resizeCurrent(u[0], s.end);
  },

  resizeCurrent(a, b) {
    const s = this.cur, before = this.describe(s);
    const r = resize(this.spans, s, a, b);
    if (!r) return;
    this.markEdited(Math.min(a, s.start), Math.max(b, s.end));
    this.edit(r.spans, `${before} is now ${this.describe(r.changed)}`
      + (r.taken.length ? ` (took in ${r.taken.map((x) => this.describe(x)).join(", ")})` : "") + ".");
    this.cur = r.changed;
    this.renderNote();
    this.reveal(r.changed.start, r.changed.end);
  },

  // ------------------------------------------------------------------ moving around

  setCurrent(s) {
    this.cur = s || null;
    this.sel = null;
    this.renderNote();
    if (!s) return;
    this.reveal(s.start, s.end);
    const what = s.sugg ? `suggestion scored ${s.score.toFixed(2)}: Enter accepts, a label's key relabels, Delete removes`
      : "a label's key relabels, Delete removes, + marks every occurrence";
    this.say(`${this.describe(s)}, ${what}.`);
  },

  stepSpan(dir, ok) {
    let from = -1;
    if (this.cur) from = this.spans.indexOf(this.cur);
    else if (this.sel) {
      const after = this.spans.findIndex((s) => s.start >= this.sel.a);
      from = dir > 0 ? (after < 0 ? this.spans.length - 1 : after - 1) : (after < 0 ? this.spans.length : after);
    }
    const i = stepIndex(this.spans, from, dir, ok);
    if (i < 0) { this.say(this.spans.length ? "No open suggestions left." : "No spans yet."); return; }
    this.setCurrent(this.spans[i]);
  },

  stepOpen(dir) {
    if (this.mode === "review") {
      const i = this.nextOpenDis(this.curDis, dir);
      if (i < 0) this.say("Every disagreement is decided: Ctrl+Enter saves gold and opens the next document.");
      else this.goDisagreement(i, true);
      return;
    }
    this.stepSpan(dir, (s) => s.sugg);
  },

  // The selection (or the current span) as {a, b, anchor}; null when there is neither.
  focusRange() {
    if (this.sel) return this.sel;
    return this.cur ? { a: this.cur.start, b: this.cur.end, anchor: this.cur.start } : null;
  },

  stepToken(dir, extend) {
    const toks = units(this.text);
    if (!toks.length) return;
    const base = this.focusRange();
    if (!extend || !base) {
      const here = base ? (dir > 0 ? base.b : base.a) : (dir > 0 ? -1 : Infinity);
      const t = dir > 0 ? toks.find(([a]) => a >= here) : [...toks].reverse().find(([, b]) => b <= here);
      if (t) this.select(t[0], t[1]);
      return;
    }
    // extend: the end that is not the anchor moves by one word
    const free = base.anchor === base.a ? base.b : base.a;
    const t = dir > 0 ? toks.find(([, b]) => b > free) : [...toks].reverse().find(([a]) => a < free);
    if (!t) return;
    const target = dir > 0 ? t[1] : t[0];
    if (target === base.anchor) return;
    this.select(Math.min(base.anchor, target), Math.max(base.anchor, target), base.anchor);
  },

  // PageDown / PageUp: the next / previous screenful of the note, the part below the sticky
  // toolbar (the browser's own page step is the whole window's, so lines went under the toolbar
  // unseen); the last line shown stays in view. At once, not smoothly: hints re-open on the
  // words now in view (hints.js).
  pageBy(dir) {
    const top = Math.max(0, this.bar.getBoundingClientRect().bottom);
    const line = parseFloat(getComputedStyle(this.note).lineHeight) || 22;
    this.scroller().scrollBy({ top: dir * Math.max(line, window.innerHeight - top - 1.5 * line), behavior: "instant" });
  },

  // ↓ / ↑: the first word of the next / previous line that has one (empty lines are skipped).
  stepLine(dir, extend) {
    const base = this.focusRange(), us = units(this.text);
    const here = base ? (dir > 0 ? base.b : base.a) : (dir > 0 ? 0 : this.text.length);
    const lineOf = (i) => this.text.lastIndexOf("\n", i - 1) + 1;   // where the line holding i starts
    let t;
    if (dir > 0) {
      const nl = this.text.indexOf("\n", here);
      if (nl < 0) return;
      t = us.find(([a]) => a > nl);
    } else {
      const prev = [...us].reverse().find(([a]) => a < lineOf(here));
      if (!prev) return;
      const start = lineOf(prev[0]);
      t = us.find(([a]) => a >= start);
    }
    if (!t) return;
    if (extend && base) this.select(Math.min(base.anchor, t[0]), Math.max(base.anchor, t[1]), base.anchor);
    else this.select(t[0], t[1]);
  },
});
