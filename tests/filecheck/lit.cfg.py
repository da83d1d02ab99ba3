# Tests live under the repository's lit.cfg.py; this file lets `lit tests/filecheck` find it.
import os

lit_config.load_config(config, os.path.join(os.path.dirname(__file__), "..", "..", "lit.cfg.py"))
