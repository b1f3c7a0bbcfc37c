// Package plugin is the golangci-lint v2 module plugin of retryvet.
//
// It registers, with github.com/golangci/plugin-module-register:
//
//   - "retryvet": the whole suite (analyzers.All()), filtered by the
//     enable/disable settings. golangci-lint reports every finding as
//     linter "retryvet" with the text "ANALYZER: message", so
//     //nolint:retryvet silences them all.
//   - one plugin per analyzer, named after it ("deadlinecensus",
//     "doubleretry", "retrytimeout", "retrystatus", "expiredctx"), for
//     teams that want each analyzer as its own linter (its own //nolint
//     name, severity rule and exclusion). Enable either the suite or the
//     single analyzers, not both, or findings are reported twice.
//
// Settings (golangci-lint lower-cases keys, so they are lower case):
//
//	enable:  [doubleretry, retrytimeout]  # only these (suite only)
//	disable: [expiredctx]                 # all but these (suite only)
//	p99: 30s                              # default p99 of remote calls
//	values: config/retryvet.yml           # instead of .retryvet.yml
//
// p99 is the slow-end latency assumed for a remote call whose function has
// no //retryvet:p99 directive (a directive always wins). Unknown keys,
// unknown analyzer names and malformed durations are errors, so a typo in
// .golangci.yml does not silently turn a check off.
//
// The values file (docs/values.md) is .retryvet.yml at the root of the
// module golangci-lint runs in, or the file the values setting names
// (relative to the working directory). A malformed one is an error naming
// its file and line, as under the standalone command and go vet: the run
// does not go on without the values it gives.
//
// Build a binary with it (see docs/golangci/):
//
//	golangci-lint custom   # reads .custom-gcl.yml
package plugin

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/retryvet/retryvet/analyzers"
	"github.com/retryvet/retryvet/analyzers/retrystatus"
	"github.com/retryvet/retryvet/doubleretry"
	"github.com/retryvet/retryvet/internal/directive"
	"github.com/retryvet/retryvet/internal/inputs"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// Name is the name of the suite plugin in .custom-gcl.yml and .golangci.yml.
const Name = "retryvet"

// Names are the per-analyzer plugins registered besides the suite: the
// analyzer names of the contract (DESIGN.md), as the ignore directive
// knows them.
var Names = directive.Names

func init() {
	register.Plugin(Name, func(conf any) (register.LinterPlugin, error) { return New(conf, "") })
	for _, name := range Names {
		register.Plugin(name, func(conf any) (register.LinterPlugin, error) { return New(conf, name) })
	}
}

// Settings are the plugin's settings in .golangci.yml
// (linters.settings.custom.retryvet.settings).
type Settings struct {
	// Enable lists the analyzers to run; empty means all.
	Enable []string `json:"enable"`
	// Disable lists analyzers not to run.
	Disable []string `json:"disable"`
	// P99 is the default p99 latency of remote calls, a time.ParseDuration
	// string such as "30s"; empty means none.
	P99 string `json:"p99"`
	// Values is the values file to read instead of .retryvet.yml at the
	// module root.
	Values string `json:"values"`
	// RetryLog turns on retrystatus's opt-in check for retries that record
	// nothing (the command's -retrylog).
	RetryLog bool `json:"retrylog"`
	// SideEffects turns on doubleretry's opt-in checks for writes a retry
	// repeats and POSTs sent again with no idempotency key (the
	// command's -sideeffects).
	SideEffects bool `json:"sideeffects"`
}

// Plugin is the registered linter plugin.
type Plugin struct {
	settings  Settings
	only      string // for a per-analyzer plugin, its analyzer
	p99       time.Duration
	inputs    *inputs.Found
	analyzers []*analysis.Analyzer
}

// New decodes the settings and returns the plugin for the suite (only ==
// "") or for the single analyzer named only.
func New(conf any, only string) (*Plugin, error) {
	s, err := register.DecodeSettings[Settings](conf)
	if err != nil {
		return nil, fmt.Errorf("retryvet settings: %w", err)
	}
	p := &Plugin{settings: s, only: only}
	if s.P99 != "" {
		d, err := time.ParseDuration(s.P99)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("retryvet settings: p99 %q is not a positive duration (time.ParseDuration syntax, e.g. 30s)", s.P99)
		}
		p.p99 = d
	}
	if s.RetryLog {
		if err := retrystatus.Analyzer.Flags.Set(retrystatus.RetryLogFlag, "true"); err != nil {
			return nil, fmt.Errorf("retryvet settings: retrylog: %w", err)
		}
	}
	if s.SideEffects {
		if err := doubleretry.Analyzer.Flags.Set(doubleretry.SideEffectsFlag, "true"); err != nil {
			return nil, fmt.Errorf("retryvet settings: sideeffects: %w", err)
		}
	}
	if p.inputs, err = inputs.DiscoverValues(".", s.Values); err != nil {
		return nil, fmt.Errorf("retryvet: %w", err)
	}
	all := analyzers.All()
	known := make(map[string]bool)
	for _, a := range all {
		known[a.Name] = true
	}
	for _, n := range Names {
		known[n] = true // named in the contract even before it is built
	}
	if only != "" && (len(s.Enable) > 0 || len(s.Disable) > 0) {
		return nil, fmt.Errorf("retryvet settings: enable/disable belong to the %q plugin, not to %q", Name, only)
	}
	for _, list := range [][]string{s.Enable, s.Disable} {
		for _, n := range list {
			if !known[n] {
				return nil, fmt.Errorf("retryvet settings: unknown analyzer %q (want one of %s)", n, strings.Join(Names, ", "))
			}
		}
	}
	for _, a := range all {
		switch {
		case only != "" && a.Name != only:
		case len(s.Enable) > 0 && !slices.Contains(s.Enable, a.Name):
		case slices.Contains(s.Disable, a.Name):
		default:
			p.analyzers = append(p.analyzers, a)
		}
	}
	return p, nil
}

// BuildAnalyzers returns the selected analyzers, applies the p99 setting
// and declares the values file New read and the module's manifests
// (inputs.go), as the other drivers do: the analyzers read no file.
func (p *Plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	if p.p99 > 0 {
		retrymodel.SetDefaultP99(p.p99)
	}
	p.inputs.Bundle = manifests(p.inputs.Root)
	if err := p.inputs.Declare(); err != nil {
		return nil, fmt.Errorf("retryvet: %w", err)
	}
	return p.analyzers, nil
}

// GetLoadMode asks for type information: the analyzers need types and
// facts across packages.
func (p *Plugin) GetLoadMode() string { return register.LoadModeTypesInfo }
