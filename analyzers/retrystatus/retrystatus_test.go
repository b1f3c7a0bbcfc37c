package retrystatus_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/analyzers/retrystatus"
	"github.com/retryvet/retryvet/internal/testmod"
)

// TestRetryStatus runs the testdata packages in one load, so the SDKs
// they share (openai-go, anthropic-sdk-go, client-go, net/http) are type
// checked and analysed once rather than once per package:
//
//   - a, b: classifiers, their facts across packages, suggested fixes
//     (a/*.go.golden);
//   - libs, sdk: classifiers handed to retry libraries, clients and SDKs;
//   - noclass: remote retries that retry every failure, beside the ones
//     that read the error or the status first;
//   - stops: classifiers that stop a client or SDK retrying 429 and 5xx,
//     beside ones that keep its default;
//   - ratelimit: retries that give up on 429 while they retry 5xx, through
//     a classifier of another package and in the loop, beside ones that
//     retry both, read the error's kind first, or retry only connection
//     errors;
//   - quota: an OpenAI retry whose classifier returns (retry, delay, err)
//     and retries every 429;
//   - reissue: the classifier of a Bubble Tea retry (an error handler
//     answering with the request again) whose default re-issues every code
//     it does not list, beside one that gives up on them;
//   - data: retry policies handed to a library as data (the codes of an
//     elastictransport.Config), beside handlers, metrics labels and log
//     lists of codes, a disabled retry and the library's defaults;
//   - fields: a 5xx set held in a struct field a constructor sets once,
//     beside a field a setter changes and fields of codes that decide no
//     retry;
//   - devicepoll, fieldset: OAuth device-code polls whose 403/404 mean
//     "pending" (quiet) beside a retry of the same codes, and 5xx sets held
//     in a struct field or a package variable beside range checks;
//   - polarity: a (retry, err) classifier's verdict read as success, so a
//     5xx or 429 is taken as delivered (alertmanager's opsgenie notifier),
//     beside notifiers that hand the verdict on, wrap the error, test the
//     error first, drop it inside a retry loop, or read a success verdict.
func TestRetryStatus(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.RunWithSuggestedFixes(t, dir, retrystatus.Analyzer,
		"./a", "./b", "./libs", "./sdk", "./noclass", "./stops",
		"./ratelimit", "./quota", "./reissue", "./data", "./fields", "./devicepoll", "./fieldset", "./defaultset/...", "./polarity/...", "./funcfield")
}

// TestModelCases runs, apart, the packages whose suggested fixes have no
// golden files (RunWithSuggestedFixes would ask for them):
//
//   - gaps: loops the model first missed (the status tested on the
//     err == nil path through a switch, a set, a local copy or a combined
//     condition);
//   - example: one 5xx code is no enumeration, and Example functions are
//     documentation; two codes in production code are reported;
//   - gateway: 429 and 503 retried with 502 and 504 given up on (a switch
//     whose cases fall out to the wait, an if on a copied code), beside a
//     full list, 503 alone and a handler answering 429 and 503;
//   - dropsel: a response left open on the way to the next attempt through
//     a select whose other clause returns it, beside one that closes it.
func TestModelCases(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, retrystatus.Analyzer, "./gaps", "./example", "./gateway", "./dropsel", "./roko", "./stoplist")
}

// TestProvenance runs the classifiers a status provenance finds wherever
// they are written, each beside a quiet lookalike:
//
//   - shapes: an enumerated 5xx test inline in a loop, a switch over the
//     Code field of the project's own error type taken with errors.As in a
//     helper a retry consults, a retryable set with 400 and 413; beside a
//     handler writing 500/503, a metrics switch, a log, a user-message
//     mapping and a counted set;
//   - grpccodes: gRPC retries on permanent codes (InvalidArgument,
//     PermissionDenied) beside retries on Unavailable and
//     ResourceExhausted and a switch that only logs;
//   - grpcnoclass: unary gRPC calls retried whatever their code (a loop,
//     the project's helper in another package given a nil classifier)
//     beside a helper given one, a loop that reads the code and a stream
//     reconnect.
func TestProvenance(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, retrystatus.Analyzer, "./shapes", "./grpccodes", "./grpcnoclass/...", "./opfact/...")
}

// TestRetryLog: the opt-in check for silent retries, on with the flag and
// off without it (the other tests run with it off and want nothing of it).
func TestRetryLog(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	if err := retrystatus.Analyzer.Flags.Set(retrystatus.RetryLogFlag, "true"); err != nil {
		t.Fatal(err)
	}
	defer retrystatus.Analyzer.Flags.Set(retrystatus.RetryLogFlag, "false")
	analysistest.Run(t, dir, retrystatus.Analyzer, "./retrylog")
}

// TestBreaker runs the circuit breakers (sony/gobreaker v1 and v2) that
// count a caller's cancellation as a failure of the dependency, with their
// suggested IsExcluded / IsSuccessful (breaker/breaker.go.golden), beside
// breakers that exclude context errors, classify what they count, guard a
// call on a context of their own or no remote call, or take their
// Settings from the caller.
func TestBreaker(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.RunWithSuggestedFixes(t, dir, retrystatus.Analyzer, "./breaker")
}

// TestOldBreaker runs a gobreaker from before v0.5 (its own module: the
// other testdata use v1 and v2), whose Settings has no IsSuccessful to set:
// the message says to upgrade and no edit is offered.
func TestOldBreaker(t *testing.T) {
	testmod.Download(t, filepath.Join("testdata", "oldbreaker"))
	dir, err := filepath.Abs(filepath.Join("testdata", "oldbreaker"))
	if err != nil {
		t.Fatal(err)
	}
	results := analysistest.Run(t, dir, retrystatus.Analyzer, ".")
	for _, r := range results {
		for _, d := range r.Diagnostics {
			if len(d.SuggestedFixes) > 0 {
				t.Errorf("%s: a fix for a gobreaker with no IsSuccessful: %v", r.Pass.Fset.Position(d.Pos), d.SuggestedFixes)
			}
		}
	}
}

// TestBreakerAcrossPackages runs breakers built by a constructor of
// another package (its BreakerFact) in front of a middleware's next stage
// on the request's context, and a hystrix command its caller names; beside
// a constructor that excludes context errors, a stage on a context of its
// own and a guarded computation handed no context (breakerpkg).
func TestBreakerAcrossPackages(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(testmod.Shared{T: t, Skip: func(kind, _ string) bool { return kind == "fact" }}, dir, retrystatus.Analyzer, "./breakerpkg/...")
}

// TestErrorType runs retries that classify the project's own error type
// taken with errors.As, through a method of the type and through a map of
// codes in a branch that goes round, beside the same shapes over every
// transient server error and a conflict retry.
func TestErrorType(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, retrystatus.Analyzer, "./errtype")
}

// TestNoWait runs retries of overload answers (any 5xx, 429, 503) that
// go round again at once, beside retries that wait through a helper or a
// rate limiter and retries of a conflict or a stale connection.
func TestNoWait(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, retrystatus.Analyzer, "./nowait")
}

// TestHandBreaker runs hand-rolled breakers (a count of failures in a
// row with a gate that turns later calls away, a window of failure times
// checked before the call) that count a caller's cancellation, beside one
// that leaves context errors out, a retry's attempt counter, an error
// metric and a call on a context of its own.
func TestHandBreaker(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, retrystatus.Analyzer, "./handbreaker")
}

// TestBreakerLibs runs the other breaker libraries (failsafe-go,
// hystrix-go, mercari, go-resiliency) where they count a caller's
// cancellation, with the mechanical fixes (a failsafe-go HandleIf, the
// caller's context for mercari's Do; breakerlibs.go.golden), beside the
// same libraries told what to count, given the caller's context, or
// guarding work on a context of their own or no remote call.
func TestBreakerLibs(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.RunWithSuggestedFixes(t, dir, retrystatus.Analyzer, "./breakerlibs")
}

// TestStream runs retries that open a stream (go-openai's
// CreateChatCompletionStream) and hand it on unread, so errors after the
// 200 are never retried (a loop, a stream returned out of the operation
// given to backoff or to the project's retry helper in another package),
// beside retries that read the stream inside the retried region, a stream
// returned to a caller that retries it, and a retried whole answer; a
// gRPC server stream (health Watch) returned to a caller that reads it
// unretried beside a bidirectional session (reflection) whose own loop
// reopens it.
func TestStream(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, retrystatus.Analyzer, "./stream/...")
}

func TestDroppedResponse(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.RunWithSuggestedFixes(t, dir, retrystatus.Analyzer, "./dropresp")
}

// TestBreakerInRetry runs breakers whose Execute a retry repeats often
// enough for one request to open them (a loop, retry-go, a helper the loop
// calls, the project's retry helper in another package), beside retries
// too short to open one, a retry inside Execute and a breaker that opens
// on a failure ratio.
func TestBreakerInRetry(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, retrystatus.Analyzer, "./breakerretry/...")
}

// TestTransportErrors runs retries of 5xx that give up on the first error
// of the send itself (a loop, a go-retry closure), beside retries that go
// round on it, classify it, retry no 5xx, or retry every error (backoff);
// and status tests written as ranges (code < 400 as the success test,
// code >= 400 that goes round) beside a poll that waits out a 404.
func TestTransportErrors(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, retrystatus.Analyzer, "./transporterr", "./ranges")
}

// TestErrorSiblings runs classifiers of a retry that retry io.EOF and give
// up on io.ErrUnexpectedEOF (an errors.Is chain with net errors and an
// interface assertion; an == reached through a predicate), with the fix
// that adds the sibling, beside a classifier that retries both, one that
// reads the error's text, and io.EOF as the end of a read loop.
func TestErrorSiblings(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.RunWithSuggestedFixes(t, dir, retrystatus.Analyzer, "./siblings")
}

// TestImportedClassifier runs a retry in a package that names no status
// code, deciding through a method of another package's error type (its
// ClassifierFact): an enumeration of two 5xx codes there is reported at
// the retry, one that covers the range is quiet (xerr).
func TestImportedClassifier(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(testmod.Shared{T: t, Skip: func(kind, _ string) bool { return kind == "fact" }}, dir, retrystatus.Analyzer, "./xerr/...")
}

// TestRetriedErrorType runs retries whose classifier retries one error
// type of the package and whose operation marks with it the statuses
// worth another attempt: through the func value a retrier factory of
// another package made, held in a struct field, and through a helper
// handed the classifier. Operations that mark every transient status are
// quiet.
func TestRetriedErrorType(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, retrystatus.Analyzer, "./retriedtype/...")
}

// TestOverloadGap runs a shared HTTP helper whose retry lists 500-504 and
// misses 529, called for Anthropic's API (reported at the call), for a
// key-value service (quiet) and through a wrapper (reported for Anthropic's
// Messages API; quiet for an OpenAI-compatible path and /health).
func TestOverloadGap(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(testmod.Shared{T: t, Skip: func(kind, _ string) bool { return kind == "fact" }}, dir, retrystatus.Analyzer, "./overload/...")
}

// TestProtocolResult: a retry whose operation returns an error type of the
// protocol's own (type Result error), whose success is the protocol's
// predicate (IsAck, true for nil, read from its fact) and whose pause is a
// ticker made for each wait is a retry, and its classifier is read; a
// ticker made before the loop that reads it is a poll (Watch, which the
// waits-first rule also keeps quiet: it does not go red on the ticker
// rule alone).
func TestProtocolResult(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, retrystatus.Analyzer, "./acked/...")
}
