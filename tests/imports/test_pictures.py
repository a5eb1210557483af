"""Pictures from a ZIP, matched by file name, through the same checks as a photo uploaded on
the product's page; the same ZIP twice adds nothing; a ZIP that is not safe to open (a bomb,
names that climb out of it, too many files, a password) is refused before any row is read."""

from __future__ import annotations

import io
import zipfile

import pytest

from tests.factories.images import bomb_png_header, png_bytes
from tests.factories.imports import csv_bytes, pictures_zip, product_rows, table
from tradepost.catalog.models import Product, ProductImage
from tradepost.imports.errors import ImportJobError
from tradepost.imports.models import ImportedPicture

pytestmark = pytest.mark.django_db


def pictures_of(sku: str) -> list[ProductImage]:
    return list(ProductImage.objects.filter(product__sku=sku).order_by("position", "id"))


def test_pictures_are_matched_by_name_and_added_in_the_rows_order(supplier, media_root):
    rows = product_rows(1, pictures="flask-2.png; Flask-1.PNG")
    job = supplier.run(rows, pictures=pictures_zip())
    assert (job.created_count, job.pictures_added) == (1, 2)
    added = pictures_of("VF-0")
    assert [picture.position for picture in added] == [0, 1]
    names = dict(ImportedPicture.objects.values_list("image_id", "name"))
    assert [names[picture.pk] for picture in added] == ["flask-2.png", "Flask-1.PNG"]
    # Re-encoded with a thumbnail, under random names, as the product page's uploads are.
    assert all(picture.thumbnail.name and "flask" not in picture.image.name for picture in added)


def test_the_same_zip_twice_adds_nothing(supplier):
    rows = product_rows(1, pictures="flask-1.png; flask-2.png")
    supplier.run(rows, pictures=pictures_zip())
    again = supplier.upload_rows(rows, pictures=pictures_zip())
    assert (again.changed_rows, again.unchanged_rows) == (0, 1)
    # ... nor the file without the ZIP: the pictures it names are there already.
    without = supplier.upload_rows(rows)
    assert (without.unchanged_rows, without.rejected_rows) == (1, 0)
    assert len(pictures_of("VF-0")) == 2


def test_a_picture_with_new_content_replaces_the_one_of_its_name(supplier):
    rows = product_rows(1, pictures="flask-1.png; flask-2.png")
    supplier.run(rows, pictures=pictures_zip())
    old = {picture.pk for picture in pictures_of("VF-0")}
    changed = pictures_zip(
        {
            "flask-1.png": png_bytes(colour=(10, 200, 10)),
            "flask-2.png": png_bytes(colour=(0, 90, 200)),
        }
    )
    job = supplier.run(rows, pictures=changed)
    assert (job.updated_count, job.pictures_added) == (1, 1)
    now = pictures_of("VF-0")
    assert len(now) == 2 and len({picture.pk for picture in now} - old) == 1


def test_a_missing_or_bad_picture_rejects_its_row(supplier, errors_of):
    rows = product_rows(3)
    rows[0]["pictures"] = "flask-1.png"
    rows[1]["pictures"] = "nowhere.png"
    rows[2]["pictures"] = "broken.png"
    zipped = pictures_zip({"flask-1.png": png_bytes(), "broken.png": b"not a picture at all"})
    job = supplier.upload_rows(rows, pictures=zipped)
    reasons = errors_of(job)
    assert reasons[3] == [("Pictures", "nowhere.png is not in the ZIP file of pictures.")]
    assert reasons[4] == [("Pictures", "broken.png: The file is not a valid image.")]
    assert job.new_rows == 1


def test_a_picture_with_too_many_pixels_is_refused_as_on_the_product_page(supplier, errors_of):
    zipped = pictures_zip({"bomb.png": bomb_png_header(30_000, 30_000)})
    job = supplier.upload_rows(product_rows(1, pictures="bomb.png"), pictures=zipped)
    ((column, message),) = errors_of(job)[2]
    assert column == "Pictures" and "pixels" in message


def test_more_pictures_than_a_product_holds_are_refused(supplier, errors_of, settings):
    settings.TRADEPOST_PRODUCT_MAX_IMAGES = 1
    job = supplier.upload_rows(
        product_rows(1, pictures="flask-1.png; flask-2.png"), pictures=pictures_zip()
    )
    assert errors_of(job)[2] == [("Pictures", "A product has at most 1 image.")]


def _zip_with(entries: dict[str, bytes], **options) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("entries", "says"),
    [
        ({"../../etc/passwd.png": png_bytes()}, "not safe to open"),
        ({"/abs/flask.png": png_bytes()}, "not safe to open"),
        ({"a/flask.png": png_bytes(), "b/FLASK.png": png_bytes()}, "two files named"),
    ],
)
def test_a_zip_that_is_not_safe_is_refused_before_anything(supplier, entries, says):
    data = csv_bytes(table(product_rows(1, pictures="flask.png")))
    with pytest.raises(ImportJobError) as refused:
        supplier.upload(data, pictures=_zip_with(entries))
    assert says in refused.value.message_dict["pictures"][0]
    assert not supplier.company.imports.exists()


def test_a_zip_bomb_is_refused_by_what_it_says_it_unpacks_to(supplier, settings):
    settings.TRADEPOST_IMPORT_MAX_UNPACKED_BYTES = 1024 * 1024
    bomb = _zip_with({"huge.png": b"\0" * (5 * 1024 * 1024)})
    assert len(bomb) < 20_000
    with pytest.raises(ImportJobError) as refused:
        supplier.upload(csv_bytes(table(product_rows(1))), pictures=bomb)
    assert "unpacks to more than 1 MB" in refused.value.message_dict["pictures"][0]


def test_a_picture_is_never_unpacked_beyond_the_picture_limit(supplier, settings, errors_of):
    settings.TRADEPOST_IMAGE_MAX_BYTES = 64 * 1024
    zipped = _zip_with({"big.png": png_bytes() + b"\0" * (10 * 1024 * 1024)})
    job = supplier.upload_rows(product_rows(1, pictures="big.png"), pictures=zipped)
    ((_column, message),) = errors_of(job)[2]
    assert "too large" in message


def test_too_many_files_and_a_password_are_refused(supplier, settings):
    settings.TRADEPOST_IMPORT_PICTURES_MAX_FILES = 2
    data = csv_bytes(table(product_rows(1)))
    crowded = _zip_with({f"{n}.png": png_bytes() for n in range(3)})
    with pytest.raises(ImportJobError) as refused:
        supplier.upload(data, pictures=crowded)
    assert "at most 2" in refused.value.message_dict["pictures"][0]
    encrypted = bytearray(_zip_with({"a.png": png_bytes()}))
    # Set the "encrypted" flag of the entry (local header and central directory).
    for marker in (b"PK\x03\x04", b"PK\x01\x02"):
        at = encrypted.find(marker)
        flag_at = at + (6 if marker == b"PK\x03\x04" else 8)
        encrypted[flag_at] |= 0x01
    with pytest.raises(ImportJobError) as refused:
        supplier.upload(data, pictures=bytes(encrypted))
    assert "password" in refused.value.message_dict["pictures"][0]


def test_a_file_that_is_no_zip_is_refused(supplier):
    with pytest.raises(ImportJobError) as refused:
        supplier.upload(csv_bytes(table(product_rows(1))), pictures=b"PK\x03\x04 not really")
    assert "not a valid ZIP" in refused.value.message_dict["pictures"][0]
    assert Product.objects.count() == 0
