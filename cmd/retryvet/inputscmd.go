package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/retryvet/retryvet/analyzers"
	"github.com/retryvet/retryvet/internal/inputs"

	"golang.org/x/tools/go/analysis"
)

// inputsCommand implements `retryvet inputs`: the entry of a nogo
// configuration that declares the inputs of the module holding the working
// directory (its values file and manifests) as one analyzer's flags
// (docs/nogo.md). Exit 0, or 2 for bad flags, a values file that does not
// parse or no module.
func inputsCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("retryvet inputs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	valuesFile := fs.String("values", "", "read this values file instead of the module's .retryvet.yml")
	analyzer := fs.String("analyzer", "doubleretry", "the analyzer whose analyzer_flags carry the inputs (they reach every retryvet analyzer)")
	root := fs.String("root", ".", "the module root as nogo names the analysed files: relative to the workspace root")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: retryvet inputs [-values FILE] [-analyzer NAME] [-root DIR]\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return exitUsage
	}
	if !slices.ContainsFunc(analyzers.All(), func(a *analysis.Analyzer) bool { return a.Name == *analyzer }) {
		fmt.Fprintf(stderr, "retryvet inputs: -analyzer %s: no such analyzer\n", *analyzer)
		return exitUsage
	}
	found, err := inputs.Discover(".", *valuesFile)
	if err != nil {
		fmt.Fprintf(stderr, "retryvet: %v\n", err)
		return exitUsage
	}
	if found.Root == "" {
		fmt.Fprintf(stderr, "retryvet inputs: the working directory is in no module (no go.mod above it)\n")
		return exitUsage
	}
	for _, p := range found.Problems() {
		fmt.Fprintf(stderr, "retryvet: %s\n", p)
	}
	entry := map[string]any{*analyzer: map[string]any{"analyzer_flags": found.Flags(*root)}}
	data, err := json.MarshalIndent(entry, "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "retryvet: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s\n", data)
	return 0
}
