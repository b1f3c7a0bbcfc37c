package infra

import (
	"bufio"
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"

	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Which binary serves a handler is decided by the import graph, not by
// directory names: a route whose destination is "edge" applies to the
// packages that a package main in a directory named edge (cmd/edge, edge)
// imports, directly or through other packages of the module. A directory
// called edge that holds no main says nothing, and the name rule
// (load.go) stands for it.

// maxServeFiles bounds the Go files read for their imports.
const maxServeFiles = 30000

// servedBy returns, for each name that names directories of the module at
// root holding a package main (within two levels: edge, cmd/edge,
// src/cmd/edge), the module-relative directories (slash-separated, "."
// for the root) of the packages those mains reach through imports. Names
// with no main are absent; nil when the module cannot be read (no go.mod,
// too many files).
func servedBy(root string, names []string) map[string][]string {
	if len(names) == 0 {
		return nil
	}
	mod := modulePath(filepath.Join(root, "go.mod"))
	if mod == "" {
		return nil
	}
	imports := map[string][]string{} // rel dir -> rel dirs of the module it imports
	mains := map[string]bool{}
	files := 0
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (name == "vendor" || name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if p != root {
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		if files++; files > maxServeFiles {
			return filepath.SkipAll
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		rel = filepath.ToSlash(rel)
		if f.Name.Name == "main" {
			mains[rel] = true
		}
		for _, imp := range f.Imports {
			ip, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				continue
			}
			switch {
			case ip == mod:
				imports[rel] = append(imports[rel], ".")
			case strings.HasPrefix(ip, mod+"/"):
				imports[rel] = append(imports[rel], strings.TrimPrefix(ip, mod+"/"))
			}
		}
		return nil
	})
	if err != nil || files > maxServeFiles {
		return nil
	}
	out := map[string][]string{}
	for _, name := range names {
		var start []string
		for m := range mains {
			if m[strings.LastIndex(m, "/")+1:] == name && strings.Count(m, "/") <= 2 {
				start = append(start, m)
			}
		}
		if len(start) == 0 {
			continue
		}
		seen := map[string]bool{}
		for len(start) > 0 {
			d := start[len(start)-1]
			start = start[:len(start)-1]
			if seen[d] {
				continue
			}
			seen[d] = true
			start = append(start, imports[d]...)
		}
		var dirs []string
		for d := range seen {
			dirs = append(dirs, d)
		}
		sort.Strings(dirs)
		out[name] = dirs
	}
	return out
}

// modulePath reads the module line of a go.mod file.
func modulePath(gomod string) string {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			p := strings.TrimSpace(rest)
			if i := strings.Index(p, "//"); i >= 0 {
				p = strings.TrimSpace(p[:i])
			}
			if uq, err := strconv.Unquote(p); err == nil {
				p = uq
			}
			return p
		}
	}
	return ""
}

// destNames lists the service names the routes' destinations give.
func (c *Config) destNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range c.Routes {
		for _, d := range r.Dest {
			if s := service(d); !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	return out
}

// servesSet turns servedBy's answer into sets.
func servesSet(m map[string][]string) map[string]map[string]bool {
	if m == nil {
		return nil
	}
	out := make(map[string]map[string]bool, len(m))
	for s, dirs := range m {
		set := make(map[string]bool, len(dirs))
		for _, d := range dirs {
			set[d] = true
		}
		out[s] = set
	}
	return out
}

// servedHere reports whether service s serves the package at rel (its
// module-relative directory; elems its path elements): a main named s
// reaches it, or, where no main is named s, a directory of its path is.
func (c *Config) servedHere(s, rel string, elems map[string]bool) bool {
	if set, ok := c.serves[s]; ok {
		return set[rel] || elems[s] && s != filepath.Base(c.Root)
	}
	return elems[s]
}

// otherService reports whether s is a service other than the package at
// rel: a binary named s that does not reach it, or, with no main named s,
// a directory of the module named s that is not on the package's path.
func (c *Config) otherService(s, rel string, elems map[string]bool) bool {
	if c.servedHere(s, rel, elems) {
		return false
	}
	if _, ok := c.serves[s]; ok {
		return true
	}
	return c.dirs != nil && c.dirs[s] || c.dirs == nil && dirExists(c.Root, s)
}
