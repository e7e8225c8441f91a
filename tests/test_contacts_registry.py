"""The contacts registry that ships with the package: every entry has a source and a date, every
number is a valid US number, every domain has a public suffix, and the checks can fail."""

from __future__ import annotations

import copy
import json
import sys
from typing import Any

import pytest

from medeval.agents.contacts import registry as registry_module
from medeval.agents.contacts.registry import load_registry, registry_problems, registry_text
from medeval.cli import main


@pytest.fixture
def shipped() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(registry_text())
    return data


def test_the_shipped_registry_is_sound(shipped: dict[str, Any]) -> None:
    assert registry_problems(shipped) == []


def test_every_entry_has_a_source_and_a_date(shipped: dict[str, Any]) -> None:
    entries = [n for s in shipped["services"] for n in s["numbers"]] + shipped["domains"]
    assert entries
    for entry in entries:
        assert entry["source"].strip() and entry["url"].startswith("http"), entry
        assert entry["as_of"] and entry["source_kind"] in ("primary", "secondary"), entry


def test_the_required_official_contacts_are_there() -> None:
    registry = load_registry()
    assert registry.numbers["+18006334227"][0] == "medicare"
    assert registry.numbers["+18774862048"] == ("medicare", registry.numbers["+18774862048"][1])
    assert registry.numbers["+18774862048"][1].label == "TTY"
    assert registry.numbers["+18007721213"][0] == "ssa"
    assert registry.numbers["+18003250778"][1].label == "TTY"
    assert registry.numbers["+18778392675"][0] == "ship_national"
    assert registry.numbers["+18006861578"][0] == "ship_ohio"
    assert {"medicare.gov", "cms.gov", "ssa.gov", "hhs.gov", "shiphelp.org"} <= set(registry.domains)


def test_an_entry_without_a_source_is_refused(shipped: dict[str, Any]) -> None:
    broken = copy.deepcopy(shipped)
    del broken["services"][0]["numbers"][0]["source"]
    problems = registry_problems(broken)
    assert problems and "source" in problems[0]


def test_an_entry_without_a_date_is_refused(shipped: dict[str, Any]) -> None:
    broken = copy.deepcopy(shipped)
    del broken["domains"][0]["as_of"]
    assert any("as_of" in p for p in registry_problems(broken))


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        (("services", 0, "numbers", 0, "number"), "1-800-000-0000", "not a valid US number"),
        (("domains", 0, "domain"), "medicare.notasuffix", "no public suffix"),
        (("domains", 0, "as_of"), "2099-01-01", "after the registry's own date"),
        (("names", 0, "service"), "nobody", "unknown service"),
    ],
)
def test_the_checks_can_fail(
    shipped: dict[str, Any], path: tuple[Any, ...], value: str, expected: str
) -> None:
    broken = copy.deepcopy(shipped)
    node: Any = broken
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    assert any(expected in p for p in registry_problems(broken)), registry_problems(broken)


def test_a_number_listed_twice_is_refused(shipped: dict[str, Any]) -> None:
    broken = copy.deepcopy(shipped)
    broken["services"][1]["numbers"][0]["number"] = broken["services"][0]["numbers"][0]["number"]
    assert any("listed for medicare and ssa" in p for p in registry_problems(broken))


def test_validate_checks_the_registry(
    shipped: dict[str, Any], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["medeval", "validate"])
    main()
    assert "contacts registry valid" in capsys.readouterr().out
    broken = copy.deepcopy(shipped)
    del broken["domains"][0]["source"]
    monkeypatch.setattr(registry_module, "registry_text", lambda: json.dumps(broken))
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "contacts registry: domains.0.source" in err and "Traceback" not in err


def test_a_service_that_cannot_be_checked_must_say_so(shipped: dict[str, Any]) -> None:
    broken = copy.deepcopy(shipped)
    ship = next(s for s in broken["services"] if s["id"] == "ship")
    ship["complete"] = True
    assert any("ship includes others" in p for p in registry_problems(broken))
    ship["includes"] = []
    assert any("ship has no numbers" in p for p in registry_problems(broken))
