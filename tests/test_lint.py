"""The packages pass ruff (pyproject.toml's [tool.ruff]: pyflakes' rules and syntax errors) and mypy:
an unused import, an undefined name, a shadowed import or a value of the wrong type fails the suite, not a later reader."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_the_packages_pass_ruff():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "--output-format", "concise",
                             "graphstore", "extract", "audit", "cli"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_packages_pass_mypy():
    """pyproject.toml's [tool.mypy]: annotated functions type-checked, the result nodes' properties
    included (audit/results/schema.py is generated with a typed field for each)."""
    result = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary"], cwd=REPO, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr
