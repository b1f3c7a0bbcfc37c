package retrymodel

import (
	"go/types"
	"strings"
	"time"

	"github.com/retryvet/retryvet/internal/values"
)

// FullFuncName names a function the way the census and the values file do:
// its package path and its name, example.com/svc/llm.(*Client).ask.
func FullFuncName(fn *types.Func) string {
	if fn == nil || fn.Pkg() == nil {
		return funcName(fn)
	}
	fn = fn.Origin()
	return fn.Pkg().Path() + "." + strings.TrimPrefix(funcName(fn), fn.Pkg().Name()+".")
}

// ValuesP99 returns the p99 the values file (or -set) gives for fn's remote
// call, and its source (".retryvet.yml:3"). A //retryvet:p99 directive on
// the function wins over it; callers check the directive first.
func ValuesP99(fn *types.Func) (time.Duration, string, bool) {
	if fn == nil {
		return 0, "", false
	}
	e := values.Current().P99(FullFuncName(fn))
	if e == nil {
		return 0, "", false
	}
	e.MarkUsed()
	return e.Dur, e.Source(), true
}

// ValuesError is the error of reading the values file (a malformed
// .retryvet.yml), or nil; run returns it, so every analyzer fails with it.
func ValuesError() error {
	_, err := values.Active()
	return err
}
