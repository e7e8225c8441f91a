"""The offline fake provider: canned target profiles and seeded judges, no network, no key.

Specs:
- `fake:<profile>` (accurate, incomplete, outdated, invented, refusal, asks_zip, asks_zip_early): a
  target that answers each scenario turn from `data/fake_profiles/<profile>.json`. A profile may
  borrow another's answers (`responses_from`) and ask the beneficiary a question before answering
  (`ask_first`).
- `fake:judge`: a judge that returns schema-valid JSON, derived from the request and its seed.
- `fake:garbage`: a judge that never returns valid JSON (exercises the unscored path).
- `fake:flaky`: like `fake:judge`, but the first attempt at each request returns broken JSON.
- `fake:batch-flaky`: like `fake:judge`, but through `--batch` each request fails (retryably) in
  the first batch it rides in, so the engine's retry of failed items is exercised.

Fake judges offer the batch API in process (`--batch` works offline): a batch ends as soon as it
is submitted, and each item is answered exactly as a direct call would be.
"""

from __future__ import annotations

import json
import random
import re
from functools import cache
from importlib.resources import files
from typing import Any

from medeval.adapters.base import ChatRequest, ChatResponse, ModelAPI, ProviderError, Usage
from medeval.adapters.batch import BatchAPI, BatchItem, BatchOutcome, BatchStatus
from medeval.errors import ConfigError
from medeval.records.hashing import derive_seed, sha256_text
from medeval.schemas import Citation

FAKE_MODEL_VERSION = "2026-11-01"
JUDGE_MODELS = ("judge", "garbage", "flaky", "batch-flaky")


@cache
def load_profile(name: str) -> dict[str, Any]:
    resource = files("medeval.data").joinpath("fake_profiles", f"{name}.json")
    if not resource.is_file():
        known = ", ".join(available_profiles() + list(JUDGE_MODELS))
        raise ConfigError(f"unknown fake profile {name!r}; available: {known}")
    data: dict[str, Any] = json.loads(resource.read_text(encoding="utf-8"))
    return data


def available_profiles() -> list[str]:
    folder = files("medeval.data").joinpath("fake_profiles")
    return sorted(p.name.removesuffix(".json") for p in folder.iterdir() if p.name.endswith(".json"))


def create(model: str) -> ModelAPI:
    if model in JUDGE_MODELS:
        return FakeJudge(model)
    load_profile(model)  # fail at resolve time, before any work starts
    return FakeTarget(model)


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _tagged(text: str, tag: str) -> str | None:
    # Judge requests name their blocks with a nonce (agents/boundary.py): <claims-1a2b...>, each
    # opening on a line of its own after the header line that names them.
    match = re.search(rf"^<({tag}(?:-[0-9a-f]+)?)>\n?(.*?)\n?</\1>", text, re.S | re.M)
    return match.group(2) if match else None


class _FakeBase(ModelAPI):
    provider = "fake"

    def _respond(self, request: ChatRequest, text: str) -> ChatResponse:
        prompt = request.system + "".join(m.content for m in request.messages)
        sent: dict[str, Any] = {k: v for k, v in request.sampling.model_dump().items() if v is not None}
        if request.seed is not None:
            sent["seed"] = request.seed
        return ChatResponse(
            text=text,
            requested_model=self.model,
            served_model=f"{self.model}-{FAKE_MODEL_VERSION}",
            fingerprint=f"fp_fake_{FAKE_MODEL_VERSION}",
            response_id="resp_" + sha256_text(prompt + text)[:20],
            request_id=None,
            usage=Usage(input_tokens=_tokens(prompt), output_tokens=_tokens(text)),
            latency_ms=0.0,
            finish_reason="stop",
            sampling_sent=sent,
            raw={"fake": True, "text": text},
        )


#: What a fake target asked to search cites: one official page, over the whole answer (offline:
#: nothing is searched; it shows the shape a search-enabled provider's answer comes back in).
FAKE_CITATION = {"url": "https://www.medicare.gov/basics/get-started-with-medicare", "title": "Medicare.gov"}


class FakeTarget(_FakeBase):
    """Answers from a canned profile, keyed by scenario id and turn id.

    With `ask_first` {"question", "answered_by"}, a scripted turn is met with the question until
    something the beneficiary said matches `answered_by` (a regex); then the canned answer comes.
    With "at_opening" the opening statement is met with the question too.
    Asked to search (`web_search`), it cites FAKE_CITATION as a search-enabled provider would."""

    web_search = True

    async def generate(self, request: ChatRequest) -> ChatResponse:
        profile = load_profile(self.model)
        scenario_id = request.metadata.get("scenario_id", "")
        turn_id = request.metadata.get("turn_id", "")
        scripted = request.metadata.get("reply_to", turn_id)
        ask = profile.get("ask_first")
        if ask and (turn_id != "opening" or ask.get("at_opening")):
            # Like a chatbot that remembers: once the beneficiary has said it, it is not asked again.
            told = any(
                re.search(ask["answered_by"], m.content, re.I) for m in request.messages if m.role == "user"
            )
            if not told:
                return self._respond(request, ask["question"])
        source = load_profile(profile["responses_from"]) if "responses_from" in profile else profile
        answers: dict[str, str] = source.get("responses", {}).get(scenario_id, {})
        text = answers.get(scripted) or source["default"]
        response = self._respond(request, text)
        if request.web_search:
            cited = Citation(**FAKE_CITATION, start=0, end=len(text))
            response = response.model_copy(update={"citations": [cited]})
        return response


class FakeJudge(_FakeBase, BatchAPI):
    """Schema-valid JSON for each judge role, seeded so that two judges can disagree."""

    def __init__(self, model: str) -> None:
        super().__init__(model)
        self._batches: dict[str, list[BatchItem]] = {}
        self._failed_once: set[str] = set()

    async def batch_submit(self, items: list[BatchItem]) -> str:
        digest = sha256_text("".join(i.custom_id for i in items))[:12]
        batch_id = f"fakebatch_{len(self._batches) + 1:04d}_{digest}"
        self._batches[batch_id] = list(items)
        return batch_id

    async def batch_status(self, batch_id: str) -> BatchStatus:
        items = self._items(batch_id)
        return BatchStatus(batch_id=batch_id, state="ended", provider_state="ended", total=len(items))

    async def batch_results(self, batch_id: str) -> list[BatchOutcome]:
        outcomes = []
        for item in self._items(batch_id):
            if self.model == "batch-flaky" and item.custom_id not in self._failed_once:
                self._failed_once.add(item.custom_id)
                failure = ProviderError(
                    "fake:batch-flaky: item failed in its first batch", retryable=True, status=500
                )
                outcomes.append(BatchOutcome(item.custom_id, error=failure))
            else:
                outcomes.append(BatchOutcome(item.custom_id, response=await self.generate(item.request)))
        return outcomes

    def _items(self, batch_id: str) -> list[BatchItem]:
        if batch_id not in self._batches:
            raise ProviderError(f"fake:{self.model}: no batch {batch_id}", retryable=False, status=404)
        return self._batches[batch_id]

    async def generate(self, request: ChatRequest) -> ChatResponse:
        if self.model == "garbage":
            return self._respond(request, "I think the answer is mostly right! {not json")
        if self.model == "flaky" and len(request.messages) == 1:
            # Broken on the first try; valid once the harness has sent its invalid-output feedback.
            return self._respond(request, '{"claims": [')
        key = sha256_text(request.messages[0].content)
        schema = request.output_schema.name if request.output_schema else ""
        content = request.messages[0].content
        rng = random.Random(derive_seed(request.seed or 0, key))
        payload: dict[str, Any]
        if schema == "extraction":
            payload = {"claims": _extract(_tagged(content, "response") or "")}
        elif schema == "verification":
            payload = _verify(content, rng)
        elif schema == "adjudication":
            payload = {"decisions": _decide(content, rng)}
        elif schema == "persona_reply":
            payload = _persona_reply(content)
        elif schema == "paraphrase":
            turns = json.loads(_tagged(content, "scripted_turns") or "[]")
            payload = {
                "turns": [
                    {"turn_id": t["turn_id"], "user_message": "Quick question: " + t["user_message"]}
                    for t in turns
                ]
            }
        else:
            return self._respond(request, "This fake judge only answers structured judge requests.")
        return self._respond(request, json.dumps(payload))


def _extract(response: str) -> list[dict[str, Any]]:
    from medeval.agents.rules import split_sentences

    return [
        {
            "claim_id": f"c{i}",
            "text": response[start:end],
            "type": "factual",
            "confidence": "high",
            "verifiable": True,
            "quote": response[start:end],
        }
        for i, (start, end) in enumerate(split_sentences(response), start=1)
    ]


def _key_ids(content: str) -> list[str]:
    key = json.loads(_tagged(content, "answer_key") or "{}")
    ids = [f["fact_id"] for f in key.get("canonical_facts", [])]
    return ids or ["unknown"]


def _verify(content: str, rng: random.Random) -> dict[str, Any]:
    claims = [c for block in _blocks(content, "claims") for c in json.loads(block or "[]")]
    ids = _key_ids(content)
    verdicts = []
    for claim in claims:
        roll = rng.random()
        if roll < 0.5:
            verdicts.append(
                {"claim_id": claim["claim_id"], "label": "SUPPORTED", "evidence": [rng.choice(ids)]}
            )
        elif roll < 0.9:
            verdicts.append({"claim_id": claim["claim_id"], "label": "NOT_IN_KEY", "evidence": []})
        else:
            verdicts.append(
                {
                    "claim_id": claim["claim_id"],
                    "label": "CONTRADICTED",
                    "evidence": [rng.choice(ids)],
                    "severity": "low",
                }
            )
    checklist = []
    for item in json.loads(_tagged(content, "checklist") or "[]"):
        quote = claims[rng.randrange(len(claims))]["quote"] if claims and rng.random() < 0.5 else ""
        code = "covered" if quote else "absent"
        checklist.append({"fact_id": item["fact_id"], "code": code, "quote": quote})
    return {"verdicts": verdicts, "checklist": checklist}


def _blocks(content: str, tag: str) -> list[str]:
    """Every block named `tag` or `tag_<turn id>` (agents/boundary.py names them with a nonce)."""
    pattern = rf"^<({tag}(?:_[\w.\-]+?)?-[0-9a-f]+)>\n?(.*?)\n?</\1>"
    return [m.group(2).strip() for m in re.finditer(pattern, content, re.S | re.M)]


def _decide(content: str, rng: random.Random) -> list[dict[str, Any]]:
    disputed = json.loads(_tagged(content, "disputed_claims") or "[]")
    ids = _key_ids(content)
    return [
        {"claim_id": d["claim_id"], "label": "SUPPORTED", "evidence": [rng.choice(ids)]}
        if rng.random() < 0.5
        else {"claim_id": d["claim_id"], "label": "NOT_IN_KEY", "evidence": []}
        for d in disputed
    ]


# What the fake questioner answers from, by words in the chatbot's question -> persona fields.
_PERSONA_TOPICS = (
    (r"zip|postal", "zip"),
    (r"county", "county"),
    (r"income|earn|make a month", "income"),
    (r"medication|prescription|drugs? do you take", "medications"),
    (r"doctor|physician", "primary_care_doctor"),
    (r"\bplan\b", "plan_heard_about"),
    (r"state|where do you live|located", "state"),
)


def _persona_reply(content: str) -> dict[str, Any]:
    """Reply mode of the fake questioner: answer a question to the beneficiary from the persona."""
    from medeval.agents.questioner import DONT_KNOW, chatbot_questions

    persona = json.loads(_tagged(content, "persona") or "{}")
    questions = chatbot_questions(_tagged(content, "chatbot_reply") or "")
    if not questions:
        return {"asks_beneficiary": False, "reply": ""}
    for pattern, name in _PERSONA_TOPICS:
        if any(re.search(pattern, q, re.I) for q in questions) and persona.get(name):
            value = persona[name]
            shown = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
            return {"asks_beneficiary": True, "reply": f"My {name.replace('_', ' ')} is {shown}."}
    return {"asks_beneficiary": True, "reply": DONT_KNOW}
