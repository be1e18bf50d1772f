"""Spanish rule pack, tuned on MEDDOCAN's annotation boundaries.

Boundaries follow the MEDDOCAN gold (train split), because strict evaluation counts an
off-by-one span as both a miss and a false alarm:

- ages include the unit ("53 años", "tres meses y medio"), not "de edad";
- dates are the whole expression ("10 de octubre de 2016", "abril del 2010", "año 2004",
  "12-abril-2005"); a bare year only after "en", "desde", "hasta", "(";
- IDs are the value after the label, spaces kept ("NASS: 26 63514095" -> "26 63514095",
  "NºCol: 28 28 70973" -> "28 28 70973", "CIPA: nhc-743612" -> "743612");
- addresses: the street with its number and floor ("Calle Carmen Romero, 23, 1D",
  "Av. Córdoba, s/n"); the postal code and the town are separate spans;
- phone and fax numbers keep their inner spaces ("913 36 80 00").

- relatives are the kinship term with its modifier ("Hermano mayor", "prima materna"), without
  the possessive; institutions the name after its head word ("Universidad de Granada").

Most MEDDOCAN reports open with a labelled header ("NHC: ...", "Domicilio: ...", "Edad: ...");
:func:`header_fields` reads it as fields, which is both precise and exact on boundaries. The
other rules work on running text.

The pack is a package of four modules, one job each: :mod:`.labelled` (values after a label:
header fields, names after titles and signatures, licence and record numbers),
:mod:`.dates_ages` (dates, ages, sex), :mod:`.contact` (phones, postal codes, streets) and
:mod:`.organizations` (hospitals, relatives, institutions, makers' citations); :mod:`._common`
holds the little they share. A pack runs its rules in registration order, which can decide
ties between overlapping spans, so the shared rules are registered first and the modules are
imported below in the order their rules have always run.
"""
from __future__ import annotations

from pipeline.detection.rules.checked_ids import register_checked
from pipeline.detection.rules.common import register_common
from pipeline.detection.rules.es._common import LOCALE

register_common(LOCALE)

# the import order is the registration order (see above): keep it
from pipeline.detection.rules.es.labelled import colegiado, doctor_names, header_fields, record_numbers  # noqa: E402
from pipeline.detection.rules.es.dates_ages import ages, dates, sex  # noqa: E402
from pipeline.detection.rules.es.contact import phones, postal_codes, streets  # noqa: E402
from pipeline.detection.rules.es.organizations import (  # noqa: E402
    hospitals, institutions, maker_citations, maker_places, relatives)

register_checked(LOCALE)  # last: identifiers proven by their check digits (never tie-breakers for the rules above)

__all__ = ["LOCALE", "header_fields", "doctor_names", "colegiado", "record_numbers", "dates", "ages", "sex",
           "phones", "postal_codes", "streets", "hospitals", "relatives", "institutions", "maker_places",
           "maker_citations"]
