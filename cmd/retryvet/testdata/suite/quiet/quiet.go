// Package quiet has no retry, no remote call and no deadline: every
// analyzer and the census must have nothing to say about it.
package quiet

import "strings"

// Title upper-cases the first letter of s.
func Title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
