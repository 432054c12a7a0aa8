"""Colour-vision-deficiency simulation and colour distance, the instruments of test_palette.py
and of the simulated screenshot in docs/view.md (view_screenshots.py).

- Simulation: Machado, Oliveira & Fernandes, "A Physiologically-based Model for Simulation of
  Color Vision Deficiency", IEEE TVCG 15(6), 2009, severity 1.0 (protanopia, deuteranopia,
  tritanopia): their matrices (Table 1 of the paper's supplementary data) act on *linear* RGB, so
  sRGB is decoded first (IEC 61966-2-1) and encoded again after.
- Distance: CIELAB (D65 white, the sRGB primaries' XYZ matrix of IEC 61966-2-1) and the CIE76
  difference, the Euclidean distance in L*a*b*.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

MACHADO_2009 = {
    "protanopia": ((0.152286, 1.052583, -0.204868),
                   (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968),
                     (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779),
                   (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}
# linear sRGB -> XYZ (D65), IEC 61966-2-1
SRGB_TO_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375],
                        [0.2126729, 0.7151522, 0.0721750],
                        [0.0193339, 0.1191920, 0.9503041]])
D65 = np.array([0.95047, 1.0, 1.08883])


def hex_rgb(colour: str) -> np.ndarray:
    """``#RRGGBB`` as sRGB in [0, 1]."""
    return np.array([int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])


def to_linear(srgb: np.ndarray) -> np.ndarray:
    srgb = np.asarray(srgb, dtype=float)
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def to_srgb(linear: np.ndarray) -> np.ndarray:
    linear = np.clip(np.asarray(linear, dtype=float), 0.0, 1.0)
    return np.where(linear <= 0.0031308, linear * 12.92, 1.055 * linear ** (1 / 2.4) - 0.055)


def simulate(srgb: np.ndarray, deficiency: str | None) -> np.ndarray:
    """sRGB colours (``[..., 3]`` in [0, 1]) as seen with ``deficiency`` (None: unchanged)."""
    if deficiency is None:
        return np.asarray(srgb, dtype=float)
    matrix = np.array(MACHADO_2009[deficiency])
    return to_srgb(to_linear(srgb) @ matrix.T)


def lab(srgb: np.ndarray) -> np.ndarray:
    """sRGB (``[..., 3]`` in [0, 1]) as CIELAB L*a*b* under D65."""
    xyz = to_linear(srgb) @ SRGB_TO_XYZ.T / D65
    delta = 6 / 29
    f = np.where(xyz > delta ** 3, np.cbrt(xyz), xyz / (3 * delta ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


def delta_e76(a: np.ndarray, b: np.ndarray) -> float:
    """CIE76 colour difference of two sRGB colours."""
    return float(np.linalg.norm(lab(a) - lab(b)))


def simulate_png(source: Path, target: Path, deficiency: str) -> Path:
    """A PNG as seen with ``deficiency``: every pixel through the same matrix."""
    with Image.open(source) as image:
        pixels = np.asarray(image.convert("RGB"), dtype=float) / 255
    seen = np.round(simulate(pixels, deficiency) * 255).astype(np.uint8)
    Image.fromarray(seen, "RGB").save(target, optimize=True)
    return Path(target)
