package retrystatus

import (
	"fmt"
	"slices"

	"golang.org/x/tools/go/analysis"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// transportGivenUp reports a retry loop that retries server errors (some
// 5xx) but gives up on the first error of the HTTP send itself: right
// after resp, err := client.Do(req), `if err != nil { return ... }` leaves
// the loop without reading the error. A connection refused or reset, or an
// EOF from a server that restarted, then fails the call at once with the
// retry's attempts unused, while the 502 a proxy answers for the very
// same restart is retried (OpenTelemetry's OTLP exporter before its fix
// 5ec67e83, own set; in a go-retry closure, a bare `return err` that is
// not a RetryableError). It takes a retried 502 or 504, a proxy's words
// for a backend it could not reach, or a list of transient answers (429
// and 503, what the OTLP exporter retried before that fix): 503 alone
// ("come back later") or 500 alone is a choice of what to wait for. The model answers which branch that is
// (SendFailureGivesUp). Quiet when the branch reads the error (errors.Is
// or As, a type assertion or switch, a method of it, a helper handed it:
// a classifier, right or wrong, is a choice), when it goes round again,
// and when neither 502 nor 504 is retried, nor 503 with 429 (a loop that
// only waits out 503, or 500, waits for a server that answered), for the
// status alone: a loop that goes round on the error's code in the body
// retries that class, not these statuses.
func (ck *checker) transportGivenUp(l *retrymodel.Layer, ds []*decision) {
	if l.Kind != retrymodel.Loop && l.Kind != retrymodel.Library || l.Body == nil || ck.inTest(l.Pos) {
		return
	}
	var fives []int
	gateway, limit := false, false
	for _, c := range []int{429, 500, 502, 503, 504} {
		for _, d := range ds {
			// Retried for the status itself: a code retried only when the
			// error's code or text says so (rate_limited in the body) is
			// the error's class the loop chose, not a status list.
			if d.retried[c] && d.noBody[c] {
				fives = append(fives, c)
				gateway = gateway || c == 502 || c == 504
				limit = limit || c == 429
				break
			}
		}
	}
	if !gateway && !(limit && slices.Contains(fives, 503)) {
		return // 503 alone ("come back later") or 500 alone is a choice
	}
	stand := "the 502 a proxy answers"
	if !gateway {
		stand = "the 503 a load balancer answers"
	}
	for _, op := range l.Ops {
		ifs, givesUp := ck.res.SendFailureGivesUp(l, op)
		if !givesUp {
			continue
		}
		left := "with the retry's other attempts unused"
		if n, ok := l.Attempts(); ok {
			left = fmt.Sprintf("with up to %d attempts left", n-1)
		}
		key := fmt.Sprintf("%d/transport-error-not-retried", ifs.Pos())
		if ck.reported[key] {
			return
		}
		ck.reported[key] = true
		ck.pass.Report(analysis.Diagnostic{
			Pos:      ifs.Pos(),
			End:      ifs.Cond.End(),
			Category: "transport-error-not-retried",
			Message: fmt.Sprintf("%s retries %s but gives up on the first error of the send itself: a connection refused or reset, or an EOF from a server that restarted, fails the call at once %s, while %s for the same restart is retried; retry these errors too (at least a refused or reset connection, which sent nothing or was cut off)",
				countedLayer(l), joinCodes(fives, false), left, stand),
			Related: []analysis.RelatedInformation{{Pos: l.Pos, Message: "the retry"}},
		})
		return
	}
}

// countedLayer names the layer with its attempts when they are known.
func countedLayer(l *retrymodel.Layer) string {
	if n, ok := l.Attempts(); ok {
		return fmt.Sprintf("%s (%d attempts)", describeLayer(l), n)
	}
	return describeLayer(l)
}
