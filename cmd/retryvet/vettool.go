package main

import (
	"encoding/json"
	"flag"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"

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
	registerValues(fs)
	fs.Bool("test", true, testUsage)
}

// vetTool runs the unitchecker protocol (go vet -vettool): one
// compilation unit described by a .cfg file, or the -V=full and -flags
// handshakes. It does not return.
func vetTool(all []*analysis.Analyzer) {
	args := os.Args[1:]
	if cfg := args[len(args)-1]; strings.HasSuffix(cfg, ".cfg") && !testsWanted(args[:len(args)-1]) {
		rewritten, ok := withoutTests(cfg)
		if !ok {
			os.Exit(0) // a unit of test files only: nothing to analyse
		}
		os.Args[len(os.Args)-1] = rewritten
	}
	unitchecker.Main(all...)
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
