"""Product pictures for the demo marketplace, drawn with Pillow (nothing is downloaded).

A picture is a flat silhouette of the product's shape in the product's colour, on one of three
backgrounds ("studio", "tinted", "catalogue"), with the product's English name as a label.
Pictures are identified by (template, colour, style) and stored once under MEDIA_ROOT, so many
products share a file.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from PIL import Image, ImageDraw, ImageFont

SIZE = 480
THUMBNAIL_SIZE = 240
STYLES = ("studio", "tinted", "catalogue")
STORAGE_PREFIX = "demo/v1"

RGB = tuple[int, int, int]
Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class StoredPicture:
    image: str
    thumbnail: str
    width: int
    height: int


def hex_to_rgb(value: str) -> RGB:
    value = value.lstrip("#")
    return (int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16))


def _mix(a: RGB, b: RGB, share_of_b: float) -> RGB:
    return (
        round(a[0] + (b[0] - a[0]) * share_of_b),
        round(a[1] + (b[1] - a[1]) * share_of_b),
        round(a[2] + (b[2] - a[2]) * share_of_b),
    )


def _darker(colour: RGB, amount: float = 0.35) -> RGB:
    return _mix(colour, (0, 0, 0), amount)


def _lighter(colour: RGB, amount: float = 0.45) -> RGB:
    return _mix(colour, (255, 255, 255), amount)


@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


class _Pen:
    """Draws in a unit square mapped onto the object's box."""

    def __init__(self, draw: ImageDraw.ImageDraw, box: Box, fill: RGB, accent: RGB) -> None:
        self.draw = draw
        self.x0, self.y0, self.x1, self.y1 = box
        self.fill = fill
        self.line = _darker(fill)
        self.accent = accent
        self.light = _lighter(fill)
        self.width = max(2, round((self.x1 - self.x0) / 110))

    def p(self, x: float, y: float) -> tuple[float, float]:
        return (self.x0 + x * (self.x1 - self.x0), self.y0 + y * (self.y1 - self.y0))

    def r(self, x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
        a, b = self.p(x0, y0)
        c, d = self.p(x1, y1)
        return (a, b, c, d)

    def rect(self, x0, y0, x1, y1, fill=None, radius=0.0, outline=True) -> None:
        scale = self.x1 - self.x0
        self.draw.rounded_rectangle(
            self.r(x0, y0, x1, y1),
            radius=radius * scale,
            fill=fill or self.fill,
            outline=self.line if outline else None,
            width=self.width,
        )

    def oval(self, x0, y0, x1, y1, fill=None, outline=True) -> None:
        self.draw.ellipse(
            self.r(x0, y0, x1, y1),
            fill=fill or self.fill,
            outline=self.line if outline else None,
            width=self.width,
        )

    def poly(self, points, fill=None, outline=True) -> None:
        self.draw.polygon(
            [self.p(x, y) for x, y in points],
            fill=fill or self.fill,
            outline=self.line if outline else None,
            width=self.width,
        )

    def stroke(self, points, colour=None, width: float = 1.0) -> None:
        self.draw.line(
            [self.p(x, y) for x, y in points],
            fill=colour or self.line,
            width=max(1, round(self.width * width)),
            joint="curve",
        )

    def ring(self, x0, y0, x1, y1, width: float = 3.0, colour=None) -> None:
        self.draw.ellipse(
            self.r(x0, y0, x1, y1), outline=colour or self.fill, width=round(self.width * width)
        )


# --- shapes --------------------------------------------------------------------------------
# Each shape draws inside the unit square; (0, 0) is the top left of the object's box.


def _bottle(pen: _Pen) -> None:
    pen.rect(0.32, 0.22, 0.68, 0.95, radius=0.08)
    pen.rect(0.40, 0.12, 0.60, 0.24, radius=0.02)
    pen.rect(0.38, 0.04, 0.62, 0.13, fill=pen.accent, radius=0.02)
    pen.rect(0.36, 0.45, 0.64, 0.70, fill=pen.light, outline=False)


def _flask(pen: _Pen) -> None:
    pen.rect(0.34, 0.16, 0.66, 0.95, radius=0.06)
    pen.rect(0.36, 0.04, 0.64, 0.17, fill=pen.accent, radius=0.03)
    pen.rect(0.34, 0.30, 0.66, 0.34, fill=pen.line, outline=False)


def _mug(pen: _Pen) -> None:
    pen.ring(0.58, 0.35, 0.86, 0.70, width=4, colour=pen.line)
    pen.rect(0.18, 0.25, 0.68, 0.90, radius=0.05)
    pen.rect(0.18, 0.25, 0.68, 0.32, fill=pen.light)


def _jar(pen: _Pen) -> None:
    pen.rect(0.25, 0.25, 0.75, 0.92, radius=0.06)
    pen.rect(0.28, 0.12, 0.72, 0.26, fill=pen.accent, radius=0.03)
    pen.rect(0.25, 0.45, 0.75, 0.72, fill=pen.light)


def _drum(pen: _Pen) -> None:
    pen.rect(0.22, 0.12, 0.78, 0.95, radius=0.03)
    for y in (0.35, 0.65):
        pen.stroke([(0.22, y), (0.78, y)], width=2)
    pen.oval(0.22, 0.06, 0.78, 0.18, fill=pen.light)


def _box(pen: _Pen) -> None:
    pen.poly([(0.15, 0.35), (0.55, 0.45), (0.55, 0.92), (0.15, 0.80)])
    pen.poly([(0.55, 0.45), (0.88, 0.33), (0.88, 0.80), (0.55, 0.92)], fill=pen.line)
    pen.poly([(0.15, 0.35), (0.48, 0.22), (0.88, 0.33), (0.55, 0.45)], fill=pen.light)


def _bulb(pen: _Pen) -> None:
    pen.oval(0.22, 0.05, 0.78, 0.62)
    pen.rect(0.36, 0.55, 0.64, 0.80, fill=pen.accent)
    for y in (0.62, 0.69, 0.76):
        pen.stroke([(0.36, y), (0.64, y)])
    pen.rect(0.42, 0.80, 0.58, 0.90, fill=pen.line)


def _lamp(pen: _Pen) -> None:
    pen.rect(0.12, 0.18, 0.88, 0.70, radius=0.04)
    pen.rect(0.18, 0.24, 0.82, 0.64, fill=(250, 248, 220))
    pen.stroke([(0.50, 0.70), (0.50, 0.88)], width=3)
    pen.rect(0.30, 0.86, 0.70, 0.92, fill=pen.line)


def _desklamp(pen: _Pen) -> None:
    pen.rect(0.20, 0.86, 0.62, 0.94, radius=0.02)
    pen.stroke([(0.40, 0.88), (0.30, 0.45), (0.68, 0.22)], width=3)
    pen.poly([(0.58, 0.12), (0.90, 0.28), (0.80, 0.40), (0.52, 0.26)])


def _phone(pen: _Pen) -> None:
    pen.rect(0.30, 0.05, 0.70, 0.95, radius=0.07)
    pen.rect(0.34, 0.12, 0.66, 0.85, fill=(40, 48, 60), radius=0.02)
    pen.oval(0.47, 0.87, 0.53, 0.92, fill=pen.light)


def _radio(pen: _Pen) -> None:
    pen.rect(0.60, 0.02, 0.66, 0.30, fill=pen.line)
    pen.rect(0.30, 0.25, 0.70, 0.95, radius=0.06)
    pen.rect(0.36, 0.32, 0.64, 0.52, fill=(40, 48, 60), radius=0.02)
    for y in (0.62, 0.72, 0.82):
        pen.stroke([(0.38, y), (0.62, y)], width=2)


def _laptop(pen: _Pen) -> None:
    pen.rect(0.18, 0.12, 0.82, 0.66, radius=0.03)
    pen.rect(0.22, 0.16, 0.78, 0.62, fill=(40, 48, 60), outline=False)
    pen.poly([(0.10, 0.70), (0.90, 0.70), (0.96, 0.82), (0.04, 0.82)])


def _screen(pen: _Pen) -> None:
    pen.rect(0.05, 0.10, 0.95, 0.70, radius=0.02)
    pen.rect(0.08, 0.13, 0.92, 0.67, fill=(40, 48, 60), outline=False)
    pen.rect(0.46, 0.70, 0.54, 0.84, fill=pen.line)
    pen.rect(0.30, 0.84, 0.70, 0.89, radius=0.02)


def _headphones(pen: _Pen) -> None:
    pen.rect(0.18, 0.30, 0.44, 0.88, radius=0.12)
    pen.rect(0.56, 0.30, 0.82, 0.88, radius=0.12)
    pen.oval(0.24, 0.20, 0.38, 0.42, fill=pen.light)
    pen.oval(0.62, 0.20, 0.76, 0.42, fill=pen.light)


def _speaker(pen: _Pen) -> None:
    pen.rect(0.25, 0.10, 0.75, 0.92, radius=0.20)
    pen.oval(0.33, 0.22, 0.67, 0.52, fill=pen.line)
    pen.oval(0.40, 0.60, 0.60, 0.80, fill=pen.line)


def _plug(pen: _Pen) -> None:
    pen.rect(0.38, 0.04, 0.44, 0.26, fill=pen.line)
    pen.rect(0.56, 0.04, 0.62, 0.26, fill=pen.line)
    pen.rect(0.25, 0.22, 0.75, 0.78, radius=0.10)
    pen.rect(0.40, 0.62, 0.60, 0.68, fill=pen.line, outline=False)


def _switch(pen: _Pen) -> None:
    pen.rect(0.12, 0.12, 0.88, 0.88, radius=0.06)
    pen.rect(0.26, 0.26, 0.74, 0.74, fill=pen.light, radius=0.04)
    pen.rect(0.44, 0.34, 0.56, 0.66, fill=pen.accent, radius=0.03)


def _cable(pen: _Pen) -> None:
    for inset in (0.0, 0.09, 0.18, 0.27):
        pen.ring(0.1 + inset, 0.1 + inset, 0.9 - inset, 0.9 - inset, width=4)
    pen.stroke([(0.9, 0.5), (0.98, 0.9)], colour=pen.fill, width=4)


def _machine(pen: _Pen) -> None:
    pen.rect(0.05, 0.25, 0.95, 0.88, radius=0.03)
    pen.rect(0.10, 0.32, 0.55, 0.70, fill=pen.light)
    pen.rect(0.64, 0.34, 0.88, 0.52, fill=(40, 48, 60))
    for x in (0.66, 0.74, 0.82):
        pen.oval(x, 0.58, x + 0.05, 0.63, fill=pen.accent)
    pen.rect(0.08, 0.88, 0.22, 0.95, fill=pen.line)
    pen.rect(0.78, 0.88, 0.92, 0.95, fill=pen.line)


def _appliance(pen: _Pen) -> None:
    pen.rect(0.20, 0.12, 0.80, 0.92, radius=0.12)
    pen.rect(0.28, 0.45, 0.72, 0.82, fill=pen.line, radius=0.06)
    pen.oval(0.44, 0.22, 0.56, 0.34, fill=pen.accent)


def _kettle(pen: _Pen) -> None:
    pen.poly([(0.22, 0.90), (0.30, 0.25), (0.66, 0.25), (0.74, 0.90)])
    pen.poly([(0.22, 0.40), (0.08, 0.28), (0.10, 0.24), (0.26, 0.32)])
    pen.ring(0.58, 0.30, 0.90, 0.70, width=4, colour=pen.line)
    pen.rect(0.18, 0.88, 0.78, 0.95, fill=pen.line, radius=0.02)


def _blender(pen: _Pen) -> None:
    pen.poly([(0.30, 0.10), (0.70, 0.10), (0.66, 0.62), (0.34, 0.62)], fill=pen.light)
    pen.rect(0.28, 0.04, 0.72, 0.11, fill=pen.line)
    pen.rect(0.24, 0.62, 0.76, 0.94, radius=0.06)
    pen.oval(0.44, 0.72, 0.56, 0.84, fill=pen.accent)


def _tshirt(pen: _Pen) -> None:
    pen.poly(
        [
            (0.30, 0.10),
            (0.42, 0.10),
            (0.50, 0.18),
            (0.58, 0.10),
            (0.70, 0.10),
            (0.95, 0.30),
            (0.84, 0.45),
            (0.74, 0.38),
            (0.74, 0.95),
            (0.26, 0.95),
            (0.26, 0.38),
            (0.16, 0.45),
            (0.05, 0.30),
        ]
    )


def _trousers(pen: _Pen) -> None:
    pen.poly(
        [
            (0.25, 0.05),
            (0.75, 0.05),
            (0.82, 0.95),
            (0.56, 0.95),
            (0.50, 0.35),
            (0.44, 0.95),
            (0.18, 0.95),
        ]
    )
    pen.rect(0.25, 0.05, 0.75, 0.12, fill=pen.line)


def _dress(pen: _Pen) -> None:
    pen.poly([(0.38, 0.05), (0.62, 0.05), (0.66, 0.35), (0.88, 0.95), (0.12, 0.95), (0.34, 0.35)])
    pen.rect(0.34, 0.33, 0.66, 0.39, fill=pen.accent, outline=False)


def _sock(pen: _Pen) -> None:
    pen.poly(
        [
            (0.35, 0.05),
            (0.62, 0.05),
            (0.62, 0.60),
            (0.85, 0.75),
            (0.80, 0.95),
            (0.40, 0.95),
            (0.35, 0.80),
        ]
    )
    pen.rect(0.35, 0.05, 0.62, 0.16, fill=pen.light)


def _roll(pen: _Pen) -> None:
    pen.rect(0.30, 0.20, 0.90, 0.80, radius=0.02)
    pen.oval(0.12, 0.20, 0.48, 0.80, fill=pen.light)
    pen.oval(0.25, 0.43, 0.35, 0.57, fill=pen.line)


def _spool(pen: _Pen) -> None:
    pen.poly([(0.30, 0.10), (0.70, 0.10), (0.80, 0.90), (0.20, 0.90)])
    for y in (0.30, 0.50, 0.70):
        pen.stroke([(0.27, y), (0.73, y)])
    pen.rect(0.44, 0.02, 0.56, 0.10, fill=pen.line)


def _towel(pen: _Pen) -> None:
    for i, shade in enumerate((pen.line, pen.fill, pen.light)):
        y = 0.25 + i * 0.18
        pen.rect(0.12, y, 0.88, y + 0.22, fill=shade, radius=0.04)


def _curtain(pen: _Pen) -> None:
    pen.stroke([(0.05, 0.08), (0.95, 0.08)], width=3)
    pen.poly([(0.10, 0.08), (0.46, 0.08), (0.40, 0.95), (0.10, 0.95)])
    pen.poly([(0.54, 0.08), (0.90, 0.08), (0.90, 0.95), (0.60, 0.95)])


def _shoe(pen: _Pen) -> None:
    pen.poly(
        [
            (0.08, 0.55),
            (0.40, 0.45),
            (0.55, 0.30),
            (0.68, 0.32),
            (0.75, 0.50),
            (0.95, 0.62),
            (0.95, 0.78),
            (0.08, 0.78),
        ]
    )
    pen.rect(0.06, 0.76, 0.96, 0.86, fill=pen.light, radius=0.03)


def _boot(pen: _Pen) -> None:
    pen.poly([(0.30, 0.08), (0.62, 0.08), (0.64, 0.52), (0.92, 0.66), (0.92, 0.84), (0.28, 0.84)])
    pen.rect(0.26, 0.82, 0.94, 0.92, fill=pen.line, radius=0.02)


def _bag(pen: _Pen) -> None:
    pen.ring(0.32, 0.05, 0.68, 0.55, width=4, colour=pen.line)
    pen.poly([(0.18, 0.32), (0.82, 0.32), (0.88, 0.92), (0.12, 0.92)])


def _paperbag(pen: _Pen) -> None:
    pen.ring(0.36, 0.06, 0.64, 0.44, width=3, colour=pen.line)
    pen.rect(0.20, 0.26, 0.80, 0.94, radius=0.01)
    pen.rect(0.20, 0.26, 0.80, 0.32, fill=pen.line, outline=False)


def _backpack(pen: _Pen) -> None:
    pen.ring(0.38, 0.02, 0.62, 0.22, width=4, colour=pen.line)
    pen.rect(0.22, 0.12, 0.78, 0.94, radius=0.14)
    pen.rect(0.30, 0.56, 0.70, 0.86, fill=pen.light, radius=0.06)


def _suitcase(pen: _Pen) -> None:
    pen.rect(0.42, 0.02, 0.58, 0.14, fill=pen.line)
    pen.rect(0.25, 0.12, 0.75, 0.88, radius=0.06)
    for x in (0.38, 0.50, 0.62):
        pen.stroke([(x, 0.18), (x, 0.82)])
    pen.oval(0.28, 0.88, 0.36, 0.96, fill=pen.line)
    pen.oval(0.64, 0.88, 0.72, 0.96, fill=pen.line)


def _ring(pen: _Pen) -> None:
    pen.ring(0.22, 0.30, 0.78, 0.92, width=7)
    pen.poly(
        [(0.42, 0.22), (0.58, 0.22), (0.66, 0.30), (0.50, 0.42), (0.34, 0.30)], fill=pen.accent
    )


def _necklace(pen: _Pen) -> None:
    pen.draw.arc(pen.r(0.10, -0.20, 0.90, 0.70), 20, 160, fill=pen.fill, width=pen.width * 2)
    pen.poly([(0.50, 0.66), (0.60, 0.78), (0.50, 0.92), (0.40, 0.78)], fill=pen.accent)


def _watch(pen: _Pen) -> None:
    pen.rect(0.38, 0.02, 0.62, 0.98, radius=0.05)
    pen.oval(0.22, 0.26, 0.78, 0.74, fill=pen.light)
    pen.oval(0.28, 0.32, 0.72, 0.68, fill=(245, 245, 240))
    pen.stroke([(0.50, 0.50), (0.50, 0.38)], colour=(40, 40, 40), width=1.5)
    pen.stroke([(0.50, 0.50), (0.62, 0.54)], colour=(40, 40, 40), width=1.5)


def _chair(pen: _Pen) -> None:
    pen.rect(0.30, 0.06, 0.70, 0.50, radius=0.08)
    pen.rect(0.24, 0.50, 0.76, 0.62, radius=0.04)
    pen.stroke([(0.50, 0.62), (0.50, 0.82)], width=3)
    pen.stroke([(0.22, 0.92), (0.50, 0.82), (0.78, 0.92)], width=3)


def _wheelchair(pen: _Pen) -> None:
    pen.ring(0.12, 0.40, 0.68, 0.96, width=3, colour=pen.line)
    pen.rect(0.30, 0.10, 0.42, 0.60)
    pen.rect(0.30, 0.50, 0.80, 0.60)
    pen.oval(0.76, 0.82, 0.88, 0.94, fill=pen.line)


def _sofa(pen: _Pen) -> None:
    pen.rect(0.12, 0.30, 0.88, 0.62, radius=0.06)
    pen.rect(0.05, 0.45, 0.20, 0.85, radius=0.04)
    pen.rect(0.80, 0.45, 0.95, 0.85, radius=0.04)
    pen.rect(0.18, 0.58, 0.82, 0.80, fill=pen.light, radius=0.03)


def _table(pen: _Pen) -> None:
    pen.rect(0.05, 0.30, 0.95, 0.40, radius=0.01)
    for x in (0.12, 0.82):
        pen.rect(x, 0.40, x + 0.06, 0.92, fill=pen.line)


def _cabinet(pen: _Pen) -> None:
    pen.rect(0.20, 0.05, 0.80, 0.92, radius=0.01)
    pen.stroke([(0.50, 0.05), (0.50, 0.92)])
    pen.rect(0.44, 0.40, 0.47, 0.55, fill=pen.accent)
    pen.rect(0.53, 0.40, 0.56, 0.55, fill=pen.accent)


def _pan(pen: _Pen) -> None:
    pen.rect(0.62, 0.50, 0.98, 0.58, fill=(40, 40, 40), radius=0.03)
    pen.oval(0.05, 0.25, 0.68, 0.85)
    pen.oval(0.12, 0.32, 0.61, 0.78, fill=_darker(pen.fill, 0.55))


def _knife(pen: _Pen) -> None:
    pen.poly([(0.10, 0.62), (0.62, 0.44), (0.66, 0.56), (0.12, 0.70)], fill=(200, 205, 212))
    pen.rect(0.62, 0.44, 0.95, 0.58, radius=0.04)


def _scissors(pen: _Pen) -> None:
    pen.ring(0.10, 0.55, 0.35, 0.85, width=3, colour=pen.fill)
    pen.ring(0.38, 0.62, 0.63, 0.92, width=3, colour=pen.fill)
    pen.stroke([(0.30, 0.62), (0.90, 0.10)], colour=(190, 195, 202), width=3)
    pen.stroke([(0.46, 0.64), (0.85, 0.06)], colour=(160, 165, 172), width=3)


def _bowl(pen: _Pen) -> None:
    pen.draw.chord(
        pen.r(0.08, 0.05, 0.92, 0.90), 0, 180, fill=pen.fill, outline=pen.line, width=pen.width
    )
    pen.oval(0.08, 0.38, 0.92, 0.56, fill=pen.light)


def _petbed(pen: _Pen) -> None:
    pen.oval(0.05, 0.35, 0.95, 0.90)
    pen.oval(0.20, 0.45, 0.80, 0.80, fill=pen.light)


def _fan(pen: _Pen) -> None:
    pen.stroke([(0.50, 0.52), (0.50, 0.90)], width=3)
    pen.rect(0.30, 0.88, 0.70, 0.94, radius=0.02)
    pen.ring(0.18, 0.05, 0.82, 0.66, width=2, colour=pen.line)
    for start in (0, 120, 240):
        pen.draw.pieslice(pen.r(0.26, 0.13, 0.74, 0.58), start, start + 60, fill=pen.fill)
    pen.oval(0.45, 0.31, 0.55, 0.41, fill=pen.line)


def _disc(pen: _Pen) -> None:
    pen.oval(0.08, 0.20, 0.92, 0.88)
    pen.oval(0.30, 0.38, 0.70, 0.70, fill=pen.light)
    pen.oval(0.44, 0.48, 0.56, 0.60, fill=pen.line)


def _tyre(pen: _Pen) -> None:
    pen.oval(0.10, 0.10, 0.90, 0.90, fill=(38, 38, 40))
    pen.oval(0.30, 0.30, 0.70, 0.70, fill=(190, 195, 200))
    pen.oval(0.44, 0.44, 0.56, 0.56, fill=(90, 90, 95))


def _brake(pen: _Pen) -> None:
    pen.oval(0.10, 0.10, 0.90, 0.90, fill=(180, 184, 190))
    pen.oval(0.38, 0.38, 0.62, 0.62, fill=(120, 124, 130))
    pen.draw.pieslice(pen.r(0.02, 0.02, 0.98, 0.98), 300, 360, fill=pen.fill, outline=pen.line)


def _tape(pen: _Pen) -> None:
    pen.rect(0.15, 0.20, 0.80, 0.85, radius=0.18)
    pen.oval(0.32, 0.37, 0.63, 0.68, fill=pen.light)
    pen.rect(0.70, 0.70, 0.95, 0.78, fill=(230, 200, 60))


def _sack(pen: _Pen) -> None:
    pen.poly([(0.22, 0.12), (0.78, 0.12), (0.86, 0.90), (0.14, 0.90)])
    pen.rect(0.30, 0.40, 0.70, 0.66, fill=(250, 250, 246))
    pen.stroke([(0.22, 0.12), (0.30, 0.06), (0.70, 0.06), (0.78, 0.12)], width=2)


def _pipes(pen: _Pen) -> None:
    for row in range(3):
        for col in range(4 - row % 2):
            cx = 0.18 + col * 0.22 + (0.11 if row % 2 else 0)
            cy = 0.80 - row * 0.20
            pen.oval(cx - 0.10, cy - 0.10, cx + 0.10, cy + 0.10)
            pen.oval(cx - 0.05, cy - 0.05, cx + 0.05, cy + 0.05, fill=pen.line)


def _shock(pen: _Pen) -> None:
    pen.rect(0.40, 0.05, 0.60, 0.55, radius=0.03)
    pen.rect(0.46, 0.50, 0.54, 0.95, fill=(190, 195, 200))
    for y in (0.60, 0.68, 0.76, 0.84):
        pen.stroke([(0.32, y), (0.68, y + 0.04)], colour=pen.accent, width=3)


def _sheet(pen: _Pen) -> None:
    for i in range(4):
        y = 0.70 - i * 0.12
        pen.poly(
            [(0.08, y), (0.62, y - 0.12), (0.92, y), (0.38, y + 0.12)],
            fill=pen.fill if i % 2 else pen.light,
        )


def _tiles(pen: _Pen) -> None:
    for i in range(3):
        for j in range(3):
            shade = pen.fill if (i + j) % 2 else pen.light
            pen.rect(0.08 + i * 0.28, 0.08 + j * 0.28, 0.34 + i * 0.28, 0.34 + j * 0.28, fill=shade)


def _blocks(pen: _Pen) -> None:
    colours = ((211, 58, 58), (47, 111, 208), (242, 197, 49), (58, 154, 79))
    for i, (x, y) in enumerate(((0.10, 0.60), (0.42, 0.60), (0.26, 0.32), (0.58, 0.32))):
        pen.rect(x, y, x + 0.30, y + 0.26, fill=colours[i], radius=0.02)
        pen.rect(x + 0.05, y - 0.05, x + 0.12, y, fill=colours[i])
        pen.rect(x + 0.18, y - 0.05, x + 0.25, y, fill=colours[i])


def _frame(pen: _Pen) -> None:
    pen.rect(0.15, 0.08, 0.85, 0.92, radius=0.01)
    pen.rect(0.25, 0.18, 0.75, 0.82, fill=(235, 240, 245))
    pen.poly(
        [(0.25, 0.82), (0.45, 0.50), (0.60, 0.70), (0.75, 0.55), (0.75, 0.82)],
        fill=(120, 170, 120),
        outline=False,
    )


def _window(pen: _Pen) -> None:
    pen.rect(0.12, 0.08, 0.88, 0.92, radius=0.01)
    for x0, x1 in ((0.18, 0.48), (0.52, 0.82)):
        pen.rect(x0, 0.14, x1, 0.86, fill=(200, 225, 240))


def _panel(pen: _Pen) -> None:
    pen.poly([(0.15, 0.20), (0.90, 0.12), (0.85, 0.80), (0.08, 0.88)], fill=(28, 45, 90))
    for i in range(1, 4):
        t = i / 4
        pen.stroke(
            [(0.15 + 0.75 * t, 0.20 - 0.08 * t), (0.08 + 0.77 * t, 0.88 - 0.08 * t)],
            colour=(150, 170, 200),
        )
        pen.stroke(
            [(0.15 - 0.07 * t, 0.20 + 0.68 * t), (0.90 - 0.05 * t, 0.12 + 0.68 * t)],
            colour=(150, 170, 200),
        )


def _battery(pen: _Pen) -> None:
    pen.rect(0.12, 0.22, 0.88, 0.90, radius=0.04)
    pen.rect(0.22, 0.12, 0.34, 0.22, fill=(200, 60, 60))
    pen.rect(0.66, 0.12, 0.78, 0.22, fill=(60, 60, 60))
    pen.rect(0.20, 0.40, 0.80, 0.62, fill=pen.light)


def _ball(pen: _Pen) -> None:
    pen.oval(0.12, 0.12, 0.88, 0.88)
    pen.poly([(0.50, 0.36), (0.62, 0.45), (0.58, 0.60), (0.42, 0.60), (0.38, 0.45)], fill=pen.line)
    for x, y in ((0.50, 0.14), (0.84, 0.42), (0.72, 0.82), (0.28, 0.82), (0.16, 0.42)):
        pen.stroke([(0.50, 0.48), (x, y)], width=1)


def _pen_shape(pen: _Pen) -> None:
    pen.poly([(0.15, 0.80), (0.75, 0.20), (0.85, 0.30), (0.25, 0.90)])
    pen.poly([(0.15, 0.80), (0.25, 0.90), (0.08, 0.97)], fill=(60, 60, 60))
    pen.stroke([(0.70, 0.18), (0.60, 0.40)], colour=pen.accent, width=2)


def _lipstick(pen: _Pen) -> None:
    pen.rect(0.36, 0.50, 0.64, 0.95, fill=(30, 30, 32), radius=0.02)
    pen.rect(0.38, 0.36, 0.62, 0.52, fill=(212, 166, 42))
    pen.poly([(0.40, 0.36), (0.40, 0.14), (0.60, 0.06), (0.60, 0.36)])


def _notebook(pen: _Pen) -> None:
    pen.rect(0.20, 0.08, 0.82, 0.92, radius=0.02)
    for y in range(9):
        yy = 0.14 + y * 0.09
        pen.oval(0.15, yy, 0.25, yy + 0.04, fill=(150, 150, 150))
    pen.rect(0.34, 0.26, 0.72, 0.40, fill=(250, 250, 246))


def _paper(pen: _Pen) -> None:
    pen.rect(0.14, 0.30, 0.86, 0.90, radius=0.01)
    pen.rect(0.14, 0.30, 0.86, 0.42, fill=pen.accent)
    pen.rect(0.22, 0.55, 0.78, 0.75, fill=(250, 250, 246))


def _board(pen: _Pen) -> None:
    pen.rect(0.05, 0.22, 0.95, 0.78, radius=0.04)
    pen.rect(0.12, 0.30, 0.88, 0.70, fill=pen.light, radius=0.02)


def _keyboard(pen: _Pen) -> None:
    pen.rect(0.04, 0.30, 0.80, 0.72, radius=0.03)
    for row in range(4):
        for col in range(9):
            x = 0.08 + col * 0.08
            y = 0.34 + row * 0.09
            pen.rect(x, y, x + 0.06, y + 0.07, fill=pen.light, outline=False)
    pen.oval(0.84, 0.40, 0.98, 0.66)


def _circuit(pen: _Pen) -> None:
    pen.rect(0.06, 0.16, 0.94, 0.84, fill=pen.fill, radius=0.02)
    pen.rect(0.40, 0.38, 0.62, 0.60, fill=(30, 30, 30))
    for x in (0.12, 0.20, 0.28, 0.70, 0.78, 0.86):
        pen.stroke([(x, 0.22), (x, 0.78)], colour=(212, 175, 80), width=1)
    pen.rect(0.70, 0.26, 0.84, 0.36, fill=(200, 200, 200))


def _chip(pen: _Pen) -> None:
    for i in range(6):
        y = 0.22 + i * 0.11
        pen.rect(0.10, y, 0.24, y + 0.05, fill=(190, 195, 200), outline=False)
        pen.rect(0.76, y, 0.90, y + 0.05, fill=(190, 195, 200), outline=False)
    pen.rect(0.22, 0.16, 0.78, 0.86, fill=(40, 40, 44), radius=0.03)
    pen.oval(0.28, 0.22, 0.34, 0.28, fill=(90, 90, 96))


def _usb(pen: _Pen) -> None:
    pen.rect(0.40, 0.05, 0.60, 0.28, fill=(200, 205, 210))
    pen.rect(0.34, 0.25, 0.66, 0.92, radius=0.06)
    pen.oval(0.45, 0.78, 0.55, 0.86, fill=pen.light)


def _drill(pen: _Pen) -> None:
    pen.rect(0.20, 0.20, 0.80, 0.44, radius=0.08)
    pen.rect(0.80, 0.28, 0.96, 0.36, fill=(170, 175, 180))
    pen.poly([(0.34, 0.44), (0.52, 0.44), (0.48, 0.80), (0.30, 0.80)])
    pen.rect(0.22, 0.78, 0.56, 0.94, fill=(40, 40, 42), radius=0.03)


def _toolbox(pen: _Pen) -> None:
    pen.rect(0.38, 0.12, 0.62, 0.30, fill=None, outline=True)
    pen.rect(0.10, 0.26, 0.90, 0.88, radius=0.04)
    pen.rect(0.10, 0.42, 0.90, 0.46, fill=pen.line, outline=False)
    pen.rect(0.44, 0.40, 0.56, 0.50, fill=(200, 205, 210))


def _bolt(pen: _Pen) -> None:
    pen.poly([(0.30, 0.08), (0.70, 0.08), (0.78, 0.16), (0.70, 0.24), (0.30, 0.24), (0.22, 0.16)])
    pen.rect(0.42, 0.24, 0.58, 0.86)
    for i in range(8):
        y = 0.30 + i * 0.07
        pen.stroke([(0.42, y), (0.58, y + 0.04)], width=1)
    pen.poly([(0.42, 0.86), (0.58, 0.86), (0.50, 0.96)])


def _lock(pen: _Pen) -> None:
    pen.rect(0.40, 0.10, 0.60, 0.90, radius=0.05)
    pen.rect(0.46, 0.20, 0.54, 0.40, fill=(40, 48, 60), radius=0.02)
    pen.rect(0.50, 0.46, 0.90, 0.56, radius=0.04)
    pen.oval(0.45, 0.66, 0.55, 0.76, fill=pen.line)


def _camera(pen: _Pen) -> None:
    pen.rect(0.10, 0.08, 0.50, 0.18, fill=pen.line)
    pen.stroke([(0.28, 0.18), (0.32, 0.34)], width=3)
    pen.rect(0.18, 0.30, 0.86, 0.62, radius=0.10)
    pen.oval(0.70, 0.36, 0.90, 0.56, fill=(30, 30, 34))
    pen.oval(0.75, 0.41, 0.85, 0.51, fill=(70, 90, 130))


def _helmet(pen: _Pen) -> None:
    pen.draw.chord(
        pen.r(0.12, 0.15, 0.88, 0.95), 180, 360, fill=pen.fill, outline=pen.line, width=pen.width
    )
    pen.rect(0.05, 0.53, 0.95, 0.62, radius=0.03)
    pen.rect(0.46, 0.16, 0.54, 0.55, fill=pen.light, outline=False)


def _flower(pen: _Pen) -> None:
    pen.stroke([(0.50, 0.50), (0.50, 0.95)], colour=(60, 130, 70), width=3)
    pen.poly([(0.50, 0.75), (0.72, 0.62), (0.56, 0.80)], fill=(60, 150, 80))
    for dx, dy in ((0, -0.16), (0.15, -0.05), (0.09, 0.13), (-0.09, 0.13), (-0.15, -0.05)):
        pen.oval(0.38 + dx, 0.28 + dy, 0.62 + dx, 0.52 + dy)
    pen.oval(0.43, 0.33, 0.57, 0.47, fill=pen.accent)


def _produce(pen: _Pen) -> None:
    pen.oval(0.18, 0.28, 0.82, 0.92)
    for x in (0.36, 0.50, 0.64):
        pen.stroke([(x, 0.34), (x, 0.88)], width=1)
    pen.poly([(0.44, 0.30), (0.50, 0.08), (0.56, 0.30)])


def _teddy(pen: _Pen) -> None:
    pen.oval(0.18, 0.05, 0.36, 0.23)
    pen.oval(0.64, 0.05, 0.82, 0.23)
    pen.oval(0.25, 0.10, 0.75, 0.52)
    pen.oval(0.22, 0.45, 0.78, 0.95)
    pen.oval(0.40, 0.28, 0.60, 0.44, fill=pen.light)
    pen.oval(0.37, 0.22, 0.42, 0.27, fill=(30, 30, 30))
    pen.oval(0.58, 0.22, 0.63, 0.27, fill=(30, 30, 30))


def _car(pen: _Pen) -> None:
    pen.poly(
        [
            (0.05, 0.70),
            (0.08, 0.52),
            (0.28, 0.48),
            (0.38, 0.32),
            (0.68, 0.32),
            (0.80, 0.48),
            (0.95, 0.54),
            (0.95, 0.70),
        ]
    )
    pen.rect(0.42, 0.37, 0.66, 0.47, fill=(200, 225, 240))
    for x in (0.16, 0.66):
        pen.oval(x, 0.60, x + 0.20, 0.80, fill=(40, 40, 42))


def _trailer(pen: _Pen) -> None:
    pen.rect(0.10, 0.40, 0.80, 0.62)
    pen.stroke([(0.80, 0.55), (0.97, 0.60)], width=3)
    pen.oval(0.34, 0.55, 0.54, 0.75, fill=(40, 40, 42))


def _wheels(pen: _Pen, count: int = 2) -> None:
    xs = (0.05, 0.57) if count == 2 else (0.02, 0.40, 0.62)
    for x in xs:
        pen.ring(x, 0.52, x + 0.38, 0.90, width=3, colour=(40, 40, 42))


def _bicycle(pen: _Pen) -> None:
    _wheels(pen)
    pen.stroke([(0.24, 0.71), (0.45, 0.40), (0.76, 0.71), (0.50, 0.71), (0.24, 0.71)], width=3)
    pen.stroke([(0.45, 0.40), (0.70, 0.40), (0.76, 0.71)], width=3)
    pen.stroke([(0.42, 0.32), (0.50, 0.32)], colour=(30, 30, 30), width=3)
    pen.stroke([(0.70, 0.40), (0.68, 0.28), (0.78, 0.26)], width=3)


def _scooter(pen: _Pen) -> None:
    pen.oval(0.05, 0.72, 0.25, 0.92, fill=(40, 40, 42))
    pen.oval(0.72, 0.72, 0.92, 0.92, fill=(40, 40, 42))
    pen.rect(0.15, 0.70, 0.82, 0.78, radius=0.02)
    pen.stroke([(0.78, 0.74), (0.70, 0.12)], width=3)
    pen.stroke([(0.60, 0.12), (0.80, 0.12)], width=3)


def _tricycle(pen: _Pen) -> None:
    pen.rect(0.05, 0.30, 0.55, 0.62)
    pen.rect(0.55, 0.40, 0.80, 0.62, radius=0.04)
    pen.stroke([(0.80, 0.50), (0.88, 0.20)], width=3)
    for x in (0.08, 0.38, 0.72):
        pen.oval(x, 0.62, x + 0.18, 0.80, fill=(40, 40, 42))


def _stroller(pen: _Pen) -> None:
    pen.draw.chord(
        pen.r(0.15, 0.10, 0.75, 0.70), 180, 360, fill=pen.fill, outline=pen.line, width=pen.width
    )
    pen.rect(0.15, 0.40, 0.75, 0.62, radius=0.05)
    pen.stroke([(0.75, 0.45), (0.92, 0.15)], width=3)
    for x in (0.18, 0.58):
        pen.oval(x, 0.72, x + 0.16, 0.88, fill=(40, 40, 42))


def _tent(pen: _Pen) -> None:
    pen.poly([(0.50, 0.12), (0.95, 0.85), (0.05, 0.85)])
    pen.poly([(0.50, 0.45), (0.64, 0.85), (0.36, 0.85)], fill=pen.line)


def _dumbbell(pen: _Pen) -> None:
    pen.rect(0.25, 0.46, 0.75, 0.54, fill=(180, 184, 190))
    for x in (0.08, 0.18, 0.70, 0.80):
        pen.rect(x, 0.28, x + 0.12, 0.72, radius=0.03)


def _router(pen: _Pen) -> None:
    for x in (0.18, 0.40, 0.60, 0.82):
        pen.rect(x - 0.02, 0.08, x + 0.02, 0.55, fill=pen.line)
    pen.rect(0.08, 0.50, 0.92, 0.78, radius=0.06)
    for x in (0.20, 0.30, 0.40, 0.50):
        pen.oval(x, 0.60, x + 0.04, 0.64, fill=(90, 200, 120))


def _meter(pen: _Pen) -> None:
    pen.rect(0.22, 0.15, 0.78, 0.88, radius=0.10)
    pen.rect(0.30, 0.24, 0.70, 0.52, fill=(210, 225, 215), radius=0.02)
    pen.oval(0.42, 0.62, 0.58, 0.78, fill=pen.accent)


def _mask(pen: _Pen) -> None:
    pen.stroke([(0.18, 0.35), (0.05, 0.50), (0.18, 0.68)], colour=(200, 200, 200), width=2)
    pen.stroke([(0.82, 0.35), (0.95, 0.50), (0.82, 0.68)], colour=(200, 200, 200), width=2)
    pen.rect(0.18, 0.28, 0.82, 0.74, radius=0.08)
    for y in (0.42, 0.52, 0.62):
        pen.stroke([(0.20, y), (0.80, y)], width=1)


def _glove(pen: _Pen) -> None:
    for i, x in enumerate((0.28, 0.40, 0.52, 0.64)):
        top = 0.10 if i in (1, 2) else 0.16
        pen.rect(x, top, x + 0.11, 0.55, radius=0.05)
    pen.rect(0.26, 0.42, 0.76, 0.92, radius=0.08)
    pen.poly([(0.26, 0.55), (0.10, 0.40), (0.16, 0.34), (0.30, 0.46)])


def _extinguisher(pen: _Pen) -> None:
    pen.rect(0.32, 0.24, 0.68, 0.95, radius=0.10)
    pen.rect(0.42, 0.10, 0.58, 0.24, fill=(40, 40, 40))
    pen.stroke([(0.42, 0.14), (0.18, 0.22), (0.20, 0.60)], colour=(40, 40, 40), width=3)
    pen.rect(0.36, 0.48, 0.64, 0.70, fill=(250, 250, 246))


def _pump(pen: _Pen) -> None:
    pen.rect(0.30, 0.30, 0.70, 0.95, radius=0.06)
    pen.rect(0.44, 0.14, 0.56, 0.30, fill=pen.line)
    pen.rect(0.44, 0.10, 0.78, 0.16, fill=pen.line, radius=0.02)
    pen.rect(0.34, 0.52, 0.66, 0.78, fill=pen.light, outline=False)


def _hairdryer(pen: _Pen) -> None:
    pen.rect(0.10, 0.18, 0.74, 0.46, radius=0.12)
    pen.rect(0.72, 0.24, 0.90, 0.40, fill=pen.line)
    pen.poly([(0.28, 0.44), (0.46, 0.44), (0.42, 0.92), (0.26, 0.92)])


def _leash(pen: _Pen) -> None:
    pen.ring(0.10, 0.45, 0.50, 0.85, width=5)
    pen.stroke([(0.45, 0.55), (0.70, 0.30), (0.88, 0.12)], colour=pen.fill, width=4)
    pen.ring(0.80, 0.04, 0.96, 0.20, width=3, colour=pen.line)


def _badge(pen: _Pen) -> None:
    points = []
    for i in range(10):
        angle = math.pi / 2 + i * math.pi / 5
        radius = 0.42 if i % 2 == 0 else 0.18
        points.append((0.5 + radius * math.cos(angle), 0.52 - radius * math.sin(angle)))
    pen.poly(points)


def _label(pen: _Pen) -> None:
    pen.oval(0.08, 0.25, 0.48, 0.85)
    pen.oval(0.20, 0.43, 0.36, 0.67, fill=pen.line)
    pen.rect(0.28, 0.25, 0.92, 0.85, outline=False)
    pen.rect(0.50, 0.36, 0.86, 0.56, fill=(250, 250, 246))


def _puzzle(pen: _Pen) -> None:
    _tiles(pen)
    pen.oval(0.28, 0.16, 0.40, 0.26)
    pen.oval(0.56, 0.44, 0.68, 0.54)


def _can(pen: _Pen) -> None:
    pen.rect(0.25, 0.18, 0.75, 0.88, radius=0.04)
    pen.oval(0.25, 0.12, 0.75, 0.24, fill=(200, 205, 210))
    pen.rect(0.25, 0.42, 0.75, 0.66, fill=pen.light)


def _tea(pen: _Pen) -> None:
    pen.poly([(0.25, 0.20), (0.75, 0.20), (0.80, 0.92), (0.20, 0.92)])
    pen.rect(0.22, 0.14, 0.78, 0.22, fill=pen.line)
    pen.oval(0.38, 0.45, 0.62, 0.70, fill=pen.light)


def _bucket(pen: _Pen) -> None:
    pen.poly([(0.15, 0.40), (0.85, 0.40), (0.78, 0.92), (0.22, 0.92)])
    pen.stroke([(0.60, 0.40), (0.66, 0.05)], colour=(170, 175, 180), width=3)
    pen.rect(0.60, 0.02, 0.72, 0.08, fill=pen.line)


SHAPES: dict[str, Callable[[_Pen], None]] = {
    "appliance": _appliance, "backpack": _backpack, "badge": _badge, "bag": _bag,
    "ball": _ball, "battery": _battery, "bicycle": _bicycle, "blender": _blender,
    "blocks": _blocks, "board": _board, "bolt": _bolt, "boot": _boot, "bottle": _bottle,
    "bowl": _bowl, "box": _box, "brake": _brake, "bucket": _bucket, "bulb": _bulb,
    "cabinet": _cabinet, "cable": _cable, "camera": _camera, "can": _can, "car": _car,
    "chair": _chair, "chip": _chip, "circuit": _circuit, "curtain": _curtain,
    "desklamp": _desklamp, "disc": _disc, "dress": _dress, "drill": _drill, "drum": _drum,
    "dumbbell": _dumbbell, "extinguisher": _extinguisher, "fan": _fan, "flask": _flask,
    "flower": _flower, "frame": _frame, "glove": _glove, "hairdryer": _hairdryer,
    "headphones": _headphones, "helmet": _helmet, "inverter": _appliance, "jar": _jar,
    "kettle": _kettle, "keyboard": _keyboard, "knife": _knife, "label": _label,
    "lamp": _lamp, "laptop": _laptop, "leash": _leash, "lipstick": _lipstick, "lock": _lock,
    "machine": _machine, "mask": _mask, "meter": _meter, "mug": _mug, "necklace": _necklace,
    "notebook": _notebook, "pan": _pan, "panel": _panel, "paper": _paper,
    "paperbag": _paperbag, "pen": _pen_shape, "petbed": _petbed, "phone": _phone,
    "pipes": _pipes, "plug": _plug, "produce": _produce, "pump": _pump, "puzzle": _puzzle,
    "radio": _radio, "ring": _ring, "roll": _roll, "router": _router, "sack": _sack,
    "scissors": _scissors, "scooter": _scooter, "screen": _screen, "sheet": _sheet,
    "shock": _shock, "shoe": _shoe, "sock": _sock, "sofa": _sofa, "speaker": _speaker,
    "spool": _spool, "stroller": _stroller, "suitcase": _suitcase, "switch": _switch,
    "table": _table, "tape": _tape, "tea": _tea, "teddy": _teddy, "tent": _tent,
    "tiles": _tiles, "toolbox": _toolbox, "towel": _towel, "trailer": _trailer,
    "tricycle": _tricycle, "trousers": _trousers, "tshirt": _tshirt, "tyre": _tyre,
    "usb": _usb, "vest": _tshirt, "watch": _watch, "wheelchair": _wheelchair,
    "window": _window,
}  # fmt: skip


# --- composition ---------------------------------------------------------------------------


def _fit_text(draw: ImageDraw.ImageDraw, text: str, max_width: int, size: int):
    while size > 12:
        font = _font(size)
        if draw.textlength(text, font=font) <= max_width:
            return font, text
        size -= 2
    font = _font(size)
    while text and draw.textlength(text + "…", font=font) > max_width:
        text = text[:-1]
    return font, text + "…"


def draw_picture(
    *,
    shape: str,
    colour: RGB,
    label: str,
    caption: str,
    style: str,
    swatches: tuple[RGB, ...] = (),
) -> Image.Image:
    """Draw one product picture (SIZE x SIZE, RGB)."""
    accent = _darker(colour, 0.5) if sum(colour) > 600 else _lighter(colour, 0.55)
    if style == "tinted":
        background = _lighter(colour, 0.82) if sum(colour) < 690 else (222, 230, 238)
    else:
        background = (246, 246, 243)
    image = Image.new("RGB", (SIZE, SIZE), background)
    draw = ImageDraw.Draw(image)
    if style == "catalogue":
        band = _darker(colour, 0.2) if sum(colour) < 690 else (60, 72, 90)
        draw.rectangle((0, 0, SIZE, 62), fill=band)
        font, text = _fit_text(draw, label.upper(), SIZE - 40, 26)
        draw.text((20, 31), text, font=font, fill=(255, 255, 255), anchor="lm")
        box: Box = (80, 92, 400, 392)
        for i, swatch in enumerate(swatches[:6]):
            x = 24 + i * 44
            draw.rounded_rectangle(
                (x, 420, x + 32, 452), radius=6, fill=swatch, outline=(120, 120, 120)
            )
        font, text = _fit_text(draw, caption, 180, 18)
        draw.text((SIZE - 24, 436), text, font=font, fill=(90, 90, 90), anchor="rm")
    else:
        box = (90, 56, 390, 356)
        # a soft floor shadow under the object
        draw.ellipse((120, 352, 360, 378), fill=_mix(background, (0, 0, 0), 0.12))
        font, text = _fit_text(draw, label, SIZE - 48, 28)
        if style == "tinted":
            width = draw.textlength(text, font=font)
            left = (SIZE - width) / 2 - 16
            draw.rounded_rectangle((left, 396, SIZE - left, 444), radius=22, fill=(255, 255, 255))
        draw.text((SIZE / 2, 420), text, font=font, fill=(40, 44, 52), anchor="mm")
        font, text = _fit_text(draw, caption, SIZE - 48, 16)
        draw.text((SIZE / 2, 462), text, font=font, fill=(110, 110, 110), anchor="mm")
    SHAPES.get(shape, _box)(_Pen(draw, box, colour, accent))
    return image


def _jpeg(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=82, optimize=False)
    return buffer.getvalue()


def store_picture(
    *,
    key: str,
    shape: str,
    colour: RGB,
    label: str,
    caption: str,
    style: str,
    swatches: tuple[RGB, ...] = (),
) -> StoredPicture:
    """Draw a picture and its thumbnail and store both, unless a file of that key exists."""
    name = f"{STORAGE_PREFIX}/{key}.jpg"
    thumb_name = f"{STORAGE_PREFIX}/thumbs/{key}.jpg"
    if not (default_storage.exists(name) and default_storage.exists(thumb_name)):
        image = draw_picture(
            shape=shape,
            colour=colour,
            label=label,
            caption=caption,
            style=style,
            swatches=swatches,
        )
        thumbnail = image.resize((THUMBNAIL_SIZE, THUMBNAIL_SIZE), Image.Resampling.BILINEAR)
        for path, picture in ((name, image), (thumb_name, thumbnail)):
            if default_storage.exists(path):
                default_storage.delete(path)
            stored = default_storage.save(path, ContentFile(_jpeg(picture)))
            if stored != path:  # pragma: no cover - only with a storage that renames files
                raise RuntimeError(f"storage renamed {path} to {stored}")
    return StoredPicture(image=name, thumbnail=thumb_name, width=SIZE, height=SIZE)
