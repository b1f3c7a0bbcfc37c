package store

import (
	"context"
	"testing"
	"time"
)

func TestFetch(t *testing.T) {
	retryWait = time.Millisecond // production state, changed by the test
	if _, err := Fetch(context.Background(), "http://127.0.0.1:1/"); err == nil {
		t.Fatal("want an error")
	}
}
