"""Statistics behind every interval: Wilson, Newcombe, kappa, paired clustered differences and
consistency across epochs. Imports loading and the statistics libraries only."""
