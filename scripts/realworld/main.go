// Command realworld measures retryvet on public repositories checked out on
// disk: it runs retryvet over the packages each judged file names, matches
// the findings to the judged rows and prints recall and precision per
// analyzer, then every finding nobody has judged yet and every known defect
// that was not found. It is a report, not a gate: it exits 0 unless its own
// input (a judged file, a flag) is bad.
//
// Usage, from the root of the retryvet module:
//
//	go run ./scripts/realworld [-root DIR] [-bin RETRYVET] [-repos a,b] [-findings DIR | -save DIR]
//
// See scripts/realworld/README.md for fetching the checkouts and judging.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("realworld", flag.ContinueOnError)
	fl.SetOutput(stderr)
	defRoot := os.Getenv("REALWORLD_ROOT")
	if defRoot == "" {
		defRoot = "/work/scratch/realworld"
	}
	root := fl.String("root", defRoot, "directory holding the checkouts, one per repository: `DIR`/OWNER_NAME ($REALWORLD_ROOT)")
	judgedDir := fl.String("judged", "scripts/realworld/judged", "directory of the judged `files` (*.tsv)")
	bin := fl.String("bin", "", "the retryvet `binary` to run (default: build ./cmd/retryvet)")
	reposFlag := fl.String("repos", "", "only these repositories: comma-separated OWNER_NAME or OWNER/NAME")
	findingsDir := fl.String("findings", "", "read saved findings from `DIR`/OWNER_NAME.json instead of running retryvet")
	saveDir := fl.String("save", "", "save the findings of each run to `DIR`/OWNER_NAME.json")
	timeout := fl.Duration("timeout", 30*time.Minute, "time allowed for go vet on one repository")
	vetFlags := fl.String("vetflags", "", "extra `flags` for go vet before the packages, space-separated (e.g. -retrylog, an opt-in check)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "realworld: unexpected arguments %q\n", fl.Args())
		return 2
	}
	if *findingsDir != "" && *saveDir != "" {
		fmt.Fprintln(stderr, "realworld: -findings reads saved findings; -save needs a run: give one of them")
		return 2
	}
	repos, err := readJudgedDir(*judgedDir)
	if err != nil {
		fmt.Fprintf(stderr, "realworld: %v\n", err)
		return 1
	}
	if *reposFlag != "" {
		repos, err = selectRepos(repos, *reposFlag)
		if err != nil {
			fmt.Fprintf(stderr, "realworld: %v\n", err)
			return 2
		}
	}

	var ms []*match
	var skipped, failed []string
	needBin := *findingsDir == "" && *bin == ""
	for _, j := range repos {
		var res *result
		if *findingsDir != "" {
			res, err = loadResult(*findingsDir, j.Key())
			if errors.Is(err, errNoSaved) {
				skipped = append(skipped, fmt.Sprintf("%s: no saved findings in %s", j.Key(), *findingsDir))
				continue
			}
			if err == nil && res.Commit != j.Commit {
				err = fmt.Errorf("saved findings are for commit %s, the judged file pins %s", res.Commit, j.Commit)
			}
		} else {
			repoDir := filepath.Join(*root, j.Key())
			if _, statErr := os.Stat(repoDir); statErr != nil {
				skipped = append(skipped, fmt.Sprintf("%s: no checkout at %s", j.Key(), repoDir))
				continue
			}
			if needBin {
				*bin, err = buildRetryvet(stderr)
				if err != nil {
					fmt.Fprintf(stderr, "realworld: building retryvet: %v\n", err)
					return 1
				}
				defer os.RemoveAll(filepath.Dir(*bin))
				needBin = false
			}
			res, err = runRepo(j, *bin, repoDir, strings.Fields(*vetFlags), *timeout, stderr)
			if err == nil && *saveDir != "" {
				err = saveResult(*saveDir, j.Key(), res)
			}
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", j.Key(), err))
			continue
		}
		for _, e := range res.Errors {
			fmt.Fprintf(stderr, "%s: %s\n", j.Key(), firstLine(e))
		}
		ms = append(ms, matchFindings(j, res.Findings))
	}
	report(stdout, ms, skipped, failed)
	return 0
}

// selectRepos keeps the repositories named in list (OWNER_NAME or OWNER/NAME).
func selectRepos(repos []*judgedRepo, list string) ([]*judgedRepo, error) {
	byKey := map[string]*judgedRepo{}
	for _, j := range repos {
		byKey[strings.ToLower(j.Key())] = j
	}
	var out []*judgedRepo
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), "github.com/"))
		if name == "" {
			continue
		}
		j := byKey[strings.ToLower(strings.Replace(name, "/", "_", 1))]
		if j == nil {
			return nil, fmt.Errorf("-repos: %q is not judged in any file", name)
		}
		out = append(out, j)
	}
	return out, nil
}

// buildRetryvet builds ./cmd/retryvet of the current module into a temporary directory.
func buildRetryvet(stderr io.Writer) (string, error) {
	dir, err := os.MkdirTemp("", "realworld-retryvet-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "retryvet")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/retryvet")
	cmd.Stderr = stderr
	if err := cmd.Run(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("go build ./cmd/retryvet (run from the root of the retryvet module, or give -bin): %v", err)
	}
	return bin, nil
}

// runRepo runs retryvet over one checkout, with vetFlags before its packages.
func runRepo(j *judgedRepo, bin, repoDir string, vetFlags []string, timeout time.Duration, stderr io.Writer) (*result, error) {
	if head, err := checkoutHead(repoDir); err == nil && head != j.Commit {
		fmt.Fprintf(stderr, "%s: warning: checkout is at %s, the judged file pins %s\n", j.Key(), head, j.Commit)
	}
	absBin, err := filepath.Abs(bin)
	if err != nil {
		return nil, err
	}
	repoDir, err = filepath.Abs(repoDir)
	if err != nil {
		return nil, err
	}
	if resolved, err := filepath.EvalSymlinks(repoDir); err == nil {
		repoDir = resolved // vet prints resolved paths
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	fmt.Fprintf(stderr, "%s: go vet %s\n", j.Key(), strings.Join(j.Packages, " "))
	pkgs := append(slices.Clone(vetFlags), j.Packages...)
	fs, errs, err := runVet(ctx, absBin, repoDir, filepath.Join(repoDir, filepath.FromSlash(j.Module)), pkgs)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "%s: %d findings in %s\n", j.Key(), len(fs), time.Since(start).Round(time.Second))
	return &result{Repo: j.Repo, Commit: j.Commit, Packages: j.Packages, Findings: fs, Errors: errs}, nil
}

// checkoutHead is the commit a git checkout is at (an error for a plain archive).
func checkoutHead(dir string) (string, error) {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
