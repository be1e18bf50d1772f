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

// The order word hints are given in (shortest first): 1. free words that begin a phrase with a
// capital or a digit (where a missed name, date or id starts), 2. the other free words with a
// capital or a digit ("Walter" in "Seen Walter Austin"), 3. words with a capital or a digit inside
// a span after its first word (where a split starts), 4. the others; each in reading order.
function wordHintOrder(text, spans, targets) {
  const starts = new Set(phrases(text).map(([a]) => a));
  const rank = (t) => {
    if (!/^[\p{Lu}\p{Lt}\p{N}]/u.test(text.slice(t.a, t.b))) return 3;
    const inside = spans.find((s) => s.start < t.b && t.a < s.end);
    if (!inside) return starts.has(t.a) ? 0 : 1;
    return inside.start < t.a ? 2 : 3;
  };
  const ranked = targets.map((t) => [rank(t), t]);
  return [0, 1, 2, 3].flatMap((r) => ranked.filter(([x]) => x === r).map(([, t]) => t));
}
