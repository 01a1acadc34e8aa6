// Command go-flagship is the flagship in Go, on the generated SDK: `pulumi up` in this folder runs it (Pulumi.yaml:
// `runtime: go`). The tests run the same program function, flagship, as an Automation API inline program
// (test/e2e-native/drivers/inline_test.go, added to this package at build time), since no Go language host is
// served to their machines.
package main

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"

	obs "github.com/pulumi-observability/pulumi-observability/sdk/go/observability"
)

const httpLogsName = "http-logs"

func main() {
	pulumi.Run(flagship)
}

// flagship declares the dataset a checkout service logs to, the ingest-only token it sends them with, an on-call
// Slack notifier whose webhook URL is a secret, two monitors wired to that notifier, and a role for the on-call team.
func flagship(ctx *pulumi.Context) error {
	cfg := config.New(ctx, "")
	// Read as a secret: encrypted in state, masked in the engine's output.
	slackURL := cfg.RequireSecret("slackWebhookUrl")

	httpLogs, err := obs.NewDataset(ctx, "http-logs", &obs.DatasetArgs{
		Name:               pulumi.String(httpLogsName),
		Description:        pulumi.String("Access logs of the checkout API."),
		RetentionDays:      pulumi.Int(30),
		UseRetentionPeriod: pulumi.Bool(true),
		ForceDestroy:       pulumi.Bool(true),
	})
	if err != nil {
		return err
	}
	onHTTPLogs := pulumi.DependsOn([]pulumi.Resource{httpLogs})

	ingest, err := obs.NewApiToken(ctx, "checkout-ingest", &obs.ApiTokenArgs{
		Name:        pulumi.String("checkout ingest"),
		Description: pulumi.String("Used by the checkout service to send its access logs; ingest into http-logs only."),
		DatasetCapabilities: obs.DatasetCapabilitiesMap{
			httpLogsName: obs.DatasetCapabilitiesArgs{
				Ingest: obs.CapabilityActionArray{obs.CapabilityActionCreate},
			},
		},
	}, onHTTPLogs)
	if err != nil {
		return err
	}

	slack, err := obs.NewNotifier(ctx, "oncall-slack", &obs.NotifierArgs{
		Name: pulumi.String("On-call Slack (#checkout-alerts)"),
		Properties: obs.NotifierPropertiesArgs{
			Slack: obs.NotifierPropertiesSlackArgs{SlackUrl: slackURL},
		},
	})
	if err != nil {
		return err
	}

	// One count over the five-minute range, as the description says. Binned by bin_auto(_time), the threshold
	// would apply to each bin, whose size follows the range (5-second bins over five minutes in the emulator; the
	// service promises no size): 25 errors in a few seconds, not in five minutes.
	errorRate, err := obs.NewMonitor(ctx, "error-rate", &obs.MonitorArgs{
		Name:            pulumi.String("Checkout 5xx rate"),
		Description:     pulumi.String("More than 25 server errors in five minutes."),
		Type:            obs.MonitorTypeThreshold,
		AplQuery:        pulumi.String("['" + httpLogsName + "'] | where status >= 500 | summarize count()"),
		Operator:        obs.MonitorOperatorAbove,
		Threshold:       pulumi.Float64(25),
		IntervalMinutes: pulumi.Int(5),
		RangeMinutes:    pulumi.Int(5),
		NotifierIds:     pulumi.StringArray{slack.ID()},
	}, onHTTPLogs)
	if err != nil {
		return err
	}

	panics, err := obs.NewMonitor(ctx, "panics", &obs.MonitorArgs{
		Name:            pulumi.String("Checkout panics"),
		Type:            obs.MonitorTypeMatchEvent,
		AplQuery:        pulumi.String("['" + httpLogsName + "'] | where message contains 'panic'"),
		IntervalMinutes: pulumi.Int(1),
		RangeMinutes:    pulumi.Int(1),
		NotifierIds:     pulumi.StringArray{slack.ID()},
	}, onHTTPLogs)
	if err != nil {
		return err
	}

	oncall, err := obs.NewRole(ctx, "oncall", &obs.RoleArgs{
		Name:        pulumi.String("checkout on-call"),
		Description: pulumi.String("Reads the checkout logs, silences and edits its monitors."),
		OrgCapabilities: obs.OrgCapabilitiesArgs{
			Monitors: obs.CapabilityActionArray{
				obs.CapabilityActionRead, obs.CapabilityActionUpdate,
			},
			Notifiers: obs.CapabilityActionArray{obs.CapabilityActionRead},
		},
		DatasetCapabilities: obs.DatasetCapabilitiesMap{
			httpLogsName: obs.DatasetCapabilitiesArgs{
				Query: obs.CapabilityActionArray{obs.CapabilityActionRead},
			},
		},
	}, onHTTPLogs)
	if err != nil {
		return err
	}

	// A dataset made outside Pulumi, taken under management by id when `importDatasetId` is set.
	if importID := cfg.Get("importDatasetId"); importID != "" {
		if _, err := obs.NewDataset(ctx, "legacy-logs", &obs.DatasetArgs{
			Name:          pulumi.String(importID),
			Description:   pulumi.String("Logs of the retired checkout service."),
			RetentionDays: pulumi.Int(7),
		}, pulumi.Import(pulumi.ID(importID))); err != nil {
			return err
		}
	}

	ctx.Export("datasetName", httpLogs.Name)
	ctx.Export("ingestToken", ingest.Token)
	ctx.Export("notifierId", slack.ID())
	ctx.Export("monitorIds", pulumi.StringArray{errorRate.ID(), panics.ID()})
	ctx.Export("roleId", oncall.ID())
	return nil
}
