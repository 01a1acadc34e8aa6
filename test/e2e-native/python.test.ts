/**
 * Python: examples/python-flagship, the project a user runs with `pulumi up` (Pulumi.yaml, `__main__.py`,
 * requirements.txt), its `__main__.py` run as an Automation API inline program (drivers/inline.py) on the
 * generated SDK, in the virtual environment its Pulumi.yaml names (`venv`), into which pip installs
 * requirements.txt: `pulumi` from PyPI and the SDK from sdk/python.
 */
import { copyFileSync } from "node:fs";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { mustExec } from "../../scripts/shared/commands";
import { describeFlagship, editProgram, expectDocsInputs, inlineOperation, ROOT } from "./flagship";

/** The Python to make the virtual environment with: $PYTHON, else python3 (3.9 or newer: the SDK's requires-python). */
const PYTHON = process.env.PYTHON ?? "python3";
const probe = spawnSync(PYTHON, ["-c", "import sys, venv; assert sys.version_info >= (3, 9)"], {
  stdio: "ignore",
});
const missing = probe.status === 0 ? undefined : `no Python 3.9+ with venv (${PYTHON})`;

const venvPython = (work: string) => path.join(work, "venv", "bin", "python");

describeFlagship(
  "Python",
  {
    example: "python-flagship",
    install: async (h) => {
      // The copy lives elsewhere than the example: its requirement of the SDK names this checkout's sdk/python.
      editProgram(h.work, "requirements.txt", "../../sdk/python", path.join(ROOT, "sdk", "python"));
      await mustExec(PYTHON, ["-m", "venv", "venv"], { cwd: h.work, env: h.env });
      await mustExec(
        venvPython(h.work),
        ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", "requirements.txt"],
        { cwd: h.work, env: h.env },
      );
    },
    operation: inlineOperation,
    edit: { file: "__main__.py", from: "threshold=25,", to: "threshold=40," },
    importDataset: async (h, id) => {
      const env = { IMPORT_DATASET_ID: id };
      return { changes: await inlineOperation(h, "up", env), env };
    },
    docs: async (h, programs) => {
      // Under Pulumi's mocks (pulumi.runtime.set_mocks), which record what the SDK sends for each resource.
      copyFileSync(path.join(programs, "python", "docs_program.py"), path.join(h.work, "docs_program.py"));
      copyFileSync(path.join(__dirname, "programs", "docs_check.py"), path.join(h.work, "docs_check.py"));
      const seen = path.join(h.work, "docs-seen.json");
      await mustExec(venvPython(h.work), ["docs_check.py", seen], { cwd: h.work, env: h.env });
      expectDocsInputs(seen, programs);
    },
  },
  missing,
);
