package retrystatus

import (
	"fmt"
	"slices"
	"strings"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// dataCodes checks a classifier given as data: the list of status codes
// an options struct hands to a library (elasticsearch.Config
// RetryOnStatus). Two findings, each only for codes the list names:
//
//   - permanent codes listed (400, 401, 403, 404, 413, 422): every one of
//     the attempts fails the same way;
//   - a list of two or more 5xx codes that replaces the library's default
//     and drops a 5xx code the default retries (RetryOnStatus: []int{500,
//     503} loses 502 and 504, what a proxy or gateway in front of the
//     service sends). Only the library's own default is the yardstick: a
//     range (code >= 500) is no option of a list, and a list that keeps
//     the default's codes is a policy.
//
// A library default written nowhere in the code is not reported, nor a
// list in a _test.go file (a fixture of the client's failure path).
func (ck *checker) dataCodes(l *retrymodel.Layer) {
	cs := l.Policy.Codes
	if cs == nil || cs.Expr == nil || strings.HasSuffix(ck.pass.Fset.Position(l.Pos).Filename, "_test.go") {
		return
	}
	a := &atom{kind: atomList, pos: cs.Pos, codes: cs.Codes, operand: cs.Option}
	var perm []int
	for _, c := range permanent {
		if slices.Contains(cs.Codes, c) {
			perm = append(perm, c)
		}
	}
	if len(perm) > 0 {
		each := eachAttempt(l)
		msg := fmt.Sprintf("%s %s retries %s: the same request fails the same way %s; leave them out",
			l.Name, cs.Option, joinCodes(perm, true), each)
		if slices.Contains(perm, 413) {
			msg += " (413: shrink the request instead)"
		}
		ck.report(a, "permanent", msg, nil)
	}
	if !cs.Known {
		return
	}
	var listed, missing []int
	for _, c := range cs.Codes {
		if c >= 500 && c <= 599 {
			listed = append(listed, c)
		}
	}
	for _, c := range cs.Default {
		if c >= 500 && !slices.Contains(cs.Codes, c) {
			missing = append(missing, c)
		}
	}
	if len(listed) < 2 || len(missing) == 0 {
		return
	}
	verb := "are"
	if len(missing) == 1 {
		verb = "is"
	}
	msg := fmt.Sprintf("%s %s lists 5xx codes %s and replaces the default %s: %s %s no longer retried, though a proxy or gateway in front of the service sends %s; add %s",
		l.Name, cs.Option, joinCodes(listed, false), joinCodes(cs.Default, false), andList(missing), verb, pronoun(missing), pronoun(missing))
	ck.report(a, "5xx", msg, nil)
}

func pronoun(cs []int) string {
	if len(cs) == 1 {
		return "it"
	}
	return "them"
}
