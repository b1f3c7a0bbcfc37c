package retrystatus

import "fmt"

// stops429 reports a decision that retries 5xx but gives up on 429, named
// or inside a range it gives up on (code >= 400 && code < 500). 429 is the code that most asks for another attempt (after its
// Retry-After); a retry that ends at the first rate limit fails a call
// that a wait would have carried. Quiet when some path retries 429 (the
// error's code was read: an exhausted quota stops, a rate limit waits),
// and when no 5xx is retried (a decision about something else).
func (ck *checker) stops429(d *decision, atoms []*atom) {
	if !d.stopBlind[tooMany] || d.retried[tooMany] {
		return
	}
	var a *atom
	for _, x := range atoms {
		if x.lists(tooMany) {
			a = x
			break
		}
		if x.covers(tooMany) && a == nil {
			a = x
		}
	}
	var fives []int
	for _, c := range []int{500, 502, 503, 504} {
		if d.retried[c] {
			fives = append(fives, c)
		}
	}
	if len(fives) == 0 {
		return
	}
	if a == nil {
		ck.omits429(d, atoms, fives)
		return
	}
	if !a.lists(tooMany) && len(fives) < 4 {
		// A range (code >= 400) that also gives up on some 5xx is the 5xx
		// list's finding; a range is this one's where every 5xx goes round.
		return
	}
	what := "429 (too many requests)"
	if !a.lists(tooMany) {
		what = "a range of codes, 429 (too many requests) among them," // if code >= 400 && code < 500 { return err }
	}
	msg := fmt.Sprintf("retry decision gives up on %s%s but retries %s: a rate limit ends the retry at once, though 429 asks for a wait and another attempt; retry it after its Retry-After",
		what, viaText(a), joinCodes(fives, false))
	ck.report(a, "stops429", msg, nil)
}

// tooMany is the rate-limit status.
const tooMany = 429

// gatewayCodes reports a decision that retries 429 and 503 and gives up on
// both 502 and 504 without reading the error: a restart behind a proxy or
// load balancer reaches the client as 502 (no upstream) or 504 (upstream
// too slow), and fails at once while the same restart seen as 503 is
// retried (the OTLP exporter's fix 509c23eb).
func (ck *checker) gatewayCodes(d *decision, a *atom) {
	for _, c := range []int{502, 504} {
		if d.retried[c] || !d.stopBlind[c] {
			return
		}
	}
	each := ""
	if n, ok := d.layer.Attempts(); ok && n > 1 {
		each = fmt.Sprintf(" with %d attempts left", n-1)
	}
	operand := a.operand
	if operand == "" {
		operand = "code"
	}
	msg := fmt.Sprintf("retry decision retries 429 and 503%s but not 502 or 504: a proxy or load balancer in front of the server answers those for the same restart or overload, and the call fails at once%s; retry 502 and 504 too (or %s >= 500)",
		viaText(a), each, operand)
	ck.report(a, "gateway", msg, nil)
}

// omits429 reports a list of the codes worth another attempt that names
// two or more 5xx codes and not 429, when 429 falls through to giving up
// without the error being read: the author enumerated the transient
// answers and left out the one that most asks for another attempt. One
// 5xx code listed (503 alone) is a choice about that code, not a list of
// transient answers, and stays quiet.
func (ck *checker) omits429(d *decision, atoms []*atom, fives []int) {
	listed, first := namedBy(fives, func(int) bool { return true }, atoms, false)
	if len(listed) < 2 || first == nil || ck.atAtom[first.pos] {
		return // a list with holes in its 5xx, or a permanent code, is told first; one finding per list
	}
	msg := fmt.Sprintf("retry decision retries %s%s but not 429 (too many requests): a rate limit ends the retry at once, though 429 asks for a wait and another attempt; add 429 and wait its Retry-After",
		joinCodes(fives, false), viaText(first))
	ck.report(first, "stops429", msg, nil)
}
