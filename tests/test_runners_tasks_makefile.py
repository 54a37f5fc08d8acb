"""Makefiles (``runners/tasks/makefile.py``): what ``make NAME`` runs, read from the recipe."""

from __future__ import annotations

from tasktools import maybe_runs, runs, write

from runctx.runners.tasks import makefile
from runctx.runners.tasks.files import MAX_TASKS


class TestMakefiles:
    """make targets through their recipes."""

    MAKEFILE = """\
        PYTEST ?= python -m pytest
        ARGS := -x

        .PHONY: all ci lint unit build

        all: build

        ci: lint unit

        lint:
        \truff check .

        unit:
        \t@$(PYTEST) $(ARGS) tests

        build: ; cc -o app main.c

        nested:
        \t$(MAKE) -C sub inner
        """

    def test_a_target_whose_prerequisite_runs_a_runner_is_a_run(self, tmp_path):
        """``make ci`` depends on ``unit``, whose recipe runs pytest through a variable."""
        write(tmp_path / "Makefile", self.MAKEFILE)
        assert runs("make ci", tmp_path) == [("make-target", str(tmp_path))]
        assert runs("make unit", tmp_path) == [("make-target", str(tmp_path))]

    def test_targets_that_run_no_runner_are_no_runs(self, tmp_path):
        """``make lint``, ``make build`` and ``make`` (its first target, ``all``) run no tests."""
        write(tmp_path / "Makefile", self.MAKEFILE)
        for command in ("make lint", "make build", "make", "make -n ci", "make V=1 lint"):
            assert runs(command, tmp_path) == [], command

    def test_recursive_make_is_followed_into_its_directory(self, tmp_path):
        """``$(MAKE) -C sub inner`` reads sub/Makefile, where ``inner`` runs go test."""
        write(tmp_path / "Makefile", self.MAKEFILE)
        write(tmp_path / "sub" / "Makefile", "inner:\n\tgo test ./...\n")
        assert runs("make nested", tmp_path) == [("make-target", str(tmp_path))]

    def test_the_directory_option_says_which_makefile(self, tmp_path):
        """``make -C proj ci`` reads proj/Makefile and runs in proj."""
        write(tmp_path / "proj" / "Makefile", self.MAKEFILE)
        assert runs("make -C proj ci", tmp_path) == [("make-target", str(tmp_path / "proj"))]
        assert runs("make -f proj/Makefile ci", tmp_path) == [("make-target", str(tmp_path))]

    def test_the_first_target_is_the_default(self, tmp_path):
        """``make`` alone runs the first target."""
        write(tmp_path / "Makefile", "check-all: unit\nunit:\n\tcargo test\n")
        assert runs("make", tmp_path) == [("make-target", str(tmp_path))]


def test_a_rule_of_many_targets_and_prerequisites_keeps_each_list_bounded(tmp_path):
    """Each target keeps at most MAX_TASKS distinct prerequisites: a long line costs its length."""
    line = "t0 t1 t2 " + "t " * 5_000 + ": " + "a " * 5_000 + "test\n"
    made = makefile.parse(line.encode())
    assert all(len(first) <= MAX_TASKS for first, _lines in made.rules.values())
    assert made.rules["t0"][0] == ["a", "test"]
    write(tmp_path / "Makefile", line + "a:\n\ttrue\ntest:\n\tpytest\n")
    assert runs("make t0", tmp_path) == [("make-target", str(tmp_path))]


def test_variables_that_double_expand_within_a_bound(tmp_path):
    """Nested variables cannot make a recipe line longer than the shell parser reads."""
    doubling = "".join(f"V{n + 1} := $(V{n})$(V{n})\n" for n in range(7))
    text = f"V0 := {'x' * 10_000}\n{doubling}all:\n\tpytest $(V7)\n"
    made = makefile.parse(text.encode())
    line = made.rules["all"][1][0]
    expanded = makefile.expand(makefile.recipe_line(line), made.variables)
    assert expanded.startswith("pytest xxx")
    assert len(expanded) == makefile.MAX_EXPANDED_CHARS
    write(tmp_path / "Makefile", text)
    assert runs("make all", tmp_path) == [("make-target", str(tmp_path))]


def test_an_escaped_dollar_starts_no_reference():
    """``$$`` is make's ``$``: ``$$(V)`` reaches the shell as ``$(V)``, not as V's value."""
    variables = {"V": "pytest", "W": "$(V)"}
    assert makefile.expand("echo $$(V) $(V) ${W}", variables) == "echo $(V) pytest pytest"


def test_targets_of_an_included_file_are_read(tmp_path):
    """``include mk/tests.mk`` brings its targets; ``$(GOTEST)`` and sub-makes are expanded."""
    write(
        tmp_path / "Makefile",
        """\
        GOTEST ?= go test
        include mk/tests.mk
        -include $(CONFIG)/local.mk
        unit:
        \t$(GOTEST) ./...
        ci:
        \t$(MAKE) -C sub lint
        lint:
        \tgolangci-lint run
        """,
    )
    write(tmp_path / "mk" / "tests.mk", "integ:\n\tpytest tests/integration\nlint:\n\tpytest\n")
    write(tmp_path / "sub" / "Makefile", "lint:\n\truff check .\n")
    assert runs("make integ", tmp_path) == [("make-target", str(tmp_path))]
    assert runs("make unit", tmp_path) == [("make-target", str(tmp_path))]
    assert runs("make lint", tmp_path) == []  # the makefile's own rule wins
    assert runs("make ci", tmp_path) == []


def test_a_pattern_rule_makes_a_target_no_rule_names(tmp_path):
    """``ct-%`` (as erlang.mk writes it, in an included file) makes ``ct-http``; ``$*`` is the stem.

    A rule of the target's own wins over the pattern, and a pattern's recipe
    that runs no runner is no run.
    """
    write(
        tmp_path / "Makefile",
        """\
        include rules.mk
        ct-lint:
        \telvis rock
        """,
    )
    write(
        tmp_path / "rules.mk",
        """\
        CT_RUN = ct_run -noinput
        ct-%: app
        \t$(CT_RUN) -dir test -suite $*_SUITE
        docs-%:
        \tasciidoctor -o $@.html doc/$*.adoc
        app:
        \terlc -o ebin src/*.erl
        """,
    )
    assert runs("make ct-http", tmp_path) == [("make-target", str(tmp_path))]
    assert runs("make ct-lint", tmp_path) == []
    assert runs("make docs-guide", tmp_path) == []
    assert makefile.parse(b"%.o: %.c\n\tcc -c $<\nall: a.o\n").default == "all"


def test_a_quiet_prefix_held_in_a_variable_is_taken_off(tmp_path):
    """``$(Q) cd lib && ../bin/elixir ...`` with ``Q := @`` runs what follows the ``@``."""
    write(
        tmp_path / "Makefile",
        """\
        Q := @
        test_unit: compile
        \t$(Q) cd lib && ../bin/elixir -r test/test_helper.exs -pr "test/**/*_test.exs"
        compile:
        \t$(Q) bin/elixirc lib -o ebin
        """,
    )
    assert runs("make test_unit", tmp_path) == [("make-target", str(tmp_path))]
    assert runs("make compile", tmp_path) == []


def test_a_canned_recipe_and_a_called_one_are_their_text(tmp_path):
    """A ``define`` block is a variable of several lines: ``$(name)`` and ``$(call name,…)``.

    ``$(call RUN,pytest,tests)`` is the block with ``$(1)`` and ``$(2)`` the
    arguments; a block's own shell ``$$`` stays the shell's.
    """
    write(
        tmp_path / "Makefile",
        """\
        SHARDS ?= 4
        define in_shards
        \t@for i in $$(seq 1 $(SHARDS)); do \\
        \t  SHARD=$$i ./$(1) > $(1)_$$i.log & \\
        \tdone; wait
        endef
        define RUN =
        $(1) -q $(2)
        @echo ran $(1)
        endef
        define checks
        ruff check .
        mypy src
        endef
        suite: build
        \t$(call in_shards,suite_test)
        build:
        \t$(CC) -o suite_test test.c
        unit:
        \t$(call RUN,pytest,tests/unit)
        fmt:
        \t$(call RUN,black,src)
        lint:
        \t$(checks)
        """,
    )
    assert runs("make suite", tmp_path) == [("make-target", str(tmp_path))]
    assert runs("make unit", tmp_path) == [("make-target", str(tmp_path))]
    assert runs("make build", tmp_path) == []
    assert runs("make fmt", tmp_path) == []
    assert runs("make lint", tmp_path) == []


def test_words_made_of_variables_leave_the_written_targets_read(tmp_path):
    """``make integration ${extraflags}``: ``integration`` is read.

    The variable may set a variable or add a target. A command naming targets
    by variables only is not known.
    """
    write(tmp_path / "Makefile", "GOTEST ?= go test\nintegration:\n\t$(GOTEST) ./integration\n")
    assert runs("make integration ${extraflags} RACE=-race", tmp_path) == [
        ("make-target", str(tmp_path))
    ]
    write(tmp_path / "Makefile", "build:\n\tgo build ./...\n")
    assert runs("make build $EXTRA", tmp_path) == []


class TestCommandLineVariables:
    """``make VAR=value NAME``: the command line's variables over the file's, as make does."""

    MAKEFILE = """\
        ACTION = test
        override RUNNER = go
        COMMAND = $(RUNNER) $(ACTION) ./...

        ci:
        \t$(COMMAND)
        """

    def test_a_variable_given_on_the_command_line_replaces_the_files(self, tmp_path):
        """The file's ``test`` made ``build``, or nothing, is no run; another test word is."""
        write(tmp_path / "Makefile", self.MAKEFILE)
        assert runs("make ci", tmp_path) == [("make-target", str(tmp_path))]
        assert runs("make ACTION=build ci", tmp_path) == []
        assert runs('make ACTION="" ci', tmp_path) == []
        assert runs("make ci ACTION:=vet", tmp_path) == []
        assert runs("make ACTION=test ci", tmp_path) == [("make-target", str(tmp_path))]

    def test_an_appending_assignment_adds_to_the_files_value(self, tmp_path):
        """``ACTION+=-run`` keeps ``test`` and adds to it: still a run."""
        write(tmp_path / "Makefile", self.MAKEFILE)
        assert runs("make ACTION+=-short ci", tmp_path) == [("make-target", str(tmp_path))]

    def test_a_variable_the_file_overrides_keeps_the_files_value(self, tmp_path):
        """``override RUNNER = go``: ``RUNNER=echo`` on the command line changes nothing."""
        write(tmp_path / "Makefile", self.MAKEFILE)
        assert runs("make RUNNER=echo ci", tmp_path) == [("make-target", str(tmp_path))]

    def test_an_environment_variable_does_not_replace_the_files(self, tmp_path):
        """``ACTION=build make ci``: make's own assignment wins over the environment."""
        write(tmp_path / "Makefile", self.MAKEFILE)
        assert runs("ACTION=build make ci", tmp_path) == [("make-target", str(tmp_path))]


def test_a_prerequisite_test_runs_the_tests_as_make_test_does(tmp_path):
    """``ci: lint test`` runs ``test`` whatever its recipe; ``all: lib tests`` builds them."""
    write(
        tmp_path / "Makefile",
        """\
        ci: lint test
        release: lint build
        all: lib tests
        lint:
        \tgolangci-lint run
        build:
        \tgo build ./...
        test:
        \t$(MAKE) shell CMD="-c 'hack/run.sh $(WHAT)'"
        shell:
        \tdocker run --rm $(IMAGE) /bin/sh $(CMD)
        lib:
        \t$(CC) -c lib.c
        tests:
        \t$(CC) -o lib_test test.c lib.o
        """,
    )
    assert runs("make ci", tmp_path) != []
    assert runs("make release", tmp_path) == []
    assert runs("make all", tmp_path) == []


def test_a_match_anything_rule_makes_no_prerequisite_of_an_implicit_rule(tmp_path):
    """``%: common-% ;``: ``vet`` is made from ``common-vet``, never ``common-common-vet``.

    As make does, so a target of no rule at all ends the chain at once, and
    the answer is sure, not cut by the bound on tasks (Prometheus' Makefile.common).
    """
    write(
        tmp_path / "Makefile",
        """\
        all:: vet style common-all

        %: common-% ;

        common-vet:
        \tgo vet ./...
        common-all: build test
        common-build:
        \tpromu build
        test:
        \t$(GO) test -short ./...
        """,
    )
    assert runs("make", tmp_path) != []
    assert maybe_runs("make", tmp_path) == []
    assert runs("make vet", tmp_path) == []
    assert maybe_runs("make vet", tmp_path) == []
    assert maybe_runs("make style", tmp_path) == []
