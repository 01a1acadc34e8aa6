// The tests' driver of a Go example: it runs the program function the example's main.go gives pulumi.Run as an
// Automation API inline program (auto.UpsertStackInlineSource, pulumi/pulumi sdk/go/auto/stack.go), so the
// engine talks to this process and no Go language host is needed. It is not part of the example: inline.mts adds
// it to the example's package at build time with `go test -overlay`, and runs the test binary with
// INLINE_OPERATION set. It calls the function main.go gives pulumi.Run: `flagship` below is that name, which
// inline.mts writes in its place in the copy it builds with (the flagships' function is flagship).
//
// The stack `dev` of the project the example's Pulumi.yaml names lives in the backend PULUMI_BACKEND_URL names,
// encrypted with PULUMI_CONFIG_PASSPHRASE. Stack configuration comes from the environment (inline.mts,
// stackConfig): INLINE_CONFIG, a JSON object of key to {value, secret}; the secrets reach the stack on the CLI's stdin.
//
// stdout carries one line of JSON: the operation, the count of resources per change and the stack outputs
// (secrets as "[secret]"); the engine's output goes to stderr.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
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
	var declared map[string]struct {
		Value  string `json:"value"`
		Secret bool   `json:"secret"`
	}
	if err := json.Unmarshal([]byte(os.Getenv("INLINE_CONFIG")), &declared); err != nil {
		return nil, fmt.Errorf("INLINE_CONFIG: %w", err)
	}
	if _, ok := declared["importDatasetId"]; !ok {
		if err := stack.RemoveConfig(ctx, "importDatasetId"); err != nil {
			return nil, err
		}
	}
	// The plain values as the Automation API sets them; each secret on the CLI's stdin, never in its arguments,
	// where SetAllConfig would put it (`config set-all --secret key=value`) for any process to read. The CLI reads
	// the value from stdin when stdin is not a terminal (pulumi/pulumi pkg/cmd/pulumi/config/config.go); the
	// TypeScript driver does the same (test/helpers/stack-config.ts).
	plain := auto.ConfigMap{}
	for key, v := range declared {
		if !v.Secret {
			plain[key] = auto.ConfigValue{Value: v.Value}
		}
	}
	if len(plain) > 0 {
		if err := stack.SetAllConfig(ctx, plain); err != nil {
			return nil, err
		}
	}
	for key, v := range declared {
		if !v.Secret {
			continue
		}
		_, stderr, code, err := stack.Workspace().PulumiCommand().Run(ctx, here, strings.NewReader(v.Value), nil, nil,
			nil, "config", "set", "--secret", key, "--stack", stack.Name())
		if err != nil {
			return nil, fmt.Errorf("pulumi config set --secret %s failed (exit code %d): %s", key, code, stderr)
		}
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
