# lit configuration for tests/filecheck: `lit tests/filecheck` (pytest runs it too).
import os
import shutil
import sys

import lit.formats

config.name = "xtir"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.join(os.path.dirname(__file__), "tests", "filecheck")
config.excludes = ["lit.local.cfg"]

bindir = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([bindir, config.environment.get("PATH", os.environ.get("PATH", ""))])
config.environment["PYTHONUNBUFFERED"] = "1"
config.substitutions.append(("xtir-opt", shutil.which("xtir-opt", path=bindir) or "xtir-opt"))
config.substitutions.append(("xtir-translate", shutil.which("xtir-translate", path=bindir) or "xtir-translate"))
config.substitutions.append(("filecheck", shutil.which("filecheck", path=bindir) or "filecheck"))

# MLIR's tests spell it FileCheck.
config.substitutions.append(("FileCheck", shutil.which("filecheck", path=bindir) or "filecheck"))
