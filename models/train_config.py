"""A training run's settings: :class:`TrainConfig`, the default members and their settings,
and the checks that refuse a bad member list or mode before anything is read or trained.

Kept apart from :mod:`models.trainer` so that the run's steps (:mod:`models.train_data`,
:mod:`models.train_fit`, :mod:`models.train_tune`) can take a ``TrainConfig`` without importing
the module that calls them. :mod:`models.trainer` re-exports every name here.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from models.crf import CRFConfig
from models.encoder_config import ARCHITECTURES, EncoderConfig
from models.ensemble import MODES
from pipeline.schemas import LabelSchema

# Defaults sized for two CPU cores and a few hundred notes (see benchmarks/detection_meddocan.py).
# Two layers of width 128: on two shared CPU cores a wider or deeper encoder cannot be trained
# for enough epochs within the 20-minute budget, nor run at 20 notes/s.
DEFAULT_ENCODERS: dict[str, dict] = {
    "bert": dict(arch="bert", hidden=128, layers=2, heads=4, intermediate=512, epochs=8, patience=3, lr=2e-3),
    "electra": dict(arch="electra", hidden=128, layers=2, heads=4, intermediate=512, embedding_size=64,
                    epochs=8, patience=3, lr=2e-3),
    "roberta": dict(arch="roberta", hidden=128, layers=2, heads=4, intermediate=512, epochs=8, patience=3,
                    lr=2e-3),
}


# CRF members differ in regularisation and features; averaged they are a little better than the
# best of them (MEDDOCAN dev, trained on train: 0.9641 alone, 0.9652 for these three).
DEFAULT_CRFS: dict[str, dict] = {
    "crf": {},
    "crf-l1": dict(c1=0.05, c2=0.01),
    "crf-rules": dict(rule_features=True),
}


#: per locale, case copies of the training notes by default (see ``TrainConfig.case_copies``):
#: English wards write whole notes in capitals or in lower case, so a model must not learn that
#: a capital letter is the name signal; Spanish (MEDDOCAN) keeps none until measured
DEFAULT_CASE_COPIES: dict[str, int] = {"en": 1}

#: per locale, PHI-window copies of the training notes by default (see ``TrainConfig.phi_windows``
#: and :mod:`models.phi_windows`): ward notes are a few per cent PHI; MEDDOCAN's are dense
DEFAULT_PHI_WINDOWS: dict[str, int] = {}

#: per locale, whether training learns on dev which of the pack's steps spare the model's own
#: spans (see ``TrainConfig.learn_spared_steps`` and :mod:`pipeline.detection.step_policy`):
#: English's safe-word and number steps were written for a cold start's model and deleted what a
#: model trained on the ward's own notes found; Spanish keeps its steps as measured
DEFAULT_LEARN_SPARED: dict[str, bool] = {"en": True}

#: what a training run fits when no members are named (see ``TrainConfig.members``)
DEFAULT_MEMBERS: tuple[str, ...] = ("crf",)

#: the hierarchical mode's category member (a CRF with the ``crf`` member's settings)
CATEGORY_MEMBER = "crf-category"
#: suffix of a CRF's second fit, on training plus dev (see ``TrainConfig.refit_crf``)
REFIT = "+dev"

#: CRF settings a locale gets unless a member's overrides say otherwise. English notes are often
#: written in capitals or in lower case, so English CRFs add shapes without case; Spanish and
#: German keep the features their models were tuned with.
LOCALE_CRF: dict[str, dict] = {"en": {"caseless": True}}


@dataclass
class TrainConfig:
    # One CRF. On MEDDOCAN the encoder members reached 0.70 F1 and were tuned to weight 0, and the
    # three CRFs together (crf, crf-l1, crf-rules) matched this one at the default operating point
    # (span recall 0.9671 both, strict F1 0.9613 vs 0.9605, missed PHI tokens per 1,000 1.08 vs
    # 1.15) for three times the training (9.5 vs 3.1 minutes); every other member trains when asked
    members: list[str] = field(default_factory=lambda: list(DEFAULT_MEMBERS))
    locale: str = "es"
    seed: int = 13
    target_recall: float = 0.99
    dev_fraction: float = 0.15           # used when no dev documents are given
    epochs: int | None = None            # overrides every encoder's epochs
    encoders: dict[str, dict] = field(default_factory=dict)   # per-member EncoderConfig overrides
    crf: dict = field(default_factory=dict)                   # CRFConfig overrides for every CRF member
    crfs: dict[str, dict] = field(default_factory=dict)       # per-CRF-member overrides (crf, crf-l1, ...)
    weights: dict[str, float] = field(default_factory=dict)   # member weights in the average
    tune_weights: bool = True            # pick member weights on dev (when none are given)
    refit_crf: bool = True               # after tuning, retrain the CRF members on train + dev (cheap)
    mlm_epochs: int | None = None        # overrides every encoder's mlm_epochs
    threads: int | None = None           # torch.set_num_threads
    name: str | None = None              # version name (default: v<UTC time>-<random>)
    min_threshold_support: int = 5
    threshold_measure: str = "token"     # recall the thresholds aim at: "token" (PHI coverage) or "strict"
    learn_type_policy: bool = False      # per type, how rule/dictionary spans join the model's (on dev; noisy on small dev sets)
    crf_workers: int | None = None       # CRF members fitted at once, one process each (None: all, up to 2x the cores)
    mode: str = "flat"                   # "hierarchical": also a category member, joined with the type members
    category_members: dict[str, list[str]] = field(default_factory=dict)  # category -> members voting for its types
    augment_copies: int = 1              # surrogate copies of every training note the members learn from (0: none)
    augment_crf: bool = True             # the CRF members learn from the copies too (the encoders always do)
    # copies in UPPER and lower case (of the surrogate copies when there are any, else of the
    # notes): 1 = one per note, upper and lower in turn; 2 = both; 0 = none; None = the locale's default
    case_copies: int | None = None
    # copies of each training note's PHI lines with a line either side (models.phi_windows), which
    # the CRF members learn from beside the notes; None = the locale's default
    phi_windows: int | None = None
    # learn on dev which locale-pack steps the model's own spans are spared from (notes of the
    # team's ward: True; generated notes, a cold start: False); None = the locale's default
    learn_spared_steps: bool | None = None
    # the identifiers the version's detector suggests (pipeline.detection.conventions): "all", or
    # "safe-harbor" for a model that cannot learn its ward's convention from gold (a cold start)
    convention: str = "all"
    # whether the version's detector gives its model the locale pack's view of a note (English:
    # lines in one case truecased, pipeline.locales.en.case_view); train-starter sets it: a cold
    # start must find before it is precise, a ward's own model learns its case habits from its gold
    case_view: bool = False

    @classmethod
    def from_dict(cls, d: dict) -> "TrainConfig":
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})

    def case_copy_count(self) -> int:
        """How many case copies of each note the members learn from (``case_copies``, else the
        locale's default in :data:`DEFAULT_CASE_COPIES`)."""
        if self.case_copies is not None:
            return int(self.case_copies)
        return DEFAULT_CASE_COPIES.get(self.locale.split("-")[0].lower(), 0)

    def phi_window_count(self) -> int:
        """How many PHI-window copies of each note the members learn from (``phi_windows``, else
        the locale's default in :data:`DEFAULT_PHI_WINDOWS`)."""
        if self.phi_windows is not None:
            return int(self.phi_windows)
        return DEFAULT_PHI_WINDOWS.get(self.locale.split("-")[0].lower(), 0)

    def learns_spared_steps(self) -> bool:
        """Whether dev decides which pack steps spare the model's spans (``learn_spared_steps``,
        else the locale's default in :data:`DEFAULT_LEARN_SPARED`)."""
        if self.learn_spared_steps is not None:
            return bool(self.learn_spared_steps)
        return DEFAULT_LEARN_SPARED.get(self.locale.split("-")[0].lower(), False)

    def crf_config(self, name: str) -> CRFConfig:
        if name == CATEGORY_MEMBER:    # the category member learns with the crf member's settings
            name = "crf"
        over = {**DEFAULT_CRFS.get(name, {}), **self.crf, **self.crfs.get(name, {})}
        by_locale = LOCALE_CRF.get(self.locale.split("-")[0].split("_")[0].lower(), {})
        return CRFConfig(**{**asdict(CRFConfig()), "locale": self.locale, **by_locale, **over})

    def encoder_config(self, name: str) -> EncoderConfig:
        base = dict(DEFAULT_ENCODERS.get(name, {"arch": name}))
        base.update(self.encoders.get(name, {}))
        base.setdefault("seed", self.seed)
        if "seed" not in self.encoders.get(name, {}):
            base["seed"] = self.seed + sum(map(ord, name))  # members differ, runs repeat
        if self.epochs is not None:
            base["epochs"] = self.epochs
        if self.mlm_epochs is not None:
            base["mlm_epochs"] = self.mlm_epochs
        return EncoderConfig.from_dict(base)


def member_kind(name: str) -> str:
    """``crf`` and ``crf-<variant>`` are CRF members; the encoder architectures are encoders."""
    if name == "crf" or (name.startswith("crf-") and len(name) > 4 and name[4:].replace("-", "").isalnum()):
        return "crf"
    if name in ARCHITECTURES or name in DEFAULT_ENCODERS:
        return "encoder"
    raise ValueError(f"unknown member {name!r}: use crf, crf-<variant> ({', '.join(list(DEFAULT_CRFS)[1:])}), "
                     f"{', '.join(ARCHITECTURES)}")


def check_mode(cfg: "TrainConfig", schema: LabelSchema) -> None:
    """Refuse an unknown mode or a category-members choice that names an unknown category or a
    member not in the ensemble (one line, no document content)."""
    if cfg.mode not in MODES:
        raise ValueError(f"unknown ensemble mode {cfg.mode!r}; use one of {', '.join(MODES)}")
    if cfg.mode == "hierarchical" and CATEGORY_MEMBER in cfg.members:
        raise ValueError(f"{CATEGORY_MEMBER} is the hierarchical mode's own member; do not list it")
    if not isinstance(cfg.category_members, dict):
        raise ValueError("category members must map a category to a list of members")
    for cat, names in cfg.category_members.items():
        if cat not in schema.categories:
            raise ValueError(f"category members: the schema has no category {cat!r}")
        if isinstance(names, str) or not names or any(n not in cfg.members for n in names):
            raise ValueError(f"category members for {cat}: list one or more of the ensemble's members "
                             f"({', '.join(cfg.members)})")
