package retrymodel

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// isRemoteCall reports whether call leaves the process by itself: the
// primitives every remote call comes down to. Whatever else is remote is
// so because it reaches one of these, through any number of functions and
// packages (FuncFact.Remote; an interface call through the implementations
// it can run, iface.go), so a client library needs no entry here unless its
// API is reached only through interfaces (a generated gRPC client, a
// Kubernetes typed client, redis.Cmdable, sarama.SyncProducer).
func isRemoteCall(info *types.Info, call *ast.CallExpr) bool {
	switch callee := typeutil.Callee(info, call).(type) {
	case *types.Func:
		return remotePrimitive(callee)
	case *types.Var:
		// A func value shaped func(*http.Request) (*http.Response, error):
		// a handler chain built from Client.Do and middlewares (the
		// Stainless SDKs' handler := cfg.HTTPClient.Do), called like Do.
		return doShapedValue(callee)
	}
	return false
}

// doShapedValue reports a func value shaped like http.Client.Do.
func doShapedValue(v *types.Var) bool {
	sig, ok := v.Type().Underlying().(*types.Signature)
	return ok && doShaped(sig)
}

// doShaped reports a signature that takes an *http.Request and returns an
// *http.Response and an error, as http.Client.Do.
func doShaped(sig *types.Signature) bool {
	if sig.Params().Len() != 1 || sig.Results().Len() != 2 || !isErrorType(sig.Results().At(1).Type()) {
		return false
	}
	in, ok := sig.Params().At(0).Type().(*types.Pointer)
	out, ok2 := sig.Results().At(0).Type().(*types.Pointer)
	return ok && ok2 && namedIs(in.Elem(), "net/http", "Request") && namedIs(out.Elem(), "net/http", "Response")
}

// remotePrimitive reports whether a call of fn leaves the process:
//   - a network connection's I/O and dial: net.Dial*, (*net.Dialer).Dial*,
//     Read/Write of a net.Conn and of the net and crypto/tls connections,
//     tls.Dial*, a TLS handshake;
//   - an HTTP request (net/http Client.Do/Get/Post/Head/PostForm, the
//     package functions, a RoundTripper's RoundTrip, a method of any
//     interface shaped Do(*http.Request) (*http.Response, error): httpDoer);
//   - a gRPC call (ClientConn Invoke/NewStream, a generated client's
//     method: a method whose last parameter is ...grpc.CallOption);
//   - a database driver's conversation (database/sql/driver's connection,
//     statement and transaction methods: database/sql reaches them, and
//     the packages above it reach database/sql);
//   - a method taking a context.Context first of a client package whose
//     API is interfaces or whose transport is hidden behind them
//     (remoteClientPkgs: Kubernetes, etcd, Redis, Kafka, pgx), and the
//     context-free request calls of sarama and gocql.
func remotePrimitive(fn *types.Func) bool {
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	path, name, recv := fn.Pkg().Path(), fn.Name(), RecvName(fn)
	switch path {
	case "net":
		switch recv {
		case "":
			return strings.HasPrefix(name, "Dial") && name != "DialUnix"
		case "Dialer":
			return strings.HasPrefix(name, "Dial")
		case "Conn", "TCPConn", "UDPConn", "IPConn":
			return strings.HasPrefix(name, "Read") || strings.HasPrefix(name, "Write")
		}
		return false
	case "crypto/tls":
		switch recv {
		case "", "Dialer":
			return strings.HasPrefix(name, "Dial")
		case "Conn":
			return name == "Read" || name == "Write" || strings.HasPrefix(name, "Handshake")
		}
		return false
	case "net/http":
		return NetHTTPSend(fn)
	case "google.golang.org/grpc":
		return (recv == "ClientConn" || recv == "ClientConnInterface") && (name == "Invoke" || name == "NewStream")
	case "database/sql/driver":
		switch name {
		case "Open", "OpenConnector", "Connect", "Prepare", "PrepareContext", "Begin", "BeginTx", "Ping",
			"Exec", "ExecContext", "Query", "QueryContext", "Commit", "Rollback", "Next", "ResetSession":
			return recv != ""
		}
		return false
	case "github.com/IBM/sarama", "github.com/Shopify/sarama":
		switch recv {
		case "SyncProducer", "Broker", "ClusterAdmin", "Client":
			return recv != "Client" || strings.HasPrefix(name, "Refresh")
		}
		return false
	case "github.com/gocql/gocql":
		switch recv {
		case "Query":
			return strings.HasPrefix(name, "Exec") || strings.Contains(name, "Scan") || strings.HasPrefix(name, "Iter")
		case "Session":
			return strings.HasPrefix(name, "ExecuteBatch") || name == "MapExecuteBatchCAS"
		}
		return false
	}
	for _, p := range remoteClientPkgs {
		if path == p || strings.HasPrefix(path, p+"/") {
			return recv != "" && takesContext(fn)
		}
	}
	if httpDoer(fn) {
		return true
	}
	// Generated gRPC clients: a method whose last parameter is ...grpc.CallOption.
	sig, ok := fn.Type().(*types.Signature)
	return ok && grpcClientMethod(sig)
}

// grpcClientMethod reports a method whose last parameter is
// ...grpc.CallOption: a generated gRPC client's.
func grpcClientMethod(sig *types.Signature) bool {
	if !sig.Variadic() || sig.Recv() == nil {
		return false
	}
	sl, ok := sig.Params().At(sig.Params().Len() - 1).Type().(*types.Slice)
	return ok && namedIs(sl.Elem(), "google.golang.org/grpc", "CallOption")
}

// UnaryRPC reports a generated gRPC client's unary method: a context, a
// request pointer and ...grpc.CallOption in; a response pointer and an
// error out. A method opening a stream is none.
func UnaryRPC(fn *types.Func) bool {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || !grpcClientMethod(sig) || sig.Params().Len() != 3 || sig.Results().Len() != 2 {
		return false
	}
	resp, ok := sig.Results().At(0).Type().(*types.Pointer)
	if !ok {
		return false
	}
	_, isStruct := resp.Elem().Underlying().(*types.Struct)
	return isStruct && isErrorType(sig.Results().At(1).Type())
}

// httpDoer reports a method of an interface that takes an *http.Request
// and returns an *http.Response and an error: the HTTPDoer / HTTPClient
// interface a client declares so that callers can hand it an
// *http.Client (go-openai's HTTPDoer, retryablehttp-style wrappers). A
// call of it sends the request, whatever implements it. A concrete
// method of that shape is read from its own body instead.
func httpDoer(fn *types.Func) bool {
	sig, ok := fn.Type().(*types.Signature)
	return ok && sig.Recv() != nil && types.IsInterface(sig.Recv().Type()) && doShaped(sig)
}

// remoteClientPkgs are the client packages (and their subpackages) whose
// methods that take a context first talk to a server.
var remoteClientPkgs = []string{
	"k8s.io/client-go/kubernetes/typed",
	"k8s.io/client-go/dynamic",
	"go.etcd.io/etcd/client/v3",
	"github.com/redis/go-redis",
	"github.com/go-redis/redis",
	"github.com/segmentio/kafka-go",
	"github.com/twmb/franz-go/pkg/kgo",
	"github.com/jackc/pgx",
}

// portProbe reports a dial whose connection the function only closes or
// drops: it asks whether a port answers (a server still booting, an SSH
// daemon not up yet), so a loop around it waits for a state. A call of a
// function of the package whose only remote calls are such dials
// (probe(ctx, addr) error) probes too.
func (p *pkgCtx) portProbe(op *ast.CallExpr, fnNode ast.Node) bool {
	fn, _ := typeutil.Callee(p.info, op).(*types.Func)
	if fn != nil && fn.Pkg() == p.pass.Pkg {
		return p.probeFunc(fn)
	}
	if fn == nil || fn.Pkg() == nil || !strings.HasPrefix(fn.Name(), "Dial") ||
		!remotePrimitive(fn) && fn.Pkg().Path() != "golang.org/x/crypto/ssh" || fnNode == nil {
		return false
	}
	var conn *types.Var
	var lhs *ast.Ident // the assignment's own naming of conn is no use of it
	found, only := false, true
	ast.Inspect(fnNode, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || found || len(as.Rhs) != 1 || astutil.Unparen(as.Rhs[0]) != op {
			return !found
		}
		found = true
		if id, ok := as.Lhs[0].(*ast.Ident); ok && id.Name != "_" {
			conn, lhs = p.identVar(id), id
			only = conn != nil
		}
		return false
	})
	if !found || !only || conn == nil {
		return found && only
	}
	ast.Inspect(fnNode, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if sel, ok := astutil.Unparen(n.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Close" && p.varOf(sel.X) == conn {
				return false // conn.Close()
			}
		case *ast.BinaryExpr:
			if p.varOf(n.X) == conn && isNil(p.info, n.Y) || p.varOf(n.Y) == conn && isNil(p.info, n.X) {
				return false // conn != nil
			}
		case *ast.Ident:
			if n != lhs && p.info.Uses[n] == conn {
				only = false
			}
		}
		return only
	})
	return only
}

// mayLeave reports a function of the package with a call in its body
// that leaves the process or calls another function of the package.
func (p *pkgCtx) mayLeave(fn *types.Func) bool {
	decl := p.res.decls[fn.Origin()]
	if decl == nil || decl.Body == nil {
		return true
	}
	return contains(decl.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return false
		}
		callee, _ := typeutil.Callee(p.info, call).(*types.Func)
		if callee == nil {
			return isRemoteCall(p.info, call)
		}
		if callee.Pkg() == p.pass.Pkg {
			return true
		}
		ff := p.res.Func(callee)
		return isRemoteCall(p.info, call) || ff != nil && ff.Remote
	})
}

// probeFunc reports a function of the package whose remote calls are all
// port probes (dials whose connections it only closes or drops) and that
// calls nothing else that leaves the process.
func (p *pkgCtx) probeFunc(fn *types.Func) bool {
	fn = fn.Origin()
	if v, ok := p.probes[fn]; ok {
		return v
	}
	if p.probes == nil {
		p.probes = make(map[*types.Func]bool)
	}
	p.probes[fn] = false // recursion: no probe
	decl := p.res.decls[fn]
	if decl == nil || decl.Body == nil {
		return false
	}
	dials, ok := 0, true
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		call, isCall := n.(*ast.CallExpr)
		if !isCall || !ok {
			return ok
		}
		callee, _ := typeutil.Callee(p.info, call).(*types.Func)
		switch {
		case callee != nil && callee.Pkg() == p.pass.Pkg:
			// summaries are not made yet: a helper of the package counts
			// only when it probes too, or leaves the process nowhere
			// that can be seen (no call in it is remote)
			if !p.probeFunc(callee) && p.mayLeave(callee) {
				ok = false
			}
		case isRemoteCall(p.info, call) || callee != nil && callee.Pkg() != nil && callee.Pkg().Path() == "golang.org/x/crypto/ssh":
			if callee == nil || !strings.HasPrefix(callee.Name(), "Dial") || !p.portProbe(call, decl) {
				ok = false
			}
			dials++
		case callee != nil:
			if ff := p.res.Func(callee); ff != nil && ff.Remote {
				ok = false
			}
		}
		return ok
	})
	p.probes[fn] = ok && dials > 0
	return p.probes[fn]
}

// RecvName returns the name of fn's receiver type ("" for functions).
func RecvName(fn *types.Func) string {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return ""
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		return t.Obj().Name()
	case *types.Interface:
		return ""
	}
	return ""
}

// takesContext reports whether fn's first parameter is a context.Context.
func takesContext(fn *types.Func) bool {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Params().Len() == 0 {
		return false
	}
	return IsContext(sig.Params().At(0).Type())
}

// IsContext reports whether t is context.Context.
func IsContext(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
}

// UnknownPart stands, in a URL put together from constants, for a part
// that is not constant ("http://" + addr + "/v1").
const UnknownPart = "\x00"

// LoopbackURL reports whether a URL, or a host[:port] piece of one, names
// this machine (localhost, *.localhost, 127.x, ::1). Only a known host
// counts: "https://status.example.com/localhost" is a remote service, and
// a host with an UnknownPart in it is not known.
func LoopbackURL(u string) bool {
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	if at := strings.IndexByte(u, '@'); at >= 0 {
		u = u[at+1:]
	}
	var host string
	if strings.HasPrefix(u, "[") {
		end := strings.IndexByte(u, ']')
		if end < 0 {
			return false
		}
		host = u[1:end]
	} else {
		end := strings.IndexAny(u, ":/?#"+UnknownPart)
		if end < 0 {
			end = len(u)
		}
		if end < len(u) && u[end:end+1] == UnknownPart {
			return false
		}
		host = u[:end]
	}
	host = strings.ToLower(host)
	return host == "localhost" || strings.HasSuffix(host, ".localhost") || host == "::1" || strings.HasPrefix(host, "127.")
}

// DoShapedCall reports a call of a method of an interface shaped
// Do(*http.Request) (*http.Response, error), or of a func value of that
// shape: an HTTP client the caller cannot see, which reads and closes the
// request's body as http.Client.Do does.
func DoShapedCall(info *types.Info, call *ast.CallExpr) bool {
	switch callee := typeutil.Callee(info, call).(type) {
	case *types.Func:
		return httpDoer(callee)
	case *types.Var:
		return doShapedValue(callee)
	}
	return false
}

// NetHTTPSend reports a call that sends a request with net/http itself: a
// Client's (or the package's) Do, Get, Post, Head or PostForm, or a
// Transport's or RoundTripper's RoundTrip. Its contract is that a non-nil
// error comes with no response.
func NetHTTPSend(fn *types.Func) bool {
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "net/http" {
		return false
	}
	switch name := fn.Name(); RecvName(fn) {
	case "Client", "":
		return name == "Do" || name == "Get" || name == "Post" || name == "Head" || name == "PostForm"
	case "Transport", "RoundTripper":
		return name == "RoundTrip"
	}
	return false
}
