package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/retryvet/retryvet/internal/infra"
	"github.com/retryvet/retryvet/internal/inputs"
	"github.com/retryvet/retryvet/internal/values"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/unitchecker"
)

// testUsage documents -test, which go vet does not have: the standalone
// command passes it to the vet tool, which drops the _test.go files of
// each unit.
const testUsage = "analyze test files too (with -test=false, _test.go files are left out of every package)"

// registerToolFlags registers the flags of the vet tool that are not the
// analyzers' own (unitchecker adds those and -json, -fix, -diff, -c).
// go vet learns them from -flags and passes them on; the standalone
// command looks them up here to tell them from go build flags.
func registerToolFlags(fs *flag.FlagSet) {
	registerP99(fs)
	registerOptIns(fs)
	registerValues(fs)
	inputs.Register(fs)
	fs.Bool("test", true, testUsage)
}

// vetTool runs the unitchecker protocol (go vet -vettool): one
// compilation unit described by a .cfg file, or the -V=full and -flags
// handshakes. It does not return.
func vetTool(all []*analysis.Analyzer) {
	args := os.Args[1:]
	if slices.Contains(args, "-V=full") || slices.Contains(args, "--V=full") {
		os.Exit(printVersion(os.Stdout, os.Stderr)) // version.go
	}
	cfg := args[len(args)-1]
	if !strings.HasSuffix(cfg, ".cfg") {
		unitchecker.Main(all...) // -flags: unitchecker answers (and exits)
		return
	}
	u, readable := readUnit(cfg) // factsonly.go; unitchecker reports a config it cannot read
	if readable && u.Dir != "" && !declaresInputs(args[:len(args)-1]) {
		// Plain go vet -vettool: the inputs are those of the unit's
		// module, declared here by the driver's side of the protocol;
		// the analyzers read no file (the -V=full handshake put their
		// hash in the tool ID, so go vet's cache keys on them).
		if err := discoverFor(u.Dir); err != nil {
			fmt.Fprintf(os.Stderr, "retryvet: %v\n", err)
			os.Exit(1)
		}
	}
	if !testsWanted(args[:len(args)-1]) {
		rewritten, ok := withoutTests(cfg)
		if !ok {
			os.Exit(0) // a unit of test files only: nothing to analyse
		}
		os.Args[len(os.Args)-1] = rewritten
	}
	if u.VetxOnly {
		all = factAnalyzers(all)
	}
	unitchecker.Main(all...)
}

// declaresInputs reports whether the tool's arguments declare the values
// file or the manifests (-values, -values-yaml, -manifests).
func declaresInputs(flags []string) bool {
	for _, a := range flags {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if _, fl, ok := strings.Cut(name, "."); ok {
			name = fl // an analyzer's copy: -doubleretry.manifests
		}
		switch name {
		case "values", inputs.ValuesYAML, inputs.Manifests:
			return true
		}
	}
	return false
}

// discoverFor declares the inputs of the module of the unit in dir; the
// manifests are collected only if an analyzer asks.
func discoverFor(dir string) error {
	p, text, err := values.Discover(dir)
	if err != nil {
		return err
	}
	if p != "" {
		if err := values.SetText(p, text); err != nil {
			return err
		}
	}
	infra.UseLazy(func() *infra.Bundle {
		if root := infra.ModuleRoot(dir); root != "" {
			return infra.Collect(root)
		}
		return nil
	})
	return nil
}

// testsWanted reads -test from the tool's arguments before unitchecker
// parses them (it runs the unit as soon as it has).
func testsWanted(flags []string) bool {
	want := true
	for _, a := range flags {
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "test" {
			continue
		}
		if !hasValue {
			want = true
			continue
		}
		if b, err := strconv.ParseBool(value); err == nil {
			want = b
		}
	}
	return want
}

// withoutTests writes a copy of the unit's config without its _test.go
// files next to it and returns the copy's path, or false when nothing is
// left (an external test package). Every other field is kept as the go
// command wrote it.
func withoutTests(cfgFile string) (string, bool) {
	data, err := os.ReadFile(cfgFile)
	if err != nil {
		log.Fatal(err)
	}
	var cfg map[string]json.RawMessage
	if err := json.Unmarshal(data, &cfg); err != nil {
		log.Fatalf("cannot decode JSON config file %s: %v", cfgFile, err)
	}
	var files []string
	if err := json.Unmarshal(cfg["GoFiles"], &files); err != nil {
		log.Fatalf("%s: GoFiles: %v", cfgFile, err)
	}
	var kept []string
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			kept = append(kept, f)
		}
	}
	if len(kept) == 0 {
		return "", false
	}
	if len(kept) == len(files) {
		return cfgFile, true
	}
	cfg["GoFiles"], _ = json.Marshal(kept)
	out, err := json.Marshal(cfg)
	if err != nil {
		log.Fatal(err)
	}
	name := filepath.Join(filepath.Dir(cfgFile), "notest."+filepath.Base(cfgFile))
	if err := os.WriteFile(name, out, 0o666); err != nil {
		log.Fatal(err)
	}
	return name, true
}
