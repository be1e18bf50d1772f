"""``python -m pipeline train``: train a detection model version from annotated folders.

Reads a gold set (brat, i2b2 XML or JSONL), splits it patient-disjoint into train/dev when no
``--dev`` is given, trains the ensemble, tunes per-type thresholds for the target recall and
writes a new immutable version under ``--out`` (then marks it active there unless
``--no-activate``). Prints figures and labels only, never document text.

``--mode hierarchical`` adds the category member of the superclass/subclass design (see
:mod:`models.ensemble`); ``--category-members NAME=crf,crf-rules;DATE=crf`` chooses, per category,
which members vote for its types. Both are also ``--config`` keys (``mode``, ``category_members``).
"""
from __future__ import annotations

import argparse
import sys

NAME = "train"
HELP = "train a detection model version (encoders + CRF ensemble) from annotated documents"



def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--train", required=True, metavar="DIR", help="annotated training documents (folder, file or zip)")
    p.add_argument("--dev", metavar="DIR", help="annotated dev documents (default: a patient-disjoint share of --train)")
    p.add_argument("--format", default="brat", choices=("brat", "xml", "jsonl"), help="format of the documents")
    p.add_argument("--out", required=True, metavar="MODEL_DIR", help="models directory; the new version goes inside")
    p.add_argument("--schema", default="auto",
                   help="label schema: meddocan, i2b2-2014, german-8, a JSON file, or 'auto' (first preset that fits)")
    p.add_argument("--locale", help="rules/dictionaries locale stored with the model (default: the schema's: es for meddocan, de for german-8, else en)")
    p.add_argument("--members", default=None,
                   help="comma-separated members: crf, crf-<variant> (crf-l1, crf-rules), bert, electra, roberta "
                        "(default crf)")
    p.add_argument("--epochs", type=int, help="encoder fine-tuning epochs (default per member config)")
    p.add_argument("--mlm-epochs", type=int, help="masked-LM pre-training epochs before fine-tuning (default 0)")
    p.add_argument("--seed", type=int, default=13, help="random seed (default 13)")
    p.add_argument("--target-recall", type=float, default=0.99, help="per-type dev recall the thresholds aim at")
    p.add_argument("--dev-fraction", type=float, default=0.15, help="share of --train held out when no --dev")
    p.add_argument("--init-from", metavar="CHECKPOINT_DIR",
                   help="initialise every encoder member from this local checkpoint directory (offline)")
    p.add_argument("--mode", default=None, metavar="MODE",
                   help="ensemble mode: flat (default) or hierarchical (a category model beside the type members; "
                        "where they disagree the span becomes OTHER, flagged for review)")
    p.add_argument("--category-members", default=None, metavar="CAT=M1,M2;CAT=M3",
                   help="per category, the members whose probabilities vote for its types, e.g. "
                        "'NAME=crf,crf-rules;DATE=crf' (unlisted categories: every member)")
    p.add_argument("--config", metavar="JSON", help="JSON file with further TrainConfig fields (encoders, crf, weights, "
                                                   "mode, category_members)")
    p.add_argument("--augment-copies", type=int, metavar="N",
                   help="surrogate copies of every training note the members learn from (default 1; 0: none)")
    p.add_argument("--no-augment-crf", action="store_true", help="only the encoders learn from the surrogate copies")
    p.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")
    p.add_argument("--name", help="version name (default v<UTC time>-<random>)")
    p.add_argument("--no-activate", action="store_true", help="do not point MODEL_DIR/ACTIVE at the new version")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def parse_category_members(value: str) -> dict[str, list[str]]:
    """``'NAME=crf,crf-rules;DATE=crf'`` -> ``{"NAME": ["crf", "crf-rules"], "DATE": ["crf"]}``;
    ``ValueError`` (one line) for anything else.

    >>> parse_category_members("NAME=crf,crf-rules; DATE=crf")
    {'NAME': ['crf', 'crf-rules'], 'DATE': ['crf']}
    """
    out: dict[str, list[str]] = {}
    for part in (x.strip() for x in value.split(";")):
        if not part:
            continue
        cat, sep, names = part.partition("=")
        members = [m.strip() for m in names.split(",") if m.strip()]
        if not sep or not cat.strip() or not members:
            raise ValueError("--category-members: write CATEGORY=member,member;CATEGORY=member")
        if cat.strip() in out:
            raise ValueError(f"--category-members: category {cat.strip()!r} is listed twice")
        out[cat.strip()] = members
    return out


def read_gold(path: str, fmt: str, schema_arg: str):
    """Read annotated documents; with schema 'auto', the first preset that accepts every label."""
    from pipeline.formats import read_collection_auto
    return read_collection_auto(path, fmt, schema_arg)


def run(args: argparse.Namespace) -> int:
    from pipeline.detection.hierarchy import MODES
    from pipeline.errors import WorkbenchError

    # settings first: a wrong choice is refused before the models (and torch) are imported
    if args.mode is not None and args.mode not in MODES:
        raise WorkbenchError(f"unknown --mode {args.mode!r}; use one of {', '.join(MODES)}")
    try:
        category_members = parse_category_members(args.category_members) if args.category_members else None
    except ValueError as e:
        raise WorkbenchError(str(e)) from None

    from pathlib import Path

    from models.registry import set_active
    from models.trainer import TrainConfig, train_ensemble
    from cli.console import augment_options, read_json_config
    from pipeline.formats import read_collection
    from pipeline.schemas import default_locale

    schema, train_docs = read_gold(args.train, args.format, args.schema)
    dev_docs = read_collection(args.dev, args.format, schema) if args.dev else None
    extra = read_json_config(args.config)
    extra.update(augment_options(args))
    if args.members:
        extra["members"] = [m.strip() for m in args.members.split(",") if m.strip()]
    if args.mode is not None:
        extra["mode"] = args.mode
    if category_members is not None:
        extra["category_members"] = category_members
    cfg = TrainConfig.from_dict({**extra, "seed": args.seed, "target_recall": args.target_recall,
                                 "dev_fraction": args.dev_fraction, "threads": args.threads,
                                 "locale": args.locale or extra.get("locale") or default_locale(schema)})
    if args.epochs is not None:
        cfg.epochs = args.epochs
    if args.mlm_epochs is not None:
        cfg.mlm_epochs = args.mlm_epochs
    if args.name:
        cfg.name = args.name
    if args.init_from and not Path(args.init_from).is_dir():
        raise FileNotFoundError(f"checkpoint directory {args.init_from} does not exist")
    from models.trainer import member_kind
    members = cfg.members
    try:
        kinds = {m: member_kind(m) for m in members}
    except ValueError as e:
        raise WorkbenchError(str(e)) from None
    if args.init_from:
        for m in members:
            if kinds[m] == "encoder":
                cfg.encoders.setdefault(m, {})["init_from"] = str(Path(args.init_from).resolve())

    bar = None
    if not args.no_progress:
        from tqdm import tqdm
        bar = tqdm(total=100, unit="%", file=sys.stderr, bar_format="{l_bar}{bar}| {elapsed} {postfix}")

    def progress(ev) -> None:
        if bar is None:
            return
        bar.total = ev.total
        bar.n = ev.done
        post = ev.message
        if ev.loss is not None:
            post += f" loss {ev.loss:.3f}"
        if ev.dev_f1 is not None:
            post += f" dev F1 {ev.dev_f1:.4f}"
        bar.set_postfix_str(post, refresh=False)
        bar.refresh()

    try:
        info = train_ensemble(train_docs, dev_docs, schema, cfg, args.out, progress=progress)
    except (ValueError, FileExistsError) as e:  # bad settings or data: messages carry no text
        raise WorkbenchError(str(e)) from None
    finally:
        if bar is not None:
            bar.close()
    if not args.no_activate:
        set_active(args.out, info.name)
    print(f"model version {info.name} written to {info.path}" + ("" if args.no_activate else " (active)"))
    print(f"train documents {info.n_train_docs}   dev documents {info.n_dev_docs}   "
          f"seconds {info.train_seconds:.0f}   target recall {info.target_recall}")
    hier = info.mode == "hierarchical"
    wid = 26 if hier else 16
    print(f"{'dev (strict)':<{wid}}{'P':>8}{'R':>8}{'F1':>8}{'span R':>9}")
    extra_rows = [info.category_member, "hierarchical"] if hier else []
    for key in ["ensemble", "ensemble@0.5", *info.members, *extra_rows]:
        m = info.metrics[key]
        s = m["strict"]
        label = key + (" (categories)" if key == info.category_member else "")
        print(f"{label:<{wid}}{s['precision']:>8.4f}{s['recall']:>8.4f}{s['f1']:>8.4f}{m['span_recall']:>9.4f}")
    ch = info.metrics["ensemble"].get("characters")
    if ch:
        print(f"dev characters (model alone, any label): P {ch['precision']:.4f}  R {ch['recall']:.4f}   "
              f"document recall {ch['document_recall']:.4f}")
    if info.spared_steps or info.muted_sources:    # what dev decided about the locale's rules and lists
        print(f"learnt on dev: steps spared for the model {', '.join(info.spared_steps) or 'none'}; "
              f"rule and list sources left out {', '.join(info.muted_sources) or 'none'}")
    if hier:
        o = info.metrics["hierarchical"].get("outcomes", {})
        print(f"hierarchical join on dev: {o.get('type', 0)} typed, {o.get('category_other', 0)} as their category's "
              f"other type, {o.get('disagree', 0)} as OTHER (models disagree), {o.get('type_only', 0)} type model only; "
              f"{o.get('flagged', 0)} flagged for review")
    return 0
