"""PNG charts (matplotlib, Agg backend): SHIP categories per target beside the counselors, and the
distributions of trial accuracy and completeness per target."""

from __future__ import annotations

import random
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display: reports are built on servers and in CI

import matplotlib.pyplot as plt

from medeval.reporting.loading.baseline import SHIP_CATEGORIES
from medeval.reporting.loading.run import Corpus
from medeval.reporting.tables.run_tables import POOLED, ShipRow, target_order

CATEGORY_COLOURS = {
    "accurate_complete": "#2e7d32",
    "substantive_incomplete": "#9ccc65",
    "not_substantive": "#bdbdbd",
    "incorrect": "#c62828",
    "incomplete_data": "#6d4c41",
}
CATEGORY_LABELS = {
    "accurate_complete": "Accurate & complete",
    "substantive_incomplete": "Substantive, incomplete",
    "not_substantive": "Not substantive",
    "incorrect": "Incorrect",
    "incomplete_data": "Incomplete data",
}
MAX_DOTS = 400
SHIP_CHART = "ship_categories.png"
DISTRIBUTION_CHART = "score_distributions.png"


def ship_chart(rows: list[ShipRow], path: Path) -> None:
    pooled = [row for row in rows if row.question_group == POOLED and row.n]
    labels = [row.label for row in pooled]
    fig, ax = plt.subplots(figsize=(9, 0.5 * len(pooled) + 1.8), dpi=110)
    left = [0.0] * len(pooled)
    for category in SHIP_CATEGORIES:
        shares = [100 * row.counts[category] / row.n for row in pooled]
        ax.barh(labels, shares, left=left, color=CATEGORY_COLOURS[category], label=CATEGORY_LABELS[category])
        left = [a + b for a, b in zip(left, shares, strict=True)]
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of scored question groups (counselors: all 19 groups of the SHIP study)")
    ax.set_title("SHIP categories per target, pooled over question groups")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=3, fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})  # no URL or version stamp inside the image
    plt.close(fig)


def panel_rows(
    targets: list[str], data: dict[str, tuple[list[float], list[float]]], index: int
) -> list[tuple[int, list[float]]]:
    """(row, values) of the targets with values in one panel; row is the target's place in `targets`
    (1-based) on both panels, whether or not the other panel has values for it."""
    out = []
    for row, target in enumerate(targets, start=1):
        values = list((data.get(target) or ([], []))[index] or [])
        if values:
            out.append((row, values))
    return out


def distribution_chart(corpus: Corpus, path: Path) -> None:
    targets = target_order(corpus)
    data = {
        spec: (acc, comp)
        for spec, acc, comp in corpus.query(
            "SELECT target.spec, "
            "list(final_scores.accuracy ORDER BY trial_id) FILTER (WHERE final_scores.accuracy IS NOT NULL), "
            "list(final_scores.completeness ORDER BY trial_id) "
            "FILTER (WHERE final_scores.completeness IS NOT NULL) "
            "FROM trials GROUP BY 1"
        )
    }
    fig, axes = plt.subplots(1, 2, figsize=(10, 0.45 * len(targets) + 2.4), dpi=110, sharey=True)
    rows = range(1, len(targets) + 1)
    for ax, index, title in ((axes[0], 0, "Accuracy"), (axes[1], 1, "Completeness")):
        # Every target keeps its own row on both panels, so a target with no values in one panel
        # (no judged claim has no accuracy) leaves its row empty instead of shifting the labels.
        present = [
            (row, list(data.get(t, ([], []))[index] or [])) for row, t in zip(rows, targets, strict=True)
        ]
        present = [(row, values) for row, values in present if values]
        if present:
            ax.boxplot(
                [values for _, values in present],
                orientation="horizontal",
                positions=[row for row, _ in present],
                whis=(0, 100),
                manage_ticks=False,
            )
            for row, values in present:
                # A seeded sample keeps the dots readable and the chart quick with many trials.
                shown = random.Random(row).sample(values, MAX_DOTS) if len(values) > MAX_DOTS else values
                ax.scatter(shown, [row] * len(shown), s=10, alpha=0.4, color="#1565c0", zorder=3)
        filled = {row for row, _ in present}
        for row in rows:
            if row not in filled:
                ax.text(0.5, row, "no values", ha="center", va="center", fontsize=8, color="#757575")
        ax.set_yticks(list(rows), targets)
        ax.set_ylim(len(targets) + 0.5, 0.5)
        ax.set_xlim(-0.05, 1.05)
        ax.set_xlabel(f"{title} of the trial (0–1)")
        ax.set_title(f"{title} per trial")
    axes[0].set_ylabel("Target")
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})  # no URL or version stamp inside the image
    plt.close(fig)
