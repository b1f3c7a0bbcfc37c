// Package classify holds a status classifier used by a retry in another
// package: it retries 5xx and gives up on 429.
package classify

import "net/http"

// Retryable says whether a status is worth another attempt of the same
// request.
func Retryable(code int) bool {
	switch code {
	case 500, 502, 503, 504:
		return true
	case 408:
		return true
	case http.StatusTooManyRequests: // skip to the next model
		return false
	default:
		return false
	}
}

// Transient retries 429 and 5xx.
func Transient(code int) bool {
	return code == http.StatusTooManyRequests || code >= 500
}
