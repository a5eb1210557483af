"""Product pictures are drawn, not downloaded: every shape draws, files are stored once."""

from __future__ import annotations

from django.core.files.storage import default_storage
from PIL import Image

from tradepost.demo.images import SHAPES, SIZE, STYLES, draw_picture, store_picture


def test_every_shape_draws_a_picture_in_every_style():
    for number, shape in enumerate(sorted(SHAPES)):
        style = STYLES[number % len(STYLES)]
        image = draw_picture(
            shape=shape,
            colour=(200, 40, 40),
            label="Stainless Steel Vacuum Flask",
            caption="Red",
            style=style,
            swatches=((200, 40, 40), (20, 20, 20)),
        )
        assert image.size == (SIZE, SIZE)
        # the object's area is not left as plain background
        background = image.getpixel((4, SIZE // 2))
        area = image.crop((80, 56, 400, 392))
        drawn = sum(count for count, colour in area.getcolors(SIZE * SIZE) if colour != background)
        assert drawn > 3000, shape


RED_FLASK = {
    "key": "vacuum-flask-red",
    "shape": "flask",
    "colour": (200, 40, 40),
    "label": "Vacuum Flask",
    "caption": "Red",
    "style": "studio",
}


def test_a_picture_is_stored_once_with_its_thumbnail():
    first = store_picture(**RED_FLASK)
    assert (first.width, first.height) == (SIZE, SIZE)
    assert default_storage.exists(first.image) and default_storage.exists(first.thumbnail)
    with default_storage.open(first.image) as handle:
        assert Image.open(handle).format == "JPEG"
    with default_storage.open(first.thumbnail) as handle:
        assert Image.open(handle).size[0] < SIZE
    modified = default_storage.get_modified_time(first.image)
    again = store_picture(**RED_FLASK)  # the same picture asked for again
    assert again == first
    assert default_storage.get_modified_time(first.image) == modified
