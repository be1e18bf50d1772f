// The span editor's pure functions: no DOM, no state. Offsets are JavaScript string indices
// (UTF-16 code units). A span is {start, end, type, category, sugg, score}; `sugg` marks a
// machine suggestion nobody accepted or changed yet; `how` says how a person's span came to be
// ("created", "changed", "accepted", "bulk"; "" unknown). Functions return new arrays and never
// change the ones they are given.
//
// pipeline/annotation/edits.py holds the Python twins (snap_to_words, word_occurrences,
// mark_all_occurrences, remove_same_text); tests/test_editor_browser.py runs both on the same
// cases. This file is loaded before editor.js (dashboard/editor/__init__.py joins them).

const WORD_CHAR = /^[\p{L}\p{N}\p{M}_]$/u;
const SPACE_CHAR = /^[\s\x1c-\x1f\x85]$/u;

// The character (code point) that ends just before unit i / starts at unit i, as a string.
function charBefore(text, i) {
  if (i <= 0) return "";
  const c = text.charCodeAt(i - 1);
  return c >= 0xdc00 && c <= 0xdfff && i >= 2 ? text.slice(i - 2, i) : text[i - 1];
}
function charAt(text, i) {
  return i >= text.length ? "" : String.fromCodePoint(text.codePointAt(i));
}
function isWordChar(ch) { return ch !== "" && WORD_CHAR.test(ch); }
function isSpaceChar(ch) { return ch !== "" && SPACE_CHAR.test(ch); }

// An offset never splits a surrogate pair: one inside a pair moves to the pair's start (dir -1)
// or end (dir 1).
function onBoundary(text, i, dir) {
  const c = text.charCodeAt(i);
  if (i > 0 && i < text.length && c >= 0xdc00 && c <= 0xdfff) return dir < 0 ? i - 1 : i + 1;
  return i;
}

// [start, end) without whitespace at either end; null if nothing is left.
function trimWhitespace(text, start, end) {
  let a = Math.max(0, Math.min(start, end)), b = Math.min(text.length, Math.max(start, end));
  a = onBoundary(text, a, -1); b = onBoundary(text, b, 1);
  while (a < b && isSpaceChar(charAt(text, a))) a += charAt(text, a).length;
  while (b > a && isSpaceChar(charBefore(text, b))) b -= charBefore(text, b).length;
  return a < b ? [a, b] : null;
}

// What a selection labels: trimmed, and widened to whole words where it starts or ends inside one.
function snapToWords(text, start, end) {
  const t = trimWhitespace(text, start, end);
  if (!t) return null;
  let [a, b] = t;
  while (a > 0 && isWordChar(charBefore(text, a)) && isWordChar(charAt(text, a))) a -= charBefore(text, a).length;
  while (b < text.length && isWordChar(charBefore(text, b)) && isWordChar(charAt(text, b))) b += charAt(text, b).length;
  return [a, b];
}

// The units the word moves step by (issue 31): a run of letters and digits joined by / - . @ :
// with no space (a date 03/14/2021, an id MRN-55-1234, an e-mail, a time 10:30) is ONE unit, and
// so is a phone number written 617-555-1234 or (617) 555-1234; lone punctuation is no unit
// (the arrows skip it). [start, end) pairs in order. pipeline/annotation/units.py is the Python twin.
const UNIT = /\([0-9]{3}\) ?[0-9]{3}[-. ][0-9]{4}(?![\p{L}\p{N}\p{M}_])|[\p{L}\p{N}\p{M}_]+(?:[\/.@:-][\p{L}\p{N}\p{M}_]+)*/gu;
function units(text) {
  const out = [];
  for (const m of text.matchAll(UNIT)) out.push([m.index, m.index + m[0].length]);
  return out;
}

// Phrases (issue 31): what a hint typed with Shift selects, from a word to the end of its phrase,
// so that a missed name or street address is added in three or four keys. A phrase is a run of
// units on one line that reads as one name: words that begin with a capital or a digit, one
// space apart, taking in an initial ("John A. Smith"), a comma before a year ("Mar 14, 2021"),
// " & " and " #", name particles between capitalised words ("María de la Cruz") and "of" after a
// number ("9th of May"); a change between Capitalised and ALL-CAPS words ends it ("Walter Austin
// MD", "Boston MA"), and so does a number of five or more characters or with a joiner after a
// capitalised word ("Ohio 44101"). [start, end) pairs in order, every unit in exactly one.
// pipeline/annotation/units.py (phrases) is the Python twin.
const PARTICLES = new Set(["de", "del", "la", "las", "los", "van", "von", "der", "den", "da", "di", "du", "le", "y"]);

function wordKind(w) {
  if (/^\p{N}/u.test(w)) return "num";
  if (!/^[\p{Lu}\p{Lt}]/u.test(w)) return null;
  const letters = [...w].filter((c) => /\p{L}/u.test(c));
  return letters.length >= 2 && letters.every((c) => /\p{Lu}/u.test(c)) ? "caps" : "title";
}

function kindsFit(p, q) {
  if (!p || !q) return false;
  return p === q || ((p === "num" || q === "num") && p !== "caps" && q !== "caps");
}

// Index of the unit that goes on the phrase after unit k; -1 where it ends.
function nextInPhrase(text, us, k) {
  if (k + 1 >= us.length) return -1;
  const at = (j) => text.slice(us[j][0], us[j][1]);
  const w = at(k), v = at(k + 1), gap = text.slice(us[k][1], us[k + 1][0]);
  const p = wordKind(w), q = wordKind(v);
  const longNumber = [...v].length >= 5 || /[^\p{L}\p{N}\p{M}_]/u.test(v);   // "Ohio 44101", not "Mar 14"
  if ((gap === " " || gap === " & " || gap === " #") && kindsFit(p, q) && !(p === "title" && q === "num" && longNumber)) return k + 1;
  if (gap === ". " && [...w].length === 1 && p === "title" && q === "title") return k + 1;   // an initial
  if (gap === ", " && /^[0-9]{1,2}$/.test(w) && /^[0-9]{4}$/.test(v)) return k + 1;      // Mar 14, 2021
  if (gap !== " " || (p !== "title" && p !== "num")) return -1;
  let j = k + 1;                                                                        // particles
  while (j + 1 < us.length && (p === "title" ? PARTICLES.has(at(j)) : at(j) === "of")) {
    if (text.slice(us[j][1], us[j + 1][0]) !== " ") return -1;
    j += 1;
    if (p === "num") break;
  }
  return j > k + 1 && wordKind(at(j)) === "title" ? j : -1;
}

function phrases(text) {
  const us = units(text), out = [];
  for (let k = 0; k < us.length;) {
    let last = k, nxt;
    while ((nxt = nextInPhrase(text, us, last)) >= 0) last = nxt;
    out.push([us[k][0], us[last][1]]);
    k = last + 1;
  }
  return out;
}

// Where one digit extends the selection [a, b) to (issue 31: a missed span of several parts,
// "Last, First" or "12 Oak St, Apt 3", in four keys, where no phrase rule may join the parts: a
// comma rule would join "Boston, MA", two spans): the ends of the next six units on its line
// (digits 1-6, nearest first) and the starts of the previous four (7, 8, 9, 0); the other end of
// the selection stays. [{digit, at: where the badge goes, a, b: the new selection, dir, word}].
// benchmarks/correction_plan.py (extend_digits) is the Python twin the key planner uses.
const EXTEND_AFTER = "123456", EXTEND_BEFORE = "7890";
function extendTargets(text, a, b) {
  const lineStart = a > 0 ? text.lastIndexOf("\n", a - 1) + 1 : 0;
  const nl = text.indexOf("\n", b), lineEnd = nl < 0 ? text.length : nl;
  const us = units(text);
  const after = us.filter(([x]) => x >= b && x < lineEnd).slice(0, EXTEND_AFTER.length)
    .map(([x, y], i) => ({ digit: EXTEND_AFTER[i], at: y, a, b: y, dir: 1, word: [x, y] }));
  const before = us.filter(([x, y]) => x >= lineStart && y <= a).reverse().slice(0, EXTEND_BEFORE.length)
    .map(([x, y], i) => ({ digit: EXTEND_BEFORE[i], at: x, a: x, b, dir: -1, word: [x, y] }));
  return after.concat(before);
}

// The units [a, b) touches, as one extent [first's start, last's end]; null when it touches none.
function unitsAround(text, a, b) {
  const hit = units(text).filter(([x, y]) => x < Math.max(b, a + 1) && a < y);
  return hit.length ? [hit[0][0], hit[hit.length - 1][1]] : null;
}

// Jump to text: where `query` occurs (case-insensitive), as [start, end) in text order. Matches
// that start a word come first in rank: when there are any, only they count (typing "wa" finds
// "Walter", not "Hawaii"); otherwise every match does.
function findMatches(text, query) {
  const q = (query || "").trim();
  if (!q) return [];
  const escaped = q.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const all = [...text.matchAll(new RegExp(escaped, "giu"))].map((m) => [m.index, m.index + m[0].length]);
  const starts = all.filter(([a]) => !isWordChar(charBefore(text, a)));
  return starts.length ? starts : all;
}

// The first match at or after offset `from`, wrapping around; null when there is none.
function nextMatch(matches, from) {
  return matches.find(([a]) => a >= from) || matches[0] || null;
}

// Every whole-word occurrence of `surface` (no word character right before or after it).
function wordOccurrences(text, surface, ignoreCase = false) {
  if (!surface || !surface.trim()) return [];
  const escaped = surface.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const out = [];
  for (const m of text.matchAll(new RegExp(escaped, ignoreCase ? "giu" : "gu"))) {
    const a = m.index, b = m.index + m[0].length;
    if (isWordChar(charBefore(text, a)) || isWordChar(charAt(text, b))) continue;
    out.push([a, b]);
  }
  return out;
}

function bySpanOrder(x, y) { return x.start - y.start || x.end - y.end; }
function overlaps(s, a, b) { return s.start < b && a < s.end; }
function sameExtent(s, a, b) { return s.start === a && s.end === b; }

// Label [a, b) with `type`: spans overlapping it make way (they are returned as `replaced`),
// except that a stretch strictly inside one span splits it: that span's words before and after
// the stretch keep its label (a split in one key: select the second name, press its key).
function labelRange(spans, a, b, type, category, text = null) {
  const added = { start: a, end: b, type, category, sugg: false, score: 1, how: "created" };
  const outer = text === null ? null : spans.find((s) => s.start <= a && b <= s.end && !sameExtent(s, a, b));
  if (outer) {
    const kept = [trimToWords(text, outer.start, a), trimToWords(text, b, outer.end)].filter(Boolean)
      .map(([x, y]) => ({ ...outer, start: x, end: y, sugg: false, how: "changed" }));
    const out = spans.filter((s) => s !== outer).concat(kept, [added]).sort(bySpanOrder);
    return { spans: out, added, replaced: [], split: outer };
  }
  const replaced = spans.filter((s) => overlaps(s, a, b));
  const out = spans.filter((s) => !overlaps(s, a, b)).concat([added]).sort(bySpanOrder);
  return { spans: out, added, replaced };
}

// [a, b) cut to its first and last unit (no spaces or punctuation at either end); null if none.
function trimToWords(text, a, b) {
  const inside = units(text).filter(([x, y]) => a <= x && y <= b);
  return inside.length ? [inside[0][0], inside[inside.length - 1][1]] : null;
}

// The current span with one end moved to `to` (issue 31: extend, shrink and merge in one key).
// A span the new extent reaches into is taken in whole (merged: the result keeps `span`'s label);
// null when nothing would be left.
function resize(spans, span, start, end) {
  if (end <= start) return null;
  let a = start, b = end;
  const taken = spans.filter((s) => s !== span && overlaps(s, a, b));
  for (const s of taken) { a = Math.min(a, s.start); b = Math.max(b, s.end); }
  const changed = { ...span, start: a, end: b, sugg: false, score: 1, how: "changed" };
  const out = spans.filter((s) => s !== span && !taken.includes(s)).concat([changed]).sort(bySpanOrder);
  return { spans: out, changed, taken };
}

function relabel(spans, span, type, category) {
  const changed = { ...span, type, category, sugg: false, score: 1, how: "changed" };
  return { spans: spans.map((s) => (s === span ? changed : s)), changed };
}

function accept(spans, span) {
  const changed = { ...span, sugg: false, how: "accepted" };
  return { spans: spans.map((s) => (s === span ? changed : s)), changed };
}

function removeSpan(spans, span) { return spans.filter((s) => s !== span); }

// Remove every span whose text equals `span`'s (whatever its label).
function removeSameText(text, spans, span) {
  const surface = text.slice(span.start, span.end);
  const out = spans.filter((s) => text.slice(s.start, s.end) !== surface);
  return { spans: out, removed: spans.length - out.length };
}

// Label every other whole-word occurrence of `span`'s text like it, where no span is yet.
function markAllOccurrences(text, spans, span) {
  let out = spans.slice(), added = 0;
  for (const [a, b] of wordOccurrences(text, text.slice(span.start, span.end))) {
    if (out.some((s) => overlaps(s, a, b))) continue;
    out.push({ start: a, end: b, type: span.type, category: span.category, sugg: false, score: 1, how: "created" });
    added += 1;
  }
  return { spans: out.sort(bySpanOrder), added };
}

// Accept every open suggestion scored at or above `threshold`: recorded as accepted in bulk
// ("bulk"), so agreement and Review can tell them from spans a person looked at.
function acceptAll(spans, threshold) {
  let n = 0;
  const out = spans.map((s) => {
    if (s.sugg && s.score >= threshold) { n += 1; return { ...s, sugg: false, how: "bulk" }; }
    return s;
  });
  return { spans: out, accepted: n };
}

// Review: the gold spans inside disagreement `d` become `chosen` (an annotator's, or none).
function applyChoice(spans, d, chosen) {
  const kept = spans.filter((s) => !overlaps(s, d.start, d.end));
  return kept.concat(chosen.map((c) => ({ ...c, sugg: false, score: 1 }))).sort(bySpanOrder);
}

// Index of the next (dir 1) or previous (dir -1) item after position `from` for which `ok` holds,
// wrapping around; -1 when there is none. Items are sorted by start.
function stepIndex(items, from, dir, ok = () => true) {
  const n = items.length;
  if (!n) return -1;
  for (let k = 1; k <= n; k += 1) {
    const i = from < 0 ? (dir > 0 ? k - 1 : n - k) : (((from + dir * k) % n) + n) % n;
    if (ok(items[i])) return i;
  }
  return -1;
}

// A key that says whether two span lists are the same (offsets, type, open or not).
function spansKey(spans) {
  return spans.map((s) => `${s.start}:${s.end}:${s.type}:${s.sugg ? 1 : 0}`).sort().join("|");
}
