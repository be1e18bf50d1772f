// The selection in the DOM and the mouse (added to SpanEditor, editor.js): note offsets <-> DOM
// ranges, showing and revealing a selection below the sticky toolbar, and what a drag, a click
// on a word or span, or a click on a toolbar button does. A selection always snaps to whole
// words (snapToWords in core.js).

Object.assign(SpanEditor.prototype, {
  // ------------------------------------------------------------------ selection in the DOM

  offsetOf(node, offset) {
    const r = document.createRange();
    r.setStart(this.note, 0);
    try { r.setEnd(node, offset); } catch (_) { return null; }
    return r.toString().length;
  },

  pointAt(offset) {
    const walker = document.createTreeWalker(this.note, NodeFilter.SHOW_TEXT);
    let seen = 0, n = null, last = null;
    while ((n = walker.nextNode())) {
      const len = n.textContent.length;
      if (offset <= seen + len) return [n, offset - seen];
      seen += len; last = n;
    }
    return last ? [last, last.textContent.length] : [this.note, 0];
  },

  rangeOf(a, b) {
    const r = document.createRange();
    r.setStart(...this.pointAt(a));
    r.setEnd(...this.pointAt(b));
    return r;
  },

  showSelection() {
    const sel = window.getSelection();
    if (!this.sel) {
      if (sel && sel.rangeCount && this.note.contains(sel.anchorNode)) sel.removeAllRanges();
      return;
    }
    sel.removeAllRanges();
    sel.addRange(this.rangeOf(this.sel.a, this.sel.b));
  },

  select(a, b, anchor) {
    const snapped = snapToWords(this.text, a, b);
    if (!snapped) { this.sel = null; this.showSelection(); return; }
    this.sel = { a: snapped[0], b: snapped[1], anchor: anchor ?? snapped[0] };
    this.cur = null;
    this.renderNote();
    this.reveal(this.sel.a, this.sel.b);
    this.say(`${this.selectedMessage()}.`);
  },

  // "Selected 'Walter Austin': press a label's key", and what the label would split or replace.
  selectedMessage() {
    const { a: x, b: y } = this.sel;
    const covered = this.spans.filter((s) => overlaps(s, x, y));
    const outer = covered.find((s) => s.start <= x && y <= s.end && !sameExtent(s, x, y));
    return `Selected '${shorten(this.text.slice(x, y))}': press a label's key`
      + (outer ? ` (it splits ${this.describe(outer)})` : covered.length ? ` (it replaces ${covered.map((s) => this.describe(s)).join(", ")})` : "");
  },

  // Scroll the page (Streamlit's scrolling container) so that [a, b) shows below the sticky toolbar.
  reveal(a, b) {
    const rects = [...this.rangeOf(a, Math.max(a, b)).getClientRects()];
    if (!rects.length) return;
    const r = { top: rects[0].top, bottom: rects[rects.length - 1].bottom };
    const top = Math.max(0, this.bar.getBoundingClientRect().bottom) + 8, bottom = window.innerHeight - 16;
    if (r.top >= top && r.bottom <= bottom) return;
    const dy = r.top < top ? r.top - top - 24 : r.bottom - bottom + 24;
    this.scroller().scrollBy(0, dy);
  },

  // The element that scrolls the note (Streamlit's main area, or the page).
  scroller() {
    let p = this.root.parentElement;
    while (p && !(p.scrollHeight > p.clientHeight + 1 && /(auto|scroll)/.test(getComputedStyle(p).overflowY)))
      p = p.parentElement;
    return p || document.scrollingElement;
  },

  // ------------------------------------------------------------------ mouse

  onMouseUp(e) {
    if (e.button !== 0 || !this.root.isConnected) return;
    if (this.closeHints) this.closeHints();
    const sel = window.getSelection();
    if (sel && sel.rangeCount && !sel.isCollapsed) {
      const r = sel.getRangeAt(0);
      if (!this.note.contains(r.startContainer) || !this.note.contains(r.endContainer)) return;
      const a = this.offsetOf(r.startContainer, r.startOffset), b = this.offsetOf(r.endContainer, r.endOffset);
      if (a === null || b === null) return;
      this.select(a, b);
      return;
    }
    if (!this.note.contains(e.target)) return;
    const spanEl = e.target.closest && e.target.closest(".wb-s");
    const disEl = e.target.closest && e.target.closest(".wb-d");
    if (disEl) this.goDisagreement(Number(disEl.dataset.d), false);
    if (spanEl) { this.setCurrent(this.spans[Number(spanEl.dataset.i)]); return; }
    if (disEl) return;
    // a click on plain text selects the word under it
    if (sel && sel.rangeCount) {
      const r = sel.getRangeAt(0);
      const at = this.offsetOf(r.startContainer, r.startOffset);
      if (at === null) return;
      const us = units(this.text);
      const tok = us.find(([a, b]) => a <= at && at < b) || us.find(([a, b]) => a <= at && at <= b);
      if (tok) this.select(tok[0], tok[1]);
    }
  },

  onBarClick(e) {
    const chip = e.target.closest(".wb-chip");
    if (chip) { this.applyLabel(chip.dataset.type); this.note.focus({ preventScroll: true }); return; }
    const b = e.target.closest("button[data-action]");
    if (!b || b.disabled) return;
    const act = b.dataset.action;
    // the status line's buttons go away once pressed: the keys go back to the note
    if (this.status.contains(b)) this.note.focus({ preventScroll: true });
    if (act === "restore_local") this.restoreLocal();
    else if (act === "discard_local") { this.localOffer = null; this.dropLocal(); this.say("Discarded the kept edits."); }
    else if (act === "undo") this.undo();
    else if (act === "redo") this.redo();
    else if (act === "accept_all") this.acceptAll();
    else if (act === "help") this.toggleHelp();
    else if (act === "finish") this.finish();
    else if (act === "finish_accept") this.finishAccepting();
    else if (act === "finish_first") { this.asking = false; this.cur = null; this.sel = null; this.stepOpen(1); }
    else if (act === "finish_anyway") { this.asking = false; this.send("finish"); }
    else this.send(act);
  },
});
