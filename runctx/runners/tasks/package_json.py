"""``package.json`` scripts: what ``npm run NAME`` (and yarn, pnpm, bun) runs.

npm runs ``preNAME`` and ``postNAME`` around ``NAME``; all three are read
(other tools skip them, which only makes the answer err toward a run).
"""

from __future__ import annotations

import os

from runctx.fastpath.scripts import script_texts, scripts_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.tasks.files import ProjectFiles
    from runctx.runners.walk import TaskCall

__all__ = ["PACKAGE_JSON", "scripts_of", "texts"]

PACKAGE_JSON = "package.json"


def texts(call: TaskCall, directory: str, files: ProjectFiles) -> list[str] | None:
    """The commands of the scripts ``call`` names, in the package.json of ``directory``."""
    scripts = files.parsed(os.path.join(directory, call.file or PACKAGE_JSON), scripts_of)
    return script_texts(scripts, call.names) if isinstance(scripts, dict) else None
