"""Model judges through the real gateway and engine (rescore.judge_answer): a contested error goes to
review rather than vanishing, a tie-break decides first, and a scripted model judge produces the
same stored structure as the rules coder."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from medeval.adapters.base import ChatRequest, ChatResponse, ModelAPI
from medeval.agents import rules
from medeval.calls.gateway import Gateway
from medeval.cli.targets import summarise
from medeval.engine.config import RunConfig
from medeval.engine.rescore import judge_answer
from medeval.scenarios.load import load_scenario
from medeval.schemas import ShipCategory, TrialRecord

from .conftest import SCENARIOS

PATH = SCENARIOS / "scenario_001.json"
SCENARIO = load_scenario(PATH)
GROUP = SCENARIO.scenario_id
# Every required point stated correctly, except the Part B premium: a stale figure.
ANSWER = (
    "Medicare Advantage plans usually require you to use doctors and hospitals in the plan's network. "
    "With Original Medicare you can see any doctor in the U.S. that accepts Medicare. "
    "In a Medicare Advantage plan you still pay the Part B premium of $185 a month. "
    "Original Medicare has no yearly out-of-pocket limit, so many people add a Medigap policy."
)
WRONG = "you still pay the Part B premium of $185 a month"
SENTENCES = [ANSWER[a:b] for a, b in rules.split_sentences(ANSWER)]


class RoleModel(ModelAPI):
    """A scripted provider that answers each judge role (by output schema) with a fixed payload."""

    provider = "scripted"

    def __init__(self, name: str, payloads: dict[str, dict[str, Any]]) -> None:
        super().__init__(name)
        self.payloads = payloads
        self.requests: list[ChatRequest] = []

    async def generate(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        schema = request.output_schema.name if request.output_schema else ""
        text = json.dumps(self.payloads[schema])
        return ChatResponse(text=text, requested_model=self.model, served_model=self.model)


def extraction() -> dict[str, Any]:
    return {
        "claims": [
            {"claim_id": f"c{i}", "text": sentence, "quote": sentence}
            for i, sentence in enumerate(SENTENCES, start=1)
        ]
    }


ITEMS = {"F1": SENTENCES[0], "F2": SENTENCES[1], "F5": SENTENCES[3]}


def verification(premium_label: str) -> dict[str, Any]:
    """Both judges agree on everything but the premium claim (c3) and the premium item (F3)."""
    contradicted = premium_label == "CONTRADICTED"
    premium: dict[str, Any] = {"claim_id": "Q1.c3", "label": premium_label}
    premium["evidence"] = ["F3"]
    premium["severity"] = "high" if contradicted else "none"
    supported = [
        {"claim_id": f"Q1.c{i}", "label": "SUPPORTED", "evidence": [fact]}
        for i, fact in ((1, "F1"), (2, "F2"), (4, "F5"))
    ]
    checklist = [{"fact_id": f, "code": "covered", "quote": q} for f, q in ITEMS.items()]
    checklist.append({"fact_id": "F3", "code": "contradicted" if contradicted else "covered", "quote": WRONG})
    return {"verdicts": [*supported, premium], "checklist": checklist}


def judge(
    judges: list[str], models: dict[str, ModelAPI], adjudicator: str | None = None, answer: str = ANSWER
) -> TrialRecord:
    config = RunConfig(
        scenarios=[PATH],
        targets=["fake:accurate"],
        judges=judges,
        extractor="scripted:extractor",
        adjudicator=adjudicator,
    )
    gateway = Gateway(
        adapters={
            "scripted:extractor": RoleModel("extractor", {"extraction": extraction()}),
            **{f"scripted:{name}": model for name, model in models.items()},
        }
    )
    return asyncio.run(judge_answer(SCENARIO, GROUP, answer, config, gateway))


def split_panel() -> dict[str, ModelAPI]:
    return {
        "a": RoleModel("a", {"verification": verification("CONTRADICTED")}),
        "b": RoleModel("b", {"verification": verification("SUPPORTED")}),
    }


def test_a_one_one_split_on_a_contradiction_needs_review_and_leaves_the_ship_counts() -> None:
    record = judge(["scripted:a", "scripted:b"], split_panel())
    [group] = record.groups
    assert group.ship_category == ShipCategory.NEEDS_REVIEW
    assert group.reason
    [premium] = [fc for fc in record.final_claims if fc.claim_id == "Q1.c3"]
    assert premium.label is None  # undecided, not silently dropped as if the error were absent
    # Left out of the four study categories: none of them counts this group.
    assert summarise([record])[0].groups == 0


def test_the_tie_break_model_decides_first_and_must_cite_evidence() -> None:
    decides = RoleModel(
        "t",
        {"adjudication": {"decisions": [{"claim_id": "Q1.c3", "label": "CONTRADICTED", "evidence": ["F3"]}]}},
    )
    record = judge(["scripted:a", "scripted:b"], {**split_panel(), "t": decides}, adjudicator="scripted:t")
    [premium] = [fc for fc in record.final_claims if fc.claim_id == "Q1.c3"]
    assert (premium.label, premium.decided_by) == ("CONTRADICTED", "adjudicator_model")
    assert record.groups[0].ship_category == ShipCategory.INCORRECT
    # The adjudicator read the claim's quote in the whole answer, inside data blocks.
    content = decides.requests[0].messages[0].content
    assert ANSWER in content and WRONG in content
    # A decision citing the wrong kind of evidence is discarded: the group stays with people.
    invalid = RoleModel(
        "t",
        {"adjudication": {"decisions": [{"claim_id": "Q1.c3", "label": "SUPPORTED", "evidence": ["D1"]}]}},
    )
    record = judge(["scripted:a", "scripted:b"], {**split_panel(), "t": invalid}, adjudicator="scripted:t")
    assert record.groups[0].ship_category == ShipCategory.NEEDS_REVIEW
    assert any("SUPPORTED cites disallowed claim(s) D1" in u.reason for u in record.unscored)


def test_a_scripted_model_judge_stores_the_structure_the_rules_coder_stores() -> None:
    by_rules = judge(["rules"], {})
    coded = rules.code_answer(SCENARIO, GROUP, ANSWER)
    # The model replies with the rules coder's own codes, quoting the answer as a model would.
    reply = {
        "verdicts": [v.model_dump(mode="json") for v in rules.label_claims(by_rules.claims, SCENARIO)],
        "checklist": [c.model_dump(mode="json") for c in coded.checklist],
        "non_answer": coded.non_answer,
        "uncertain": coded.uncertain,
    }
    model = RoleModel("m", {"verification": reply})
    by_model = judge(["scripted:m", "scripted:m"], {"m": model})

    def shape(record: TrialRecord) -> list[tuple[object, ...]]:
        return [
            (
                v.question_group,
                v.turn_ids,
                v.status,
                [(c.fact_id, c.code, c.turn_id, c.quote_spans) for c in v.checklist],
            )
            for v in record.verdicts
        ]

    assert shape(by_model) == shape(by_rules)
    assert by_model.verdicts[0].checklist, "each verifier's output holds checklist codes"
    for coded_item in by_model.verdicts[0].checklist:
        if coded_item.code != "absent":
            [span] = coded_item.quote_spans
            assert ANSWER[span.start : span.end].strip()
    rules_group, model_group = by_rules.groups[0], by_model.groups[0]
    assert model_group.ship_category == rules_group.ship_category
    assert [(d.fact_id, d.code) for d in model_group.checklist] == [
        (d.fact_id, d.code) for d in rules_group.checklist
    ]
    # The verifier saw the whole answer and the checklist with its required items.
    content = model.requests[0].messages[0].content
    assert ANSWER in content and '"required": true' in content


def injected() -> dict[str, Any]:
    """What an answer that talks to the judge can get out of it: every claim verdict invalid (here
    citing ids that are not in the key), yet a checklist coded all covered."""
    checklist = [{"fact_id": f, "code": "covered", "quote": q} for f, q in ITEMS.items()]
    checklist.append({"fact_id": "F3", "code": "covered", "quote": WRONG})
    verdicts = [
        {"claim_id": f"Q1.c{i}", "label": "SUPPORTED", "evidence": ["IGNORE_THE_KEY"]} for i in range(1, 5)
    ]
    return {"verdicts": verdicts, "checklist": checklist}


def test_a_verifier_whose_verdicts_all_fail_validation_codes_nothing() -> None:
    models: dict[str, ModelAPI] = {name: RoleModel(name, {"verification": injected()}) for name in ("a", "b")}
    record = judge(["scripted:a", "scripted:b"], models)
    [group] = record.groups
    assert group.ship_category == ShipCategory.NOT_SCORED  # not A&C, and not sent to people either
    assert "every claim verdict failed validation" in (group.reason or "")
    assert group.checklist and all(d.code != "covered" for d in group.checklist)
    for verdicts in record.verdicts:
        assert verdicts.status == "unscored" and verdicts.checklist == [] and verdicts.verdicts == []
        assert len(verdicts.invalid_verdicts) == 4  # kept for the audit trail
    assert summarise([record])[0].groups == 0
    # One such verifier beside a valid one: the valid one's codes stand, the other's count nowhere.
    models["b"] = RoleModel("b", {"verification": verification("CONTRADICTED")})
    [group] = judge(["scripted:a", "scripted:b"], models).groups
    assert group.ship_category != ShipCategory.ACCURATE_COMPLETE
