package retrymodel

import (
	"sync/atomic"
	"time"
)

// defaultP99 is the slow-end latency assumed for a remote call whose
// function carries no //retryvet:p99 directive. Zero (the default) means
// unknown: nothing is compared with a p99 that nobody declared.
var defaultP99 atomic.Int64

// SetDefaultP99 sets the p99 assumed where no //retryvet:p99 directive
// gives one. Drivers call it once, before analysis: the golangci-lint
// plugin from its `p99` setting. It is process-wide, like a flag.
func SetDefaultP99(d time.Duration) {
	if d < 0 {
		d = 0
	}
	defaultP99.Store(int64(d))
}

// DefaultP99 returns the p99 set by SetDefaultP99, or 0.
func DefaultP99() time.Duration { return time.Duration(defaultP99.Load()) }

// DefaultP99Source is how a message names the default p99 as the source
// of a number (in place of the position of a //retryvet:p99 directive).
const DefaultP99Source = "the default p99 setting"

// EffectiveP99 returns the p99 that applies to the remote call of the
// function f describes, and where it comes from: the function's own
// //retryvet:p99 directive (its position), else the default p99 (source
// DefaultP99Source), else 0 and "". f may be nil.
func (f *FuncFact) EffectiveP99() (time.Duration, string) {
	if f != nil && f.P99 > 0 {
		return f.P99, f.P99Posn
	}
	if d := DefaultP99(); d > 0 {
		return d, DefaultP99Source
	}
	return 0, ""
}
