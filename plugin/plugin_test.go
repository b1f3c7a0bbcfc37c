package plugin

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golangci/plugin-module-register/register"

	"github.com/retryvet/retryvet/analyzers"
	"github.com/retryvet/retryvet/analyzers/retrystatus"
	"github.com/retryvet/retryvet/doubleretry"
	"github.com/retryvet/retryvet/internal/retrymodel"
	"github.com/retryvet/retryvet/internal/values"
)

func names(t *testing.T, p register.LinterPlugin) []string {
	t.Helper()
	as, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range as {
		out = append(out, a.Name)
	}
	return out
}

func allNames() []string {
	var out []string
	for _, a := range analyzers.All() {
		out = append(out, a.Name)
	}
	return out
}

func TestRegistered(t *testing.T) {
	for _, name := range append([]string{Name}, Names...) {
		newPlugin, err := register.GetPlugin(name)
		if err != nil {
			t.Fatalf("plugin %q not registered: %v", name, err)
		}
		// golangci-lint passes nil settings when there are none.
		p, err := newPlugin(nil)
		if err != nil {
			t.Fatalf("plugin %q with no settings: %v", name, err)
		}
		if p.GetLoadMode() != register.LoadModeTypesInfo {
			t.Errorf("plugin %q load mode %q", name, p.GetLoadMode())
		}
		got := names(t, p)
		want := allNames()
		if name != Name {
			want = slices.DeleteFunc(want, func(n string) bool { return n != name })
		}
		if !slices.Equal(got, want) {
			t.Errorf("plugin %q runs %q, want %q", name, got, want)
		}
	}
}

func TestNamesMatchContract(t *testing.T) {
	for _, a := range analyzers.All() {
		if !slices.Contains(Names, a.Name) {
			t.Errorf("analyzer %q is in analyzers.All() but has no per-analyzer plugin (add it to Names)", a.Name)
		}
	}
}

func TestSettings(t *testing.T) {
	defer retrymodel.SetDefaultP99(0)
	all := allNames()

	// The map golangci-lint hands over after reading YAML.
	p, err := New(map[string]any{"disable": []any{"expiredctx"}, "p99": "45s"}, "")
	if err != nil {
		t.Fatal(err)
	}
	want := slices.DeleteFunc(slices.Clone(all), func(n string) bool { return n == "expiredctx" })
	if got := names(t, p); !slices.Equal(got, want) {
		t.Errorf("disable expiredctx: got %q, want %q", got, want)
	}
	if d := retrymodel.DefaultP99(); d != 45*time.Second {
		t.Errorf("p99 setting: default p99 %v, want 45s", d)
	}

	// retrylog: true turns on retrystatus's opt-in check.
	defer retrystatus.Analyzer.Flags.Set(retrystatus.RetryLogFlag, "false")
	if _, err := New(map[string]any{"retrylog": true}, ""); err != nil {
		t.Fatal(err)
	}
	if f := retrystatus.Analyzer.Flags.Lookup(retrystatus.RetryLogFlag); f == nil || f.Value.String() != "true" {
		t.Errorf("retrylog setting: retrystatus.retrylog is %v, want true", f)
	}

	// sideeffects: true turns on doubleretry's opt-in checks.
	defer doubleretry.Analyzer.Flags.Set(doubleretry.SideEffectsFlag, "false")
	if _, err := New(map[string]any{"sideeffects": true}, ""); err != nil {
		t.Fatal(err)
	}
	if f := doubleretry.Analyzer.Flags.Lookup(doubleretry.SideEffectsFlag); f == nil || f.Value.String() != "true" {
		t.Errorf("sideeffects setting: doubleretry.sideeffects is %v, want true", f)
	}

	p, err = New(map[string]any{"enable": []any{"doubleretry", "retrystatus"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	want = slices.DeleteFunc(slices.Clone(all), func(n string) bool { return n != "doubleretry" && n != "retrystatus" })
	if got := names(t, p); !slices.Equal(got, want) {
		t.Errorf("enable: got %q, want %q", got, want)
	}

	for _, tc := range []struct {
		conf any
		only string
		want string
	}{
		{map[string]any{"enable": []any{"doubleretri"}}, "", `unknown analyzer "doubleretri"`},
		{map[string]any{"p99": "forty"}, "", `p99 "forty" is not a positive duration`},
		{map[string]any{"p99": "-1s"}, "", `p99 "-1s" is not a positive duration`},
		{map[string]any{"default-p99": "40s"}, "", `unknown field "default-p99"`},
		{map[string]any{"disable": []any{"retrystatus"}}, "doubleretry", `belong to the "retryvet" plugin`},
	} {
		_, err := New(tc.conf, tc.only)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%v, %q) = %v, want an error containing %s", tc.conf, tc.only, err, tc.want)
		}
	}
}

// TestValuesFile: the plugin reads .retryvet.yml at the module root of the
// working directory, or the file the values setting names; a malformed
// one is New's error, with its file, line and reason.
func TestValuesFile(t *testing.T) {
	defer values.Reset()
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/vals\n\ngo 1.26\n")
	write(".retryvet.yml", "p99:\n  example.com/vals/p.get: 5s\n")
	t.Chdir(dir)

	p, err := New(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	names(t, p) // BuildAnalyzers
	if e := values.Current().P99("example.com/vals/p.get"); e == nil || e.From() != "5s from .retryvet.yml:2" {
		t.Errorf("the values file is not in use: p99 entry %v", e)
	}

	write(".retryvet.yml", "p99:\n  example.com/vals/p.get: 40\n")
	write("other.yml", "fields:\n  example.com/vals/p.T.F: forty\n")
	for _, tc := range []struct {
		conf any
		want string
	}{
		{nil, `retryvet: .retryvet.yml:2: p99 of example.com/vals/p.get: "40" is not a duration`},
		{map[string]any{"p99": "30s"}, `.retryvet.yml:2: p99 of example.com/vals/p.get: "40" is not a duration`},
		{map[string]any{"values": "other.yml"}, `retryvet: other.yml:2: fields`},
		{map[string]any{"values": "missing.yml"}, `values file missing.yml does not exist`},
	} {
		for _, only := range []string{"", "retrytimeout"} {
			if _, err := New(tc.conf, only); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New(%v, %q) = %v, want an error containing %s", tc.conf, only, err, tc.want)
			}
		}
	}
}
