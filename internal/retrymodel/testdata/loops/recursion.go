package loops

import (
	"context"
	"errors"
	"net/http"
	"path"
)

func callHost(ctx context.Context, host string) error { return nil }
func callPage(ctx context.Context, page int) error    { return nil }
func callDir(ctx context.Context, dir string) error   { return nil }

// A retry by recursion that counts its attempts down and sends again at
// once: no wait, still a retry.
func sendCounted(ctx context.Context, left int) error { // want `retry by recursion: attempts=\? jitter=no`
	err := call(ctx)
	if err != nil {
		if left <= 0 {
			return err
		}
		return sendCounted(ctx, left-1)
	}
	return nil
}

// The same in a case of a status switch: the transient codes' case calls
// the function again with the next attempt number, the caller's other
// arguments handed on.
func fetchStatus(ctx context.Context, url string, try int) (*http.Response, error) { // want `retry by recursion: attempts=\? jitter=no`
	resp, err := get(ctx)
	if err != nil {
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusOK:
		return resp, nil
	case http.StatusBadGateway, http.StatusServiceUnavailable:
		if try < 3 {
			resp.Body.Close()
			return fetchStatus(ctx, url, try+1)
		}
	}
	return resp, errors.New("unexpected status")
}

// Moving on to the next host after a failure is a fallback over hosts:
// the stepped parameter indexes the list.
func tryHosts(ctx context.Context, hosts []string, i int) error {
	err := callHost(ctx, hosts[i])
	if err != nil && i+1 < len(hosts) {
		return tryHosts(ctx, hosts, i+1)
	}
	return err
}

// Pagination steps a page on success, and the request reads it.
func fetchAll(ctx context.Context, page int) error {
	if err := callPage(ctx, page); err != nil {
		return err
	}
	if page < 10 {
		return fetchAll(ctx, page+1)
	}
	return nil
}

// Walking up a tree on failure, with a depth limit: the attempt reads
// the directory, which the call does not hand on as it is.
func lookupUp(ctx context.Context, dir string, depth int) error {
	err := callDir(ctx, dir)
	if err != nil {
		if depth > 5 || dir == "/" {
			return err
		}
		return lookupUp(ctx, path.Dir(dir), depth+1)
	}
	return nil
}

// A count the request carries (an attempt header) is not only a count:
// not read as one, so this recursion without a wait is no layer.
func sendNumbered(ctx context.Context, attempt int) error {
	err := callPage(ctx, attempt)
	if err != nil && attempt < 3 {
		return sendNumbered(ctx, attempt+1)
	}
	return err
}
