# %% [markdown]
# # Cleaning a DataFrame in a notebook
#
# A plain Python script in the "percent" format: Jupyter (with jupytext), VS Code and
# PyCharm open it as a notebook, one cell per `# %%`; `python docs/notebook_example.py`
# runs it top to bottom. `tests/test_notebook_example.py` runs it on every CI build.
#
# It needs `pip install 'recursive-data-cleaner[pandas]'` (and matplotlib for the chart). To stay
# fast and offline, the model is a scripted stand-in: a plain function `prompt -> reply`
# is a valid backend. Replace `scripted_model` with `"local"` (the embedded model) or
# `"ollama:qwen2.5-coder:7b"` for a real run.

# %%
import os
import re
import tempfile

import pandas as pd

import recursive_cleaner
from recursive_cleaner.ui.frames import CleaningReport, improvement_frame, plot_improvement

workdir = tempfile.mkdtemp(prefix="rc-notebook-")

# %% [markdown]
# ## A small messy table

# %%
df = pd.DataFrame(
    {
        "name": ["Ann Lee", "Bo Chen", "Cy Diaz", "Di Eze", "Ed Fox", "Flo Gil", "Gus Hu", "Hal Ito"],
        "phone": ["(555) 123-4567", "555.987.6543", "+15550001111", "1-555-222-3333",
                  "555 444 5555", "+1 (555) 666-7777", None, "5558889999"],
        "signup": ["2023-04-05", "4/6/2023", "April 7, 2023", "20230408", "2023/04/09",
                   "2023-04-10T14:30:00Z", "11 Apr 2023", "2023-04-12"],
        "status": ["active", "Actve", "PENDING ", "churned", "chruned", "active", "pending", "Active"],
    },
    index=pd.Index([101, 102, 103, 104, 105, 106, 107, 108], name="customer"),
)
df

# %% [markdown]
# ## A scripted model
#
# The cleaner asks for one function per dirty field ("Write ONE function named NAME(record)
# that fixes the field 'FIELD'"). This stand-in answers with a toolkit one-liner for the
# three fields it knows, and says "clean" to everything else.

# %%
FIXES = {
    "phone": "to_e164(record.get('phone'))",
    "signup": "to_iso_date(record.get('signup'))",
    "status": "closest_value(record.get('status'), ['active', 'pending', 'churned'])",
}
CLEAN = ("<cleaning_analysis><issues_detected><issue id=\"1\" solved=\"true\">nothing left</issue>"
         "</issues_detected><chunk_status>clean</chunk_status></cleaning_analysis>")


def scripted_model(prompt: str) -> str:
    task = re.search(r"named (\w+)\(record\) that fixes the field '([^']+)'", prompt)
    if not task or task.group(2) not in FIXES:
        return CLEAN
    name, field = task.groups()
    helper = FIXES[field].split("(")[0]
    code = (f"from recursive_cleaner.toolkit import {helper}\n\n"
            f"def {name}(record):\n"
            f'    """Normalizes {field}."""\n'
            f"    record = dict(record)\n"
            f"    record['{field}'] = {FIXES[field]}\n"
            f"    return record")
    return (f"<cleaning_analysis><issues_detected><issue id=\"1\" solved=\"false\">{field} formats vary</issue>"
            f"</issues_detected><function_to_generate><name>{name}</name><docstring>Normalizes {field}."
            f"</docstring><code>\n```python\n{code}\n```\n</code></function_to_generate>"
            f"<chunk_status>needs_more_work</chunk_status></cleaning_analysis>")


# %% [markdown]
# ## Generate the cleaning functions
#
# `recursive_cleaner.clean` takes the DataFrame as it is (written once as JSONL for the cleaner:
# dates become ISO strings, NaN becomes null), shows a live progress bar in the cell, and
# returns a result that displays itself as a table.

# %%
result = recursive_cleaner.clean(
    df,
    """
    - phone: E.164 (+15551234567)
    - signup: ISO 8601 date (YYYY-MM-DD)
    - status: one of active, pending, churned
    """,
    backend=scripted_model,
    chunk_size=8,
    output_path=os.path.join(workdir, "cleaning_functions.py"),
    holdout_ratio=0.0,
    track_metrics=True,
)
result

# %% [markdown]
# ## Apply them back to the DataFrame
#
# Same index, same column order; each row runs through `clean_data` in a sandboxed worker.

# %%
cleaned = result.apply(df, workers=1)
cleaned

# %% [markdown]
# ## How much better is it?
#
# The report renders as a table in a notebook; `improvement_frame` gives the numbers as a
# DataFrame; `plot_improvement` draws conformity before and after.

# %%
report = result.improvement
report

# %%
improvement_frame(report)[["conformity_before", "conformity_after", "cells_changed"]]

# %%
try:
    plot_improvement(report)
except ImportError as missing:  # matplotlib is optional
    print(missing)

# %%
result.report
