"""The questioner: asks the scenario's scripted turns verbatim and in order, decides conditional
follow-ups, and paraphrases only when the scenario's variation knob allows it."""

from __future__ import annotations

import json
import re

from medeval.agents.structured import call_structured, role_request
from medeval.gateway import CallContext, Gateway
from medeval.schemas import QuestionerOutput, Scenario, ScriptedTurn


def should_ask(turn: ScriptedTurn, answers: dict[str, str]) -> bool:
    """A conditional turn is asked only when the earlier answer mentioned none of its patterns.

    If the earlier turn was never answered, the follow-up cannot be judged necessary, so it is
    skipped too."""
    if turn.condition is None:
        return True
    earlier = answers.get(turn.condition.after_turn)
    if earlier is None:
        return False
    return not any(re.search(p, earlier, re.I) for p in turn.condition.unless_mentioned)


async def paraphrase(
    gateway: Gateway, spec: str, scenario: Scenario, seed: int, ctx: CallContext
) -> tuple[dict[str, str], str | None]:
    """Reworded texts by turn id, or ({}, reason) when the questioner model failed: the run then
    falls back to the verbatim script and records why."""
    turns = [{"turn_id": t.turn_id, "user_message": t.user_message} for t in scenario.scripted_turns]
    persona = json.dumps(scenario.persona, ensure_ascii=False, sort_keys=True)
    instructions = scenario.variation_knobs.paraphrase_instructions or "Reword naturally."
    content = (
        f"<persona>\n{persona}\n</persona>\n<instructions>\n{instructions}\n</instructions>\n"
        f"<scripted_turns>\n{json.dumps(turns, ensure_ascii=False)}\n</scripted_turns>"
    )
    request = role_request(
        "questioner",
        content,
        ("paraphrase", QuestionerOutput),
        seed=seed,
        metadata={"scenario_id": scenario.scenario_id},
        temperature=0.7,
    )
    result = await call_structured(gateway, spec, request, QuestionerOutput, ctx)
    if result.value is None:
        return {}, result.error
    reworded = {t.turn_id: t.user_message for t in result.value.turns}
    if set(reworded) != {t["turn_id"] for t in turns}:
        return {}, "questioner returned a different set of turn ids"
    return reworded, None
