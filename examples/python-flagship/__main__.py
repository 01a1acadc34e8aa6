"""The flagship in Python, on the generated SDK (pulumi_observability): the dataset a checkout service logs to, the
ingest-only token it sends them with, an on-call Slack notifier whose webhook URL is a secret, two monitors wired to
that notifier, and a role for the on-call team.

`pulumi up` in this folder runs it (Pulumi.yaml: `runtime: python`). The tests run this same file as an Automation
API inline program (test/e2e-native/drivers), since no Python language host is served to their machines.
"""

import pulumi
import pulumi_observability as obs

HTTP_LOGS = "http-logs"

config = pulumi.Config()
# Read as a secret: encrypted in state, masked in the engine's output.
slack_url = config.require_secret("slackWebhookUrl")

http_logs = obs.Dataset(
    "http-logs",
    name=HTTP_LOGS,
    description="Access logs of the checkout API.",
    retention_days=30,
    use_retention_period=True,
    force_destroy=True,
)

ingest = obs.ApiToken(
    "checkout-ingest",
    name="checkout ingest",
    description="Used by the checkout service to send its access logs; ingest into http-logs only.",
    dataset_capabilities={HTTP_LOGS: {"ingest": ["create"]}},
    opts=pulumi.ResourceOptions(depends_on=[http_logs]),
)

slack = obs.Notifier(
    "oncall-slack",
    name="On-call Slack (#checkout-alerts)",
    properties={"slack": {"slack_url": slack_url}},
)

error_rate = obs.Monitor(
    "error-rate",
    name="Checkout 5xx rate",
    description="More than 25 server errors in five minutes.",
    type=obs.MonitorType.THRESHOLD,
    # One count over the five-minute range, as the description says. Binned by bin_auto(_time), the threshold
    # would apply to each bin, whose size follows the range (5-second bins over five minutes in the emulator;
    # the service promises no size): 25 errors in a few seconds, not in five minutes.
    apl_query=f"['{HTTP_LOGS}'] | where status >= 500 | summarize count()",
    operator=obs.MonitorOperator.ABOVE,
    threshold=25,
    interval_minutes=5,
    range_minutes=5,
    notifier_ids=[slack.id],
    opts=pulumi.ResourceOptions(depends_on=[http_logs]),
)

panics = obs.Monitor(
    "panics",
    name="Checkout panics",
    type=obs.MonitorType.MATCH_EVENT,
    apl_query=f"['{HTTP_LOGS}'] | where message contains 'panic'",
    interval_minutes=1,
    range_minutes=1,
    notifier_ids=[slack.id],
    opts=pulumi.ResourceOptions(depends_on=[http_logs]),
)

oncall = obs.Role(
    "oncall",
    name="checkout on-call",
    description="Reads the checkout logs, silences and edits its monitors.",
    org_capabilities={"monitors": ["read", "update"], "notifiers": ["read"]},
    dataset_capabilities={HTTP_LOGS: {"query": ["read"]}},
    opts=pulumi.ResourceOptions(depends_on=[http_logs]),
)

# A dataset made outside Pulumi, taken under management by id when `importDatasetId` is set.
import_id = config.get("importDatasetId")
if import_id:
    obs.Dataset(
        "legacy-logs",
        name=import_id,
        description="Logs of the retired checkout service.",
        retention_days=7,
        opts=pulumi.ResourceOptions(import_=import_id),
    )

pulumi.export("datasetName", http_logs.name)
pulumi.export("ingestToken", ingest.token)
pulumi.export("notifierId", slack.id)
pulumi.export("monitorIds", [error_rate.id, panics.id])
pulumi.export("roleId", oncall.id)
