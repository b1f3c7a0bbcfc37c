package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/unitchecker"

	"github.com/retryvet/retryvet/analyzers"
	"github.com/retryvet/retryvet/internal/inputs"
)

// sandboxEnv makes this test binary a bare vet tool, the way nogo links
// the analyzers into a binary of its own: analyzers.All() under
// unitchecker, none of this command's discovery. The value is the
// sandbox: the tool runs there with an empty environment (no HOME, no
// XDG_*, no GOFLAGS), as a sandboxed action does.
const sandboxEnv = "RETRYVET_TEST_SANDBOX"

// sandboxedVetTool is the child's side; TestMain calls it. It does not
// return.
func sandboxedVetTool(dir string) {
	os.Clearenv()
	if err := os.Chdir(dir); err != nil {
		panic(err)
	}
	unitchecker.Main(analyzers.All()...)
}

// sandboxVet runs go vet on the module in dir with the sandboxed tool and
// the declared inputs set as one analyzer's flags (nogo's analyzer_flags:
// the inputs are process-wide, so one copy reaches every analyzer).
func sandboxVet(t *testing.T, dir string, flags ...string) []string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"vet", "-vettool=" + self, "-json"}, flags...)
	cmd := exec.Command("go", append(args, "./...")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", sandboxEnv+"="+sandbox(t, dir))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("go vet with the sandboxed tool: %v\n%s", err, out.String())
	}
	return findingsOf(t, dir, decodeTrees(t, out.Bytes()))
}

// sandbox is a new working directory for the tool holding nothing but a
// decoy module with the values file of the module in dir: an analyzer
// that looks for .retryvet.yml from its working directory finds it, and
// the test sees the finding that needs it where the flag was left out.
func sandbox(t *testing.T, dir string) string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(dir, ".retryvet.yml"))
	if err != nil {
		t.Fatal(err)
	}
	sb := t.TempDir()
	for name, data := range map[string][]byte{"go.mod": []byte("module sandbox\n"), ".retryvet.yml": text} {
		if err := os.WriteFile(filepath.Join(sb, name), data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return sb
}

// TestHermetic (issue 24): the suite run as nogo runs it - a binary of
// the analyzers only, in an empty working directory with an empty
// environment, the values file and the manifests given only as flags -
// reports what the standalone command reports in the module. The module's
// files are analysed in place, next to its .retryvet.yml, and the sandbox
// holds a copy: without the values flag the values-dependent finding must
// go, so an analyzer that reads the file by itself, from the package's
// directory or the working directory, fails the test.
func TestHermetic(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "hermetic"))
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, dir, nil, "-json", "./...")
	if code != 0 {
		t.Fatalf("retryvet -json ./...: exit %d\n%s", code, stderr)
	}
	alone := findingsOf(t, dir, decodeTrees(t, stdout))
	fromValues := func(f string) bool { return strings.Contains(f, ".retryvet.yml:") }
	fromManifests := func(f string) bool { return strings.Contains(f, "deploy/envoy.yaml:") }
	if !slices.ContainsFunc(alone, fromValues) || !slices.ContainsFunc(alone, fromManifests) {
		t.Fatalf("testdata/hermetic needs a finding that uses .retryvet.yml and one that uses deploy/envoy.yaml; the standalone reports:\n  %s",
			strings.Join(alone, "\n  "))
	}

	// The flags of the nogo configuration 'retryvet inputs' prints, as the
	// nogo binary sets them. Here the analysed files are named by absolute
	// paths, so the manifests' root is the module's absolute path.
	code, stdout, stderr = run(t, dir, nil, "inputs", "-root", dir)
	if code != 0 {
		t.Fatalf("retryvet inputs: exit %d\n%s", code, stderr)
	}
	var config map[string]struct {
		Flags map[string]string `json:"analyzer_flags"`
	}
	if err := json.Unmarshal(stdout, &config); err != nil {
		t.Fatalf("retryvet inputs: %v\n%s", err, stdout)
	}
	flag := func(name string) string {
		v, ok := config["doubleretry"].Flags[name]
		if !ok {
			t.Fatalf("retryvet inputs: no doubleretry analyzer flag %s in\n%s", name, stdout)
		}
		return "-doubleretry." + name + "=" + v
	}
	valuesFlag, nameFlag, manifestsFlag := flag(inputs.ValuesYAML), flag(inputs.ValuesName), flag(inputs.Manifests)

	same := func(what string, got, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s: the sandboxed suite reports\n  %s\nwant\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
	same("both inputs as flags", sandboxVet(t, dir, valuesFlag, nameFlag, manifestsFlag), alone)
	// Each input is read from its flag only: without it, exactly the
	// findings that use it are gone.
	same("no values flag", sandboxVet(t, dir, manifestsFlag), slices.DeleteFunc(slices.Clone(alone), fromValues))
	same("no manifests flag", sandboxVet(t, dir, valuesFlag, nameFlag), slices.DeleteFunc(slices.Clone(alone), fromManifests))
}
