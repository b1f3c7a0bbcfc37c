// Package retrystatus defines an Analyzer that checks the status
// classifiers of retry layers.
//
// # Analyzer retrystatus
//
// retrystatus: retry classifiers that enumerate 5xx, retry permanent codes, treat every 429 as transient, stop retrying 429 and 5xx, are read the wrong way round, or are missing from a remote retry
//
// A retry is a classifier before it is a curve: the predicate that decides
// whether a failure is worth another attempt. retrystatus reads the retry
// decisions of the retry layers the retry model finds (the conditions in a
// retry loop's body that choose between another attempt and giving up, a
// retry-go RetryIf, a retryablehttp CheckRetry, a client-go OnError
// predicate, the backoff.Permanent or go-retry RetryableError logic of a
// retried operation, the project's own error type that a classifier
// retries and nothing else (evaluate(err) asserts err.(retryableError)),
// whose values the operation returns for the statuses worth another
// attempt, also through a retrying func value a factory of another
// package made, and every function those call to decide: a helper whose
// error the operation returns, and the function a func field holds by
// default, the one the package's constructor stores unless an option
// gives another), evaluates
// them for each HTTP status code, and reports these misclassifications.
// A path on which the net/http send of the attempt failed (its error,
// assigned beside the response, tested non-nil) has no status and decides
// nothing about one: err == nil && code < 400 then if err == nil { set }
// else { retry } retries the set's codes, not every code.
//
//   - An enumeration of 5xx codes (code == 502 || code == 503, a switch
//     case, a map, set or slice of codes, slices.Contains; a set may be
//     an options field its package writes once, the default a caller gets
//     unless it replaces it: messages say "by default") where a range
//     belongs: 500 and the non-standard 529 (overloaded) fall through it
//     and are never retried. The fix is code >= 500; the simple boolean
//     forms get it as a suggested fix. It takes two 5xx codes to make an
//     enumeration: 503 alone ("come back later") is a choice, not a range
//     with holes. A list that already has 500 and misses only 529 is
//     reported only for a retry of an API that sends 529 (an LLM API:
//     Anthropic's, or an SDK or gateway in front of one); a module proxy
//     or a database never sends it. When the retry is a shared helper
//     whose own code names no API (an HTTP client of the project that
//     every provider sends through), the list is reported at the call of
//     the helper (or of a function that reaches it) made by a function
//     that names Anthropic's API, whose documented overloaded_error is
//     529 (its SDK, host, /v1/messages or anthropic-version, a string
//     constant included).
//   - A list of transient answers that stops at the server (category
//     gateway): 429 and 503 retried, 502 and 504 given up on without
//     reading the error. A restart or overload behind a proxy or load
//     balancer reaches the client as 502 (no upstream) or 504 (upstream
//     too slow) as often as 503, and fails the call at once while the
//     same event answered as 503 is retried (the OTLP exporter's fix
//     509c23eb; the OTLP spec lists 502, 503 and 504). 503 alone, without
//     429, stays a choice.
//   - A classifier that retries io.EOF and gives up on
//     io.ErrUnexpectedEOF (category error-sibling): a function of the
//     package that decides a retry (its true answer goes round, in a
//     condition of the retry, a classifier handed to it, or a predicate
//     that returns it) is evaluated for each error, and answers retry for
//     the one and give up for the other on every path. A peer that closes
//     the connection between messages gives io.EOF; the same close in the
//     middle of one gives io.ErrUnexpectedEOF (io.ReadFull), and the call
//     fails at once (franz-go's fix c706d79a). The suggested fix adds the
//     sibling to the test. Quiet when the error's text or a method of it
//     decides (not evaluated), and where io.EOF ends the loop.
//   - Permanent codes retried: 400, 401, 403, 404, 413 and 422 fail the
//     same way on every attempt (for 413, shrink the input instead). A
//     code retried only after reading the error's code or message (a
//     known race), or after changing the request (a refreshed token, a
//     truncated input), is not reported.
//   - A few permanent codes given up on and the others retried (category
//     stoplist): the decision names two or more of 400, 401, 403, 404,
//     413 and 422 to give up on (`if code == 422 || code == 401 { give
//     up }`, roko's r.Break(), backoff.Permanent) and retries at least
//     two of the others by falling through, without reading the error.
//     Naming some says the author knows they fail the same way each time;
//     the ones left out are sent again on every attempt (buildkite-agent's
//     fix 61e8c7a5). One code given up on (400 alone, 404 alone) is a
//     choice and stays quiet, as does a decision that gives up on the
//     whole 4xx range.
//   - Every 429 treated as transient without reading the error's code or
//     type, when the retried call goes to an API that sends an exhausted
//     quota as 429: OpenAI and OpenAI-compatible APIs (the openai SDKs,
//     /chat/completions endpoints; insufficient_quota) and Gemini
//     (RESOURCE_EXHAUSTED). Such a 429 burns every attempt. Other APIs'
//     429 is a rate limit and is not reported; Anthropic's among them
//     (anthropic-sdk-go, api.anthropic.com): its 429 is only ever
//     rate_limit_error, and a spent balance or spend limit comes as 400 or
//     402.
//   - 429 given up on while 5xx is retried: the decision names 429 and
//     stops on it without reading the error's code or type, and retries
//     500, 502, 503 or 504; or it gives up on a range of client errors
//     that holds 429 (code >= 400 && code < 500) while every one of 500,
//     502, 503 and 504 goes round; or it lists two or more 5xx codes as
//     the answers worth another attempt (a set, a switch case, a chain of
//     ==) and leaves 429 out, so that 429 falls through to giving up
//     (once per list: a list with holes in its 5xx, or with a permanent
//     code, is reported for that first). A rate limit then ends the retry at once,
//     though 429 is the code that most asks for a wait and another
//     attempt. Quiet when some path retries 429 (an exhausted quota stops,
//     a rate limit waits) and when no 5xx is retried. A give-up that a
//     setting joins to the status test (if cfg.DropRateLimited && code ==
//     429 { return }: a field reached from the receiver or a parameter, or
//     a bool parameter, that no attempt changes) is the setting's choice,
//     not a blind one, for this finding and the other lists that count
//     codes given up on without reading the error.
//   - No classifier at all: a remote retry that retries every failure, so
//     400, 401, 403 and 413 are sent again on every attempt. Either an SDK
//     call (openai, anthropic, aws-sdk-go-v2; the SDK returns every 4xx as
//     an error) whose error is retried without being read, or a net/http
//     request whose status is tested only for success, also in a
//     function the loop calls as its operation (one that makes the
//     request, itself or through another function, and returns an error
//     for every status but success, or hands on unread the error of one
//     that does; of another package by its summary, an ErrStatusFact), or
//     in the loop on the status of an answer such a
//     function returns (a.Code == 200 on the project's own response
//     type); a select case or an if that only a cancel takes (case
//     <-ctx.Done(), if ctx.Err() != nil) gives up on no status,
//     or a unary gRPC client method (ctx, *Req, ...grpc.CallOption)
//     (*Resp, error) whose error is retried whatever its code, so
//     InvalidArgument, FailedPrecondition, PermissionDenied and
//     Unauthenticated are sent again (a stream re-opened after it breaks
//     is no unary call; a gRPC retry of two attempts is not reported).
//     A retried operation that asks for another attempt with an error of
//     its own making (errors.New, fmt.Errorf wrapping no error: "change
//     not complete yet") polls a state, and the errors it hands on ride
//     along: not reported.
//     A retry with no bound at all, HTTP or gRPC, is a worker waiting for
//     its service (a registration or heartbeat until the server answers),
//     not a request's retry, and is not reported. The retry may be the project's own helper in
//     another package: a helper whose classifier is a call of one of its
//     func parameters (if !isRetriable(err) { return err }) takes the
//     classifier each call hands it, and a nil one classifies nothing.
//     Quiet when the
//     error's type, code or text is read anywhere in the retried region
//     (errors.Is/As, a type switch, err.Error(), a helper handed the
//     error; a string compared counts unless it is fixed for the whole
//     retry, a parameter or field the region never assigns, and tested
//     before the status: if contentType != "" sets a header and reads no
//     answer, while if method != "PUT" inside the 404 branch splits the
//     codes by request kind), when the status decision names or gives up on any failing
//     code, when only transport errors are retried, when a library
//     classifier is set (RetryIf, CheckRetry, backoff.Permanent), and for
//     SDK and client retries, which classify for themselves. Once per
//     layer, at the layer.
//   - A classifier that stops retrying both 429 and 5xx, handed to a
//     client or SDK whose default retries them: a retryablehttp CheckRetry
//     that never retries a response (`return err != nil, nil`: connection
//     errors only) or gives up on 429 and every 5xx, and an aws-sdk-go-v2
//     Retryer whose IsErrorRetryable override neither hands the error on
//     (to the wrapped Retryer, retry.DefaultRetryables) nor names
//     throttling or 5xx, or returns false in branches that test both. A
//     throttled or failing request then fails at once. Giving up on only
//     one of the two is a policy and is quiet.
//   - A classifier's verdict read the wrong way round: a function that
//     returns (retry bool, err error), true for 5xx with the error set
//     (every return that may be true carries a non-nil error), whose
//     first result a caller reads as success: `ok, err := r.Check(code)`,
//     `if !ok { return false, err }`, then `return true, nil`. On a 5xx or
//     a 429 the error is dropped and the caller returns none, so the
//     failure counts as done and nothing retries it. Quiet when the error
//     is read where the verdict is true too (handed on, wrapped, tested
//     first), inside a retry (dropping it to go round again is right),
//     when a later return gives an error of its own, and for a success
//     verdict (true with a nil error).
//   - A circuit breaker that counts the caller's cancellation as a failure
//     of the dependency (category breaker-counts-cancel), built in the
//     package and running a remote call on the caller's context (a
//     context parameter, one derived from it, or the request's): a
//     sony/gobreaker (v1 or v2) breaker whose Settings set neither
//     IsSuccessful nor IsExcluded; a failsafe-go breaker whose builder sets
//     no Handle condition (it opens after 1 failure by default); a
//     go-resiliency breaker (it counts every error of its work);
//     hystrix.Do or Go, which give hystrix no context, so a cancelled
//     request comes back wrapped (*url.Error) and counts; a mercari breaker
//     whose Do is given another context than the one the operation runs
//     on. Callers that give up fail healthy calls, and a few open the
//     breaker for every caller. The finding names the breaker, the
//     context, where it is built, and when it opens (the library's
//     default, or the failures its settings name); the fixes add an
//     IsExcluded (v1: IsSuccessful) or a failsafe-go HandleIf that leaves
//     out context.Canceled and context.DeadlineExceeded, or give mercari's
//     Do the caller's context. Quiet when a condition is set (a classifier
//     that counts only transient failures is the point of one), when the
//     operation tells context errors apart itself (it names them or asks
//     ctx.Err(), or a function of the package it calls does), for hystrix
//     DoC/GoC and mercari given the caller's context (they leave its end
//     out), mercari told to count it (WithFailOnContextCancel(true)), an
//     operation on a context of its own or with no remote call, and
//     settings that come from elsewhere. A hand-rolled breaker is read too:
//     a struct field counting failures (incremented, or a window of
//     failure times appended to) that is reset or trimmed, compared with a
//     bound in a branch that opens a state or returns, and read by a gate
//     that turns later calls away (in another function, or before the
//     call); the finding is at the count in the error branch of a remote
//     call on the caller's context, when neither that function nor the
//     counting method tells context errors apart. A retry's own attempt
//     counter (compared after the failure it counts) and error metrics
//     stay quiet. A breaker may be built by a constructor of another
//     package (a fact carries what it counts), and its operation may be
//     the next stage of a middleware chain (a function value handed the
//     caller's context, next(ctx, req)) rather than a call seen to leave
//     the process: a breaker is put in front of a dependency. A hystrix
//     command named by a variable is configured elsewhere: what it counts
//     is known, when it opens is not. Breakers handed to a library's
//     middleware (go-kit's circuitbreaker.Gobreaker(cb)) are not read yet.
//   - A retry of overload answers with no wait (category no-wait): a
//     loop or a retry by recursion whose classifier retries 429 or a 5xx
//     and goes round again with no wait on that status's way (no sleep or
//     timer, no channel receive or select, no Wait method, no helper of
//     the package that does one). The decision walk follows each status:
//     a 429 case that sleeps beside a 5xx case that continues at once
//     leaves the 5xx bare, while a wait under a condition the status does
//     not decide (if attempt > 0 { sleep }) counts on every path. A
//     recursion is reported at its call of itself. A dependency that
//     answered that it is overloaded or limiting gets the attempts again
//     within milliseconds, from every client that got the same answer.
//     Quiet for conflict retries, stale connections and other answers
//     that are no overload, and for a single attempt.
//   - A retry of server errors that gives up on the first error of the
//     send itself (category transport-error-not-retried): the retry
//     retries 502 or 504 (a proxy's words for a backend it could not
//     reach), and right after resp, err := client.Do(req) the branch
//     `if err != nil` leaves without reading the error (in a go-retry
//     closure, a bare return that is not a RetryableError). A refused or
//     reset connection, or an EOF from a server that restarted, then
//     fails at once with the attempts unused, while the 502 a proxy
//     answers for the same restart is retried (the OTLP exporter's fix
//     5ec67e83). A list of transient answers, 429 and 503, counts as
//     well: a collector that restarts refuses connections before a load
//     balancer answers 503 for it. Quiet when the branch reads the error
//     (errors.Is or As, a type assertion or switch, a method of it, a
//     helper handed it), when it goes round again, when the library
//     retries what it returns, when only 503 or 500 is retried, and when
//     the loop goes round on the error's code in the body rather than on
//     the status (it retries that class, whatever status it came with).
//   - A circuit breaker that a retry runs once per attempt, when one
//     request's attempts are enough failures in a row to open it
//     (category breaker-in-retry): the retry's known attempts are at
//     least the failures in a row that open the breaker (gobreaker's
//     default: more than 5, or a ReadyToTrip literal that returns
//     counts.ConsecutiveFailures > K or >= K; failsafe-go's 1 or its
//     WithFailureThreshold; mercari's 10 or its threshold trip function;
//     go-resiliency's errorThreshold), or the retry has no bound
//     on its attempts. The Execute is the retried operation itself, in a
//     closure held in a local that the retried code calls, or in a
//     function of the package the retried operation calls; a failsafe-go
//     retry policy composed outside the breaker in one executor
//     (failsafe.With(retryPolicy, breaker), or a Compose after it) counts
//     the same. The breaker's Settings may come from a function, of this
//     package or (through its fact) of another. One caller
//     whose request keeps failing then switches the dependency off for
//     every caller. The finding names the retry, the attempts and the
//     breaker's threshold; the fix is to run the retry inside Execute, so
//     that a request counts once, or to raise the threshold. Quiet when
//     the retry runs inside Execute, when its attempts are fewer than the
//     failures that open the breaker (each attempt counting is a design
//     choice, resilience4j's default order), and when either number is
//     not known (a ReadyToTrip on ratios or totals).
//   - A retry whose operation opens a stream and hands it on unread
//     (category stream-error): a remote call in the retried region returns
//     a stream (a value with Recv() (T, error), or Next() bool and
//     Err() error: go-openai's CreateChatCompletionStream, openai-go's and
//     anthropic-sdk-go's ssestream.Stream, a generated gRPC client stream)
//     that the region neither reads nor hands to a function, and returns
//     it or keeps it for after the loop; also the operation handed to a
//     retry library or a project's retry helper whose stream comes out as
//     the helper's result (stream, err := retry.Do(ctx, func() (*S, error)
//     { return c.CreateChatCompletionStream(ctx, req) })) and is read
//     after it. Errors that arrive after the 200 (an error event, a
//     connection dropped mid-answer) then reach a Recv that nothing
//     retries. Quiet when the region reads the stream, when a caller in
//     the package opens it inside a retry of its own, and when an exported
//     function returns it (other packages' callers may retry it). Quiet
//     too for a session (a stream that also has Send(m) error: a gRPC
//     bidirectional or client stream such as etcd's Watch): its open
//     carries no request, so the retry covers only the connection, and
//     the answers to what is sent later are the session's to reopen.
//   - A retry loop that goes round again with the failed attempt's HTTP
//     response unclosed (category dropped-response): net/http returns a
//     connection to its pool only once the body is closed or read to EOF,
//     so while the dependency keeps failing every retry opens another
//     connection and one call holds up to one per attempt (the last is
//     not counted when the code after the loop gets it). The send is
//     net/http's own (Client.Do/Get/Post/PostForm, a RoundTrip) or a
//     method of an interface shaped Do(*http.Request) (*http.Response,
//     error), or a function of the package that hands back such a send's
//     response without touching its body (a wrapper that sets headers or
//     keeps the exchange for debugging); the path to the next attempt (a
//     continue, or the end of the body) is one on which the send may have
//     succeeded and the response is only read for its status, header or
//     other fields, here or in a classifier of the package handed it, or
//     dumped (httputil.DumpResponse) or printed. Quiet when the body is
//     closed, read or mentioned at all on the way, when the response is
//     handed to any other function, returned or stored, when the previous attempt's
//     response is closed before the next send, and for failed sends (a nil
//     response). A defer resp.Body.Close() in the loop body is quiet too,
//     though it holds every connection until the function returns. The fix
//     closes the body at the top of the branch that continues.
//
// Off by default, with -retrylog (the analyzer flag
// -retrystatus.retrylog, the golangci-lint plugin's retrylog setting):
//
//   - A retry decision nobody can see: a hand-rolled retry loop, or a
//     retry-go / cenkalti/backoff / failsafe-go call, that goes round
//     again without a log line, a metric or a trace event in its retried
//     region (or in a function of the package it calls), and without the
//     hook the library offers (retry.OnRetry, backoff.RetryNotify,
//     backoff.WithNotify, a failsafe-go retry policy's OnRetry,
//     OnRetryScheduled or OnFailure).
//     Quiet when anything on the way logs (log, slog, zap, zerolog,
//     logrus, klog, logr, fmt's Print family, a Warnf or Infof on the
//     project's own logger), counts or traces (Prometheus, OpenTelemetry,
//     statsd, expvar), or calls a hook (onRetry, notify); options passed
//     on as opts... may hold a hook and are quiet too. Clients and SDKs
//     that retry inside are not reported.
//
// A classifier may return a tuple: in `retry, delay, err := classify(err)`
// the first result is the decision. A bool variable the classifier assigns
// more than once (retry := code/100 == 5; ...; retry = true) is followed
// along each path, and code/100 == K tests the class of the code.
//
// A code is reported only when the decision names it: an == comparison,
// a case, a set or list, or a range check from a 4xx code (code >= 400).
// A loop that retries everything but 200 names no code.
//
// 408, 425, 429 after the body's code or type was read, network errors
// and timeouts, and code >= 500 are fine. Conditions that decide no retry
// (handlers writing 5xx, metrics, logs, tests) are never reported, and
// neither are retries in testable examples (func ExampleXxx in a _test.go
// file): they are documentation.
//
// A classifier function declared in one package and used by a retry in
// another travels as a fact; it is reported at its definition when its own
// package uses it to decide a retry, else at the use site, with the
// definition's position in the message.
//
// Bad:
//
//	for attempt := 0; attempt < 4; attempt++ {
//		resp, err := http.Get(url)
//		if err != nil {
//			return nil, err
//		}
//		if resp.StatusCode == 502 || resp.StatusCode == 503 {
//			time.Sleep(time.Second)
//			continue
//		}
//		return resp, nil
//	}
//
// Good:
//
//	if resp.StatusCode >= 500 {
//		time.Sleep(time.Second)
//		continue
//	}
package retrystatus
