"""One row of the claims table (results/tables/claims.csv): the columns and the row builder shared by
:mod:`lsadyn.paper.claims` and the stages' summaries that contribute rows (persistence, robustness). It sits below
them all (pandas only, imports nothing of the study), so a stage never imports the claims module."""

from __future__ import annotations

import pandas as pd

COLUMNS = ["id", "claim", "statement", "method", "n_tested", "n_agree", "n_undetermined", "pass", "informational",
           "evidence", "note"]


def claim_row(rid, statement, method, n_tested, n_agree, ok, evidence, note="", informational=False,
              n_undetermined=0) -> dict:
    """A claims-table row with the columns :data:`COLUMNS`; ``claim`` is ``rid`` up to its first '-' without
    trailing letters ('C8a-identity-lsa-d2' -> 'C8'). ``n_undetermined``: the tested runs without a certified label;
    a row that does not pass only because of them (every other run agrees) reads "undecided (k of N runs)", never
    FAIL (:func:`lsadyn.paper.findings.normalise_claims`)."""
    return {"id": rid, "claim": rid.split("-")[0].rstrip("abcdefghijklmnopqrstuvwxyz"), "statement": statement,
            "method": method, "n_tested": int(n_tested), "n_agree": int(n_agree), "n_undetermined": int(n_undetermined),
            "pass": bool(ok), "informational": bool(informational), "evidence": evidence, "note": note}


def counts_text(labels) -> str:
    """'cluster_converge 40, oscillate 3' (most frequent first); 'none' if empty."""
    vc = pd.Series(list(labels), dtype=object).value_counts()
    return ", ".join(f"{k} {v}" for k, v in vc.items()) or "none"


def span(lo, hi, spec: str = ".3g", unit: str = "", start: str = "") -> str:
    """'0.0015 to 0.029' (``lo`` and ``hi`` in format ``spec``), or the one value when both print the same at that
    precision ('0.029', not '0.029 to 0.029'); ``unit`` is appended once, at the end; ``start`` ('from ') goes
    before a range only ('from 1000 to 3000', but '1000')."""
    a, b = format(lo, spec), format(hi, spec)
    return (a if a == b else f"{start}{a} to {b}") + unit
