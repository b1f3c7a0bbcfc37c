// Package backoff is a home-grown package with the same names as
// cenkalti/backoff: its calls are not library layers (loop detection may
// still see its loops).
package backoff

import "time"

type BackOff interface{ NextBackOff() time.Duration }

type Constant struct{ D time.Duration }

func (c Constant) NextBackOff() time.Duration { return c.D }

func Retry(op func() error, b BackOff) error { return op() }
