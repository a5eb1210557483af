"""The signature-checking code of docs/webhooks.md, as a receiver would copy it: the Python
function is run in the tests' receiver, the Node.js one by `node` (when installed)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Callable
from functools import cache
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"

Verifier = Callable[[str, str, bytes], bool]


def code_block(language: str) -> str:
    """The one fenced block of `language` in docs/webhooks.md."""
    blocks = re.findall(rf"```{language}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1, f"docs/webhooks.md should hold one {language} block"
    return blocks[0]


@cache
def python_verifier() -> Verifier:
    namespace: dict[str, object] = {}
    exec(compile(code_block("python"), str(DOC), "exec"), namespace)
    return namespace["verify_tradepost_signature"]  # type: ignore[return-value]


NODE_DRIVER = """
const { verifyTradepostSignature } = require(process.argv[2]);
const input = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
const results = input.map((c) =>
  verifyTradepostSignature(c.secret, c.header, Buffer.from(c.body, "base64")));
process.stdout.write(JSON.stringify(results));
"""


def node() -> str | None:
    return shutil.which("node")


def node_verify(folder: Path, cases: list[dict[str, str]]) -> list[bool]:
    """Run the documented Node.js function on each case ({secret, header, body (base64)})."""
    module = folder / "verify.js"
    module.write_text(code_block("javascript"), encoding="utf-8")
    driver = folder / "driver.js"
    driver.write_text(NODE_DRIVER, encoding="utf-8")
    node_path = node()
    assert node_path is not None
    done = subprocess.run(
        [node_path, str(driver), str(module)],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)
