package cancelsrc

import "time"

// A test replaces the sleeps; production code still sleeps through them.
func fastRetrier() *Retrier {
	r := NewRetrier(nil)
	r.sleep = func(time.Duration) {}
	return r
}

func init() { pause = func(time.Duration) {} }
