// Package lambdafn: a Lambda handler records a failure on the context the
// runtime gave it, which ends at the function's timeout.
package lambdafn

import (
	"context"
	"database/sql"
	"net/http"

	"github.com/aws/aws-lambda-go/lambda"
)

type Event struct{ ID int64 }

type app struct {
	db *sql.DB
	hc *http.Client
}

func notify(ctx context.Context, hc *http.Client, id int64) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://hooks.example/notify", nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

func (a *app) handle(ctx context.Context, ev Event) error {
	if err := notify(ctx, a.hc, ev.ID); err != nil {
		a.db.ExecContext(ctx, "UPDATE events SET state = 'failed' WHERE id = $1", ev.ID) // want `write uses ctx after notify failed on it: when that call ran out of the deadline set by the Lambda function's timeout \(the invocation's deadline\)`
		return err
	}
	return nil
}

// Quiet: not a handler the runtime calls; its context is its caller's.
func (a *app) helper(ctx context.Context, ev Event) error {
	if err := notify(ctx, a.hc, ev.ID); err != nil {
		a.db.ExecContext(ctx, "UPDATE events SET state = 'failed' WHERE id = $1", ev.ID)
		return err
	}
	return nil
}

func main() {
	a := &app{hc: http.DefaultClient}
	_ = a.helper
	lambda.Start(a.handle)
}
