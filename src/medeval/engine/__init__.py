"""Engine: a run end to end: the orchestrator plans trials, a trial asks and judges, the run writer
records; the run config, budget, rescore and calibration runs. Imports agents, calls, scenarios and below."""
