"""What went wrong and how sure the judges were: failure modes, exemplary incorrect responses,
judge agreement, paired target comparisons, token use and unscored items."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from pydantic import BaseModel

from medeval.reporting.baseline import group_sort_key
from medeval.reporting.load import Corpus, span_pairs
from medeval.reporting.paired import PairedRate, paired_rate
from medeval.reporting.stats import Agreement, agreement, not_applicable
from medeval.reporting.tables import SCORED_FILTER, target_order

TOP = 10
EXEMPLARS = 5
MAX_PAIRS = 15
_SEVERITY_RANK = (
    "CASE severity WHEN 'critical' THEN 4 WHEN 'high' THEN 3 WHEN 'medium' THEN 2 "
    "WHEN 'low' THEN 1 ELSE 0 END"
)


class FactRef(BaseModel):
    scenario_id: str
    fact_id: str
    count: int
    text: str
    source: str


class Exemplar(BaseModel):
    trial_id: str
    target: str
    scenario_id: str
    question_group: str
    question: str
    quote: str
    severity: str
    facts: list[FactRef]


class GroupAgreement(BaseModel):
    question_group: str
    agreement: Agreement


class Usage(BaseModel):
    role: str
    spec: str
    calls: int
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None


class UnscoredItem(BaseModel):
    trial_id: str
    target: str
    scenario_id: str
    item: str
    reason: str


class PairRow(BaseModel):
    target_a: str
    target_b: str
    #: B minus A, pooled over every item both answered, clustered by scenario (reporting/paired.py).
    ac: PairedRate
    incorrect: PairedRate


class Findings(BaseModel):
    error_categories: list[tuple[str, int]]
    missed_points: list[FactRef]
    contradicted_facts: list[FactRef]
    exemplars: list[Exemplar]
    agreement: Agreement
    group_agreement: list[GroupAgreement]
    review_trials: list[tuple[str, str, str, float]]
    usage: list[Usage]
    unscored: list[UnscoredItem]
    pairs: list[PairRow]


def fact_ref(corpus: Corpus, scenario_id: str, fact_id: str, count: int = 0) -> FactRef:
    """The fact's text and source from the scenario file; a placeholder when the file is gone."""
    scenario = corpus.scenario(scenario_id)
    if scenario is not None:
        fact = scenario.fact(fact_id)
        if fact is not None:
            return FactRef(
                scenario_id=scenario_id, fact_id=fact_id, count=count, text=fact.statement, source=fact.source
            )
        disallowed = scenario.disallowed(fact_id)
        if disallowed is not None:
            return FactRef(
                scenario_id=scenario_id,
                fact_id=fact_id,
                count=count,
                text=f"Disallowed claim: {disallowed.text}",
                source=disallowed.rationale or "answer key",
            )
    return FactRef(
        scenario_id=scenario_id,
        fact_id=fact_id,
        count=count,
        text="(fact text unavailable: the scenario file named in the manifest was not found)",
        source="",
    )


def _error_categories(corpus: Corpus) -> list[tuple[str, int]]:
    return [
        (str(r[0]), int(r[1]))
        for r in corpus.query(
            f"SELECT c, count(*) FROM trial_groups, unnest(error_categories) AS u(c) WHERE {SCORED_FILTER} "
            "GROUP BY 1 ORDER BY 2 DESC, 1"
        )
    ]


def _missed_points(corpus: Corpus) -> list[FactRef]:
    rows = corpus.query(
        "SELECT scenario_id, p, count(*) FROM trial_groups, unnest(missing_required_points) AS u(p) "
        f"WHERE {SCORED_FILTER} GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT {TOP}"
    )
    return [fact_ref(corpus, s, f, c) for s, f, c in rows]


def _contradicted(corpus: Corpus) -> list[FactRef]:
    rows = corpus.query(
        "SELECT scenario_id, e, count(*) FROM final_claims, unnest(evidence) AS v(e) "
        f"WHERE label = 'CONTRADICTED' GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT {TOP}"
    )
    return [fact_ref(corpus, s, f, c) for s, f, c in rows]


def _exemplars(corpus: Corpus) -> list[Exemplar]:
    """The most severe contradicted claims, one per (scenario, first cited fact), worst first."""
    rank = _SEVERITY_RANK
    rows = corpus.query(
        "SELECT trial_id, target, scenario_id, claim_id, turn_id, evidence, severity FROM ("
        "SELECT *, row_number() OVER (PARTITION BY scenario_id, evidence[1] "
        f"ORDER BY {rank} DESC, trial_id, claim_id) AS pick, {rank} AS rank "
        "FROM final_claims WHERE label = 'CONTRADICTED') "
        f"WHERE pick = 1 ORDER BY rank DESC, trial_id, claim_id LIMIT {EXEMPLARS}"
    )
    texts = corpus.texts(sorted({r[0] for r in rows}))
    out = []
    for trial_id, target, scenario_id, claim_id, turn_id, evidence, severity in rows:
        conversation, claims = texts.get(trial_id, ([], []))
        answer = _turn_text(conversation, "assistant", turn_id)
        claim = next((c for c in claims if c["claim_id"] == claim_id), None)
        quote = claim["text"] if claim else ""
        if claim and answer is not None:
            quote = " … ".join(answer[s:e] for s, e in span_pairs(claim["quote_spans"])) or quote
        group = next((t.get("question_group") for t in conversation if t["turn_id"] == turn_id), None)
        out.append(
            Exemplar(
                trial_id=trial_id,
                target=target,
                scenario_id=scenario_id,
                question_group=group or scenario_id,
                question=_turn_text(conversation, "user", turn_id) or "",
                quote=quote,
                severity=severity or "none",
                facts=[fact_ref(corpus, scenario_id, e) for e in evidence],
            )
        )
    return out


def _turn_text(conversation: list[dict[str, Any]], role: str, turn_id: str) -> str | None:
    return next((t["text"] for t in conversation if t["role"] == role and t["turn_id"] == turn_id), None)


# Verifiers that are one deterministic program: copies of it agree by construction, so their
# agreement says nothing about how reliable the coding is.
DETERMINISTIC_JUDGES = ("rules",)
_COPIES = (
    "trial_id IN (SELECT trial_id FROM trials WHERE len(judges) > 0 AND "
    f"list_bool_and(list_transform(judges, lambda j: list_contains({list(DETERMINISTIC_JUDGES)}, j) "
    "AND j = judges[1])))"
)
COPIES_REASON = (
    "every verifier is the same deterministic program ({judges}); its copies agree by construction, "
    "so a perfect score would say nothing about reliability. Use model verifiers from two providers "
    "(or human double coding) to measure it"
)


def _votes(corpus: Corpus) -> tuple[list[list[str | None]], int]:
    rows = corpus.query(f"SELECT labels, unanimous FROM final_claims WHERE NOT {_COPIES}")
    return [list(r[0]) for r in rows], sum(not r[1] for r in rows)


def _agreement(corpus: Corpus) -> Agreement:
    """Agreement over trials judged by distinct verifiers; trials judged by copies of one
    deterministic program are left out and counted, and alone they make it not applicable."""
    excluded = int(corpus.query(f"SELECT count(*) FROM final_claims WHERE {_COPIES}")[0][0])
    votes, not_unanimous = _votes(corpus)
    if excluded and not votes:
        return not_applicable(COPIES_REASON.format(judges=", ".join(DETERMINISTIC_JUDGES)), excluded)
    return agreement(votes, not_unanimous).model_copy(update={"excluded_claims": excluded})


def _per_group_agreement(corpus: Corpus) -> list[GroupAgreement]:
    rows = corpus.query(
        "SELECT tg.question_group, list(fc.labels), count(*) FILTER (WHERE NOT fc.unanimous) "
        "FROM final_claims fc JOIN turn_groups tg USING (trial_id, turn_id) "
        f"WHERE NOT fc.{_COPIES} GROUP BY 1"
    )
    out = [
        GroupAgreement(question_group=g, agreement=agreement([list(x) for x in v], int(n)))
        for g, v, n in rows
    ]
    return sorted(out, key=lambda row: group_sort_key(row.question_group))


def _usage(corpus: Corpus) -> list[Usage]:
    rows = corpus.query(
        "SELECT role, spec, count(*), sum(usage.input_tokens), sum(usage.output_tokens), "
        "CASE WHEN count(cost_usd) = 0 THEN NULL ELSE sum(cost_usd) END "
        "FROM calls GROUP BY 1, 2 ORDER BY 1, 2"
    )
    return [
        Usage(role=r, spec=s, calls=c, input_tokens=i, output_tokens=o, cost_usd=cost)
        for r, s, c, i, o, cost in rows
    ]


def _unscored(corpus: Corpus) -> list[UnscoredItem]:
    rows = corpus.query(
        "SELECT t.trial_id, t.target.spec, t.scenario_id, u.item, u.reason FROM trials t, "
        "unnest(t.unscored) AS x(u) ORDER BY 1, 4"
    )
    return [UnscoredItem(trial_id=a, target=b, scenario_id=c, item=d, reason=e) for a, b, c, d, e in rows]


def _pairs(corpus: Corpus) -> list[PairRow]:
    """Every pair of targets on the items both answered: (scenario, question group, epoch), so two
    single-model runs reported together pair up."""
    rows = corpus.query(
        "SELECT target, scenario_id, question_group, epoch, ship_category, variant "
        f"FROM trial_groups WHERE {SCORED_FILTER}"
    )
    outcomes: dict[str, dict[tuple[str, ...], str]] = {}
    for target, scenario_id, group, epoch, category, variant in rows:
        # Paired within a variant too: two targets are compared under the same system prompt.
        outcomes.setdefault(target, {})[(scenario_id, group, str(epoch), variant)] = category
    out = []
    for a, b in list(combinations(target_order(corpus), 2))[:MAX_PAIRS]:
        if a in outcomes and b in outcomes:
            out.append(
                PairRow(
                    target_a=a,
                    target_b=b,
                    ac=paired_rate(
                        _is(outcomes[a], "accurate_complete"), _is(outcomes[b], "accurate_complete")
                    ),
                    incorrect=paired_rate(_is(outcomes[a], "incorrect"), _is(outcomes[b], "incorrect")),
                )
            )
    return out


def _is(outcomes: dict[tuple[str, ...], str], category: str) -> dict[tuple[str, ...], bool]:
    return {key: value == category for key, value in outcomes.items()}


def gather(corpus: Corpus, seed: int) -> Findings:
    review = corpus.query(
        "SELECT trial_id, target.spec, scenario_id, disagreement_rate FROM trials "
        "WHERE flags.needs_manual_review ORDER BY trial_id"
    )
    return Findings(
        error_categories=_error_categories(corpus),
        missed_points=_missed_points(corpus),
        contradicted_facts=_contradicted(corpus),
        exemplars=_exemplars(corpus),
        agreement=_agreement(corpus),
        group_agreement=_per_group_agreement(corpus),
        review_trials=[(str(a), str(b), str(c), float(d or 0.0)) for a, b, c, d in review],
        usage=_usage(corpus),
        unscored=_unscored(corpus),
        pairs=_pairs(corpus),
    )
