package shapes

import (
	"math/rand/v2"
	"time"

	"github.com/elastic/go-elasticsearch/v8"
)

// Retry policies given as data: the layer is the config literal, its
// attempts MaxRetries+1 (0: the default 3 retries), its waits
// RetryBackoff(1), RetryBackoff(2), ... in a select on the request's
// context, or none at all without a RetryBackoff.

func esLinear() (*elasticsearch.Client, error) {
	return elasticsearch.NewClient(elasticsearch.Config{ // want `elasticsearch.Config: attempts=3 waits=100ms,200ms jitter=no deadline=yes cancellable=yes retryafter=no`
		RetryOnStatus: []int{429, 502, 503, 504},
		MaxRetries:    2,
		RetryBackoff:  func(i int) time.Duration { return time.Duration(i) * 100 * time.Millisecond },
	})
}

func esJittered() (*elasticsearch.Client, error) {
	return elasticsearch.NewClient(elasticsearch.Config{ // want `elasticsearch.Config: attempts=4 jitter=yes deadline=yes cancellable=yes retryafter=no`
		RetryBackoff: func(i int) time.Duration { return time.Duration(rand.IntN(i*100)) * time.Millisecond },
	})
}

func esAtOnce() (*elasticsearch.Client, error) {
	return elasticsearch.NewClient(elasticsearch.Config{ // want `elasticsearch.Config: attempts=6 waits=0s,0s,0s,0s,0s jitter=no deadline=unknown cancellable=unknown retryafter=no`
		MaxRetries: 5,
	})
}

// No layer: retries off, or no retry field written (the defaults).
func esOff() (*elasticsearch.Client, error) {
	return elasticsearch.NewClient(elasticsearch.Config{DisableRetry: true, MaxRetries: 5})
}

func esDefaults() (*elasticsearch.Client, error) {
	return elasticsearch.NewClient(elasticsearch.Config{Addresses: []string{"http://es:9200"}})
}
