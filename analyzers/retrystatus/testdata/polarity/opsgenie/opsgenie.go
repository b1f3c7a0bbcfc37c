// Package opsgenie reads the retry verdict of notify.Retrier.Check as
// success (alertmanager's opsgenie notifier before adb69554a): a 5xx or a
// 429 is taken as delivered and never retried.
package opsgenie

import (
	"context"
	"net/http"

	"example.com/t/polarity/notify"
)

// Notifier sends alerts; Notify returns (retry, err) to the notification
// pipeline, which retries when err is set and retry is true.
type Notifier struct {
	client  *http.Client
	retrier *notify.Retrier
}

// Notify sends one request per alert.
func (n *Notifier) Notify(ctx context.Context, reqs ...*http.Request) (bool, error) { // want Notify:`status classifier: true for .*; lists $`
	for _, req := range reqs {
		resp, err := n.client.Do(req.WithContext(ctx))
		if err != nil {
			return true, err
		}
		defer resp.Body.Close()

		success, err := n.retrier.Check(resp.StatusCode, resp.Body) // want `Notify reads Check's first result \(success\) as success, but it is the retry verdict \(true for 500, 502, 503 and 504, with the error set\): on those codes the error is dropped and Notify returns nil, so the failure counts as done and is never retried; hand the verdict on as retry, or test the error first`
		if !success {
			return false, err
		}
	}
	return true, nil
}
