// Review's disagreements (added to SpanEditor, editor.js): the side list, stepping to a
// disagreement, and taking an annotator's version (1, 2, ...) or neither (0). A disagreement
// every annotator only accepted in bulk or left open is "unreviewed", never agreed.

Object.assign(SpanEditor.prototype, {
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
  },

  // An annotator's version of a disagreement in a few words: its labels, and the text of each
  // span where it does not cover the whole disagreement (boundaries differ).
  optionWords(d, o) {
    if (!o.spans.length) return "nothing";
    return o.spans.map((x) => (x.start === d.start && x.end === d.end ? x.type
      : `${x.type} '${shorten(this.text.slice(x.start, x.end), 18)}'`)).join(" + ");
  },

  choiceName(d) {
    if (d.decided === "neither") return "neither";
    if (d.decided === "edited") return "edited";
    const o = d.options.find((x) => x.who === d.decided);
    return o ? `${o.key} ${o.who}` : String(d.decided);
  },

  onSideClick(e) {
    const li = e.target.closest("li[data-d]");
    if (li) this.goDisagreement(Number(li.dataset.d), true);
  },

  // ------------------------------------------------------------------ review

  nextOpenDis(from, dir) { return stepIndex(this.dis, from, dir, (d) => !d.decided); },

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
  },

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
  },
});
