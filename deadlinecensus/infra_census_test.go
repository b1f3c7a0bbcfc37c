package deadlinecensus

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestInfraCensus: the census lists a route's timeout as the deadline of
// the handler it serves, with the YAML position that sets it, and says
// which manifests it skipped or could not read.
func TestInfraCensus(t *testing.T) {
	var log bytes.Buffer
	old := infraLog
	infraLog = &log
	defer func() { infraLog = old }()
	dir, err := filepath.Abs(filepath.Join("testdata", "infra"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Load(Options{Dir: dir}, "./...")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Run(p)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, c); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Pipelines []struct {
			Function string
			Callers  []map[string]any
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	rows := map[string]map[string]any{}
	for _, pl := range out.Pipelines {
		if pl.Function != "example.com/infra/llm.(*Client).Complete" {
			continue
		}
		for _, r := range pl.Callers {
			rows[r["entry"].(string)] = r
		}
	}
	check := func(entry, deadline, source, note, canStart string) {
		t.Helper()
		r := rows[entry]
		if r == nil {
			t.Errorf("no row for %s; have %v", entry, rows)
			return
		}
		if r["deadline"] != deadline || r["deadlineSource"] != source || r["retryCanStart"] != canStart {
			t.Errorf("%s: deadline %v at %v, can start %v; want %s at %s, %s", entry, r["deadline"], r["deadlineSource"], r["retryCanStart"], deadline, source, canStart)
		}
		if got, _ := r["note"].(string); got != note {
			t.Errorf("%s: note %q\nwant %q", entry, got, note)
		}
	}
	check("example.com/infra/api.(*Server).Complete", "15s", "deploy/envoy.yaml:23:17",
		"infra timeout 15s (envoy route /v1/complete, deploy/envoy.yaml:23; Envoy default 15s (RouteAction.timeout, Envoy v1.x))", "no")
	check("example.com/infra/api.(*Server).Batch", "20s", "deploy/mesh.yaml:17:14",
		"infra timeout 20s (istio VirtualService batch /v1/batch, deploy/mesh.yaml:17)", "no")
	check("example.com/infra/api.(*Server).Long", "120s", "deploy/envoy.yaml:32:28",
		"infra timeout 120s (envoy route /v1/long, deploy/envoy.yaml:32)", "yes")
	check("example.com/infra/api.(*Server).Stream", "none", "api/api.go:45:23", "the request's context: net/http sets no deadline", "yes")
	for _, want := range []string{
		"retryvet: manifest deploy/mesh.yaml:26: malformed YAML document: mapping values are not allowed in this context; its routes are not read (the other documents of the file are)",
		"retryvet: manifest charts/llm/templates/virtualservice.yaml:4: template, skipped",
	} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
}
