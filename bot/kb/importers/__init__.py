"""Importers that turn outside data into knowledge-base entries (pure functions, no I/O but reading).

* :func:`import_skypilot_csv`: SkyPilot catalog ``vms.csv`` -> price-offer dicts.
* :func:`import_hf_config`: Hugging Face ``config.json`` -> model entry dict, with an exact
  parameter count (:func:`compute_params_from_config`); :func:`load_config_json` parses pasted
  config text within explicit bounds (size, depth, digits, finite numbers).
"""

from bot.kb.importers.hf_config import (
    ConfigImportError,
    HfImportResult,
    compute_params_from_config,
    import_hf_config,
    load_config,
    load_config_json,
)
from bot.kb.importers.skypilot import CatalogImportError, ImportResult, import_skypilot_csv

__all__ = [
    "CatalogImportError",
    "ConfigImportError",
    "HfImportResult",
    "ImportResult",
    "compute_params_from_config",
    "import_hf_config",
    "import_skypilot_csv",
    "load_config",
    "load_config_json",
]
