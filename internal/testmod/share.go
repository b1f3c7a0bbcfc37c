package testmod

import (
	"fmt"
	"strings"
	"testing"
)

// Shared is an analysistest.Testing for testdata that two analyzers share:
// the write classification's facts (internal/effects) are asserted in the
// expiredctx testdata next to the diagnostics they cause. Each analyzer's
// test passes its own expectations and drops the misses of the other's:
// skip reports whether an "expected" pattern belongs to the other
// analyzer. Unexpected diagnostics and facts are never dropped.
type Shared struct {
	T    testing.TB
	Skip func(kind, pattern string) bool // kind is "diagnostic" or "fact"
}

// Errorf reports every error except a missed expectation Skip answers for.
func (s Shared) Errorf(format string, args ...any) {
	s.T.Helper()
	msg := fmt.Sprintf(format, args...)
	for _, kind := range []string{"diagnostic", "fact"} {
		_, rest, ok := strings.Cut(msg, "no "+kind+" was reported matching ")
		if ok && s.Skip(kind, strings.Trim(strings.TrimSpace(rest), "`\"")) {
			return
		}
	}
	s.T.Errorf("%s", msg)
}
