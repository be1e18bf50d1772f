"""The risk embedder on a GPU: ``SentenceEncoderEmbedder`` (pipeline/risk/embedders.py) picks
CUDA by itself where torch sees one, and its vectors match the CPU's.

    python benchmarks/risk_embedder_device.py                 # a tiny and a base-sized (768 x 12) random BERT
    python benchmarks/risk_embedder_device.py --sizes tiny    # the tiny one alone (a CPU-only machine)

Two randomly initialised BERT encoders, saved to a temporary folder and loaded offline, fit on 600
invented contexts and embed 2,400; per size: the device the embedder chose, the largest difference
from the same model on the CPU, and the median of three embedding times on each. Prints figures
only; with ``OUT`` set, also writes ``$OUT/gpu_check.json``. Without a GPU both columns are the CPU.
"""
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from pipeline.risk import embedders as emb_mod  # noqa: E402

SENTENCES = [
    "el paciente acude a la consulta de urgencias por dolor abdominal",
    "fue atendido por el doctor en la planta de medicina interna",
    "se solicita analitica y radiografia de torax con resultado normal",
    "la paciente refiere fiebre de tres dias de evolucion y tos seca",
    "se pauta tratamiento antibiotico y se cita para revision en dos semanas",
    "antecedentes de hipertension arterial y diabetes mellitus tipo dos",
]


def tiny_bert(path: Path, hidden: int, layers: int) -> Path:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok.train_from_iterator(SENTENCES * 3, trainers.WordPieceTrainer(vocab_size=300, special_tokens=specials))
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                   sep_token="[SEP]", mask_token="[MASK]", model_max_length=64)
    fast.save_pretrained(path)
    torch.manual_seed(0)
    BertModel(BertConfig(vocab_size=tok.get_vocab_size(), hidden_size=hidden, num_hidden_layers=layers,
                         num_attention_heads=max(2, hidden // 64), intermediate_size=hidden * 4,
                         max_position_embeddings=64)).save_pretrained(path)
    return path


def main() -> int:
    res = {"cuda_available": torch.cuda.is_available(), "torch": torch.__version__,
           "device_name": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None}
    import sentence_transformers
    import transformers
    res.update(transformers=transformers.__version__, sentence_transformers=sentence_transformers.__version__)
    texts = [f"{s} numero {i}" for i in range(400) for s in SENTENCES]     # 2,400 contexts
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="tiny,base-sized", help="comma-separated: tiny, base-sized")
    wanted = ap.parse_args().sizes.split(",")
    for name, hidden, layers in (("tiny", 32, 1), ("base-sized", 768, 12)):
        if name not in wanted:
            continue
        path = tiny_bert(Path(tempfile.mkdtemp(prefix=f"bert-{name}-")), hidden, layers)
        auto = emb_mod.SentenceEncoderEmbedder(path)
        cpu = emb_mod.SentenceEncoderEmbedder(path, device="cpu")
        got = {"auto_device": str(auto.model.device), "cpu_device": str(cpu.model.device)}
        for e in (auto, cpu):
            e.fit(texts[:600])
        a = auto.embed(texts).exact
        c = cpu.embed(texts).exact
        got["max_abs_diff"] = float(np.max(np.abs(a - c)))
        got["min_cosine_auto_vs_cpu"] = float(np.min(np.sum(a * c, axis=1)))
        got["norms_ok"] = bool(np.allclose(np.linalg.norm(a, axis=1), 1, atol=1e-4))
        for label, e in (("auto", auto), ("cpu", cpu)):
            runs = []
            for _ in range(3):
                t = time.perf_counter()
                e.embed(texts)
                runs.append(time.perf_counter() - t)
            got[f"{label}_embed_s_median_of_3"] = round(sorted(runs)[1], 3)
        res[name] = got
        print(name, json.dumps(got), flush=True)
    if os.environ.get("OUT"):
        Path(os.environ["OUT"]).mkdir(parents=True, exist_ok=True)
        (Path(os.environ["OUT"]) / "gpu_check.json").write_text(json.dumps(res, indent=1))
    print(json.dumps({k: v for k, v in res.items() if not isinstance(v, dict)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
