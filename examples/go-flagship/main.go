// Command go-flagship runs the flagship (flagship.go) with Pulumi's Automation API as an inline program: the CLI
// talks to this process, so no Go language host is needed.
//
//	go run . preview|up|refresh|destroy
//
// The stack `dev` of project `go-flagship` lives in the backend PULUMI_BACKEND_URL names, else in a file backend
// in ./.pulumi-state. Where the service is comes from the environment and becomes the stack's provider
// configuration (the token as a secret): OBSERVABILITY_URL (default: the emulator, http://127.0.0.1:8787),
// OBSERVABILITY_TOKEN (default: the emulator's development token) and OBSERVABILITY_ORG_ID. SLACK_WEBHOOK_URL is
// the notifier's secret URL; IMPORT_DATASET_ID, when set, imports that existing dataset.
//
// The engine's output goes to stderr; stdout's last line is JSON: the operation, the count of resources per
// change and the stack outputs (secrets as "[secret]").
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optrefresh"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
)

// emulatorToken is the emulator's development token: not a secret, it is accepted only by the emulator.
const emulatorToken = "xaat-local-development-token"

func getenv(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func openStack(ctx context.Context) (auto.Stack, error) {
	here, err := os.Getwd()
	if err != nil {
		return auto.Stack{}, err
	}
	stateDir := filepath.Join(here, ".pulumi-state")
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return auto.Stack{}, err
	}
	backend := getenv("PULUMI_BACKEND_URL", "file://"+stateDir)
	project := workspace.Project{
		Name:    "go-flagship",
		Runtime: workspace.NewProjectRuntimeInfo("go", nil),
		Backend: &workspace.ProjectBackend{URL: backend},
	}
	stack, err := auto.UpsertStackInlineSource(ctx, "dev", "go-flagship", flagship,
		auto.WorkDir(here),
		auto.Project(project),
		auto.SecretsProvider("passphrase"),
		auto.EnvVars(map[string]string{
			"PULUMI_CONFIG_PASSPHRASE": getenv("PULUMI_CONFIG_PASSPHRASE", "pulumi-observability-local"),
		}),
	)
	if err != nil {
		return auto.Stack{}, err
	}
	config := auto.ConfigMap{
		"observability:url":   {Value: getenv("OBSERVABILITY_URL", "http://127.0.0.1:8787")},
		"observability:token": {Value: getenv("OBSERVABILITY_TOKEN", emulatorToken), Secret: true},
		"slackWebhookUrl": {
			Value: getenv("SLACK_WEBHOOK_URL", "https://hooks.slack.com/services/T000/B000/XXXX"), Secret: true,
		},
	}
	if org := os.Getenv("OBSERVABILITY_ORG_ID"); org != "" {
		config["observability:orgId"] = auto.ConfigValue{Value: org}
	}
	if id := os.Getenv("IMPORT_DATASET_ID"); id != "" {
		config["importDatasetId"] = auto.ConfigValue{Value: id}
	} else if err := stack.RemoveConfig(ctx, "importDatasetId"); err != nil {
		return auto.Stack{}, err
	}
	if err := stack.SetAllConfig(ctx, config); err != nil {
		return auto.Stack{}, err
	}
	return stack, nil
}

func run(operation string) (map[string]any, error) {
	ctx := context.Background()
	stack, err := openStack(ctx)
	if err != nil {
		return nil, err
	}
	var changes map[string]int
	switch operation {
	case "preview":
		res, err := stack.Preview(ctx, optpreview.ProgressStreams(os.Stderr))
		if err != nil {
			return nil, err
		}
		changes = map[string]int{}
		for op, n := range res.ChangeSummary {
			changes[string(op)] = n
		}
	case "up":
		res, err := stack.Up(ctx, optup.ProgressStreams(os.Stderr))
		if err != nil {
			return nil, err
		}
		changes = *res.Summary.ResourceChanges
	case "refresh":
		res, err := stack.Refresh(ctx, optrefresh.ProgressStreams(os.Stderr))
		if err != nil {
			return nil, err
		}
		changes = *res.Summary.ResourceChanges
	case "destroy":
		res, err := stack.Destroy(ctx, optdestroy.ProgressStreams(os.Stderr))
		if err != nil {
			return nil, err
		}
		changes = *res.Summary.ResourceChanges
	default:
		return nil, fmt.Errorf("usage: go run . preview|up|refresh|destroy (not %q)", operation)
	}
	result := map[string]any{"operation": operation, "changes": changes}
	if operation != "destroy" {
		outs, err := stack.Outputs(ctx)
		if err != nil {
			return nil, err
		}
		shown := map[string]any{}
		for k, v := range outs {
			if v.Secret {
				shown[k] = "[secret]"
			} else {
				shown[k] = v.Value
			}
		}
		result["outputs"] = shown
	}
	return result, nil
}

func main() {
	operation := ""
	if len(os.Args) > 1 {
		operation = os.Args[1]
	}
	result, err := run(operation)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	line, _ := json.Marshal(result)
	fmt.Println(string(line))
}
