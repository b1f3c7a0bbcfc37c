package retrystatus

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// universe holds the status codes every decision is evaluated for.
var universe = func() []int {
	var u []int
	for c := 400; c <= 431; c++ {
		u = append(u, c)
	}
	u = append(u, 451, 499)
	for c := 500; c <= 511; c++ {
		u = append(u, c)
	}
	for c := 520; c <= 530; c++ {
		u = append(u, c)
	}
	u = append(u, 598, 599)
	for c := 1; c <= 16; c++ { // gRPC codes but OK
		u = append(u, grpcBase+c)
	}
	return u
}()

// permanent are the codes that fail the same way on every attempt: HTTP's,
// and gRPC's InvalidArgument, NotFound, AlreadyExists, PermissionDenied,
// FailedPrecondition, OutOfRange, Unimplemented and Unauthenticated.
var permanent = []int{400, 401, 403, 404, 413, 422,
	grpcBase + 3, grpcBase + 5, grpcBase + 6, grpcBase + 7, grpcBase + 9, grpcBase + 11, grpcBase + 12, grpcBase + 16}

// grpcNames are the gRPC codes' names (google.golang.org/grpc/codes).
var grpcNames = []string{"OK", "Canceled", "Unknown", "InvalidArgument", "DeadlineExceeded", "NotFound", "AlreadyExists",
	"PermissionDenied", "ResourceExhausted", "FailedPrecondition", "Aborted", "OutOfRange", "Unimplemented", "Internal",
	"Unavailable", "DataLoss", "Unauthenticated"}

// overloaded is the non-standard overload status one major API returns.
const overloaded = 529

func isStatus(k int64) bool { return k >= 100 && k <= 599 }

// codeName renders a code for a message: "413 (payload too large)".
func codeName(c int) string {
	if isGRPC(c) {
		return "codes." + grpcNames[c-grpcBase]
	}
	switch c {
	case 400:
		return "400 (bad request)"
	case 401:
		return "401 (unauthorized)"
	case 403:
		return "403 (forbidden)"
	case 404:
		return "404 (not found)"
	case 413:
		return "413 (payload too large)"
	case 422:
		return "422 (unprocessable)"
	case overloaded:
		return "529 (overloaded)"
	}
	if t := http.StatusText(c); t != "" {
		return fmt.Sprintf("%d (%s)", c, strings.ToLower(t))
	}
	return fmt.Sprint(c)
}

// joinCodes renders codes as "502, 503, 504".
func joinCodes(cs []int, name bool) string {
	cs = slices.Clone(cs)
	slices.Sort(cs)
	var s []string
	for _, c := range slices.Compact(cs) {
		if name || isGRPC(c) {
			s = append(s, codeName(c))
		} else {
			s = append(s, fmt.Sprint(c))
		}
	}
	return strings.Join(s, ", ")
}

// andList renders "500 and 529 (overloaded)".
func andList(cs []int) string {
	var s []string
	for _, c := range cs {
		if c == overloaded {
			s = append(s, codeName(c))
		} else {
			s = append(s, fmt.Sprint(c))
		}
	}
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
