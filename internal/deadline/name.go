package deadline

import (
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// FuncName renders an SSA function with its package path, the way the
// census names functions: example.com/svc/llm.(*Client).Complete,
// example.com/svc/batch.Run$1 for a closure, generic instances by their
// origin.
func FuncName(fn *ssa.Function) string {
	if o := fn.Origin(); o != nil {
		fn = o
	}
	top := fn
	for top.Parent() != nil {
		top = top.Parent()
	}
	suffix := ""
	if top != fn {
		suffix = strings.TrimPrefix(fn.Name(), top.Name())
	}
	if obj, ok := top.Object().(*types.Func); ok && obj.Pkg() != nil {
		return obj.Pkg().Path() + "." + strings.TrimPrefix(retrymodel.FuncName(obj), obj.Pkg().Name()+".") + suffix
	}
	return fn.String()
}

// ShortFuncName renders an SSA function the way messages do:
// llm.(*Client).Complete, batch.Run$1.
func ShortFuncName(fn *ssa.Function) string {
	if o := fn.Origin(); o != nil {
		fn = o
	}
	top := fn
	for top.Parent() != nil {
		top = top.Parent()
	}
	suffix := ""
	if top != fn {
		suffix = strings.TrimPrefix(fn.Name(), top.Name())
	}
	if obj, ok := top.Object().(*types.Func); ok && obj.Pkg() != nil {
		return retrymodel.FuncName(obj) + suffix
	}
	return fn.Name()
}
