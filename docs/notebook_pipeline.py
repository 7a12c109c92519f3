# %% [markdown]
# # A cleaner you fit once and reuse
#
# `recursive_cleaner.Cleaner` is the cleaning as a fitted object, scikit-learn style: `fit` on
# this month's table writes the functions, `transform` applies them to next month's, `validate`
# says which cells still break the spec, `save` / `Cleaner.load` keep it as one JSON file.
# A "percent" script like `notebook_example.py`; `tests/test_notebook_example.py` runs it in a
# real kernel. It needs `pip install 'recursive-data-cleaner[pandas]'`; scikit-learn (a
# `Pipeline` step) and `recursive-data-cleaner[pandera]` (a pandera schema) are used when present.
# The model is a scripted stand-in (a function `prompt -> reply`); use `"local"` for a real run.

# %%
import os
import re
import tempfile

import pandas as pd

from recursive_cleaner import Cleaner, validate

workdir = tempfile.mkdtemp(prefix="rc-pipeline-")

# %%
FIXES = {
    "phone": "to_e164(record.get('phone'))",
    "status": "closest_value(record.get('status'), ['active', 'pending', 'churned'])",
}
CLEAN = (
    '<cleaning_analysis><issues_detected><issue id="1" solved="true">nothing left</issue>'
    "</issues_detected><chunk_status>clean</chunk_status></cleaning_analysis>"
)


def scripted_model(prompt: str) -> str:
    task = re.search(r"named (\w+)\(record\) that fixes the field '([^']+)'", prompt)
    if not task or task.group(2) not in FIXES:
        return CLEAN
    name, field = task.groups()
    helper = FIXES[field].split("(")[0]
    code = (
        f"from recursive_cleaner.toolkit import {helper}\n\n"
        f"def {name}(record):\n"
        f'    """Normalizes {field}."""\n'
        f"    record = dict(record)\n"
        f"    record['{field}'] = {FIXES[field]}\n"
        f"    return record"
    )
    return (
        f'<cleaning_analysis><issues_detected><issue id="1" solved="false">{field} varies'
        f"</issue></issues_detected><function_to_generate><name>{name}</name><docstring>"
        f"Normalizes {field}.</docstring><code>\n```python\n{code}\n```\n</code>"
        f"</function_to_generate><chunk_status>needs_more_work</chunk_status></cleaning_analysis>"
    )


# %% [markdown]
# ## Fit on this month's table

# %%
october = pd.DataFrame(
    {
        "name": ["Ann Lee", "Bo Chen", "Cy Diaz", "Di Eze", "Ed Fox", "Flo Gil"],
        "phone": ["(555) 123-4567", "555.987.6543", "+15550001111", "1-555-222-3333",
                  "555 444 5555", None],
        "status": ["active", "Actve", "PENDING ", "churned", "chruned", "active"],
    }
)
cleaner = Cleaner(
    """
    - phone: E.164 (+15551234567)
    - status: one of active, pending, churned
    """,
    backend=scripted_model,
    chunk_size=6,
    holdout_ratio=0.0,
    output_path=os.path.join(workdir, "cleaning_functions.py"),
)
try:  # a step of a scikit-learn Pipeline when scikit-learn is installed
    from sklearn.pipeline import Pipeline
except ImportError:
    pipeline = cleaner.fit(october)
else:
    pipeline = Pipeline([("clean", cleaner)]).fit(october)
cleaner.functions_

# %% [markdown]
# ## Apply it to next month's table
#
# Same index; each row runs through the fitted functions in a sandboxed worker, then the
# cross-row steps.

# %%
november = pd.DataFrame(
    {"name": ["Gus Hu", "Hal Ito"], "phone": ["555-777-8888", "+1 555 999 0000"],
     "status": ["Pending", "ACTIVE"]},
    index=pd.Index([201, 202], name="customer"),
)
cleaned = pipeline.transform(november)
cleaned

# %% [markdown]
# ## Which cells break the spec?
#
# `validate` checks any table against the fitted spec: per field, the cells (row, index label,
# value, why) and the counts.

# %%
check = validate(november, cleaner.spec)
print(check.summary())
check.to_frame()

# %%
after = cleaner.validate(cleaned)
after.ok

# %%
try:
    schema = cleaner.to_pandera()  # the same spec as a pandera schema
except ImportError as missing:
    print(missing)
else:
    schema.validate(cleaned)

# %% [markdown]
# ## Keep it as one file
#
# The goals, the options, the code and the spec; loading reads JSON only, and the code runs
# nowhere but in the sandbox when `transform` applies it.

# %%
saved = cleaner.save(os.path.join(workdir, "cleaner.json"))
reloaded = Cleaner.load(saved)
reloaded.transform(november).equals(cleaned)
