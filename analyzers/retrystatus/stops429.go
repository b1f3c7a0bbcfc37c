package retrystatus

import "fmt"

// stops429 reports a decision that retries 5xx but names 429 and gives up
// on it. 429 is the code that most asks for another attempt (after its
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
	}
	if a == nil {
		return
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
	msg := fmt.Sprintf("retry decision gives up on 429 (too many requests)%s but retries %s: a rate limit ends the retry at once, though 429 asks for a wait and another attempt; retry it after its Retry-After",
		viaText(a), joinCodes(fives, false))
	ck.report(a, "stops429", msg, nil)
}

// tooMany is the rate-limit status.
const tooMany = 429
