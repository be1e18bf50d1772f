"""The text an English model reads: lines written in one case, truecased.

Why: a CRF learns capitals as a strong name and place signal, and ALL CAPS or all lower-case
lines take that signal away (on the pooled check halves of the hand-written ICU sets the 328-note
loop model alone found 0.894 of PHI characters as written, 0.824 in UPPER and 0.780 in lower
case, even with case copies in its training). Such a line is given to the model as a mixed-case
line would have been written: a word English uses often, or one of the safe clinical vocabulary,
in lower case, any other word capitalised. Rules and lists still read the line as written; the
copy has the same length, so the model's offsets stand (a line whose length would change is left
as written). Mixed-case lines are never touched.

Only a cold start's model reads it (``TrainConfig.case_view``, set by ``train-starter``): on the
blind sets it gave the starter recall in one-case text (the PII sets' UPPER and lower copies
0.804 -> 0.871 and 0.793 -> 0.863) at some precision (up to 0.07 on the terse ICU sets), the
right trade when the goal is to find; a ward's own model, which must also be precise and has
learnt its notes' case from its gold, reads the note as written. A first name English uses often
("john", "mary") stays in lower case: capitalising the pack's listed names too cost precision on
nine check halves for 0.001-0.005 more recall on two.

>>> truecase_one_case_lines("PT SEEN BY DR KOWALCZYK\\nBP 120/80, Wife Mary at bedside")
'pt seen by dr Kowalczyk\\nBP 120/80, Wife Mary at bedside'
>>> truecase_one_case_lines("DID 90 DAYS AT BLUEGRASS RECOVERY LODGE, ATTENDS FIRST BAPTIST CHURCH")
'did 90 days at Bluegrass Recovery Lodge, attends First Baptist Church'
"""
from __future__ import annotations

import re

from pipeline.detection.rules.en.caseless import one_case
from pipeline.detection.rules.en.name_words import FUNCTION_WORDS, TOWN_WORD_ZIPF, is_safe_word, zipf

#: a word: letters of any script (accented names such as "JOSÉ" or "MÜLLER" included), with
#: apostrophes inside ("O'BRIEN"); digits and underscores are not letters.
_WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|')*")


def _common(word: str) -> bool:
    low = word.lower()
    return is_safe_word(low) or (zipf(low) or 0.0) >= TOWN_WORD_ZIPF


def _truecased(m: re.Match) -> str:
    w = m.group()
    return w.lower() if _common(w) else w[0].upper() + w[1:].lower()


#: words that close an institution's name: the words right before one name it, common as they are
#: ("BLUEGRASS RECOVERY LODGE", "REDEEMED CHRISTIAN CHURCH", "WAYNE STATE UNIVERSITY"), so they
#: reach the model capitalised (psych_invented find f01, f13, f16). Weaker heads ("center", "clinic",
#: "program", "home") were tried: "ECMO CENTER", "FLY HOME" cost precision on the ICU find halves.
INSTITUTION_HEADS = frozenset("""university college church temple synagogue mosque hospital lodge institute society
foundation ministries academy camp""".split())
# an institution's run stops at a verb a note puts before one ("ATTENDS RUSSIAN ORTHODOX CHURCH",
# "BROUGHT HOSPITAL LIAISON"), and names none when every word is a kind's ("COMMUNITY COLLEGE")
_RUN_STOP = frozenset("""attends attended attend attending brought bring coordinate visit visited visits called call goes
went go fly drove drive plans plan planned referred refer referral transfer transferred admitted discharged returned
return contacted contact spoke meets met arranged arrange seen saw works worked working""".split())
_KIND_WORDS = frozenset("""nursing group adult foster senior community health medical rehab rehabilitation treatment care
day high middle elementary grade public private local state county city general mental behavioral psychiatric family
primary urgent recovery residential sober halfway home house detox methadone dialysis cancer children childrens women
womens veterans va christian catholic baptist
critical access referring sending receiving accepting transferring tertiary quaternary teaching regional rural small
large big nearby outside other another same previous prior different main new old current area district military army
navy naval federal tribal acute long term specialty trauma burn heart cardiac stroke surgical surgery eye orthopedic
skilled assisted living memory hospice affiliated partner bible summer town hometown psych children's women's men's
lutheran methodist presbyterian episcopal pentecostal mennonite amish evangelical orthodox reformed nazarene adventist
mormon lds jewish muslim islamic hindu buddhist sikh apostolic unitarian
hunting deer fishing fish ice boot band football hockey scout scouts boy girl work logging construction mining labor
migrant refugee base technical tech junior""".split()) | INSTITUTION_HEADS
# (a place a note describes rather than names stays in lower case: "CRITICAL ACCESS HOSPITAL",
# "REFERRING HOSPITAL", "LUTHERAN CHURCH", "DEER CAMP", "TECHNICAL COLLEGE"; the first version
# capitalised such phrases, and the fourteenth ICU set's check half lost 0.03 of precision in UPPER
# and lower case, three spans; its text was not read, the phrases were tried on lines written here)
_NAME_WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|['-])*")


def _institutions_capitalised(line: str, view: str) -> str:
    """``view`` (the truecased ``line``) with the words of an institution's name capitalised: up to
    four words right before a head word, one space apart, no function word or verb among them."""
    words = list(_NAME_WORD.finditer(line))
    out = list(view)
    for k, head in enumerate(words):
        if head.group().lower() not in INSTITUTION_HEADS:
            continue
        run = []
        for w in reversed(words[:k]):
            after = run[-1] if run else head
            if len(run) == 4 or line[w.end():after.start()] != " " or w.group().lower() in FUNCTION_WORDS \
                    or w.group().lower() in _RUN_STOP:
                break
            run.append(w)
        if not run or all(w.group().lower() in _KIND_WORDS for w in (*run, head)):
            continue
        for w in (*run, head):
            cap = w.group()[0].upper() + w.group()[1:].lower()
            if len(cap) == len(w.group()):
                out[w.start():w.end()] = cap
    return "".join(out)


def truecase_one_case_lines(text: str) -> str:
    """``text`` with every line written in one case truecased (same length, same offsets)."""
    lines = text.split("\n")
    for k, line in enumerate(lines):
        if one_case(line):
            new = _institutions_capitalised(line, _WORD.sub(_truecased, line))
            if len(new) == len(line):
                lines[k] = new
    return "\n".join(lines)
