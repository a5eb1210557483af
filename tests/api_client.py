"""A test client for the JSON API that sends one user's bearer token (or none)."""

from __future__ import annotations

import json
from typing import Any

from django.test import Client

from tradepost.accounts.tokens import token_create


class ApiClient:
    """Requests to `base + path` with a fresh token of `user` (none when the user is None or
    anonymous); bodies are sent as JSON, uploads as multipart."""

    def __init__(self, user: Any = None, *, base: str = "") -> None:
        self.client = Client()
        self.base = base
        self.headers: dict[str, str] = {}
        if user is not None and user.is_authenticated:
            _token, secret = token_create(user=user, name="tests")
            self.headers = {"Authorization": f"Bearer {secret}"}

    def get(self, path: str, **params: Any):
        return self.client.get(self.base + path, params, headers=self.headers)

    def post(self, path: str, body: Any = None):
        return self._send("post", path, body or {})

    def patch(self, path: str, body: Any):
        return self._send("patch", path, body)

    def put(self, path: str, body: Any):
        return self._send("put", path, body)

    def delete(self, path: str):
        return self.client.delete(self.base + path, headers=self.headers)

    def upload(self, path: str, upload: Any, *, field: str = "image"):
        return self.client.post(self.base + path, {field: upload}, headers=self.headers)

    def _send(self, method: str, path: str, body: Any):
        send = getattr(self.client, method)
        return send(
            self.base + path,
            json.dumps(body),
            content_type="application/json",
            headers=self.headers,
        )
