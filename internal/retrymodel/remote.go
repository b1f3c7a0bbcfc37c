package retrymodel

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// isRemoteCall reports whether call sends a request to another service:
// net/http client calls, a RoundTripper, gRPC client calls, Kubernetes
// API calls. SDK and retrying-client calls are layers and count as remote
// through Layer.Remote.
func isRemoteCall(info *types.Info, call *ast.CallExpr) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Pkg() == nil {
		return false
	}
	path, name := fn.Pkg().Path(), fn.Name()
	recv := recvName(fn)
	switch path {
	case "net/http":
		switch recv {
		case "Client":
			return name == "Do" || name == "Get" || name == "Post" || name == "Head" || name == "PostForm"
		case "Transport", "RoundTripper":
			return name == "RoundTrip"
		case "":
			return name == "Get" || name == "Post" || name == "Head" || name == "PostForm"
		}
		return false
	case "google.golang.org/grpc":
		return recv == "ClientConn" && (name == "Invoke" || name == "NewStream") ||
			recv == "ClientConnInterface" && (name == "Invoke" || name == "NewStream")
	}
	if strings.HasPrefix(path, "k8s.io/client-go/kubernetes/typed/") || strings.HasPrefix(path, "k8s.io/client-go/dynamic") {
		return takesContext(fn)
	}
	// Generated gRPC clients: a method whose last parameter is ...grpc.CallOption.
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Variadic() && sig.Recv() != nil {
		last := sig.Params().At(sig.Params().Len() - 1).Type()
		if sl, ok := last.(*types.Slice); ok {
			if named, ok := sl.Elem().(*types.Named); ok && named.Obj().Pkg() != nil &&
				named.Obj().Pkg().Path() == "google.golang.org/grpc" && named.Obj().Name() == "CallOption" {
				return true
			}
		}
	}
	return false
}

// recvName returns the name of fn's receiver type ("" for functions).
func recvName(fn *types.Func) string {
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
