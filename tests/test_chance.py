"""Gwet's AC1 and PABAK (calibration/chance.py) against published worked examples, and the
sensitivity/specificity the validity figures add."""

from __future__ import annotations

import numpy as np
import pytest

from medeval.calibration.chance import gwet_ac1, pabak
from medeval.calibration.render import category_rows, headline
from medeval.calibration.validity import Pair, inter_coder, validity


def test_ac1_matches_gwets_three_category_example() -> None:
    # Gwet, Handbook of Inter-Rater Reliability (4th ed., 2014), two abstractors classifying 100
    # pregnancies (Ectopic, AIU, NIU); irrCAC's gwet.ac1.table prints AC1 0.84933, SE 0.04322,
    # 95% CI 0.76358 to 0.93508 (pa 0.89, pe 0.26992).
    table = np.array([[13, 0, 0], [0, 20, 7], [0, 4, 56]])
    ac1 = gwet_ac1(table)
    assert ac1.estimate == pytest.approx(0.84933, abs=5e-6)
    assert (ac1.low, ac1.high) == pytest.approx((0.76358, 0.93508), abs=5e-6)
    assert ac1.n == 100
    # Brennan-Prediger with q = 3: (0.89 - 1/3) / (2/3).
    assert pabak(table).estimate == pytest.approx(0.835)


def test_pabak_stays_where_kappa_collapses() -> None:
    # Feinstein and Cicchetti (J Clin Epidemiol 1990;43:543), the tables Byrt, Bishop and Carlin
    # (1993) answer with PABAK: both agree on 85 of 100, kappa 0.70 and 0.32, PABAK 0.70 for both.
    balanced, skewed = np.array([[40, 9], [6, 45]]), np.array([[80, 10], [5, 5]])
    for table in (balanced, skewed):
        value = pabak(table)
        assert value.estimate == pytest.approx(0.70)
        assert value.low is not None and value.high is not None
        # The Wilson interval of 85/100 (0.7672 to 0.9069) carried through 2 pa - 1.
        assert (value.low, value.high) == pytest.approx((0.5343, 0.8139), abs=1e-4)
    # AC1 does not fall with prevalence either: 0.70 balanced, 0.81 skewed (kappa: 0.70, 0.32).
    assert gwet_ac1(balanced).estimate == pytest.approx(0.7007, abs=1e-4)
    assert gwet_ac1(skewed).estimate == pytest.approx(0.808, abs=1e-4)


def test_no_pairs_give_no_coefficient() -> None:
    empty = np.zeros((4, 4))
    assert gwet_ac1(empty).estimate is None and pabak(empty).estimate is None
    one = np.zeros((4, 4))
    one[0, 0] = 1
    assert gwet_ac1(one).low is None


def test_validity_adds_ac1_pabak_and_specificity() -> None:
    rows = [("incorrect", "incorrect", 8), ("incorrect", "accurate_complete", 2)]
    rows += [("accurate_complete", "accurate_complete", 9), ("accurate_complete", "incorrect", 1)]
    pairs = [Pair(item_id=f"{h}{j}{i}", human=h, judges=j) for h, j, k in rows for i in range(k)]
    v = validity(pairs)
    assert v.ac1 is not None and v.pabak is not None
    # pa = 0.85 over the four categories: PABAK = (0.85 - 1/4) / (3/4).
    assert v.pabak.estimate == pytest.approx(0.8)
    incorrect = v.category("incorrect")
    assert incorrect.recall.estimate == pytest.approx(8 / 10)
    # Of the 10 groups people called A&C, the judges kept 9 out of Incorrect.
    assert incorrect.specificity is not None and incorrect.specificity.estimate == pytest.approx(9 / 10)
    assert "Specificity" not in category_rows(v)[0][0] and len(category_rows(v)[0]) == 6
    assert "Gwet's AC1 0." in headline(v)[1] and "PABAK 0.80" in headline(v)[1]
    assert "AC1" in v.one_line() and "PABAK 0.80" in v.one_line()
    coders = inter_coder(
        {"a": {"x": "incorrect", "y": "incorrect"}, "b": {"x": "incorrect", "y": "not_substantive"}}
    )
    assert coders[0].ac1 is not None and coders[0].pabak is not None
    assert coders[0].pabak.estimate == pytest.approx((0.5 - 0.25) / 0.75)
