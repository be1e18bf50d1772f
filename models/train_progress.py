"""A training run's progress and cancel: one object the steps of :mod:`models.trainer` share.

Why an object and not closures: the fit and tune steps are module-level functions (each testable
alone), and all of them report into the same monotonic counter and obey the same ``should_stop``.
Every member gets an equal slice of :data:`UNIT` units (a CRF refit one more), thresholds the
last 100; a report never moves the counter back and never past the total.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

#: progress units per fitted member (a CRF's refit on train + dev is one more)
UNIT = 1000


class TrainingCancelled(Exception):
    """``should_stop`` asked the run to stop; nothing was written."""


@dataclass
class ProgressEvent:
    done: int
    total: int
    message: str
    member: str = ""
    loss: float | None = None
    dev_f1: float | None = None
    step: int | None = None     # the fit's own iteration (CRF) or optimisation step (encoder)


class RunProgress:
    """Reports ``done``/``total`` to ``callback`` (never backwards) and raises
    :class:`TrainingCancelled` from :meth:`check_stop` when ``should_stop()`` says so."""

    def __init__(self, total: int, callback: Callable[[ProgressEvent], None] | None = None,
                 should_stop: Callable[[], bool] | None = None):
        self.total = total
        self.done = 0
        self.callback = callback
        self.should_stop = should_stop

    @classmethod
    def for_fits(cls, n_fits: int, callback: Callable[[ProgressEvent], None] | None = None,
                 should_stop: Callable[[], bool] | None = None) -> "RunProgress":
        """A run of ``n_fits`` member fits (refits included) and the threshold tuning."""
        return cls(UNIT * n_fits + 100, callback, should_stop)

    def check_stop(self) -> None:
        if self.should_stop is not None and self.should_stop():
            raise TrainingCancelled("training cancelled")

    def report(self, done: int, message: str, member: str = "", loss: float | None = None,
               dev_f1: float | None = None, step: int | None = None) -> None:
        self.done = max(self.done, min(done, self.total))
        if self.callback is not None:
            self.callback(ProgressEvent(self.done, self.total, message, member, loss, dev_f1, step))
