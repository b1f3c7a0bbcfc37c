package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/retryvet/retryvet/internal/infra"
)

// TestInputsCommand: 'retryvet inputs' names the manifests relative to the
// workspace root (-root, "." by default) and stops on what would make the
// configuration wrong: a malformed values file, an unknown analyzer.
// TestHermetic runs the suite with what it prints.
func TestInputsCommand(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "hermetic"))
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, dir, nil, "inputs", "-analyzer", "retrytimeout")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var config map[string]struct {
		Flags map[string]string `json:"analyzer_flags"`
	}
	if err := json.Unmarshal(stdout, &config); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	flags := config["retrytimeout"].Flags
	if flags["values-name"] != ".retryvet.yml" {
		t.Errorf("values-name %q, want .retryvet.yml", flags["values-name"])
	}
	b, err := infra.ParseBundle(flags["manifests"])
	if err != nil {
		t.Fatal(err)
	}
	if b.Root != "." || len(b.Files) != 1 || b.Files[0].Name != "deploy/envoy.yaml" {
		t.Errorf("manifests: root %q, files %+v; want root . and deploy/envoy.yaml", b.Root, b.Files)
	}

	if code, _, stderr := run(t, dir, nil, "inputs", "-analyzer", "nosuch"); code != 2 || !bytes.Contains(stderr, []byte("no such analyzer")) {
		t.Errorf("-analyzer nosuch: exit %d\n%s", code, stderr)
	}
	bad := p99Module(t, badValues)
	if code, _, stderr := run(t, bad, nil, "inputs"); code != 2 || !bytes.Contains(stderr, []byte(wantErr)) {
		t.Errorf("malformed values file: exit %d, want 2 and %q\n%s", code, wantErr, stderr)
	}
}
