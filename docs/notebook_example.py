# %% [markdown]
# # A medeval study in a notebook
#
# Runs the example SHIP replication study offline (fake targets, rules judges), then reads the
# results as DuckDB relations. Each `# %%` block is one notebook cell; the file also runs as a
# plain script: `python docs/notebook_example.py`. Inside Jupyter, `api.run_study` works although
# the notebook's event loop is already running (the run is driven in a worker thread).

# %%
from importlib.resources import files
from pathlib import Path

from medeval import api

study = Path(str(files("medeval.data").joinpath("studies", "ship_replication.toml")))
result = api.run_study(study, out=Path("runs"))
print(result.store.directory, len(result.records), "trials")

# %%
runs = api.load(result.store.directory)  # or api.load("runs") for every run under runs/

# The study's four category rates by target and system-prompt variant.
rates = runs.rates(by=("target", "variant"))
print(rates)  # rates.df() gives a pandas DataFrame, rates.arrow() an Arrow table, where installed

# %%
# Any SQL over the tables trials, groups, claims, checklist and calls (docs/data.md).
print(
    runs.sql(
        "select target, question_group, ship_category, count(*) as n "
        "from groups where scored group by all order by all"
    )
)

# %%
# Which persona replies did the chatbots need? (fake:asks_zip asks for a ZIP code first)
print(runs.sql("select target, sum(persona_replies) as replies from trials group by all order by 1"))

# %%
# Tokens and cost per target, from the call records.
print(
    runs.sql(
        "select target, sum(input_tokens) as tokens_in, sum(output_tokens) as tokens_out, "
        "sum(cost_usd) as usd from calls where role = 'target' group by 1 order by 1"
    )
)
runs.close()
