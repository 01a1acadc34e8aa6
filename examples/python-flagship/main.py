"""Runs flagship.py with Pulumi's Automation API as an inline program: the CLI talks to this process, so no
Python language host is needed.

    python main.py preview|up|refresh|destroy

The stack `dev` of project `python-flagship` lives in the backend PULUMI_BACKEND_URL names, else in a file
backend in ./.pulumi-state. Where the service is comes from the environment, and becomes the stack's provider
configuration (the token as a secret): OBSERVABILITY_URL (default: the emulator, http://127.0.0.1:8787),
OBSERVABILITY_TOKEN (default: the emulator's development token) and OBSERVABILITY_ORG_ID. SLACK_WEBHOOK_URL is the
notifier's secret URL; IMPORT_DATASET_ID, when set, imports that existing dataset.

The engine's output goes to stderr; stdout's last line is JSON: the operation, the count of resources per change
and the stack outputs (secrets as "[secret]").
"""

import json
import os
import sys

from pulumi import automation as auto

from flagship import program

HERE = os.path.dirname(os.path.abspath(__file__))
# The emulator's development token: not a secret, it is accepted only by the emulator.
EMULATOR_TOKEN = "xaat-local-development-token"


def stack() -> auto.Stack:
    env = {"PULUMI_CONFIG_PASSPHRASE": os.environ.get("PULUMI_CONFIG_PASSPHRASE", "pulumi-observability-local")}
    backend = os.environ.get("PULUMI_BACKEND_URL") or "file://" + os.path.join(HERE, ".pulumi-state")
    os.makedirs(os.path.join(HERE, ".pulumi-state"), exist_ok=True)
    project = auto.ProjectSettings(name="python-flagship", runtime="python", backend=auto.ProjectBackend(url=backend))
    s = auto.create_or_select_stack(
        stack_name="dev",
        project_name="python-flagship",
        program=program,
        opts=auto.LocalWorkspaceOptions(
            work_dir=HERE, project_settings=project, env_vars=env, secrets_provider="passphrase"
        ),
    )
    s.set_config("observability:url", auto.ConfigValue(os.environ.get("OBSERVABILITY_URL", "http://127.0.0.1:8787")))
    s.set_config(
        "observability:token", auto.ConfigValue(os.environ.get("OBSERVABILITY_TOKEN", EMULATOR_TOKEN), secret=True)
    )
    if os.environ.get("OBSERVABILITY_ORG_ID"):
        s.set_config("observability:orgId", auto.ConfigValue(os.environ["OBSERVABILITY_ORG_ID"]))
    s.set_config(
        "slackWebhookUrl",
        auto.ConfigValue(
            os.environ.get("SLACK_WEBHOOK_URL", "https://hooks.slack.com/services/T000/B000/XXXX"), secret=True
        ),
    )
    if os.environ.get("IMPORT_DATASET_ID"):
        s.set_config("importDatasetId", auto.ConfigValue(os.environ["IMPORT_DATASET_ID"]))
    else:
        s.remove_config("importDatasetId")
    return s


def outputs(s: auto.Stack) -> dict:
    return {k: "[secret]" if v.secret else v.value for k, v in s.outputs().items()}


def main(operation: str) -> None:
    s = stack()
    echo = lambda line: print(line, file=sys.stderr)  # noqa: E731
    if operation == "preview":
        changes = s.preview(on_output=echo).change_summary
    elif operation == "up":
        changes = s.up(on_output=echo).summary.resource_changes
    elif operation == "refresh":
        changes = s.refresh(on_output=echo).summary.resource_changes
    elif operation == "destroy":
        changes = s.destroy(on_output=echo).summary.resource_changes
    else:
        sys.exit(f"usage: python main.py preview|up|refresh|destroy (not {operation!r})")
    result = {"operation": operation, "changes": {str(k): v for k, v in (changes or {}).items()}}
    if operation != "destroy":
        result["outputs"] = outputs(s)
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "")
