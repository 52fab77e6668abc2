"""The yardsticks of benchmarks/ loaded as modules, and whether two samples have the same
distribution."""

from __future__ import annotations

import importlib.util
import statistics
from collections.abc import Sequence
from types import ModuleType

from tests.support.paths import ROOT

BENCHMARKS = ROOT / "benchmarks"


def load_yardstick(name: str) -> ModuleType:
    """``benchmarks/<name>.py``, loaded from its file (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def same_distribution(engine: Sequence[float], plain: Sequence[float]) -> str:
    """"" when two samples have the same mean (within 4 standard errors of the difference) and
    spread (within 6%); otherwise what differs."""
    spread = statistics.stdev(engine)
    standard_error = spread * (1 / len(engine) + 1 / len(plain)) ** 0.5
    means = statistics.mean(engine), statistics.mean(plain)
    if abs(means[0] - means[1]) >= 4 * standard_error:
        return f"means {means[0]:.3f} and {means[1]:.3f} (standard error {standard_error:.3f})"
    if abs(statistics.stdev(plain) / spread - 1) >= 0.06:
        return f"spreads {spread:.3f} and {statistics.stdev(plain):.3f}"
    return ""
