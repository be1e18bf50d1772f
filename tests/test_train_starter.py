"""The English starter recipe: its generated mix and the ``train-starter`` command."""
from __future__ import annotations

import pytest

from cli import main
from pipeline.synthetic.starter import DEFAULT_RECIPE, StarterRecipe, starter_corpus


def test_mix_takes_each_generator_in_its_share_with_disjoint_patients():
    docs = starter_corpus(StarterRecipe(ward_share=0.75, case_copies=1, notes=16), seed=5, part="train")
    assert len(docs) == 16
    ward = [d for d in docs if d.patient_id.startswith("U")]
    wide = [d for d in docs if d.patient_id.startswith("W")]
    assert (len(ward), len(wide)) == (12, 4)
    assert not {d.patient_id for d in ward} & {d.patient_id for d in wide}
    assert len({d.doc_id for d in docs}) == 16
    assert all(d.spans for d in wide)              # gold comes with every generated note
    again = starter_corpus(StarterRecipe(ward_share=0.75, case_copies=1, notes=16), seed=5, part="train")
    assert [d.text for d in again] == [d.text for d in docs]


def test_pure_recipes_take_one_generator():
    assert StarterRecipe(ward_share=1.0, notes=7).counts() == (7, 0)
    assert StarterRecipe(ward_share=0.0, notes=7).counts() == (0, 7)
    assert DEFAULT_RECIPE.counts(10) == (round(10 * DEFAULT_RECIPE.ward_share), 10 - round(10 * DEFAULT_RECIPE.ward_share))


@pytest.mark.parametrize("bad", [dict(ward_share=1.5), dict(case_copies=3), dict(notes=0)])
def test_bad_recipe_is_refused(bad):
    with pytest.raises(ValueError):
        StarterRecipe(**bad)


def test_command_refuses_a_locale_without_generated_notes(tmp_path, capsys):
    assert main(["train-starter", "--locale", "es", "--out", str(tmp_path / "m")]) == 1
    err = capsys.readouterr().err
    assert "train-starter supports en" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "m").exists()
    assert main(["train-starter", "--out", str(tmp_path / "m"), "--ward-share", "2"]) == 1
    assert not (tmp_path / "m").exists()


def test_command_trains_an_active_english_model(tmp_path, capsys):
    out = tmp_path / "models"
    rc = main(["train-starter", "--out", str(out), "--notes", "14", "--case-copies", "0", "--threads", "1",
               "--name", "starter"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "starter model starter written" in text and "(active)" in text
    assert (out / "ACTIVE").read_text().strip() == "starter"
    from pipeline.detection.detector import Detector

    det = Detector.load(out / "starter")
    assert det.locale.startswith("en")
    # an English starter suggests what HIPAA's Safe Harbor counts, recorded with the version
    assert "HIPAA Safe Harbor" in text and det.convention == "safe-harbor"
    assert Detector.load(out / "starter", convention="all").convention == "all"
    # its model reads lines in one case truecased (pipeline.locales.en.case_view)
    assert det.ensemble.info.case_view is True
