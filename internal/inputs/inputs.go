// Package inputs declares what the analyzers read besides the package
// files: the values file (.retryvet.yml, docs/values.md) and the proxy and
// mesh manifests (internal/infra). The analyzers read neither from disk;
// a driver hands them over as flags, so that go vet's cache keys on them
// and a sandboxed build (Bazel's nogo, docs/nogo.md) sees them as
// declared inputs:
//
//	-values-yaml TEXT   the values file's text (parsed at once: a malformed
//	                    one is an error naming its line)
//	-values-name NAME   how messages name it (default .retryvet.yml)
//	-manifests BUNDLE   the manifests: a bundle's JSON, or @FILE
//
// Discover is the drivers' side: it finds both for the module holding a
// directory, and Args turns them into those flags.
package inputs

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/retryvet/retryvet/internal/infra"
	"github.com/retryvet/retryvet/internal/values"
)

// Flag names.
const (
	ValuesYAML = "values-yaml"
	ValuesName = "values-name"
	Manifests  = "manifests"
)

type valuesYAML struct{}

func (valuesYAML) String() string { return "" }
func (valuesYAML) Set(s string) error {
	name, _, _ := values.Declared()
	return values.SetText(name, s)
}

type valuesName struct{}

func (valuesName) String() string     { return "" }
func (valuesName) Set(s string) error { return values.SetName(s) }

type manifests struct{}

func (manifests) String() string { return "" }
func (manifests) Set(s string) error {
	b, err := infra.ParseBundle(s)
	if err != nil {
		return err
	}
	infra.Use(b)
	return nil
}

// Register registers the input flags on fs (the vet tool's own flags, and
// each analyzer's Flags for drivers that set analyzer flags only: nogo).
// Every copy sets the same process-wide inputs.
func Register(fs *flag.FlagSet) {
	fs.Var(valuesYAML{}, ValuesYAML, "the values file's text (docs/values.md), declared as an input instead of read from disk: -values-yaml \"$(cat .retryvet.yml)\"")
	fs.Var(valuesName{}, ValuesName, "the name messages give the -values-yaml text (default "+values.FileName+")")
	fs.Var(manifests{}, Manifests, "the proxy and mesh manifests, as a bundle's JSON or @FILE (docs/nogo.md; 'retryvet inputs' prints it)")
}

// Found is what Discover found for a module.
type Found struct {
	Root       string // the module root ("" when the directory is in no module)
	ValuesPath string // the values file read, "" for none
	ValuesText string
	Bundle     *infra.Bundle
}

// Discover finds the inputs of the module holding dir: its values file
// (valuesFile instead, when not "") and its manifests. A values file that
// does not parse is an error naming its line.
func Discover(dir, valuesFile string) (*Found, error) {
	f, err := DiscoverValues(dir, valuesFile)
	if err == nil && f.Root != "" {
		f.Bundle = infra.Collect(f.Root)
	}
	return f, err
}

// DiscoverValues is Discover without the manifests (Bundle nil), for a
// driver that collects them once for several runs (the golangci plugin).
func DiscoverValues(dir, valuesFile string) (*Found, error) {
	f := &Found{Root: infra.ModuleRoot(dir)}
	if valuesFile != "" {
		data, err := os.ReadFile(valuesFile)
		if err != nil {
			if os.IsNotExist(err) {
				return nil, fmt.Errorf("values file %s does not exist", valuesFile)
			}
			return nil, err
		}
		f.ValuesPath, f.ValuesText = valuesFile, string(data)
	} else {
		p, text, err := values.Discover(dir)
		if err != nil {
			return nil, err
		}
		f.ValuesPath, f.ValuesText = p, text
	}
	if f.ValuesPath != "" {
		if _, err := values.Parse(f.name(), []byte(f.ValuesText)); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// name is the values file's name in messages: relative to the working
// directory where it can be.
func (f *Found) name() string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, f.ValuesPath); err == nil && filepath.IsLocal(rel) {
			return rel
		}
	}
	return f.ValuesPath
}

// Problems are the malformed manifests, "deploy/envoy.yaml:3: ...".
func (f *Found) Problems() []string {
	var out []string
	if f.Bundle.Empty() {
		return nil
	}
	for _, p := range f.Bundle.Config().Errors {
		out = append(out, "manifest "+p.String())
	}
	return out
}

// Declare makes the inputs the process's (what the flags would do).
func (f *Found) Declare() error {
	if f.ValuesPath != "" {
		if err := values.SetText(f.name(), f.ValuesText); err != nil {
			return err
		}
	}
	infra.Use(f.Bundle)
	return nil
}

// Flags are the inputs as analyzer flags by name, for a configuration
// that sets them (nogo's analyzer_flags): the manifests inline, named
// relative to root, the module root as the analysed files name it (nogo
// names them relative to the workspace root).
func (f *Found) Flags(root string) map[string]string {
	m := map[string]string{}
	if f.ValuesPath != "" {
		m[ValuesName], m[ValuesYAML] = f.name(), f.ValuesText
	}
	if !f.Bundle.Empty() {
		b := &infra.Bundle{Root: root, Files: f.Bundle.Files, Dirs: f.Bundle.Dirs, Trunc: f.Bundle.Trunc}
		m[Manifests] = b.JSON()
	}
	return m
}

// maxInline is the largest bundle passed inline on the command line (a
// single argument may not exceed 128 KiB on Linux); a larger one is
// written to a file named after its hash.
const maxInline = 32 << 10

// Args are the flags that hand the inputs to the vet tool. A large bundle
// is written to dir (created if need be) as manifests-HASH.json and
// passed as @FILE: the hash in the name keys go vet's cache.
func (f *Found) Args(dir string) ([]string, error) {
	var args []string
	if f.ValuesPath != "" {
		args = append(args, "-"+ValuesName+"="+f.name(), "-"+ValuesYAML+"="+f.ValuesText)
	}
	if f.Bundle.Empty() {
		return args, nil
	}
	js := f.Bundle.JSON()
	if len(js) <= maxInline {
		return append(args, "-"+Manifests+"="+js), nil
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "manifests-"+f.Bundle.Hash()+".json")
	if _, err := os.Stat(file); err != nil {
		tmp := file + ".tmp" + fmt.Sprint(os.Getpid())
		if err := os.WriteFile(tmp, []byte(js), 0o666); err != nil {
			return nil, err
		}
		if err := os.Rename(tmp, file); err != nil {
			return nil, err
		}
	}
	return append(args, "-"+Manifests+"=@"+file), nil
}

// Hash is a digest of the inputs (the values text and the bundle), for a
// vet tool's -V=full answer: the go command keys its cache on it.
func (f *Found) Hash() string {
	h := sha256.New()
	fmt.Fprintf(h, "values %q %q\n", f.name(), f.ValuesText)
	if !f.Bundle.Empty() {
		fmt.Fprintf(h, "manifests %s\n", f.Bundle.JSON())
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CacheDir is where Args writes large bundles: the user cache directory's
// retryvet/inputs, or the temporary directory.
func CacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "retryvet", "inputs")
	}
	return filepath.Join(os.TempDir(), "retryvet-inputs")
}
