package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"
)

// A finding is one diagnostic, its position relative to the repository root.
type finding struct {
	Analyzer string `json:"analyzer"`
	File     string `json:"file"` // repository-relative, or absolute when outside the repository
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Message  string `json:"message"`
}

// A result is what one run of retryvet over one repository produced; it is
// also the saved findings file (-save, -findings).
type result struct {
	Repo     string    `json:"repo"`
	Commit   string    `json:"commit"`
	Packages []string  `json:"packages"`
	Findings []finding `json:"findings"`
	Errors   []string  `json:"errors,omitempty"` // per-package errors vet reported (the rest still counts)
}

// runVet runs go vet -vettool=bin -json over the packages in modDir and
// returns the findings with positions relative to repoDir.
func runVet(ctx context.Context, bin, repoDir, modDir string, pkgs []string) ([]finding, []string, error) {
	args := append([]string{"vet", "-vettool=" + bin, "-json"}, pkgs...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = modDir
	// A repository's own go.work is part of how it builds (river's pin needs
	// it) when it uses the module analysed; anything above the checkout,
	// or a go.work for other modules of the repository, is switched off.
	if !workUses(repoDir, modDir) {
		cmd.Env = append(os.Environ(), "GOWORK=off")
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return nil, nil, fmt.Errorf("go vet: %v", ctx.Err())
	}
	out := append(stdout.Bytes(), stderr.Bytes()...)
	findings, errs, answered := parseVetJSON(out, repoDir)
	// vet exits 1 when one package (often a test variant) does not compile;
	// the packages that answered still count, so only a run where none did
	// is a failure.
	if runErr != nil && answered == 0 {
		return nil, nil, fmt.Errorf("go vet: %v\n%s", runErr, tail(string(out), 40))
	}
	if runErr != nil {
		errs = append(errs, fmt.Sprintf("go vet: %v", runErr))
	}
	return findings, errs, nil
}

// parseVetJSON reads go vet -json output: '# pkg' header lines, each followed
// by JSON objects {"pkg":{"analyzer":[diagnostics]}} or
// {"pkg":{"analyzer":{"error":"..."}}}, and any text the go command printed
// (build errors). Text that is not JSON is returned as an error under its
// header. Findings are deduplicated (a package and its test variant report
// the same position) and sorted. Packages without findings print {}.
func parseVetJSON(out []byte, repoDir string) ([]finding, []string, int) {
	answered := 0
	var findings []finding
	var errs []string
	seen := map[finding]bool{}
	header := ""
	var chunk bytes.Buffer
	flush := func() {
		text := bytes.TrimSpace(chunk.Bytes())
		chunk.Reset()
		for len(text) > 0 {
			if text[0] != '{' {
				errs = append(errs, prefixed(header, string(text)))
				return
			}
			dec := json.NewDecoder(bytes.NewReader(text))
			var obj map[string]map[string]json.RawMessage
			if err := dec.Decode(&obj); err != nil {
				errs = append(errs, prefixed(header, fmt.Sprintf("bad JSON from vet: %v: %s", err, firstLine(string(text)))))
				return
			}
			text = bytes.TrimSpace(text[dec.InputOffset():])
			answered++
			for pkg, byAnalyzer := range obj {
				for analyzer, raw := range byAnalyzer {
					var diags []struct {
						Posn    string `json:"posn"`
						Message string `json:"message"`
					}
					if err := json.Unmarshal(raw, &diags); err != nil {
						var e struct {
							Error string `json:"error"`
						}
						if err2 := json.Unmarshal(raw, &e); err2 != nil || e.Error == "" {
							errs = append(errs, fmt.Sprintf("%s: %s: unexpected JSON: %s", pkg, analyzer, firstLine(string(raw))))
						} else {
							errs = append(errs, fmt.Sprintf("%s: %s: %s", pkg, analyzer, e.Error))
						}
						continue
					}
					for _, d := range diags {
						f := finding{Analyzer: analyzer, Message: d.Message}
						f.File, f.Line, f.Col = splitPosn(d.Posn, repoDir)
						if !seen[f] {
							seen[f] = true
							findings = append(findings, f)
						}
					}
				}
			}
		}
	}
	for _, line := range bytes.SplitAfter(out, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("# ")) {
			flush()
			header = strings.TrimSpace(string(line[2:]))
			continue
		}
		if bytes.HasPrefix(line, []byte("go: downloading ")) || bytes.HasPrefix(line, []byte("go: finding ")) {
			continue // progress of the go command, not a result
		}
		chunk.Write(line)
	}
	flush()
	sortFindings(findings)
	return findings, errs, answered
}

// splitPosn turns /abs/file.go:12:3 into (rel/file.go, 12, 3), relative to
// repoDir when inside it.
func splitPosn(posn, repoDir string) (string, int, int) {
	file, line, col := posn, 0, 0
	if rest, c, ok := cutLast(file, ":"); ok {
		if n, err := strconv.Atoi(c); err == nil {
			file, col = rest, n
			if rest2, l, ok := cutLast(file, ":"); ok {
				if n, err := strconv.Atoi(l); err == nil {
					file, line = rest2, n
				} else {
					line, col = col, 0 // file:line only
				}
			} else {
				line, col = col, 0
			}
		}
	}
	if repoDir != "" && filepath.IsAbs(file) {
		if rel, err := filepath.Rel(repoDir, file); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			file = rel
		}
	}
	return filepath.ToSlash(file), line, col
}

func sortFindings(fs []finding) {
	sort.Slice(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		if a.Analyzer != b.Analyzer {
			return a.Analyzer < b.Analyzer
		}
		return a.Message < b.Message
	})
}

func prefixed(header, text string) string {
	if header == "" {
		return text
	}
	return header + ": " + text
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// saveResult writes r as dir/<key>.json.
func saveResult(dir, key string, r *result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(r, "", "\t")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, key+".json"), append(data, '\n'), 0o644)
}

// errNoSaved means a repository has no saved findings in the -findings directory.
var errNoSaved = errors.New("no saved findings")

// loadResult reads dir/<key>.json.
func loadResult(dir, key string) (*result, error) {
	data, err := os.ReadFile(filepath.Join(dir, key+".json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, errNoSaved
	}
	if err != nil {
		return nil, err
	}
	var r result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, key+".json"), err)
	}
	return &r, nil
}

// workUses reports whether repoDir has a go.work whose use directives
// name modDir.
func workUses(repoDir, modDir string) bool {
	path := filepath.Join(repoDir, "go.work")
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	wf, err := modfile.ParseWork(path, data, nil)
	if err != nil {
		return true // let the go command say what is wrong with it
	}
	for _, u := range wf.Use {
		if filepath.Clean(filepath.Join(repoDir, u.Path)) == filepath.Clean(modDir) {
			return true
		}
	}
	return false
}
