package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The analyzers a row may name (DESIGN.md order).
var analyzerNames = []string{"deadlinecensus", "doubleretry", "retrytimeout", "retrystatus", "expiredctx"}

// Verdicts of a judged row.
const (
	verdictDefect = "defect" // reported (or should be) and real
	verdictFine   = "fine"   // reported and not worth a change
	verdictMissed = "missed" // real and not reported
)

// A judgedRepo is one judged file: a repository at a pinned commit and its rows.
type judgedRepo struct {
	File     string   // the .tsv it was read from
	Repo     string   // github.com/OWNER/NAME
	Commit   string   // 40 hex
	Kind     string   // llm-client, sdk, ...
	Packages []string // go package patterns, relative to the module directory
	Module   string   // the module directory inside the repository
	Fixes    []string // "<sha> <line>": maintainers' fixes whose parent is pinned
	Notes    []string
	Rows     []row
}

// A row is one judged item.
type row struct {
	Analyzer string
	File     string // relative to the repository root
	Line     int
	Verdict  string
	Reason   string
	Src      string // file:line of the row in the .tsv
}

// Key is the checkout directory name: OWNER_NAME.
func (j *judgedRepo) Key() string {
	return strings.Replace(strings.TrimPrefix(j.Repo, "github.com/"), "/", "_", 1)
}

var (
	repoRE   = regexp.MustCompile(`^github\.com/[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	commitRE = regexp.MustCompile(`^[0-9a-f]{40}$`)
	fixRE    = regexp.MustCompile(`^[0-9a-f]{7,40} \S`)
	kinds    = map[string]bool{"llm-client": true, "llm-gateway": true, "agent": true, "sdk": true,
		"job-queue": true, "k8s-controller": true, "cli": true, "monitoring": true, "service": true,
		"database-driver": true, "rpc-framework": true, "infra-tool": true, "delivery": true}
)

// readJudgedDir reads every *.tsv in dir, sorted by name.
func readJudgedDir(dir string) ([]*judgedRepo, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.tsv"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no judged files (*.tsv) in %s", dir)
	}
	sort.Strings(paths)
	var repos []*judgedRepo
	seen := map[string]string{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		j, err := parseJudged(p, f)
		f.Close()
		if err != nil {
			return nil, err
		}
		if want := j.Key() + ".tsv"; filepath.Base(p) != want {
			return nil, fmt.Errorf("%s: file for %s must be named %s", p, j.Repo, want)
		}
		if prev, ok := seen[j.Repo]; ok {
			return nil, fmt.Errorf("%s: %s is already judged in %s", p, j.Repo, prev)
		}
		seen[j.Repo] = p
		repos = append(repos, j)
	}
	return repos, nil
}

// parseJudged reads one judged file strictly: every malformed line is an
// error naming name:line.
func parseJudged(name string, r interface{ Read([]byte) (int, error) }) (*judgedRepo, error) {
	j := &judgedRepo{File: name}
	headers := map[string]bool{}
	rows := map[string]string{} // analyzer file:line -> src, to refuse duplicates
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		src := fmt.Sprintf("%s:%d", name, n)
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%s: %s", src, fmt.Sprintf(format, args...))
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if strings.HasPrefix(line, "#") {
			key, val, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(line, "#")), ":")
			if !ok {
				return nil, bad("header line is not '# key: value'")
			}
			key, val = strings.TrimSpace(key), strings.TrimSpace(val)
			if len(j.Rows) > 0 {
				return nil, bad("header %q after the first row", key)
			}
			single := key != "fix" && key != "note"
			if single && headers[key] {
				return nil, bad("header %q given twice", key)
			}
			headers[key] = true
			if val == "" {
				return nil, bad("header %q has no value", key)
			}
			switch key {
			case "repo":
				if !repoRE.MatchString(val) {
					return nil, bad("repo %q is not github.com/OWNER/NAME", val)
				}
				j.Repo = val
			case "commit":
				if !commitRE.MatchString(val) {
					return nil, bad("commit %q is not 40 lower-case hex digits", val)
				}
				j.Commit = val
			case "kind":
				if !kinds[val] {
					return nil, bad("unknown kind %q", val)
				}
				j.Kind = val
			case "packages":
				for _, p := range strings.Fields(val) {
					// -test=false (the vet tool's flag: leave _test.go files
					// out) is the one flag allowed: for a pin whose test files
					// do not compile, so go vet would skip the package.
					if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "-") && p != "-test=false" {
						return nil, bad("package pattern %q must be relative to the module (./...)", p)
					}
					j.Packages = append(j.Packages, p)
				}
			case "module":
				clean := filepath.ToSlash(filepath.Clean(val))
				if filepath.IsAbs(val) || clean == ".." || strings.HasPrefix(clean, "../") {
					return nil, bad("module %q must be a directory inside the repository", val)
				}
				j.Module = clean
			case "fix":
				if !fixRE.MatchString(val) {
					return nil, bad("fix %q is not '<sha> <one line>'", val)
				}
				j.Fixes = append(j.Fixes, val)
			case "note":
				j.Notes = append(j.Notes, val)
			default:
				return nil, bad("unknown header %q", key)
			}
			continue
		}
		for _, h := range []string{"repo", "commit", "kind", "packages", "module"} {
			if !headers[h] {
				return nil, bad("row before the %q header", h)
			}
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 4 {
			return nil, bad("row has %d tab-separated fields, want 4 (analyzer, file:line, verdict, reason)", len(fields))
		}
		rw := row{Analyzer: fields[0], Verdict: fields[2], Reason: strings.TrimSpace(fields[3]), Src: src}
		if !validAnalyzer(rw.Analyzer) {
			return nil, bad("unknown analyzer %q (want one of %s)", rw.Analyzer, strings.Join(analyzerNames, ", "))
		}
		file, lineStr, ok := cutLast(fields[1], ":")
		ln, err := strconv.Atoi(lineStr)
		if !ok || err != nil || ln <= 0 || file == "" {
			return nil, bad("position %q is not file:line", fields[1])
		}
		if filepath.IsAbs(file) || strings.HasPrefix(filepath.ToSlash(filepath.Clean(file)), "../") {
			return nil, bad("file %q must be relative to the repository root", file)
		}
		rw.File, rw.Line = filepath.ToSlash(filepath.Clean(file)), ln
		switch rw.Verdict {
		case verdictDefect, verdictFine, verdictMissed:
		default:
			return nil, bad("verdict %q is not defect, fine or missed", rw.Verdict)
		}
		if rw.Reason == "" {
			return nil, bad("row has no reason")
		}
		k := rw.Analyzer + " " + fields[1]
		if prev, ok := rows[k]; ok {
			return nil, bad("%s %s is already judged at %s", rw.Analyzer, fields[1], prev)
		}
		rows[k] = src
		j.Rows = append(j.Rows, rw)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	for _, h := range []string{"repo", "commit", "kind", "packages", "module"} {
		if !headers[h] {
			return nil, fmt.Errorf("%s: missing header %q", name, h)
		}
	}
	return j, nil
}

func validAnalyzer(name string) bool {
	for _, a := range analyzerNames {
		if a == name {
			return true
		}
	}
	return false
}

// cutLast splits s around the last sep.
func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}
