package values_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryvet/retryvet/deadlinecensus"
	"github.com/retryvet/retryvet/internal/values"
)

// The census of testdata/svc with its .retryvet.yml: every kind of entry,
// an entry that matches nothing, -set over the file, a malformed file.

type row struct {
	Entry, Deadline, DeadlineSource, RetryCanStart, CoversP99, Note string
}

func census(t *testing.T, args ...string) (rows []row, derivation string, stderr string, code int) {
	t.Helper()
	values.Reset()
	t.Cleanup(values.Reset)
	var out, errb bytes.Buffer
	code = deadlinecensus.Command(append(append([]string{"-format", "json", "-tests=false"}, args...), "./..."), &out, &errb)
	if code != 0 {
		return nil, "", errb.String(), code
	}
	var c struct {
		Pipelines []struct {
			Policy struct {
				Derivation string `json:"derivation"`
			} `json:"policy"`
			Callers []struct {
				Entry          string `json:"entry"`
				Deadline       string `json:"deadline"`
				DeadlineSource string `json:"deadlineSource"`
				RetryCanStart  string `json:"retryCanStart"`
				CoversP99      string `json:"coversP99"`
				Note           string `json:"note"`
			} `json:"callers"`
		} `json:"pipelines"`
	}
	if err := json.Unmarshal(out.Bytes(), &c); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(c.Pipelines) != 1 {
		t.Fatalf("want 1 pipeline, got %d\n%s", len(c.Pipelines), out.String())
	}
	for _, r := range c.Pipelines[0].Callers {
		short := r.Entry[strings.LastIndex(r.Entry, "/")+1:]
		rows = append(rows, row{short, r.Deadline, r.DeadlineSource, r.RetryCanStart, r.CoversP99, r.Note})
	}
	return rows, c.Pipelines[0].Policy.Derivation, errb.String(), code
}

func svc(t *testing.T) string {
	dir, err := filepath.Abs("testdata/svc")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	return dir
}

func has(t *testing.T, rows []row, want row) {
	t.Helper()
	for _, r := range rows {
		if r == want {
			return
		}
	}
	t.Errorf("no row %+v in\n%s", want, dump(rows))
}

func dump(rows []row) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString("  ")
		b.WriteString(strings.Join([]string{r.Entry, r.Deadline, r.DeadlineSource, r.RetryCanStart, r.CoversP99, r.Note}, " | "))
		b.WriteString("\n")
	}
	return b.String()
}

func TestCensusValues(t *testing.T) {
	svc(t)
	rows, derivation, stderr, code := census(t)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// p99 from the file: the derivation and the p99 verdicts use it.
	if !strings.Contains(derivation, "p99 40s from .retryvet.yml:3") {
		t.Errorf("derivation does not name the file's p99: %s", derivation)
	}
	for _, want := range []row{
		// handlers: by function name and by route; a handler without an entry has none.
		{"api.(*Server).Complete", "30s", ".retryvet.yml:7", "no", "no", "deadline 30s set in front of the handler by infrastructure, from .retryvet.yml:7"},
		{"api.(*Server).Summarize", "120s", ".retryvet.yml:8", "yes", "yes", "deadline 120s set in front of the handler by infrastructure, from .retryvet.yml:8"},
		{"api.(*Server).Plain", "none", "api/api.go:28:36", "yes", "yes", "the request's context: net/http sets no deadline"},
		// fields: the production value of a config field.
		{"worker.(*Worker).FromFile", "40s", "worker/worker.go:58:17", "no", "yes", "40s from .retryvet.yml:5 (w.Cfg.JobTimeout)"},
		// defaults: a Default... constant, a constructor default, a flag default.
		{"worker.(*Worker).Default", "30s", "worker/worker.go:44:17", "no", "no", "default 30s (w.Cfg.Timeout, set at config/config.go:17:49)"},
		{"worker.(*Worker).Constructor", "100s", "worker/worker.go:51:17", "yes", "yes", "default 100s (w.Cfg.BatchTimeout, set at config/config.go:22:20)"},
		{"tool.main", "20s", "cmd/tool/main.go:16:17", "no", "no", "default 20s (flag -timeout, set at cmd/tool/main.go:12:40)"},
		// a context assigned on two paths: one row per deadline source.
		{"worker.(*Worker).Branch", "5s", "worker/worker.go:24:17", "no", "no", ""},
		{"worker.(*Worker).Branch", "none", "worker/worker.go:21:27", "yes", "yes", ""},
		// a parameter is never folded.
		{"worker.(*Worker).Param", "unknown", "worker/worker.go:65:17", "unknown", "unknown", "context.WithTimeout(d) cannot be folded to a constant"},
	} {
		has(t, rows, want)
	}
	// The entry that matches nothing is reported, with its line.
	if !strings.Contains(stderr, ".retryvet.yml:9: handlers entry example.com/svc/api.(*Server).Gone matches nothing") {
		t.Errorf("the unmatched entry is not reported:\n%s", stderr)
	}
	if strings.Contains(stderr, ".retryvet.yml:3") || strings.Contains(stderr, ".retryvet.yml:5") || strings.Contains(stderr, ".retryvet.yml:7") {
		t.Errorf("a matched entry is reported as unmatched:\n%s", stderr)
	}
}

func TestCensusSetOverridesFile(t *testing.T) {
	svc(t)
	rows, derivation, stderr, code := census(t,
		"-set", "fields.example.com/svc/config.Config.JobTimeout=90s",
		"-set", "p99.example.com/svc/llm.(*Client).ask=100s",
		"-set", "p99.example.com/svc/llm.(*Client).nothing=1s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(derivation, "p99 100s from -set p99.example.com/svc/llm.(*Client).ask=100s") {
		t.Errorf("derivation does not name the -set p99: %s", derivation)
	}
	has(t, rows, row{"worker.(*Worker).FromFile", "90s", "worker/worker.go:58:17", "yes", "no", "90s from -set fields.example.com/svc/config.Config.JobTimeout=90s (w.Cfg.JobTimeout)"})
	// A -set entry that names nothing is reported too.
	if !strings.Contains(stderr, "-set p99.example.com/svc/llm.(*Client).nothing=1s: p99 entry example.com/svc/llm.(*Client).nothing matches nothing") {
		t.Errorf("the unmatched -set entry is not reported:\n%s", stderr)
	}
}

func TestCensusValuesFlag(t *testing.T) {
	svc(t)
	other := filepath.Join(t.TempDir(), "prod.yml")
	if err := os.WriteFile(other, []byte("fields:\n  example.com/svc/config.Config.JobTimeout: 75s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, _, stderr, code := census(t, "-values", other)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	has(t, rows, row{"worker.(*Worker).FromFile", "75s", "worker/worker.go:58:17", "yes", "unknown", "75s from prod.yml:2 (w.Cfg.JobTimeout)"})
	// Nothing of .retryvet.yml is read: the handler has no deadline.
	has(t, rows, row{"api.(*Server).Complete", "none", "api/api.go:16:36", "yes", "unknown", "the request's context: net/http sets no deadline"})
	if _, _, stderr, code := census(t, "-values", filepath.Join(t.TempDir(), "missing.yml")); code != 2 || !strings.Contains(stderr, "missing.yml does not exist") {
		t.Errorf("a missing -values file: exit %d, %s", code, stderr)
	}
}

func TestCensusMalformedValues(t *testing.T) {
	svc(t)
	bad := filepath.Join(t.TempDir(), "bad.yml")
	if err := os.WriteFile(bad, []byte("p99:\n  example.com/svc/llm.(*Client).ask: 40\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(t.TempDir(), "baseline.txt")
	_, _, stderr, code := census(t, "-values", bad, "-baseline", base, "-update")
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if want := "bad.yml:2: p99 of example.com/svc/llm.(*Client).ask: \"40\" is not a duration"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q does not contain %q", stderr, want)
	}
	if _, err := os.Stat(base); !os.IsNotExist(err) {
		t.Errorf("the baseline was written despite the malformed values file (%v)", err)
	}
	if _, _, stderr, code := census(t, "-set", "p99.x=fast"); code != 2 || !strings.Contains(stderr, `"fast" is not a duration`) {
		t.Errorf("a malformed -set: exit %d, %s", code, stderr)
	}
}
