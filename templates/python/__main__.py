"""A starting point on pulumi-observability: a dataset for your logs, a Slack notifier whose webhook URL is a secret,
and a monitor of the dataset's errors that alerts it."""

import pulumi
import pulumi_observability as obs

config = pulumi.Config()
# Read as a secret: encrypted in state, masked in the engine's output.
slack_url = config.require_secret("slackWebhookUrl")
project = pulumi.get_project()

logs = obs.Dataset(
    "logs",
    # Unique in the organization: the project's name, which `pulumi new` asked for.
    name=f"{project}-logs",
    description=f"Logs of {project}, managed by Pulumi.",
    retention_days=30,
    use_retention_period=True,
)

oncall = obs.Notifier(
    "oncall-slack",
    name=f"{project} on-call (Slack)",
    properties={"slack": {"slack_url": slack_url}},
)

errors = obs.Monitor(
    "errors",
    name=f"{project} errors",
    description="More than 10 error events in five minutes.",
    type=obs.MonitorType.THRESHOLD,
    # Reading the dataset's name from the resource makes the monitor wait for it. One count over the five-minute
    # range, as the description says (by bin_auto(_time), the threshold would apply to bins of a size the range picks).
    apl_query=logs.name.apply(lambda name: f"['{name}'] | where level == 'error' | summarize count()"),
    operator=obs.MonitorOperator.ABOVE,
    threshold=10,
    interval_minutes=5,
    range_minutes=5,
    notifier_ids=[oncall.id],
)

pulumi.export("datasetName", logs.name)
pulumi.export("notifierId", oncall.id)
pulumi.export("monitorId", errors.id)
