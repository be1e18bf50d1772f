// The span editor: the note as written, every span in place, keyboard first.
// A Streamlit Components v2 module (see dashboard/editor/__init__.py for the data it gets and the
// state and trigger it sends back). This file holds the SpanEditor class's life: mounting, the
// DOM it builds, and taking Python's data. core.js (pure functions) is joined in front of it; the
// files after it each add one job's methods to the class: render.js (drawing), selection.js (the
// selection in the DOM, the mouse), keys.js (the key list and the key handler), editing.js (span
// edits, undo), review.js (disagreements), saving.js (drafts, finishing, actions to Python),
// moves.js (jump to text, resizing, stepping), hints.js (; and : hints), phrases.js (Shift picks a
// phrase) and extend.js (a digit extends a picked selection).
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
}
