"""Package data: the model catalog and prices, fake profiles, reference sets, studies and the counselors'
baseline. Files only; imports nothing of medeval."""
