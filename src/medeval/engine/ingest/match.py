"""Matching a collected conversation to a scenario's script: each question the person asked to a
scripted turn, by the turn id the file gives or by its text (fuzzy, with the similarity reported).

The result is the conversation in the harness's own shape, so the judges code it exactly as they
code a live trial: each matched question's answer is coded in its question group; an unmatched user
turn after a scripted question is a follow-up, coded with that question's group as the harness codes
the answer after a persona reply, when it answers something the chatbot asked or asks nothing
itself; any other unmatched turn (a question of the person's own, a greeting before the first scripted
question) is kept verbatim and not coded. Every unmatched turn, every skipped scripted turn and every question
left unanswered is listed."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from medeval.agents import questioner
from medeval.engine.ingest.transcript import RawConversation, RawTurn
from medeval.engine.trial import OPENING_TURN
from medeval.engine.types import Answered, Conversation, answered_text
from medeval.schemas import ExtraTurn, Scenario, Turn, TurnMatch

#: A question matches a scripted turn by its text when it is this similar (0 to 1)...
CLEAR_MATCH = 0.6
#: ...or at least this similar and ahead of every other scripted question by MARGIN. In the SHIP
#: scripts two scripted questions score at most 0.54 against each other, and never with the margin;
#: an unrelated question ("Does Medicare cover dental cleanings?") scores under 0.3.
MATCH_THRESHOLD = 0.4
MARGIN = 0.15
_STOP = (
    "a an the of to and or is are am i my me do does can could you your for in on it that this be with "
    "at if what how when which there"
)
STOP_WORDS = frozenset(_STOP.split())


@dataclass
class Exchange:
    """A user turn and the assistant turns after it (joined: one answer)."""

    question: RawTurn | None
    answers: list[RawTurn] = field(default_factory=list)

    def answer(self) -> str | None:
        return "\n\n".join(a.text for a in self.answers) if self.answers else None


@dataclass
class Matched:
    conversation: Conversation
    matched: list[TurnMatch]
    skipped: list[str]
    unanswered: list[str]
    extra: list[ExtraTurn]


def words(text: str) -> set[str]:
    """Content words, lower case, a plural's final s dropped."""
    found = re.sub(r"[^\w\s]", " ", text.lower()).split()
    return {w[:-1] if w.endswith("s") and len(w) > 3 else w for w in found if w not in STOP_WORDS}


class Similarity:
    """How alike an asked question is to each scripted question, 0 to 1.

    Words are weighted by how rare they are in the script (inverse document frequency): in a script
    whose questions all name the same plan, the plan's name says little and "specialist" or
    "premium" says which question it is. The score is the better of the weighted overlap of the two
    questions (Dice) and 0.9 times how much of the scripted question the asked one contains, so a
    question asked after an introduction ("Hi, I turn 65 next month. When can I...") still matches."""

    def __init__(self, script: list[str]) -> None:
        counts: dict[str, int] = {}
        for text in script:
            for word in words(text):
                counts[word] = counts.get(word, 0) + 1
        self.n = len(script)
        self.counts = counts

    def weight(self, word: str) -> float:
        return math.log((self.n + 1) / (self.counts.get(word, 0) + 1)) + 1

    def __call__(self, asked: str, scripted: str) -> float:
        if normalise(asked) == normalise(scripted):
            return 1.0
        a, b = words(asked), words(scripted)
        if not a or not b:
            return 0.0
        wa, wb = sum(map(self.weight, a)), sum(map(self.weight, b))
        both = sum(map(self.weight, a & b))
        contained = both / wb if wa <= 3 * wb else 0.0
        return round(max(2 * both / (wa + wb), 0.9 * contained), 3)


def normalise(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def times(exchange: Exchange) -> dict[str, str | None]:
    """When the question was asked and first answered, as the file gave it."""
    return {
        "asked_at": exchange.question.timestamp if exchange.question else None,
        "answered_at": exchange.answers[0].timestamp if exchange.answers else None,
    }


def exchanges(turns: list[RawTurn]) -> list[Exchange]:
    found: list[Exchange] = []
    for turn in turns:
        if turn.role == "user" or not found:
            found.append(Exchange(turn if turn.role == "user" else None))
            if turn.role == "user":
                continue
        found[-1].answers.append(turn)
    return found


def assign(
    raw: RawConversation, scenario: Scenario, talk: list[Exchange], problems: list[str], where: str
) -> dict[int, TurnMatch]:
    """Exchange index -> the scripted turn its question matched: ids first, then text, best first."""
    scripted = {t.turn_id: t for t in scenario.scripted_turns}
    targets: dict[str, str] = {t.turn_id: t.user_message for t in scenario.scripted_turns}
    if scenario.opening_statement:
        targets[OPENING_TURN] = scenario.opening_statement
    found: dict[int, TurnMatch] = {}
    by_text: list[tuple[int, str]] = []
    for index, exchange in enumerate(talk):
        question = exchange.question
        if question is None:
            continue
        ref = question.ref
        if ref is None or (ref not in targets and " " in ref.strip()):
            by_text.append((index, ref or question.text))
            continue
        if ref not in targets:
            problems.append(
                f"{where}:{question.line}: turn id {ref!r} is not in scenario {scenario.scenario_id} "
                f"({', '.join(scripted)}); fix it, or leave it empty to match the question by its text"
            )
        elif any(m.turn_id == ref for m in found.values()):
            problems.append(
                f"{where}:{question.line}: turn id {ref!r} is given twice in {raw.conversation_id!r}"
            )
        else:
            found[index] = TurnMatch(turn_id=ref, by="id", score=1.0, asked=question.text, **times(exchange))
    free = {t for t in targets if all(m.turn_id != t for m in found.values())}
    similarity = Similarity(list(targets.values()))
    scores: list[tuple[float, int, str, int]] = []
    for index, text in by_text:
        against = {t: similarity(text, script) for t, script in targets.items()}
        for turn_id in free:
            others = max((v for t, v in against.items() if t != turn_id), default=0.0)
            if clear(against[turn_id], others):
                scores.append((against[turn_id], -index, turn_id, index))
    # Best first: each question and each scripted turn is matched once. A repeated question comes
    # out second to the turn it repeats, so it is kept as an extra turn, never moved to a neighbour.
    for score, _, turn_id, index in sorted(scores, reverse=True):
        if index in found or any(m.turn_id == turn_id for m in found.values()):
            continue
        question = talk[index].question
        assert question is not None
        found[index] = TurnMatch(
            turn_id=turn_id, by="text", score=score, asked=question.text, **times(talk[index])
        )
    return found


def clear(score: float, runner_up: float) -> bool:
    """Whether a question matches a scripted turn it scored `score` against, when the best other
    scripted question scored `runner_up`."""
    if score >= CLEAR_MATCH and score > runner_up:
        return True
    return score >= MATCH_THRESHOLD and score - runner_up >= MARGIN


def match_conversation(raw: RawConversation, scenario: Scenario, problems: list[str], where: str) -> Matched:
    talk = exchanges(raw.turns)
    found = assign(raw, scenario, talk, problems, where)
    scripted = {t.turn_id: t for t in scenario.scripted_turns}
    convo = Conversation(collected=True)
    extra: list[ExtraTurn] = []
    answered: dict[str, Answered] = {}
    unanswered: list[str] = []
    firsts: dict[str, str] = {}  # scripted turn id -> its first answer
    previous: str | None = None  # the last scripted turn asked: what a follow-up belongs to
    follow_ups: dict[str, int] = {}
    for index, exchange in enumerate(talk):
        match = found.get(index)
        answer = exchange.answer()
        if match is not None and match.turn_id in scripted:
            turn = scripted[match.turn_id]
            _record(convo, turn.turn_id, turn.question_group, match.asked, answer)
            if answer is None:
                unanswered.append(turn.turn_id)
            else:
                firsts[turn.turn_id] = answer
                answered[turn.turn_id] = Answered(turn, match.asked, answer)
                convo.answered.append(answered[turn.turn_id])
            previous = turn.turn_id
            continue
        if match is not None:  # the opening statement
            _record(convo, OPENING_TURN, None, match.asked, answer)
            continue
        if previous is not None and previous in answered and _continues(talk[index - 1], exchange):
            follow_ups[previous] = follow_ups.get(previous, 0) + 1
            turn_id = f"{previous}.r{follow_ups[previous]}"
            _follow_up(convo, answered[previous], firsts[previous], turn_id, exchange)
            coded: str | None = previous
        else:
            turn_id, coded = f"x{len({e.turn_id for e in extra if e.coded_with is None}) + 1}", None
            _record(convo, turn_id, None, exchange.question.text if exchange.question else None, answer)
        if exchange.question is not None:
            extra.append(
                ExtraTurn(
                    turn_id=turn_id,
                    role="user",
                    text=exchange.question.text,
                    at=exchange.question.timestamp,
                    coded_with=coded,
                )
            )
        if answer is not None:
            at = exchange.answers[0].timestamp
            extra.append(ExtraTurn(turn_id=turn_id, role="assistant", text=answer, at=at, coded_with=coded))
    asked = {m.turn_id for m in found.values()}
    skipped = [t.turn_id for t in scenario.scripted_turns if t.turn_id not in asked]
    order = {OPENING_TURN: -1, **{t.turn_id: i for i, t in enumerate(scenario.scripted_turns)}}
    matched = sorted(found.values(), key=lambda m: order.get(m.turn_id, len(order)))
    return Matched(convo, matched, skipped, unanswered, extra)


def _continues(before: Exchange, exchange: Exchange) -> bool:
    """A user turn continues the exchange before it when it answers something the chatbot asked, or
    asks nothing itself ("OK", "my ZIP is 55401"); a new question is an extra turn of its own."""
    said = before.answer() or ""
    question = exchange.question.text if exchange.question else ""
    return bool(questioner.chatbot_questions(said)) or "?" not in question


def _record(
    convo: Conversation, turn_id: str, group: str | None, asked: str | None, answer: str | None
) -> None:
    if asked is not None:
        convo.turns.append(Turn(role="user", text=asked, turn_id=turn_id, question_group=group))
    if answer is not None:
        convo.turns.append(Turn(role="assistant", text=answer, turn_id=turn_id, question_group=group))


def _follow_up(convo: Conversation, parent: Answered, first: str, turn_id: str, exchange: Exchange) -> None:
    """An unmatched question after a scripted one: coded with it, as a persona reply's answer is."""
    asked = exchange.question.text if exchange.question else ""
    answer = exchange.answer()
    group, reply_to = parent.turn.question_group, parent.turn.turn_id
    if exchange.question is not None:
        convo.turns.append(
            Turn(role="user", text=asked, turn_id=turn_id, question_group=group, reply_to=reply_to)
        )
    if answer is not None:
        convo.turns.append(
            Turn(role="assistant", text=answer, turn_id=turn_id, question_group=group, reply_to=reply_to)
        )
        parent.exchanges.append((asked, answer))
        parent.response = answered_text(first, parent.exchanges)
