"""The tests' driver of a Python example: runs the example's own __main__.py as an Automation API inline program
(pulumi.automation create_or_select_stack with `program=`, pulumi/pulumi sdk/python/lib/pulumi/automation), so the
engine talks to this process and no Python language host is needed. The program runs as the language host would
run it: runpy.run_path on the file, as `__main__`, with its folder first on sys.path.

    python inline.py <example folder> preview|up|refresh|destroy

The stack `dev` of the project the example's Pulumi.yaml names lives in the backend PULUMI_BACKEND_URL names,
encrypted with PULUMI_CONFIG_PASSPHRASE. INLINE_CONFIG is the stack's configuration: a JSON object of key to
{"value", "secret"} (inline.mts, stackConfig); the secrets reach the stack on the CLI's stdin (set_stack_config).

stdout's last line is JSON: the operation, the count of resources per change and the stack outputs (secrets as
"[secret]"); the engine's output goes to stderr.
"""

import json
import os
import re
import runpy
import subprocess
import sys

from pulumi import automation as auto


def set_stack_config(stack: auto.Stack, folder: str, declared: dict) -> None:
    """The plain values as the Automation API sets them; each secret on the CLI's stdin, never in its arguments,
    where set_all_config would put it (`config set-all --secret key=value`) for any process to read. The CLI reads
    the value from stdin when stdin is not a terminal (pulumi/pulumi pkg/cmd/pulumi/config/config.go); the
    TypeScript driver does the same (test/helpers/stack-config.ts)."""
    plain = {k: auto.ConfigValue(v["value"]) for k, v in declared.items() if not v["secret"]}
    if plain:
        stack.set_all_config(plain)
    for key, v in declared.items():
        if not v["secret"]:
            continue
        done = subprocess.run(
            [stack.workspace.pulumi_command.command, "config", "set", "--secret", key, "--stack", stack.name,
             "--non-interactive"],
            input=v["value"], text=True, cwd=folder, capture_output=True, check=False,
            env={**os.environ, **(stack.workspace.env_vars or {})},
        )
        if done.returncode != 0:
            sys.exit(f"pulumi config set --secret {key} failed (exit code {done.returncode}): {done.stderr.strip()}")


def main(folder: str, operation: str) -> None:
    folder = os.path.abspath(folder)
    program_file = os.path.join(folder, "__main__.py")

    def program() -> None:
        sys.path.insert(0, folder)
        runpy.run_path(program_file, run_name="__main__")

    # No project_settings: the workspace reads the example's own Pulumi.yaml from work_dir; its name is the project.
    with open(os.path.join(folder, "Pulumi.yaml"), encoding="utf-8") as f:
        project = re.search(r"^name:\s*(\S+)", f.read(), re.M)
    if not project:
        sys.exit(f"{folder}/Pulumi.yaml names no project")
    stack = auto.create_or_select_stack(
        stack_name="dev",
        project_name=project.group(1),
        program=program,
        opts=auto.LocalWorkspaceOptions(work_dir=folder, secrets_provider="passphrase"),
    )
    declared = json.loads(os.environ["INLINE_CONFIG"])
    if "importDatasetId" not in declared:
        stack.remove_config("importDatasetId")
    set_stack_config(stack, folder, declared)

    echo = lambda line: print(line, file=sys.stderr)  # noqa: E731
    if operation == "preview":
        changes = stack.preview(on_output=echo).change_summary
    elif operation == "up":
        changes = stack.up(on_output=echo).summary.resource_changes
    elif operation == "refresh":
        changes = stack.refresh(on_output=echo).summary.resource_changes
    elif operation == "destroy":
        changes = stack.destroy(on_output=echo).summary.resource_changes
    else:
        sys.exit(f"usage: python inline.py <folder> preview|up|refresh|destroy (not {operation!r})")
    result = {"operation": operation, "changes": {str(k): v for k, v in (changes or {}).items()}}
    if operation != "destroy":
        result["outputs"] = {k: "[secret]" if v.secret else v.value for k, v in stack.outputs().items()}
    print(json.dumps(result))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python inline.py <example folder> preview|up|refresh|destroy")
    main(sys.argv[1], sys.argv[2])
