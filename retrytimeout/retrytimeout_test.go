package retrytimeout_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/internal/testmod"
	"github.com/retryvet/retryvet/retrytimeout"
)

func testdata(t *testing.T) string {
	t.Helper()
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLoops(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./a", "./quiet", "./cmd/tool", "./remote", "./funcdo", "./defercancel", "./lifetime")
}

func TestLibraries(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./libs", "./sdkerr")
}

func TestStreaming(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./stream")
}

// TestSleepFix checks the select rewrite against sleep/sleep.go.golden.
func TestSleepFix(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, testdata(t), retrytimeout.Analyzer, "./sleep")
}

// TestNeverCancelled: waits on a context that can never be done are quiet,
// and so is the attempt count of a start-up wait no caller can bound.
func TestNeverCancelled(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./nevercancelled", "./startup")
}

// TestMessages: the numbers and sources in messages are the right ones.
func TestMessages(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./messages")
}

// TestLocalhost: a readiness poll of a process on this machine is no
// remote retry.
func TestLocalhost(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./local")
}

// TestTestVar: a package variable a _test.go file reassigns keeps its
// production value in the verdict on production code.
func TestTestVar(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./testvar")
}

// TestPerAttemptDeadline: a per-attempt deadline whose expiry ends the
// whole retry, beside tests of the caller's context.
func TestPerAttemptDeadline(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./perattempt")
}

// TestSDKLoops: SDK request loops (a classifier on the response with the
// server's yes/no retry header, a per-attempt context that overwrites the
// caller's, a request whose Context() is the caller's, a classifier that
// retries context errors) beside their fixed forms and lookalikes.
func TestSDKLoops(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./sdkloops", "./ctxclass", "./ctxinline")
}

// TestJitterDataFlow: a wait has jitter when a random source reaches it;
// a constant share of the backoff, or a delay set at construction, has
// none, whatever the names say.
func TestJitterDataFlow(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./jitterflow")
}

// TestAttemptFloor: waits totalling at most 1s need no wall-clock bound.
func TestAttemptFloor(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./floor")
}

// TestRetryAfterOnly429: Retry-After read only for a 429 while 503 is
// retried too, in the same function or by the package's retry policy.
func TestRetryAfterOnly429(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./retryafter429")
}

// TestResendOnMissing: a write sent again because its answer lacks a part
// success needs is a retry (its fixed waits have no jitter); a read asking
// again, or a test of a particular state, is not.
func TestResendOnMissing(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./resend")
}

// TestRequestInField: a context carried inside the client's own request
// type bounds the retry, so a wait that ignores it is reported; a field
// that only ever carries Background is not.
func TestRequestInField(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./reqfield")
}

// TestConflictRetries: a retry of conflicts only needs no jitter, and one
// whose attempts first call with the caller's ctx and stop on its failure
// is bounded by that ctx; retries of every error or of 409 and 503 are
// still judged.
func TestConflictRetries(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./conflict")
}

// TestCancelSources: a wait is judged against the cancellation the code
// can observe, wherever it comes from (a request value's context field, a
// project's own Done/Err type, another package's accessor, a func value
// that sleeps, the request a retrying RoundTripper is handed), and the fix
// names the source as the code spells it.
func TestCancelSources(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, testdata(t), retrytimeout.Analyzer, "./cancelsrc")
}

// TestHintUnit: a Retry-After (seconds) or retry-after-ms count converted
// to a wait with no unit is that many nanoseconds; the unit applied at the
// conversion or later, another header's number and a date are quiet.
func TestHintUnit(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, testdata(t), retrytimeout.Analyzer, "./hintunit")
}

// TestDefaults: a wait that ignores cancellation is quiet when the
// package's own defaults for its exported config fields (a constructor's
// interval, a schedule slice) give under a second of waiting in all, and
// reported when they give more or the constructors disagree.
func TestDefaults(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./defaults")
}

// TestStillCounter: a for clause that tests a count the function never
// changes bounds nothing; a count stepped in the body, in the clause or
// through a pointer, and a bound the loop lowers, are quiet.
func TestStillCounter(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./stillcounter")
}

// TestPostAttempt: a retry whose attempts are the for clause's init and
// post statements is read like the loop written out; pagination and a
// read loop in the same form, which go round on success, are quiet.
func TestPostAttempt(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./postattempt")
}

// TestSelectBreak: a break in the ctx.Done() case of a retry's wait leaves
// the select only; breaking to the loop, returning, a later test of the
// context and loops that are not waits are quiet.
func TestSelectBreak(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, testdata(t), retrytimeout.Analyzer, "./selectbreak")
}

// TestPredicateHelper: a retry that asks a helper of the package about
// the status (in the condition, or through a variable set from it) is a
// retry, and the helper's tests of 429 are the retry's; a helper whose
// yes ends the retry is not a retry of its codes.
func TestPredicateHelper(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./predhelper")
}

// TestWaitOverflow: scale × 2^attempt with no bound on an attempt the
// caller chooses wraps to a non-positive wait; a clamp of the exponent, a
// test of the result for <= 0, the package's own bounded use and shifts
// that are not durations are quiet.
func TestWaitOverflow(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./overflow")
}

// TestZeroTimeout: context.WithTimeout on a field the package uses only
// when positive is done at once for 0; under the same test, after an
// early return on zero, for a field defaulted when zero, or one never
// tested, quiet.
func TestZeroTimeout(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./zerotimeout")
}

// TestLibraryCancel: retry libraries whose waits are their own timers,
// bound to the caller's context or not, with the library's way to bind it
// as a suggested fix.
func TestLibraryCancel(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, testdata(t), retrytimeout.Analyzer, "./libcancel", "./rokocancel")
}

// TestFailsafe runs failsafe-go retry policies: no jitter, Retry-After
// ignored by a HandleIf literal that retries 429, waits on the executor's
// own context.Background(); beside a jittered policy bound to ctx whose
// wait is failsafehttp's DelayFunc.
func TestFailsafe(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, testdata(t), retrytimeout.Analyzer, "./failsafe")
}

// TestDurationFunc folds waits another package's function returns for
// the attempt (a DurTable in its fact): the attempt-only schedule is
// exact, and one under a second in all stays quiet.
func TestDurationFunc(t *testing.T) {
	analysistest.Run(testmod.Shared{T: t, Skip: func(kind, _ string) bool { return kind == "fact" }}, testdata(t), retrytimeout.Analyzer, "./durfunc/...")
}

// TestGuardRound: a loop whose one way round is a branch guarded by a
// count (if retryable && retries < max { ...; continue }; break) is
// bounded by it; with a second way round it is not.
func TestGuardRound(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./guardround")
}

// TestPolicyObject: a retry whose bound and waits are methods of a policy
// object (s.Max(), s.Delay(attempt)) and whose success is a 2xx written
// into another package's record is a retry; a walk over an object's
// elements (e.Len(), e.At(i)) and a poll for a ready flag are not.
func TestPolicyObject(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./policyobj")
}

// TestInterfaceWait: a wait through an interface whose one implementation
// in the package sleeps is that sleep; with two implementations, one of
// which honours ctx, it is not known and not reported.
func TestInterfaceWait(t *testing.T) {
	analysistest.Run(t, testdata(t), retrytimeout.Analyzer, "./ifacewait", "./ifacewait2")
}
