// Command goproxy writes one version of a Go module into a file-tree module proxy, the layout that
// `GOPROXY=file:///…` reads (https://go.dev/ref/mod#goproxy-protocol):
//
//	<escaped module path>/@v/list            the versions, one a line
//	<escaped module path>/@v/<version>.info  {"Version": …, "Time": …}
//	<escaped module path>/@v/<version>.mod   the module's go.mod
//	<escaped module path>/@v/<version>.zip   the module's files, as golang.org/x/mod/zip makes them
//
// The zip is made by golang.org/x/mod/zip, the code the go command itself uses, so its file names (under
// `<module>@<version>/`), what it leaves out (vendor/, nested modules, files over the size limits) and its checks
// are exactly the go command's; a zip made otherwise would give another hash than `go mod download` computes.
// Module paths are case-escaped (`!`-lower-case) as the protocol requires.
//
// Usage:
//
//	goproxy -dir <module folder> -version v1.2.3 -out <proxy root> [-time 2006-01-02T15:04:05Z]
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	modzip "golang.org/x/mod/zip"
)

func main() {
	dir := flag.String("dir", "", "the module's folder (holding go.mod)")
	version := flag.String("version", "", "the version to publish, v-prefixed semver (v1.2.3)")
	out := flag.String("out", "", "the proxy's root folder")
	at := flag.String("time", "", "the version's time in RFC 3339 (default: now)")
	flag.Parse()
	path, err := run(*dir, *version, *out, *at)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(path)
}

// run writes the version and returns the module path it published.
func run(dir, version, out, at string) (string, error) {
	if dir == "" || version == "" || out == "" {
		return "", errors.New("-dir, -version and -out are required")
	}
	stamp := time.Now().UTC()
	if at != "" {
		t, err := time.Parse(time.RFC3339, at)
		if err != nil {
			return "", fmt.Errorf("-time: %w", err)
		}
		stamp = t.UTC()
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", err
	}
	modPath := modfile.ModulePath(gomod)
	if modPath == "" {
		return "", fmt.Errorf("%s: go.mod has no module line", dir)
	}
	mv := module.Version{Path: modPath, Version: version}
	// The version must suit the path: canonical semver, and a /vN suffix for major versions 2 and up.
	if semver.Canonical(version) != version {
		return "", fmt.Errorf("-version %q is not a canonical semantic version (v1.2.3)", version)
	}
	if err := module.Check(modPath, version); err != nil {
		return "", err
	}
	escaped, err := module.EscapePath(modPath)
	if err != nil {
		return "", err
	}
	escapedVersion, err := module.EscapeVersion(version)
	if err != nil {
		return "", err
	}
	vdir := filepath.Join(out, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return "", err
	}
	zipFile, err := os.Create(filepath.Join(vdir, escapedVersion+".zip"))
	if err != nil {
		return "", err
	}
	if err := modzip.CreateFromDir(zipFile, mv, dir); err != nil {
		zipFile.Close()
		return "", fmt.Errorf("zipping %s: %w", dir, err)
	}
	if err := zipFile.Close(); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(vdir, escapedVersion+".mod"), gomod, 0o644); err != nil {
		return "", err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    string
	}{version, stamp.Format(time.RFC3339)})
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(vdir, escapedVersion+".info"), info, 0o644); err != nil {
		return "", err
	}
	return modPath, addToList(filepath.Join(vdir, "list"), version)
}

// addToList adds version to the list file, which holds every version the proxy serves, sorted.
func addToList(file, version string) error {
	seen := map[string]bool{version: true}
	if b, err := os.ReadFile(file); err == nil {
		for _, v := range strings.Fields(string(b)) {
			seen[v] = true
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	versions := make([]string, 0, len(seen))
	for v := range seen {
		versions = append(versions, v)
	}
	sort.Slice(versions, func(i, j int) bool { return semver.Compare(versions[i], versions[j]) < 0 })
	return os.WriteFile(file, []byte(strings.Join(versions, "\n")+"\n"), 0o644)
}
