"""The public API of runctx: each name once, as ``runctx`` itself gives it.

``import runctx`` loads nothing; the first public name asked of it loads this
module. Everything else is importable from its own module, but is not part of
the contract. Each import is written ``name as name``, the explicit re-export
that type checkers read (PEP 484).
"""

# ruff: noqa: PLC0414 - ``x as x`` is the explicit re-export

from runctx.exceptions import ConfigError as ConfigError
from runctx.exceptions import RunctxError as RunctxError
from runctx.identity import Judgement as Judgement
from runctx.identity import Verdict as Verdict
from runctx.identity import foreign_reasons as foreign_reasons
from runctx.identity import is_foreign as is_foreign
from runctx.identity import judge as judge
from runctx.policy import Action as Action
from runctx.policy import Decision as Decision
from runctx.policy import decision_for as decision_for
from runctx.present.escape import visible as visible
from runctx.present.json import report_json as report_json
from runctx.report import JudgedRun as JudgedRun
from runctx.report import Report as Report
from runctx.report import Run as Run
from runctx.report import Viewpoint as Viewpoint
from runctx.roots import checkout_root as checkout_root
from runctx.scanning import scan as scan
from runctx.scanning import viewpoint as viewpoint
from runctx.settings import Settings as Settings
from runctx.settings import settings_for as settings_for
from runctx.stopping import stop_orphans as stop_orphans
from runctx.stopping import stop_runs as stop_runs
from runctx.unknown import Reason as Reason
from runctx.unknown import Unknown as Unknown
from runctx.waiting import WaitOutcome as WaitOutcome
from runctx.waiting import wait_for_turn as wait_for_turn
