"""What went wrong and how sure the judges were: failure modes, exemplary incorrect responses,
judge agreement, paired target comparisons, token use and unscored items."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

from pydantic import BaseModel

from medeval.reporting.loading.baseline import group_sort_key
from medeval.reporting.loading.run import Corpus, span_pairs
from medeval.reporting.stats.intervals import Agreement, agreement_from_patterns, not_applicable
from medeval.reporting.stats.paired import PairedRate, holm, paired_from_counts
from medeval.reporting.tables.run_tables import SCORED_FILTER, target_order

TOP = 10
EXEMPLARS = 5
#: Rows of a list that grows with the run (unscored items, trials sent to review, ...) that the
#: report shows; the rest are counted, and all of them are in a CSV beside the report.
LIST_CAP = 50
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
    #: The version of the answer key the fact was read from ("" when the file is gone).
    version: str = ""


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
    #: Of the input, read from (and written to) a provider's prompt cache.
    cached_tokens: int | None = None
    cache_write_tokens: int | None = None


class UnscoredItem(BaseModel):
    trial_id: str
    target: str
    scenario_id: str
    item: str
    reason: str


class PairRow(BaseModel):
    target_a: str
    target_b: str
    #: B minus A over every item both answered, clustered by question group (reporting/stats/paired.py).
    ac: PairedRate
    incorrect: PairedRate


class Findings(BaseModel):
    error_categories: list[tuple[str, int]]
    missed_points: list[FactRef]
    contradicted_facts: list[FactRef]
    exemplars: list[Exemplar]
    agreement: Agreement
    group_agreement: list[GroupAgreement]
    #: The first LIST_CAP of `review_total` trials (all in review_trials.csv).
    review_trials: list[tuple[str, str, str, float]]
    review_total: int = 0
    usage: list[Usage]
    #: The first LIST_CAP of `unscored_total` items (all in unscored.csv).
    unscored: list[UnscoredItem]
    unscored_total: int = 0
    pairs: list[PairRow]


def fact_ref(corpus: Corpus, scenario_id: str, fact_id: str, count: int = 0, sha256: str = "") -> FactRef:
    """The fact's text and source from the answer key the trial was judged with (its recorded
    sha256); a placeholder when the file is gone."""
    scenario = corpus.scenario(scenario_id, sha256)
    if scenario is not None:
        known = {"scenario_id": scenario_id, "fact_id": fact_id, "count": count, "version": scenario.version}
        fact = scenario.fact(fact_id)
        if fact is not None:
            return FactRef(**known, text=fact.statement, source=fact.source)
        disallowed = scenario.disallowed(fact_id)
        if disallowed is not None:
            return FactRef(
                **known,
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


def key_labels(items: Sequence[FactRef]) -> list[str]:
    """Each fact's scenario, with its key's version where the list holds two keys of one scenario
    (two seasons' keys share scenario ids)."""
    versions: dict[str, set[str]] = {}
    for m in items:
        versions.setdefault(m.scenario_id, set()).add(m.version)
    return [
        f"{m.scenario_id} (version {m.version})" if len(versions[m.scenario_id]) > 1 else m.scenario_id
        for m in items
    ]


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
        "SELECT scenario_id, p, count(*), scenario_sha256 FROM trial_groups, "
        f"unnest(missing_required_points) AS u(p) WHERE {SCORED_FILTER} GROUP BY 1, 2, 4 "
        f"ORDER BY 3 DESC, 1, 2, 4 LIMIT {TOP}"
    )
    return [fact_ref(corpus, s, f, c, key or "") for s, f, c, key in rows]


def _contradicted(corpus: Corpus) -> list[FactRef]:
    rows = corpus.query(
        "SELECT scenario_id, e, count(*), scenario_sha256 FROM final_claims, unnest(evidence) AS v(e) "
        f"WHERE label = 'CONTRADICTED' GROUP BY 1, 2, 4 ORDER BY 3 DESC, 1, 2, 4 LIMIT {TOP}"
    )
    return [fact_ref(corpus, s, f, c, key or "") for s, f, c, key in rows]


def _exemplars(corpus: Corpus) -> list[Exemplar]:
    """The most severe contradicted claims, one per (scenario, key, first cited fact), worst first,
    each fact read from the key its trial was judged with."""
    rank = _SEVERITY_RANK
    rows = corpus.query(
        "SELECT trial_id, target, scenario_id, claim_id, turn_id, evidence, severity, scenario_sha256 FROM ("
        "SELECT *, row_number() OVER (PARTITION BY scenario_id, scenario_sha256, evidence[1] "
        f"ORDER BY {rank} DESC, trial_id, claim_id) AS pick, {rank} AS rank "
        "FROM final_claims WHERE label = 'CONTRADICTED') "
        f"WHERE pick = 1 ORDER BY rank DESC, trial_id, claim_id LIMIT {EXEMPLARS}"
    )
    texts = corpus.texts(sorted({r[0] for r in rows}))
    out = []
    for trial_id, target, scenario_id, claim_id, turn_id, evidence, severity, key in rows:
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
                facts=[fact_ref(corpus, scenario_id, e, sha256=key or "") for e in evidence],
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


def _agreement(corpus: Corpus) -> Agreement:
    """Agreement over trials judged by distinct verifiers; trials judged by copies of one
    deterministic program are left out and counted, and alone they make it not applicable."""
    excluded = int(corpus.query(f"SELECT count(*) FROM final_claims WHERE {_COPIES}")[0][0])
    # How many claims got each pattern of labels: a handful of rows, however many claims.
    rows = corpus.query(
        "SELECT labels, count(*), count(*) FILTER (WHERE NOT unanimous) FROM final_claims "
        f"WHERE NOT {_COPIES} GROUP BY 1"
    )
    if excluded and not rows:
        return not_applicable(COPIES_REASON.format(judges=", ".join(DETERMINISTIC_JUDGES)), excluded)
    result = agreement_from_patterns([(r[0], r[1]) for r in rows], sum(int(r[2]) for r in rows))
    return result.model_copy(update={"excluded_claims": excluded})


def _per_group_agreement(corpus: Corpus) -> list[GroupAgreement]:
    rows = corpus.query(
        "SELECT tg.question_group, fc.labels, count(*), count(*) FILTER (WHERE NOT fc.unanimous) "
        "FROM final_claims fc JOIN turn_groups tg USING (trial_id, turn_id) "
        f"WHERE NOT fc.{_COPIES} GROUP BY 1, 2"
    )
    by_group: dict[str, list[tuple[list[str | None], int, int]]] = {}
    for group, labels, count, split in rows:
        by_group.setdefault(group, []).append((labels, count, split))
    out = [
        GroupAgreement(
            question_group=g,
            agreement=agreement_from_patterns([(p, c) for p, c, _ in v], sum(int(s) for _, _, s in v)),
        )
        for g, v in by_group.items()
    ]
    return sorted(out, key=lambda row: group_sort_key(row.question_group))


def _usage(corpus: Corpus) -> list[Usage]:
    rows = corpus.query(
        "SELECT role, spec, count(*), sum(usage.input_tokens), sum(usage.output_tokens), "
        "CASE WHEN count(cost_usd) = 0 THEN NULL ELSE sum(cost_usd) END, "
        "sum(usage.cached_tokens), sum(usage.cache_write_tokens) "
        "FROM calls GROUP BY 1, 2 ORDER BY 1, 2"
    )
    return [
        Usage(
            role=r,
            spec=s,
            calls=c,
            input_tokens=i,
            output_tokens=o,
            cost_usd=cost,
            cached_tokens=cached,
            cache_write_tokens=written,
        )
        for r, s, c, i, o, cost, cached, written in rows
    ]


UNSCORED_SQL = (
    "SELECT t.trial_id, t.target.spec AS target, t.scenario_id, u.item, u.reason FROM trials t, "
    "unnest(t.unscored) AS x(u) ORDER BY 1, 4"
)
REVIEW_SQL = (
    "SELECT trial_id, target.spec AS target, scenario_id, "
    "coalesce(disagreement_rate, 0.0) AS disagreement_rate FROM trials "
    "WHERE flags.needs_manual_review ORDER BY trial_id"
)


def _unscored(corpus: Corpus) -> list[UnscoredItem]:
    rows = corpus.query(f"{UNSCORED_SQL} LIMIT {LIST_CAP}")
    return [UnscoredItem(trial_id=a, target=b, scenario_id=c, item=d, reason=e) for a, b, c, d, e in rows]


def _count(corpus: Corpus, sql: str) -> int:
    return int(corpus.query(f"SELECT count(*) FROM ({sql})")[0][0])


_PAIR_SQL = (
    "WITH items AS (SELECT target, scenario_id, question_group, epoch, variant, ship_category FROM "
    f"trial_groups WHERE {SCORED_FILTER} QUALIFY row_number() OVER (PARTITION BY target, scenario_id, "
    "question_group, epoch, variant ORDER BY run_dir DESC, trial_id DESC) = 1) "
    "SELECT x.scenario_id || '/' || x.question_group, {counts} FROM items x JOIN items y "
    "USING (scenario_id, question_group, epoch, variant) WHERE x.target = ? AND y.target = ? "
    "GROUP BY 1 ORDER BY 1"
)


def _pair_counts(category: str) -> str:
    """both, only A, only B, neither for one category, as SQL aggregates over joined items."""
    a, b = f"x.ship_category = '{category}'", f"y.ship_category = '{category}'"
    return (
        f"count(*) FILTER ({a} AND {b}), count(*) FILTER ({a} AND NOT {b}), "
        f"count(*) FILTER (NOT {a} AND {b}), count(*) FILTER (NOT {a} AND NOT {b})"
    )


def _pairs(corpus: Corpus) -> list[PairRow]:
    """Every pair of targets on the items both answered: (scenario, question group, epoch), so two
    single-model runs reported together pair up. Paired within a variant too: two targets are
    compared under the same system prompt. Counted per question group (the cluster) in SQL."""
    answered = {r[0] for r in corpus.query(f"SELECT DISTINCT target FROM trial_groups WHERE {SCORED_FILTER}")}
    sql = _PAIR_SQL.format(counts=f"{_pair_counts('accurate_complete')}, {_pair_counts('incorrect')}")
    out = []
    for a, b in list(combinations(target_order(corpus), 2))[:MAX_PAIRS]:
        if a in answered and b in answered:
            rows = corpus.query(sql, [a, b])
            out.append(
                PairRow(
                    target_a=a,
                    target_b=b,
                    ac=paired_from_counts({r[0]: (r[1], r[2], r[3], r[4]) for r in rows}),
                    incorrect=paired_from_counts({r[0]: (r[5], r[6], r[7], r[8]) for r in rows}),
                )
            )
    # Every pair and both rates are read together: adjusted together.
    holm([r for pair in out for r in (pair.ac, pair.incorrect)])
    return out


def gather(corpus: Corpus, seed: int) -> Findings:
    review = corpus.query(f"{REVIEW_SQL} LIMIT {LIST_CAP}")
    return Findings(
        error_categories=_error_categories(corpus),
        missed_points=_missed_points(corpus),
        contradicted_facts=_contradicted(corpus),
        exemplars=_exemplars(corpus),
        agreement=_agreement(corpus),
        group_agreement=_per_group_agreement(corpus),
        review_trials=[(str(a), str(b), str(c), float(d or 0.0)) for a, b, c, d in review],
        review_total=_count(corpus, REVIEW_SQL),
        usage=_usage(corpus),
        unscored=_unscored(corpus),
        unscored_total=_count(corpus, UNSCORED_SQL),
        pairs=_pairs(corpus),
    )
