"""core.private_files.check_upload_size: the one size check of every upload (catalogue files,
picture archives, verification documents, message attachments)."""

from __future__ import annotations

import io

import pytest

from tradepost.core.cleaning import FieldInvalid
from tradepost.core.private_files import check_upload_size, megabytes, upload_size


class _Declared(io.BytesIO):
    def __init__(self, content: bytes, size: int) -> None:
        super().__init__(content)
        self.size = size


def test_the_size_is_measured_when_the_upload_declares_none_and_it_is_rewound():
    upload = io.BytesIO(b"x" * 1500)
    upload.seek(700)
    assert upload_size(upload) == 1500
    assert upload.tell() == 0


def test_an_empty_upload_is_refused_by_name():
    with pytest.raises(FieldInvalid) as refused:
        check_upload_size(io.BytesIO(b""), name="prices.csv", limit=10)
    assert refused.value.messages == ["prices.csv is empty."]


def test_a_large_upload_is_refused_with_the_limit_in_megabytes():
    upload = _Declared(b"x", size=3 * 1024 * 1024 + 1)
    with pytest.raises(FieldInvalid) as refused:
        check_upload_size(upload, name="scan.pdf", limit=3 * 1024 * 1024)
    assert refused.value.messages == ["scan.pdf is larger than 3 MB."]
    with pytest.raises(FieldInvalid) as refused:
        check_upload_size(upload, name="all.csv", limit=3 * 1024 * 1024, splittable=True)
    assert refused.value.messages == ["all.csv is larger than 3 MB; split it into smaller files."]


def test_an_upload_at_the_limit_passes_and_its_size_is_answered():
    assert check_upload_size(io.BytesIO(b"x" * 10), name="a", limit=10) == 10


def test_a_limit_under_one_megabyte_is_stated_as_one():
    assert megabytes(1000) == 1
    assert megabytes(50 * 1024 * 1024) == 50
