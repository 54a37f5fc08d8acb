"""Fastfiles (``runners/tasks/fastfile.py``): what ``fastlane [PLATFORM] LANE`` runs."""

from __future__ import annotations

import pytest
from tasktools import runs, write

from runctx.runners.tasks.fastfile import parse

FASTFILE = """\
    default_platform(:ios)

    platform :ios do
      desc "What CI runs"
      lane :ci do |options|
        build_app(scheme: "App")
        unit
      end

      private_lane :unit do
        run_tests(scheme: "App", devices: ["iPhone 15"])
      end

      lane :beta do
        sh "bundle exec pod install"
        gradle(task: "assembleRelease")
      end
    end

    platform :android do
      lane :verify do
        gradle(task: "testDebugUnitTest")
      end

      lane :release do
        gradle(task: "bundleRelease")
      end
    end

    lane :specs do
      Dir.chdir("..") do
        sh("bundle", "exec", "rake", "all_specs")
      end
    end

    lane :docs do
      sh(command: "bundle exec yard doc")
    end
"""
RAKEFILE = """\
    RSpec::Core::RakeTask.new(:all_specs)
"""


@pytest.fixture
def app(tmp_path):
    """A checkout whose ``fastlane/Fastfile`` has lanes on two platforms and outside them."""
    write(tmp_path / "fastlane" / "Fastfile", FASTFILE)
    write(tmp_path / "Rakefile", RAKEFILE)
    return tmp_path


@pytest.mark.parametrize(
    "command",
    [
        "fastlane ios ci",  # a private lane it calls runs the tests
        "bundle exec fastlane ci",  # the default platform's lane
        "fastlane ci device:iPhone",  # the lane's options are no lanes
        "fastlane android verify",  # gradle's test task
        "fastlane specs",  # sh, with the words as separate strings, through the Rakefile
    ],
)
def test_a_lane_that_runs_tests_is_a_run(app, command):
    """The lane's actions, ``sh`` lines and the lanes it calls decide."""
    assert runs(command, app) != []


@pytest.mark.parametrize(
    "command",
    [
        "fastlane ios beta",
        "fastlane android release",
        "fastlane docs",
        "fastlane android ci",  # no such lane on that platform
        "fastlane lanes",
        "fastlane",
    ],
)
def test_a_lane_that_runs_none_is_no_run(app, command):
    """Builds, releases, docs, a lane the platform lacks, and fastlane's own commands."""
    assert runs(command, app) == []


def test_without_a_fastfile_a_lane_is_judged_by_its_name(tmp_path):
    """No Fastfile: ``fastlane test`` is a run by its name, ``fastlane ci`` is not known."""
    assert runs("fastlane test", tmp_path) != []
    assert runs("fastlane ci", tmp_path) == []


def test_the_lanes_read_from_a_fastfile():
    """Each lane by platform, what it runs and the words it calls; the default platform."""
    lanes, default = parse(
        b'default_platform(:android)\nlane :a do\n  sh("make", "x")\n  b\nend\n'
        b"platform :mac do\n  lane :b do\n    scan\n  end\nend\n"
    )
    assert default == "android"
    assert lanes == {"\0a": (["b"], ["make x"]), "mac\0b": ([], ["fastlane scan"])}
