package retrystatus

import (
	"fmt"
	"slices"
)

// stopList reports a decision that gives up on a few permanent codes it
// names and retries the others by falling through: `if code == 422 ||
// code == 401 { give up }`, every other failure retried. Naming some
// 4xx says the author knows they fail the same way each time; the ones
// left out (400, 403, 404, ...) are sent again on every attempt all the
// same (buildkite-agent's fix 61e8c7a5 turned such per-call lists into
// one 4xx-is-final rule). Quiet when the retried ones are read first
// (the error's code or text), when fewer than two are retried or named:
// one code given up on is a choice, and a retry that names none has no
// classifier (noclassifier.go).
func (ck *checker) stopList(d *decision, atoms []*atom) {
	named, at := namedBy(permanent, func(c int) bool { return !isGRPC(c) && d.stopped[c] && !d.retried[c] }, atoms, false)
	// As for 5xx, it takes two codes to make an enumeration: one
	// permanent code given up on (400 alone, 404 alone: gone) is a
	// choice, not a list of the range with holes.
	if len(named) < 2 {
		return
	}
	var left []int
	for _, c := range permanent {
		if isGRPC(c) || !d.retried[c] || !d.blind[c] {
			continue
		}
		if slices.ContainsFunc(atoms, func(a *atom) bool { return a.lists(c) || a.covers(c) }) {
			continue // named or covered: the permanent-codes check's case
		}
		left = append(left, c)
	}
	if len(left) < 2 {
		return
	}
	msg := fmt.Sprintf("retry decision gives up on %s%s but retries %s: the same request fails the same way %s; give up on every 4xx but 408 and 429",
		joinCodes(named, true), viaText(at), joinCodes(left, true), eachAttempt(d.layer))
	ck.report(at, "stoplist", msg, nil)
}
