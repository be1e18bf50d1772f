"""What the generative-member tests share: two invented notes, their PHI, the deterministic
rewriting stub, and a tiny GPT-2 that learned the notes' rewrites (models.tiny_causal_lm)."""
from __future__ import annotations

from pathlib import Path

NOTES = [
    "Paciente: Lucía Ferrer Soto\nEdad: 67 años.\nMédico: Dr. Tomás Ibarra\n",
    "Ingresa el 14/02/2019 en el Hospital San Telmo.\nVive en Almería.\n",
]
PHI = [["Lucía Ferrer Soto", "67", "Tomás Ibarra"], ["14/02/2019", "Hospital San Telmo", "Almería"]]
SHORT_PROMPT = "Replace PHI with {placeholder}:\n{text}\n### Rewritten\n"


def gold_of(text: str, phrases: list[str]) -> list[tuple[int, int]]:
    """Offsets of each phrase's first occurrence after the previous one."""
    out, at = [], 0
    for p in phrases:
        k = text.index(p, at)
        out.append((k, k + len(p)))
        at = k + len(p)
    return out


def replace_known(text: str, placeholder: str = "[PHI]") -> str:
    """The deterministic rewriting stub: every known PHI string becomes the placeholder."""
    for phrases in PHI:
        for p in phrases:
            text = text.replace(p, placeholder)
    return text


def memorized_checkpoint(out_dir: Path, prompt_of) -> Path:
    """A tiny GPT-2 trained until greedy decoding of ``prompt_of(note)`` gives the note's rewrite."""
    import torch

    from models.tiny_causal_lm import build_tiny_checkpoint

    torch.set_num_threads(1)
    pairs = [(prompt_of(n.strip()), replace_known(n.strip())) for n in NOTES]
    return build_tiny_checkpoint(out_dir, NOTES, memorize=pairs, n_positions=256)
