package retrystatus

import (
	"fmt"
	"sort"
	"strings"
)

// ClassifierFact is exported for a function whose boolean result depends
// on an HTTP status code: what it returns for each code, which codes it
// lists, and whether it reads the error's code or type.
type ClassifierFact struct {
	Name  string // pkg.F
	Posn  string // dir/file.go:line of the definition
	Codes []CodeResult
	// Home is set when the function decides a retry in its own package:
	// findings through it are reported there, not at every use.
	Home bool
	// Provider is set when the function talks to an LLM API (an SDK
	// error type, an endpoint), whose 429s may be an exhausted quota.
	Provider bool
	// ErrOnTrue: the function returns (bool, error) and every return that
	// may be true carries a non-nil error, so true is a failure verdict
	// (retry), not success (polarity.go).
	ErrOnTrue bool
}

// CodeResult is what a classifier returns for one status code.
type CodeResult struct {
	Code     int
	True     bool // returns true on some path for this code
	False    bool // returns false on some path for this code
	Listed   bool // the code is enumerated (==, a case, a set)
	Covered  bool // a 4xx range check (code >= 400) covers it
	BodyRead bool // the error's code, type or body is read on the way
}

// AFact marks ClassifierFact as an analysis fact.
func (*ClassifierFact) AFact() {}

func (f *ClassifierFact) String() string {
	var t, l []string
	for _, c := range f.Codes {
		if c.True {
			t = append(t, fmt.Sprint(c.Code))
		}
		if c.Listed {
			l = append(l, fmt.Sprint(c.Code))
		}
	}
	s := "status classifier: true for " + strings.Join(t, ",") + "; lists " + strings.Join(l, ",")
	if f.Home {
		s += "; home"
	}
	if f.ErrOnTrue {
		s += "; error when true"
	}
	return s
}

func (f *ClassifierFact) lookup(code int) (CodeResult, bool) {
	i := sort.Search(len(f.Codes), func(i int) bool { return f.Codes[i].Code >= code })
	if i < len(f.Codes) && f.Codes[i].Code == code {
		return f.Codes[i], true
	}
	return CodeResult{}, false
}
