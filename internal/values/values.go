// Package values reads the values file (.retryvet.yml at the module root):
// the facts about a program that its code cannot show - the measured p99
// of a remote call, the production value of a config field, the deadline
// infrastructure sets in front of a handler - and the -set overrides given
// on the command line. docs/values.md describes the file.
package values

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gopkg.in/yaml.v3"
)

var yamlLine = regexp.MustCompile(`^line (\d+): (.*)$`)

// FileName is the values file looked for at the module root.
const FileName = ".retryvet.yml"

// Section names: the top-level keys of the file and the prefixes of -set.
const (
	P99      = "p99"      // function name -> duration
	Fields   = "fields"   // pkgpath.Type.Field -> duration or integer
	Handlers = "handlers" // handler function name or route -> duration
)

var sections = []string{P99, Fields, Handlers}

// An Entry is one value: from the file (Line > 0) or from -set.
type Entry struct {
	Section string
	Key     string
	Raw     string        // the value as written
	Dur     time.Duration // the value as a duration (IsDur)
	IsDur   bool
	Int     int64 // the value as an integer (IsInt)
	IsInt   bool
	File    string // the file's path as given; "" for -set
	Line    int
	used    atomic.Bool
}

// Source names where the value comes from, for messages and rows:
// ".retryvet.yml:3", or "-set fields.x.T.F=40s".
func (e *Entry) Source() string {
	if e.File == "" {
		return "-set " + e.Section + "." + e.Key + "=" + e.Raw
	}
	return filepath.Base(e.File) + ":" + strconv.Itoa(e.Line)
}

// From renders the value with its source: "40s from .retryvet.yml:3".
func (e *Entry) From() string { return e.Raw + " from " + e.Source() }

// MarkUsed records that the entry decided something.
func (e *Entry) MarkUsed() { e.used.Store(true) }

// Used reports whether MarkUsed was called.
func (e *Entry) Used() bool { return e.used.Load() }

// Values is a parsed values file with the -set overrides applied.
type Values struct {
	File    string // "" when no file was read
	entries map[string]map[string]*Entry
}

// Empty returns Values with no entries.
func Empty() *Values { return &Values{entries: map[string]map[string]*Entry{}} }

// Entries lists every entry, file order first, then -set ones.
func (v *Values) Entries() []*Entry {
	var out []*Entry
	if v == nil {
		return nil
	}
	for _, s := range sections {
		for _, e := range v.entries[s] {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if (a.File == "") != (b.File == "") {
			return b.File == ""
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Section+a.Key < b.Section+b.Key
	})
	return out
}

func (v *Values) get(section, key string) *Entry {
	if v == nil {
		return nil
	}
	return v.entries[section][key]
}

// P99 returns the p99 entry of a function (full name, as the census prints
// it: example.com/svc/llm.(*Client).ask), or nil.
func (v *Values) P99(fn string) *Entry { return v.get(P99, fn) }

// Field returns the entry of a struct field (example.com/svc/config.Config.Timeout), or nil.
func (v *Values) Field(key string) *Entry { return v.get(Fields, key) }

// Handler returns the infrastructure deadline of a handler, by its function
// name or by one of the routes it is registered under, or nil.
func (v *Values) Handler(fn string, routes ...string) *Entry {
	if e := v.get(Handlers, fn); e != nil {
		return e
	}
	for _, r := range routes {
		if e := v.get(Handlers, r); e != nil {
			return e
		}
	}
	return nil
}

// Has reports whether a section has entries.
func (v *Values) Has(section string) bool { return v != nil && len(v.entries[section]) > 0 }

// Len is the number of entries.
func (v *Values) Len() int {
	n := 0
	if v != nil {
		for _, m := range v.entries {
			n += len(m)
		}
	}
	return n
}

// Parse reads a values file. Errors name the file and line:
// ".retryvet.yml:4: p99 of x: "4o0s" is not a duration".
func Parse(file string, data []byte) (*Values, error) {
	v := Empty()
	v.File = file
	if len(bytes.TrimSpace(data)) == 0 {
		return v, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			return nil, fmt.Errorf("%s:%s: %s", file, m[1], m[2]) // file:line like every other error
		}
		return nil, fmt.Errorf("%s: %s", file, msg)
	}
	if len(doc.Content) == 0 {
		return v, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: want a mapping with the sections %s", file, root.Line, strings.Join(sections, ", "))
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, val := root.Content[i], root.Content[i+1]
		sec := k.Value
		if !known(sec) {
			return nil, fmt.Errorf("%s:%d: unknown section %q (want %s)", file, k.Line, sec, strings.Join(sections, ", "))
		}
		if v.entries[sec] != nil {
			return nil, fmt.Errorf("%s:%d: section %s given twice", file, k.Line, sec)
		}
		v.entries[sec] = map[string]*Entry{}
		if val.Kind == yaml.ScalarNode && (val.Tag == "!!null" || val.Value == "") {
			continue // an empty section
		}
		if val.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s:%d: section %s: want a mapping of names to values", file, val.Line, sec)
		}
		for j := 0; j+1 < len(val.Content); j += 2 {
			kn, vn := val.Content[j], val.Content[j+1]
			if kn.Kind != yaml.ScalarNode || kn.Value == "" {
				return nil, fmt.Errorf("%s:%d: section %s: want a name", file, kn.Line, sec)
			}
			if vn.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("%s:%d: %s of %s: want a single value (a duration such as 40s, or an integer)", file, vn.Line, sec, kn.Value)
			}
			if v.entries[sec][kn.Value] != nil {
				return nil, fmt.Errorf("%s:%d: %s of %s given twice", file, kn.Line, sec, kn.Value)
			}
			e, err := entry(sec, kn.Value, vn.Value)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", file, vn.Line, err)
			}
			e.File, e.Line = file, kn.Line
			v.entries[sec][kn.Value] = e
		}
	}
	return v, nil
}

func known(sec string) bool {
	for _, s := range sections {
		if s == sec {
			return true
		}
	}
	return false
}

// entry checks a value for its section: p99 and handlers take durations
// (time.ParseDuration syntax, with a unit); fields take a duration or an
// integer.
func entry(sec, key, raw string) (*Entry, error) {
	e := &Entry{Section: sec, Key: key, Raw: raw}
	if d, err := time.ParseDuration(raw); err == nil {
		if d <= 0 && sec != Fields {
			return nil, fmt.Errorf("%s of %s: %s is not a positive duration", sec, key, raw)
		}
		e.Dur, e.IsDur = d, true
		return e, nil
	}
	if sec == Fields {
		if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
			e.Int, e.IsInt = n, true
			return e, nil
		}
		return nil, fmt.Errorf("fields of %s: %q is neither a duration (40s) nor an integer", key, raw)
	}
	return nil, fmt.Errorf("%s of %s: %q is not a duration (time.ParseDuration syntax with a unit, e.g. 40s)", sec, key, raw)
}

// Set applies one -set override: SECTION.NAME=VALUE, for example
// p99.example.com/svc/llm.(*Client).ask=40s or
// fields.example.com/svc/config.Config.MaxRetries=5.
func (v *Values) Set(spec string) error {
	i := strings.LastIndexByte(spec, '=')
	if i < 0 {
		return fmt.Errorf("-set %s: want SECTION.NAME=VALUE (sections %s)", spec, strings.Join(sections, ", "))
	}
	name, raw := spec[:i], strings.TrimSpace(spec[i+1:])
	sec, key, ok := strings.Cut(name, ".")
	if !ok || !known(sec) || key == "" {
		return fmt.Errorf("-set %s: want SECTION.NAME=VALUE with SECTION one of %s", spec, strings.Join(sections, ", "))
	}
	e, err := entry(sec, key, raw)
	if err != nil {
		return fmt.Errorf("-set %s: %v", spec, err)
	}
	if v.entries[sec] == nil {
		v.entries[sec] = map[string]*Entry{}
	}
	v.entries[sec][key] = e
	return nil
}

// Load reads and parses a values file.
func Load(path string) (*Values, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Find walks up from dir to the module root (the first directory with a
// go.mod) and returns the values file there, or "" when there is none.
func Find(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, FileName)
			if _, err := os.Stat(p); err == nil {
				return p
			}
			return ""
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// The process-wide values, like the -p99 setting. The analyzers read no
// file: a driver declares the values file's text (the -values-yaml flag,
// SetText) or names the file (-values FILE, SetFile, read at once), and
// the -set overrides are applied over it. The standalone command, the go
// vet tool, the golangci-lint plugin and the census find .retryvet.yml at
// the module root (Discover) and declare it; under nogo the flag is the
// only way in (docs/nogo.md).
var active struct {
	sync.Mutex
	name, text string // the declared values file: its name for messages and its text
	declared   bool
	explicit   string   // -values FILE
	sets       []string // -set specs, applied over the file
	v          *Values
	err        error
	done       bool
}

// SetFile reads path as the values file (-values FILE) and declares its
// text; a file that cannot be read or parsed is an error naming its line.
func SetFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("values file %s does not exist", path)
		}
		return err
	}
	if err := SetText(path, string(data)); err != nil {
		return err
	}
	active.Lock()
	defer active.Unlock()
	active.explicit = path
	return nil
}

// SetText declares the values file's text; name is how messages name it
// (".retryvet.yml" when empty). The text is parsed at once: a malformed
// one is an error naming its line, and nothing of it is used.
func SetText(name, text string) error {
	if name == "" {
		name = FileName
	}
	if _, err := Parse(name, []byte(text)); err != nil {
		return err
	}
	active.Lock()
	defer active.Unlock()
	active.name, active.text, active.declared, active.done = name, text, true, false
	return nil
}

// SetName renames the declared values file (the -values-name flag): the
// text already declared is named so in messages.
func SetName(name string) error {
	active.Lock()
	declared, text := active.declared, active.text
	active.Unlock()
	if !declared {
		active.Lock()
		active.name = name
		active.Unlock()
		return nil
	}
	return SetText(name, text)
}

// Declared returns the declared values file's name and text, and whether
// one was declared.
func Declared() (name, text string, ok bool) {
	active.Lock()
	defer active.Unlock()
	return active.name, active.text, active.declared
}

// AddSet records a -set override (checked at once).
func AddSet(spec string) error {
	if err := Empty().Set(spec); err != nil {
		return err
	}
	active.Lock()
	defer active.Unlock()
	active.sets, active.done = append(active.sets, spec), false
	return nil
}

// Sets returns the -set overrides recorded so far.
func Sets() []string {
	active.Lock()
	defer active.Unlock()
	return append([]string(nil), active.sets...)
}

// ExplicitFile returns the -values file, or "".
func ExplicitFile() string {
	active.Lock()
	defer active.Unlock()
	return active.explicit
}

// Use makes v the process-wide values (the census, tests).
func Use(v *Values) {
	active.Lock()
	defer active.Unlock()
	active.v, active.err, active.done = v, nil, true
}

// Reset forgets the process-wide values and settings (tests).
func Reset() {
	active.Lock()
	defer active.Unlock()
	active.v, active.err, active.done, active.explicit, active.sets = nil, nil, false, "", nil
	active.name, active.text, active.declared = "", "", false
}

// Active returns the process-wide values and the error of reading them.
// On error the values are empty: nothing from the file is used. Nothing
// declared: no values (the analyzers read no file of their own).
func Active() (*Values, error) {
	active.Lock()
	defer active.Unlock()
	if !active.done {
		active.v, active.err = Empty(), nil
		if active.declared {
			active.v, active.err = Parse(active.name, []byte(active.text))
		}
		if active.err == nil {
			for _, s := range active.sets {
				if err := active.v.Set(s); err != nil {
					active.err = err
					break
				}
			}
		}
		if active.err != nil {
			active.v = Empty()
		}
		active.done = true
	}
	return active.v, active.err
}

// Current is Active without the error, for the folding code that cannot
// return one (the error is returned by the retry model's run).
func Current() *Values {
	v, _ := Active()
	return v
}

// Discover finds the values file of the module that holds dir (Find) and
// returns its path and text; "" when there is none. Drivers call it; the
// analyzers do not.
func Discover(dir string) (path, text string, err error) {
	path = Find(dir)
	if path == "" {
		return "", "", nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", "", err
	}
	return path, string(data), nil
}

// Resolve reads the values file explicit (or the one found from dir) and
// applies the -set overrides. An explicit file that does not exist is an
// error; a missing file at the module root is not.
func Resolve(explicit, dir string, sets []string) (*Values, error) {
	v := Empty()
	path := explicit
	if path == "" {
		path = Find(dir)
	}
	if path != "" {
		var err error
		v, err = Load(path)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return Empty(), fmt.Errorf("values file %s does not exist", path)
			}
			return Empty(), err
		}
	}
	for _, s := range sets {
		if err := v.Set(s); err != nil {
			return Empty(), err
		}
	}
	return v, nil
}

// IsSource reports whether a position string names a value from the
// values file or -set (rather than a //retryvet:p99 directive).
func IsSource(posn string) bool {
	if strings.HasPrefix(posn, "-set ") {
		return true
	}
	file, _, _ := strings.Cut(posn, ":")
	return strings.HasSuffix(file, ".yml") || strings.HasSuffix(file, ".yaml")
}
