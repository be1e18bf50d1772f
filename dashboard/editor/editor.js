// The span editor: the note as written, every span in place, keyboard first.
// A Streamlit Components v2 module (see dashboard/editor/__init__.py for the data it gets and the
// state and trigger it sends back). core.js is joined in front of this file, moves.js (jump to
// text, resizing, stepping) after it.
//
// Streamlit calls the default export again with the same parentElement whenever the data changes;
// one SpanEditor per parentElement lives across those calls. It keeps the working spans (with undo
// and redo) until the data's `token` changes (another document, or the page restarted the editor).

const EDITORS = new WeakMap();
const DRAFT_DELAY_MS = 1200;

export default function mountSpanEditor(component) {
  const { data, parentElement, setStateValue, setTriggerValue } = component;
  let ed = EDITORS.get(parentElement);
  if (!ed) {
    ed = new SpanEditor(parentElement);
    EDITORS.set(parentElement, ed);
  }
  ed.setState = setStateValue;
  ed.setTrigger = setTriggerValue;
  ed.update(data || {});
  return () => { ed.destroy(); EDITORS.delete(parentElement); };
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function button(label, action, title) {
  const b = el("button", "wb-btn", label);
  b.type = "button";
  b.dataset.action = action;
  if (title) { b.title = title; if (!/\w/u.test(label)) b.setAttribute("aria-label", title); }
  return b;
}

function shorten(s, n = 40) {
  const one = s.split(/\s+/u).filter(Boolean).join(" ");
  return one.length > n ? one.slice(0, n - 1) + "…" : one;
}

const KEYS_ANNOTATE = [
  ["mouse drag / click a word", "select text (snaps to whole words, never takes spaces or line breaks)"],
  ["Ctrl+F, a few letters, Enter", "jump to text: select the next match (Enter again: the match after; Esc: back)"],
  ["… Shift+Enter", "jump to text: select from the match to the end of its phrase (a full name found by its first letters)"],
  ["← →", "select the next / previous word (a date, phone number, id or e-mail is one word)"],
  ["Shift+← →", "extend the selection; on the current span: move its end (into a span: merge)"],
  ["Shift+←, a label's key", "split: the words cut off the current span get that label"],
  ["Ctrl+Shift+← →", "move the current span's start"],
  ["↑ ↓", "select the first word of the line above / below"],
  ["PageDown / PageUp", "the next / previous screenful of the note (no line hidden under the toolbar; hints stay open)"],
  ["a label's key (a capital: with Shift)", "label the selection (inside a span: split it), or relabel the current span"],
  ["; then a span's letters", "hints: make a span in view current (letters on every span shown)"],
  ["; then a cut point's digit (outlined)", "hints: select a span from where a second name or place begins in it to its end: a label's key splits it off"],
  [": (or ; ;) then a word's letters", "hints: select a word in view (then a label's key labels it; inside a span: splits it)"],
  [": then a word's letters with Shift", "hints: select from that word to the end of its underlined phrase (a full name, a street address, a date written out; inside a span, to the span's end): a label's key adds it, or splits the span"],
  ["/", "filter the labels by name, Enter takes the first"],
  ["click a span, . / ,", "current span: next / previous"],
  ["] / [", "next / previous open suggestion"],
  ["Enter", "accept the current suggestion"],
  ["Delete or Backspace", "remove the current span"],
  ["Shift+Delete", "remove every span with the current span's text"],
  ["+", "mark every occurrence of the current span's text"],
  ["Shift+A", "accept all suggestions scored at or above the threshold (recorded as accepted in bulk)"],
  ["Ctrl+Z / Ctrl+Shift+Z or Ctrl+Y", "undo / redo"],
  ["Ctrl+S", "save"],
  ["Ctrl+Enter", "finish and open the next document (with open suggestions it asks first)"],
  ["> / <", "next / previous document"],
  ["Esc", "close this list, clear the selection; then give the keys back to the page"],
  ["Tab / Shift+Tab", "leave the note (the toolbar is before it, the page after it)"],
  ["?", "show or hide this list"],
];
const KEYS_REVIEW = [
  ["1, 2, …", "take annotator 1's, 2's, … version of the current disagreement"],
  ["0", "take neither version"],
  ["] / [", "next / previous undecided disagreement"],
  ["Ctrl+Enter", "save gold and open the next document"],
];

class SpanEditor {
  constructor(parent) {
    this.parent = parent;
    this.token = null;
    this.spans = [];
    this.undoStack = [];
    this.redoStack = [];
    this.cur = null;          // the current span (an object of this.spans)
    this.sel = null;          // {a, b, anchor}: selected text
    this.dis = [];            // review: disagreements
    this.curDis = -1;
    this.seq = 0;             // edits made; sent with drafts and actions
    this.draftTimer = null;
    this.build();
    this.onKey = this.onKey.bind(this);
    window.addEventListener("keydown", this.onKey, true);
  }

  destroy() {
    window.removeEventListener("keydown", this.onKey, true);
    document.removeEventListener("mouseup", this.onMouseUpAnywhere);
    clearTimeout(this.draftTimer);
    if (this.closeHints) this.closeHints();
    if (this.stuck) this.stuck.disconnect();
    this.root.remove();
  }

  // ------------------------------------------------------------------ building the DOM

  build() {
    const root = el("div", "wb-ed");
    root.dataset.testid = "wb-editor";
    const bar = el("div", "wb-bar");
    this.bar = bar;
    const row = el("div", "wb-row");
    this.prevBtn = button("◀", "prev", "Previous document (<)");
    this.posText = el("span", "wb-pos");
    this.nextBtn = button("▶", "next", "Next document (>)");
    this.undoBtn = button("↶", "undo", "Undo (Ctrl+Z)");
    this.redoBtn = button("↷", "redo", "Redo (Ctrl+Shift+Z)");
    this.acceptAllBtn = button("Accept ≥", "accept_all", "Accept all suggestions scored at or above this (Shift+A)");
    this.threshold = el("input", "wb-threshold");
    Object.assign(this.threshold, { type: "number", min: "0", max: "1", step: "0.05", title: "Threshold for Accept all" });
    this.threshold.setAttribute("aria-label", "Threshold for Accept all (Enter or Esc: back to the note)");
    this.saveBtn = button("Save", "save", "Save (Ctrl+S)");
    this.finishBtn = button("Finish & next", "finish", "Save as finished and open the next document (Ctrl+Enter)");
    this.finishBtn.classList.add("wb-primary");
    this.helpBtn = button("?", "help", "Keys (?)");
    this.dirtyText = el("span", "wb-dirty");
    const nav = el("span", "wb-group");
    nav.append(this.prevBtn, this.posText, this.nextBtn);
    const edit = el("span", "wb-group");
    const acceptGroup = el("span", "wb-group wb-accept");
    acceptGroup.append(this.acceptAllBtn, this.threshold);
    edit.append(this.undoBtn, this.redoBtn, acceptGroup);
    const findGroup = el("span", "wb-group");
    const save = el("span", "wb-group wb-right");
    save.append(this.dirtyText, this.saveBtn, this.finishBtn, this.helpBtn);
    row.append(nav, edit, findGroup, save);
    this.labelsRow = el("div", "wb-labels");
    this.chips = el("span", "wb-chips");
    this.filter = el("input", "wb-filter");
    Object.assign(this.filter, { type: "text", placeholder: "/ filter labels", title: "Filter labels (/)" });
    this.filter.setAttribute("aria-label", "Filter labels (/)");
    this.find = el("input", "wb-find");
    Object.assign(this.find, { type: "search", placeholder: "Ctrl+F jump", title: "Jump to text (Ctrl+F): type a few letters, Enter selects the next match, Shift+Enter to the end of its phrase" });
    this.find.setAttribute("aria-label", "Jump to text (Ctrl+F): Enter selects the next match, Shift+Enter from it to the end of its phrase");
    this.find.setAttribute("aria-keyshortcuts", "Control+F");
    this.status = el("div", "wb-status");
    this.status.setAttribute("aria-live", "polite");
    findGroup.append(this.find, this.filter);   // in the first row: the chips get the whole width
    this.labelsRow.append(this.chips);
    bar.append(row, this.labelsRow, this.status);
    const body = el("div", "wb-body");
    // The note is the editor's one stop in the Tab order (the toolbar comes before it): its keys
    // act only while it (or a button of the editor) has the focus.
    this.note = el("div", "wb-note");
    this.note.tabIndex = 0;
    this.note.setAttribute("role", "region");
    this.note.addEventListener("blur", () => { if (this.closeHints) this.closeHints(); });
    this.note.setAttribute("aria-label", "Note: the annotation editor (? lists the keys, Esc gives the keys back to the page)");
    // hint letters on spans (;) and words (: , a word's letters with Shift: its phrase), jump (Ctrl+F)
    this.note.setAttribute("aria-keyshortcuts", "; : Control+F ?");
    this.side = el("div", "wb-side");
    body.append(this.note, this.side);
    this.help = el("div", "wb-help");
    this.help.hidden = true;
    // The bar covers the strip of Streamlit's header above it only once it is stuck (a sentinel
    // just above it has scrolled under the header): before that the strip is the page's title.
    const sentinel = el("div", "wb-sentinel");
    root.append(sentinel, bar, body, this.help);
    if (typeof IntersectionObserver !== "undefined") {
      this.stuck = new IntersectionObserver(([e]) => bar.classList.toggle("wb-stuck", !e.isIntersecting && e.boundingClientRect.top < 120),
        { rootMargin: "-61px 0px 0px 0px", threshold: 0 });
      this.stuck.observe(sentinel);
    }
    this.root = root;
    this.parent.appendChild(root);

    bar.addEventListener("click", (e) => this.onBarClick(e));
    this.side.addEventListener("click", (e) => this.onSideClick(e));
    this.onMouseUpAnywhere = (e) => this.onMouseUp(e);
    document.addEventListener("mouseup", this.onMouseUpAnywhere);
    this.filter.addEventListener("input", () => this.filterLabels());
    this.filter.addEventListener("keydown", (e) => this.onFilterKey(e));
    this.find.addEventListener("input", () => this.previewFind());
    this.find.addEventListener("keydown", (e) => this.onFindKey(e));
    this.threshold.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === "Escape") this.note.focus(); });
  }

  // ------------------------------------------------------------------ data from Python

  update(data) {
    this.data = data;
    const fresh = data.token !== this.token;
    if (fresh) {
      if (this.closeHints) this.closeHints();
      this.token = data.token;
      this.root.dataset.token = String(data.token);
      this.low = data.low_confidence ?? 0;
      this.mode = data.mode || "annotate";
      this.text = data.text || "";
      this.labels = data.labels || [];
      this.byType = new Map(this.labels.map((l) => [l.type, l]));
      this.byKey = new Map(this.labels.filter((l) => l.key).map((l) => [l.key, l]));
      this.spans = (data.spans || []).map((s) => ({
        start: s.start, end: s.end, type: s.type, category: s.category, sugg: !!s.suggestion, score: s.score ?? 1,
        how: s.how || "",
      })).sort(bySpanOrder);
      this.dis = (data.disagreements || []).map((d, i) => ({ ...d, index: i, decided: d.choice || null }));
      this.undoStack = []; this.redoStack = [];
      this.cur = null; this.sel = null; this.curDis = -1; this.seq = 0;
      this.threshold.value = String(data.threshold ?? 0.8);
      this.asking = false;
      this.root.classList.toggle("wb-review", this.mode === "review");
      this.finishBtn.textContent = this.mode === "review" ? "Save gold & next" : "Finish & next";
      this.saveBtn.textContent = this.mode === "review" ? "Save gold" : "Save";
      this.renderHelp();
      this.renderLabels();
    }
    this.baseline = data.saved == null ? null : spansKey(data.saved.map((s) => ({ ...s, sugg: !!s.suggestion })));
    this.localKey = data.local_key || null;
    this.requireDecided = !!data.require_decided;
    this.version = data.version ?? 0;
    if (!fresh && this.baseline !== null && spansKey(this.spans) === this.baseline) this.dropLocal();  // saved
    this.posText.textContent = data.position || "";
    this.prevBtn.disabled = !data.has_prev;
    this.nextBtn.disabled = !data.has_next;
    this.render();
    if (fresh) {
      this.say(data.message || this.intro(), data.message_kind || "info");
      // the keys work straight away when a note opens, unless a field that takes typing has
      // the focus (the queue's select box, say)
      const active = document.activeElement;
      if (!active || !active.closest("input, textarea, select, [contenteditable=''], [contenteditable='true'], [role='combobox']"))
        this.note.focus({ preventScroll: true });
      if (this.mode === "review" && this.dis.length) this.goDisagreement(this.nextOpenDis(-1, 1), false);
      this.offerLocal();
    } else if (data.message && data.message_id !== this.messageId) {
      this.say(data.message, data.message_kind || "info");
    }
    this.messageId = data.message_id;
  }

  intro() {
    if (this.mode === "review") {
      const n = this.dis.length;
      return n ? `${n} disagreement${n === 1 ? "" : "s"}: press 1, 2, … for an annotator's version, 0 for neither. ? lists the keys.`
        : "The annotators agree everywhere: check the gold and save it. ? lists the keys.";
    }
    const open = this.spans.filter((s) => s.sugg).length;
    return `${open} open suggestion${open === 1 ? "" : "s"} (dashed). Select text (Ctrl+F jumps to it; ; and : put letters on spans and words) and press a label's key; ? lists the keys.`;
  }

  // ------------------------------------------------------------------ rendering

  render() {
    this.renderNote();
    this.renderSide();
    this.renderState();
  }

  renderState() {
    const dirty = this.baseline === null || spansKey(this.spans) !== this.baseline;
    this.dirtyText.textContent = this.baseline === null ? "not saved yet" : dirty ? "unsaved changes" : "saved";
    this.dirtyText.classList.toggle("wb-warn", dirty);
    this.undoBtn.disabled = !this.undoStack.length;
    this.redoBtn.disabled = !this.redoStack.length;
    this.root.dataset.dirty = dirty ? "1" : "0";
    this.root.dataset.seq = String(this.seq);
  }

  renderLabels() {
    const chips = [];
    for (const l of this.labels) {
      const b = el("button", "wb-chip");
      b.type = "button";
      b.tabIndex = -1;
      b.dataset.type = l.type;
      b.style.setProperty("--c", l.colour);
      const keyName = l.key && /[A-Z]/.test(l.key) ? `Shift+${l.key}` : l.key;
      b.title = `${l.type} (${l.category})` + (l.key ? `: key ${keyName}` : ": no key, use / to filter");
      b.setAttribute("aria-label", `${l.spoken || l.type}` + (l.key ? `, key ${keyName}` : ""));
      if (l.key) {
        const kbd = el("kbd", "", l.key);
        if (keyName !== l.key) { kbd.classList.add("wb-shift"); kbd.title = keyName; }
        b.append(kbd);
      }
      b.append(document.createTextNode(l.type));
      chips.push(b);
    }
    this.chips.replaceChildren(...chips);
    this.filterLabels();
  }

  // Labels whose type or category holds what is typed in the filter, in schema order.
  matchingLabels() {
    const q = this.filter.value.trim().toLowerCase();
    return this.labels.filter((l) => !q || l.type.toLowerCase().includes(q) || l.category.toLowerCase().includes(q));
  }

  filterLabels() {
    const show = new Set(this.matchingLabels().map((l) => l.type));
    for (const b of this.chips.children) b.hidden = !show.has(b.dataset.type);
  }

  renderNote() {
    const text = this.text, spans = this.spans;
    const cuts = new Set([0, text.length]);
    for (const s of spans) { cuts.add(s.start); cuts.add(s.end); }
    for (const d of this.dis) { cuts.add(d.start); cuts.add(d.end); }
    const points = [...cuts].filter((c) => c >= 0 && c <= text.length).sort((x, y) => x - y);
    const frag = document.createDocumentFragment();
    let si = 0;
    for (let k = 0; k + 1 < points.length; k += 1) {
      const a = points[k], b = points[k + 1];
      while (si < spans.length && spans[si].end <= a) si += 1;
      const s = si < spans.length && spans[si].start <= a && b <= spans[si].end ? spans[si] : null;
      const di = this.dis.findIndex((d) => d.start <= a && b <= d.end);
      const piece = text.slice(a, b);
      if (!s && di < 0) { frag.append(document.createTextNode(piece)); continue; }
      const e = el("span", "", piece);
      if (s) {
        const idx = spans.indexOf(s);
        e.classList.add("wb-s");
        e.dataset.i = String(idx);
        e.dataset.type = s.type;
        e.style.setProperty("--c", (this.byType.get(s.type) || {}).colour || "#e0e0e0");
        if (s.sugg) e.classList.add("wb-sugg");
        if (s.sugg && s.score < this.low) e.classList.add("wb-low");
        if (s === this.cur) e.classList.add("wb-cur");
        if (a === s.start) e.classList.add("wb-first");
        if (b === s.end) {
          e.classList.add("wb-last");
          e.dataset.tag = s.sugg ? `${s.type} ${s.score.toFixed(2)}` : s.type;
        }
        e.title = `${s.type} (${s.category})` + (s.sugg ? `, suggestion scored ${s.score.toFixed(2)}` : "");
        // read as "Louis, patient name" (the badge after it is hidden from screen readers)
        e.setAttribute("role", "mark");
        e.setAttribute("aria-label", `${piece}, ${(this.byType.get(s.type) || {}).spoken || s.type}`
          + (s.sugg ? `, suggestion scored ${s.score.toFixed(2)}` : "") + (s === this.cur ? ", current" : ""));
      }
      if (di >= 0) {
        const d = this.dis[di];
        const said = `disagreement ${di + 1}` + (d.decided ? `, took ${this.choiceName(d)}`
          : ": " + d.options.map((o) => `${o.key} ${o.spans.map((x) => x.type).join(" and ") || "nothing"}`).join(", ") + ", 0 neither");
        e.setAttribute("role", "mark");
        e.setAttribute("aria-label", (e.getAttribute("aria-label") || piece) + ", " + said);
        e.classList.add("wb-d");
        e.dataset.d = String(di);
        if (d.decided) e.classList.add("wb-d-done");
        if (di === this.curDis) e.classList.add("wb-d-cur");
        if (b === d.end) {
          e.classList.add("wb-d-last");
          e.dataset.badge = `#${di + 1} ` + (d.kind === "unreviewed" && !d.decided ? "unreviewed " : "") + (d.decided ? `✓ ${this.choiceName(d)}`
            : d.options.map((o) => `${o.key}:${o.spans.map((x) => x.type).join("+") || "—"}`).join(" ") + " 0:—");
        }
      }
      frag.append(e);
    }
    this.note.replaceChildren(frag);
    this.showSelection();
  }

  renderSide() {
    if (this.mode !== "review") { this.side.hidden = true; return; }
    this.side.hidden = false;
    const open = this.dis.filter((d) => !d.decided).length;
    const head = el("div", "wb-side-head", this.dis.length ? `Disagreements: ${open} of ${this.dis.length} open` : "No disagreements");
    const list = el("ol", "wb-dlist");
    this.dis.forEach((d, i) => {
      const li = el("li", d.decided ? "wb-done" : "");
      if (i === this.curDis) li.classList.add("wb-d-cur");
      li.dataset.d = String(i);
      const what = d.options.map((o) => `${o.key} ${this.optionWords(d, o)}`).join(" · ");
      li.append(el("span", "wb-dtext", shorten(this.text.slice(d.start, d.end), 28)));
      li.append(el("span", "wb-dwhat", d.decided ? `✓ ${this.choiceName(d)}`
        : d.kind === "unreviewed" ? `unreviewed: all only accepted in bulk or left open · ${what}` : what));
      list.append(li);
    });
    this.side.replaceChildren(head, list);
  }

  renderHelp() {
    const rows = this.mode === "review" ? KEYS_REVIEW.concat(KEYS_ANNOTATE.filter(([k]) => !["Ctrl+Enter", "] / ["].includes(k)))
      : KEYS_ANNOTATE;
    const table = el("table");
    for (const [k, what] of rows) {
      const tr = el("tr");
      tr.append(el("th", "", k), el("td", "", what));
      table.append(tr);
    }
    this.help.replaceChildren(el("div", "wb-help-title", "Keys (press ? or Esc to close)"), table);
  }

  // An annotator's version of a disagreement in a few words: its labels, and the text of each
  // span where it does not cover the whole disagreement (boundaries differ).
  optionWords(d, o) {
    if (!o.spans.length) return "nothing";
    return o.spans.map((x) => (x.start === d.start && x.end === d.end ? x.type
      : `${x.type} '${shorten(this.text.slice(x.start, x.end), 18)}'`)).join(" + ");
  }

  choiceName(d) {
    if (d.decided === "neither") return "neither";
    if (d.decided === "edited") return "edited";
    const o = d.options.find((x) => x.who === d.decided);
    return o ? `${o.key} ${o.who}` : String(d.decided);
  }

  say(message, kind = "info") {
    this.asking = false;
    delete this.root.dataset.asking;
    this.status.textContent = message;
    this.status.dataset.kind = kind;
  }

  // 'Walter Austin' (PATIENT): how messages name a span (its text, never offsets)
  describe(s) { return `'${shorten(this.text.slice(s.start, s.end))}' (${s.type})`; }

  // ------------------------------------------------------------------ selection in the DOM

  offsetOf(node, offset) {
    const r = document.createRange();
    r.setStart(this.note, 0);
    try { r.setEnd(node, offset); } catch (_) { return null; }
    return r.toString().length;
  }

  pointAt(offset) {
    const walker = document.createTreeWalker(this.note, NodeFilter.SHOW_TEXT);
    let seen = 0, n = null, last = null;
    while ((n = walker.nextNode())) {
      const len = n.textContent.length;
      if (offset <= seen + len) return [n, offset - seen];
      seen += len; last = n;
    }
    return last ? [last, last.textContent.length] : [this.note, 0];
  }

  rangeOf(a, b) {
    const r = document.createRange();
    r.setStart(...this.pointAt(a));
    r.setEnd(...this.pointAt(b));
    return r;
  }

  showSelection() {
    const sel = window.getSelection();
    if (!this.sel) {
      if (sel && sel.rangeCount && this.note.contains(sel.anchorNode)) sel.removeAllRanges();
      return;
    }
    sel.removeAllRanges();
    sel.addRange(this.rangeOf(this.sel.a, this.sel.b));
  }

  select(a, b, anchor) {
    const snapped = snapToWords(this.text, a, b);
    if (!snapped) { this.sel = null; this.showSelection(); return; }
    this.sel = { a: snapped[0], b: snapped[1], anchor: anchor ?? snapped[0] };
    this.cur = null;
    this.renderNote();
    this.reveal(this.sel.a, this.sel.b);
    const { a: x, b: y } = this.sel;
    const covered = this.spans.filter((s) => overlaps(s, x, y));
    const outer = covered.find((s) => s.start <= x && y <= s.end && !sameExtent(s, x, y));
    this.say(`Selected '${shorten(this.text.slice(x, y))}': press a label's key`
      + (outer ? ` (it splits ${this.describe(outer)})` : covered.length ? ` (it replaces ${covered.map((s) => this.describe(s)).join(", ")})` : "") + ".");
  }

  // Scroll the page (Streamlit's scrolling container) so that [a, b) shows below the sticky toolbar.
  reveal(a, b) {
    const rects = [...this.rangeOf(a, Math.max(a, b)).getClientRects()];
    if (!rects.length) return;
    const r = { top: rects[0].top, bottom: rects[rects.length - 1].bottom };
    const top = Math.max(0, this.bar.getBoundingClientRect().bottom) + 8, bottom = window.innerHeight - 16;
    if (r.top >= top && r.bottom <= bottom) return;
    const dy = r.top < top ? r.top - top - 24 : r.bottom - bottom + 24;
    this.scroller().scrollBy(0, dy);
  }

  // The element that scrolls the note (Streamlit's main area, or the page).
  scroller() {
    let p = this.root.parentElement;
    while (p && !(p.scrollHeight > p.clientHeight + 1 && /(auto|scroll)/.test(getComputedStyle(p).overflowY)))
      p = p.parentElement;
    return p || document.scrollingElement;
  }

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
  }

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
  }

  onSideClick(e) {
    const li = e.target.closest("li[data-d]");
    if (li) this.goDisagreement(Number(li.dataset.d), true);
  }

  // ------------------------------------------------------------------ keys

  // Keys act only while the editor has the focus (issue 31: no keys taken when nothing or
  // something else on the page has it), never while one of its fields takes typing; Tab always
  // moves the focus (it leaves the note); on one of the editor's buttons, Enter and Space press it.
  active(e) {
    if (!this.root.isConnected || e.key === "Tab") return false;
    const a = document.activeElement;
    if (!a || !this.root.contains(a)) return false;
    if (a === this.filter || a === this.threshold || a === this.find) return false;
    return a === this.note || !["Enter", " "].includes(e.key);
  }

  onKey(e) {
    if (!this.active(e) || ["Shift", "Control", "Alt", "Meta"].includes(e.key)) return;  // a modifier alone: nothing yet
    // the finish question: ← → move between its answers, Enter presses the focused one, Esc
    // closes it (nothing accepted)
    if (this.asking && !e.ctrlKey && !e.metaKey && ["Enter", "Escape", "ArrowLeft", "ArrowRight"].includes(e.key)) {
      const a = document.activeElement;
      const answers = [...this.status.querySelectorAll("button[data-action]")];
      if (e.key === "Escape") { this.say("Not finished: the suggestions stay open."); this.note.focus({ preventScroll: true }); }
      else if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
        const i = answers.indexOf(a);
        const next = answers[((i < 0 ? 0 : i + (e.key === "ArrowRight" ? 1 : -1)) + answers.length) % answers.length];
        if (next) next.focus({ preventScroll: true });
      } else if (a && answers.includes(a)) a.click();
      else return;
      e.preventDefault(); e.stopPropagation(); e.stopImmediatePropagation();
      return;
    }
    if (this.hints && this.hintKey(e)) { e.preventDefault(); e.stopPropagation(); e.stopImmediatePropagation(); return; }
    const k = e.key, ctrl = e.ctrlKey || e.metaKey;
    const jumped = this.jumped;      // Enter right after a jump goes to the next match
    const cut = this.cutOff;         // a label's key right after Shift+← labels what was cut off
    this.jumped = null; this.cutOff = null;
    let done = true;
    if (ctrl && !e.altKey) {
      if (k === "z" || k === "Z") (e.shiftKey ? this.redo() : this.undo());
      else if (k === "f" || k === "F") this.openFind();
      else if (e.shiftKey && k === "ArrowLeft") this.moveStart(-1);
      else if (e.shiftKey && k === "ArrowRight") this.moveStart(1);
      else if (k === "y" || k === "Y") this.redo();
      else if (k === "s" || k === "S") this.send("save");
      else if (k === "Enter") this.finish();
      else done = false;
    } else if (e.altKey) {
      done = false;
    } else {
      switch (k) {
        case "?": this.toggleHelp(); break;
        case "Escape":
          if (!this.help.hidden) this.toggleHelp();
          else if (this.sel || this.cur) { this.sel = null; this.cur = null; this.renderNote(); this.say(this.intro()); }
          else { this.note.blur(); this.say("The keys are the page's again: Tab or a click on the note brings them back."); }
          break;
        case ".": this.stepSpan(1, () => true); break;
        case ",": this.stepSpan(-1, () => true); break;
        case "]": this.stepOpen(1); break;
        case "[": this.stepOpen(-1); break;
        case ">": this.send("next"); break;
        case "<": this.send("prev"); break;
        case "Enter":
          if (jumped && this.sel && jumped.a === this.sel.a) this.jumpNext(jumped, e.shiftKey);
          else if (jumped && this.cur && jumped.a === this.cur.start) this.jumpNext(jumped, e.shiftKey);
          else this.acceptCurrent();
          break;
        case "Delete": case "Backspace": (e.shiftKey ? this.removeAllSameText() : this.removeCurrent()); break;
        case "+": this.markAll(); break;
        case "/": this.openFilter(); break;
        case ";": this.openHints(false); break;
        case ":": this.openHints(true); break;
        case "ArrowRight": (e.shiftKey && this.cur ? this.moveEnd(1) : this.stepToken(1, e.shiftKey)); break;
        case "ArrowLeft": (e.shiftKey && this.cur ? this.moveEnd(-1, cut) : this.stepToken(-1, e.shiftKey)); break;
        case "PageDown": case "PageUp": if (e.shiftKey) done = false; else this.pageBy(k === "PageDown" ? 1 : -1); break;
        case "ArrowDown": this.stepLine(1, e.shiftKey); break;
        case "ArrowUp": this.stepLine(-1, e.shiftKey); break;
        case "A": this.acceptAll(); break;
        default:
          if (this.mode === "review" && /^[0-9]$/.test(k)) this.choose(k);
          else if (k.length === 1 && this.byKey.has(k)) this.applyLabel(this.byKey.get(k).type, cut);
          else if (k.length === 1 && !e.shiftKey && this.byKey.has(k.toLowerCase())) this.applyLabel(this.byKey.get(k.toLowerCase()).type, cut);
          else if (/^[a-zA-Z]$/.test(k)) this.say(`No label has the key ${/[A-Z]/.test(k) ? "Shift+" + k : k}: press / to find a label by name.`, "warn");
          else done = false;
      }
    }
    if (done) {
      e.preventDefault();
      e.stopPropagation();
      e.stopImmediatePropagation();
    }
  }

  // The key list opens just below the toolbar, wherever the page is scrolled to.
  toggleHelp() {
    this.help.hidden = !this.help.hidden;
    if (this.help.hidden) return;
    const r = this.bar.getBoundingClientRect();
    this.help.style.top = `${Math.max(0, r.bottom) + 4}px`;
    this.help.style.right = `${Math.max(0, window.innerWidth - r.right)}px`;
  }

  openFilter() {
    this.filter.value = "";
    this.filterLabels();
    this.filter.focus();
    this.say("Type part of a label's name; Enter takes the first label shown, Esc goes back.");
  }

  onFilterKey(e) {
    if (e.key === "Enter") {
      const first = this.matchingLabels()[0];
      this.closeFilter();
      if (first) this.applyLabel(first.type);
    } else if (e.key === "Escape") {
      this.closeFilter();
    } else {
      return;
    }
    e.preventDefault();
    e.stopPropagation();
  }

  closeFilter() {
    this.filter.value = "";
    this.filterLabels();
    this.note.focus({ preventScroll: true });
  }

  // ------------------------------------------------------------------ editing

  snapshot() { return { spans: this.spans, decided: this.dis.map((d) => d.decided) }; }

  restore(snap) {
    this.spans = snap.spans;
    snap.decided.forEach((v, i) => { if (this.dis[i]) this.dis[i].decided = v; });
  }

  edit(spans, message, kind = "info") {
    this.undoStack.push(this.snapshot());
    if (this.undoStack.length > 500) this.undoStack.shift();
    this.redoStack = [];
    this.spans = spans;
    this.changed(message, kind);
  }

  changed(message, kind = "info") {
    this.seq += 1;
    if (this.cur && !this.spans.includes(this.cur)) this.cur = null;
    this.render();
    if (message) this.say(message, kind);
    this.keepLocal();
    clearTimeout(this.draftTimer);
    this.draftTimer = setTimeout(() => this.sendDraft(), DRAFT_DELAY_MS);
  }

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
  }

  dropLocal() {
    if (!this.localKey) return;
    try { localStorage.removeItem(this.localKey); } catch (_) { /* nothing to drop */ }
  }

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
  }

  restoreLocal() {
    const offer = this.localOffer;
    this.localOffer = null;
    if (!offer) return;
    for (const i of offer.decided) if (this.dis[i]) this.dis[i].decided = this.dis[i].decided || "edited";
    this.edit(offer.spans, "Restored the edits kept in this browser (not saved yet).");
  }

  markEdited(a, b) {
    if (this.mode !== "review") return;
    for (const d of this.dis) if (d.start < b && a < d.end) d.decided = "edited";
  }

  undo() {
    if (!this.undoStack.length) { this.say("Nothing to undo."); return; }
    this.redoStack.push(this.snapshot());
    this.restore(this.undoStack.pop());
    this.cur = null; this.sel = null;
    this.changed("Undone.");
  }

  redo() {
    if (!this.redoStack.length) { this.say("Nothing to redo."); return; }
    this.undoStack.push(this.snapshot());
    this.restore(this.redoStack.pop());
    this.cur = null; this.sel = null;
    this.changed("Redone.");
  }

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
  }

  acceptCurrent() {
    if (!this.cur) { this.stepOpen(1); return; }
    if (!this.cur.sugg) { this.say(`${this.describe(this.cur)} is already accepted.`); return; }
    const r = accept(this.spans, this.cur);
    const next = stepIndex(r.spans, r.spans.indexOf(r.changed), 1, (s) => s.sugg);
    this.edit(r.spans, `Accepted ${this.describe(r.changed)}.`);
    this.cur = next >= 0 ? this.spans[next] : r.changed;
    this.renderNote();
    if (next >= 0) this.setCurrentQuiet(this.spans[next]);
  }

  setCurrentQuiet(s) { this.reveal(s.start, s.end); }

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
  }

  removeAllSameText() {
    if (!this.cur) { this.say("No current span: click one or press . (period).", "warn"); return; }
    const s = this.cur;
    const r = removeSameText(this.text, this.spans, s);
    for (const x of this.spans) if (!r.spans.includes(x)) this.markEdited(x.start, x.end);
    this.edit(r.spans, `Removed ${r.removed} span${r.removed === 1 ? "" : "s"} with the text '${shorten(this.text.slice(s.start, s.end))}'.`);
  }

  markAll() {
    if (!this.cur) { this.say("No current span: click one or press . (period).", "warn"); return; }
    const s = this.cur;
    const r = markAllOccurrences(this.text, this.spans, s);
    for (const x of r.spans) if (!this.spans.includes(x)) this.markEdited(x.start, x.end);
    if (!r.added) { this.say(`No other free occurrence of '${shorten(this.text.slice(s.start, s.end))}'.`); return; }
    this.edit(r.spans, `Marked ${r.added} more occurrence${r.added === 1 ? "" : "s"} of ${this.describe(s)}.`);
    this.cur = this.spans.find((x) => x.start === s.start && x.end === s.end) || null;
    this.renderNote();
  }

  acceptAll() {
    const t = Number(this.threshold.value);
    if (!Number.isFinite(t)) { this.say("The threshold must be a number between 0 and 1.", "warn"); return; }
    const r = acceptAll(this.spans, t);
    if (!r.accepted) { this.say(`No open suggestion is scored ${t.toFixed(2)} or more.`); return; }
    this.cur = null;
    this.edit(r.spans, `Accepted ${r.accepted} suggestion${r.accepted === 1 ? "" : "s"} scored ${t.toFixed(2)} or more.`);
  }

  // ------------------------------------------------------------------ review

  nextOpenDis(from, dir) { return stepIndex(this.dis, from, dir, (d) => !d.decided); }

  goDisagreement(i, scroll) {
    if (i < 0 || i >= this.dis.length) return;
    this.curDis = i;
    this.cur = null; this.sel = null;
    this.render();
    const d = this.dis[i];
    if (scroll) this.reveal(d.start, d.end);
    const parts = d.options.map((o) => `${o.key} ${o.who}: ${o.spans.length ? o.spans.map((s) => this.describe(s)).join(", ") : "nothing"}`);
    this.say(`Disagreement ${i + 1} of ${this.dis.length}` + (d.kind === "unreviewed" ? " (unreviewed: every annotator only accepted it in bulk or left it open, so it is not agreed)" : "")
      + (d.decided ? ` (took ${this.choiceName(d)})` : "")
      + ` · ${parts.join(" · ")} · 0 neither.`);
  }

  choose(key) {
    const d = this.dis[this.curDis];
    if (!d) { this.say("No current disagreement: press ] for the next one.", "warn"); return; }
    let chosen, who;
    if (key === "0") { chosen = []; who = "neither"; }
    else {
      const o = d.options.find((x) => x.key === key);
      if (!o) { this.say(`Disagreement ${this.curDis + 1} has no version ${key}.`, "warn"); return; }
      chosen = o.spans; who = o.who;
    }
    const spans = applyChoice(this.spans, d, chosen);
    this.undoStack.push(this.snapshot());
    this.redoStack = [];
    this.spans = spans;
    d.decided = who;
    const i = this.curDis;
    this.changed(null);
    const next = this.nextOpenDis(i, 1);
    if (next >= 0) this.goDisagreement(next, true);
    else { this.goDisagreement(i, false); this.say(`Took ${who === "neither" ? "neither version" : who + "'s version"} of disagreement ${i + 1}. Every disagreement is decided: Ctrl+Enter saves gold and opens the next document.`); }
  }

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
  }

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
  }

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
  }

  // ------------------------------------------------------------------ to Python

  payload() {
    return {
      token: this.token,
      seq: this.seq,
      spans: this.spans.map((s) => ({ start: s.start, end: s.end, type: s.type, accepted: !s.sugg, how: s.how || "" })),
      decided: this.dis.map((d, i) => (d.decided ? i : -1)).filter((i) => i >= 0),
    };
  }

  sendDraft() {
    if (this.setState) this.setState("draft", this.payload());
  }

  send(name) {
    clearTimeout(this.draftTimer);
    if (name === "next" && this.nextBtn.disabled) { this.say("This is the last document of the queue."); return; }
    if (name === "prev" && this.prevBtn.disabled) { this.say("This is the first document of the queue."); return; }
    this.say(name === "save" ? "Saving…" : name === "finish" || name === "save_next" ? "Saving and opening the next document…" : "Opening…");
    if (this.setTrigger) this.setTrigger("action", { name, ...this.payload() });
  }
}
