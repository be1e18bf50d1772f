"""Staff a note names by its lines' shapes: a name before a credential ("Smith, RN", "Wieslawa CM
RN"), a sign-off's initials and name ("JGT:holmes"), a signature line ("D. Fraher RN", "-- RN
K.W.", "-ch"), dictation initials ("VP/zk"), a name before a possessive kinship word ("Bonface's
wife") and a login made from a name on its line ("J. Giles / jgiles"). Helpers of
:mod:`.context_names`, which merges them with the names its context words announce (a credential's
DOCTOR wins over a context's guess at the same offsets).
"""
from __future__ import annotations

import re

from pipeline.detection.rules.common import mk
from pipeline.detection.rules.en.name_pairs import eponym_or_label, has_lower, title_case
from pipeline.detection.rules.en.name_words import (FUNCTION_WORDS, is_first_name, is_safe_word,
                                                   is_surname_after_first_name, looks_like_name, typo_of_ward_word,
                                                   zipf)
from pipeline.detection.rules.en.staff_closings import CREDENTIAL_WORDS as _CREDENTIAL_WORDS
from pipeline.detection.rules.en.staff_closings import SECTION_HEADERS as _HEADERS
from pipeline.detection.rules.en.staff_closings import closing_initials
from pipeline.spans import Span

_CREDENTIAL = re.compile(r"(?i)(?<![\w])(?P<name>(?:(?-i:[A-Za-z][A-Za-z'-]*[A-Za-z]|(?:[A-Za-z]\.){1,2})[ \t]+){0,2}"
                         r"(?-i:[A-Za-z][A-Za-z'-]*[A-Za-z]))(?:\s*,?[ \t]+(?:RN|R\.N\.|MD|M\.D\.|NP|CNA|CNM|CRNA|LPN|RRT|PA-C|LICSW|LCSW|LMSW|"
                         # a therapist's and a case manager's ("P. Amankwah, PT, DPT", "Wieslawa CM RN":
                         # icu_invented_b find f33, f36)
                         r"PT,?[ \t]+DPT|OTR/L|CM[ \t]+RN|"
                         # a physician assistant told of an event ("Chandrasekhar PA aware": icu_invented_i find f06)
                         r"PA(?=[ \t]+(?:aware|notified|paged|called|updated|informed|at[ \t]+bedside|in[ \t]+to)\b)|"
                         # a resident's year ("R. Fuentes-Oyola PGY-2": icu_invented_g find f03)
                         r"PGY-?\d|"
                         # a therapist's assistant and a speech pathologist ("d. hand, pta": ltc_invented find f03)
                         r"PTA|COTA(?:/L)?|CCC-SLP|(?:MS|MA|M\.S\.|MEd),[ \t]*CCC-SLP|"
                         # an emergency medical technician's level ("D. YAZZIE EMT-P": ed_invented find f01)
                         r"(?:NR)?EMT-?[PBIA]|EMT(?=[ \t]*[,;\n])|"
                         # a laboratory's ("G. Ferraro, CT(ASCP)", "MT(ASCP)": rad_invented find f13)
                         r"(?:CT|MT|MLS|MLT|HT|HTL|SCT|SH|CG)\(ASCP\)(?:CM)?|"
                         # a hyperbaric or dialysis technician's and an oncology or wound nurse's ("T. OYELARAN
                         # CHT": spec_invented find f38)
                         r"CHT|CCHT|OCN|CWOCN|CWS|"
                         # a respiratory therapist's, an occupational therapist's and a dietitian's
                         # ("MOODY RCP", "M. DIAZ-CORDERO OTR", "c. oyelowo ms rd ld": icu_invented_q
                         # find f01, f11, f05); a physical therapist's "PT" only closing its line or
                         # before a slash ("A. VOGELSANG PT / ..."), where it is no patient
                         r"RCP|OTR|(?:MS,?[ \t]+)?RDN?(?:,?[ \t]+|/)(?:LDN?|CNSC)|MS,?[ \t]+RDN?|RDN|"
                         r"PT(?=[ \t]*(?:/|\n|$)))(?![\w-])|"
                         # a role after a comma closing a signature ("D. Abernethy-Cole, Chaplain": find f09)
                         r"\s*,[ \t]*(?:chaplain|dietitian|pharmacist|social[ \t]+worker|case[ \t]+manager)(?=[ \t]*(?:\n|$))|"
                         # a chaplain's degree and role ("T. Oyelaran-Fisk, MDiv, Hospice Chaplain": ltc_invented find f22)
                         r"\s*,[ \t]*(?:MDiv|M\.Div\.|BCC|DMin)(?=[ \t]*(?:,|\n|$))|"
                         r"\s*,[ \t]*(?:resident|intern|fellow|attending|MSW|DO|DPT|PhD|PharmD|RD|SN|PGY-?\d)(?![\w-]))")
# "JGT:holmes", "jgt: holmes", "holmes/JGT" closing a line
_SIGN_OFF = re.compile(r"(?m)(?<![\w/])(?P<init>[A-Za-z]{2,4})\s?[:/]\s?(?P<name>[A-Za-z][A-Za-z'-]*[A-Za-z])[ \t.]*$")
_SIGN_OFF_REVERSED = re.compile(r"(?m)(?<![\w/])(?P<name>[A-Za-z][A-Za-z'-]*[A-Za-z])/(?P<init>[A-Z]{2,4})[ \t.]*$")
# a line that is a staff signature: a credential and a name, one before the other ("D. Fraher RN",
# "SN A. Field", "Starr R RRT", "Esther Dickens, RRT", after a dash or two: "-- RN K.W.",
# icu_invented_e find f17), or initials after a dash ("-ch")
_CRED = r"RN|R\.N\.|SN|RRT|RT|NP|MD|M\.D\.|CNA|LPN|PA-C|SRNA|BSN|LCSW|LICSW|LMSW|MSW|DPT|CM"   # "RT Gintaras" (icu_invented_b f10)
_SIG_TOKEN = rf"(?!(?i:{_CRED})\b)(?:(?:[A-Za-z]\.){{2,3}}|[A-Za-z]\.?|[A-Za-z][A-Za-z'-]*[A-Za-z])"
_SIGNATURE = re.compile(
    rf"(?im)^[ \t]*(?:-{{1,3}}[ \t]*)?(?:(?P<c1>{_CRED})[ \t]+)?(?P<name>(?-i:{_SIG_TOKEN})(?:[ \t]+(?-i:{_SIG_TOKEN})){{0,2}})"
    rf"(?:,?[ \t]+(?P<c2>{_CRED}))?[ \t]*$")
# (two dashes and a role in brackets too: "-- JH (clin pharm)", icu_invented_g find f16)
# (a credential after them too: "-AB RN", icu_invented_n find f17)
_DASH_INITIALS = re.compile(r"(?m)^[ \t]*-{1,2}[ \t]?(?P<init>[A-Za-z]{2,3})(?:[ \t]*\([^()\n]{1,30}\))?"
                            r"(?:,?[ \t]+(?:RN|rn|RRT|rrt|LPN|lpn|NP|np|CNA|cna|SN|sn))?[ \t]*$")
# dictation initials closing a letter: the author's in capitals, the typist's in lower case ("VP/zk")
_DICTATION = re.compile(r"(?m)^[ \t]*(?P<a>[A-Z]{2,4})/(?P<b>[a-z]{2,4})[ \t]*$")
# a name before a possessive kinship word: "Bonface's wife", "JOHN'S DAUGHTER"
_POSSESSIVE_KIN = re.compile(r"(?i)(?<![\w'])(?P<name>(?-i:(?:[A-Za-z][A-Za-z'-]*[A-Za-z][ \t]+)?[A-Za-z][A-Za-z'-]*[A-Za-z]))'s"
                             r"[ \t]+(?:wife|husband|son|"
                             r"daughter|sister|brother|mother|father|friend|partner|niece|nephew|grandson|"
                             r"granddaughter|spouse|girlfriend|boyfriend)\b")
# initials alone before a credential on their line, in one case ("RP RN", "jk rn")
_BARE_INITIALS = re.compile(r"[A-Z]{2,3}|[a-z]{2,3}")
# callings whose owner's kin a note names without a name ("pastor's wife", "neighbor's son")
_OWNER_ROLES = frozenset("""pastor priest rabbi imam minister chaplain reverend deacon neighbor neighbour landlord landlady
boss coach teacher doctor nurse roommate employer caregiver aide sponsor""".split())
#: a discipline's shorthand in capitals that may stand between a staff name and its credential
_DISCIPLINES = frozenset({"CM", "SW", "RT", "RRT", "PT", "OT", "SLP", "RD"})
# a degree between a name and its credential, in any case ("c. oyelowo ms rd ld": icu_invented_q find f05)
_DEGREES = frozenset({"MS", "MA", "MSN", "MPH", "MED"})


def credential_names(text: str, doc_id: str) -> list[Span]:
    """DOCTOR names before a credential ("Smith, RN", "Jones RN", "Wieslawa CM RN") and after a
    sign-off's initials ("JGT:holmes", "holmes/JGT"), the initials too."""
    out: list[Span] = []
    for m in _CREDENTIAL.finditer(text):
        s = m.start("name")
        tokens = [(s + t.start(), s + t.end()) for t in re.finditer(r"\S+", m.group("name"))]
        while len(tokens) > 1 and (text[slice(*tokens[-1])] in _DISCIPLINES or text[slice(*tokens[-1])].upper() in _DEGREES):
            tokens.pop()   # "Wieslawa CM RN x4472": the discipline before the credential is no name
        e = tokens[-1][1]  # (icu_invented_b find f33)
        words = [text[a:b] for a, b in tokens]
        line_end = text.find("\n", m.end())
        signs_line = not text[m.end():line_end if line_end >= 0 else len(text)].strip(" \t.")
        a, b = (words[-2], words[-1]) if len(words) > 1 else ("", words[-1])
        rare_first = signs_line and looks_like_name(a, True) and (zipf(a) or 0.0) < 3.0   # "Okoth Field, RN"
        first_and_word = len(words) > 1 and (is_first_name(a) or rare_first) and (
            is_surname_after_first_name(b) or (signs_line and looks_like_name(a, True) and not is_safe_word(b, vocabulary=False)
                                               and b.lower() not in FUNCTION_WORDS and (zipf(b) or 0.0) < 6.0))
        initial_and_word = len(words) > 1 and re.fullmatch(r"[A-Za-z]\.", a) is not None and _surname_word(b)
        # two rare words before ", MD" ("Jovana Petkovic, MD, cardiology fellow": icu_invented_b find f18)
        initial_and_word = initial_and_word or (len(words) == 2 and all(_surname_word(w) and (zipf(w) or 0.0) < 3.0 for w in words))
        if not (looks_like_name(words[-1], True) or first_and_word or initial_and_word) \
                or eponym_or_label(text, m.end("name")):
            continue   # "Emma Sun, RN": a listed first name lets a common word be the surname
        s = _credential_start(m, words, signs_line)
        out.append(mk(doc_id, s, e, "DOCTOR"))
    last = text.rstrip().rfind("\n") + 1
    for rx in (_SIGN_OFF, _SIGN_OFF_REVERSED):
        for m in rx.finditer(text):
            init, name = m.group("init"), m.group("name")
            # on the note's last line the curated ward words alone say no ("LMT/tobin" signs it)
            if init.lower() in _HEADERS or is_safe_word(init, vocabulary=m.start() < last) \
                    or not looks_like_name(name, True):
                continue
            if len(init) > 2 and (zipf(init) or 0.0) >= 3.0:
                continue   # "FINGERTIPS COOL/DUSKY": two findings, no initials (icu_invented_q find f13)
            if name.isupper() and (rx is _SIGN_OFF_REVERSED or has_lower(text, m.start())):
                continue  # "DNR/DNI", "CMO/DNR": capitals in a mixed-case line are abbreviations
            out.append(mk(doc_id, *m.span("name"), "DOCTOR"))
            out.append(mk(doc_id, *m.span("init"), "DOCTOR"))   # the initials are the same person's
    return out


def _surname_word(word: str) -> bool:
    """After an initial and before a credential ("H. Dziedzic RRT"), a surname: no safe, function or
    credential word, not among English's common words (a rare surname's ending may look like an
    adjective's: "Dziedzic"; icu_invented_b find f03)."""
    z = zipf(word)
    return (not is_safe_word(word) and word.lower() not in FUNCTION_WORDS and word.lower() not in _CREDENTIAL_WORDS
            and z is not None and z < 4.0 and not (z < 1.0 and typo_of_ward_word(word)))


def _credential_start(m: re.Match, words: list[str], signs_line: bool = False) -> int:
    """Where the name before a credential starts: the words before its last one that pass as a
    name (an initial, a name after a strong context, a surname after a first name, any listed
    first name opening a signature line: "Bill Pacocha, RRT"), read back from the last ("ordered
    per Sid Davison, PharmD" -> "Sid Davison")."""
    text, s, keep = m.string, m.start("name"), len(words) - 1
    line_start = text.rfind("\n", 0, s) + 1
    if signs_line and len(words) == 2 and not text[line_start:s].strip() and is_first_name(words[0]) \
            and words[0].lower() not in FUNCTION_WORDS and not is_safe_word(words[0], vocabulary=False):
        return s
    offsets = [s + t.start() for t in re.finditer(r"\S+", m.group("name"))]
    while keep > 0:
        w, nxt = words[keep - 1], words[keep]
        if not (looks_like_name(w, True) or re.fullmatch(r"[A-Za-z]\.", w)
                or (is_first_name(w) and is_surname_after_first_name(nxt) and keep == len(words) - 1)):
            break
        keep -= 1
    return offsets[keep] if keep < len(offsets) else s


def signatures(text: str, doc_id: str) -> list[Span]:
    """Staff signatures on a line of their own: a credential before or after one to three name
    tokens ("D. Fraher RN", "SN A. Field", "Starr R RRT"), and initials after a dash ("-ch").
    A name token that is an initial makes the line a signature; otherwise each word must pass as
    a name after a strong context ("RN aware", "MD notified" are not signatures)."""
    out: list[Span] = []
    for m in _SIGNATURE.finditer(text):
        if bool(m.group("c1")) == bool(m.group("c2")):
            continue
        if re.fullmatch(r"(?:[A-Za-z]\.){2,3}", m.group("name")) and \
                m.group("name").replace(".", "").lower() not in _CREDENTIAL_WORDS:
            out.append(mk(doc_id, *m.span("name"), "DOCTOR"))   # "K.M. RN": dotted initials and a credential
            continue
        words = m.group("name").split()
        long = [w for w in words if len(w.rstrip(".")) > 1]
        if m.group("c2") and _BARE_INITIALS.fullmatch(m.group("name")) and m.group("name").lower() not in _CREDENTIAL_WORDS \
                and m.group("name").upper() not in _DISCIPLINES and not is_safe_word(m.group("name"), vocabulary=False):
            out.append(mk(doc_id, *m.span("name"), "DOCTOR"))   # "RP RN" closing a note (icu_invented_o find f03)
            continue
        if not long or len(long) == len(words) and len(words) == 1 and not looks_like_name(long[0], True):
            continue
        initial = len(long) < len(words)
        if initial:   # "P. May RN": an initial and a word, alone on a line with a credential
            ok = all(w.lower() not in _HEADERS for w in long)
        else:
            ok = all(looks_like_name(w, True, title_case(w)) for w in long)
        if ok and not eponym_or_label(text, m.end("name")):
            out.append(mk(doc_id, *m.span("name"), "DOCTOR"))
    for m in _DICTATION.finditer(text):
        a = m.group("a")
        if not (a.lower() in _HEADERS or is_safe_word(a, vocabulary=False)):   # the typist's may be any ("nh")
            out += [mk(doc_id, *m.span("a"), "DOCTOR"), mk(doc_id, *m.span("b"), "DOCTOR")]
    for m in _POSSESSIVE_KIN.finditer(text):
        words = m.group("name").split()
        if words[-1].lower() in _OWNER_ROLES:
            continue   # "pastor's wife has been driving Mom in": whose wife by his calling (icu_invented_o find f07)
        ok = [looks_like_name(w, True, title_case(w) and has_lower(text, m.start())) for w in words]
        if ok[-1]:   # "Joy Luqmaan's husband": the first name too when it passes
            start = m.start("name") if all(ok) else m.end("name") - len(words[-1])
            out.append(mk(doc_id, start, m.end("name"), "PATIENT"))
    last = text.rstrip().rfind("\n") + 1   # the note's last line: a dash and letters there sign it
    out += closing_initials(text, doc_id, last)
    for m in _DASH_INITIALS.finditer(text):
        init = m.group("init")
        at_end = m.start() >= last and len(init) == 2 and init.lower() not in FUNCTION_WORDS   # "-rn" closing a note
        if at_end or (init.lower() not in _HEADERS and not is_safe_word(init, vocabulary=len(init) > 2)):
            out.append(mk(doc_id, *m.span("init"), "DOCTOR"))
    return out


# a staff login beside the name on a signature line: "J. Giles, resident / jgiles", "(ekiragu)", "[kh309]"
_LOGIN = re.compile(r"(?:(?<=/)|(?<=\()|(?<=\[)|(?<=/ )|(?<=\( )|(?<=\[ ))(?P<user>[a-z]{2,12}\d{0,4}|[A-Z]{2,12}\d{0,4})"
                    r"(?=[ \t]*(?:[)\]]|$))", re.MULTILINE)
_ANY_WORD = re.compile(r"(?<![\w])[A-Za-z][A-Za-z'-]*[A-Za-z]|(?<![\w])[A-Za-z]\.")
_CAPITALISED = re.compile(r"(?<![\w])[A-Z][A-Za-z'-]*[a-z][A-Za-z'-]*|(?<![\w])[A-Z]\.")


def usernames(text: str, doc_id: str) -> list[Span]:
    """A login after a slash or in brackets (in capitals only in a line of one case) that is made
    from a name on its line: a surname's first four letters inside it ("jgiles" beside "Julianna
    Giles", "bmiley" beside "b. miley") or the initials of two names before its digits ("hd275"
    beside "Hunter Dayal"), so "RT/ca" or "(prn)" stay."""
    out: list[Span] = []
    for m in _LOGIN.finditer(text):
        ls = text.rfind("\n", 0, m.start()) + 1
        le = text.find("\n", m.end())
        line = text[ls:le if le >= 0 else len(text)]
        user = m.group("user").lower()
        letters = re.match(r"[a-z]+", user).group()
        one_case = not (any(c.islower() for c in line) and any(c.isupper() for c in line))
        if m.group("user").isupper() and not one_case:
            continue   # "(DNR)", "/ICU": capitals in a mixed-case line are abbreviations
        # in a line of one case ("b. miley, pgy-2 / bmiley") every word may be the name
        # the login itself is no name on its line ("DR ROSENFELD (NSURG)": a service, not a login)
        words = [w.rstrip(".") for w in (_ANY_WORD if one_case else _CAPITALISED).findall(line)
                 if not (one_case and w.lower() in FUNCTION_WORDS) and w.lower() != user]
        long_words = [w.lower() for w in words if len(w) >= 4 and not is_safe_word(w)]
        initials = {(a[0] + b[0]).lower() for a, b in zip(words, words[1:])}
        if any(w[:4] in letters for w in long_words) or (len(letters) == 2 and letters in initials and user != letters):
            out.append(mk(doc_id, *m.span("user"), "USERNAME"))
    return out
