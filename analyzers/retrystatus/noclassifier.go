package retrystatus

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// noClassifier reports a remote HTTP or SDK retry that has no classifier
// at all: every failure is retried, so a 400, 401, 403 or 413, which fails
// the same way on every attempt, is sent again and again. Two shapes:
//
//   - an SDK call (openai, anthropic, aws-sdk-go-v2) whose error is retried
//     without being read: the SDK returns every 4xx as an error;
//   - a net/http request whose status is tested only for success, every
//     other status retried (no code named, none given up on).
//
// Quiet when the error's type, code or text is read anywhere in the
// retried region (errors.Is, errors.As, a type switch, err.Error(), a
// helper handed the error), when a library classifier is configured
// (RetryIf, CheckRetry, backoff.Permanent), and for layers that are not
// hand-rolled loops or retry libraries (SDKs and retrying clients classify
// for themselves). One finding per layer, at the layer.
func (ck *checker) noClassifier(l *retrymodel.Layer, ds []*decision) {
	if l.Kind != retrymodel.Loop && l.Kind != retrymodel.Library || l.Remote != retrymodel.Yes {
		return
	}
	if n, ok := l.Attempts(); ok && n < 2 {
		return
	}
	if strings.HasSuffix(ck.pass.Fset.Position(l.Pos).Filename, "_test.go") {
		return // a test retrying its own fixture
	}
	pol := &l.Policy
	if pol.Classifier != nil || pol.ClassifierFunc != nil {
		return
	}
	region := l.Body
	if region == nil {
		return
	}
	if ck.readsError(region) {
		return
	}
	sdk, httpOp := ck.remoteOps(l)
	known := false
	if sdk == "" && httpOp == "" {
		// The request is made by a function the loop calls, which turns
		// the status into the error the loop retries.
		var opDs []*decision
		opDs, httpOp, known = ck.opStatus(l)
		if httpOp != "" {
			ds = opDs
		}
	}
	if sdk == "" && httpOp == "" {
		// A gRPC retry with one extra attempt wastes one call on a
		// permanent code, and one with no bound is a wait for the
		// service (a worker fetching its commands), not a request's retry.
		a := l.Policy.Attempts
		if rpc := ck.grpcOp(l); rpc != "" {
			if a.Known && (a.N == 0 || a.N < 3) {
				return
			}
			ck.reportNoClassifier(l, fmt.Sprintf("retry without a classifier: %s retries every error of %s whatever its code, so codes.InvalidArgument, FailedPrecondition, PermissionDenied and Unauthenticated (a bad request, a state no retry changes, no permission, a bad credential) are sent again and fail the same way %s; retry only Unavailable, ResourceExhausted and Aborted (DeadlineExceeded where the call is idempotent) and give up on the rest",
				describeLayer(l), rpc, eachAttempt(l)))
			return
		}
		// The loop tests the HTTP status of the answer a remote operation
		// of another function returns (r.Code of its own response type).
		if len(ds) > 0 && !namesGRPC(ds[0].atoms) {
			httpOp = ck.remoteOp(l)
		}
	}
	var what string
	switch {
	case sdk != "":
		// Every error is retried and no decision reads a status.
		for _, d := range ds {
			if d.namesFailure() || d.anyFailureStopped() {
				return
			}
		}
		what = fmt.Sprintf("%s retries every error of %s, and the SDK returns every 4xx as an error", describeLayer(l), sdk)
	case httpOp != "":
		if a := l.Policy.Attempts; a.Known && a.N == 0 {
			// No bound at all: a worker waiting for its service (a
			// registration, a heartbeat until the server answers), as
			// for gRPC, not a request's retry.
			return
		}
		// Statuses are tested, but only for success: every failing status
		// is retried and none is named.
		if !known && !everyFailureRetried(ds) {
			return
		}
		if known && l.Kind == retrymodel.Library && ck.returnsFreshError(l.Body) {
			// The operation hands on the summarised error and asks for
			// another attempt with one of its own making as well
			// (fmt.Errorf("change %s not complete yet")): it polls a
			// state, and its other errors ride along. (A closure that
			// tests the status itself is walked above, not here: its
			// fresh error for a bad status is a retried failure.)
			return
		}
		what = fmt.Sprintf("%s retries every status of %s but success", describeLayer(l), httpOp)
	default:
		return
	}
	ck.reportNoClassifier(l, fmt.Sprintf("retry without a classifier: %s, so 400, 401, 403 and 413 (a bad request, a bad key, no permission, too large an input) are retried and fail the same way %s; retry only 408, 429, 5xx and network errors, and give up on the rest",
		what, eachAttempt(l)))
}

// everyFailureRetried reports decisions that test statuses only for
// success: every permanent code is retried without reading the error, and
// no failing code is named or given up on.
func everyFailureRetried(ds []*decision) bool {
	if len(ds) == 0 {
		return false
	}
	for _, d := range ds {
		if d.namesFailure() || d.anyFailureStopped() {
			return false
		}
		for _, c := range permanent {
			if isGRPC(c) {
				continue // an HTTP status test says nothing of gRPC codes
			}
			if !d.retried[c] || !d.blind[c] {
				return false
			}
		}
	}
	return true
}

// remoteOp names the first operation of a layer that leaves the process.
func (ck *checker) remoteOp(l *retrymodel.Layer) string {
	for _, call := range l.Ops {
		if fn, _ := typeutil.Callee(ck.info, call).(*types.Func); fn != nil && ck.res.Remote(call) {
			return retrymodel.FuncName(fn)
		}
	}
	return ""
}

// returnsFreshError reports a retried operation that returns an error of
// its own making (the model's FreshError), not only ones it got.
func (ck *checker) returnsFreshError(body ast.Node) bool {
	if body == nil {
		return false
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok && n != body || found {
			return false
		}
		if ret, ok := n.(*ast.ReturnStmt); ok && len(ret.Results) > 0 {
			last := ret.Results[len(ret.Results)-1]
			found = !isNilExpr(ck.info, last) && ck.res.FreshError(last)
		}
		return !found
	})
	return found
}

// eachAttempt says how often a retried failure repeats: "on each of 4 attempts".
func eachAttempt(l *retrymodel.Layer) string {
	if n, ok := l.Attempts(); ok {
		return fmt.Sprintf("on each of %d attempts", n)
	}
	return "on every attempt"
}

func (ck *checker) reportNoClassifier(l *retrymodel.Layer, msg string) {
	key := fmt.Sprintf("%d/noclassifier", l.Pos)
	if ck.reported[key] {
		return
	}
	ck.reported[key] = true
	ck.pass.Reportf(l.Pos, "%s", msg)
}

// grpcOp names a unary gRPC client method the layer's region calls
// (Service.Method(ctx, *Req, ...grpc.CallOption) (*Resp, error)), also in
// a function literal the region hands to a call (not to go or defer). A
// method opening a stream is not one: a reconnect retries every error.
func (ck *checker) grpcOp(l *retrymodel.Layer) string {
	if l.Body == nil {
		return ""
	}
	var name string
	ast.Inspect(l.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt, *ast.DeferStmt:
			return false
		case *ast.CallExpr:
			if fn, _ := typeutil.Callee(ck.info, n).(*types.Func); fn != nil && retrymodel.UnaryRPC(fn) {
				name = retrymodel.FuncName(fn)
			}
		}
		return name == ""
	})
	return name
}

func describeLayer(l *retrymodel.Layer) string {
	if l.Name != "" {
		return l.Name
	}
	return l.Kind.String()
}

// namesFailure reports whether a decision names a failing code (a test
// against 200 alone names none).
func (d *decision) namesFailure() bool {
	for _, a := range d.atoms {
		for _, c := range universe {
			if c >= 400 && (a.lists(c) || a.covers(c)) {
				return true
			}
		}
	}
	return false
}

// anyFailureStopped reports whether a decision gives up on some failing
// status: then it classifies, however coarsely.
func (d *decision) anyFailureStopped() bool {
	for c, stop := range d.stopped {
		if stop && c >= 400 {
			return true
		}
	}
	return false
}

// remoteOps names the layer's SDK call (first) or net/http request, if
// any, among its operations and the calls of its retried region.
func (ck *checker) remoteOps(l *retrymodel.Layer) (sdk, httpOp string) {
	calls := append([]*ast.CallExpr(nil), l.Ops...)
	if l.Body != nil {
		ast.Inspect(l.Body, func(n ast.Node) bool {
			if _, ok := n.(*ast.FuncLit); ok && n != l.Body {
				return false
			}
			if call, ok := n.(*ast.CallExpr); ok {
				calls = append(calls, call)
			}
			return true
		})
	}
	for _, call := range calls {
		fn, _ := typeutil.Callee(ck.info, call).(*types.Func)
		if fn == nil || fn.Pkg() == nil {
			continue
		}
		path := fn.Pkg().Path()
		switch {
		case statusErrorSDK(path):
			// A request's method (not a stream's Close or Recv): a
			// method whose last result is an error, that leaves the process.
			if sig := fn.Type().(*types.Signature); sig.Recv() != nil && sig.Results().Len() > 0 &&
				types.Identical(sig.Results().At(sig.Results().Len()-1).Type(), errorType) && ck.res.Remote(call) {
				if sdk == "" {
					sdk = retrymodel.FuncName(fn)
				}
			}
		case path == "net/http" && (fn.Name() == "Do" || fn.Name() == "Get" || fn.Name() == "Post" || fn.Name() == "PostForm" || fn.Name() == "Head"):
			if recv := fn.Type().(*types.Signature).Recv(); recv != nil && !isHTTPClient(recv.Type()) {
				continue // resp.Header.Get: no request
			}
			if httpOp == "" {
				httpOp = "http." + fn.Name()
				if fn.Type().(*types.Signature).Recv() != nil {
					httpOp = "http.Client." + fn.Name()
				}
			}
		}
	}
	return sdk, httpOp
}

// isHTTPClient reports *http.Client.
func isHTTPClient(t types.Type) bool {
	p, ok := t.(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "net/http" && n.Obj().Name() == "Client"
}

// statusErrorSDKs are the client packages (by path prefix) whose methods
// come back with an error for every 4xx, the status inside it (openai-go
// and anthropic-sdk-go's apierror.Error, go-openai's APIError and
// RequestError, smithy's ResponseError under aws-sdk-go-v2): a retry that
// never reads the error retries them all.
var statusErrorSDKs = []string{
	"github.com/openai/openai-go",
	"github.com/anthropics/anthropic-sdk-go",
	"github.com/sashabaranov/go-openai",
	"github.com/aws/aws-sdk-go-v2/service/",
}

func statusErrorSDK(path string) bool {
	for _, p := range statusErrorSDKs {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

var errorType = types.Universe.Lookup("error").Type()

// readsError reports whether a region looks into an error: errors.Is or
// errors.As, a type assertion or switch on one, a method call on one
// (err.Error()), a comparison with anything but nil, or a call that is
// handed one and is not a log (a logging package's function or a
// logger's method, zap.Error's field too), format or wrap (a classifier
// helper).
func (ck *checker) readsError(region ast.Node) bool {
	isErr := func(e ast.Expr) bool {
		t := ck.info.TypeOf(e)
		return t != nil && types.Implements(t, errorType.Underlying().(*types.Interface)) && !isNilExpr(ck.info, e)
	}
	found := false
	ast.Inspect(region, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.TypeAssertExpr:
			found = isErr(n.X)
		case *ast.BinaryExpr:
			if (n.Op == token.EQL || n.Op == token.NEQ) && !isNilExpr(ck.info, n.X) && !isNilExpr(ck.info, n.Y) {
				found = isErr(n.X) || isErr(n.Y)
			}
		case *ast.SelectorExpr:
			if sel, ok := ck.info.Selections[n]; ok && sel.Kind() == types.MethodVal && isErr(n.X) {
				found = true
			}
		case *ast.CallExpr:
			fn, _ := typeutil.Callee(ck.info, n).(*types.Func)
			hasErrArg := false
			for _, a := range n.Args {
				if isErr(a) {
					hasErrArg = true
				}
			}
			if !hasErrArg {
				return true
			}
			if sig, ok := ck.info.TypeOf(n.Fun).(*types.Signature); ok && sig.Results().Len() == 0 {
				// c.notifyFailure(msgs, err), c.errorf(...): a call that
				// answers nothing decides nothing about the retry.
				return true
			}
			if fn == nil {
				found = true // a function value handed the error: may classify
				return false
			}
			if fn.Pkg() == nil {
				return true
			}
			switch path := fn.Pkg().Path(); {
			case path == "errors":
				found = fn.Name() == "Is" || fn.Name() == "As"
			case path == "fmt", path == "testing", retrymodel.LogPackage(path):
				// a log call, or a field for one (zap.Error(err)): it
				// formats the error and decides nothing
			case strings.HasPrefix(path, "github.com/cenkalti/backoff"), strings.HasPrefix(path, "github.com/avast/retry-go"),
				path == "github.com/sethvargo/go-retry":
				// backoff.Permanent, retry.Unrecoverable, retry.RetryableError:
				// a choice, which only a condition around it makes.
			default:
				if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil && isLogger(sig.Recv().Type()) {
					return true
				}
				found = true
			}
		}
		return !found
	})
	return found
}

func isNilExpr(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[astutil.Unparen(e)]
	return ok && tv.IsNil()
}

// isLogger reports a logger's receiver (a method named like a log call on
// a type named Logger).
func isLogger(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && strings.Contains(strings.ToLower(n.Obj().Name()), "log")
}
