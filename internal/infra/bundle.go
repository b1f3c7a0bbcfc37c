package infra

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// The analyzers read no manifest from disk: a driver collects the
// manifests of the module (Collect, which walks the file system), hands
// them over as a Bundle (the -manifests flag: the bundle's JSON, or
// @FILE naming a file that holds it) and the analyzers read the routes
// from it (Declared). So go vet's cache and a sandbox (Bazel's nogo) see
// every input: the flag's value is the content, or a file named after the
// content's hash.

// A Bundle is the manifests a driver hands to the analyzers.
type Bundle struct {
	// Root is the directory the names are relative to: the module root
	// where the driver collected them ("." in a nogo configuration).
	Root  string       `json:"root"`
	Files []BundleFile `json:"files"`
	Dirs  []string     `json:"dirs,omitempty"` // directories within two levels of Root named like a route's destination
	// Serves: for a destination named like directories holding a package
	// main, the module-relative directories of the packages those mains
	// import (serves.go).
	Serves map[string][]string `json:"serves,omitempty"`
	Trunc  bool                `json:"truncated,omitempty"`
	cfg    *Config             // parsed
	once   sync.Once
}

// A BundleFile is one manifest: its name relative to the root and its text.
type BundleFile struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// Collect reads the manifests of the module at root (Load) into a bundle.
// Drivers call it; the analyzers do not.
func Collect(root string) *Bundle {
	b := &Bundle{Root: root}
	c := &Config{Root: root}
	names := walkManifests(root)
	if repo := repoRoot(root); repo != "" && repo != root {
		for _, n := range walkManifests(repo) {
			if !strings.HasPrefix(n, root+string(filepath.Separator)) {
				names = append(names, n)
			}
		}
	}
	c.read(names, func(name string, data []byte) { b.Files = append(b.Files, BundleFile{name, string(data)}) })
	b.Trunc = c.Truncated
	seen := map[string]bool{}
	for _, r := range c.Routes {
		for _, d := range r.Dest {
			if s := service(d); !seen[s] {
				seen[s] = true
				if dirExists(root, s) {
					b.Dirs = append(b.Dirs, s)
				}
			}
		}
	}
	b.Serves = servedBy(root, c.destNames())
	c.serves = servesSet(b.Serves)
	b.cfg = c
	return b
}

// Config is the bundle's manifests, parsed.
func (b *Bundle) Config() *Config {
	if b == nil {
		return nil
	}
	b.once.Do(func() {
		if b.cfg != nil {
			return
		}
		c := &Config{Root: b.Root, Truncated: b.Trunc, dirs: map[string]bool{}, serves: servesSet(b.Serves)}
		for _, d := range b.Dirs {
			c.dirs[d] = true
		}
		for _, f := range b.Files {
			c.add(f.Name, []byte(f.Text))
		}
		b.cfg = c
	})
	if b.cfg.dirs == nil {
		b.cfg.dirs = map[string]bool{}
		for _, d := range b.Dirs {
			b.cfg.dirs[d] = true
		}
	}
	return b.cfg
}

// Empty reports whether the bundle holds no manifest.
func (b *Bundle) Empty() bool { return b == nil || len(b.Files) == 0 }

// JSON is the bundle as the -manifests flag takes it.
func (b *Bundle) JSON() string {
	data, _ := json.Marshal(b)
	return string(data)
}

// Hash is the SHA-256 of the bundle's JSON, hex.
func (b *Bundle) Hash() string {
	sum := sha256.Sum256([]byte(b.JSON()))
	return hex.EncodeToString(sum[:])
}

// ParseBundle reads a -manifests value: a bundle's JSON, or @FILE.
func ParseBundle(v string) (*Bundle, error) {
	data := []byte(v)
	if file, ok := strings.CutPrefix(v, "@"); ok {
		var err error
		if data, err = os.ReadFile(file); err != nil {
			return nil, fmt.Errorf("-manifests: %v", err)
		}
	}
	var b Bundle
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("-manifests: not a manifest bundle (JSON {\"root\": ..., \"files\": [{\"name\": ..., \"text\": ...}]}): %v", err)
	}
	return &b, nil
}

var declared struct {
	sync.Mutex
	b    *Bundle
	load func() *Bundle // UseLazy
}

// Use declares the manifests the analyzers see (nil: none).
func Use(b *Bundle) {
	declared.Lock()
	defer declared.Unlock()
	declared.b, declared.load = b, nil
}

// UseLazy declares the manifests load returns, collected on first use (a
// vet unit that registers no handler never walks the module).
func UseLazy(load func() *Bundle) {
	declared.Lock()
	defer declared.Unlock()
	declared.b, declared.load = nil, load
}

// Declared is the manifests a driver declared, parsed; nil when none were.
func Declared() *Config {
	b := DeclaredBundle()
	if b.Empty() {
		return nil
	}
	return b.Config()
}

// DeclaredBundle is the bundle a driver declared, or nil.
func DeclaredBundle() *Bundle {
	declared.Lock()
	defer declared.Unlock()
	if declared.load != nil {
		declared.b, declared.load = declared.load(), nil
	}
	return declared.b
}
