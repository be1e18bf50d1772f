// Drawing the span editor (added to SpanEditor, editor.js, loaded before this file): the note
// with every span in place (a span is role="mark", read as "Louis, patient name"; its badge is
// CSS, hidden from screen readers), the label chips with their keys, the saved / unsaved state,
// and the status line (aria-live) every message goes through.

Object.assign(SpanEditor.prototype, {
  // ------------------------------------------------------------------ rendering

  render() {
    this.renderNote();
    this.renderSide();
    this.renderState();
  },

  renderState() {
    const dirty = this.baseline === null || spansKey(this.spans) !== this.baseline;
    this.dirtyText.textContent = this.baseline === null ? "not saved yet" : dirty ? "unsaved changes" : "saved";
    this.dirtyText.classList.toggle("wb-warn", dirty);
    this.undoBtn.disabled = !this.undoStack.length;
    this.redoBtn.disabled = !this.redoStack.length;
    this.root.dataset.dirty = dirty ? "1" : "0";
    this.root.dataset.seq = String(this.seq);
  },

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
  },

  // Labels whose type or category holds what is typed in the filter, in schema order.
  matchingLabels() {
    const q = this.filter.value.trim().toLowerCase();
    return this.labels.filter((l) => !q || l.type.toLowerCase().includes(q) || l.category.toLowerCase().includes(q));
  },

  filterLabels() {
    const show = new Set(this.matchingLabels().map((l) => l.type));
    for (const b of this.chips.children) b.hidden = !show.has(b.dataset.type);
  },

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
  },

  say(message, kind = "info") {
    this.asking = false;
    delete this.root.dataset.asking;
    this.status.textContent = message;
    this.status.dataset.kind = kind;
  },

  // 'Walter Austin' (PATIENT): how messages name a span (its text, never offsets)
  describe(s) { return `'${shorten(this.text.slice(s.start, s.end))}' (${s.type})`; },
});
