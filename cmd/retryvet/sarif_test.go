package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/retryvet/retryvet/analyzers"
	"github.com/retryvet/retryvet/internal/testmod"
)

// suiteDir is the testdata module with one package per analyzer (and a
// clean one); every test of the command runs on it.
func suiteDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "suite"))
	if err != nil {
		t.Fatal(err)
	}
	testmod.Download(t, dir)
	return dir
}

// sarifSchema compiles the OASIS SARIF 2.1.0 schema (errata01) shipped in
// testdata; see testdata/README.md for where the file comes from.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif-schema-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// sarifLog is the part of a SARIF log the tests look at.
type sarifLog struct {
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name  string `json:"name"`
				Rules []struct {
					ID               string `json:"id"`
					ShortDescription struct {
						Text string `json:"text"`
					} `json:"shortDescription"`
					Help struct {
						Text     string `json:"text"`
						Markdown string `json:"markdown"`
					} `json:"help"`
					HelpURI string `json:"helpUri"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		OriginalURIBaseIDs map[string]struct {
			URI string `json:"uri"`
		} `json:"originalUriBaseIds"`
		Results     []sarifResult `json:"results"`
		Invocations []struct {
			ExecutionSuccessful bool `json:"executionSuccessful"`
		} `json:"invocations"`
	} `json:"runs"`
}

type sarifResult struct {
	RuleID    string `json:"ruleId"`
	RuleIndex int    `json:"ruleIndex"`
	Message   struct {
		Text string `json:"text"`
	} `json:"message"`
	Locations []struct {
		PhysicalLocation struct {
			ArtifactLocation struct {
				URI       string `json:"uri"`
				URIBaseID string `json:"uriBaseId"`
			} `json:"artifactLocation"`
			Region struct {
				StartLine   int `json:"startLine"`
				StartColumn int `json:"startColumn"`
			} `json:"region"`
		} `json:"physicalLocation"`
	} `json:"locations"`
}

func runSARIFText(t *testing.T, dir string, args ...string) (code int, out []byte, log sarifLog) {
	t.Helper()
	code, out, stderr := run(t, dir, []string{"GOFLAGS=-mod=mod"}, append([]string{"-format", "sarif"}, args...)...)
	if len(stderr) > 0 {
		t.Logf("stderr:\n%s", stderr)
	}
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	return code, out, log
}

func validate(t *testing.T, out []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if err := sarifSchema(t).Validate(inst); err != nil {
		t.Fatalf("output does not conform to the SARIF 2.1.0 schema: %v\n%s", err, out)
	}
}

func TestSARIF(t *testing.T) {
	dir := suiteDir(t)
	code, out, log := runSARIFText(t, dir, "-p99=30s", "./...")
	validate(t, out)

	all := analyzers.All()
	if want := 0; len(all) > 0 {
		want = 3
		if code != want {
			t.Errorf("exit code %d, want %d (findings)", code, want)
		}
	} else if code != 0 {
		t.Errorf("exit code %d with no analyzers, want 0", code)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("version %q, %d runs; want 2.1.0 and one run", log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "retryvet" {
		t.Errorf("driver name %q, want retryvet", run.Tool.Driver.Name)
	}
	if got := run.OriginalURIBaseIDs[srcRoot].URI; got != dirURI(dir) {
		t.Errorf("originalUriBaseIds[%s] = %q, want %q", srcRoot, got, dirURI(dir))
	}
	if len(run.Invocations) != 1 || !run.Invocations[0].ExecutionSuccessful {
		t.Errorf("invocations %+v, want one successful", run.Invocations)
	}

	// One rule per analyzer, in order, with its documentation.
	if len(run.Tool.Driver.Rules) != len(all) {
		t.Fatalf("%d rules, want %d (one per analyzer)", len(run.Tool.Driver.Rules), len(all))
	}
	for i, a := range all {
		r := run.Tool.Driver.Rules[i]
		summary, _, _ := strings.Cut(a.Doc, "\n")
		switch {
		case r.ID != a.Name:
			t.Errorf("rule %d id %q, want %q", i, r.ID, a.Name)
		case r.Help.Markdown != a.Doc || r.Help.Text != a.Doc:
			t.Errorf("rule %s help is not the analyzer's Doc", a.Name)
		case r.ShortDescription.Text != strings.TrimSpace(summary):
			t.Errorf("rule %s short description %q, want %q", a.Name, r.ShortDescription.Text, summary)
		case r.HelpURI != a.URL:
			t.Errorf("rule %s helpUri %q, want %q", a.Name, r.HelpURI, a.URL)
		}
	}

	// Every analyzer reports something on the suite, from its own package,
	// at a location relative to the module root.
	byRule := make(map[string]int)
	for _, res := range run.Results {
		byRule[res.RuleID]++
		if res.RuleIndex < 0 || res.RuleIndex >= len(all) || all[res.RuleIndex].Name != res.RuleID {
			t.Errorf("result %q has ruleIndex %d", res.RuleID, res.RuleIndex)
		}
		if len(res.Locations) != 1 {
			t.Errorf("result %q has %d locations, want 1", res.Message.Text, len(res.Locations))
			continue
		}
		loc := res.Locations[0].PhysicalLocation
		uri := loc.ArtifactLocation.URI
		if loc.ArtifactLocation.URIBaseID != srcRoot || strings.Contains(uri, ":") || strings.HasPrefix(uri, "/") || strings.HasPrefix(uri, "..") {
			t.Errorf("result %q at %q (base %q): want a path relative to %s", res.Message.Text, uri, loc.ArtifactLocation.URIBaseID, srcRoot)
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(uri))); err != nil {
			t.Errorf("result %q: %v", res.Message.Text, err)
		}
		if loc.Region.StartLine < 1 {
			t.Errorf("result %q has no start line", res.Message.Text)
		}
		if strings.HasPrefix(uri, "clean/") {
			t.Errorf("finding in the clean package: %s:%d: [%s] %s", uri, loc.Region.StartLine, res.RuleID, res.Message.Text)
		}
	}
	for _, a := range all {
		if byRule[a.Name] == 0 {
			t.Errorf("no SARIF result for analyzer %s on testdata/suite", a.Name)
		}
	}
	if byRule["retrytimeout"] > 0 && !slices.ContainsFunc(run.Results, func(r sarifResult) bool {
		return len(r.Locations) == 1 && strings.HasPrefix(r.Locations[0].PhysicalLocation.ArtifactLocation.URI, "p99default/")
	}) {
		t.Errorf("-p99=30s: no result in p99default/")
	}
	t.Logf("%d results: %v", len(run.Results), byRule)
}

func TestSARIFClean(t *testing.T) {
	dir := suiteDir(t)
	code, out, log := runSARIFText(t, dir, "./quiet")
	validate(t, out)
	if code != 0 || len(log.Runs) != 1 || len(log.Runs[0].Results) != 0 {
		t.Errorf("exit code %d, results %+v; want 0 and none", code, log.Runs)
	}
}

// TestSARIFSelect: -NAME=false turns an analyzer off, -NAME runs only it.
func TestSARIFSelect(t *testing.T) {
	all := analyzers.All()
	if len(all) < 2 {
		t.Skip("fewer than two analyzers")
	}
	dir := suiteDir(t)
	rules := func(args ...string) map[string]int {
		_, out, log := runSARIFText(t, dir, append(args, "-p99=30s", "./...")...)
		validate(t, out)
		n := map[string]int{}
		for _, r := range log.Runs[0].Results {
			n[r.RuleID]++
		}
		return n
	}
	first, second := all[0].Name, all[1].Name
	if got := rules("-" + first + "=false"); got[first] != 0 || got[second] == 0 {
		t.Errorf("-%s=false: results %v", first, got)
	}
	if got := rules("-" + second); len(got) != 1 || got[second] == 0 {
		t.Errorf("-%s: results %v, want only %s", second, got, second)
	}
}

func TestSARIFLoadError(t *testing.T) {
	dir := suiteDir(t)
	code, stdout, stderr := run(t, dir, []string{"GOFLAGS=-mod=mod"}, "-format", "sarif", "./nosuchpkg")
	if code != 1 {
		t.Errorf("exit code %d on a missing package, want 1\nstderr: %s", code, stderr)
	}
	if len(stdout) > 0 {
		validate(t, stdout)
	}
}
