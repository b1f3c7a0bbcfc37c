package infra

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// A Problem is a manifest that could not be read (Err) or was skipped
// (a template): it names the file and line.
type Problem struct {
	Pos Pos
	Msg string
}

func (p Problem) String() string { return p.Pos.String() + ": " + p.Msg }

// document is one YAML document of a file and the line it starts on.
type document struct {
	text  []byte
	line0 int // lines before it in the file
}

// splitDocuments splits a multi-document file on its "---" lines, so a
// malformed document costs only itself: yaml.v3's decoder cannot go on
// past a syntax error.
func splitDocuments(data []byte) []document {
	var docs []document
	lines := bytes.SplitAfter(data, []byte("\n"))
	start, cur := 0, []byte(nil)
	for i, l := range lines {
		t := bytes.TrimRight(l, "\r\n")
		if bytes.Equal(t, []byte("---")) || bytes.HasPrefix(t, []byte("--- ")) {
			docs = append(docs, document{text: cur, line0: start})
			cur, start = nil, i+1
			continue
		}
		cur = append(cur, l...)
	}
	return append(docs, document{text: cur, line0: start})
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// parseDocument decodes one document; a syntax error is returned with the
// line in the file.
func parseDocument(file string, d document) (*yaml.Node, *Problem) {
	var n yaml.Node
	if err := yaml.Unmarshal(d.text, &n); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line := d.line0 + 1
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			if k, err := strconv.Atoi(m[1]); err == nil {
				line = d.line0 + k
				msg = strings.TrimSpace(strings.Replace(msg, m[0]+":", "", 1))
			}
		}
		return nil, &Problem{Pos: Pos{File: file, Line: line, Col: 1}, Msg: "malformed YAML document: " + msg + "; its routes are not read (the other documents of the file are)"}
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		return n.Content[0], nil
	}
	return nil, nil // an empty document
}

// node accessors over yaml.v3 nodes, with positions.

// get returns the value of key in mapping m, or nil.
func get(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			v := m.Content[i+1]
			if v.Kind == yaml.AliasNode {
				v = v.Alias
			}
			return v
		}
	}
	return nil
}

// keyPos is the position of key in mapping m (where a block such as
// retry_policy: starts), else of m.
func (f *fileCtx) keyPos(m *yaml.Node, key string) Pos {
	if m != nil && m.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				return f.pos(m.Content[i])
			}
		}
	}
	return f.pos(m)
}

// path follows keys through nested mappings.
func path(m *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		m = get(m, k)
	}
	return m
}

func str(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

func items(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

func (f *fileCtx) pos(n *yaml.Node) Pos {
	if n == nil {
		return Pos{File: f.name, Line: f.doc.line0 + 1, Col: 1}
	}
	return Pos{File: f.name, Line: f.doc.line0 + n.Line, Col: n.Column}
}

// fileCtx is one document being read, collecting its routes and problems.
type fileCtx struct {
	name   string
	doc    document
	routes []*Route
	errs   []Problem
}

func (f *fileCtx) errorf(n *yaml.Node, format string, args ...any) {
	f.errs = append(f.errs, Problem{Pos: f.pos(n), Msg: fmt.Sprintf(format, args...)})
}

// duration reads a duration field: "15s", "0.5s", "500ms", "1m30s";
// protobuf JSON style {seconds: 15, nanos: 0} for Envoy. ok is false (with
// an error recorded) when it is written but not a duration.
func (f *fileCtx) duration(n *yaml.Node, field string) (time.Duration, bool) {
	if n == nil {
		return 0, false
	}
	if n.Kind == yaml.MappingNode {
		secs, err := strconv.ParseInt(str(get(n, "seconds")), 10, 64)
		if err != nil && get(n, "seconds") != nil {
			f.errorf(n, "%s: seconds %q is not a number; ignored", field, str(get(n, "seconds")))
			return 0, false
		}
		nanos, _ := strconv.ParseInt(str(get(n, "nanos")), 10, 64)
		return time.Duration(secs)*time.Second + time.Duration(nanos), true
	}
	d, err := time.ParseDuration(strings.TrimSpace(n.Value))
	if err != nil {
		f.errorf(n, "%s %q is not a duration; ignored", field, n.Value)
		return 0, false
	}
	return d, true
}

// intField reads an integer field.
func (f *fileCtx) intField(n *yaml.Node, field string) (int, bool) {
	if n == nil {
		return 0, false
	}
	k, err := strconv.Atoi(strings.TrimSpace(n.Value))
	if err != nil || k < 0 {
		f.errorf(n, "%s %q is not a count; ignored", field, n.Value)
		return 0, false
	}
	return k, true
}
