package remote

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"time"
)

type uploader struct {
	hc *http.Client
}

// doRequest sends a request the caller built; it takes no context (the
// request carries one) and is the attempt's send.
func doRequest(u *uploader, req *http.Request) (*http.Response, error) {
	resp, err := u.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 500 {
		resp.Body.Close()
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	return resp, nil
}

// UploadChunk builds the request in each attempt and sends it through
// doRequest, going round until the answer carries the upload status: the
// send, handed the request built just before, is the retried operation,
// not a reading of the build. Its waits are fixed.
func UploadChunk(ctx context.Context, u *uploader, url string, chunk []byte) (*http.Response, error) {
	var resp *http.Response
	for attempt := 0; attempt < 3; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(chunk))
		if err != nil {
			return nil, err
		}
		resp, err = doRequest(u, req)
		if err != nil {
			return nil, err
		}
		if resp.Header.Get("X-Upload-Status") != "" {
			return resp, nil
		}
		resp.Body.Close()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(2 * time.Second): // want `no jitter: retry loop waits 2s, 2s with no random part`
		}
	}
	return resp, nil
}
