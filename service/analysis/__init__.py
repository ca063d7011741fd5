"""Decision analysis of a finished game: each decision rated by the expected points it gave away.

Pure: it reads a game's log (or its export) and needs neither server nor store. It judges every
decision from what its seat knew then (its own view), never from the hidden cards.
``analyse_log`` gives the result; service/docs/ANALYSIS.md describes the method and the fields.
"""

from .engine import ANALYSIS_VERSION, DEFAULT_SAMPLES, MAX_DECISIONS, PLAYOUT_POLICY, analyse_log, to_json
from .reading import ExportError, read_export
from .summary import CLASSES, classify

__all__ = [
    "ANALYSIS_VERSION",
    "CLASSES",
    "DEFAULT_SAMPLES",
    "MAX_DECISIONS",
    "PLAYOUT_POLICY",
    "ExportError",
    "analyse_log",
    "classify",
    "read_export",
    "to_json",
]
