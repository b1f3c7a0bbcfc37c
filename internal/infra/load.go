package infra

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Config is what the manifests under one module root say.
type Config struct {
	Root    string
	Files   []string // manifests read (module-relative), templates not included
	Routes  []*Route
	Skipped []Problem // Helm templates and the like
	Errors  []Problem // malformed manifests and fields
	// Truncated: more manifests than maxFiles; the rest were not read.
	Truncated bool
	// dirs: for a bundle (bundle.go), the destination directories that
	// exist under Root; nil: look on disk.
	dirs map[string]bool
	// serves: for each destination named like a directory holding a
	// package main, the module-relative directories of the packages its
	// mains import (serves.go).
	serves map[string]map[string]bool
}

// Limits that keep a run on a repository full of YAML lean.
const (
	maxFiles    = 3000
	maxFileSize = 4 << 20
)

// markers: a file is parsed only when it mentions one of these.
var markers = [][]byte{[]byte("virtual_hosts"), []byte("VirtualService"), []byte("HTTPRoute"), []byte("kind: Ingress"), []byte("ServiceProfile")}

// Load reads the manifests under root, the module root. When the module is
// a directory of a larger repository (a service of a monorepo, whose
// manifests sit at the top: microservices-demo's src/frontend and
// istio-manifests/), the repository's manifests outside other modules are
// read too, named relative to root (../../istio-manifests/frontend.yaml).
func Load(root string) *Config {
	c := &Config{Root: root}
	names := walkManifests(root)
	if repo := repoRoot(root); repo != "" && repo != root {
		for _, n := range walkManifests(repo) {
			if !strings.HasPrefix(n, root+string(filepath.Separator)) {
				names = append(names, n)
			}
		}
	}
	c.read(names, nil)
	c.serves = servesSet(servedBy(root, c.destNames()))
	return c
}

// repoRoot is the nearest directory at or above dir holding .git, or "".
func repoRoot(dir string) string {
	for {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// walkManifests lists the YAML files under root, outside vendor,
// node_modules, testdata, hidden directories and nested modules.
func walkManifests(root string) []string {
	var names []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p == root {
				return nil
			}
			n := d.Name()
			if n == "vendor" || n == "node_modules" || n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module has its own manifests
			}
			return nil
		}
		if ext := filepath.Ext(p); ext == ".yaml" || ext == ".yml" {
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	return names
}

// read reads the manifests among names (each passed to keep, when not nil).
func (c *Config) read(names []string, keep func(name string, data []byte)) {
	root := c.Root
	read := 0
	for _, p := range names {
		info, err := os.Stat(p)
		if err != nil || info.Size() > maxFileSize {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if !relevant(data) {
			continue
		}
		if read++; read > maxFiles {
			c.Truncated = true
			break
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			rel = p
		}
		c.add(filepath.ToSlash(rel), data)
		if keep != nil {
			keep(filepath.ToSlash(rel), data)
		}
	}
}

func relevant(data []byte) bool {
	for _, m := range markers {
		if bytes.Contains(data, m) {
			return true
		}
	}
	return false
}

// add reads one manifest file.
func (c *Config) add(name string, data []byte) {
	if i := bytes.Index(data, []byte("{{")); i >= 0 {
		line := 1 + bytes.Count(data[:i], []byte("\n"))
		c.Skipped = append(c.Skipped, Problem{Pos: Pos{File: name, Line: line, Col: 1}, Msg: "template, skipped: its values are filled in at deploy time (render it, e.g. helm template, into a file to have it read)"})
		return
	}
	routes, errs := Parse(name, data)
	c.Files = append(c.Files, name)
	c.Routes = append(c.Routes, routes...)
	c.Errors = append(c.Errors, errs...)
}

// Parse reads the routes of one manifest file (name is how positions name
// it). A malformed document is an error and the others are still read.
func Parse(name string, data []byte) ([]*Route, []Problem) {
	var routes []*Route
	var errs []Problem
	for _, d := range splitDocuments(data) {
		if len(bytes.TrimSpace(d.text)) == 0 {
			continue
		}
		f := &fileCtx{name: name, doc: d}
		n, p := parseDocument(name, d)
		if p != nil {
			errs = append(errs, *p)
			continue
		}
		if n == nil {
			continue
		}
		if get(n, "kind") != nil && get(n, "apiVersion") != nil {
			f.kube(n)
		} else {
			f.envoy(n)
		}
		routes = append(routes, f.routes...)
		errs = append(errs, f.errs...)
	}
	return routes, errs
}

var (
	cacheMu sync.Mutex
	cache   = map[string]*Config{}
)

// ForDir returns the manifests of the module that holds dir (the nearest
// directory at or above it with a go.mod), read once per process and root.
// Nil when dir is in no module.
func ForDir(dir string) *Config {
	root := ModuleRoot(dir)
	if root == "" {
		return nil
	}
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if c, ok := cache[root]; ok {
		return c
	}
	c := Load(root)
	cache[root] = c
	return c
}

// ModuleRoot walks up from dir to the directory holding go.mod.
func ModuleRoot(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// For returns the routes in front of a handler registered for pattern in
// the package in directory pkgDir: every route whose path match covers the
// pattern, first match per resource (proxies pick the first route that
// matches, in order). When some of those routes name a destination that is
// a directory on the package's path (a service "frontend" for
// src/frontend), only those count: the others route to other services of
// the repository.
func (c *Config) For(pattern, pkgDir string) []*Route {
	if c == nil {
		return nil
	}
	seen := map[string]bool{}
	var matched []*Route
	for _, r := range c.Routes {
		key := r.Pos.File + "\x00" + r.Kind + "\x00" + r.Name
		if seen[key] || !r.Covers(pattern) {
			continue
		}
		seen[key] = true
		// The same route in several files (a manifest, its kustomize
		// component, a release bundle) is one route deployed one way or
		// another, not two layers: the first file's copy stands for all.
		same := r.settings()
		if seen[same] {
			continue
		}
		seen[same] = true
		matched = append(matched, r)
	}
	rel, err := filepath.Rel(c.Root, pkgDir)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = ""
	}
	elems := map[string]bool{filepath.Base(c.Root): true}
	for _, e := range strings.Split(filepath.ToSlash(rel), "/") {
		if e != "" && e != "." {
			elems[e] = true
		}
	}
	rel = filepath.ToSlash(rel)
	if rel == "" {
		rel = "."
	}
	var named []*Route
	anyNamed := false
	for _, r := range matched {
		if len(r.Dest) > 0 {
			anyNamed = true
		}
		for _, d := range r.Dest {
			if c.servedHere(service(d), rel, elems) {
				named = append(named, r)
				break
			}
		}
	}
	if len(named) > 0 {
		return named
	}
	if anyNamed && c.servesOthers(rel, elems) {
		return nil
	}
	return matched
}

// servesOthers: some route of the repository names a destination that is
// a directory of the module other than the package's own: the repository
// holds several services, and a route whose destination names none of the
// package's directories is another service's.
func (c *Config) servesOthers(rel string, own map[string]bool) bool {
	for _, r := range c.Routes {
		for _, d := range r.Dest {
			if c.otherService(service(d), rel, own) {
				return true
			}
		}
	}
	return false
}

var dirCache sync.Map

// dirExists reports whether a directory named name exists within two
// levels of root (src/frontend, cmd/frontend, frontend).
func dirExists(root, name string) bool {
	key := root + "\x00" + name
	if v, ok := dirCache.Load(key); ok {
		return v.(bool)
	}
	found := false
	for _, p := range []string{name, "*/" + name, "*/*/" + name} {
		ms, _ := filepath.Glob(filepath.Join(root, p))
		for _, m := range ms {
			if st, err := os.Stat(m); err == nil && st.IsDir() {
				found = true
			}
		}
	}
	dirCache.Store(key, found)
	return found
}

// service is the first DNS label of a destination: "reviews" for
// reviews.prod.svc.cluster.local; an Envoy cluster name as it is.
func service(dest string) string {
	if i := strings.IndexByte(dest, '.'); i > 0 {
		dest = dest[:i]
	}
	return dest
}
