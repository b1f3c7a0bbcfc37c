// Package crosspkg reaches the other packages' retries through facts: the
// findings here need what the analyzers learned of census and double.
package crosspkg

import (
	"context"
	"time"

	"example.com/suite/census"
	"example.com/suite/double"
)

// Serve gives census.Complete 3s; its retry needs 87s.
func Serve() error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return census.Complete(ctx)
}

// Twice retries double.Fetch, which is a retry loop around a retrying
// client already.
func Twice(url string) error {
	var err error
	for i := 0; i < 2; i++ {
		resp, ferr := double.Fetch(url)
		if ferr == nil {
			return resp.Body.Close()
		}
		err = ferr
		time.Sleep(time.Second)
	}
	return err
}
