// A starting point on pulumi-observability: a dataset for your logs, a Slack notifier whose webhook URL is a secret,
// and a monitor of the dataset's errors that alerts it. `pulumi up` runs it.
package main

import (
	"fmt"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"

	obs "github.com/pulumi-observability/pulumi-observability/sdk/go/observability"
)

func main() {
	pulumi.Run(program)
}

func program(ctx *pulumi.Context) error {
	cfg := config.New(ctx, "")
	// Read as a secret: encrypted in state, masked in the engine's output.
	slackURL := cfg.RequireSecret("slackWebhookUrl")
	project := ctx.Project()

	logs, err := obs.NewDataset(ctx, "logs", &obs.DatasetArgs{
		// Unique in the organization: the project's name, which `pulumi new` asked for.
		Name:               pulumi.String(project + "-logs"),
		Description:        pulumi.String(fmt.Sprintf("Logs of %s, managed by Pulumi.", project)),
		RetentionDays:      pulumi.Int(30),
		UseRetentionPeriod: pulumi.Bool(true),
	})
	if err != nil {
		return err
	}

	oncall, err := obs.NewNotifier(ctx, "oncall-slack", &obs.NotifierArgs{
		Name: pulumi.String(project + " on-call (Slack)"),
		Properties: obs.NotifierPropertiesArgs{
			Slack: obs.NotifierPropertiesSlackArgs{SlackUrl: slackURL},
		},
	})
	if err != nil {
		return err
	}

	monitor, err := obs.NewMonitor(ctx, "errors", &obs.MonitorArgs{
		Name:        pulumi.String(project + " errors"),
		Description: pulumi.String("More than 10 error events in five minutes."),
		Type:        obs.MonitorTypeThreshold,
		// Reading the dataset's name from the resource makes the monitor wait for it. One count over the five-minute
		// range, as the description says (by bin_auto(_time), the threshold would apply to bins of a size the range
		// picks).
		AplQuery:        pulumi.Sprintf("['%s'] | where level == 'error' | summarize count()", logs.Name),
		Operator:        obs.MonitorOperatorAbove,
		Threshold:       pulumi.Float64(10),
		IntervalMinutes: pulumi.Int(5),
		RangeMinutes:    pulumi.Int(5),
		NotifierIds:     pulumi.StringArray{oncall.ID()},
	})
	if err != nil {
		return err
	}

	ctx.Export("datasetName", logs.Name)
	ctx.Export("notifierId", oncall.ID())
	ctx.Export("monitorId", monitor.ID())
	return nil
}
