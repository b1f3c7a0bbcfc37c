// Package pure imports neither time, context nor net, directly or through
// its imports, and holds a retry helper all the same: a package outside
// the standard library is always read, whatever it imports.
package pure

import "errors"

var errGaveUp = errors.New("gave up")

// Do runs fn until it succeeds, n times at most, with no wait.
func Do(n int, fn func() error) error { // want Do:`^reaches retry loop; retries param 1$`
	for i := 0; i < n; i++ {
		if err := fn(); err == nil {
			return nil
		}
	}
	return errGaveUp
}
