"""Names that the shape of an e-mail, a letter or a chat gives away: the name after a greeting
("Hi Lucinda,", "Dear Theo,", "Thanks, Kenzie"), under or after a sign-off ("Love,\\nGraça and
Henrique", "– Tomasz" at a line's end), a chat's speakers ("Odile: did the plumber come?",
"[3/14/25, 8:12 PM] Tobi: ok"), a name called at a message's start ("Nadia, you have"), a
signature on a text's last line (a first name and a surname), and people who name themselves or are to be called ("I'm Anwen",
"this is Lucinda Brightwell", "call Dwayne at", "ping Sindre on"). A chat's "lol"/"omg" greets as
"hi" does, and "someone"/"there" after a name's comma calls it as "you" does (the second invented
PII set's find half: f_chat_29, f_chat_30, f_sec_34).

Why: forms, e-mails, chats and letters (the public synthetic PII sets are made of them) name
people where no title, kinship word or field label stands before the name, and a first name alone
is often no listed surname. The shape is the evidence: a greeting or a sign-off is followed by
who is greeted or who signs. The word must still look like a name (:func:`.name_words.looks_like_name`
after a strong context, in a mixed-case line) and be no commoner than a rare word ("Hi team",
"Dear Hiring Manager", "Thanks, Agent" stay); a chat speaker must be a listed first name, and the
text must be a dialogue (two speaker lines or more). In a line written in one case ("HI LUCINDA,",
"thanks, kenzie") the patterns read :func:`.caseless.titled`'s view and the words alone decide,
as a lower-case line's words would (``cased=False``). Found on the invented PII texts' "find" half
(benchmarks/pii_invented.py) and its UPPER and lower copies; clinical notes seldom greet anyone,
so the ICU lines keep no hit.
"""
from __future__ import annotations

import re
import unicodedata

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en._shared import LOCALE
from pipeline.detection.rules.en.caseless import one_case_at, titled
from pipeline.detection.rules.en.name_words import is_first_name, is_safe_word, looks_like_name, zipf
from pipeline.detection.rules.en.staff_closings import SECTION_HEADERS
from pipeline.detection.rules.registry import register
from pipeline.spans import Span, dedupe

_L = r"[^\W\d_]"                                  # a letter, accents included ("Graça")
_CAP = rf"[A-ZÀ-Þ]{_L}*(?:['-]{_L}+)*"            # a capitalised word ("O'Neil", "Okonkwo-Bell")
_NAME = rf"(?P<name>{_CAP}(?:[ \t]+{_CAP})?(?:[ \t]+(?:and|&)[ \t]+{_CAP})?)"
_TITLE = r"(?:(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof)\.?[ \t]+)?"
# a greeting in any case ("hey Lena can u send"): the name is closed by punctuation, the line's end,
# or a lower-case word
_GREETING = re.compile(rf"(?m)(?:^|(?<=[.!?])[ \t]+|(?<=\n))[ \t]*(?i:hi|hello|hey|hiya|dear|morning|good[ \t]+(?:morning|"
                       rf"afternoon|evening)|thanks|thank[ \t]+you|many[ \t]+thanks|cheers|congrats|"
                       rf"congratulations|welcome|happy[ \t]+birthday|lol|omg|oi)[ \t]*,?[ \t]+{_TITLE}{_NAME}"
                       rf"(?=[ \t]*(?:[,!:]|\.(?:\s|$)|$|\n)|[ \t]+[a-z])")
# a name called at a message's start ("Appointment reminder: Nadia, you have an appointment")
_VOCATIVE = re.compile(rf"(?m)(?:^|:[ \t]+)[ \t]*{_NAME},[ \t]+(?=(?:you|your|we|please|just|thank|this|here|someone|somebody|there)\b)")
# a signature: the text's last line, two or three names after a line that ends a sentence or a blank line
_LAST_LINE = re.compile(rf"(?:[.!?,:]|\n)[ \t]*\n[ \t]*(?P<name>{_CAP}(?:[ \t]+{_CAP}){{1,2}})[ \t]*\s*$")
_SIGN_OFF = re.compile(rf"(?im)^[ \t]*(?:signed|thanks|thank[ \t]+you|many[ \t]+thanks|cheers|best|best[ \t]+wishes|all[ \t]+the"
                       rf"[ \t]+best|love|lots[ \t]+of[ \t]+love|with[ \t]+love|warmly|warm[ \t]+wishes|take[ \t]+care|"
                       rf"yours|yours[ \t]+faithfully|yours[ \t]+sincerely|cordially|regards|kind[ \t]+regards|"
                       rf"best[ \t]+regards|warm[ \t]+regards|many[ \t]+thanks)[ \t]*,[ \t]*(?:\n[ \t]*)?(?-i:{_NAME})"
                       rf"[ \t]*[.!]?[ \t]*$")
_DASH_SIGNATURE = re.compile(rf"(?m)(?:^|(?<=[.!?)])[ \t]+)[–—-][ \t]*(?-i:{_NAME})[ \t]*$")
# a name closing a greeting's or a thanks' sentence after its comma ("Thanks for your patience,
# Wendeline.", "Thank you for your order, Ines!"), and who a reminder or an address is for ("Reminder
# for Cosima: ...", "deposit address for Obinna: ..."): second invented PII set's find half
# (f_cs_41, f_vet_78, f_fin_10); a title-case name only, in a line that has lower case
_THANKS_TAIL = re.compile(rf"(?i:thanks|thank[ \t]+you|sorry|welcome|congratulations|great[ \t]+news|good[ \t]+news)"
                          rf"[^.!?\n,]{{0,60}},[ \t]+{_NAME}(?=[ \t]*[.!?])")
_FOR_NAME = re.compile(rf"\b(?i:for)[ \t]+{_NAME}[ \t]*:[ \t]")
_SPEAKER = re.compile(rf"(?m)^[ \t]*(?:\[[^\]\n]{{1,30}}\][ \t]*)?(?:{_TITLE}|Auntie[ \t]+|Uncle[ \t]+)?"
                      rf"(?P<name>{_CAP}(?:[ \t]+{_CAP})?):[ \t]+\S")
_SELF = re.compile(rf"\b(?i:my[ \t]+name[ \t]+is|i'm|i[ \t]+am|it'?s|this[ \t]+is|name'?s)[ \t]+{_NAME}")
_CALL = re.compile(rf"\b(?i:call|text|ask[ \t]+for|contact|ping|message|ring|phone|whatsapp)[ \t]+{_NAME}[ \t]+(?i:at|on)\b")
# words a greeting or a signature is followed by that are no one's name
_NOT_NAMES = frozenset("""sir madam team all everyone everybody folks guys friends friend colleagues colleague
parent parents guardian guardians customer member members patient neighbour neighbor manager hiring doctor
nurse there again you again so much agent support admin user bot staff committee board""".split())


def _name_words(value: str, line_mixed: bool, *, listed: bool = False) -> bool:
    """Whether every word of ``value`` (but "and") may be a person's name here: a rare enough
    word that looks like a name after a strong context; ``listed``: a listed first name too."""
    plain = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode()   # "Graça" asks as "Graca"
    words = [w for w in re.split(r"[ \t]+", plain) if w not in ("and", "&")]
    for w in words:
        z = zipf(w)
        if w.lower() in _NOT_NAMES or is_safe_word(w) or (z is not None and z >= 4.5):
            return False
        if not looks_like_name(w, strong=True, cased=line_mixed):
            return False
        if listed and not is_first_name(w):
            return False
    return bool(words)


def _names_of(m: re.Match, text: str, doc_id: str, *, listed: bool = False) -> list[Span]:
    """The name group of ``m`` as PATIENT spans (two names joined by "and" give two spans)."""
    if not _name_words(m.group("name"), not one_case_at(text, m.start("name")), listed=listed):
        return []
    name, base, pos, out = m.group("name"), m.start("name"), 0, []
    for piece in re.split(r"[ \t]+(?:and|&)[ \t]+", name):
        off = name.find(piece, pos)
        pos = off + len(piece)
        out.append(mk(doc_id, base + off, base + pos, "PATIENT"))
    return out


def _speakers(view: str, text: str, doc_id: str) -> list[Span]:
    """Chat speakers: a listed first name before a colon at a line's start, in a dialogue
    (matched on ``view``, judged on ``text``). Where a speaker's line is in one case, a form's
    labels look like speakers ("IBAN:", "ACCOUNT HOLDER:"), so two lines must have a name."""
    found = list(_SPEAKER.finditer(view))
    if len(found) < 2:
        return []
    if sum(m.group("name").lower() in SECTION_HEADERS for m in found) >= 2:
        return []   # a note's sections ("Resp:", "FEN:", "Dev:" of a NICU note: icu_invented_f find f06)
    named = [sp for sp in (_names_of(m, text, doc_id, listed=True) for m in found) if sp]
    if any(one_case_at(text, m.start()) for m in found) and len(named) < 2:
        return []
    return [s for sp in named for s in sp] + _rare_speakers(found, text, doc_id)


def _rare_speakers(found: list[re.Match], text: str, doc_id: str) -> list[Span]:
    """Speakers no list holds ("Torunn: are u coming", "Sigrun: yes!"): one title-case word English
    hardly uses (Zipf below 2.5), in a mixed-case line, two such speakers or more in the dialogue,
    and no other speaker that is no listed first name, so a form's or a note's labels ("Neuro:",
    "Plan:", "Dispo:", "Integ:" on the ward generator's notes) never pass (second invented PII
    set's find half, f_chat_55)."""
    rare = [m for m in found if not one_case_at(text, m.start("name")) and " " not in m.group("name")
            and m.group("name")[1:].islower() and (zipf(m.group("name")) or 0.0) < 2.5
            and not is_first_name(m.group("name"))]
    if len({m.group("name") for m in rare}) < 2:
        return []
    if any(m not in rare and not is_first_name(m.group("name")) for m in found):
        return []   # a note's sections ("Neuro:", "Dispo:", "Integ:"): every speaker must be a name
    return [s for m in rare for s in _names_of(m, text, doc_id)]


@register(LOCALE, "letters_chat", "NAME", score=0.78)
def letters_chat(text: str, doc_id: str) -> list[Span]:
    """Names after greetings, under sign-offs, before a signature dash, as chat speakers and where
    people name themselves ("I'm Anwen") or are to be called ("call Dwayne at"); lines in one case
    are read in title case (:func:`.caseless.titled`), their words judged as caseless."""
    out: list[Span] = []
    view = titled(text)
    for rx in (_GREETING, _SIGN_OFF, _DASH_SIGNATURE, _SELF, _CALL, _VOCATIVE):
        for m in rx.finditer(view):
            out += _names_of(m, text, doc_id)
    for rx in (_THANKS_TAIL, _FOR_NAME):
        for m in rx.finditer(text):
            if not one_case_at(text, m.start("name")) and all(w[1:].islower() for w in m.group("name").split()
                                                                 if w not in ("and", "&")):
                out += _names_of(m, text, doc_id)
    last = _LAST_LINE.search(view)
    if last and is_first_name(last.group("name").split()[0]):
        out += _names_of(last, text, doc_id)
    out += _speakers(view, text, doc_id)
    return dedupe(out)
