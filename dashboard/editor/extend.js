// Extending a picked selection by one digit (issue 31, item 2: a missed span of several parts,
// "Last, First" or "12 Oak St, Apt 3", added in four keys: `:`, a word's letters, a digit, the
// label's key), added to SpanEditor after hints.js and phrases.js. No rule guesses where such a
// span ends (a comma rule would join "Boston, MA", two spans): the annotator points at it.
//
// After a word hint selects a word (or, typed with Shift, its phrase), outlined digits show on
// the words of its line (extendTargets in core.js): 1-6 at the ends of the next six words,
// 7 8 9 0 at the starts of the previous four. A digit extends the selection to that word (its
// other end stays) and the digits show again for the new selection; a label's key labels it.
// Any other key closes the digits and does what it always does (a label's key labels the
// selection, Esc only closes them). The badges are drawn with the hints' (hints.js), hidden from
// screen readers; the status line (aria-live) says what the digits do, and a part of it only
// screen readers get names the word each digit reaches.

Object.assign(SpanEditor.prototype, {
  openExtend() {
    this.closeHints();
    if (!this.sel) return;
    const targets = extendTargets(this.text, this.sel.a, this.sel.b);
    if (!targets.length) return;
    // said first: a longer status line moves the note down, and the badges are placed after it
    this.say(`${this.selectedMessage()}; or a digit extends it to an outlined word (1-6: after it, 7-0: before it).`);
    const words = targets.map((t) => `${t.digit}: '${shorten(this.text.slice(...t.word), 20)}'`);
    this.status.append(el("span", "wb-sr", ` Digits: ${words.join(", ")}.`));
    const layer = this.hintLayer({ ext: true, targets }, () => this.openExtend());
    const base = layer.getBoundingClientRect(), v = this.noteView();
    for (const t of targets) {
      const r = this.charRect(t.dir > 0 ? t.at - 1 : t.at);
      if (!r || r.bottom <= v.top || r.top >= v.bottom) continue;      // out of view: no badge (the digit works)
      t.badge = this.hintBadge(layer, base, `wb-ext wb-ext-${t.dir > 0 ? "after" : "before"}`, t.digit,
        t.dir > 0 ? r.right : r.left, (r.top + r.bottom) / 2, t);
    }
    this.hintLegend(layer, base, "1-6: extend to a word after it · 7-0: before it · a label's key labels it · Esc: no digits");
    this.root.dataset.hints = "extend";
  },

  // A key while the digits show: true when it was used up; false: the digits are closed and the
  // key goes on to do what it always does.
  extendKey(e) {
    const t = !e.ctrlKey && !e.metaKey && !e.altKey && this.hints.targets.find((x) => x.digit === e.key);
    if (!t) {
      this.closeHints();
      if (e.key !== "Escape") return false;
      this.say(`${this.selectedMessage()}.`);
      return true;
    }
    const anchor = t.dir > 0 ? this.sel.a : this.sel.b;
    this.select(t.a, t.b, anchor);
    this.openExtend();
    return true;
  },
});
