package testdeadline

import (
	"context"
	"testing"
	"time"
)

func TestProcess(t *testing.T) {
	s := &Store{}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	defer s.release(ctx, 1)
	if err := s.work(ctx, 1); err != nil {
		t.Fatal(err)
	}
}
