// Which key does what (added to SpanEditor, editor.js): the key list ? shows, the one keydown
// handler (keys act only while the editor has the focus; Tab always leaves), and the label
// filter (/). The moves the keys call are in moves.js, hints.js and phrases.js; the edits in
// editing.js.

const KEYS_ANNOTATE = [
  ["mouse drag / click a word", "select text (snaps to whole words, never takes spaces or line breaks)"],
  ["Ctrl+F, a few letters, Enter", "jump to text: select the next match (Enter again: the match after; Esc: back)"],
  ["… Shift+Enter", "jump to text: select from the match to the end of its phrase (a full name found by its first letters)"],
  ["← →", "select the next / previous word (a date, phone number, id or e-mail is one word)"],
  ["Shift+← →", "extend the selection; on the current span: move its end (into a span: merge)"],
  ["Shift+←, a label's key", "split: the words cut off the current span get that label"],
  ["Ctrl+Shift+← →", "move the current span's start"],
  ["↑ ↓", "select the first word of the line above / below"],
  ["PageDown / PageUp", "the next / previous screenful of the note (no line hidden under the toolbar; hints stay open); of this list while it is open"],
  ["a label's key (a capital: with Shift)", "label the selection (inside a span: split it), or relabel the current span"],
  ["; then a span's letters", "hints: make a span in view current (letters on every span shown)"],
  ["; then a cut point's digit (outlined)", "hints: select a span from where a second name or place begins in it to its end: a label's key splits it off"],
  [": (or ; ;) then a word's letters", "hints: select a word in view (then a label's key labels it; inside a span: splits it)"],
  [": then a word's letters with Shift", "hints: select from that word to the end of its underlined phrase (a full name, a street address, a date written out; inside a span, to the span's end): a label's key adds it, or splits the span"],
  ["… then a digit (outlined)", "extend that selection to a word of its line: 1-6 to the end of a word after it, 7-0 to the start of one before it (again for more), then a label's key: 'Last, First' or '12 Oak St, Apt 3' in four keys"],
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

Object.assign(SpanEditor.prototype, {
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
  },

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
  },

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
        case "PageDown": case "PageUp":
          if (e.shiftKey) done = false;
          else if (!this.help.hidden) this.help.scrollBy({ top: (k === "PageDown" ? 0.8 : -0.8) * this.help.clientHeight, behavior: "instant" });
          else this.pageBy(k === "PageDown" ? 1 : -1);
          break;
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
  },

  // The key list opens just below the toolbar, wherever the page is scrolled to, and ends above
  // the window's bottom (PageDown / PageUp scroll it while it is open).
  toggleHelp() {
    this.help.hidden = !this.help.hidden;
    if (this.help.hidden) return;
    const r = this.bar.getBoundingClientRect(), top = Math.max(0, r.bottom) + 4;
    this.help.style.top = `${top}px`;
    this.help.style.maxHeight = `${Math.max(120, window.innerHeight - top - 8)}px`;
    this.help.style.right = `${Math.max(0, window.innerWidth - r.right)}px`;
  },

  openFilter() {
    this.filter.value = "";
    this.filterLabels();
    this.filter.focus();
    this.say("Type part of a label's name; Enter takes the first label shown, Esc goes back.");
  },

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
  },

  closeFilter() {
    this.filter.value = "";
    this.filterLabels();
    this.note.focus({ preventScroll: true });
  },
});
