"""The report as OpenMetrics, read back by Prometheus's own parsers on real runs.

``prometheus_client.openmetrics.parser`` is the official OpenMetrics parser;
``prometheus_client.parser`` reads the Prometheus text format that
node_exporter's textfile collector reads. Both must accept every text runctx
writes, and what they read must be the runs this test started.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import attrs
import psutil
import pytest
from hooktools import hook_env
from proctools import make_checkout
from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics
from prometheus_client.parser import text_string_to_metric_families as prometheus_text

from runctx.present.openmetrics import VERDICTS, RootLabel, report_metrics, root_hash
from runctx.scanning import scan, viewpoint
from runctx.sources.load import Load
from runctx.unknown import Reason, Unknown

RUNCTX = [sys.executable, "-m", "runctx"]
DOCS = Path(__file__).resolve().parents[1] / "docs"


def samples(text: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    """Every sample by family name, read by the OpenMetrics parser (and the text parser too)."""
    families = {family.name: family for family in openmetrics(text)}
    assert {family.name for family in prometheus_text(text)} == set(families)
    return {
        name: [(sample.labels, sample.value) for sample in family.samples]
        for name, family in families.items()
    }


def value(found: dict, name: str, **labels: str) -> float:
    """The one sample of ``name`` whose labels include ``labels``."""
    (match,) = [v for sample, v in found[name] if labels.items() <= sample.items()]
    return match


def test_real_runs_are_counted_by_kind_verdict_and_root(ours_and_foreign):
    """Each started run is one sample of runctx_runs under its kind, verdict and root hash."""
    mine, theirs, ours, foreign = (
        ours_and_foreign.mine,
        ours_and_foreign.theirs,
        ours_and_foreign.ours,
        ours_and_foreign.foreign,
    )
    report = scan(viewpoint(cwd=str(mine)))
    found = samples(report_metrics(report))
    for run, root, verdict in ((ours, mine, "ours"), (foreign, theirs, "foreign")):
        labels = {"kind": "run-tests-script", "verdict": verdict, "root": root_hash(str(root))}
        assert value(found, "runctx_runs", **labels) == 1
        members = 1 + len(psutil.Process(run.pid).children(recursive=True))
        assert value(found, "runctx_run_processes", **labels) == members
    assert value(found, "runctx_verdict_runs", verdict="ours") >= 1
    assert value(found, "runctx_verdict_runs", verdict="foreign") >= 1
    viewpoint_labels = {"uid": str(os.getuid()), "root": root_hash(str(mine))}
    assert value(found, "runctx_viewpoint_info", **viewpoint_labels) == 1


def test_cpu_use_now_and_memory_are_the_scans_own(ours_and_foreign):
    """With the scan's CPU window, each run's CPUs busy now and the box's memory are there."""
    scene = ours_and_foreign
    mine, theirs, foreign = scene.mine, scene.theirs, scene.foreign
    report = scan(viewpoint(cwd=str(mine)), cpu_window=0.1)
    found = samples(report_metrics(report))
    judged = next(j for j in report.runs if j.run.pid == foreign.pid)
    assert not isinstance(judged.run.cpu_now, Unknown)
    labels = {"verdict": "foreign", "root": root_hash(str(theirs))}
    assert value(found, "runctx_run_cpus_busy", **labels) == pytest.approx(judged.run.cpu_now)
    memory = report.load.memory
    assert not isinstance(memory, Unknown)
    assert value(found, "runctx_memory_total_bytes") == memory.total_bytes
    assert value(found, "runctx_memory_available_bytes") == memory.available_bytes
    assert value(found, "runctx_box_busy") in (0, 1)


def test_roots_are_hashes_unless_paths_are_asked_for(ours_and_foreign):
    """By default no path leaves the machine; --root-label path shows it, none drops it."""
    mine, theirs = ours_and_foreign.mine, ours_and_foreign.theirs
    report = scan(viewpoint(cwd=str(mine)))
    hashed = report_metrics(report)
    assert str(theirs) not in hashed
    assert str(mine) not in hashed
    by_path = samples(report_metrics(report, root_label=RootLabel.PATH))
    assert value(by_path, "runctx_runs", verdict="foreign", root=str(theirs)) == 1
    unlabelled = samples(report_metrics(report, root_label=RootLabel.NONE))
    assert all("root" not in labels for labels, _ in unlabelled["runctx_runs"])
    assert all("root" not in labels for labels, _ in unlabelled["runctx_viewpoint_info"])


def test_every_verdict_is_always_present(shared_tmp):
    """runctx_verdict_runs has a sample for each verdict, 0 when no run has it: no gaps."""
    quiet = make_checkout(shared_tmp, "quiet")
    found = samples(report_metrics(scan(viewpoint(cwd=str(quiet)))))
    assert {labels["verdict"] for labels, _ in found["runctx_verdict_runs"]} == set(VERDICTS)


def test_the_box_and_what_could_not_be_seen_are_there(shared_tmp):
    """Load, pressure, processes listed and the proc mount are read back as this scan has them."""
    quiet = make_checkout(shared_tmp, "quiet")
    report = scan(viewpoint(cwd=str(quiet)))
    found = samples(report_metrics(report))
    load = report.load
    assert not isinstance(load.usable_cpus, Unknown)
    assert value(found, "runctx_usable_cpus") == load.usable_cpus
    assert not isinstance(load.load_average, Unknown)
    assert value(found, "runctx_load_average", window="1m") == pytest.approx(load.load_average[0])
    if not isinstance(load.cpu_pressure, Unknown):
        expected = load.cpu_pressure.avg10 / 100
        assert value(found, "runctx_cpu_pressure_ratio", window="10s") == pytest.approx(expected)
    seen = report.visibility
    assert value(found, "runctx_processes_listed") == seen.processes_listed
    assert value(found, "runctx_visibility_notes") == len(seen.notes)
    assert value(found, "runctx_proc_info", source=seen.source, hidepid=seen.hidepid) == 1


def test_an_unknown_fact_is_named_never_a_silent_zero(shared_tmp):
    """A box whose load could not be read has no load sample, and runctx_unknown says why."""
    quiet = make_checkout(shared_tmp, "quiet")
    report = scan(viewpoint(cwd=str(quiet)))
    hidden = Unknown(Reason.DENIED, "subset=pid")
    blind = attrs.evolve(
        report,
        load=Load(usable_cpus=2, load_average=hidden, cpu_pressure=hidden, memory=hidden),
    )
    found = samples(report_metrics(blind))
    assert found["runctx_load_average"] == []
    assert found["runctx_cpu_pressure_ratio"] == []
    assert value(found, "runctx_unknown", fact="load_average") == 1
    assert value(found, "runctx_unknown", fact="cpu_pressure", reason="denied") == 1
    assert value(found, "runctx_unknown", fact="memory", reason="denied") == 1
    assert found["runctx_memory_available_bytes"] == []


def test_the_command_writes_the_file_atomically_for_the_textfile_collector(ours_and_foreign):
    """--output replaces the .prom file in one rename: no temporary file is ever left beside it."""
    mine = ours_and_foreign.mine
    directory = mine / "textfile"
    directory.mkdir()
    target = directory / "runctx.prom"
    target.write_text("old\n")
    before = target.stat().st_ino
    command = [*RUNCTX, "status", "--format", "openmetrics", "--output", str(target)]
    done = subprocess.run(
        command, cwd=mine, capture_output=True, text=True, env=hook_env(), check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert target.stat().st_ino != before
    assert sorted(p.name for p in directory.iterdir()) == ["runctx.prom"]
    assert target.stat().st_mode & 0o044 == 0o044  # readable by the collector's user
    found = samples(target.read_text())
    assert value(found, "runctx_runs", verdict="ours", root=root_hash(str(mine))) == 1


def test_an_output_that_cannot_be_written_is_one_line_and_leaves_nothing(tmp_path):
    """A directory that is not there: exit 1, one line on stderr, nothing written."""
    target = tmp_path / "missing" / "runctx.prom"
    command = [*RUNCTX, "status", "--format", "openmetrics", "--output", str(target)]
    done = subprocess.run(command, capture_output=True, text=True, env=hook_env(), check=False)
    assert done.returncode == 1
    assert done.stderr.startswith(f"runctx: error: cannot write {target}")
    assert len(done.stderr.splitlines()) == 1
    assert not (tmp_path / "missing").exists()


def test_json_and_format_json_are_one_format_and_disagreeing_is_an_error(shared_tmp):
    """--format json equals --json; --json with --format openmetrics is a usage error (2)."""
    quiet = make_checkout(shared_tmp, "quiet")
    both = [*RUNCTX, "status", "--json", "--format", "openmetrics"]
    done = subprocess.run(
        both, cwd=quiet, capture_output=True, text=True, env=hook_env(), check=False
    )
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"]["message"].endswith("give one")
    as_format = [*RUNCTX, "status", "--format", "json"]
    done = subprocess.run(
        as_format, cwd=quiet, capture_output=True, text=True, env=hook_env(), check=False
    )
    assert json.loads(done.stdout)["here"]["root"] == str(quiet)


def test_the_example_dashboard_queries_only_metrics_runctx_writes(shared_tmp):
    """Every runctx_ metric the Grafana dashboard in docs/ graphs is one runctx writes."""
    quiet = make_checkout(shared_tmp, "quiet")
    written = set(samples(report_metrics(scan(viewpoint(cwd=str(quiet))))))
    dashboard = json.loads((DOCS / "grafana-dashboard.json").read_text())
    expressions = [
        target["expr"]
        for panel in dashboard["panels"]
        for target in panel.get("targets", [])
        if "expr" in target
    ]
    assert expressions
    used = {name for expr in expressions for name in re.findall(r"\brunctx_[a-z_]+", expr)}
    assert used
    assert used <= written, used - written


def test_the_documented_timer_and_cron_line_write_the_collectors_file():
    """docs/metrics.md gives a systemd service, a timer and a cron line that run this command."""
    text = (DOCS / "metrics.md").read_text()
    for needle in (
        "[Timer]",
        "OnUnitActiveSec=",
        "[Service]",
        "ExecStart=",
        "runctx status --format openmetrics --output",
        "* * * * *",
    ):
        assert needle in text
    assert os.path.basename("runctx.prom") in text
