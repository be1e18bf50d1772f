// Phrase picks (issue 31, item 2: a missed full name or street address added in three or four
// keys, not one key per word; a span split in as many), added to SpanEditor after hints.js.
// What a phrase is: `phrases` in core.js (a run of capitalised words and numbers on one line,
// "Walter Austin", "1234 Main Street", "Mar 14, 2021"). Shift means "the phrase" everywhere:
//
// * a word's hint typed with Shift (as capitals) selects from that word to the end of its phrase;
//   from a word inside a span, at most to the span's end, so that a label's key then splits the
//   span there (`:`, the letter, the label: a split in three keys);
// * Shift+Enter in jump to text (and right after a jump) does the same from the match;
// * while the word hints show, the phrases of two or more words in view are underlined (a CSS
//   Custom Highlight: the page's selection is left alone), so what Shift takes is seen before it
//   is typed; the status line (aria-live) says so for screen readers.

Object.assign(SpanEditor.prototype, {
  // The note's phrases, computed once per note.
  phraseList() {
    if (this.phraseText !== this.text) {
      this.phraseText = this.text;
      this.phraseCache = phrases(this.text);
    }
    return this.phraseCache;
  },

  // [a, end of the phrase holding a), cut at the end of the span a is in; null outside every unit.
  phraseFrom(a) {
    const p = this.phraseList().find(([x, y]) => x <= a && a < y);
    if (!p) return null;
    const inside = this.spans.find((s) => s.start <= a && a < s.end);
    return [a, inside ? Math.min(p[1], inside.end) : p[1]];
  },

  // Select [a, b), or make the span with exactly that extent current.
  pick(a, b) {
    const s = this.spans.find((x) => x.start === a && x.end === b);
    if (s) this.setCurrent(s);
    else this.select(a, b);
  },

  pickPhrase(a) {
    const r = this.phraseFrom(a);
    if (r) this.pick(r[0], r[1]);
  },

  // Where a span can be cut (hint targets of `;`, hints.js): inside a span, the start of a
  // phrase that begins with a capital or a digit, where a span that took in two names, or a
  // place and its state, holds the second; {a, b: the span's end, cut: the span}. Few: one letter.
  splitPoints() {
    const out = [];
    for (const [a] of this.phraseList()) {
      const s = this.spans.find((x) => x.start < a && a < x.end);
      if (s && /^[\p{Lu}\p{Lt}\p{N}]/u.test(this.text.slice(a, a + 2))
        && /[\p{L}\p{N}]/u.test(this.text.slice(s.start, a))) out.push({ a, b: s.end, cut: s });   // not its first word
    }
    return out;
  },

  // Underline the phrases of two or more words that start at one of the `targets` (the words in view).
  showPhrases(targets) {
    if (typeof CSS === "undefined" || !CSS.highlights || typeof Highlight === "undefined") return;
    const starts = new Set(targets.map((t) => t.a));
    const ranges = this.phraseList().filter(([a, b]) => starts.has(a) && this.text.slice(a, b).includes(" "))
      .map(([a, b]) => this.rangeOf(a, b));
    if (ranges.length) CSS.highlights.set("wb-phrase", new Highlight(...ranges));
  },

  hidePhrases() {
    if (typeof CSS !== "undefined" && CSS.highlights) CSS.highlights.delete("wb-phrase");
  },
});

// The order word hints are given in (shortest first), most likely missed PHI first: 0. free
// words that begin a phrase of two or more words (a name, an address, a date written out) or a
// number with a joiner or four digits (a date, id, phone, year); 1. other free words that begin
// a phrase with a capital, not at a line's or sentence's start nor before ":" (a name
// mid-sentence), and short numbers; 2. the second word of a phrase that begins a sentence
// ("Walter" in "Seen Walter Austin"); 3. the other free words with a capital; 4. the rest (words
// in spans: a cut point has its own letter on `;`); each in reading order.
function wordHintOrder(text, spans, targets) {
  const ph = phrases(text), us = units(text);
  const phraseAt = new Map(ph.map(([a, b]) => [a, b]));
  const secondOf = new Set();
  for (const [a, b] of ph) {
    const next = us.find(([x]) => x > a && x < b);
    if (next && atSentenceStart(text, a)) secondOf.add(next[0]);
  }
  const rank = (t) => {
    const w = text.slice(t.a, t.b);
    if (!/^[\p{Lu}\p{Lt}\p{N}]/u.test(w) || spans.some((s) => s.start < t.b && t.a < s.end)) return 4;
    if (!phraseAt.has(t.a)) return secondOf.has(t.a) ? 2 : 3;
    if (/^\p{N}/u.test(w)) return /[^\p{L}\p{N}\p{M}_]/u.test(w) || w.length >= 4 ? 0 : 1;
    if (phraseAt.get(t.a) > t.b) return 0;
    return atSentenceStart(text, t.a) || text[t.b] === ":" ? 3 : 1;
  };
  const ranked = targets.map((t) => [rank(t), t]);
  return [0, 1, 2, 3, 4].flatMap((r) => ranked.filter(([x]) => x === r).map(([, t]) => t));
}

// Whether offset a begins a line or a sentence (after . ! ? : ; or a bullet, and spaces).
function atSentenceStart(text, a) {
  let i = a;
  while (i > 0 && (text[i - 1] === " " || text[i - 1] === "\t")) i -= 1;
  return i === 0 || /[\n.!?:;•*-]/.test(text[i - 1]);
}
