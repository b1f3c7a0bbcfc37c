// Package caller sets the deadline of a path to the pipeline: a caller is
// a row of the census, not a pipeline, so the probe says nothing here.
package caller

import (
	"context"
	"net/http"
	"time"

	"example.com/probe/pipeline"
)

func Ask() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if resp, err := pipeline.Fetch(ctx, http.DefaultClient, "https://example.com"); err == nil {
		resp.Body.Close()
	}
}
