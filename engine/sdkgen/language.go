package main

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// DefaultGoModulePath is the module that sdk/go is when -go-module does not say: scripts/sdkgen.mts passes the
// path package.json's `repository` gives. A module in a subfolder of a repository is named by the repository's
// path and the subfolder, and its versions are tagged `sdk/go/vX.Y.Z` (https://go.dev/ref/mod#vcs-version).
const DefaultGoModulePath = "github.com/pulumi-observability/pulumi-observability/sdk/go"

// layout is the schema's `language` and `meta` sections as this repository's layout decides them: where each
// SDK lives and what it is called. The generators read them (pkg/codegen/schema/pulumi.json describes both
// sections; each language's keys are its importer's PackageInfo: nodejs/importer.go, python/importer.go,
// go/importer.go in pkg/codegen).
//
//   - meta.supportPack: each SDK is a package of its own at the schema's version: the Go generator writes
//     sdk/go/go.mod, Python a pyproject.toml, Node.js a package.json with that version.
//   - nodejs.packageName: the npm name of the generated SDK, beside the dynamic resources' `pulumi-observability`.
//   - python.packageName: the import name, `pulumi_observability`, as Pulumi's providers are named.
//   - go.importBasePath: the root package inside goModule (the go.mod sits one folder above it).
func layout(goModule string) map[string]any {
	return map[string]any{
		"meta": map[string]any{"supportPack": true},
		"language": map[string]any{
			"nodejs": map[string]any{
				"packageName":          "@pulumi-observability/sdk",
				"packageDescription":   "Pulumi SDK of the observability provider (native plugin pulumi-resource-observability).",
				"respectSchemaVersion": true,
			},
			"python": map[string]any{
				"packageName":          "pulumi_observability",
				"respectSchemaVersion": true,
				"pyproject":            map[string]any{"enabled": true},
			},
			"go": map[string]any{
				"importBasePath":       goModule + "/observability",
				"respectSchemaVersion": true,
			},
		},
	}
}

// completeLayout fills doc's `meta` and `language` sections with layout(). A key the schema already sets must
// hold the same value; otherwise the SDKs would land where the repository does not keep them, so it is an error
// naming the field.
func completeLayout(doc map[string]any, goModule string) error {
	return merge(doc, layout(goModule), "")
}

func merge(into, from map[string]any, at string) error {
	keys := make([]string, 0, len(from))
	for k := range from {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		want := from[k]
		field := strings.TrimPrefix(at+"."+k, ".")
		have, set := into[k]
		if !set || have == nil {
			into[k] = want
			continue
		}
		if wantMap, ok := want.(map[string]any); ok {
			haveMap, ok := have.(map[string]any)
			if !ok {
				return fmt.Errorf("the schema's %s is %s, not an object", field, describe(have))
			}
			if err := merge(haveMap, wantMap, field); err != nil {
				return err
			}
			continue
		}
		if !sameJSON(have, want) {
			return fmt.Errorf("the schema's %s is %s; the SDKs in this repository need %s (engine/sdkgen/language.go)",
				field, describe(have), describe(want))
		}
	}
	return nil
}

func sameJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil || errB != nil {
		return reflect.DeepEqual(a, b)
	}
	return string(ja) == string(jb)
}

func describe(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// noOtherPackages is the schema loader: the package's schema refers to no other package, and a reference to one
// is an error rather than a download.
type noOtherPackages struct{}

func (noOtherPackages) refuse(name string) error {
	return fmt.Errorf("the schema refers to the package %q; this provider's schema must refer to no other package", name)
}

func (l noOtherPackages) LoadPackage(pkg string, _ *semver.Version) (*schema.Package, error) {
	return nil, l.refuse(pkg)
}

func (l noOtherPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, l.refuse(d.Name)
}

func (l noOtherPackages) LoadPackageReference(pkg string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, l.refuse(pkg)
}

func (l noOtherPackages) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return nil, l.refuse(d.Name)
}
