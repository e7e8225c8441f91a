"""Judge bias probes: re-judge a reference set under controlled perturbations and count how often
the category flips (docs/statistics.md, "Judge bias probes"). `perturb` and `keyorder` make the
perturbed answers and keys, `flips` the statistics, `family` the vendor families, `render` the text;
engine/probes.py does the judging."""
