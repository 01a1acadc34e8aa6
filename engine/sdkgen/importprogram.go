package main

// The -import-program mode: the program `pulumi import` would write for the objects an import took, in each
// language, from the stack's state after that import.
//
// `pulumi import` (pkg/cmd/pulumi/operations/import.go, v3.274.1) builds the program in two steps: the CLI turns
// the imported resources' states into PCL (generateImportedDefinitions, which calls
// importer.GenerateLanguageDefinitions with the import file's name table), and hands that PCL to the project's
// language host, whose GenerateProgram binds it and calls the language's program generator (pkg/codegen/python,
// pkg/codegen/go, pkg/codegen/nodejs). Only the YAML host is served to these machines, so for the other languages
// this mode makes both steps itself with the same library functions, at the CLI's version: the PCL from the same
// states and name table, then each language's GenerateProgram on it. `pcl` writes the PCL itself, which
// `pulumi convert --from pcl --language yaml` can turn into YAML to compare with what `pulumi import` wrote.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/blang/semver"
	"github.com/hashicorp/hcl/v2"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/pkg/v3/importer"
	pkgresource "github.com/pulumi/pulumi/pkg/v3/resource"
	"github.com/pulumi/pulumi/pkg/v3/resource/stack"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
)

var programLanguages = []string{"pcl", "nodejs", "python", "go"}

// programFile is the file each language's program generator writes the program to.
var programFile = map[string]string{"pcl": "main.pp", "nodejs": "index.ts", "python": "__main__.py", "go": "main.go"}

// importSpec is the part of an import file's resource (import.go's importSpec) that decides the program's names.
// The fields this mode does not reproduce are read only to refuse them by name.
type importSpec struct {
	Type        tokens.Type `json:"type"`
	Name        string      `json:"name"`
	LogicalName string      `json:"logicalName"`
	Parent      string      `json:"parent"`
	Provider    string      `json:"provider"`
	Component   bool        `json:"component"`
}

type importFile struct {
	NameTable map[string]json.RawMessage `json:"nameTable"`
	Resources []importSpec               `json:"resources"`
}

func runImportProgram(schemaPath, statePath, importPath, out, languages, goModule string) error {
	switch {
	case schemaPath == "":
		return errors.New("-schema is required (a file, or - for stdin)")
	case statePath == "":
		return errors.New("-state is required (what `pulumi stack export --show-secrets` prints)")
	case importPath == "":
		return errors.New("-import-file is required (the file `pulumi import --file` took)")
	case out == "":
		return errors.New("-out is required")
	}
	langs, err := parseList("-languages", languages, programLanguages)
	if err != nil {
		return err
	}
	raw, err := readSchema(schemaPath)
	if err != nil {
		return err
	}
	spec, err := completeSpec(raw, goModule)
	if err != nil {
		return err
	}
	states, snapshot, names, err := importedStates(statePath, importPath)
	if err != nil {
		return err
	}
	for _, lang := range langs {
		pkg, err := bind(spec)
		if err != nil {
			return err
		}
		var text strings.Builder
		// A fresh name table each time: GenerateLanguageDefinitions writes the sanitized names into it.
		table := importer.NameTable{}
		for urn, name := range names {
			table[urn] = name
		}
		gen := func(w io.Writer, p *pcl.Program) error { return writeProgram(w, lang, p) }
		err = importer.GenerateLanguageDefinitions(&text, onePackage{pkg}, gen, states, snapshot, table)
		if err != nil {
			return fmt.Errorf("generating the %s program: %w", lang, err)
		}
		dir := filepath.Join(out, lang)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, programFile[lang]), []byte(text.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeProgram is what the language host's GenerateProgram does with the bound PCL (for pcl: the PCL itself).
func writeProgram(w io.Writer, lang string, p *pcl.Program) error {
	var files map[string][]byte
	var diags hcl.Diagnostics
	var err error
	switch lang {
	case "pcl":
		source := p.Source()
		if len(source) != 1 {
			return fmt.Errorf("the PCL program has %d files, not one", len(source))
		}
		for _, text := range source {
			_, err := io.WriteString(w, text)
			return err
		}
	case "nodejs":
		files, diags, err = nodejs.GenerateProgram(p)
	case "python":
		files, diags, err = python.GenerateProgram(p)
	case "go":
		files, diags, err = gogen.GenerateProgram(p)
	}
	if err != nil {
		return err
	}
	if diags.HasErrors() {
		return fmt.Errorf("the generator's diagnostics: %s", diags.Error())
	}
	text, ok := files[programFile[lang]]
	if !ok || len(files) != 1 {
		return fmt.Errorf("the generator wrote %d files, not %s alone", len(files), programFile[lang])
	}
	_, err = w.Write(text)
	return err
}

// importedStates reads the stack's deployment and the import file, and returns the imported resources' states in
// the import file's order, the snapshot's resources, and the name table, as import.go's parseImportFile and
// generateImportedDefinitions form them for a file without parents, providers or a name table of its own.
func importedStates(statePath, importPath string) ([]*pkgresource.State, []*pkgresource.State, importer.NameTable, error) {
	var file importFile
	if err := readJSON(importPath, "the import file", &file); err != nil {
		return nil, nil, nil, err
	}
	if len(file.NameTable) > 0 {
		return nil, nil, nil, errors.New("the import file's nameTable is not supported by -import-program")
	}
	var untyped apitype.UntypedDeployment
	if err := readJSON(statePath, "the stack's export", &untyped); err != nil {
		return nil, nil, nil, err
	}
	deployment, err := stack.UnmarshalUntypedDeployment(context.Background(), &untyped)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the stack's export: %w", err)
	}
	// An export made with --show-secrets holds each secret's plaintext; none needs the stack's passphrase, and a
	// value still encrypted is an error of the deserializer naming it.
	deployment.SecretsProviders = nil
	snap, err := stack.DeserializeDeploymentV3(context.Background(), *deployment, nil)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the stack's export (made with --show-secrets?): %w", err)
	}
	var stackName tokens.QName
	var project tokens.PackageName
	for _, r := range snap.Resources {
		if r.Type == resource.RootStackType {
			stackName, project = r.URN.Stack(), tokens.PackageName(r.URN.Project())
		}
	}
	if project == "" {
		return nil, nil, nil, errors.New("the stack's export has no pulumi:pulumi:Stack resource")
	}
	live := map[resource.URN]*pkgresource.State{}
	for _, r := range snap.Resources {
		if !r.Delete {
			live[r.URN] = r
		}
	}
	names := importer.NameTable{}
	var states []*pkgresource.State
	for i, spec := range file.Resources {
		at := fmt.Sprintf("the import file's resources[%d]", i)
		switch {
		case spec.Type == "":
			return nil, nil, nil, fmt.Errorf("%s.type is missing", at)
		case spec.Parent != "" || spec.Provider != "" || spec.Component:
			return nil, nil, nil, fmt.Errorf("%s: parent, provider and component are not supported by -import-program", at)
		}
		if spec.LogicalName == "" {
			spec.LogicalName = spec.Name
		}
		if spec.Name == "" {
			spec.Name = spec.LogicalName
		}
		urn := resource.NewURN(stackName, project, "", spec.Type, spec.LogicalName)
		for _, taken := range names {
			if taken == spec.Name {
				return nil, nil, nil, fmt.Errorf("%s.name %q is used twice", at, spec.Name)
			}
		}
		names[urn] = spec.Name
		state, ok := live[urn]
		if !ok {
			return nil, nil, nil, fmt.Errorf("%s: the stack has no %s (was it imported?)", at, urn)
		}
		// generateImportedDefinitions sets each copy's protect to the import's --protect; right after the import,
		// the state holds that same value.
		states = append(states, state.Copy())
	}
	return states, snap.Resources, names, nil
}

func readJSON(path, what string, into any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", what, err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		return fmt.Errorf("%s is not JSON of the expected shape: %w", what, err)
	}
	return nil
}

// onePackage is the schema loader of the program generation: the provider's own package, which the CLI's plugin
// loader would have from the plugin, and no other.
type onePackage struct{ pkg *schema.Package }

func (l onePackage) check(name string, version *semver.Version) error {
	if name != l.pkg.Name {
		return noOtherPackages{}.refuse(name)
	}
	if version != nil && l.pkg.Version != nil && !version.EQ(*l.pkg.Version) {
		return fmt.Errorf("the state's resources are of %s %s, the schema is of %s", name, version, l.pkg.Version)
	}
	return nil
}

func (l onePackage) LoadPackage(name string, version *semver.Version) (*schema.Package, error) {
	if err := l.check(name, version); err != nil {
		return nil, err
	}
	return l.pkg, nil
}

func (l onePackage) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return l.LoadPackage(d.Name, d.Version)
}

func (l onePackage) LoadPackageReference(name string, version *semver.Version) (schema.PackageReference, error) {
	if err := l.check(name, version); err != nil {
		return nil, err
	}
	return l.pkg.Reference(), nil
}

func (l onePackage) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return l.LoadPackageReference(d.Name, d.Version)
}
