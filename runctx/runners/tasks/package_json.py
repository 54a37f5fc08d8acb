"""``package.json`` scripts: what ``npm run NAME`` (and yarn, pnpm, bun) runs.

npm runs ``preNAME`` and ``postNAME`` around ``NAME``; all three are read
(other tools skip them, which only makes the answer err toward a run).
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

PACKAGE_JSON = "package.json"


def scripts_of(data: bytes) -> dict[str, str]:
    """The ``scripts`` of a package.json text whose names and commands are strings."""
    document = json.loads(data)
    scripts = document.get("scripts") if isinstance(document, dict) else None
    if not isinstance(scripts, dict):
        return {}
    return {k: v for k, v in scripts.items() if isinstance(k, str) and isinstance(v, str)}


def texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """The commands of the scripts ``call`` names, in the package.json of ``directory``."""
    scripts = files.parsed(os.path.join(directory, call.file or PACKAGE_JSON), scripts_of)
    if not isinstance(scripts, dict) or not all(name in scripts for name in call.names):
        return None
    found = []
    for name in call.names:
        for key in (f"pre{name}", name, f"post{name}"):
            text = scripts.get(key)
            if isinstance(text, str):
                found.append(text)
    return found
