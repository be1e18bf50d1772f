// Hint navigation (issue 31: reaching the error costs the keys; Vimium / EasyMotion / avy's
// answer), added to SpanEditor (editor.js) after moves.js:
//
// * `;` puts a letter on every span shown in the note's viewport (two letters only when more
//   than 26 are shown); typing a span's letters makes it the current span (then Enter accepts,
//   a label's key relabels, Delete removes, Shift+← → move its end). Outlined digits mark where
//   a span can be cut (where a phrase begins inside it, phrases.js): typing one selects the span
//   from there to its end, and a label's key splits that part off ("Kansas City, Missouri" in
//   one span: `;`, the digit on "Missouri", STATE's key).
// * `:` (or `;` twice) puts letters on every word (unit: a date or phone number is one) shown;
//   typing a word's letters selects it (then a label's key labels it: a missed span in 3-4 keys;
//   inside a span, a split); typed with Shift (capitals), from that word to the end of its
//   phrase, underlined while the hints show (phrases.js: a full name or street address in the
//   same keys); then outlined digits on the words of its line extend what was picked (extend.js:
//   "Last, First" or "12 Oak St, Apt 3", in four keys).
//
// Hints are prefix-free (Vimium's scheme): with more targets than letters, some get one letter
// and the others two, and the one-letter hints go first to the words no span covers that begin
// a phrase with a capital or a digit (where missed names, dates and ids start), then to the
// other capitalised words (wordHintOrder in phrases.js), then in reading order. What a hint
// selects is never guessed: one word, or with Shift the underlined rest of its phrase; the badge
// shows what to type.
//
// The badges are drawn over the note, hidden from screen readers (aria-hidden: the status line
// says what the mode does); PageDown / PageUp scroll with them open (the words then in view get
// letters); Esc or any other key that is no letter (nor a cut point's digit) closes them (that
// key then does what it always does). What a badge shows is what to type.

const HINT_LETTERS = "asdfghjklqwertyuiopzxcvbnm";

// Cut points (phrases.js) are numbered: they never take a letter a span needs.
const CUT_DIGITS = "1234567890";

// `n` prefix-free hints over the letters L, shortest first: all one letter when n <= 26; else as
// many one-letter hints as leave enough two-letter ones ("a", "s", ..., then "ka", "ks", ...);
// past 26 * 26, three letters each.
function hintNames(n, L = HINT_LETTERS) {
  const k = L.length;
  if (n <= k) return [...L.slice(0, n)];
  if (n > k * k) {
    return Array.from({ length: n }, (_, i) => L[Math.floor(i / (k * k)) % k] + L[Math.floor(i / k) % k] + L[i % k]);
  }
  const singles = Math.min(k - 1, Math.floor((k * k - n) / (k - 1)));
  const out = [...L.slice(0, singles)];
  for (const first of L.slice(singles)) for (const second of L) if (out.length < n) out.push(first + second);
  return out;
}

Object.assign(SpanEditor.prototype, {
  // The part of the window where the note shows: below the sticky toolbar, above the window's bottom.
  noteView() {
    const n = this.note.getBoundingClientRect();
    return { top: Math.max(n.top, this.bar.getBoundingClientRect().bottom), bottom: Math.min(n.bottom, window.innerHeight),
      left: n.left, right: n.right };
  },

  // Where the character at offset a is on the screen (the text node holding it, not the end of
  // the one before: a span's first letter, not the boundary before it).
  charRect(a) {
    const walker = document.createTreeWalker(this.note, NodeFilter.SHOW_TEXT);
    let seen = 0, n = null;
    while ((n = walker.nextNode())) {
      const len = n.textContent.length;
      if (a < seen + len) {
        const r = document.createRange();
        r.setStart(n, a - seen);
        r.setEnd(n, Math.min(len, a - seen + 1));
        return r.getClientRects()[0] || null;
      }
      seen += len;
    }
    return null;
  },

  // Targets [{a, b, span?, cut?}] whose first letter is in view, in reading order; for spans,
  // the spans first, then their cut points (splitPoints in phrases.js).
  hintTargets(words) {
    const v = this.noteView();
    const items = words ? units(this.text).map(([a, b]) => ({ a, b }))
      : this.spans.map((s) => ({ a: s.start, b: s.end, span: s })).concat(this.splitPoints());
    const out = [];
    for (const t of items) {
      const r = this.charRect(t.a);
      if (!r || r.bottom <= v.top || r.top >= v.bottom) continue;
      out.push({ ...t, left: r.left, top: (r.top + r.bottom) / 2 });
    }
    return out;
  },

  openHints(words) {
    this.closeHints();
    // said first: a longer status line moves the note down, and the badges are placed after it
    this.say(words ? "Hints: a word's letters select it (with Shift: to the end of its underlined phrase); then a digit extends it, a label's key labels it. Esc: none."
      : "Hints: a span's letters make it current; a cut point's digit selects the span from there (a label's key splits it off). ; again: words.");
    const targets = this.hintTargets(words);
    if (!targets.length) { this.say(words ? "No word in view." : "No span in view: : (colon) puts letters on the words.", "warn"); return; }
    const plain = targets.filter((t) => !t.cut), cuts = targets.filter((t) => t.cut);
    const ordered = (words ? wordHintOrder(this.text, this.spans, plain) : plain).concat(cuts);  // spans: reading order
    const names = hintNames(plain.length).concat(hintNames(cuts.length, CUT_DIGITS));
    const layer = this.hintLayer({ words, targets }, () => this.openHints(words));
    const base = layer.getBoundingClientRect();
    ordered.forEach((t, i) => {
      t.name = names[i];
      t.badge = this.hintBadge(layer, base, t.cut ? "wb-cut" : "wb-hint", t.name, t.left, t.top, t);
    });
    if (words) this.hintLegend(layer, base, "letters: a word · with Shift: to its phrase's end · then a digit extends · a label's key labels");
    this.root.dataset.hints = words ? "words" : "spans";
    if (words) this.showPhrases(targets);
  },

  // The layer hint badges are drawn in (aria-hidden: the status line, aria-live, says what they
  // do), as this.hints = {...state, layer}; once a scroll (PageDown, the wheel) settles, `reopen`
  // draws them again on what is then in view, unless some letters were typed already.
  hintLayer(state, reopen) {
    const layer = el("div", "wb-hints");
    layer.setAttribute("aria-hidden", "true");
    this.root.append(layer);
    this.hints = { typed: "", shift: false, ...state, layer };
    this.onHintScroll = () => {
      clearTimeout(this.hintTimer);
      this.hintTimer = setTimeout(() => { if (this.hints && !this.hints.typed) reopen(); }, 150);
    };
    window.addEventListener("scroll", this.onHintScroll, true);
    window.addEventListener("resize", this.onHintScroll);
    return layer;
  },

  // A badge showing `name` at the window point (left, top) over target t ({a, b}); `base`: the
  // layer's rectangle (read once: reading it after each badge would lay the page out each time).
  hintBadge(layer, base, cls, name, left, top, t) {
    const b = el("span", cls, name);
    b.dataset.hint = name;
    b.dataset.a = String(t.a); b.dataset.b = String(t.b);
    b.style.left = `${left - base.left}px`;
    b.style.top = `${top - base.top}px`;
    layer.append(b);
    return b;
  },

  // What the badges do, in a line at the right under the note, or at the window's bottom where
  // the note goes on below it (over its last line shown, not its first); the status line says
  // the same for screen readers.
  hintLegend(layer, base, text) {
    const v = this.noteView(), room = window.innerHeight - v.bottom > 28;
    const legend = el("div", "wb-hint-legend", text);
    legend.style.top = `${(room ? v.bottom + 3 : v.bottom - 24) - base.top}px`;
    legend.style.right = `${base.right - v.right + 2}px`;
    layer.append(legend);
  },

  closeHints() {
    if (!this.hints) return;
    this.hints.layer.remove();
    this.hints = null;
    this.hidePhrases();
    clearTimeout(this.hintTimer);
    delete this.root.dataset.hints;
    window.removeEventListener("scroll", this.onHintScroll, true);
    window.removeEventListener("resize", this.onHintScroll);
  },

  // A key while the hints show. True when it was used up; false: the hints are closed and the
  // key goes on to do what it always does.
  hintKey(e) {
    const h = this.hints, k = e.key;
    if (h.ext) return this.extendKey(e);
    if (k === "Escape") { this.closeHints(); this.say("No hints."); return true; }
    if (k === ";" && !h.words && !h.typed) { this.openHints(true); return true; }
    if ((k === "PageDown" || k === "PageUp") && !h.typed) { this.pageBy(k === "PageDown" ? 1 : -1); return true; }
    if (k === "Backspace" && h.typed) { h.typed = h.typed.slice(0, -1); h.shift = h.shift && !!h.typed; this.showTyped(); return true; }
    const hint = /^[a-zA-Z]$/.test(k) || (/^[0-9]$/.test(k) && h.targets.some((t) => t.cut));
    if (e.ctrlKey || e.metaKey || e.altKey || !hint) { this.closeHints(); return false; }
    const typed = h.typed + k.toLowerCase();
    const left = h.targets.filter((t) => t.name.startsWith(typed));
    if (!left.length) { this.say(`No hint starts with '${typed}': Backspace or Esc.`, "warn"); return true; }
    h.typed = typed;
    h.shift = h.shift || k !== k.toLowerCase();      // a capital: the phrase from the word
    const hit = left.find((t) => t.name === typed);
    if (!hit) { this.showTyped(); return true; }
    this.closeHints();
    if (h.words && h.shift) this.pickPhrase(hit.a);
    else if (hit.cut) this.select(hit.a, hit.b);        // the span's rest: a label's key splits it
    else if (hit.span) this.setCurrent(hit.span);
    else this.pick(hit.a, hit.b);
    if (h.words && this.sel) this.openExtend();     // digits on its line extend it (extend.js)
    return true;
  },

  // Badges that no longer match what was typed go; the typed letters of the others are dimmed.
  showTyped() {
    const h = this.hints;
    for (const t of h.targets) {
      const on = t.name.startsWith(h.typed);
      t.badge.hidden = !on;
      if (on) t.badge.replaceChildren(el("span", "wb-hint-typed", h.typed), document.createTextNode(t.name.slice(h.typed.length)));
    }
  },
});
