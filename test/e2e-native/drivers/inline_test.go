// The tests' driver of a Go example: it runs the program function the example's main.go gives pulumi.Run as an
// Automation API inline program (auto.UpsertStackInlineSource, pulumi/pulumi sdk/go/auto/stack.go), so the
// engine talks to this process and no Go language host is needed. It is not part of the example: inline.mts adds
// it to the example's package at build time with `go test -overlay`, and runs the test binary with
// INLINE_OPERATION set. It calls the function main.go gives pulumi.Run: `flagship` below is that name, which
// inline.mts writes in its place in the copy it builds with (the flagships' function is flagship).
//
// The stack `dev` of the project the example's Pulumi.yaml names lives in the backend PULUMI_BACKEND_URL names,
// encrypted with PULUMI_CONFIG_PASSPHRASE. Stack configuration comes from the environment (inline.mts,
// stackConfig): INLINE_CONFIG, a JSON object of key to {value, secret}.
//
// stdout carries one line of JSON: the operation, the count of resources per change and the stack outputs
// (secrets as "[secret]"); the engine's output goes to stderr.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optrefresh"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
)

func TestInline(t *testing.T) {
	operation := os.Getenv("INLINE_OPERATION")
	if operation == "" {
		t.Skip("INLINE_OPERATION is not set: this is the tests' driver, run by test/e2e-native/drivers/inline.mts")
	}
	result, err := runInline(context.Background(), operation)
	if err != nil {
		t.Fatal(err)
	}
	line, err := json.Marshal(result)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(string(line))
}

func runInline(ctx context.Context, operation string) (map[string]any, error) {
	here, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	// The project settings are the example's own Pulumi.yaml, read from its folder.
	stack, err := auto.UpsertStackInlineSource(ctx, "dev", "", flagship,
		auto.WorkDir(here), auto.SecretsProvider("passphrase"))
	if err != nil {
		return nil, err
	}
	config := auto.ConfigMap{}
	var declared map[string]struct {
		Value  string `json:"value"`
		Secret bool   `json:"secret"`
	}
	if err := json.Unmarshal([]byte(os.Getenv("INLINE_CONFIG")), &declared); err != nil {
		return nil, fmt.Errorf("INLINE_CONFIG: %w", err)
	}
	for key, v := range declared {
		config[key] = auto.ConfigValue{Value: v.Value, Secret: v.Secret}
	}
	if _, ok := config["importDatasetId"]; !ok {
		if err := stack.RemoveConfig(ctx, "importDatasetId"); err != nil {
			return nil, err
		}
	}
	if err := stack.SetAllConfig(ctx, config); err != nil {
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
		return nil, fmt.Errorf("INLINE_OPERATION must be preview, up, refresh or destroy, not %q", operation)
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
