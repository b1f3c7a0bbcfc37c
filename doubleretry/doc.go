// Package doubleretry defines an Analyzer that reports retry layers whose
// retried operation reaches another retry layer.
//
// # Analyzer doubleretry
//
// doubleretry: report a retry layer whose retried operation reaches another retry layer
//
// Retry layers multiply, they do not add. An own three-attempt loop around
// an SDK that retries twice by default (openai-go, anthropic-sdk-go; the
// aws-sdk-go-v2 standard retryer makes 3 attempts) turns one logical request
// into nine HTTP requests, with the backoff curves multiplying, aimed at a
// provider that is usually already saturated when the retries start. Retries
// belong at exactly one layer: the one that knows what the whole operation
// costs and whether it is still worth finishing.
//
// The analyzer looks at every retry layer the retry model finds (own loops,
// cenkalti/backoff v4 and v5, avast/retry-go, sethvargo/go-retry,
// buildkite/roko, client-go retry.OnError and RetryOnConflict,
// wait.ExponentialBackoff,
// go-retryablehttp clients including an *http.Client built by
// StandardClient(), and SDK clients that retry by default) and follows its
// retried region: direct calls, methods, closures handed to retry libraries,
// functions of other packages through facts, and the RoundTrip of the
// Transport of an *http.Client the package builds with a Transport of a
// concrete type (&http.Client{Transport: &retryTransport{...}}), also when
// the client comes from a constructor, field or variable of another
// package: a retry there runs under every attempt of a loop around the
// client's Do. Layers in _test.go files are left out: a test's retries
// wait for its own harness and multiply nothing a production dependency
// receives. For a hand-rolled loop only
// the calls whose failure starts another turn count: a call made once the
// operation succeeded runs once, whatever it reaches. When the region reaches
// another retry layer, it reports at the outer layer, once, with the whole
// chain, the position of each layer, where the SDK client was built, and the
// product of attempts when every layer's count is known. An SDK default that
// was assumed because the client's construction or configuration could not
// be read is marked as such. Each nesting is reported at its own outer layer:
// a chain of three layers is reported at the outermost, with the product of
// all three, and the inner pair again at the middle layer; functions that
// only call through are not reported.
//
// An inner layer multiplies the outer one only when its failure reaches
// the outer layer's decision: a layer reached through a function with no
// results, a call whose results are discarded (a statement, _ = f(), a
// deferred call), or a := error tested by if err != nil whose branch only
// logs and goes on, with the error and the call's other results read
// nowhere else, fails without making the outer layer go round (a template
// fetch that retries, logged and dropped by a mail sender under a queue's
// retry). The same holds for a proxy route's retries of a handler.
//
// A retry loop or library call whose operation reaches the same layer
// again on its failure path (connect falls back to retryConnect, whose
// loop calls connect) is reported as a re-entry (category reentry): each
// failed attempt starts a whole new retry before the first one waits, so
// attempts multiply with every level and nothing bounds the depth. A
// retry by recursion, a goroutine and a dropped failure are no re-entry.
//
// A call through an interface is followed to the implementations the
// package can see that reach a retry layer: methods of its own types, of
// dependencies' types whose facts it is handed, and those the interface's
// own package sees (a provider package that builds every provider client
// records them in a fact on the interface method), so a runtime that
// retries provider.Provider.Stream is reported when one of the providers
// is an SDK that retries; the message names the implementation. An
// implementation in a package that imports the caller's (a core package
// that retries llm.Provider.Chat, providers in subpackages that import
// it) cannot be seen from the caller: the caller's package records the
// interface methods its retries repeat in a package fact, and the package
// that implements one and retries inside it reports the nesting at its
// method (category impl-retry), with both positions and the product; an
// implementation that holds another implementation of the interface (a
// wrapper whose place in the chain is configuration) is left out. An
// implementation that neither side can see (wired together only in a
// third package that imports both) is not followed; nor are interfaces of
// the standard library (io.Reader, http.RoundTripper), which have
// implementations everywhere. A stream
// retried through its Err() (stream := client.Chat.Completions.NewStreaming
// made again each turn) retries the SDK's own retries of the opening
// request.
//
// A layer whose own retries are off (option.WithMaxRetries(0) on the client
// or the call, RetryMax = 0, aws.NopRetryer, RetryMaxAttempts = 1) makes one
// attempt and is not a retry. Retries one after the other, fallback chains
// that try each model or endpoint once without waiting, and polling loops
// are not nested retries and are not reported. Nor is a conflict retry
// (retry.RetryOnConflict, or a classifier that retries only 409,
// IsConflict, codes.Aborted or SQLSTATE 40001 and stops on the rest),
// inner or outer: it re-reads and re-writes after losing an
// optimistic-concurrency race, it does not re-send a failed request. Nor
// is a repair retry: a loop that goes round only for one class of error
// (errors.Is with a sentinel, errors.As, a conflict test), only after
// assigning what the operation reads (a new client, session or account),
// and leaves on every other failure, as certmagic does when the CA no
// longer knows its account. The failures an inner layer gives up on are
// handed back, not retried again.
//
// A retry also repeats what the attempt did before the call that failed
// (category repeated-write). A write whose repeat leaves a second record
// (an INSERT with no ON CONFLICT / IGNORE / ON DUPLICATE KEY, a publish or
// enqueue, a push, an increment, a mongo Insert, gorm's Create, or a
// project function that makes one with its context, from internal/effects)
// that every attempt makes before a call whose failure goes round again (a
// branch on its result that continues or waits; in a cenkalti/backoff or
// retry-go closure, its error returned unmarked; in go-retry, marked
// RetryableError) is reported at the write with the number of times it
// runs per call. Quiet: upserts and writes that a repeat folds (a SET, an
// UPDATE, a status write, a delete); writes under a branch (the first
// attempt only), after the retried call, or before a call whose failure
// returns instead of retrying; loops that are no retry (pages, items).
// The suggested fix moves the write into the branch that leaves the loop
// when the call's error is nil, where that is the whole edit: the write's
// statement has no break or continue and nothing it sets is read elsewhere
// (but the error the call sets again). Where the write feeds the call or
// a library closure retries, no edit is offered.
//
//	for attempt := 0; attempt < 4; attempt++ {
//		db.ExecContext(ctx, "INSERT INTO orders ...") // up to 4 orders per call
//		if err = charge(ctx, o); err == nil {
//			return nil
//		}
//		time.Sleep(wait(attempt))
//	}
//
// A POST or PATCH built with http.NewRequest(WithContext) that a retry
// sends again through (*http.Client).Do with no idempotency header
// (Idempotency-Key, X-Idempotency-Key, Cko-Idempotency-Key,
// PayPal-Request-Id) is reported at the send (category no-idempotency-key)
// when the API is known to take one: the URL names a host whose API
// documents it (Stripe, GoCardless, Adyen, Checkout.com, PayPal), or the
// package sends such a header on another request. A request whose response
// was lost may have been carried out; sent again without the key, it is
// carried out twice. Quiet: the header set on the request, a request
// handed to another function before the send (a signer, a header helper)
// or whose Header is replaced, reads and PUTs, and APIs with no sign of a
// key. The OpenAI, Anthropic and Stripe SDKs send keys of their own. When
// the request is built before the loop, the suggested fix sets one key for
// every attempt right before it: req.Header.Set(name, rand.Text()), with
// crypto/rand (Go 1.24 or later; not offered where another rand is
// imported).
//
// Both of these (repeated-write, at a loop and at a retrying proxy route,
// and no-idempotency-key) are off by default, with -sideeffects (the
// analyzer flag -doubleretry.sideeffects, the golangci-lint plugin's
// sideeffects setting): on the project's real-world repositories they have
// made no finding yet, so their precision on real code is not known, and a
// check is on by default only where it is shown to be at least 0.9.
//
// A request with a body (http.NewRequest(WithContext) given a reader) that
// is built before the retry and sent again through (*http.Client).Do is
// reported at the send (category consumed-body): the first attempt reads
// the body to its end, and net/http gives it back only inside one round
// trip, never for the caller's next Do, so every retry sends an empty
// body. Quiet when the request is built in each attempt, the loop sets
// req.Body (from GetBody, a new reader) or seeks the body back, the
// request or its body is handed to another function in the loop, or it
// has no body. The request may be built in one of several branches, and
// may be the retrying function's parameter: then a caller in the package
// builds it with a body (through a few calls), or it arrives through an
// exported method shaped like http.Client.Do (a wrapper's Do, a retrying
// RoundTripper's RoundTrip), which stands for a client and so gets every
// caller's POST and PUT. The send may also be a method
// of an interface of that shape. Quiet when the function looks at the
// request's Body, GetBody or ContentLength itself. A retry that reads a
// request's body in every attempt (io.ReadAll(req.Body), to give a copy a
// fresh reader) from a request made before it, without setting req.Body
// again, is reported at the read: the first read drains it.
//
// Where it is one edit, a suggested fix turns the SDK's retries off at the
// client's construction (option.WithMaxRetries(0)), leaving the policy to the
// outer layer, which knows the deadline.
//
// Bad: one logical request is up to 9 HTTP requests.
//
//	client := openai.NewClient(option.WithAPIKey(key))
//	for attempt := 0; attempt < 3; attempt++ {
//		resp, err := client.Chat.Completions.New(ctx, params)
//		if err == nil {
//			return resp, nil
//		}
//		time.Sleep(time.Second << attempt)
//	}
//
// Good: one layer owns the policy.
//
//	client := openai.NewClient(option.WithAPIKey(key), option.WithMaxRetries(0))
//	for attempt := 0; attempt < 3; attempt++ {
//		resp, err := client.Chat.Completions.New(ctx, params)
//		...
//	}
package doubleretry
