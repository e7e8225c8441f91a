"""The questioner: asks the scenario's scripted turns verbatim and in order, decides conditional
follow-ups, paraphrases only when the scenario's variation knob (or the trial's variant) allows it,
and answers the chatbot's questions from the persona only, as the study's shoppers did."""

from __future__ import annotations

import json
import re

from medeval.agents.boundary import data_message
from medeval.agents.structured import call_structured, role_request
from medeval.calls.gateway import CallContext, Gateway
from medeval.schemas import PersonaReplies, PersonaReplyOutput, QuestionerOutput, Scenario, ScriptedTurn

DONT_KNOW = "I'm sorry, I don't know that."
# Questions that offer something rather than ask the beneficiary for a fact: nobody answers them.
_OFFER = re.compile(
    r"^(?:would|do)\s+you\s+(?:like|want)\b|^(?:shall|should)\s+i\b|"
    r"\b(?:anything else|any other questions?|help you with|more questions?|can i help)\b|"
    # An invitation to ask ("What would you like to know first?") is answered by the next question.
    r"^what(?:'s| is| would| do)\s+(?:your\s+(?:first\s+)?question|you\s+(?:like|want)\s+to\s+"
    r"(?:know|ask|start|talk|discuss|cover))\b",
    re.I,
)
_QUESTION = re.compile(r"[^.!?\n]*\?")


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


def chatbot_questions(reply: str) -> list[str]:
    """The questions a chatbot's reply puts to the beneficiary: sentences ending in '?', less
    offers and pleasantries ("Would you like me to...?", "Anything else?")."""
    found = (q.strip() for q in _QUESTION.findall(reply))
    return [q for q in found if q and not _OFFER.search(q)]


def scripted_reply(replies: PersonaReplies, questions: list[str]) -> str | None:
    """The persona's scripted answer to the first question a pattern matches; None when no pattern
    matches (the questioner model, or else the scenario's default, answers then)."""
    for question in questions:
        for option in replies.replies:
            if re.search(option.pattern, question, re.I):
                return option.reply
    return None


def wording_instructions(scenario: Scenario, tone: str | None, reading_level: str | None) -> str:
    """The paraphrase instructions: the scenario's, then its (or the variant's) tone and reading level."""
    knobs = scenario.variation_knobs
    parts = [knobs.paraphrase_instructions or "Reword naturally."]
    if tone or knobs.tone:
        parts.append(f"Tone: {tone or knobs.tone}.")
    if reading_level or knobs.reading_level:
        parts.append(f"Reading level: {reading_level or knobs.reading_level}.")
    return " ".join(parts)


async def persona_reply(
    gateway: Gateway,
    spec: str,
    scenario: Scenario,
    question: str,
    chatbot: str,
    seed: int,
    ctx: CallContext,
) -> tuple[str | None, str | None]:
    """(reply, None) when the chatbot asked the beneficiary something; (None, None) when it did
    not; (None, reason) when the questioner model failed (the script then simply goes on)."""
    persona = json.dumps(scenario.persona, ensure_ascii=False, sort_keys=True)
    content = data_message(
        [("persona", persona), ("scripted_question", question), ("chatbot_reply", chatbot)]
    )
    request = role_request(
        "questioner_reply",
        content,
        ("persona_reply", PersonaReplyOutput),
        seed=seed,
        metadata={"scenario_id": scenario.scenario_id},
    )
    result = await call_structured(gateway, spec, request, PersonaReplyOutput, ctx)
    if result.value is None:
        return None, result.error
    if not result.value.asks_beneficiary:
        return None, None
    return result.value.reply.strip() or DONT_KNOW, None


async def paraphrase(
    gateway: Gateway,
    spec: str,
    scenario: Scenario,
    seed: int,
    ctx: CallContext,
    *,
    tone: str | None = None,
    reading_level: str | None = None,
) -> tuple[dict[str, str], str | None]:
    """Reworded texts by turn id, or ({}, reason) when the questioner model failed: the run then
    falls back to the verbatim script and records why."""
    turns = [{"turn_id": t.turn_id, "user_message": t.user_message} for t in scenario.scripted_turns]
    persona = json.dumps(scenario.persona, ensure_ascii=False, sort_keys=True)
    instructions = wording_instructions(scenario, tone, reading_level)
    content = data_message(
        [
            ("persona", persona),
            ("paraphrase_guidance", instructions),
            ("scripted_turns", json.dumps(turns, ensure_ascii=False)),
        ]
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
